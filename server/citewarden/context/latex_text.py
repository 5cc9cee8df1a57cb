"""LaTeX source as sentence text: what is no prose masked out, and the words of a stretch.

:func:`mask_latex` replaces what is never part of a typeset sentence by spaces, offset for
offset: comments (a ``%`` after an even number of backslashes, with the line break it eats),
``\\iffalse ... \\fi`` (nested conditionals counted, an ``\\else`` branch kept), URLs,
``\\verb`` and verbatim environments, and the arguments of ``\\index``, ``\\label``,
``\\todo``, ``\\includegraphics`` ... (their braces nested to any depth), the bodies of
``\\newcommand`` and ``\\def``, the file names of ``\\input``, ``\\usepackage`` ... and
the preamble of a file that starts with ``\\documentclass``.  Math (``$...$``,
``\\(...\\)``, ``\\[...\\]`` and the display environments) becomes one unit: :data:`MATH`
then spaces, keeping a display's final full stop, so no sentence breaks inside it and a
displayed equation inside a sentence does not cut it.  :func:`latex_plain` reads the words
of a masked stretch.
"""

from __future__ import annotations

import heapq
import re
import unicodedata
from collections.abc import Iterator

from citewarden.context.latex_conditionals import (
    brace_pairs,
    else_branches_hidden,
    first_branches,
    other_branches_hidden,
)
from citewarden.context.siunitx import siunitx_plain
from citewarden.context.words import MATH_SHOWN, REF_SHOWN
from citewarden.parsing.latex_decode import ACCENTS

#: Stands where math was: a unit of the sentence that is no word.
MATH = "\x01"
#: Stands where displayed math ends with a full stop: a sentence's end, read as ``.`` there.
MATH_STOP = "\x04"

_DISPLAY_ENVS = (
    "equation|align|alignat|flalign|gather|multline|eqnarray|displaymath|math|dmath|split"
)
#: Environments whose content is no prose (code, a commented-out block, an embedded file).
_VERBATIM_ENVS = (
    r"[A-Za-z@]*(?:verbatim|Verbatim)|lstlisting|minted|comment|filecontents|alltt|pycode"
    r"|pyblock|pyconsole|sageblock|sagesilent|sagecommandline|tcblisting|codeblock"
)
_HIDDEN = re.compile(
    r"(?P<comment>%[^\n]*(?:\n(?![ \t\r]*\n))?)"
    r"|(?P<drop>\\(?:url|nolinkurl|path)\s*\{[^{}\n]*\}"
    r"|\\href\s*\{[^{}\n]*\}"
    # spacing and page layout, which set no words (``shown.\\medskip Next`` ends there)
    r"|\\(?:smallskip|medskip|bigskip|noindent|indent|hfill|vfill|newpage|clearpage"
    r"|cleardoublepage|pagebreak|linebreak|nopagebreak|nolinebreak|centering|raggedright"
    r"|raggedleft|allowbreak)(?![A-Za-z@])(?:\[[0-4]\])?"
    r"|\\verb\*?(?P<delim>[^A-Za-z\s*])[^\n]*?(?P=delim)"
    # listings', minted's and fancyvrb's inline code, as \\verb's
    r"|\\(?:lstinline|mintinline(?:\[[^\]\n]{0,100}\])?\{[^{}\n]{0,50}\}|Verb\*?)(?:\[[^\]\n]{0,100}\])?"
    r"(?:(?P<delim2>[^A-Za-z\s*{\[])[^\n]*?(?P=delim2)|\{[^{}\n]*\})"
    r")|(?P<iffalse>\\iffalse(?![A-Za-z@]))"
    r"|(?P<argument>\\(?:index|label|todo|includegraphics|glossary|nomenclature|marginpar"
    r"|vspace|hspace|phantom|hypertarget|pdfbookmark)\*?(?:\[[^\[\]]{0,200}\])?\s*\{"
    r"|\\(?:(?:re)?newcommand|providecommand|DeclareRobustCommand)\*?\s*"
    r"(?:\{[^{}]{0,200}\}|\\[A-Za-z@]+)(?:\s*\[[^\[\]]{0,200}\]){0,2}\s*\{"
    r"|\\[egx]?def\s*\\[A-Za-z@]+[^{}\n]{0,50}?\{)"
    r"|(?P<file>\\(?:input|include|includeonly|bibliography|bibliographystyle|addbibresource"
    r"|usepackage|RequirePackage|documentclass|graphicspath)\*?(?:\[[^\[\]]{0,200}\])?\s*\{)"
    r"|(?P<verbatim>\\begin\{(?P<venv>(?:" + _VERBATIM_ENVS + r")\*?)\})"
    r"|(?P<math>\$\$|\$|\\\(|\\\[|\\begin\{(?P<env>(?:" + _DISPLAY_ENVS + r")\*?)\})"
    r"|\\[\s\S]"  # an escaped character (``\\%``, ``\\$``, ``\\\\``): passed over
)
#: What closes each kind of math, stopping at a paragraph break (math never spans one).
_CLOSE = {
    "$": re.compile(r"(?:[^$\\\n]|\\[\s\S]|\n(?![ \t\r]*\n))*\$"),
    "$$": re.compile(r"(?:[^$\\\n]|\\[\s\S]|\n(?![ \t\r]*\n)|\$(?!\$))*\$\$"),
    "\\(": re.compile(r"(?:[^\\\n]|\\[^)]|\n(?![ \t\r]*\n))*\\\)"),
    "\\[": re.compile(r"(?:[^\\\n]|\\[^\]]|\n(?![ \t\r]*\n))*\\\]"),
}
_FINAL_STOP = re.compile(r"([.!?])[\s{}\\,;]*\Z")


