"""Configuration end to end: initializationOptions, workspace/configuration (answered by the
test client), didChangeConfiguration, .citewarden.toml, and invalid settings."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsp_editor import wait_for
from lsprotocol import types
from pytest_lsp import client_capabilities

from citewarden.lsp.config import ProblemGate
from citewarden.model import Code
from citewarden.settings import SettingsProblem
from conftest import PROJECT, Harness, Start


def severity_of(h: Harness, name: str, code: Code) -> list[types.DiagnosticSeverity | None]:
    return [d.severity for d in h.diagnostics(name) if d.code == code.value]


async def test_initialization_options_turn_a_code_off(start: Start) -> None:
    h = await start(init={"severity": {"orphan-entry": "off"}})
    await wait_for(lambda: severity_of(h, "refs.bib", Code.DUPLICATE_KEY))
    assert severity_of(h, "refs.bib", Code.ORPHAN) == []


async def test_workspace_configuration_and_change(start: Start) -> None:
    h = await start(config={"severity": {"dangling-citation": "warning"}})
    name = "chapters/intro.tex"
    await wait_for(lambda: severity_of(h, name, Code.DANGLING))
    assert severity_of(h, name, Code.DANGLING) == [types.DiagnosticSeverity.Warning]
    # the user changes the setting: the client answers workspace/configuration anew
    h.client.set_configuration(
        {"severity": {"dangling-citation": "hint", "orphan-entry": "off"}}, section="citewarden"
    )
    h.client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
    await wait_for(lambda: severity_of(h, name, Code.DANGLING) == [types.DiagnosticSeverity.Hint])
    await wait_for(lambda: severity_of(h, "refs.bib", Code.ORPHAN) == [])
    assert severity_of(h, "refs.bib", Code.DUPLICATE_KEY) == [types.DiagnosticSeverity.Error]


@pytest.mark.parametrize("client_name", ["neovim@v0.7.0"])
async def test_did_change_configuration_carries_settings(start: Start) -> None:
    """Neovim 0.7 does not answer workspace/configuration: the notification holds them."""
    h = await start(capabilities=client_capabilities("neovim@v0.7.0"))
    await wait_for(lambda: severity_of(h, "refs.bib", Code.ORPHAN))
    h.client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(
            settings={"citewarden": {"severity": {"orphan-entry": "information"}}}
        )
    )
    await wait_for(
        lambda: severity_of(h, "refs.bib", Code.ORPHAN) == [types.DiagnosticSeverity.Information]
    )


async def test_extra_citation_commands_take_effect(start: Start) -> None:
    files = PROJECT.replace("See \\cite{knuth1984}", "See \\mycite{knuht84} \\cite{knuth1984}")
    h = await start(files=files)
    await wait_for(lambda: severity_of(h, "main.tex", Code.DANGLING) == [])
    h.client.set_configuration({"citation_commands": ["mycite"]}, section="citewarden")
    h.client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(
            settings={"citewarden": {"citation_commands": ["mycite"]}}
        )
    )
    [d] = await wait_for(
        lambda: [x for x in h.diagnostics("main.tex") if x.code == Code.DANGLING.value]
    )
    assert h.editor.slice("main.tex", d.range) == "knuht84"


async def test_config_file_and_its_change_on_disk(start: Start) -> None:
    files = PROJECT + '--- .citewarden.toml\n[severity]\norphan-entry = "hint"\n'
    h = await start(files=files)
    await wait_for(
        lambda: severity_of(h, "refs.bib", Code.ORPHAN) == [types.DiagnosticSeverity.Hint]
    )
    (h.root / ".citewarden.toml").write_text(
        '[severity]\norphan-entry = "error"\n', encoding="utf-8"
    )
    h.client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(
            changes=[
                types.FileEvent(uri=h.uri(".citewarden.toml"), type=types.FileChangeType.Changed)
            ]
        )
    )
    await wait_for(
        lambda: severity_of(h, "refs.bib", Code.ORPHAN) == [types.DiagnosticSeverity.Error]
    )


async def test_config_file_saved_in_the_editor(start: Start) -> None:
    """The settings file edited and saved in the editor: the settings are read again, for a
    client that watches no files too (Neovim's sends no change on disk; they stayed as
    they were until the server started again)."""
    files = PROJECT + '--- .citewarden.toml\n[severity]\norphan-entry = "hint"\n'
    h = await start(files=files)
    await wait_for(
        lambda: severity_of(h, "refs.bib", Code.ORPHAN) == [types.DiagnosticSeverity.Hint]
    )
    name = ".citewarden.toml"
    h.editor.open(name)
    h.editor.replace(name, '"hint"', '"error"')
    (h.root / name).write_text(h.editor.text(name), encoding="utf-8")
    h.client.text_document_did_save(
        types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=h.uri(name)))
    )
    await wait_for(
        lambda: severity_of(h, "refs.bib", Code.ORPHAN) == [types.DiagnosticSeverity.Error]
    )


async def test_a_settings_file_that_cannot_be_read_leaves_the_settings_it_held(
    start: Start,
) -> None:
    """A .citewarden.toml saved with lone carriage returns (old Mac line endings) is said
    to be so, where; the settings it held when last read stay in force (they fell back to
    the defaults) beside the editor's, until it is saved readable again."""
    files = PROJECT + '--- .citewarden.toml\n[severity]\norphan-entry = "hint"\n'
    h = await start(files=files)
    orphan = [types.DiagnosticSeverity.Hint]
    await wait_for(lambda: severity_of(h, "refs.bib", Code.ORPHAN) == orphan)

    def saved(data: bytes) -> None:
        (h.root / ".citewarden.toml").write_bytes(data)
        h.client.workspace_did_change_watched_files(
            types.DidChangeWatchedFilesParams(
                changes=[
                    types.FileEvent(
                        uri=h.uri(".citewarden.toml"), type=types.FileChangeType.Changed
                    )
                ]
            )
        )

    saved(b'[severity]\rorphan-entry = "error"\r')
    [message] = await wait_for(lambda: [m for m in h.client.messages if "CR" in m.message])
    assert message.message == (
        f"citewarden: {h.root / '.citewarden.toml'}: setting 'file': invalid TOML: a carriage "
        "return (CR) without a line feed after it at line 1, column 11: TOML ends lines with "
        "LF or CRLF only; the settings it held when last read stay in force"
    )
    h.client.set_configuration(
        {"severity": {"dangling-citation": "information"}}, section="citewarden"
    )
    h.client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
    name = "chapters/intro.tex"
    info = [types.DiagnosticSeverity.Information]
    await wait_for(lambda: severity_of(h, name, Code.DANGLING) == info)
    assert severity_of(h, "refs.bib", Code.ORPHAN) == orphan
    saved(b'[severity]\r\norphan-entry = "error"\r\n')
    error = [types.DiagnosticSeverity.Error]
    await wait_for(lambda: severity_of(h, "refs.bib", Code.ORPHAN) == error)
    assert severity_of(h, name, Code.DANGLING) == info


