"""Source configuration (settings over environment over defaults) and the registry."""

from __future__ import annotations

from pathlib import Path

import pytest

import replay as replay_fixtures
from citewarden.settings import SOURCE_NAMES, VerifySettings, load_settings
from citewarden.verify.config import DEFAULT_BASE_URLS, URL_ENV, resolve_config
from citewarden.verify.records import Outcome
from citewarden.verify.sources import CachedSource, build_sources, make_http, open_sources
from replay import ReplayServer

# the loopback replay fixtures
replay_server = replay_fixtures.replay_server
replay = replay_fixtures.replay


def test_defaults() -> None:
    config = resolve_config(VerifySettings(), env={})
    assert config.base_url("crossref") == "https://api.crossref.org"
    assert config.base_urls == DEFAULT_BASE_URLS
    assert config.mailto is None and config.secrets == ()


def test_every_source_has_an_env_variable() -> None:
    assert set(URL_ENV) == set(SOURCE_NAMES)
    env = {var: f"http://mirror.test/{name}/" for name, var in URL_ENV.items()}
    config = resolve_config(VerifySettings(), env=env)
    for name in SOURCE_NAMES:
        assert config.base_url(name) == f"http://mirror.test/{name}"


def test_explicit_settings_win_over_environment() -> None:
    env = {
        "CITEWARDEN_CROSSREF_URL": "http://env.test",
        "CITEWARDEN_MAILTO": "env@example.org",
        "CITEWARDEN_OPENALEX_API_KEY": "env-oa",
        "CITEWARDEN_S2_API_KEY": "env-s2",
        "CITEWARDEN_NCBI_API_KEY": "env-ncbi",
    }
    settings, problems = load_settings(
        None,
        (
            {
                "verify": {
                    "base-urls": {"crossref": "http://settings.test"},
                    "mailto": "me@example.org",
                    "s2-api-key": "set-s2",
                }
            },
            "test",
        ),
    )
    assert problems == []
    config = resolve_config(settings.verify, env=env)
    assert config.base_url("crossref") == "http://settings.test"
    assert config.mailto == "me@example.org"
    assert config.s2_api_key == "set-s2"
    assert config.openalex_api_key == "env-oa" and config.ncbi_api_key == "env-ncbi"
    assert set(config.secrets) == {"env-oa", "set-s2", "env-ncbi"}
    assert "env-oa" not in repr(config) and "set-s2" not in repr(config)


def test_make_source_for_every_name() -> None:
    config = resolve_config(VerifySettings(), env={})
    sources = build_sources(config, make_http(config), cache=None)
    assert [s.name for s in sources] == list(SOURCE_NAMES)
    assert all(callable(s.by_doi) and callable(s.search) for s in sources)


def test_configured_order_and_subset() -> None:
    settings = VerifySettings(sources=("openalex", "crossref"))
    sources = build_sources(settings, cache=None, env={})
    assert [s.name for s in sources] == ["openalex", "crossref"]


async def test_open_sources_end_to_end(replay: ReplayServer, tmp_path: Path) -> None:
    # the addresses from the environment (the user's own): the contact address goes there
    settings = VerifySettings(sources=("crossref", "doi"), mailto="me@example.org")
    env = {URL_ENV[name]: url for name, url in replay.base_urls.items() if name in URL_ENV}
    async with open_sources(settings, env=env, cache_dir=tmp_path / "cache") as ss:
        crossref = ss.by_name("crossref")
        assert isinstance(crossref, CachedSource)
        first = await crossref.by_doi("10.1371/journal.pone.0033693")
        again = await crossref.by_doi("10.1371/journal.pone.0033693")
        assert first.outcome is Outcome.FOUND and again.from_cache
        assert "mailto:me@example.org" in replay.log[0].headers["user-agent"]
    assert replay.requests_to("/crossref") == 1
    assert (tmp_path / "cache").is_dir()


async def _s2_key_sent(
    replay: ReplayServer, tmp_path: Path, settings: VerifySettings, env: dict[str, str]
) -> str | None:
    async with open_sources(settings, env=env, cache_dir=tmp_path / "cache") as ss:
        await ss.by_name("semanticscholar").by_doi("10.1371/journal.pone.0033693")
    seen = [s for s in replay.log if s.path.startswith("/semanticscholar")]
    assert seen, "no request reached the loopback server"
    return seen[-1].headers.get("x-api-key")