def mask_latex(text: str) -> str:
    """``text`` with what is no prose replaced by spaces and math by :data:`MATH` and spaces
    (same length).  Each unclosed math opener fails once: the stretch it searched is
    remembered, so the scan stays linear."""
    parts: list[str] = []
    pos = at = 0
    failed: dict[str, int] = {}  # closer -> searching it from before here finds none
    braces: dict[int, int] | None = None  # where each brace group closes, found once
    if (body := _document_body(text)) > 0:
        parts.append(_spaces(text[:body]))  # the preamble: no prose
        pos = at = body
    while (m := _HIDDEN.search(text, at)) is not None:
        at = m.end()
        if m.lastgroup in ("comment", "drop"):
            parts += (text[pos : m.start()], " " * (m.end() - m.start()))
            pos = at
        elif m.lastgroup == "iffalse":
            at = _false_branch_end(text, at)
            # one that ends at its \\else still opens the conditional its \\fi closes
            opens = "\\if" if text.endswith("\\else", 0, at) else ""
            parts += (text[pos : m.start()], opens, " " * (at - m.start() - len(opens)))
            pos = at
        elif m.lastgroup in ("argument", "file"):
            if braces is None:
                braces = brace_pairs(text)
            closing = braces.get(at - 1)
            if closing is None:
                continue  # an argument never closed: no argument
            # a file's name goes, its command stays (\\bibliography ends a sentence)
            kept = at - 1 if m.lastgroup == "file" else m.start()
            at = closing + 1
            parts += (text[pos:kept], " " * (at - kept))
            pos = at
        elif m.lastgroup in ("verbatim", "venv"):
            key = f"\\end{{{m.group('venv')}}}"
            if failed.get(key, -1) > m.end():
                continue
            ending = re.compile(re.escape(key)).search(text, m.end())
            if ending is None:
                failed[key] = len(text)
                continue
            # the content blanked, its \\begin and \\end left (they end sentences)
            parts += (text[pos : m.end()], _spaces(text[m.end() : ending.start()]))
            pos = at = ending.start()
        elif m.lastgroup in ("math", "env"):
            opener = m.group("math")
            env = m.group("env")
            key = f"\\end{{{env}}}" if env else opener
            if failed.get(key, -1) > m.end():
                continue
            closer = _CLOSE.get(opener) if not env else None
            close: re.Match[str] | None
            if closer is None:
                close = re.compile(re.escape(key)).search(text, m.end())
                end = close.end() if close else -1
            else:
                close = closer.match(text, m.end())
                end = close.end() if close else -1
            if end < 0:
                failed[key] = len(text) if closer is None else _scanned(text, m.end(), opener)
                continue
            source = text[m.start() : end]
            inner = slice(m.end() - m.start(), len(source) - len(key))  # what the ends hold
            parts += (text[pos : m.start()], _math(source, inner, opener != "$"))
            pos = at = end
    parts.append(text[pos:])
    # ``\\ifthenelse{c}{yes}{no}`` and ``\\ifdraft yes\\else no\\fi`` read ``yes``
    masked = else_branches_hidden(other_branches_hidden("".join(parts)))
    return _tabbing_marks_blanked(masked) if "{tabbing}" in masked else masked


