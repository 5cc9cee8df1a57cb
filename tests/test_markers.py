from markers import parse_markers, split_files


def test_parse_markers_named_and_nested() -> None:
    m = parse_markers(r"\cite{⟦a|foo⟧,⟦bar⟧}")
    assert m.text == r"\cite{foo,bar}"
    assert m.slice(m.named["a"]) == "foo"
    assert [m.slice(s) for s in m.spans] == ["foo", "bar"]


def test_split_files() -> None:
    files = split_files("--- a.tex\nx\n--- b/c.bib\ny\n")
    assert files == {"a.tex": "x\n", "b/c.bib": "y\n"}