async def test_keys_go_to_an_address_from_settings_only_if_it_is_the_services_own(
    replay: ReplayServer, tmp_path: Path
) -> None:
    """A settings file can come with a cloned repository: an address it names for a source
    gets no key (the user's key would go to whoever wrote it); an address from the
    environment, the user's own shell, does, as the service's own address always does."""
    from citewarden.settings import Settings
    from citewarden.verify.config import source_address_problems

    loopback = replay.base_url("semanticscholar")
    key = {"CITEWARDEN_S2_API_KEY": "k-secret"}
    from_file = VerifySettings(
        sources=("semanticscholar",), base_urls={"semanticscholar": loopback}
    )
    assert await _s2_key_sent(replay, tmp_path / "a", from_file, key) is None
    from_env = VerifySettings(sources=("semanticscholar",))
    env = {**key, "CITEWARDEN_SEMANTICSCHOLAR_URL": loopback}
    assert await _s2_key_sent(replay, tmp_path / "b", from_env, env) == "k-secret"
    own = dict(DEFAULT_BASE_URLS, semanticscholar="https://API.semanticscholar.org/")
    assert resolve_config(VerifySettings(base_urls=own), key).s2_api_key == "k-secret"
    assert resolve_config(from_file, key).withheld == ("semanticscholar",)
    problems = source_address_problems(Settings(verify=from_file), key)
    assert [p.key for p in problems] == ["verify.base_urls.semanticscholar"]
    assert problems[0].message.startswith(f"semanticscholar is asked at {loopback}, not at")
    assert (
        "API key (CITEWARDEN_S2_API_KEY or the verify settings) is not sent" in problems[0].message
    )
    assert "k-secret" not in str(problems[0])
    # an address from settings is said even with no key; the service's own is not
    elsewhere = VerifySettings(
        base_urls={"crossref": loopback, "semanticscholar": own["semanticscholar"]}
    )
    said = source_address_problems(Settings(verify=elsewhere), {})
    assert [(p.key, "API key" in p.message) for p in said] == [("verify.base_urls.crossref", False)]


def test_the_environments_judge_key_goes_only_to_the_environments_judge() -> None:
    from citewarden.settings import JudgeSettings
    from citewarden.verify.judge import judge_config

    env = {"CITEWARDEN_JUDGE_API_KEY": "k-judge", "CITEWARDEN_JUDGE_MODEL": "m"}
    planted = judge_config(JudgeSettings(url="https://judge.example/v1"), env)
    assert planted is not None and planted.api_key is None
    own = judge_config(JudgeSettings(), {**env, "CITEWARDEN_JUDGE_URL": "http://127.0.0.1:9/v1"})
    assert own is not None and own.api_key == "k-judge"
    given = judge_config(JudgeSettings(url="https://judge.example/v1", api_key="k-file"), env)
    assert given is not None and given.api_key == "k-file"