#: a tabbing environment, and in it a tab command (``\\=``, ``\\>``, ``\\<``, ``\\+``,
#: ``\\-``, ``\\'``, ``\\```), which sets no text (``\\=`` is no macron there)
_TABBING = re.compile(r"\\begin\{tabbing\}.*?(?:\\end\{tabbing\}|\Z)", re.S)
_ESCAPED = re.compile(r"\\[\s\S]")


def _tab_blanked(m: re.Match[str]) -> str:
    return "  " if m.group()[1] in "=><+-'`" else m.group()


def _tabbing_marks_blanked(masked: str) -> str:
    """``masked`` with the tab commands of its tabbing environments as spaces."""
    return _TABBING.sub(lambda m: _ESCAPED.sub(_tab_blanked, m.group()), masked)


_NOT_NEWLINE = re.compile(r"[^\n]")
#: what ``\\iffalse`` skips over: comments, conditionals nested in it, their ends
_CONDITIONAL = re.compile(
    r"%[^\n]*|\\(?:(?P<if>if(?!thenelse(?![A-Za-z@]))[A-Za-z@]*)|(?P<fi>fi)|(?P<else>else))"
    r"(?![A-Za-z@])|\\[\s\S]"
)


_DOCUMENT = re.compile(r"\\begin\s*\{document\}")
_CLASS = re.compile(r"\\documentclass\b")


def _document_body(text: str) -> int:
    """Where the document's body starts (its preamble ends): after ``\\begin{document}``
    of a file that starts with ``\\documentclass`` (no environment before it); 0 if none."""
    start = _CLASS.search(text)
    if start is None or "\\begin" in text[: start.start()]:
        return 0
    body = _DOCUMENT.search(text, start.end())
    return body.end() if body else 0


def _false_branch_end(text: str, start: int) -> int:
    """Where the text ``\\iffalse`` hides from ``start`` ends: after its ``\\fi``, or at
    its ``\\else`` (what follows is typeset), conditionals nested in it counted and
    comments not read; the text's end when nothing closes it."""
    depth = 0
    for m in _CONDITIONAL.finditer(text, start):
        if m.group("if"):
            depth += 1
        elif m.group("fi"):
            if depth == 0:
                return m.end()
            depth -= 1
        elif m.group("else") and depth == 0:
            return m.end()
    return len(text)


def _spaces(text: str) -> str:
    """``text`` as spaces, its line breaks kept."""
    return _NOT_NEWLINE.sub(" ", text)


def _scanned(text: str, start: int, opener: str) -> int:
    """Where a failed search for ``opener``'s closer from ``start`` stopped: the next
    paragraph break (or the end)."""
    found = re.compile(r"\n[ \t\r]*\n").search(text, start)
    return found.start() if found else len(text)


def _math(source: str, inner: slice, display: bool) -> str:
    """The mask of one piece of math (``inner``: where its content is): :data:`MATH`,
    spaces, and a display's final full stop where it stood (it still ends the sentence)."""
    masked = MATH + " " * (len(source) - 1)
    stop = _FINAL_STOP.search(source, inner.start, inner.stop) if display else None
    if stop is not None:
        k = stop.start(1)
        masked = masked[:k] + MATH_STOP + masked[k + 1 :]
    return masked


_ACCENT = re.compile(
    r"\{?\\(?:([`'^\"~=.])\s*|([uvHckrdb])(?:\s+|(?=\{)))"
    r"(?:\{\s*(\\[ij]\b|[A-Za-z])\s*\}|(\\[ij]\b|[A-Za-z]))\}?"
)
_LETTERS = {"ss": "ß", "o": "ø", "O": "Ø", "l": "ł", "L": "Ł", "ae": "æ", "AE": "Æ"}
_LETTERS |= {"oe": "œ", "OE": "Œ", "aa": "å", "AA": "Å", "i": "ı", "j": "ȷ"}
_LETTER = re.compile(r"\{?\\(ss|o|O|l|L|ae|AE|oe|OE|aa|AA|i|j)\b\s*\}?")