async def test_invalid_setting_is_shown_and_defaults_apply(start: Start) -> None:
    h = await start(init={"debounce_ms": "soon", "severity": {"orphan-entry": "loud"}})
    messages = await wait_for(lambda: h.client.messages)
    text = " ".join(m.message for m in messages)
    assert "debounce_ms" in text and "orphan-entry" in text
    assert messages[0].type in (types.MessageType.Warning, types.MessageType.Error)
    # the server carries on with the defaults
    await wait_for(
        lambda: severity_of(h, "refs.bib", Code.ORPHAN) == [types.DiagnosticSeverity.Warning]
    )
    name = "chapters/intro.tex"
    h.editor.open(name)
    h.editor.replace(name, "knuht1984", "knuth1984")
    await wait_for(lambda: not h.diagnostics(name))


async def test_a_section_that_is_no_object_is_said_to_be_so(start: Start) -> None:
    """initializationOptions {"citewarden": "strict"} is shown as a section that is no
    object of settings, where it was read as an unknown setting named citewarden."""
    h = await start(init={"citewarden": "strict"})
    messages = await wait_for(lambda: h.client.messages)
    text = " ".join(m.message for m in messages)
    assert "setting 'citewarden': expected an object of settings" in text, text


async def test_a_second_folder_settings_file_is_reported_not_read(start: Start) -> None:
    files = PROJECT + '--- .citewarden.toml\n[severity]\norphan-entry = "hint"\n'
    h = await start(files=files)
    second = h.root.parent / "second"
    second.mkdir()
    (second / ".citewarden.toml").write_text('[severity]\norphan-entry = "error"\n', "utf-8")
    h.client.workspace_did_change_workspace_folders(
        types.DidChangeWorkspaceFoldersParams(
            event=types.WorkspaceFoldersChangeEvent(
                added=[types.WorkspaceFolder(uri=second.as_uri(), name="second")], removed=[]
            )
        )
    )
    [message] = await wait_for(lambda: [m for m in h.client.messages if "not read" in m.message])
    assert message.type == types.MessageType.Info
    assert str(second / ".citewarden.toml") in message.message
    assert str(h.root / ".citewarden.toml") in message.message
    # the first folder's settings stay in force
    await wait_for(
        lambda: severity_of(h, "refs.bib", Code.ORPHAN) == [types.DiagnosticSeverity.Hint]
    )