def test_reports_name_the_sources_asked_at_an_address_other_than_their_own(
    replay: ReplayServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """An editor auditing a manuscript whose folder points Crossref at another server sees
    it in the warning, the JSON report and the HTML report's methodology; a user name and
    password in that address are never shown."""
    import json

    from citewarden import cli

    loopback = replay.base_url("crossref")
    with_login = loopback.replace("http://", "http://editor:hunter2@")
    (tmp_path / "main.tex").write_text("\\cite{w}\n\\bibliography{refs}\n", encoding="utf-8")
    (tmp_path / "refs.bib").write_text(
        "@article{w, doi = {10.1371/journal.pone.0033693}, title = {T}}\n", encoding="utf-8"
    )
    (tmp_path / ".citewarden.toml").write_text(
        f'[verify]\nsources = ["crossref"]\nbase_urls = {{ crossref = "{with_login}" }}\n',
        encoding="utf-8",
    )
    monkeypatch.setenv("CITEWARDEN_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)
    cli.main(["check", "main.tex", "--format", "json"])
    out, err = capsys.readouterr()
    assert json.loads(out)["source_addresses"] == {"crossref": loopback}
    assert f"crossref is asked at {loopback}, not at its own address" in err
    cli.main(["check", "main.tex", "--format", "html", "--quiet", "--offline"])
    page = capsys.readouterr().out
    assert f"crossref at <code>{loopback}</code>" in page
    assert "hunter2" not in out + err + page


@pytest.mark.parametrize(
    ("url", "why"),
    [
        ("http://[::1", "cannot be read as a URL"),  # urlsplit raised: a traceback
        ("http://127.0.0.1:99999/", "cannot be read as a URL"),  # no such port
        ("ftp://mirror.example/", "is no http or https address"),
        ("http:///works", "names no host"),
        ("http://a b/", "holds a space or a control character"),
        # each failed every request as an invalid URL; the surrogate crashed opening sources
        ("http://x\x1b/", "holds a space or a control character"),
        ("http://a\x85b/", "holds a space or a control character"),
        ("http://a\udcffb/", "holds a byte that is not UTF-8"),
        ("https://x.example/" + "a" * 3000, "is longer than 2048 characters"),
    ],
)
def test_a_source_or_judge_address_that_is_no_http_address_is_a_settings_problem(
    url: str, why: str
) -> None:
    settings, problems = load_settings(
        None, ({"verify": {"base_urls": {"crossref": url}}, "judge": {"url": url}}, "f.toml")
    )
    assert settings.verify.base_urls.get("crossref") is None and settings.judge.url is None
    said = f"expected an http:// or https:// address; this one {why}"
    assert [(p.key, p.message) for p in problems] == [
        ("verify.base_urls.crossref", said),
        ("judge.url", said),
    ]


def test_an_unreadable_address_from_the_environment_is_shown_not_raised() -> None:
    """Environment addresses are the user's own and not checked like settings; one that
    cannot be read is listed as elsewhere (it gets no key) and shown escaped and cut,
    without its user name, password or query, like any other."""
    from citewarden.verify.config import addresses_elsewhere, shown_address

    env = {URL_ENV["crossref"]: "http://editor:hunter2@[::1\x1b[2J/works?token=t"}
    assert addresses_elsewhere(VerifySettings(sources=("crossref",)), env) == {
        "crossref": "http://[::1\\x1b[2J/works"
    }
    long = shown_address("https://x.example/" + "a" * 5000)
    assert len(long) < 300 and long.endswith("(5,018 characters)")


def test_the_judge_key_message_shows_the_judges_address_without_login_or_query() -> None:
    """A password or token in ``judge.url`` is never shown when the message says the
    environment's judge key is not sent there."""
    from citewarden.settings import JudgeSettings, Settings
    from citewarden.verify.config import source_address_problems

    url = "http://alice:s3cretpw@127.0.0.1:9/v1?token=t0ken"
    settings = Settings(judge=JudgeSettings(url=url))
    problems = source_address_problems(settings, {"CITEWARDEN_JUDGE_API_KEY": "envkey"})
    assert [p.key for p in problems] == ["judge.url"]
    said = str(problems[0])
    assert "is not sent to http://127.0.0.1:9/v1:" in said
    assert "s3cretpw" not in said and "alice" not in said and "t0ken" not in said


def test_address_problems_name_where_the_address_was_set(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The message about a source or judge address names the settings file, or the editor's
    settings, that set it, not "settings"."""
    from citewarden.lsp.config import ConfigSources

    toml = tmp_path / ".citewarden.toml"
    toml.write_text(
        '[verify]\nbase_urls = { crossref = "http://127.0.0.1:9/cr" }\n'
        '[judge]\nurl = "http://127.0.0.1:9/v1"\n',
        encoding="utf-8",
    )
    monkeypatch.setenv("CITEWARDEN_JUDGE_API_KEY", "envkey")
    from_file = ConfigSources(root=tmp_path).resolve()[1]
    editor = {"verify": {"base_urls": {"doi": "http://127.0.0.1:9/doi"}}}
    both = ConfigSources(root=tmp_path, client=editor).resolve()[1]
    assert [(p.origin, p.key) for p in from_file] == [
        (str(toml), "verify.base_urls.crossref"),
        (str(toml), "judge.url"),
    ]
    assert ("workspace/configuration", "verify.base_urls.doi") in [(p.origin, p.key) for p in both]
    assert (str(toml), "verify.base_urls.crossref") in [(p.origin, p.key) for p in both]


async def test_a_cache_directory_the_environment_names_has_its_tilde_expanded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    env = {"CITEWARDEN_CACHE_DIR": "~/cw-cache"}
    settings = VerifySettings(sources=("crossref",))
    async with open_sources(settings, env=env) as ss:
        assert ss.cache is not None and ss.cache.directory == tmp_path / "cw-cache"
    sources = build_sources(settings, env=env, snapshot=tmp_path / "snap.jsonl")
    assert isinstance(sources[1], CachedSource)
    assert sources[1].cache.directory == tmp_path / "cw-cache"
    assert not (tmp_path / "~").exists()


def test_address_warnings_name_the_line_of_the_settings_file(tmp_path: Path) -> None:
    """The warnings about a source or judge address a settings file sets name the file's
    line that sets it, as every other settings problem does, where they named the file
    alone; an address a later overlay sets is named with that overlay, without a line."""
    from citewarden.settings import CONFIG_FILE
    from citewarden.verify.config import source_address_problems

    (tmp_path / CONFIG_FILE).write_text(
        '[verify]\nsources = ["crossref", "doi"]\n\n[verify.base-urls]\n'
        'crossref = "https://x.test"\ndoi = "https://y.test"\n\n[judge]\nurl = "https://j.test"\n',
        encoding="utf-8",
    )
    config = str(tmp_path / CONFIG_FILE)
    settings, _ = load_settings(tmp_path)
    said = source_address_problems(settings, {"CITEWARDEN_JUDGE_API_KEY": "k"})
    assert [(p.origin, p.key, p.line) for p in said] == [
        (config, "verify.base_urls.crossref", 5),
        (config, "verify.base_urls.doi", 6),
        (config, "judge.url", 9),
    ]
    assert str(said[0]).startswith(f"{config}:5: setting 'verify.base_urls.crossref': ")
    overlay = {"verify": {"base_urls": {"crossref": "https://z.test"}}}
    settings, _ = load_settings(tmp_path, (overlay, "initializationOptions"))
    said = source_address_problems(settings, {})
    assert [(p.origin, p.line) for p in said[:1]] == [("initializationOptions", None)]


def test_an_invalid_source_address_leaves_the_tables_valid_ones_in_place(tmp_path: Path) -> None:
    """An address of the wrong type, an unknown source or an address that is no HTTP one in
    [verify.base_urls] is a problem of its own key, on its own line; the table's valid
    addresses are kept, where one mistake dropped them all (the sources asked their own
    services instead)."""
    from citewarden.settings import CONFIG_FILE

    (tmp_path / CONFIG_FILE).write_text(
        '[verify.base_urls]\ncrossref = "https://ok.test"\ndoi = 3\nnope = "https://a.test"\n'
        'arxiv = "ftp://b.test"\n',
        encoding="utf-8",
    )
    settings, problems = load_settings(tmp_path)
    assert settings.verify.base_urls == {"crossref": "https://ok.test"}
    assert [(p.key, p.line) for p in problems] == [
        ("verify.base_urls.doi", 3),
        ("verify.base_urls.nope", 4),
        ("verify.base_urls.arxiv", 5),
    ]


def test_an_unknown_source_leaves_the_known_ones_chosen() -> None:
    """An unknown name in verify.sources is a problem and the known names are the sources,
    where one unknown name dropped the choice and every source was asked; with no known
    name the sources stay as they were."""
    settings, problems = load_settings(
        None, ({"verify": {"sources": ["crossref", "nope", 3]}}, "f.toml")
    )
    assert settings.verify.sources == ("crossref",)
    assert [p.key for p in problems] == ["verify.sources", "verify.sources"]
    assert "nope" in problems[1].message
    settings, problems = load_settings(None, ({"verify": {"sources": ["nope"]}}, "f.toml"))
    assert settings.verify.sources == VerifySettings().sources and len(problems) == 1


async def test_the_contact_address_goes_to_an_address_from_settings_only_if_it_is_the_services_own(
    replay: ReplayServer, tmp_path: Path
) -> None:
    """The operator's e-mail address (``CITEWARDEN_MAILTO``) is sent, as a key would be,
    only to a service's own address or to one the environment gives: a settings file (a
    cloned repository's) pointing Crossref elsewhere gets neither the ``mailto`` parameter
    nor a User-Agent holding it, where it got both."""
    loopback = replay.base_url("crossref")
    mail = {"CITEWARDEN_MAILTO": "me@example.org"}

    async def sent(settings: VerifySettings, env: dict[str, str], where: Path) -> list[str]:
        replay.log.clear()
        async with open_sources(settings, env=env, cache_dir=where) as ss:
            await ss.by_name("crossref").by_doi("10.1371/journal.pone.0033693")
        seen = [s for s in replay.log if s.path.startswith("/crossref")]
        assert seen, "no request reached the loopback server"
        return [f"{s.query} {s.headers.get('user-agent', '')}" for s in seen]

    from_file = VerifySettings(sources=("crossref",), base_urls={"crossref": loopback})
    assert not any("me@example.org" in s for s in await sent(from_file, mail, tmp_path / "a"))
    assert resolve_config(from_file, mail).anonymous == ("crossref",)
    from_env = VerifySettings(sources=("crossref",))
    env = {**mail, "CITEWARDEN_CROSSREF_URL": loopback}
    requests = await sent(from_env, env, tmp_path / "b")
    assert all("mailto=me%40example.org" in s and "(mailto:me@example.org)" in s for s in requests)
    assert resolve_config(VerifySettings(), mail).mailto_for("crossref") == "me@example.org"