def _accented(m: re.Match[str]) -> str:
    letter = m.group(3) or m.group(4)
    letter = {"\\i": "i", "\\j": "j"}.get(letter, letter)
    return unicodedata.normalize("NFC", letter + ACCENTS[m.group(1) or m.group(2)])


def decode_accents(text: str) -> str:
    """``M\\"uller``, ``{\\v{S}}imon``, ``cat\\-e\\-go\\-ry`` -> ``Müller``, ``Šimon``,
    ``category``: accents, special letters and discretionary hyphens."""
    if "\\" not in text:
        return text
    text = text.replace("\\-", "")
    text = _ACCENT.sub(_accented, text)
    return _LETTER.sub(lambda m: _LETTERS[m.group(1)], text)


#: Commands whose argument is a key, no text: citations, ``\\bibitem``, ``\\footnotemark``.
_DROP_ARG = re.compile(
    r"\\(?:footnotemark|cite[A-Za-z]*|bibitem)(?![A-Za-z@])\*?(?:\[[^\[\]]*\])?\{[^{}]*\}"
)
#: hyperref's ``\\texorpdfstring{typeset}{bookmark}``: the first argument is what the page shows
_PDF_STRING = re.compile(
    r"\\texorpdfstring(?![A-Za-z@])\s*(\{(?:[^{}]|\{[^{}]{0,200}\}){0,200}\})"
    r"\s*\{(?:[^{}]|\{[^{}]{0,200}\}){0,200}\}"
)
#: Stands where a cross-reference was: it typesets a number (a name too for ``\\cref``).
REF = "\x02"
#: Every cross-reference, whose argument is a label (a command named ``...ref``: ``\\ref``,
#: ``\\cref``, ``\\nameref``, ``\\vref``, a template's ``\\figref``; ``\\crefrange{a}{b}``),
#: but ``\\href`` and ``\\hyperref`` (their argument is the link's text): read as :data:`REF`.
_REFERENCE = re.compile(
    r"\\(?:(?!href(?![A-Za-z@])|hyperref(?![A-Za-z@]))[A-Za-z]*ref)(?![A-Za-z@])\*?"
    r"(?:\[[^\[\]]*\])?\{[^{}]*\}"
    r"|\\[A-Za-z]*refrange\*?\{[^{}]*\}\{[^{}]*\}"  # ``\\crefrange{a}{b}``
)
#: A beamer overlay specification after a command's name (``\\item<2->``, ``\\only<1,3>``)
_OVERLAY = r"(?:<[-+|.,0-9A-Za-z@*()]{1,40}>)?"
_LINE_BREAK = re.compile(r"\\\\\*?(?:\[[^\[\]]{0,50}\])?")
_ARG = r"\s*\{(?:[^{}]|\{[^{}]{0,200}\}){0,200}\}"
_OPTIONS = r"\*?(?:\s*\[[^\[\]]{0,200}\])*"
#: The arguments of layout commands that are no prose (a colour, a size, a count, a column
#: specification, a language, a link's target): ``\\textcolor{red}{improve}`` reads
#: ``improve``.
_LAYOUT_ARGS = re.compile(
    r"\\(?:(?:textcolor|color|colorbox|pagecolor|scalebox|raisebox|parbox|rotatebox"
    # a language's name, a link's target, words to hyphenate: no words of the sentence
    r"|foreignlanguage|selectlanguage|hyperlink|hyphenation)(?![A-Za-z@])"
    + _OPTIONS
    + _ARG
    + r"|(?:fcolorbox|multicolumn|multirow|setlength|addtolength|setcounter|addtocounter"
    r"|resizebox|rule|fontsize|setbeamercolor|setbeamerfont|setbeamertemplate)(?![A-Za-z@])"
    + _OPTIONS
    + 2 * _ARG
    # settings as key=value lists (tcolorbox's, beamer's, hyperref's ...)
    + r"|(?:tcbset|usetheme|usecolortheme|usefonttheme|useinnertheme|useoutertheme|hypersetup"
    r"|captionsetup|sisetup|tikzset|pgfplotsset)(?![A-Za-z@])" + _OPTIONS + _ARG + ")"
)
#: a command with its options (``\\makebox[2cm][l]``)
_COMMAND = re.compile(r"\\[A-Za-z@]+\*?" + _OVERLAY + r"(?:\[[^\[\]]*\])*")
#: Commands that typeset a word or a sign of their own (the rest typeset none of the text).
_WORDS = {
    "LaTeX": "LaTeX",
    "LaTeXe": "LaTeX2e",
    "TeX": "TeX",
    "BibTeX": "BibTeX",
    "XeTeX": "XeTeX",
    "LuaTeX": "LuaTeX",
    "ldots": "…",
    "dots": "…",
    "textellipsis": "…",
    "textendash": "-",
    "textemdash": "-",
    "S": "§",
    "P": "¶",
    "copyright": "©",
    "textregistered": "®",
    "texttrademark": "™",
    "textdegree": "°",
    "textasciitilde": "~",
}
_WORD_COMMAND = re.compile(r"\\(" + "|".join(_WORDS) + r")(?![A-Za-z@])(?:\{\})?")
#: The abbreviations conference styles define as commands (cvpr.sty's, iccv.sty's, eccv.sty's
#: ``\\eg``, ``\\etal`` ...), read when the project does not define them: each ends with one
#: full stop, a full stop written after it taken in (``\\etc.``, as their ``\\onedot``).
_ABBREVIATED = {
    "eg": "e.g.",
    "Eg": "E.g.",
    "ie": "i.e.",
    "Ie": "I.e.",
    "etal": "et al.",
    "cf": "cf.",
    "Cf": "Cf.",
    "etc": "etc.",
    "wrt": "w.r.t.",
    "vs": "vs.",
    "dof": "d.o.f.",
    "aka": "a.k.a.",
}
_ABBREVIATION_COMMAND = re.compile(
    r"\\(" + "|".join(_ABBREVIATED) + r")(?![A-Za-z@])(?:\{\})?(?:\\@)?\.?"
)
#: csquotes' ``\\enquote{text}`` (``\\enquote*``: the inner quotation marks)
_ENQUOTE = re.compile(r"\\enquote(?![A-Za-z@])(\*?)\s*\{((?:[^{}]|\{[^{}]{0,200}\}){0,500})\}")
#: a piece of math reads :data:`MATH_SHOWN`, a reference :data:`REF_SHOWN` (MATH_STOP is read
#: by the caller)
_GROUPING = str.maketrans({MATH: f" {MATH_SHOWN} ", REF: f" {REF_SHOWN} "})
#: a brace, escaped (a brace of the text) or not (a group's, no text)
_BRACE_CHAR = re.compile(r"\\?[{}]")
#: an item's label at the start of its text (``\\item[Adam] an optimizer``)
_LABEL = re.compile(r"\A(\s*)\[([^\[\]]{0,200})\]")