async def test_values_quoted_from_the_settings_are_shown_escaped(start: Start) -> None:
    """A key or command name with control or bidirectional characters reached the editor's
    message as it was (the terminal's warning escaped it)."""
    h = await start(
        init={"citation_commands": ["x\u202ey z"], "severity": {"orphan-\x1b[2Jentry": "off"}}
    )
    messages = await wait_for(
        lambda: [m.message for m in h.client.messages if "invalid" in m.message]
    )
    text = " ".join(messages)
    assert "x\\u202ey z" in text and "orphan-\\x1b[2Jentry" in text
    assert "\u202e" not in text and "\x1b" not in text


async def test_files_an_ignore_pattern_no_longer_names_are_checked(start: Start) -> None:
    """The walk of the workspace folder skips the files the ignore patterns name: a pattern
    taken out of the settings left those files unknown (unchecked, their citations of an
    entry no orphan) until the server started again."""
    files = (
        PROJECT
        + '--- .citewarden.toml\nignore = ["drafts/**"]\n'
        + "--- drafts/notes.tex\n\\cite{ghost,unused2001}\n\\bibliography{../refs}\n"
    )
    h = await start(files=files)
    await wait_for(lambda: Code.ORPHAN.value in h.codes("refs.bib"))
    (h.root / ".citewarden.toml").write_text("ignore = []\n", encoding="utf-8")
    h.client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(
            changes=[
                types.FileEvent(uri=h.uri(".citewarden.toml"), type=types.FileChangeType.Changed)
            ]
        )
    )
    await wait_for(lambda: h.codes("drafts/notes.tex") == [Code.DANGLING.value])
    await wait_for(lambda: Code.ORPHAN.value not in h.codes("refs.bib"))


async def test_a_mistake_made_again_after_it_was_mended_is_logged_again(start: Start) -> None:
    """The editor's message about an invalid value is shown once while the value stays as
    it is; mended, then made again soon after, it is written to the editor's log again but
    not shown again (:func:`test_the_same_mistake_is_shown_again_after_the_window` shows it
    is once the window has passed)."""
    h = await start(config={"debounce_ms": "soon"})

    def shown() -> list[str]:
        return [m.message for m in h.client.messages if "debounce_ms" in m.message]

    def logged() -> list[str]:
        return [m.message for m in h.client.log_messages if "debounce_ms" in m.message]

    await wait_for(lambda: len(shown()) == 1)
    assert len(logged()) == 1
    h.client.set_configuration({"debounce_ms": 200}, section="citewarden")
    h.client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
    h.client.set_configuration(
        {"debounce_ms": 200, "severity": {"orphan-entry": "hint"}}, section="citewarden"
    )
    h.client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
    await wait_for(
        lambda: severity_of(h, "refs.bib", Code.ORPHAN) == [types.DiagnosticSeverity.Hint]
    )
    assert len(shown()) == 1 and len(logged()) == 1  # nothing new to say meanwhile
    h.client.set_configuration({"debounce_ms": "soon"}, section="citewarden")
    h.client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
    await wait_for(lambda: len(logged()) == 2)
    await wait_for(
        lambda: severity_of(h, "refs.bib", Code.ORPHAN) == [types.DiagnosticSeverity.Warning]
    )
    assert len(shown()) == 1


@pytest.mark.parametrize("client_name", ["neovim@v0.7.0"])
async def test_settings_flipped_back_and_forth_are_shown_once(start: Start) -> None:
    """300 didChangeConfiguration, valid and invalid in turn, showed 150 messages: the
    mistake is shown once and logged each time it is made, and a new mistake after them
    is shown at once."""
    h = await start(capabilities=client_capabilities("neovim@v0.7.0"))
    await wait_for(lambda: severity_of(h, "refs.bib", Code.ORPHAN))

    def change(section: dict[str, object]) -> None:
        h.client.workspace_did_change_configuration(
            types.DidChangeConfigurationParams(settings={"citewarden": section})
        )

    for n in range(300):
        change({"debounce_ms": "soon"} if n % 2 == 0 else {"debounce_ms": 200})
    change({"severity": {"orphan-entry": "loud"}})
    await wait_for(lambda: [m for m in h.client.messages if "orphan-entry" in m.message])
    shown = [m.message for m in h.client.messages if "debounce_ms" in m.message]
    logged = [m.message for m in h.client.log_messages if "debounce_ms" in m.message]
    assert len(shown) == 1, shown
    assert len(logged) == 150
    assert all("expected milliseconds" in m for m in shown + logged), shown


def problem(key: str) -> SettingsProblem:
    return SettingsProblem("workspace/configuration", key, "expected an integer")


