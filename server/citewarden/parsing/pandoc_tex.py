"""Raw TeX commands pandoc's Markdown reader reads in a way of their own (see
:class:`~citewarden.parsing.markdown_inline._RawTex`).

The names were found by running pandoc 2.17, 3.6.1 and 3.9 on ``a \\name@b`` and
``a \\name{@b}`` for each command name TeX Live's packages use."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

#: The commands of polyglossia's languages pandoc knows (``\\textgerman``, ``\\textlatin``
#: ...): one optional argument, then a character or a group (:data:`TEX_ONE_OPTION_COMMANDS`);
#: 2.17, 3.6.1 and 3.9 know the same.
TEX_LANGUAGE_COMMANDS = frozenset(
    "text" + language
    for language in (
        "afrikaans", "albanian", "amharic", "arabic", "armenian", "assamese", "asturian",
        "basque", "bengali", "breton", "bulgarian", "catalan", "coptic", "croatian",
        "czech", "danish", "divehi", "dutch", "english", "esperanto", "estonian",
        "ethiopic", "farsi", "finnish", "french", "friulan", "galician", "german", "greek",
        "gujarati", "hebrew", "hindi", "icelandic", "indonesian", "interlingua", "irish",
        "italian", "japanese", "kannada", "khmer", "korean", "kurmanji", "lao", "latin",
        "latvian", "lithuanian", "lsorbian", "magyar", "malayalam", "marathi", "mongolian",
        "nko", "norsk", "nynorsk", "occitan", "oriya", "piedmontese", "pinyin", "polish",
        "portuguese", "punjabi", "romanian", "romansh", "russian", "samin", "sanskrit",
        "scottish", "serbian", "serbianc", "slovak", "slovenian", "spanish", "swedish",
        "syriac", "tamil", "telugu", "thai", "tibetan", "turkish", "turkmen", "ukrainian",
        "urdu", "usorbian", "vietnamese", "welsh",
    )
)  # fmt: skip
#: Commands pandoc reads with no argument (font sizes, characters, names, spacing: its
#: ``isFontSizeCommand`` and the commands it reads as text), so ``\\small{see @a}`` cites
#: ``a``; pandoc 2.17, 3.6.1 and 3.9 all read these so.
TEX_NO_ARGUMENT_COMMANDS = frozenset(
    {
        "AA", "AE", "Huge", "L", "LARGE", "LaTeX", "Large", "O", "OE", "P", "S", "TeX",
        "aa", "abstractname", "addabbrvspace", "adddot", "adddotspace", "ae", "backslash",
        "bar", "bibname", "bshyp", "ccname", "chaptername", "colonhyp", "contentsname",
        "copyright", "dothyp", "dots", "enclname", "euro", "faCheck", "faClose",
        "figurename", "footnotesize", "fshyp", "glossaryname", "headtoname", "hrule",
        "huge", "hyp", "hyphen", "i", "indexname", "j", "l", "large", "ldots",
        "listfigurename", "listtablename", "lq", "lstlistingname", "mdots", "normalsize",
        "o", "oe", "pagename", "partname", "pfbreak", "pounds", "prefacename", "proofname",
        "ps", "qed", "raggedright", "refname", "rq", "scriptsize", "seealsoname", "seename",
        "sep", "sim", "slash", "small", "ss", "strut", "tablename", "textasciicircum",
        "textasciitilde", "textbackslash", "textgreater", "textless", "textquotedblleft",
        "textquotedblright", "textquoteleft", "textquoteright", "tiny", "vdots", "xspace",
    }
)  # fmt: skip
#: Commands pandoc reads with their optional arguments only: ``\\par [@a]`` and ``\\item
#: [@a]`` cite nothing, ``\\par{@a}`` cites ``a``; pandoc 2.17, 3.6.1 and 3.9 all read these
#: so.
TEX_OPTIONS_ONLY_COMMANDS = frozenset({"item", "par"})
#: those and the commands pandoc 3 reads with no argument too (3.6.1 and 3.9 checked;
#: pandoc 2.17 reads ``\\hfill [@a]``'s bracket as its option)
TEX_NO_ARGUMENT_COMMANDS_3 = TEX_NO_ARGUMENT_COMMANDS | {"hfill", "today", "vfill"}
#: and those pandoc 3.9 reads with no argument too (3.6.1 reads ``\\newline{@a}``'s
#: braces and ``\\newline [@a]``'s bracket as its arguments; 3.8 not run), but
#: ``\\xspace``, whose braces 3.9 reads as its argument (``\\xspace{@a}`` cites ``a`` in
#: 2.17 and 3.6.1, nothing in 3.9)
TEX_NO_ARGUMENT_COMMANDS_3_9 = (TEX_NO_ARGUMENT_COMMANDS_3 | {"newline"}) - {"xspace"}
#: Commands pandoc 3 reads with a dimension after them only, no bracket or brace:
#: ``\\hskip [@a]{b}`` and ``\\hskip{@a}`` cite ``a``, ``\\hskip 1pt@a`` too (3.6.1 and 3.9
#: checked; pandoc 2.17 reads them as any other command)
TEX_DIMENSION_COMMANDS_3 = frozenset({"hskip", "vskip"})

#: Commands that take an ``@`` right after their name as their argument (a token, a
#: delimiter, a definition's name): ``\emph@a`` cites nothing in pandoc 3, where the ``@``
#: after another command's name may start a citation (``\foo@a`` cites ``a``; pandoc 2
#: reads ``@`` as a letter of the name, and cites nothing either way).
TEX_AT_ARGUMENT_COMMANDS = frozenset(
    {
        "Ac", "Acf", "Acfp", "Acl", "Aclp", "Acp", "Acrfull", "Acrlong", "Acrshort", "Acs",
        "Acsp", "Autocite", "Autocites", "Cite", "Cites", "DeclareMathOperator",
        "DeclareRobustCommand", "Footcite", "Footcites", "Footcitetext", "Footcitetexts",
        "G", "GLSdesc", "GLSdescplural", "Gls", "Glsdesc", "Glsdescplural", "Glspl", "H",
        "MakeLowercase", "MakeTextLowercase", "MakeTextUppercase", "MakeUppercase",
        "PackageError", "Parencite", "Parencites", "RN", "Rn", "Smartcite", "Textcite",
        "Textcites", "U", "ac", "acf", "acfp", "acl", "aclp", "acp", "acrfull", "acrlong",
        "acrshort", "acs", "acsp", "addbibresource", "address", "alert", "and", "ang",
        "author", "autocap", "autocite", "autocites", "b", "begin", "bf", "bfseries",
        "bibliography", "bibstring", "blockquote", "c", "caption", "centerline", "chapter",
        "cite", "citealp", "citealt", "citeauthor", "citep", "cites", "citet", "citetext",
        "citeyear", "citeyearpar", "closing", "colorbox", "d", "date", "dedication", "def",
        "documentclass", "edef", "em", "emph", "end", "endinput", "enquote", "ensuremath",
        "epigraph", "expandafter", "extratitle", "f", "fancybreak", "footcite", "footcites",
        "footcitetext", "footcitetexts", "footnote", "foreignblockquote", "foreignlanguage",
        "foreignquote", "framesubtitle", "frametitle", "frontispiece", "gdef", "global",
        "gls", "glsdesc", "glsdescplural", "glspl", "graphicspath", "h", "hl", "href",
        "hskip", "hyperlink", "hyperref", "hypertarget", "hyphenblockquote", "hyphenquote",
        "ifdim", "ifstrequal", "iftoggle", "includegraphics", "includesvg", "inputminted",
        "it", "itshape", "k", "let", "lowercase", "lowertitleback", "lstinputlisting",
        "mkbibbold", "mkbibbrackets", "mkbibemph", "mkbibitalic", "mkbibparens",
        "mkbibquote", "mskip", "newcommand", "newenvironment", "newif", "newtheorem",
        "newtie", "newtoggle", "nhttfamily", "nocite", "nohyphens", "nolinkurl", "num",
        "numlist", "numrange", "opening", "paragraph", "parbox", "parencite", "parencites",
        "part", "passthrough", "plainbreak", "plainfancybreak", "providecommand",
        "provideenvironment", "publishers", "r", "renewcommand", "renewenvironment", "rm",
        "rule", "scshape", "section", "setdefaultlanguage", "setmainlanguage", "signature",
        "sl", "slshape", "smartcite", "sout", "st", "subject", "subparagraph", "subsection",
        "subsubsection", "subtitle", "supercite", "supercites", "t", "texorpdfstring",
        "textbf", "textcircled", "textcite", "textcites", "textcolor", "textit", "textmd",
        "textnhtt", "textnormal", "textogonekcentered", "textrm", "textsc", "textsf",
        "textsl", "textsubscript", "textsuperscript", "texttt", "textup", "thanks",
        "theoremstyle", "title", "titleformat", "titlehead", "togglefalse", "toggletrue",
        "tt", "u", "ul", "uline", "underline", "uppercase", "uppertitleback", "url", "v",
        "vadjust", "vskip", "write", "xdef", "xspace",
    }
) | TEX_LANGUAGE_COMMANDS  # fmt: skip

#: Those that take it after white space too (an ``@`` after a space or a ``*`` starts a
#: citation after the others: ``\\gls @a`` cites ``a``); pandoc 3.9 reads ``\\xspace @a``
#: so (2.17 and 3.6.1 read ``\\xspace`` with no argument).
TEX_AT_AFTER_SPACE_COMMANDS_3_9 = frozenset({"xspace"})

#: Commands that take the character after their name (and the white space after it, blank
#: lines and comments too) as their argument when no brace or bracket opens there: ``\\emph x@b``
#: reads ``\\emph x`` as raw TeX and cites ``b`` (``\\emph xy@b`` cites nothing), where
#: ``\\foo x@b`` and ``\\section x@b`` cite nothing; pandoc 2.17, 3.6.1 and 3.9 all read
#: these so.  :data:`TEX_CHARACTER_ARGUMENT_COMMANDS_3` adds those pandoc 3 reads so.
TEX_CHARACTER_ARGUMENT_COMMANDS = frozenset(
    {
        "G", "H", "MakeLowercase", "MakeTextLowercase", "MakeTextUppercase",
        "MakeUppercase", "U", "address", "alert", "autocap", "b", "c", "caption",
        "centerline", "closing", "d", "date", "dedication", "emph", "enquote", "extratitle",
        "f", "frontispiece", "h", "k", "lowercase", "lowertitleback", "mkbibbold",
        "mkbibbrackets", "mkbibemph", "mkbibitalic", "mkbibparens", "mkbibquote", "newtie",
        "nhttfamily", "nohyphens", "opening", "passthrough", "publishers", "r", "sout",
        "subject", "subtitle", "t", "textbf", "textcircled", "textit", "textmd", "textnhtt",
        "textnormal", "textogonekcentered", "textrm", "textsc", "textsf", "textsl",
        "textsubscript", "textsuperscript", "texttt", "textup", "titlehead", "u", "ul",
        "uline", "underline", "uppercase", "uppertitleback", "v",
    }
) | TEX_LANGUAGE_COMMANDS  # fmt: skip
TEX_CHARACTER_ARGUMENT_COMMANDS_3 = TEX_CHARACTER_ARGUMENT_COMMANDS | {"hl", "st"}
#: The accents among them, which take nothing where nothing comes: before a ``}`` or at
#: the end the others' reading fails (``\\textbf{@a \\emph}`` cites ``a``,
#: ``\\textbf{@a \\b}`` nothing); 2.17, 3.6.1 and 3.9 checked.
TEX_ACCENT_COMMANDS = frozenset(
    {
        "G", "H", "U", "b", "c", "d", "f", "h", "k", "newtie", "r", "t", "textcircled",
        "textogonekcentered", "u", "v",
    }
)  # fmt: skip
#: Those of them that take optional arguments first, then the character after them
#: (``\\caption[x]@a`` cites nothing); for the others a ``[`` is the character they take
#: (``\\emph[@a]`` and ``\\emph [@a]`` cite ``a``); pandoc 2.17, 3.6.1 and 3.9 all read
#: these so.
TEX_CHARACTER_OPTION_COMMANDS = frozenset(
    {
        "address", "alert", "caption", "centerline", "closing", "date", "dedication",
        "enquote", "extratitle", "frontispiece", "lowertitleback", "opening", "publishers",
        "subject", "subtitle", "titlehead", "uppertitleback",
    }
) | TEX_LANGUAGE_COMMANDS  # fmt: skip
#: Those that take one optional argument only, then the character after it (a ``[`` too):
#: ``\\textlatin [@a] [@c]`` cites ``c`` in the text; pandoc 2.17, 3.6.1 and 3.9 all read
#: these so.
TEX_ONE_OPTION_COMMANDS = TEX_LANGUAGE_COMMANDS
#: and those pandoc 3 reads so (3.6.1 and 3.9 checked; pandoc 2.17 reads ``\\caption [@a]
#: [@c]``'s brackets as its optional arguments, as the others')
TEX_ONE_OPTION_COMMANDS_3 = TEX_ONE_OPTION_COMMANDS | {"caption"}
#: and reads its option on the command's line only (``\\caption``, a line break,
#: ``[@a]x`` cites ``a``; 2.17 and the other character commands read it there; 3.6.1 and
#: 3.9 checked)
TEX_OPTION_ON_LINE_COMMANDS_3 = frozenset({"caption"})

#: Commands whose optional arguments pandoc reads only before a braced argument: where no
#: ``{`` follows them, the command is read alone and its brackets as text, so ``\\cite
#: [@a] y`` and ``\\section [@a]`` at a paragraph's end cite ``a``, ``\\cite[@a]{b}``
#: nothing; pandoc 2.17, 3.6.1 and 3.9 all read these so.
TEX_BRACED_OPTION_COMMANDS = frozenset(
    {
        "Autocite", "Autocites", "Cite", "Cites", "Footcite", "Footcites", "Footcitetext",
        "Footcitetexts", "Parencite", "Parencites", "Smartcite", "Textcite", "Textcites",
        "addbibresource", "ang", "author", "autocite", "autocites", "bibliography",
        "blockquote", "chapter", "cite", "citealp", "citealt", "citeauthor", "citep",
        "cites", "citet", "citeyear", "citeyearpar", "colorbox", "footcite", "footcites",
        "footcitetext", "footcitetexts", "footnote", "framesubtitle", "frametitle",
        "nocite", "num", "numlist", "paragraph", "parencite", "parencites", "part",
        "section", "setdefaultlanguage", "setmainlanguage", "signature", "smartcite",
        "subparagraph", "subsection", "subsubsection", "supercite", "supercites",
        "textcite", "textcites", "textcolor", "thanks", "title",
    }
)  # fmt: skip
#: pandoc's citation commands (``\\cite*`` reads as ``\\cite``): at most two ``[..]``
#: options, then one ``{..}`` of keys, white space (a line break, comments) between them.
#: Keys are made of letters, digits and :data:`TEX_CITATION_KEY_CHARACTERS`, apart by white
#: space and comments: a key list with anything else (``\\cite{a~b}``, ``\\cite{a\\x}``,
#: ``\\cite{{a}}``), or a third option, makes the command text, so ``\\cite{@a \\x}`` and
#: ``\\cite[p][q][r]{@a}`` cite ``a``.  A second group is none of its arguments
#: (``\\cite{x}{@a}`` cites ``a``).  Pandoc 2.17, 3.6.1 and 3.9 all read these so.
TEX_CITATION_COMMANDS = frozenset(
    {
        "Autocite", "Cite", "Citeyear", "Citeyearpar", "Footcite", "Footcitetext",
        "Parencite", "Smartcite", "Supercite", "Textcite", "autocite", "cite", "citealp",
        "citealt", "citeauthor", "citep", "citet", "citeyear", "citeyearpar", "footcite",
        "footcitetext", "nocite", "parencite", "smartcite", "supercite", "textcite",
    }
)  # fmt: skip
#: and those that take several key lists (``\\cites[a]{x}[b]{y}``), each with at most
#: two options, after at most two ``(..)`` notes for them all: the first list must be
#: keys (or the command is text), the others end at the first that is not
#: (``\\cites{x}{@a \\x}`` cites ``a``); 2.17, 3.6.1 and 3.9 checked.
TEX_MULTI_CITATION_COMMANDS = frozenset(
    {
        "Autocites", "Cites", "Footcites", "Footcitetexts", "Parencites", "Supercites",
        "Textcites", "autocites", "cites", "footcites", "footcitetexts", "parencites",
        "supercites", "textcites",
    }
)  # fmt: skip
#: Commands pandoc 3 reads with a parser of its own rather than as raw TeX it passes on:
#: no dimension right after their name is theirs (``\\href1pt@a`` and ``\\cite1pt@a``
#: cite nothing, ``1pt@a`` being text, where ``\\foo1pt@a`` and ``\\label1pt@a`` cite
#: ``a``); every command of the tables tried in 2.17, 3.6.1 and 3.9 (``\\mskip`` and
#: ``\\expandafter``, read as :class:`~citewarden.parsing.markdown_inline._RawTex` says,
#: take a dimension).
TEX_PARSED_COMMANDS_3 = (
    TEX_AT_ARGUMENT_COMMANDS | TEX_CITATION_COMMANDS | TEX_MULTI_CITATION_COMMANDS
) - {"expandafter", "mskip"}
#: and those pandoc 2.17 reads so (it knows neither ``\\includesvg`` nor ``\\hskip``,
#: ``\\vskip``, ``\\hl`` and ``\\st``)
TEX_PARSED_COMMANDS = TEX_PARSED_COMMANDS_3 - {"hl", "hskip", "includesvg", "st", "vskip"}
#: what a citation command's key list may hold besides letters, digits and white space
TEX_CITATION_KEY_CHARACTERS = ".:;?!`'()/*@_+=-&[],"
#: The number of braced arguments of the commands pandoc reads with a fixed number of
#: them: a group after those is text (``\\footnote{x}{@a}`` and ``\\href{x}{y}{@a}`` cite
#: ``a``), and a ``{`` that never closes there leaves the command raw TeX
#: (``\\footnote{@j}{ y @a`` and ``\\href{x}{@j}{ y @a`` cite ``a`` alone).  After any
#: other command pandoc reads as many groups as come, and a ``{`` that never closes right
#: after them makes the command text (``\\foo{@j}{ y @a`` cites ``j`` and ``a``), as it
#: does after fewer groups than the number (``\\href{@j}{ y @a``).  Each command was run
#: with none to five groups before a citation's in pandoc 2.17, 3.6.1 and 3.9, which read
#: these alike; the tables below add what pandoc 3 and 3.9 add.
TEX_GROUP_COUNTS: Mapping[str, int] = MappingProxyType(
    {
        # acronyms and glossaries
        **dict.fromkeys(
            (
                "Ac", "Acf", "Acfp", "Acl", "Aclp", "Acp", "Acrfull", "Acrlong", "Acrshort",
                "Acs", "Acsp", "GLSdesc", "GLSdescplural", "Gls", "Glsdesc", "Glsdescplural",
                "Glspl", "ac", "acf", "acfp", "acl", "aclp", "acp", "acrfull", "acrlong",
                "acrshort", "acs", "acsp", "gls", "glsdesc", "glsdescplural", "glspl",
            ),
            1,
        ),
        # one group
        **dict.fromkeys(
            (
                "addbibresource", "ang", "author", "bibliography", "bibstring",
                "blockquote", "chapter", "ensuremath", "fancybreak", "footnote",
                "framesubtitle", "frametitle", "include", "includegraphics", "input",
                "lstinputlisting", "newtoggle", "nolinkurl", "num", "numlist", "paragraph",
                "part", "plainbreak", "section", "setdefaultlanguage", "setmainlanguage",
                "signature", "subfile", "subparagraph", "subsection", "subsubsection",
                "thanks", "theoremstyle", "title", "togglefalse", "toggletrue", "url",
                "usepackage", "vadjust", "write",
            ),
            1,
        ),
        # two groups
        **dict.fromkeys(
            (
                "colorbox", "epigraph", "foreignblockquote", "foreignlanguage",
                "foreignquote", "href", "hyperlink", "hypertarget", "hyphenblockquote",
                "hyphenquote", "inputminted", "newtheorem", "numrange", "parbox", "rule",
                "texorpdfstring", "textcolor",
            ),
            2,
        ),
        # three, four and five
        **dict.fromkeys(
            (
                "PackageError", "plainfancybreak",
            ),
            3,
        ),
        "hyperref": 4,
        "ifstrequal": 4,
        "titleformat": 5,
    }
)  # fmt: skip
#: and those pandoc 3 reads so (2.17 does not know ``\\includesvg``), and 3.9 (3.6.1 reads
#: ``\\xspace`` with no argument; in a paragraph, 2.17 and 3.6.1 read every group after
#: ``\\newenvironment`` and the like, three at a block's start)
TEX_GROUP_COUNTS_3: Mapping[str, int] = MappingProxyType({**TEX_GROUP_COUNTS, "includesvg": 1})
TEX_GROUP_COUNTS_3_9: Mapping[str, int] = MappingProxyType(
    {
        **TEX_GROUP_COUNTS_3,
        **dict.fromkeys(("newenvironment", "provideenvironment", "renewenvironment"), 3),
        "xspace": 1,
    }
)
#: Those of them whose first argument may be a token as well as a group: the others'
#: reading fails where no group comes, so that a font switch's text ends before them
#: (``\\bf x \\footnote y @a`` cites ``a``, ``\\bf x \\texorpdfstring y z @a`` nothing;
#: ``\\hyperref`` takes a token after an option); 2.17, 3.6.1 and 3.9 checked.
TEX_TOKEN_ARGUMENT_COMMANDS = frozenset({"input", "rule", "texorpdfstring", "xspace"})
#: Those of them whose arguments after the first may each be a token as well as a group
#: (pandoc's ``tok``: past white space, blank lines and comments, a group read as text, a
#: command with its arguments or a character that is not special): ``\\href{x}@a`` cites
#: nothing, its ``@`` being the second argument, and ``\\href{@a}`` before a ``}`` or at
#: the text's end cites ``a``, the reading failing; 2.17, 3.6.1 and 3.9 checked
#: (``\\name{x}@a``, ``\\name{x}{x}@b`` ...).
TEX_TOKEN_LATER_ARGUMENT_COMMANDS = frozenset(
    {
        "colorbox", "foreignlanguage", "foreignquote", "href", "hyperlink", "hyphenquote",
        "newtheorem", "rule", "texorpdfstring", "textcolor",
    }
)  # fmt: skip
#: and those whose reading fails with fewer groups than their number (``\\parbox{x}@a``
#: and ``\\foreignblockquote{a``, a blank line, ``@k}`` cite; ``\\hyperref``,
#: ``\\ifstrequal`` and the definitions of environments are read as many as come).
TEX_GROUPS_ONLY_COMMANDS = frozenset(
    {
        "PackageError", "epigraph", "foreignblockquote", "hypertarget", "hyphenblockquote",
        "inputminted", "numrange", "parbox", "plainfancybreak", "titleformat",
    }
)  # fmt: skip
#: siunitx's commands that end in a unit, with the number of braced numbers before it.
#: Pandoc reads the unit by siunitx's grammar: in braces, or without them as far as the
#: grammar goes, over white space, blank lines, ``.`` and ``~``, a part at a time (a
#: word, a character, a group, a command with its arguments, ``^`` or ``_`` right after a
#: part with what it raises or lowers), so that ``\\si m``, a blank line, ``@a`` cites
#: nothing; the unit ends before a ``}``, ``#``, ``$``, ``&``, a ``^`` or ``_`` after white
#: space, a ``{`` that never closes, a group that holds a blank line, a ``$`` that does
#: not close or a block command, or a command whose reading fails.  A group whose content
#: is no unit is its first part (``\\si{$x$} y @a`` cites nothing); no part at all makes
#: the command text (``\\si $x$ @a`` cites ``a``).  2.17, 3.6.1 and 3.9 checked.
TEX_UNIT_COMMANDS: Mapping[str, int] = MappingProxyType(
    {"SI": 1, "SIlist": 1, "SIrange": 2, "qty": 1, "qtylist": 1, "qtyrange": 2, "si": 0, "unit": 0}
)
#: Those of them that take ``key=value`` options before their numbers, not any bracket
#: (``\\SIlist[@b]{1;2} m`` is text); the others take a bracketed prefix after each
#: number and such options before their unit.
TEX_UNIT_KEYVAL_COMMANDS = frozenset({"SIlist", "qtylist", "si", "unit"})
#: Commands that take code, from a delimiter (any character but a letter, a digit, white
#: space, ``\\`` or ``%``) to the same one, or from ``{`` to ``}``: ``\\verb|@a|``,
#: ``\\Verb{@a}`` (on one line), ``\\lstinline[language=C]|@a|`` (``key=value`` options
#: first) and ``\\mintinline{py}|@a|`` (any options and a language first, the delimiter
#: right after it; the code of these two goes on over line breaks and blank lines) cite
#: nothing; with no such code the command is text; 2.17, 3.6.1 and 3.9 checked.
TEX_INLINE_CODE_COMMANDS = frozenset({"Verb", "lstinline", "mintinline", "verb"})
#: The old font switches: pandoc reads the text after them as their argument, as far as
#: its LaTeX reader reads it as inline text, so that all of it is raw TeX: ``\\bf x @a``
#: cites nothing, up to a blank line, a ``}`` that closes a group around them, a ``{`` that
#: never closes, a ``$`` that does not, a command of
#: :data:`TEX_DECLARATION_STOP_COMMANDS` or one whose reading fails (``\\bf x
#: \\section{y} @a`` and ``\\bf x \\footnote y @a`` cite ``a``); 2.17, 3.6.1 and 3.9
#: checked.
TEX_DECLARATION_COMMANDS = frozenset(
    {"bf", "bfseries", "em", "it", "itshape", "rm", "scshape", "sl", "slshape", "tt"}
)
#: The definitions such a reading goes on over (``\\bf x \\def\\y{z} @a`` cites nothing);
#: 2.17, 3.6.1 and 3.9 checked.
TEX_DEFINITION_COMMANDS = frozenset(
    {
        "DeclareMathOperator", "DeclareRobustCommand", "def", "documentclass", "edef",
        "gdef", "global", "let", "newcommand", "newenvironment", "newif", "newtheorem",
        "providecommand", "provideenvironment", "renewcommand", "renewenvironment", "xdef",
    }
)  # fmt: skip
#: Commands pandoc does not take as the argument of a command that takes one character
#: (``\\emph % c``, then ``\\section{x}`` on the next line: the comment is text, so an
#: ``@a`` in it cites ``a``), as it takes any other (``\\textbf{x}``, ``\\foo{x}``);
#: 2.17, 3.6.1 and 3.9 checked, in a paragraph (at a block's start they do not take
#: ``\\foreignquote`` and ``\\hyphenquote`` either, and a blank line in their first group
#: makes them text there: the tables say what a paragraph holds).
TEX_NOT_ARGUMENT_COMMANDS = frozenset(
    {
        "DeclareMathOperator", "DeclareRobustCommand", "PackageError", "RN", "Rn", "Verb",
        "addbibresource", "addcontentsline", "address", "addtocontents", "addtocounter",
        "and", "author", "begin", "bibliography", "bibliographystyle", "blockquote",
        "caption", "centerline", "chapter", "citetext", "closing", "date", "dedication",
        "def", "documentclass", "edef", "end", "endinput", "epigraph", "extratitle",
        "fancybreak", "foreignblockquote", "framesubtitle", "frametitle", "frontispiece",
        "gdef", "global", "graphicspath", "hrule", "hyperdef", "hyperref", "hypertarget",
        "hyphenblockquote", "ifdim", "ifstrequal", "iftoggle", "ignore", "include",
        "inputminted", "item", "let", "listoffigures", "listoftables", "lowertitleback",
        "lstinputlisting", "makeglossary", "makeindex", "maketitle", "markboth", "markleft",
        "markright", "mintinline", "newcommand", "newenvironment", "newif", "newtheorem",
        "numrange", "opening", "par", "paragraph", "parbox", "part", "pdfannot",
        "pdfstringdef", "pfbreak", "plainbreak", "plainfancybreak", "providecommand",
        "provideenvironment", "publishers", "raggedright", "renewcommand",
        "renewenvironment", "rule", "section", "setdefaultlanguage", "setmainlanguage",
        "signature", "special", "strut", "subfile", "subject", "subparagraph", "subsection",
        "subsubsection", "subtitle", "theoremstyle", "title", "titleformat", "titlehead",
        "uppertitleback", "usepackage", "verb", "write", "xdef",
    }
)  # fmt: skip
#: and those pandoc 3 does not take either (3.6.1 and 3.9 checked)
TEX_NOT_ARGUMENT_COMMANDS_3 = TEX_NOT_ARGUMENT_COMMANDS | {"hskip", "mskip", "vskip"}
#: The commands before which the text a font switch takes ends: those, but the
#: definitions (``\\bf x \\def\\y{z} @a`` cites nothing); 2.17, 3.6.1 and 3.9 checked
#: (``\\bf x \\name{y} @a``; pandoc 3 reads ``\\hskip 1pt`` on, but not ``\\hskip{y}``).
TEX_DECLARATION_STOP_COMMANDS = TEX_NOT_ARGUMENT_COMMANDS - TEX_DEFINITION_COMMANDS
#: Commands pandoc reads as a raw TeX block wherever they stand, whatever follows them: in
#: a bracket's text (a link's, a note's, a citation group's), its inline reading stops at
#: one and drops the rest up to the bracket's ``]`` (``[\\par @a]`` and ``[@b; \\par @a]``
#: cite nothing of what follows); 2.17, 3.6.1 and 3.9 checked, each with ``@a`` after it,
#: and after ``{y}`` and ``{``.
TEX_BLOCK_COMMANDS = frozenset({"hrule", "item", "par", "pfbreak", "raggedright", "strut"})
#: Commands pandoc reads as a raw TeX block with the options and groups that follow them
#: (on their line), unless a ``{`` there never closes (``[\\maketitle @a]`` and
#: ``[\\maketitle[o] {x} @a]`` cite nothing, ``[\\maketitle {@a]`` cites ``a``); the
#: value: how many groups they take at most (-1: any number); checked as those above.
TEX_RAW_BLOCK_COMMANDS: Mapping[str, int] = MappingProxyType(
    {
        **dict.fromkeys(
            (
                "addcontentsline", "addtocontents", "addtocounter", "bibliographystyle",
                "hyperdef", "ignore", "listoffigures", "listoftables", "makeglossary",
                "makeindex", "maketitle", "markboth", "markleft", "markright", "pdfannot",
                "pdfstringdef", "rule", "special",
            ),
            -1,
        ),
        **dict.fromkeys(("include", "subfile", "usepackage"), 1),
    }
)  # fmt: skip
#: Commands pandoc reads as a raw TeX block once they take a token (a group, a word, a
#: command ...; options, white space and comments before it), as :data:`TEX_BLOCK_COMMANDS`
#: (``[\\caption x @a]`` and ``[\\caption [@a] x]`` cite nothing, ``[\\caption [@a]]``
#: cites ``a``); 2.17, 3.6.1 and 3.9 checked.
TEX_TOKEN_BLOCK_COMMANDS = frozenset(
    {
        "address", "caption", "centerline", "closing", "date", "dedication", "extratitle",
        "frontispiece", "lowertitleback", "opening", "publishers", "subject", "subtitle",
        "titlehead", "uppertitleback",
    }
)  # fmt: skip
#: Commands pandoc reads as a raw TeX block once they take their groups (this many, each
#: after options, white space or comments), as :data:`TEX_BLOCK_COMMANDS`
#: (``[\\section{x} @a]`` and ``[\\section*[o] % c`` and a line break ``{x} @a]`` cite
#: nothing, ``[\\section @a]``, ``[\\section{x @a]`` and ``[\\parbox{x} @a]`` cite
#: ``a``); 2.17, 3.6.1 and 3.9 checked with one to six groups.
TEX_GROUP_BLOCK_COMMANDS: Mapping[str, int] = MappingProxyType(
    {
        **dict.fromkeys(
            (
                "addbibresource", "author", "bibliography", "blockquote", "chapter",
                "documentclass", "fancybreak", "framesubtitle", "frametitle",
                "lstinputlisting", "newenvironment", "newtheorem", "paragraph", "part",
                "plainbreak", "provideenvironment", "renewenvironment", "section",
                "setdefaultlanguage", "setmainlanguage", "signature", "subparagraph",
                "subsection", "subsubsection", "theoremstyle", "title", "write",
            ),
            1,
        ),
        **dict.fromkeys(
            ("epigraph", "foreignblockquote", "hyphenblockquote", "inputminted", "parbox"), 2
        ),
        "PackageError": 3,
        "plainfancybreak": 3,
        "titleformat": 5,
    }
)  # fmt: skip
#: Of those, the ones whose groups take no options before them (``[\\epigraph[o]{x}{y} @a]``
#: cites ``a``, ``[\\parbox[o]{x}{y} @a]`` nothing); 2.17, 3.6.1 and 3.9 checked.
TEX_GROUP_BLOCK_NO_OPTION_COMMANDS = frozenset(
    {
        "PackageError", "epigraph", "fancybreak", "foreignblockquote", "hyphenblockquote",
        "newenvironment", "newtheorem", "plainbreak", "plainfancybreak", "provideenvironment",
        "renewenvironment", "theoremstyle", "titleformat", "write",
    }
)  # fmt: skip
#: Of those, the ones pandoc never reads as inline raw TeX: in a paragraph too they take
#: their groups past a line break and a comment (``x \\section``, a line break,
#: ``{@a}`` cites nothing; ``x \\addbibresource``, a line break, ``{@a}`` cites ``a``);
#: 2.17, 3.6.1 and 3.9 checked.
TEX_BLOCK_ONLY_COMMANDS = frozenset(
    {
        "author", "blockquote", "chapter", "epigraph", "foreignblockquote", "framesubtitle",
        "frametitle", "hyphenblockquote", "paragraph", "parbox", "part", "section",
        "signature", "subparagraph", "subsection", "subsubsection", "title",
    }
)  # fmt: skip
#: Every command pandoc reads as a raw TeX block by its name alone (the six tables above):
#: where pandoc looks for a bracket's ``]``, it reads none of them as raw TeX inline, so
#: their arguments' brackets count (``[\\section{[}]@a]`` cites nothing, the ``]`` after
#: ``a`` closing the bracket; ``[\\textbf{[}]@a]`` cites ``a``); 2.17, 3.6.1 and 3.9
#: checked for each with its groups.
TEX_BLOCK_NAMES = (
    TEX_BLOCK_COMMANDS
    | TEX_RAW_BLOCK_COMMANDS.keys()
    | TEX_TOKEN_BLOCK_COMMANDS
    | TEX_GROUP_BLOCK_COMMANDS.keys()
    | TEX_GROUP_BLOCK_NO_OPTION_COMMANDS
    | TEX_BLOCK_ONLY_COMMANDS
)
#: Commands pandoc reads as inline raw TeX in a paragraph's text but as a raw TeX block
#: where a block starts (with the options and groups it reads after them inline): a block
#: starts after them there (``\\newpage``, a line break, ``@x. y`` opens an example list;
#: ``a \\newpage``, a line break, ``@x. y`` cites ``x``); 2.17, 3.6.1 and 3.9 checked,
#: with a star, options and groups.
TEX_BLOCK_START_COMMANDS = frozenset({"clearpage", "hspace", "newpage", "pagebreak", "vspace"})
#: The environments pandoc reads as inline raw TeX (math); any other, closed by its
#: ``\\end``, is a raw TeX block as :data:`TEX_BLOCK_COMMANDS` (``[\\begin{figure}x
#: \\end{figure} @a]`` cites nothing, ``[\\begin{math}x\\end{math} @a]`` cites ``a``);
#: 2.17, 3.6.1 and 3.9 checked.
TEX_INLINE_ENVIRONMENTS = frozenset(
    {
        "align", "align*", "alignat", "alignat*", "darray", "darray*", "dgroup", "dgroup*",
        "displaymath", "dmath", "dmath*", "eqnarray", "eqnarray*", "equation", "equation*",
        "gather", "gather*", "math", "multline", "multline*",
    }
)  # fmt: skip
#: and those of pandoc 3 (3.6.1 and 3.9 checked)
TEX_INLINE_ENVIRONMENTS_3 = TEX_INLINE_ENVIRONMENTS | {"flalign", "flalign*", "subequations"}
#: Commands pandoc always reads as text, arguments and all (``\\citetext{@a}`` cites
#: ``a``); 2.17, 3.6.1 and 3.9 checked.
TEX_TEXT_COMMANDS = frozenset({"citetext"})
#: Commands that take no bracket after their name as an optional argument: ``\\href[@a]{b}``
#: and ``\\includegraphics [see @a]{f}`` cite ``a``; pandoc 2.17, 3.6.1 and 3.9 all read
#: these so.
TEX_NO_OPTION_COMMANDS = frozenset(
    {
        "Ac", "Acf", "Acfp", "Acl", "Aclp", "Acp", "Acrfull", "Acrlong", "Acrshort", "Acs",
        "Acsp", "DeclareMathOperator", "DeclareRobustCommand", "GLSdesc", "GLSdescplural",
        "Gls", "Glsdesc", "Glsdescplural", "Glspl", "PackageError", "RN", "Rn", "ac", "acf",
        "acfp", "acl", "aclp", "acp", "acrfull", "acrlong", "acrshort", "acs", "acsp",
        "and", "begin", "bibstring", "citetext", "def", "edef", "end", "ensuremath",
        "epigraph", "fancybreak", "foreignblockquote", "foreignlanguage", "foreignquote",
        "gdef", "global", "gls", "glsdesc", "glsdescplural", "glspl", "graphicspath",
        "href", "hyperlink", "hypertarget", "hyphenblockquote", "hyphenquote", "ifdim",
        "iftoggle", "includegraphics", "inputminted", "let", "lstinputlisting",
        "newcommand", "newenvironment", "newif", "newtheorem", "newtoggle", "nolinkurl",
        "numrange", "parbox", "plainbreak", "plainfancybreak", "providecommand",
        "provideenvironment", "renewcommand", "renewenvironment", "theoremstyle",
        "titleformat", "togglefalse", "toggletrue", "url", "write", "xdef",
    }
)  # fmt: skip
#: and those pandoc 3 reads so (2.17 does not know ``\\includesvg``), and 3.9 (3.6.1 reads
#: ``\\xspace`` with no argument)
TEX_NO_OPTION_COMMANDS_3 = TEX_NO_OPTION_COMMANDS | {"includesvg"}
TEX_NO_OPTION_COMMANDS_3_9 = TEX_NO_OPTION_COMMANDS_3 | {"xspace"}
#: Commands pandoc still reads as raw TeX, with their optional arguments, when a ``{``
#: that never closes follows those (``\\bf[@a]{ y`` cites nothing): for every other
#: command whose options it reads, the failed argument makes the command text, so
#: ``\\cite[@a]{ y`` and ``\\foo[@a]{ y`` cite ``a``.  Every command of the other tables
#: and some ninety more were tried in pandoc 2.17, 3.6.1 and 3.9 (``x \\name[@a]{ y``).
TEX_UNCLOSED_AFTER_OPTIONS_COMMANDS = frozenset(
    {
        "bf", "bfseries", "em", "endinput", "it", "itshape", "rm", "scshape", "sl",
        "slshape", "texorpdfstring", "tt",
    }
)  # fmt: skip
#: and those pandoc 3.9 reads so (2.17 and 3.6.1 make ``\\ifstrequal[@a]{ y`` text)
TEX_UNCLOSED_AFTER_OPTIONS_COMMANDS_3_9 = TEX_UNCLOSED_AFTER_OPTIONS_COMMANDS | {"ifstrequal"}
#: What no command of :data:`TEX_CHARACTER_OPTION_COMMANDS` takes as the character after
#: its optional arguments: there (or at the text's end) pandoc reads the command alone and
#: its brackets as text (``\\caption [@a] $x$`` cites ``a``); 2.17, 3.6.1 and 3.9 checked.
TEX_NO_CHARACTER_AFTER_OPTIONS = frozenset("#}~$&^_")

#: Commands pandoc reads with its LaTeX reader, which fails on a blank line in their braced
#: arguments (it parses them as inline text, or as citation keys): the command is then no
#: raw TeX but text, and what follows the blank line is read as Markdown, so ``\\emph{a``,
#: a blank line and ``@k}`` cites ``k`` (``\\foo{a``, a blank line, ``@k}`` cites nothing:
#: pandoc passes an unknown command's arguments on whole, as it does ``\\footnote``'s,
#: ``\\label``'s, ``\\mbox``'s ...).  Every command of the other tables and some forty
#: more were tried in pandoc 2.17, 3.6.1 and 3.9 (``x \\name{a @k}`` raw TeX, ``x \\name{a``,
#: a blank line, ``@k}`` text).  A block command in them (``\\section{@a\\par}``), a
#: command whose reading fails (``\\textbf{@a\\gls}``, ``\\emph{\\footnote{@a\\gls}}``)
#: or a ``$`` left open makes the command text too (the citation commands' key lists
#: fail on any of these already); 2.17, 3.6.1 and 3.9 checked.
TEX_NO_BLANK_LINE_COMMANDS = frozenset(
    {
        "Autocite", "Autocites", "Cite", "Cites", "Footcite", "Footcites", "Footcitetext",
        "Footcitetexts", "G", "H", "MakeLowercase", "MakeTextLowercase",
        "MakeTextUppercase", "MakeUppercase", "Parencite", "Parencites", "Smartcite",
        "Textcite", "Textcites", "U", "address", "alert", "autocap", "autocite",
        "autocites", "b", "bf", "bfseries", "c", "caption", "centerline", "chapter", "cite",
        "citealp", "citealt", "citeauthor", "citep", "cites", "citet", "citeyear",
        "citeyearpar", "closing", "d", "date", "dedication", "em", "emph", "enquote",
        "extratitle", "f", "footcite", "footcites", "footcitetext", "footcitetexts",
        "framesubtitle", "frametitle", "frontispiece", "h", "it", "itshape", "k",
        "lowercase", "lowertitleback", "mkbibbold", "mkbibbrackets", "mkbibemph",
        "mkbibitalic", "mkbibparens", "mkbibquote", "newtie", "nhttfamily", "nocite",
        "nohyphens", "opening", "paragraph", "parencite", "parencites", "part",
        "passthrough", "publishers", "r", "rm", "scshape", "section", "sl", "slshape",
        "smartcite", "sout", "subject", "subparagraph", "subsection", "subsubsection",
        "subtitle", "supercite", "supercites", "t", "textbf", "textcircled", "textcite",
        "textcites", "textit", "textmd", "textnhtt", "textnormal", "textogonekcentered",
        "textrm", "textsc", "textsf", "textsl", "textsubscript", "textsuperscript",
        "texttt", "textup", "titlehead", "tt", "u", "ul", "uline", "underline", "uppercase",
        "uppertitleback", "v",
    }
) | TEX_LANGUAGE_COMMANDS  # fmt: skip
#: How pandoc reads the braced arguments of other commands it knows, one letter for each
#: in turn: ``i`` as inline text (as those above), ``b`` as blocks (paragraphs: a blank
#: line or a block command in them is read, a command whose reading fails or a ``$`` left
#: open makes the command text: ``\\footnote{@a\\gls}`` cites ``a``), ``-`` passed on
#: whole (a URL, a colour); each command tried in 2.17, 3.6.1 and 3.9, which read these
#: alike, with ``\\par``, ``\\gls``, ``$`` and a blank line in each of its arguments.
TEX_ARGUMENT_MODES: Mapping[str, str] = MappingProxyType(
    {
        "author": "b", "blockquote": "b", "colorbox": "-b", "epigraph": "bb",
        "footnote": "b", "foreignblockquote": "-b", "foreignlanguage": "-i",
        "foreignquote": "-i", "href": "-i", "hyperlink": "-i", "hypertarget": "-b",
        "hyphenblockquote": "-b", "hyphenquote": "-i", "parbox": "-b", "signature": "b",
        "texorpdfstring": "ii", "textcolor": "-b", "thanks": "b", "title": "b",
    }
)  # fmt: skip
#: and those pandoc 3 reads so (3.6.1 and 3.9; 2.17 passes them on whole)
TEX_NO_BLANK_LINE_COMMANDS_3 = TEX_NO_BLANK_LINE_COMMANDS | {"hl", "st"}
#: and those pandoc 3.9 reads so (3.6.1 passes it on whole; 3.8 not run)
TEX_NO_BLANK_LINE_COMMANDS_3_9 = TEX_NO_BLANK_LINE_COMMANDS_3 | {"xspace"}

__all__ = [
    "TEX_ACCENT_COMMANDS",
    "TEX_ARGUMENT_MODES",
    "TEX_AT_AFTER_SPACE_COMMANDS_3_9",
    "TEX_AT_ARGUMENT_COMMANDS",
    "TEX_BRACED_OPTION_COMMANDS",
    "TEX_CHARACTER_ARGUMENT_COMMANDS",
    "TEX_CHARACTER_ARGUMENT_COMMANDS_3",
    "TEX_CHARACTER_OPTION_COMMANDS",
    "TEX_DECLARATION_COMMANDS",
    "TEX_DECLARATION_STOP_COMMANDS",
    "TEX_DEFINITION_COMMANDS",
    "TEX_DIMENSION_COMMANDS_3",
    "TEX_GROUPS_ONLY_COMMANDS",
    "TEX_GROUP_COUNTS",
    "TEX_GROUP_COUNTS_3",
    "TEX_GROUP_COUNTS_3_9",
    "TEX_INLINE_CODE_COMMANDS",
    "TEX_LANGUAGE_COMMANDS",
    "TEX_NO_ARGUMENT_COMMANDS",
    "TEX_NO_ARGUMENT_COMMANDS_3",
    "TEX_NO_ARGUMENT_COMMANDS_3_9",
    "TEX_NO_BLANK_LINE_COMMANDS",
    "TEX_NO_BLANK_LINE_COMMANDS_3",
    "TEX_NO_BLANK_LINE_COMMANDS_3_9",
    "TEX_NO_CHARACTER_AFTER_OPTIONS",
    "TEX_NO_OPTION_COMMANDS",
    "TEX_NO_OPTION_COMMANDS_3",
    "TEX_NO_OPTION_COMMANDS_3_9",
    "TEX_ONE_OPTION_COMMANDS",
    "TEX_ONE_OPTION_COMMANDS_3",
    "TEX_OPTIONS_ONLY_COMMANDS",
    "TEX_PARSED_COMMANDS",
    "TEX_PARSED_COMMANDS_3",
    "TEX_TOKEN_ARGUMENT_COMMANDS",
    "TEX_TOKEN_LATER_ARGUMENT_COMMANDS",
    "TEX_UNCLOSED_AFTER_OPTIONS_COMMANDS",
    "TEX_UNCLOSED_AFTER_OPTIONS_COMMANDS_3_9",
    "TEX_UNIT_COMMANDS",
    "TEX_UNIT_KEYVAL_COMMANDS",
]