def _no_command(m: re.Match[str]) -> str:
    """What a command shows of itself: nothing before its argument, which its text joins
    (``H\\textsubscript{2}O`` reads ``H2O``), else a space between the words around it."""
    return "" if m.string.startswith("{", m.end()) else " "


def _quoted(m: re.Match[str]) -> str:
    mark = "'" if m.group(1) else '"'
    return mark + m.group(2) + mark


#: typewriter text (``\\texttt{--foo}``, ``{\\ttfamily ``x''}``), whose font has no ligatures:
#: ``--`` is two hyphens there, two backticks no quotation mark
_TYPEWRITER = re.compile(
    r"(\\texttt\s*\{|\{\\(?:ttfamily|tt)(?![A-Za-z@]))((?:[^{}]|\{[^{}]{0,200}\}){0,500})\}"
)
#: the marks typewriter text keeps as they are, and what stands for each meanwhile
_KEPT = str.maketrans({"-": "\x10", "`": "\x11", "'": "\x12"})
_SHOWN_KEPT = str.maketrans({"\x10": "-", "\x11": "`", "\x12": "'"})


def _typewriter(m: re.Match[str]) -> str:
    return m.group(1) + m.group(2).translate(_KEPT) + "}"


def latex_plain(text: str) -> str:
    """The words of a masked stretch of LaTeX (white space not yet collapsed)."""
    text = decode_accents(text)
    if "\\t" in text:  # typewriter text: its dashes and quotes stay as written
        text = _TYPEWRITER.sub(_typewriter, text)
    text = first_branches(text)  # ``\\ifthenelse{c}{yes}{no}`` reads ``yes``
    text = _DROP_ARG.sub(" ", text)
    if "\\texorpdfstring" in text:  # the text typeset, not the PDF bookmark's
        text = _PDF_STRING.sub(r"\1", text)
    text = siunitx_plain(text)  # ``\\SI{5}{\\kilo\\gram}`` reads ``5 kg``
    if "ref" in text:
        text = _REFERENCE.sub(REF, text)
    if "\\" in text:
        text = _LAYOUT_ARGS.sub(" ", text)
    # two arguments side by side are two pieces of text (``\\newterm{CNN}{networks}``)
    text = text.replace("}{", "} {")
    text = _LINE_BREAK.sub(" ", text)
    if "\\enquote" in text:  # csquotes: the quotation marks it typesets
        text = _ENQUOTE.sub(_quoted, text)
    if "\\" in text:
        text = _WORD_COMMAND.sub(lambda m: _WORDS[m.group(1)], text)
        text = _ABBREVIATION_COMMAND.sub(lambda m: _ABBREVIATED[m.group(1)], text)
    text = _COMMAND.sub(_no_command, text)
    text = re.sub(r"(?<!\\)&", " ", text)  # a table's cell or an alignment point
    text = re.sub(r"\\([%&_#$])", r"\1", text)
    text = _BRACE_CHAR.sub(lambda m: m.group()[1:], text)  # ``\\{a, b\\}`` reads ``{a, b}``
    text = re.sub(r"\\[^A-Za-z]", " ", text)  # control spaces and symbols
    # an item's label is read without its brackets; other brackets are text (``[0, 1]``)
    text = _LABEL.sub(r"\1 \2 ", text)
    text = text.replace("~", " ").translate(_GROUPING)
    text = text.replace("``", '"').replace("''", '"').replace("`", "'")  # ``quoted'', `this'
    return text.replace("---", "-").replace("--", "-").translate(_SHOWN_KEPT)