def test_the_same_mistake_is_shown_again_after_the_window() -> None:
    gate = ProblemGate(window=60.0)
    debounce, severity = problem("debounce_ms"), problem("severity")
    assert gate.new_problems([debounce], now=0.0) == ([debounce], [debounce])
    assert gate.new_problems([debounce], now=1.0) == ([], [])  # it stays: not made anew
    assert gate.new_problems([], now=2.0) == ([], [])
    # made again within the window: logged, not shown; a new mistake beside it is shown
    assert gate.new_problems([debounce, severity], now=30.0) == ([debounce, severity], [severity])
    assert gate.new_problems([], now=40.0) == ([], [])
    assert gate.new_problems([debounce], now=61.0) == ([debounce], [debounce])
    assert gate.new_problems([], now=62.0) == ([], [])
    assert gate.new_problems([severity], now=70.0) == ([severity], [])
    assert gate.new_problems([], now=80.0) == ([], [])
    assert gate.new_problems([severity], now=91.0) == ([severity], [severity])


async def test_the_projects_settings_file_above_the_workspace_folder_is_read(
    start: Start, tmp_path: Path
) -> None:
    """A folder of the project opened alone reads the project's .citewarden.toml above it,
    as ``citewarden check`` does (up to the repository's root): the editor used the
    defaults and the command line the project's settings."""
    (tmp_path / ".citewarden.toml").write_text(
        '[severity]\norphan-entry = "hint"\n', encoding="utf-8"
    )
    h = await start()
    await wait_for(
        lambda: severity_of(h, "refs.bib", Code.ORPHAN) == [types.DiagnosticSeverity.Hint]
    )


async def test_files_an_ignore_pattern_names_from_now_on_count_no_more(start: Start) -> None:
    """A pattern added to the settings while the server runs leaves the files it names out
    as the first walk would: their citations kept an entry cited (no orphan) until the
    server started again."""
    files = PROJECT + "--- drafts/notes.tex\n\\cite{unused2001}\n\\bibliography{../refs}\n"
    h = await start(files=files)
    await wait_for(lambda: h.codes("drafts/notes.tex") == [])
    assert Code.ORPHAN.value not in h.codes("refs.bib")
    (h.root / ".citewarden.toml").write_text('ignore = ["drafts/**"]\n', encoding="utf-8")
    h.client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(
            changes=[
                types.FileEvent(uri=h.uri(".citewarden.toml"), type=types.FileChangeType.Created)
            ]
        )
    )
    await wait_for(lambda: Code.ORPHAN.value in h.codes("refs.bib"))


async def test_ignore_patterns_of_a_settings_file_above_are_relative_to_its_folder(
    start: Start, tmp_path: Path
) -> None:
    """The ignore patterns of a .citewarden.toml above the workspace folder are matched
    relative to that file's folder, as ``citewarden check`` matches them: they were matched
    relative to the workspace folder and named nothing."""
    (tmp_path / ".citewarden.toml").write_text('ignore = ["ws/drafts/**"]\n', encoding="utf-8")
    files = PROJECT + "--- drafts/notes.tex\n\\cite{unused2001}\n\\bibliography{../refs}\n"
    h = await start(files=files)
    await wait_for(lambda: Code.ORPHAN.value in h.codes("refs.bib"))
    assert h.codes("drafts/notes.tex") == []


async def test_a_settings_file_above_the_workspace_folder_is_watched(
    start: Start, tmp_path: Path, client_name: str
) -> None:
    """The settings files above the workspace folder that the server reads are watched (a
    client's glob patterns cover only the workspace folders): an edit of the one read took
    effect only at the next change of the settings or start."""
    config = tmp_path / ".citewarden.toml"
    config.write_text('[severity]\norphan-entry = "hint"\n', encoding="utf-8")
    h = await start()
    await wait_for(
        lambda: severity_of(h, "refs.bib", Code.ORPHAN) == [types.DiagnosticSeverity.Hint]
    )
    watched = [
        w["globPattern"]
        for r in h.registrations
        if r.method == types.WORKSPACE_DID_CHANGE_WATCHED_FILES
        for w in r.register_options["watchers"]  # type: ignore[index]
    ]
    above = [(p["baseUri"], p["pattern"]) if isinstance(p, dict) else p for p in watched]
    # Neovim 0.11's capabilities allow no registration of watchers
    assert ((tmp_path.as_uri(), ".citewarden.toml") in above or config.as_posix() in above) == (
        client_name == "visual-studio-code"
    )
    config.write_text('[severity]\norphan-entry = "information"\n', encoding="utf-8")
    h.client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(
            changes=[types.FileEvent(uri=config.as_uri(), type=types.FileChangeType.Changed)]
        )
    )
    await wait_for(
        lambda: severity_of(h, "refs.bib", Code.ORPHAN) == [types.DiagnosticSeverity.Information]
    )