#: Commands that start text of their own (headings, front matter, list items, captions), the
#: environments' boundaries, paragraph breaks, and a table's cells and rows.
_BREAK = re.compile(
    r"\n[ \t\r]*\n"
    r"|\\(?:part|chapter|(?:sub)*section|(?:sub)?paragraph|bibliography|printbibliography"
    r"|title|subtitle|author|date|affiliation|affil|address|institute|email|keywords"
    # (no heading when it is an argument itself: ``\\bibliographyunit[\\chapter]``)
    r"|thanks|frametitle|framesubtitle)\b\*?(?![\]}])" + _OVERLAY + r"(?:\[[^\]]{0,200}\])?"
    r"(?:\{[^{}]{0,200}\})?"
    r"|\\begin\{(?:tabular[x*]?|array|longtable|tabulary)\}(?:\{[^{}]{0,50}\})?"
    r"(?:\[[^\]]{0,20}\])?\{(?:[^{}]|\{[^{}]{0,50}\}){0,200}\}"
    # the size and place arguments of boxes and columns (``\\begin{minipage}{0.5\\textwidth}``)
    r"|(?:\\begin\{(?:minipage|subfigure|subtable|multicols\*?|column|adjustbox)\}"
    r"|\\column(?![A-Za-z@]))"  # beamer's \\column{0.5\\textwidth} too
    r"(?:\[[^\]]{0,50}\]){0,3}\{(?:[^{}]|\{[^{}]{0,50}\}){0,200}\}"
    r"|\\begin\{(?:wrapfigure|wraptable)\}(?:\[[^\]]{0,50}\])?"
    r"(?:\{(?:[^{}]|\{[^{}]{0,50}\}){0,200}\}){2}"
    # an environment's options, with braces two deep (``[title={Key \\textbf{idea}}]``)
    r"|\\(?P<env>begin|end)\b\*?(?:\[[^\]]{0,200}\])?(?:\{[^{}]{0,200}\})?"
    + _OVERLAY
    + r"(?:\[(?:[^\[\]{}]|\{(?:[^{}]|\{[^{}]{0,100}\}){0,200}\}){0,300}\])?"
    # a caption's short form for the list of figures too (``\\caption[Short]{Long}``), and
    # the kind of float ``\\captionof{figure}`` gives one; subcaption's captions as well
    r"|\\(?:sub)?caption(?:of\s*\{[^{}]{0,30}\}|box\b|\b)\*?" + _OVERLAY + r"(?:\[[^\]]{0,200}\])?"
    # a subfigure in running text (subfig's ``\\subfloat[Loss]{...}``, ``\\subfigure[...]``)
    r"|\\sub(?:float|figure|table)(?![A-Za-z@])\*?"
    r"|\\(?:item|par|maketitle|hline|midrule|toprule|bottomrule|tcblower)\b\*?"
    + _OVERLAY
    + r"|(?P<row>\\\\\*?(?:\[[^\]]{0,50}\])?|\\newline\b)|(?<!\\)&"
)
#: The environments whose ``\\\\`` ends a row (a table's, a tabbing's): elsewhere it breaks
#: a line of prose, and the sentence reads on.
_ROWS = re.compile(
    r"\\(?P<end>begin|end)\s*\{(?:tabular[x*]?|tabulary|longtable\*?|tabu|longtabu"
    r"|supertabular\*?|xtabular\*?|mpsupertabular|tblr|longtblr|talltblr|NiceTabular[*X]?"
    r"|tabbing)\}"
)


def latex_breaks(masked: str) -> Iterator[tuple[int, int]]:
    """(start, end) of every break between sentences that is no full stop, in order; a line
    break (``\\\\``, ``\\newline``) is one in a table's rows only."""
    tables = _table_spans(masked) if "\\\\" in masked or "\\newline" in masked else []
    k = 0
    titles: list[int] = []  # where an environment's argument closes, still to be yielded
    for m in _BREAK.finditer(masked):
        while titles and titles[0] < m.start():
            at = heapq.heappop(titles)
            yield at, at + 1
        if m.start("row") >= 0:
            while k < len(tables) and tables[k][1] <= m.start():
                k += 1
            if not (k < len(tables) and tables[k][0] <= m.start()):
                continue  # a line break in prose
        elif m.group("env") == "begin":
            for at in _arguments(masked, m.end()):
                heapq.heappush(titles, at)
        yield m.start(), m.end()
    while titles:
        at = heapq.heappop(titles)
        yield at, at + 1


_ARGUMENT_START = re.compile(r"[ \t]*(?:\[[^\[\]{}]{0,100}\])?\{")


def _arguments(masked: str, at: int) -> Iterator[int]:
    """Where each brace group right after an environment's ``\\begin{...}`` at ``at`` closes
    (beamer's ``\\begin{frame}{Title}{Subtitle}``, ``\\begin{block}{Title}``, a tcolorbox's
    title): a title stands alone, as a heading does.  At most 300 characters each."""
    while (m := _ARGUMENT_START.match(masked, at)) is not None:
        depth, i, stop = 1, m.end(), min(len(masked), m.end() + 300)
        while i < stop and depth:
            c = masked[i]
            if c == "\\":
                i += 2
                continue
            depth += (c == "{") - (c == "}")
            i += 1
        if depth:
            return
        yield i - 1
        at = i


def _table_spans(masked: str) -> list[tuple[int, int]]:
    """(start, end) of every outermost table or tabbing environment, in order (one that is
    never closed runs to the end of the text)."""
    spans: list[tuple[int, int]] = []
    depth = start = 0
    for m in _ROWS.finditer(masked):
        if m.group("end") == "begin":
            if depth == 0:
                start = m.start()
            depth += 1
        elif depth > 0:
            depth -= 1
            if depth == 0:
                spans.append((start, m.end()))
    if depth > 0:
        spans.append((start, len(masked)))
    return spans
