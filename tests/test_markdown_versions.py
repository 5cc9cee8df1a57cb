"""pandoc's Markdown reader changed how it reads citations between versions: pandoc 3
before 3.8 reads a citation group ``[...]`` only up to the ``]`` that balances its ``[``,
counting the brackets inside a braced key (``[@{a]b}]`` cites nothing, ``[@{a[b}]; @c]``
only ``a[b``), and pandoc 2 reads the ``-`` of a bare ``-@key`` as text.  Each case is run
through the system's pandoc (2.17) and the releases of scripts/install-pandoc-versions
(3.6.1, 3.9); citewarden, told that version, must read the same citations, each with the
same mode.  Example-list markers (``@good.``, ``(@good)``), footnote references
``[^@x]`` and a braced key that holds the ``]`` ending the bracket around it are read
alike by every version."""

from __future__ import annotations

import json
import subprocess
from collections import Counter
from pathlib import Path

import pytest

import differential
from citewarden.parsing.markdown import parse_markdown, reads_alike
from citewarden.parsing.pandoc_syntax import PANDOC_3
from citewarden.parsing.pandoc_tex import (
    TEX_ARGUMENT_MODES,
    TEX_BLOCK_COMMANDS,
    TEX_BLOCK_ONLY_COMMANDS,
    TEX_BLOCK_START_COMMANDS,
    TEX_BRACED_OPTION_COMMANDS,
    TEX_CHARACTER_ARGUMENT_COMMANDS,
    TEX_CHARACTER_OPTION_COMMANDS,
    TEX_DECLARATION_COMMANDS,
    TEX_GROUP_BLOCK_COMMANDS,
    TEX_GROUP_BLOCK_NO_OPTION_COMMANDS,
    TEX_GROUP_COUNTS,
    TEX_GROUP_COUNTS_3_9,
    TEX_GROUPS_ONLY_COMMANDS,
    TEX_LANGUAGE_COMMANDS,
    TEX_NO_ARGUMENT_COMMANDS,
    TEX_NO_BLANK_LINE_COMMANDS,
    TEX_NO_OPTION_COMMANDS,
    TEX_NOT_ARGUMENT_COMMANDS,
    TEX_PARSED_COMMANDS,
    TEX_RAW_BLOCK_COMMANDS,
    TEX_TOKEN_ARGUMENT_COMMANDS,
    TEX_TOKEN_BLOCK_COMMANDS,
    TEX_TOKEN_LATER_ARGUMENT_COMMANDS,
    TEX_UNIT_COMMANDS,
)
from citewarden.project import Workspace
from citewarden.settings import Settings
from test_pandoc_versions import _pandoc

VERSIONS = ("2.17", "3.6.1", "3.9")

#: documents whose citations some of the versions read otherwise
CASES = [
    "Braced [@{a]b}] here, and [@c].\n",
    "Braced [@{a]b}; @c] here.\n",
    "Braced [@c; @{a]b}] here.\n",
    "Braced [see @{a]b}, p. 3] here.\n",
    "Braced [@{a]]b}] here.\n",
    "Braced [@{a]b}] [@{c]d}] here.\n",
    "Braced [@{a[b}]; @c] here.\n",
    "Braced [@{a[b}] here, and [@c].\n",
    "Braced [@{a[b}; @c] here.\n",
    "Locator @c [@{a]b}] here.\n",
    "Locator @c [p. @{a]b}] here.\n",
    "-@a says so.\n",
    "[@a [@{]}]] x\n",
    "As -@a and x-@b and (-@c) say.\n",
    # an HTML comment opened in a list item: pandoc before 3.9 reads it over the items
    # after it, 3.9 ends it at the next item
    "- item <!-- a\n- item @q8 -->\n",
    "- item one\n<!-- - item two @c1\n- item three @c2 -->\n- item four @c3\n",
    "- a <!-- x\n\n- b @z5 -->\n- c @z6\n",
    # a definition's marker on a line not in a list item's text: pandoc 3.9 ends the item
    # there, no code span goes on past it
    "- `\n@c\n: `\n\n- a\n  - b `\n: x @d `\n",
    # a definition's marker alone on its line: pandoc 3.9 reads a definition, the line
    # before it a term (no link reference definition), the code span opened in it ended
    "[a]:@a\n:\n\n[b]: @b\n:  \n\n- x `\n@c\n:\nd `\n\nT `\n:\n@e `\n",
    # a div fence's class word (``:::@key``) is no text, in pandoc 2 only when a fence
    # closes the div
    ":::@k1\nText @a.\n\n::: x\n:::@k2\n",
    # a "[" balanced in a later paragraph: pandoc 2 drops the text from the blank line
    # after it up to that "]"
    "See [the note\n\nLater @a says so.\n\n- item @c\n\nAnd ] done @b.\n",
    # and reads the text on either side as one: emphasis opened before the "[" closes
    # after the "]", the bracket is no citation group, the brackets opened after it end
    "*x [y\n\nz @b] *@a\n\n[@c\n\n@d] x and [a [b @e\n\nf] g] *@h*\n",
    # pandoc 3.9 reads \\newline with no argument, 3.6.1 and 2.17 with its bracket and braces
    "x \\newline [@a] y and \\newline{@b} z, \\newline [see @c]{d}\n",
    # and 3.9 reads \\newline alone, its bracket text, with nothing else that tells apart
    "x \\newline [@a] y\n",
    # pandoc 3 reads one optional argument of \\caption, then the character after it (a
    # "[" too), and \\hskip and \\vskip with a dimension only, no bracket or brace
    "x \\caption [@a] [@c] y, \\caption [@g][@h]\n\n"
    "\\hskip [@b]{d}, \\vskip{@e}, \\hskip 1pt@f and \\vskip 2cm [@i]\n",
    # a "-@" right after a key in a group's suffix: suppress-author in pandoc 3
    "[@e-@h] says so.\n",
    # a key after a word is text, but what follows it is read as after a key's
    "x@e-@h and x@a@b, x@c-x@d, y@f.@g\n",
    # "[^a b]:", a label with white space after "^", is a link reference definition's in
    # pandoc 3, a paragraph's text in pandoc 2
    "Text [^x y] more.\n\n[^x y]: note @a\n    @b more\n\n> [^x y]:\n>   u @c\n",
    # a note's marker in a link reference definition's destination is one of its words;
    # "[^a b]", a label in pandoc 3, ends the destination there (the line is a paragraph's)
    "[x]: @a1. [^2] z\n\n[y]: u [^a b] @a2\n\n[z]: u [^3]\n",
    # "@" is a letter of a raw TeX command's name in pandoc 2; pandoc 3 ends the name before
    # it, and the "@" starts a citation unless the command takes it as its argument
    "\\foo@a and x\\bar@b, \\fooé@c, \\foo\\baz@d.\n\n"
    "\\emph@e, \\cite@f, \\lstinline@g@ and \\foo@h@i\n",
    # pandoc 3 takes the character after \\hl and \\st as their argument, pandoc 2 does not
    "a \\hl x@b and \\st 1@c, \\emph x@d\n",
    # pandoc 3 reads \\hfill, \\vfill and \\today with no argument, pandoc 2 takes a
    # bracket after them as their option
    "\\hfill [@a] and \\vfill[@b] as of \\today{} [@c], but \\hfill{@d}\n",
    # pandoc 3 reads a citation group before a "[" no "]" balances, or a "{" that opens no
    # attribute set; pandoc 2 reads none before a "[" or "{"
    "[@c][ x and [@d]{x} y, [@e][x [y] z, [@f][x `]` y, [@g]{=html} y\n\n"
    "[@h][x] and [@i]{.c} and [@j][] and [@k][@l]\n",
    # a bracket with a block element's tag in it is no citation group, but in pandoc 3
    # before 3.8
    "[@x <div> y] z and [see @c, <p> y] z\n",
    # pandoc 3.9 reads a word after \\expandafter as raw TeX, pandoc 2 and 3.6.1 read
    # \\expandafter there as text; a "-@" right after raw TeX suppresses the author (pandoc 3)
    "\\expandafter x@b, \\expandafter xy@c and \\expandafter 12@d, \\expandafter x-@e\n\n"
    "\\emph x-@f\n",
    # pandoc 3 fails on a blank line in the braces of \\hl and \\st (the command is text);
    # pandoc 2 passes them on whole
    "x \\hl{a\n\n@b} y\n\nx \\st{c\n\n@d} y\n",
    # pandoc 3.9 reads braces after \\xspace as its argument, 2.17 and 3.6.1 none; an "@"
    # after it is its argument in all three
    "x \\xspace{e @f} y, \\xspace{g\n\n@h} y\n\nx \\xspace@b y\n",
    # pandoc 3.9 reads \\ifstrequal with its options when a brace that never closes
    # follows them, 2.17 and 3.6.1 make it text (its bracket cites)
    "x \\ifstrequal[@a]{ y\n",
    # pandoc 2 reads a bracket's text over blank lines again: a blank line in a bracket
    # inside it is that bracket's (its text dropped there), the outer one reads on
    "[[\n\n]@a1;] and x [y [\n\n] @a2] z\n\nx [[\n\n] y\n\n@b1] z @a3\n\n"
    "x [a [b\n\n c] [d\n\n e] @a4] @a5\n",
    # pandoc 2 reads \\caption's options after a line break, pandoc 3 not (the bracket
    # holds citations, and "[" is the command's character); both read the others' there
    "x \\caption% c\n[@a1]x\n\nx \\caption\n [@a2]x and \\caption[x]\n[@a3]y\n\n"
    "x \\textgerman% c\n[@b2]x and \\date\n[@b3]x\n\nx \\caption [@b1]x\n",
    # where pandoc looks for a bracket's "]", it passes over raw TeX and its arguments
    # (pandoc 2 over blank lines): a bracket a command takes as its token or option opens
    # nothing, a "]" it takes closes nothing, a blank line in it is no bracket's
    "x \\emph[\n\n [@a1]] y\n\nx [\n\n@a2;\\b ] y\n\nx [\\b \n\n [@a3]] y\n",
    "[\n\n\\b  [@a1] x\n",
    "[\n\n\\emph[@a1;] x\n",
    # but over none whose name pandoc reads as a block: their brackets count
    "x [\n\n\\section{[}]@a1] y\n\nx [\n\n\\textbf{[}]@a2] y\n",
    "x [\\section{[}@a1] y\n\nx [\\section*{\\emph[}@a2] y\n\nx [\\begin{e}[\\end{e}]@a3] y\n\n"
    "x [\\textbf{[}] @a5] y\n\nx [\\section{[}]@a6] y\n\nx [\\b{[}] @a7] y\n",
    # a raw TeX block in a bracket pandoc 2 closes in a later paragraph drops the rest
    "x [y \\section{x} @a1 y\n\nz] @a2\n\nx [y \\par @b1\n\nz] @b2\n",
    # a command in a bracket reads no argument past the bracket's "]" (a block's name: its
    # reading fails there; another's arguments are passed over in looking for the "]");
    # one read as a block past it makes the bracket no citation group (but in pandoc 3
    # before 3.8)
    "x [\\section{@a1]} y\n\nx [\\caption{@a2]} y\n\nx [\\foo{@a3]} y\n\n"
    "x [\\maketitle{@a4]} y\n\nx [@b1 \\section{x]} y\n\nx [@b2 \\foo{x]} y\n",
]

#: documents every version reads alike, where citewarden read otherwise before
#: commands of :data:`TEX_NOT_ARGUMENT_COMMANDS` not tried after ``\\emph % c`` below: one
#: ends the document, the others take more than ``{x}`` (``\\ifstrequal`` four groups)
_NOT_ARGUMENT_UNTRIED = frozenset(
    {"endinput", "ifstrequal", "newenvironment", "provideenvironment", "renewenvironment"}
)

#: block commands that define something (or start a document): the text after them in the
#: same document is read otherwise
_DEFINING_BLOCK_COMMANDS = frozenset(
    {"documentclass", "newenvironment", "newtheorem", "provideenvironment", "renewenvironment"}
)

#: siunitx's commands that end in a unit: their numbers and their unit in braces
_UNIT_COUNTS = {name: numbers + 1 for name, numbers in TEX_UNIT_COMMANDS.items()}

ALIKE = [
    # an optional argument followed by a "{" that never closes (no "}" comes after it):
    # pandoc's reading of the command fails and it is text, its bracket a citation; a few
    # declarations, \\si, \\unit and \\texorpdfstring are read with their options still
    "".join(
        f"x \\{name}[@a{i}]{{ y\n\n"
        for i, name in enumerate(
            [
                "cite",
                "foo",
                "footnote",
                "caption",
                "section",
                "textbf",
                "bf",
                "em",
                "itshape",
                "si",
                "unit",
                "texorpdfstring",
                "href",
                "par",
                "small",
            ]
        )
    )
    + "x \\cite[@b1] {\n\nx \\cite[c]\n[@b2]\n{ y\n\nx \\foo[@b3]\n\n{ y\n",
    # a blank line in the braces of a command pandoc's LaTeX reader knows (it parses them
    # as text or keys) makes the command text, and what follows it Markdown; an unknown
    # command's braces, and \\footnote's, are passed on whole
    "x \\emph{a\n\n@b} and \\textbf{c\n  \n@d}, \\foo{e\n\n@f} and \\footnote{g\n\n@h}\n",
    "\\section*{A\n\n@a}\n\n\\cite{k\n\n@b}\n\nx \\emph{\\textbf{a\n\nb} @c}\n\n"
    "x \\emph\n{a % c\n\n@d}\n\nx \\emph{a @e} \\cite{k @f}\n",
    # pandoc's citation commands read one list of keys (letters, digits, a few punctuation
    # characters, white space) after at most two options: anything else in it or a third
    # option makes the command text, as \\citetext always is, and a second group is none
    # of its arguments
    "x \\cite{@a \\x} y, \\citep{@b~c} y, \\cite{{@c}} y, \\nocite{@d;\\{} y\n\n"
    "x \\cite[p][q][r]{@e} y, \\cite{x}{@f} y, \\citetext{@g} y, \\cite{@h, i_2.j:k} y\n",
    # the commands of several key lists read them on, each after at most two options and
    # all after at most two notes, up to the first that is none; the first must be one
    "x \\cites{@a}[p]\n{@b} y, \\cites{@c}{@d \\x} y, \\cites{@e \\x}{@f} y\n\n"
    "x \\cites(a)(b){@g}[p][q]{@h} y, \\cites(a)(b)(c){@i} y, \\cites{@j}(c){@k} y\n",
    # a key list of white space and comments only (no key) makes the command text too;
    # an empty one does not
    "x \\cite{ % c @a\n } y, \\cites{x}{%c @b\n} y, \\cite{} y\n",
    # a "{" that never closes right after the braced arguments of a command pandoc reads
    # as many of as come makes it text, not after those of one with a number of them
    "x \\foo{x}{@a}{ y\n\nx \\href{@b}{ y\n\nx \\footnote{@c}{ y\n\nx \\foo{@d} { y\n",
    # in a command's option, a "{" that never closes is a character, and the option ends
    # at its "]" (pandoc passes \\foo [{ @a] on as raw TeX)
    "x \\foo [{ @a] y and \\foo [@b {] y\n\nx \\foo [c{ [@d] y, \\cite[{ @e]{x} y\n",
    # a command is the argument of one that takes a character (\\emph, \\b ...) where it
    # comes first after white space and comments, which are then raw TeX too; but not
    # \\section, \\caption, \\date ..., nor one whose braces do not close
    "x \\emph % c @a\n\\textbf{x} y, \\b % c @b\n\\b y\n\nx \\emph \\foo{@c} @d, \\emph \\foo @e\n\n"
    "x \\emph % c @f\n\\section{x} y\n\nx \\b % c @g\n\\caption{x} y\n\nx \\emph % c @h\n\\foo{ y\n",
    # in a block quote, a list item and a footnote too
    "> x \\emph{a\n>\n> @k}\n\n- x \\textbf{a\n\n  @m}\n\n[^1]: x \\emph{a\n\n    @n}\n\nz[^1]\n",
    # a raw HTML block's tag (an HTML or DocBook block element's, any case) or a comment:
    # a block starts after it on its line (an example item's marker), and on the next line
    "<pre>@x1.\n\n<pre> @x2.\n\n<div> @x3.\n\n<!-- c --> @x4. y\n\n<P> @x5.\n\n"
    "</p> @x6) z\n\n<Note>@x7.\n\n<hr/> @a1 and <span> @a2.\n",
    '<pre>\n[^1]: note @fn\n\n<section id="s">\n@x8. y\n\n<p>\n    @a3\n\n<details>\n\n    @a4\n',
    # a line of a paragraph that starts with a block element's tag (not one pandoc takes
    # for inline too, as <ins>, nor a comment) ends the paragraph: a block starts after it
    'a\n<div> @x1.\n\nb\n<DIV class="c"> @x2.\n\nc\n</div> @x3.\n\nd\n<script> @x4.\n\n'
    "- e\n  <p> @x5.\n\n> f\n> <table> @x6.\n\ng\n<ins> @a1.\n\nh\n<!-- c --> @a2.\n\n"
    "i\n<video> @a3.\n",
    # a block element's tag (not one pandoc takes for inline too, nor a comment) in a
    # paragraph's text ends the text there: a block starts after it
    "a <div> @x1.\n\n<p>a</p> @x2.\n\na </div> @x3.\n\n> a <div> @x4.\n\n- a <div> @x5.\n\n"
    "# a <div> @x6.\n\na <div>\n@x7. y\n\na <div> b\n@c1. c\n\na <span>b <div> @c2.</span>\n\n"
    "a `<div>` @c3. and <!-- <div> --> @c4. and <ins> @c5.\n",
    # after a paragraph's ">", "-" or "1." that starts no block quote or list item there
    "}\n><div>@x1.\n\n**\n><p>**@c1\n\n]\n- <div>@x2.\n\n[\n1. <div>@x3.\n",
    # a line block's line cut at it drops the lines going on in it
    "| <p>\n @k1\n\n| a <p> b\n  c @k2\n| e @c1\n\n| a\n  b <div> c\n  @k3\n| @c2\n",
    # a line block's line, a table's cell ends at it, a footnote's first line as a paragraph's
    "| a <div> @c1 y\n\n| a | b |\n|---|---|\n| c <div> @c2 y | d @c3 |\n\n"
    "[^1]: a <div> @x1. y\n\nb[^1]\n",
    # emphasis opened before it ends there; in a "[" no "]" balances, it ends the text
    # as in a paragraph, in one a key's "]" balances, the text up to there is dropped
    "*<div>*@g1 and\n\na *b <div> c*@g2\n\n[<div>@x1)\n\n[<p>@a@{]}\n\n[<div>[]@e@{]}\n",
    # a bracket's text ends at it: the text up to the bracket's "]" is dropped
    "[a <div> @x] y and [a [b <div> @z] @c1] and [@c2 <div> @w](u)\n",
    # a definition's term ends at it: pandoc drops the rest of its line (a paragraph's line
    # that only looks like a term goes on)
    "a <div>@b\n: x\n\nT @a <div> @c\n: x\n\nU @d <div> @e\n\n: x\n\n- V @f <div> @g\n  : x\n\n"
    "W @h <div> @i\n~ x @j\n\ny\nX @k <div> @l\n: x\n",
    # a verbatim element closed on its line: a block starts after it there
    '<pre>x</pre> @x1.\n\n<PRE class="a">x @a1</PRE>  @x2.\n\n<script>a</script> @x3. y\n\n'
    "a\n<textarea>x</textarea> @x4)\n\n> <pre>x</pre> @x5.\n\n- <pre>x</pre> @x6.\n\n"
    "<pre>x</pre> see @a2 and `@a3` @a4\n",
    # a line block's line that starts with a block element's tag: pandoc drops the line
    "| <pre> x [@a1]\n| b [@c1]\n|   </P> [@a2] y\n| <span> [@c2]\n| <!-- c --> [@c3]\n"
    "| <ins> [@c4]\n| <div>\n| x [@c5]\n\n> | <DIV> [@a3]\n",
    # an HTML comment over lines, with text after it: a block starts after it there
    "<!-- @a1\nb --> @x1.\n\n<!-- a\nb -->     @x2. y\n\n<!-- a\nb --> see @c1\n  more @c2\n\n"
    "p\n<!-- a\nb --> @c3.\n",
    # in a block quote or a list item too
    "> <!-- a\n> b --> @x1.\n\n- <!-- a\n  b --> @x2.\n\n> <!-- a\nb --> @x3.\n\n"
    "- a\n\n  <!-- a\n  b --> @x4.\n\n> <!-- a\n> b --> @c1 y\n> more @c2\n",
    # a block element's tag over lines: a raw HTML block, a block starts after it
    '<div\nclass="a"> @x1.\n\na\n<p\nclass="a"> @x2.\n\n<div\n\nclass="a">\n@x3.\n\n'
    'a <div\nclass="a"> @x4.\n\n- <div\n  class="a"> @x5.\n\n<p\nclass="a"> @c1 y\n\n'
    '<span\nclass="a"> @c2.\n',
    # a verbatim element closed on a later line with text after it: a block starts there
    "<pre> a\n</pre> see @c1\n\n<pre> @a1\n</pre>   @x2. y\n",
    # but a verbatim element a closing tag closes is no block's start in a container
    "> <pre> @x1. y</pre>\n\n- <pre> @x2. y\n  </pre>\n\nSee @x1 and @x2.\n",
    # a footnote's text starts a block: an example label there is a marker, no citation
    "Text[^1] and @smith2020, (@b2) and [^2].\n\n[^1]: @smith2020. See @c1.\n\n"
    "[^2]: (@b2) More @c2.\n",
    # a link reference definition's attribute set ends its destination: text after it
    # makes the line a paragraph's
    '[x]: {.c} @a1:\n\n[y]: u {#id} -- @a2;\n\n[z]: u "t" {.c}\n@a3\n\n'
    '[w]: u {k="@a4"}\n\n[v]: <u>\n  {.c} @a5\n',
    # a definition's marker on a footnote's line not indented is read in the note
    "[^1]: a\n\n    x\n: @a1\n\n[^2]: b\n\n    - y\n~ @a2\n\n[^3]: c\n\n    z\n~ @a3\n\nq[^3]\n",
    # a note's or a link reference's definition on a line a setext underline follows is a
    # heading's text
    '[^2]: @k1\n===\n\n[x]: u @k2\n===\n\n> [^3]: @k3\n> ---\n\n[y]: u "t @k4"\n---\n',
    # a note's marker on a line a definition follows starts a term, no note
    "[^2]: x @a1\n: y @b2\n\nz\n\n[^3]: x @a3\n\n:   y @b4\n\n[^4]: x @a5\n~ y @b6\n",
    # a "*" or "_" at a line's end opens emphasis; a rule's or a heading's line ends it
    "x *\ny*@a1 and x _\ny_@a2\n\n* x\n* * *\n> @b3 *@a4* y\n\n* * *\n*@c5* x\n\n"
    "# h *\n*@c6* x\n\nh *\n===\n*@c7* x\n\n_ _ _\n_@c8_ x\n",
    # but an empty list item's "*" opens none
    "- *\n  *@d1* x\n\n*\n*@d2* x\n\n> - *\n> *@d3* x\n\n  *\n*@d4* x\n\n- *\n<!--\n| *@d5* y\n",
    # nor one that only looks like it: a paragraph's line "- *" is its text
    "a\n- *\n*@t1* x\n\n> a\n> * *\n*@t2* x\n\n- a\n- *\n*@t3* x\n",
    # emphasis opened before a bracket closes after it: a key right after is text
    "_@a1_ [x] _@a1_ and *b [@c2; @d3] *@e4, **f [g [h] i] **@e5, _x [] _@e6, *x ] *@e7\n",
    # a list item's line not indented enough after its line block is a block of the item:
    # a note's or a link reference's definition there is no text
    "1. | b\n[^1]: note @fn1\n\n- a\n  - | b\n[x]: @fn2\n\n- | c\nd @k3\n",
    # an indented line before a setext underline is a heading's text (or a table's
    # header), no code: pandoc reads them first
    "    code @k1\n---\n\n        d `@k5\n---\n`\n\n> x\n>\n>     a @k2\n> ===\n\n"
    "    c @k4\n    ---\n\n- x\n\n      b @k3\n  ---\n",
    # or before the line under a simple table's header, a row after it (no row: code)
    "    a @k1 c\n--- ---\nx   @k2\n\n    a @k3 c\n  --- ---\nx\n\np\n\n    a @k4\n--- ---\n\n"
    "    a @k5 c\n---  ---  ---\n",
    # a "[" is the character \\emph, \\textbf ... take; \\caption, \\address ... take their
    # optional arguments first, then a character
    "\\emph[@a1] and \\textbf [see @a2]{b}, \\caption [@x0] and \\address[x] y [@a4] but "
    "\\caption[@x1]{c}, \\address [@x2] and \\caption[x]@x3 z\n",
    # a comment is white space before an optional argument (one, with its line break) and
    # a character argument (blank lines too): a bracket before a comment at the end is text
    "x \\caption [@a] %c\n\ny \\date [@b] % c\n\nx \\emph %c\nx@c y, \\emph%c\n%d\n x@d and "
    "\\textbf\n\n[@e] y\n\nx \\cite %c\n[@f]{g} y and \\foo %c\n{@h} y, \\cite %c\n%d\n"
    "[@i]{j}\n\nz \\caption [@k] %c\n",
    # a command's arguments on the next line of a block quote, past its ">"; a character
    # argument command takes one braced group, blank lines before it too
    ">\\emph\n>@g and\n\n> x \\emph\n> @h y\n\n> \\textbf\n>{@i} z\n\n> \\cite\n> [@l]{m} y\n\n"
    "\\textbf\n {@j} @k\n\nx \\emph  {@a}{@c} @b and \\caption[x]{@d}{@e}\n",
    # \\textlatin takes one optional argument only, then the character after it
    "x \\textlatin [@a] [@c] and \\textlatin[@d] [@e]{f} y\n",
    # \\par and \\item take their optional arguments only, no braced one
    "x \\par [see @x1] y, \\item [@x2]{b} and \\par\n[@x3] z, but \\par{@c1}, \\item{@c2} "
    "and \\par @c3\n",
    # a tag with an attribute whose name is no name (a letter, then letters, digits, ":",
    # "-" or "_"; Vue's @click, a quoted word) is no tag to pandoc: its text is read
    'Press <button @click="go">Go</button>, <span title="see @a1" x.y="1">z</span>, <e =@a2>,\n'
    '<e "@a3"> and <e 1a="@a4">\n\nbut <span title="@x1" data-x=1 hidden>z @c1</span> and '
    '<e a_b:c-d="1" \u00e9=2>@c2</e> <b title="@x2" >y</b> <i title="@x3"\n>y</i>\n',
    # a simple table's line is cut into cells at the columns where the dashes under its
    # header start, inside a key too (tabs stop every four columns, a wide character
    # takes two)
    "a   b\n--- ---\nx @k2 y\n\n> a @b1\n> --- ---\n> xy @k3\n> @c4 y [@a5; @b6]\n\n"
    "H  b\n-- ----\n\u00e9 @k7 y\n\nc   d\n--- ---\n\u4e2d @x8 y\nx\t@c9 y\n",
    # a cell starting at an "@" after a word or emphasis cites; a citation group a cell
    # starts in is none, its keys read as in the text
    "a   b\n--- ---\nwxyz@k1 y\nx*a*@k2 y\nab-@k3 y\nab[@k4] y\nabc[@k5] y\n\n"
    "a    b\n---- ---\nx [@k6] y\nx [see @a7; @k8 ]y\n\n> a    b\n> ---- ---\n> x [@k9] y\n",
    # nor a code span: a cell's end ends it, its text read in the next cell
    "a    b\n---- ---\nx `a @k1` y\n`abc @k2\n`@x1` @k3\nab`  @k4 `\n\n> a    b\n> ---- ---\n"
    "> `x`  @k5 `\n\n  Right     Left\n-------     ------\n  `a @k6    b` @k7\n\n"
    "-----\nHead\n---  ---\n`ab @k8`  x\n`c  d`\n---  ---\n",
    # nor math, raw TeX, an HTML comment or a tag: a cell's start in one makes it none
    "a    b\n---- ---\nx $a @k1$ y\nx \\foo{a @k2} y\nx <!-- @k3 --> y\n"
    'x <span title="@k4"> y\n`$x$` $b$ @k5\n$a$  $@x1$\n\\foo  \\bar{@k7}\n'
    "ab <!-- @k8 --> [@k6]\n",
    # no bracket or emphasis goes on from one cell to the next (at a space there)
    "a   b\n--- ---\n[@c @k3] y\n[see @d e] f\n\n> a    b\n> ---- ---\n> [@e;   @f]\n\n"
    "---- ---\n*x   y*\n[@g  @h]\n---- ---\n",
    # in a block quote, from the content column of each line: its ">" may stand with no
    # space after it (or a tab), a lazy row none
    "> a   b\n> --- ---\n>xyz @k1 y\n\n>a   b\n>--- ---\n> xy @k2 y\n\n> a   b\n> --- ---\n"
    "xy @k3 y\n\n>\ta   b\n>\t--- ---\n>\txy @k4 y\n\n> xyz@k5 b\n>  --- ---\n> x y\n\n"
    "> > a   b\n> >--- ---\n> > xy @k6 y\n",
    # the dashes under the header indented one to three spaces, at their columns
    " a   b\n --- ---\nxyx @k1 y\n\n  a   b\n  --- ---\nxyx @k2 y\n\n"
    "   a   b\n   --- ---\nxy @k3 y\nxyz @k4 y\n\n> a   b\n>   --- ---\n> xyz @k5 y\n",
    # a table with no header row, and a multiline table (rows apart by blank lines), from
    # their first line of dashes to their last: their rows are cut at the columns too
    "  --- ---\nxyx @k1 y\nabc @j1 z\n  --- ---\nafter @p1\n\n--- ---\nxy @k2 y\n\n"
    "ab @j2 z\n--- ---\n\n-----\nHead\nMore @h2\n---  ---\nxy @b2 x\nmore @m2 z\n\n"
    "abc @j3 z\n-----\n\n* * *\nxy @b3 x\n--- ---\n\n--- ---\nxy @b4 x\n\n--- ---\n",
    # the line under a header with no row after it is a paragraph's text
    "a @x1  b\n--- ---\n\na  @x2  b\n---  ---\n  \nzz\n",
    # \\emph, \\textbf ... take the character after their name as their argument: the key
    # after it is no word's; \\foo and \\section take none
    "a \\emph x@b, \\textbf 1@c and \\emph\nx@d, \\textit-@e, \\emph xy@f\n\n"
    "\\foo x@g, \\section x@h, \\emph ]@i and \\date .x@j\n",
    # \\expandafter joins a command and a word after it on its line into one command
    "\\expandafter\\foo x@b, \\expandafter \\emph xy@c, \\expandafter\\foo x{@a} and "
    "\\expandafter\\foo\nx@d\n\n\\expandafter\\expandafter\\foo x@e\n",
    # a command pandoc reads with no argument, an argument that is a dimension
    "See \\small{@a}, \\Large[x]{as @b}, \\LaTeX{@c} and \\foo{@d}.\n\n"
    "\\foo 1@e, \\foo=2.5cm@f, \\foo[x]12pt@g, \\foo 1a@h, \\emph @k and \\textbf @m\n",
    "Text @k first.\n\n@good. An example.\n\n(@b) Another.\n\nAs @good and (@b) show, [@good].\n",
    # an upper-case letter or roman numeral and a period at a line's end is a list item's
    # marker: the line after it defines nothing
    "A.\n: @a1. x\n\nz\n\nI. \n: @a2. y\n\nB. Russell\n: @a3. w\n",
    "Text\n(@key) more.\n",
    "@ex) One.\n@ex2. Two.\n\nSee @ex2.\n",
    "- @item. An item.\n\n> @quoted. A quote.\n",
    "Open [@{a]b} here, [@{c]d}](http://x.org), [@{e]f}]{.c}, ^[@{g]h}] but [@{i]j}].\n",
    "A note [^@key] and x [^@k y] z.\n",
    "Text [^a].\n\n[^a]: See @c.\n\n    More @e.\n\n    And @f.\n",
    # a note ends at the "]" inside a braced key: the key is text, no group around takes it
    "[\n^[@{]}]]\n",
    "[@a ^[@{]}]]\n",
    ":[>@a{^[ @{>]}]]\n",
    "[@^[@{]}]]]! @a\n",
    # a group a key's "]" cuts, in a bracket that is no citation group: pandoc reads that
    # bracket's text again up to the "]" balancing its "[", brackets in keys counted
    "[[@{]}]] and [x [@{a]b}] y, [[@{]b}]] and [[@c; @{]}]]\n\na [[@{]}] @b\n",
    # an unclosed fence is text; indented code where a block starts in a list item, a block
    # quote, a definition, after a heading, a rule, a table, a div's fence, a comment
    "````\nx <- 1\n```\n\nAs @smith shows, and @jones.\n\n~~~\n@a\n",
    "As @s shows:\n\n1. Decorate it:\n\n        @lru_cache\n\n2. Install:\n\n"
    "        npm install @types/node\n\n   then @b.\n\n>     npm @install\n",
    "# Heading\n    @h1\n\n* * *\n    @h3\n\n> quote\n>     @h4\n\n>     @h5\n\n"
    "Term\n:   definition\n\n        @h6\n\n| a |\n|---|\n| b |\n    @h7\n",
    "* list\n\n        @k8\n\n- item\n\n      @k9\n\n1. one\n\n       @k10\n\n"
    "10. ten\n\n        @k11\n\n    @k12\n",
    "> quote @a\n    lazy @b\n\n>\n    # lazy @c\n\n::: note\n    @d\n:::\n    @e\n\n"
    "<!-- x -->\n    @f\n\ntext\n</p>\n    @g\n",
    # a link reference definition: its label and destination are no text, its
    # destination and title may start on the next line; a label that is a citation
    # group, more text after the title, or a line in a paragraph make a paragraph's text
    "[x; @k1]: u\n\n[@k2; x]:\n  u @k3\n\n[a]: u\n  'title @k4'\n\n[x @k5]: u\n    @k6\n\n"
    'para\n[a]: u @k7\n\n> [a]: u @k8\n\n[a]: u "t" @k9\n\n[x [@k10]]: u @k11\n',
    # nor when a definition follows its line (a term), or bracketed text its destination
    "[a]: u @k1\n\n: def\n\n[b]: x [@k2]\n\n[c]: x [y] @k3\n\n[]:\n: @k4\n",
    # a line block ends at a line that does not go on in it: a paragraph read apart
    "| a `x\nb @c1 `y`\n\n| a <!-- x\nb @c2 -->\n",
    # or at the line after a "|" alone, which goes on in no line (indented: code)
    "|\n    @d1\n\n| a\n|\n    @d2\n\n|\n  @d3\n\n| b\n    @d4\n",
    # or at a blank line: its last line's comment or raw TeX goes on no further
    "| a <!--\n\n@k1 -->\n\n| b \\foo{\n\n@k2}\n\nx <!--\n\n| c\n\n@k3 -->\n",
    # no setext heading where its line opens a code span, a comment, math or raw TeX that
    # closes past it: a table's header (its rows read apart) or a paragraph's line
    "a `b\n---\n@c1 `d`\n\nx <!-- y\n---\n@c2 -->\n\nx \\foo{y\n---\n@c3}\n\nx $$y\n---\n"
    "@c4$$\n\n> a `b\n> ---\n> @c5 `d`\n\na `b\n===\n@c6 `d`\n\na `b`\n---\n@c7 `d`\n",
    # nor a pipe table's header: the separator line goes on in the paragraph
    "a <!-- | b\n---|---\nc | @c1 -->\n\na | b <!--\n---|---\nc | @c2\n\n-->\n\n"
    "a `x | b\n---|---\nc | @c3 `\n\na \\foo{x | b\n---|---\nc | @c4 }\n",
    # a paragraph's or a heading's HTML comment or raw TeX covers the lines up to its end:
    # no code block, fence or verbatim element starts in them, the text after it is read
    "text <!-- x\n\n    code --> @c1\n\nx <!-- y\n\n    a -->\n    @c2\n\n    @c3\n\n"
    "text \\foo{x\n\n    code} @c4\n\ntext <!-- x\n\n```\ncode --> @c5\n```\n\n"
    "> x <!-- y\n>\n>     a --> @c6\n\n# h <!-- x\n    code --> @c7\n",
    # the first "$" after one that may open math closes it, or there is no math: white
    # space before it, a digit after it
    "$@c1 $$ and $@c2 $ x$\n\n$@c3$1 x$\n\n$@c4 $x$ and $a\\$b$ @c5\n",
    # a key after the first of a group's part is in its suffix: cited in the text
    "[@e@h] and [@a, @b; see @c, and @d] and [-@x@y] and [x [@f @g] @i]\n",
    # a bracket inside a group is read within one part: its semicolons separate no parts,
    # its keys are in the text (or a group of their own)
    "[@a [x; @b]] and [[x; @c] @d] and [@e [@f; @g]; @h [x; y](u)]\n",
    # "--" before "@" is a dash, no suppress-author "-" ("----" a dash and one)
    "x --@a and ---@b, [--@c] and [a --@d], x--@e\n",
    "x ----@a and -------@b, [----@c] and [-----@d]\n",
    # a div fence's class word is no text; a fence with more after the word is text
    "::: @key\ntext @a\n:::\n\n:::: [@k2] ::::\ntext\n::::\n\n> :::-@k3\n> a\n> :::\n\n"
    "::: @k4 @k5\ntext\n:::\n",
    # a fence with more than attributes or a word after its colons is a paragraph's line
    ":::{ ]\n    @k1\n\n:::[ ^\n: @k2]\n\n::: {.a\n    @k3\n:::\n\n::: {.a} x\n    @k4\n:::\n",
    # attribute sets, read where pandoc reads one and as text elsewhere
    '# Results {#sec-res data-note="@h1"}\n\n::: {.note title="see @d1"}\nText.\n:::\n',
    '[word]{key="@s1"} and `x`{note="@c1"} and ![img](a.png){alt="@i1"} and []{k="@e"}\n',
    '[w](u){k=@x} <http://a.b>{k="@y"} [w]{.a.b k="@z" -} [w]{\nk="a\n@v" #i}\n',
    '[w]{k="a\\"@q"} [w]{k="a\\"b" @r} [w]{k="@t" [w]{k=}@u [w] {k="@w"}\n',
    '# H {#a k="@a"} ##\n\n# H ## {k="@b"}\n\n  # H {k="@c"}\n\n> # H {k="@d"}\n',
    'H {k="@e"}\n===\n\na\nH {k="@f"}\n===\n\nx {k="@g"} y\n\n- # H {k="@h"}\n',
    # raw TeX: braces at any depth across lines, white space before arguments, \verb
    "\\textcolor{red}{TODO: expand on\nthe result of @smith and @jones.} @after\n",
    "x \\foo {@a} \\foo  [@b] \\verb|@c| \\verb*@d@ \\foo{a{b{@e}}} \\foo * {@f} @y\n",
    "x \\foo\n{@a} \\foo{b}  {@b} \\foo{c}\n[@c] \\foo\n[@d] \\foo [e]\n {@e} \\foo{a\\}@f} @y\n",
    "x \\foo{a\n\n@a} \\foo{b%}\n@b} \\foo[c%]\n@c] \\foo[a{]}@d] \\foo[e[f]@e] @y\n",
    "x \\foo{`}`@a} \\foo{a\\\\}@b} \\verb!@c\n@d! \\foo [e]\n\n{@e} @y\n\nz \\foo{a\n\n@f @g\n",
    # a run of backticks no run of its length closes: its first backtick is text and the
    # rest of the run opens a code span again (LaTeX's quotes, ``like this'')
    "He said ``hello @q1'' and `x` then @q2 and `y`.\n",
    "Run ``` unmatched `@c4` here.\n\nPara `` x @c5 ` y.\n\nUse ``@q4`.\n",
    # no code span, math, bracket, raw TeX or HTML comment goes on past the text of a list
    # item, a definition, a footnote, a table's row or a block quote's paragraph
    "- item `a\n- item @q5 `b`\n\n- item ``a\n- item @q10 `b`\n",
    "1. item \\foo{a\n2. item @q9}\n\n- a \\foo{x\n\n- b @z8}\n",
    "Term `a\n:   def @q11 `b`\n\nTerm\n:   def <!-- x\n:   def2 @c6 -->\n",
    "| x `a | y |\n|---|---|\n| @q13 `b` | z |\n",
    # a pipe table's "|" ends its cell's brackets, emphasis and braced key, but one in
    # code, math, raw TeX or HTML, or escaped, ends no cell
    "[@a | b] | c\n---|---\nx | y\n\n| a | b |\n|---|---|\n| [@c `x|y`] | [@d $a|b$] |\n"
    '| [@e \\| x] | [@f <span title="|">x</span>] |\n| [@g \\foo{|}] | [@h <!-- | -->] |\n'
    "| *x | y*@i |\n| [@j | x] |\n| @{k|5} |\n| @{x\\|y} | z |\n\n"
    "> | a | b |\n> |---|---|\n> | [see @l | x] @m y |\n",
    # pandoc drops a pipe table's cells past the columns of its line of dashes (a "|" in
    # a braced key separates cells, one in code, math, raw TeX or HTML, or escaped, none)
    "| a | b | @h |\n|---|---|\n| c | d | @k |\n| e | f @m\ng | h | @n\n| x @p\n\n"
    "a | b | @q\n:-:|--:\nc | @d | @e | @f\n\n> | a | b |\n> |---|---|\n> | `x|y` | @r | @s |\n"
    "> | \\| | @t | @u |\n> | x <div> y | @v | @w |\n"
    '> | $|$ \\foo{|} <!--|--> <a title="|"> | @x | @y |\n> | @{k|5} | @z |\n'
    "> | @{x\\|y} | @e1 | @f1 |\n",
    # a "|" in a link's or an image's destination or title separates cells too: the
    # destination is left open, the cell after it read (a key past the columns dropped)
    "| h | i | j |\n|---|---|---|\n| a | [x](http://e.org/a|b) [@k1] | c [@k2] |\n"
    '| [x](a|@k4) | @k5 |\n| ![x](a|b) @k6 | @k7 |\n| [x](u "t|t") @k8 | @k9 |\n'
    "| [x](a `|` b) @k10 | @k11 |\n\n> a | b\n> --|--\n> [x](<a|b>) @k12 | @k13 | @k14\n",
    # and in an autolink, in a span's or a link's attributes (a code span's are its own)
    '| h | i |\n|---|---|\n| <http://a|b> @k1 | @k2 |\n| [x]{title="a|b"} @k3 | @k4 |\n'
    '| [x](u){title="a|b"} @k5 | @k6 |\n| <a|b@c.de> @k7 | @k8 |\n| [@k9]{a="|"} | @k10 |\n'
    '| `x`{a="|"} @k11 | @k12 |\n| <http://a>{a="|"} @k13 | @k14 |\n',
    # a pipe table's body row: its cells' brackets end there, its code spans and raw TeX
    # go on over the rows after it; a simple or a grid table's rows, a line block's lines,
    # are read apart
    "| x | y |\n|---|---|\n| A | `x |\n| B | @t1 `y` |\n\n| x | y |\n|---|---|\n"
    "| \\foo{a | b |\n| @q15} | z |\n\n| x | y |\n|---|---|\n| [see | b |\n| @q16] | z |\n",
    # ... and the lines they go on over are the same row: its cells past the columns are
    # dropped, a line with no "|" is no paragraph
    "| h1 | h2 | h3 |\n|----|----|----|\n| x | `y\nz` | @k8 | @k7 |\n| a | $b\nc$ @k1\n"
    "| d | e | f | @k2 |\n| g | <!-- h\ni\n--> @k3 | @k4 | @k5\n| `a\nb` `c\nd` | @k6 | @k9 |"
    " @k10 |\n\n> | h1 | h2 |\n> |----|----|\n> | \\foo{y\n> z} | @k11 | @k12 |\n",
    # a raw HTML tag too; a "<" that opens no tag (no ">", or in code) goes on over nothing
    '| h1 | h2 | h3 |\n|----|----|----|\n| x | <span\ntitle="a">q</span> | @k8 | @k7 |\n'
    "| x | a <br\n/> @k1 | @k2 | @k3 |\n| `<b` | <i\n| @k4 | @k5 |\n| <b | c | @k6 | @k9 |\n",
    "  Right     Left\n-------     ------\n     12     `a\n    123     @t2 `b`\n",
    "+-------+-------+\n| a `x  | b     |\n+-------+-------+\n| c @g1 | d `y` |\n"
    "+-------+-------+\n",
    "| Line one @lb1\n| line `two\n| three @lb2 `x`\n|    and\n  going on `y @lb3\n",
    "- a\n  - b `x\n  - c @q15 `y`\n\n- a *x\n- b*@q5\n",
    "> quote `a\n>\n> para @q1 `b`\n",
    "[^1]: note <!-- x\n[^2]: other @c8 -->\n\nRef[^1][^2].\n",
    # nor past the end of a block quote, a list item or a footnote, after a blank line too
    "> <!--\n\n@k7-->\n\n><!--@k14*\n\n-->\n",
    "* <!--\n1. @k50-->\n",
    # a "---" block whose YAML is a scalar or a list is text; one of comments alone is
    # metadata (empty)
    "---\nSome text @x1 here\n---\n\nBody @b1.\n",
    '---\n- a list @x2\n---\n\nBody.\n\n---\n"quoted @x3"\n---\n',
    "---\n# just a comment @x6\n---\n\nBody @b2.\n\n---\n# a comment @x9\n---\n",
    # but a paragraph's HTML comment or raw TeX goes on over a blank line and the blocks
    # after it, and an item's over its sub-items
    "text <!-- x\n\n> quote @z1 -->\n\nafter @z2\n\ntext \\foo{x\n\n> quote @z7}\n",
    "- a <!-- x\n  - b @c4 -->\n- c @c5\n",
    # a container pandoc never sees, its text inside such a comment or raw TeX, ends nothing
    "@k43<!--[-@k51]\n\n*\n* -->\n\nText <!-- a\n\n- item @k1\n- item @k2 -->\n- item @k3\n",
    "Text \\foo{a\n\n- item @k4\n- item @k5}\n\nText <!-- a\n\n> quote @k6\n\nafter @k7 -->\n",
    "Text <!-- a\n\n[^1]: note @k8\n[^2]: note @k9 -->\n\nRef[^1][^2].\n",
    "Text <!--\n\n| a | b |\n|---|---|\n| @k10 | x -->\n",
    # a footnote no reference outside the footnotes names (labels compared exactly; not in
    # code, a comment or an escape) is dropped, and all but the last of a label's
    "Ref[^Note].\n\n[^note]: lower @u1.\n\n[^Note]: upper @u2.\n",
    "Code `[^a]` only, <!-- [^a] --> and \\[^a].\n\n[^a]: hidden @u3\n",
    "Text[^a].\n\n[^a]: first @u4\n\n[^a]: second @u5\n",
    "Text[^a].\n\n[^a]: in a, refs b[^b] @u6\n\n[^b]: b @u7\n\n[^c]: refs d[^d] @u8\n\n"
    "[^d]: d @u9\n",
    "Text[^1].\n\n[^1]: one\n[^2]: two @u15\n\nText[^3].\n\n[^3]: one\n    more @u16\n"
    "[^4]: two @u17\n",
    # a footnote's marker alone on its line: the lines after one blank line are its first
    "[^1]:\n\n@h\nmore @j\n\n@k\n\nx[^2]\n\n[^2]:\n\n@a\n\n    @b\n\n> [^3]:\n>\n> @c\n\n"
    "[^4]:\n\n\n@d\n",
    "[^1]:\n\n- @h\n- @j\n\n@k\n\n[^2]:\n\n# @a\n\n    @b\n",
    "Inline^[note with ref[^n]], [link[^l]](u).\n\n[^n]: @v6\n\n[^l]: @v3\n\n"
    "[^x]: @v7\n\n    [^y]: @v14\n",
    "---\nabstract: 'See[^m].'\n---\n\nBody.\n\n[^m]: from metadata @v2\n",
    # an example item's lines go on four columns in, whatever its label's length
    "(@longlabel) item\n\n    @k1\n\n(@cd) other\n\n        @k3\n\n@gh) item\n\n       @k6\n",
    " (@ab) item\n\n    @k2\n\n(@) item\n\n    @k7\n\n(@) next\n\n        @k8\n",
    # but its first line's text is read past its marker, as another item's: a label of
    # four letters or more makes no code of it
    "(@good) cites [@a] and @b.\n\n(@longlabel)  x @c\n    more @d\n\n> (@quoted) see @e\n\n"
    "- (@nested) see @f\n\n[^1]: (@innote) see @g\n\nx[^1]\n\n(@wide)      code @h\n",
    # an example item's marker where pandoc's block reader finds one: after code, a list
    # item, a quote or a line block without a blank line; a setext heading's text first
    "    e\n@x1)\n\na)\n@x2.\n\n1.\n@x3.\n\n>\n@x4.\n\n|\n@x5)\n\nText.\n\n@x6)\n-\n\n"
    "Text.\n\n(@x7) a\n===\n\nSee @x1 and @x5.\n",
    # after a list, a marker of another style starts a new list: a setext heading first
    "@x) b\n\n(@x7) a\n===\n\n@y) c\n\n@y8. d\n===\n\n1) e\n\n(@y9) f\n===\n\n"
    "See @x7, @y8 and @y9.\n",
    # pandoc's title block: its "%" lines read apart, a block may start after it
    "% Title [x\n% Author `y\n@x1. An example.\n\nText @a `z`, as @x1 shows.]\n",
    # an "@" right after emphasis closes is read as after a word
    "*x*@a **x**@b _x_@c ***x***@d *x *@e ~~x~~@f ^x^@g *x*-@h *x*@i@j\n",
    "**x*@a\n\n*x**@b\n\na_x_@c\n\n*a* and *b*@d\n\n*a*b*@e\n\n**a *b* c**@f\n\n[*a](u)*@g\n",
    # \\caption, \\date ... read alone where nothing they take comes after their optional
    # arguments (a "$", a "}", a heading's "#", the text's end): their brackets are text
    "x \\caption [@c1]\n\n# H\n\ny \\date [@c2] $z$ and \\caption [@c3] } w\n\n"
    "\\address [@c4] & v\n\n\\caption [@x1] w and \\caption [@x2]{y}\n\nz \\caption [@c5]\n",
    # \\cite, \\section ... take their optional arguments only before a braced one, and
    # \\href, \\includegraphics ... none: their brackets are text
    "".join(
        f"x \\{name} [@a{i}] y\n\nx \\{name}[see @b{i}]{{z}}\n\n"
        for i, name in enumerate(sorted(TEX_BRACED_OPTION_COMMANDS | TEX_NO_OPTION_COMMANDS))
    )
    + "x \\section [@c1]\nnext, \\cite[@c2]\n\n{z} and \\cite [@c3]\n",
    # \\footnote, \\href, \\SIrange ... take their number of braced arguments: a group after
    # them is text (\\includesvg is pandoc 3's, \\xspace and \\newenvironment's like
    # 3.9's: the others read every group), and a "{" that never closes there leaves them
    # raw TeX
    "".join(
        f"x \\{name}{'{x}' * count}{{@a{i}}}\n\n"
        for i, (name, count) in enumerate(sorted({**TEX_GROUP_COUNTS_3_9, **_UNIT_COUNTS}.items()))
    )
    + "".join(
        f"x \\{name}{'{x}' * (count - 1)}{{@j{i}}}{{ y @k{i}\n\n"
        for i, (name, count) in enumerate(sorted({**TEX_GROUP_COUNTS, **_UNIT_COUNTS}.items()))
    )
    + "x \\foo{x}{@b1}{ y @b2\n\nx \\href{@b3}{ y @b4\n\nx \\em{@b5}{ y @b6\n",
    # the white space between a command's optional arguments holds one line break at
    # most: after a blank line a bracket is a citation
    "x \\foo [@g1]\n\n[@h1]\n\nx \\foo  [@g2] \n\n [@h2]\n\nx \\foo [@g3]\n[@g4]\n\n[@h3]\n\n"
    "x \\cite[a]\n\n[b]{c} [@h4] and \\foo[a]%c\n[@g5]\n\n[@h5]\n",
    # the old font switches take the text after them as raw TeX, up to a blank line, a "}"
    # closing a group around them, a "{" or "$" that never closes, a block command
    "".join(
        f"x \\{name} y @a{i} [@b{i}], \\cite{{c}} $m$ {{g}} \\def\\z{{w}}\nnext @c{i}\n\n"
        f"x {{\\{name} y}} @d{i} and \\{name} y }} @e{i}\n\nx \\{name} y \\section{{s}} @f{i}\n\n"
        f"x \\{name} y {{ @g{i}\n\nx \\{name} y $ @h{i}\n\nx \\{name}\\em y\n\n@j{i}\n\n"
        for i, name in enumerate(sorted(TEX_DECLARATION_COMMANDS))
    ),
    # a command that takes a group first and has none ends it (its reading fails there)
    "x \\bf y \\footnote z @a1\n\nx \\bf\\gls @a2;\n\nx \\bf\\footnote [@a3]\n\n"
    "x \\bf y \\rule{1pt}{2pt} @a4\n\nx \\bf y \\gls{z} @b1\n\nx \\bf y \\href{u}{t} @b2\n\n"
    "x \\bf y \\texorpdfstring z w @b3\n\nx \\bf y \\hskip 1pt @b4\n",
    # so does one as the argument of a command that takes a character: that command's
    # reading fails (its bracket is text)
    "x \\caption [@a1]\\gls\n\nx \\textgerman [@a2]\\citep\n\nx \\caption[@a3]\\nocite\n\n"
    "x \\emph\\gls @a4\n\nx \\bf y \\cite @a5\n\nx \\caption [@b1]\\textbf{z}\n",
    # and \\endinput the rest of the document
    "x @a1 \\endinput y @b1\n\n# H @b2\n\n- item @b3\n",
    # an "@" right after a command's name is its argument, not after a space or a "*"
    # (but after \\xspace's space in pandoc 3.9)
    "x \\gls @a1, \\section @a2, \\footnote* @a3\n\nx \\footnote*@a4\n\nx \\url*@a5\n\n"
    "x \\emph*@b1 and \\gls@b2\n\nx \\xspace @c1 (3.9 takes it)\n\nx \\xspace*@a6\n",
    # a dimension right after a command's name is its argument when pandoc passes the
    # command on as raw TeX, not when it reads it with a parser of its own: "1pt@a" is text
    "".join(
        f"x \\{name}1pt@a{i} y\n\n"
        for i, name in enumerate(sorted(TEX_PARSED_COMMANDS | {"foo", "label", "mbox"}))
    ),
    # the commands pandoc reads with no argument: a group after them is text
    "".join(
        f"x \\{name}{{@a{i}}} y\n\n" for i, name in enumerate(sorted(TEX_NO_ARGUMENT_COMMANDS))
    ),
    # those that take a character: the one after them (past white space) is theirs
    "".join(
        f"x \\{name} z@a{i} y\n\n" for i, name in enumerate(sorted(TEX_CHARACTER_ARGUMENT_COMMANDS))
    ),
    # those whose braces pandoc parses: a blank line in them makes them text
    "".join(
        f"x \\{name}{{a\n\n@a{i}}}\n\n" for i, name in enumerate(sorted(TEX_NO_BLANK_LINE_COMMANDS))
    ),
    # those a command that takes a character does not take, so that the comment between
    # them is text (but \\endinput, which ends the document, and the definitions of
    # environments, whose "{x}" is not what they take)
    "".join(
        f"x \\emph % @a{i}\n\\{name}{{x}}\n\n"
        for i, name in enumerate(sorted(TEX_NOT_ARGUMENT_COMMANDS - _NOT_ARGUMENT_UNTRIED))
    ),
    # polyglossia's \\textgerman, \\textfrench ... take one option, then one character or
    # group
    "".join(
        f"x \\{name} x@a{i}, \\{name} [x] [@b{i}] and \\{name}{{x}}{{@c{i}}}\n\n"
        for i, name in enumerate(sorted(TEX_LANGUAGE_COMMANDS))
    ),
    # siunitx's \\si, \\SI, \\qtyrange ...: a unit without braces goes on over blank lines
    # (the "#" ends it)
    "".join(
        f"x \\{name}{'{1}' * n} m @a{i}\n\nnext @b{i} # @c{i}\n\n"
        for i, (name, n) in enumerate(sorted(TEX_UNIT_COMMANDS.items()))
    ),
    # what such a unit passes over, and what ends it
    "x \\si m . ~ % c\n @a1 \\\\ \\$ {g} \\bf y\n\nz^2 @a2 $ @b1\n\nx \\si m & @b2\n\n"
    "x \\si m ^2 @b3\n\nx \\si m {y\n\nz} @b4\n\nx \\si m {a $ b} @b5\n\n"
    "x \\si m \\section{s} @b6\n\nx \\si m \\footnote y @b7\n\nx \\si $m$ @b8\n\n"
    "x \\SI 1 m @b9\n",
    # a group that holds no unit is the first part of one without braces; options that are
    # no key=value pairs are text, or a unit's first part
    "x \\si{m } y @a1\n\nx \\si{$m$} y @a2\n\nx \\si{m} y @b1\n\nx \\si{} y @b2\n\n"
    "x \\si{$m$\n\n@b3}\n\nx \\SI{1}[@a3]{m} @b4\n\nx \\SIlist[@b5]{1;2} m @b6\n\n"
    "x \\si[@a4] m @a5\n\nx \\si \\kilo\\metre @a6\n\nx \\emph \\si m @a7\n\n"
    "x \\bf y \\si m\n\nz @a8\n\nx \\emph % @a10\n\\SIrange{1}{2}{m} y\n\n"
    "[@b7 \\si m; @a9]\n",
    # the braces pandoc reads as inline text: a block command, a command whose reading
    # fails or a "$" left open makes the command text
    "".join(
        f"x \\{name}{{@a{i}\\par}} y\n\nx \\{name}{{@b{i}\\gls}} y\n\nx \\{name}{{@c{i} $ d}} y\n\n"
        for i, name in enumerate(sorted(TEX_NO_BLANK_LINE_COMMANDS))
    ),
    # those it reads otherwise, argument by argument: as inline text, as blocks (a blank
    # line and a block command are read there), or passed on whole
    "".join(
        f"x \\{name}"
        + "".join(f"{{@{p}{i}x{j}{inner}}}" if j == k else "{x}" for j in range(len(modes)))
        + " y\n\n"
        for i, (name, modes) in enumerate(sorted(TEX_ARGUMENT_MODES.items()))
        for k in range(len(modes))
        for p, inner in (("a", "\\par"), ("b", "\\gls"), ("c", " $ d"), ("d", "\n\ne"))
    ),
    # and in a font switch's text, a group, a unit's part, other braces
    "x \\bf y {@a1\\par} z\n\nx \\emph{y {@a2 \\gls}} z\n\nx \\emph{y \\footnote{@a3\\gls}} z\n\n"
    "x \\emph{y \\foo{@b1\\gls}} z\n\nx \\footnote{@b2 \\par z}\n\nx \\si{@a4\\gls}\n",
    # code between delimiters is raw TeX (lstinline's and mintinline's over line breaks)
    "x \\lstinline|@a1| y, \\lstinline[language=C]|@a2| and \\lstinline{@a3} z\n\n"
    "x \\Verb|@a4| y \\verb*|@a5| and \\mintinline{py}|@a6|, \\mintinline[x]{py}{@a7}\n\n"
    "x \\mintinline{py} |@b1| y\n\nx \\mintinline{py}|@b2 y\n\nx \\verb|@b3\n| y\n\n"
    "x \\lstinline[@b4]|@b5| y\n",
    # commands whose later arguments may be tokens take one there, past white space and
    # blank lines; at a "}" or the end their reading fails
    "".join(
        f"x \\{name}" + "{x}" * (TEX_GROUP_COUNTS_3_9[name] - 1) + f"@a{i} y\n\n"
        f"x \\{name}{{x}}\n\n@b{i} y\n\nx {{\\{name}{{@c{i}}}}} y\n\n"
        for i, name in enumerate(sorted(TEX_TOKEN_LATER_ARGUMENT_COMMANDS))
    )
    + "x \\texorpdfstring{@e1\\par}\\foo y\n\nx \\href{@d1}",
    # those that take groups only fail with fewer
    "".join(
        f"x \\{name}{{@a{i}}}@b{i} y\n\n" for i, name in enumerate(sorted(TEX_GROUPS_ONLY_COMMANDS))
    ),
    # a command that takes a character and has none (but an accent), or \\hskip no
    # dimension, fails in braces read as text
    "x \\emph{y \\emph} @a1\n\nx \\textbf{@a2 \\textgerman}\n\nx \\caption{@a3\\emph}\n\n"
    "x \\textbf{@a4\\hskip} y\n\nx \\bf\\hskip{z}@a5\n\nx \\textbf{@b1 \\b} and \\emph{@b2 \\v}\n",
    # a command that takes a group first and has none is text to pandoc: its star and what
    # follows are Markdown (after emphasis, "@a" is no citation), but the blocks read with
    # their options (\\usepackage*y*@a cites a)
    "".join(
        f"x \\{name}*y*@a{i};\n\n*\\{name}*@b{i}\n\nx \\{name} -@c{i} y\n\n"
        for i, name in enumerate(
            sorted(
                name
                for name, count in TEX_GROUP_COUNTS_3_9.items()
                if count > 0
                and name not in TEX_TOKEN_ARGUMENT_COMMANDS
                and name not in _NOT_ARGUMENT_UNTRIED
            )
        )
    ),
    # a dimension after a command comes after white space with one line break at most, a
    # comment before it: raw TeX, an "@" right after it cites
    "x \\foo% c\n1pt@a1;\n\nx \\foo % c\n 1pt@a2\n\nx \\foo[o]% c\n1pt@a3 and \\foo% c\n=2.5cm@a4\n\n"
    "x \\hskip% c\n1pt@a5\n\nx \\foo%c\n%d\n1pt@b1\n",
    # a character command with options and no character after them (a "~", a "$" ...)
    # fails as another's argument: the command around is text, its bracket too
    "".join(
        f"x \\caption [@a{i}]\\{name} [@b{i}]~ y\n\nx \\emph \\{name} [@c{i}]$x$\n\n"
        for i, name in enumerate(sorted(TEX_CHARACTER_OPTION_COMMANDS))
    ),
    # in braces read as blocks, a block command that takes a token or groups fails
    # without them, and the command around is text
    "".join(
        f"x \\footnote{{@a{i}\\{name}}} y\n\nx \\footnote{{@b{i}\\{name}"
        + "{y}" * TEX_GROUP_BLOCK_COMMANDS.get(name, 1)
        + "} y\n\n"
        for i, name in enumerate(sorted(TEX_GROUP_BLOCK_COMMANDS.keys() | TEX_TOKEN_BLOCK_COMMANDS))
        # definitions change how pandoc reads the rest of the document, as \\documentclass
        if name not in _DEFINING_BLOCK_COMMANDS
    ),
    # pandoc drops "\\xspace" right after a command: the command reads its arguments after it
    "x \\foo\\xspace [@a1] and \\item\\xspace [@a2]\n\nx \\href\\xspace{x}@a3 y\n\n"
    "x \\footnote\\xspace{@a4} y and \\foo\\xspace\\xspace [@a5]\n\nx \\foo\\xspace% c\n[@a6]\n\n"
    "x \\foo\\xspace{x}@b1 and \\foo\\xspace y [@b2]\n",
    # a raw TeX block in a bracket: pandoc's reading of the bracket's text stops there and
    # drops the rest up to its "]" (a link's, a note's, a group's; not after it)
    "".join(
        f"x [\\{name} @a{i}] y\n\nx [@b{i}; \\{name}*[o] z @c{i}] y\n\n"
        for i, name in enumerate(sorted(TEX_BLOCK_COMMANDS | TEX_RAW_BLOCK_COMMANDS.keys()))
    )
    # those read with their options and groups are none where a "{" there never closes
    + "".join(
        f"x [\\{name}[o] {{y}} @e{i}] y\n\nx [\\{name}{{@f{i}] y\n\n"
        for i, name in enumerate(sorted(TEX_RAW_BLOCK_COMMANDS))
    )
    + "x [a [\\par @d1] c @d2] y\n\nx ^[a \\par @d3] y @d4\n\nx [a \\par @d5](u) and [\\par]@d6\n",
    # commands that are blocks once they take a token: a group, a word, a command
    "".join(
        f"x [\\{name} w @a{i}] y\n\nx [\\{name}[o] {{w}} @b{i}]\n\nx [\\{name} \\foo @c{i}]\n\n"
        f"x [\\{name} $w$ @d{i}]\n\nx [\\{name}~ @e{i}] and [\\{name}{{ @f{i}] y\n\n"
        for i, name in enumerate(sorted(TEX_TOKEN_BLOCK_COMMANDS))
    ),
    # and once they take their groups (those that take one, after options, white space
    # or a comment); fewer, or one left open, and the bracket's text is read on
    "".join(
        f"x [\\{name}"
        + "{y}" * groups
        + f" @a{i}] y\n\nx [\\{name}"
        + "{y}" * (groups - 1)
        + f" @b{i}] y\n\nx [\\{name}"
        + "{y}" * (groups - 1)
        + f"{{y @d{i}] z\n\n"
        + (
            f"x [\\{name}*[o] % c\n {{y}} @c{i}]\n\n"
            if groups == 1 and name not in TEX_GROUP_BLOCK_NO_OPTION_COMMANDS
            else ""
        )
        for i, (name, groups) in enumerate(sorted(TEX_GROUP_BLOCK_COMMANDS.items()))
        if name != "documentclass"  # see below
    )
    + "".join(
        f"x [\\{name}[o]" + "{y}" * TEX_GROUP_BLOCK_COMMANDS[name] + f" @f{i}]\n\n"
        for i, name in enumerate(sorted(TEX_GROUP_BLOCK_NO_OPTION_COMMANDS))
    ),
    # in a bracket, one whose groups pandoc cannot read is none; in a paragraph, those
    # pandoc reads as blocks alone take their groups past a line break and a comment
    "".join(
        f"x [\\{name}"
        + "{y}" * (groups - 1)
        + f"{{@c{i}\\gls}} @d{i}]\n\n"
        + (
            f"x \\{name}" + "{y}" * (groups - 1) + f"\n{{@a{i}}} y\n\n"
            f"x \\{name} % c\n" + "{y}" * groups + f" @b{i}\n\n"
            if name in TEX_BLOCK_ONLY_COMMANDS or name in ("addbibresource", "bibliography")
            else ""
        )
        for i, (name, groups) in enumerate(sorted(TEX_GROUP_BLOCK_COMMANDS.items()))
        if name != "documentclass"
    )
    # past one line break only
    + "x \\section\n % c\n {@e1} y\n\n\\section\n\n [@e2]{x}\n\nx [\\section\n\n{y} @e3]\n",
    # \\documentclass is none where a brace that never closes follows in the document
    # (pandoc 2.17 and 3.9)
    "x [\\documentclass{y} @e1] y\n\nx [\\documentclass[o]{y} z @e2]\n",
    # an environment closed in the bracket, but an inline one (math)
    "".join(
        f"x [\\begin{{{name}}}y\\end{{{name}}} @a{i}] y\n\n"
        for i, name in enumerate(
            [
                "figure",
                "foo",
                "itemize",
                "tabular",
                "verbatim",
                "math",
                "equation*",
                "align",
                "dmath",
                "gather*",
            ]
        )
    )
    + "x [\\begin {foo}y\\end {foo} z @b1] and [\\begin{foo}y\\end{bar} @b2]\n\n"
    "x [\\begin{itemize} @b3] y\n",
    # a raw TeX block ends a paragraph's text, and a block may start after it (an example
    # list); in a pipe table's cell, a term, a line block's line or a title block's field,
    # pandoc drops the rest (a block element's tag alike, in a header row too)
    "a \\par @x1. y\n\nb \\section{s} @x2. y\n\nc \\item @x3. z @c1\n",
    "| x | a \\par @a1 | y @c1 |\n|---|---|---|\n| b @b1 | c \\raggedright @d1 | e @e1 |\n\n"
    "| x | a <div> @a2 | y @c2 |\n|---|---|---|\n| b @b2 | c \\rule{1pt}{2pt} @d2 | e @e2 |\n",
    "term \\par @a1\n:   def @b1\n\nterm \\maketitle @a2\n:   def @b2\n\n"
    "| a \\par @a3\n| b @b3 \\section{x} @a4\n| c @b4\n",
    "% c\\par @a1\n  more @a2\n% d @b1; e \\par @a3; f @a4\n% x @b2\n\ny @b3\n",
    "% c <div> @a1\n  more @a2\n% d @b1\n% x \\begin{e}y\\end{e} @a3\n\ny @b2\n",
    # a raw TeX block that ends a line takes the line break and the next line's white
    # space: a block starts at the next line's text (an example list, a fence; indented,
    # no code), in a block quote and a list item too; not after a blank line
    "a \\par\n@x1. y @a1\n\nb \\section{s}\n  (@x2) y @a2\n\nc \\par\n    z @a3\n\n"
    "d \\par\n~~~\n@c1\n~~~\n\n> e \\par\n> @x3. y @a4\n\n- f \\par\n  @x4. y @a5\n\n"
    "g \\par\n\n@x5. y @a6\n\nh \\par\n<!-- c -->\n@x6. y @a7\n",
    # where a block starts, \newpage, \clearpage, \pagebreak, \hspace and \vspace
    # are raw TeX blocks (in a paragraph's text, inline: no block after them); a setext
    # heading or a table's header row is read first, a definition's term after
    "".join(
        f"\\{name}\n@x{i}. y @a{i}\n\n\\{name}*[o]{{1em}} @y{i}. z @b{i}\n\n"
        f"q \\{name}\n@z{i}. w @c{i}\n\n"
        for i, name in enumerate(sorted(TEX_BLOCK_START_COMMANDS))
    )
    + "\\noindent\n@z8. y\n\n\\index{x}\n@z9. y\n\n"
    "\\newpage\n@x11. y @a11\n\n\\vspace*{1em} @x12. y @a12\n\n> \\clearpage\n> (@x13) y @a13\n\n"
    "\\hspace{1em}\n~~~\n@c1\n~~~\n\n\\newpage @x4 | y @a4\n---|---\na | b\n\n"
    "\\pagebreak @x5. y\n===\n\n\\newpage @x6. [@a5]\n: def @a6\n\n\\par @a7\n: def @a8\n\n"
    "\\emph{x} \\par @a9\n: def @a10\n\na \\newpage\n@x7. y @a11\n\n\\newpage [@c2]\n\n"
    "\\vspace{1em} [@a12]\n",
    # what follows a raw TeX block reads on from there (a command, math)
    "x \\maketitle \\bf @a\n\nx \\maketitle $x @b$ @c\n\nx \\par\\par\\emph{@d} @e\n\n"
    "\\maketitle\\bf\n",
]

#: documents pandoc 3 before 3.8 reads with a citation group whose "]" a braced key's "]"
#: moves, that key in a bracket inside the group (the reader stopped at them)
COUNTED_INNER = [
    "[\n^[@{]}]]",
    "[@a [@{]}]] x",
    "\n[[@`@{]}<](]\n",
    "[[>(@{$]}](]}\n",
    "@{]([[(@{](}](]\n",
]

_MODES = {
    "NormalCitation": "normal",
    "AuthorInText": "in-text",
    "SuppressAuthor": "suppress-author",
}


def _pandoc_cites(program: str, directory: Path) -> Counter[tuple[str, str]]:
    run = subprocess.run(
        [program, "-f", "markdown", "-t", "json", "doc.md"],
        cwd=directory,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    found: Counter[tuple[str, str]] = Counter()
    for node in differential.cite_nodes(json.loads(run.stdout)):
        for citation in node["c"][0]:
            found[citation["citationId"], _MODES[citation["citationMode"]["t"]]] += 1
    return found


def _our_cites(directory: Path, version: str) -> Counter[tuple[str, str]]:
    ws = Workspace(Settings(pandoc_version=version), root=directory)
    path = ws.add_file(directory / "doc.md")
    ws.projects()
    doc = ws.document(path)
    assert doc is not None
    return Counter((c.key, c.command) for c in doc.citations if c.command in _MODES.values())


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("text", CASES + ALIKE)
def test_each_version_cites_what_pandoc_of_that_version_cites(
    tmp_path: Path, version: str, text: str
) -> None:
    program = _pandoc(version)
    (tmp_path / "doc.md").write_text(text, encoding="utf-8")
    assert _our_cites(tmp_path, version) == _pandoc_cites(program, tmp_path)


def test_the_cases_tell_the_versions_apart(tmp_path: Path) -> None:
    """Each case is read otherwise by some version (else it tests nothing here)."""
    programs = {version: _pandoc(version) for version in VERSIONS}
    for text in CASES:
        (tmp_path / "doc.md").write_text(text, encoding="utf-8")
        readings = {version: _pandoc_cites(p, tmp_path) for version, p in programs.items()}
        assert len({tuple(sorted(r.items())) for r in readings.values()}) > 1, text


def test_the_cases_are_read_again_for_each_version() -> None:
    """No case is taken to read alike in every version (the project reads it once)."""
    assert [text for text in CASES if reads_alike(text)] == []


def test_a_changed_setting_reads_the_document_again(tmp_path: Path) -> None:
    (tmp_path / "doc.md").write_text("Braced [@{a]b}] and -@c.\n", encoding="utf-8")
    ws = Workspace(Settings(pandoc_version="3.6.1"), root=tmp_path)
    path = ws.add_file(tmp_path / "doc.md")

    def cites() -> list[tuple[str, str]]:
        ws.projects()
        doc = ws.document(path)
        assert doc is not None
        return [(c.key, c.command) for c in doc.citations]

    assert cites() == [("c", "suppress-author")]
    ws.set_settings(Settings(pandoc_version="2.17"))
    assert cites() == [("a]b", "normal"), ("c", "in-text")]
    ws.set_settings(Settings(pandoc_version="3.9"))
    assert cites() == [("a]b", "normal"), ("c", "suppress-author")]


def test_the_generated_documents_reach_what_the_versions_read_otherwise() -> None:
    seeds = range(2000, 2200)
    classes = {
        differential.key_class(key)
        for seed in seeds
        for key in differential.GENERATED_KEY.findall(differential.markdown_case(seed).text)
    }
    assert {"bracedopen", "afteropen", "bracedend", "baresuppress", "exlabel"} <= classes
    assert {"noteref", "noteprefix", "nocitecode", "braced"} <= classes


@pytest.mark.parametrize("version", VERSIONS)
def test_generated_documents_cite_what_each_version_reads(version: str) -> None:
    """The seeded documents of the Markdown differential, with each version as the
    oracle (the system's pandoc runs more of them in test_differential.py)."""
    tally = differential.run_markdown(range(2000, 2200), budget=15, pandoc=_pandoc(version))
    assert tally.cases >= 20, "too few cases ran in the time budget"
    assert tally.classes == {}, tally.summary()


#: metadata read alike by every version, where citewarden read otherwise before
ALIKE_METADATA = [
    "---\nnocite: '`@a` @b'\nabstract: See [@c] and `@d`, ``@e ` x``.\n---\n\nText.\n",
    "---\nnocite: '@b'\ntitle: On @t\n---\n\nText.\n\n---\nnocite: '@c'\n---\n",
    # a metadata string is read as a Markdown document once YAML has made its value:
    # escapes decoded, blocks, code, math, comments and raw TeX as in the text
    '---\nabstract: "Escaped \\u0040y10 here, \\x40y11"\nkeywords: "\\\\@y27 and \\"@y28\\""\n---\n',
    "---\nabstract: |\n  See the code:\n\n      @y14 indented code\n\n  ```\n  @y15 fenced\n  ```\n\n"
    "  and $@y16$ math and <!-- @y17 --> and \\emph{@y18}, but @y19.\n---\n\nBody.\n",
    "---\nabstract: |\n  - item `a\n  - item @k22 `b`\n\n  [^1]: unreferenced @n5\n\n"
    "  Uses[^2].\n\n  [^2]: referenced @k23\n---\n",
    "---\nthanks: 'Single ''@y11'' quoted'\nsubtitle: \"one\n  @y12 two\\\n  @y13\"\n---\n",
    # a later metadata block's field replaces an earlier block's value
    "---\nabstract: see @m1\ntitle: On @m2\n---\n\nText @m3.\n\n---\nabstract: see @m4\n---\n\n"
    "---\nabstract: again @m5\nother:\n  deep: see @m6\n---\n\n---\nother: plain\n---\n",
]


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("text", ALIKE_METADATA)
def test_each_version_cites_the_metadata_pandoc_cites(
    tmp_path: Path, version: str, text: str
) -> None:
    program = _pandoc(version)
    (tmp_path / "doc.md").write_text(text, encoding="utf-8")
    ws = Workspace(Settings(pandoc_version=version), root=tmp_path)
    path = ws.add_file(tmp_path / "doc.md")
    ws.projects()
    doc = ws.document(path)
    assert doc is not None
    assert {c.key for c in doc.citations} == {key for key, _ in _pandoc_cites(program, tmp_path)}


@pytest.mark.parametrize("text", COUNTED_INNER)
def test_pandoc_3_reads_a_group_ended_by_a_key_in_an_inner_bracket(
    tmp_path: Path, text: str
) -> None:
    (tmp_path / "doc.md").write_text(text, encoding="utf-8")
    doc = parse_markdown(tmp_path / "doc.md", text, PANDOC_3)
    ours = Counter((c.key, c.command) for c in doc.citations if c.command in _MODES.values())
    assert ours == _pandoc_cites(_pandoc("3.6.1"), tmp_path)


def test_a_comment_in_a_list_is_read_again_for_another_version(tmp_path: Path) -> None:
    """pandoc before 3.9 reads an HTML comment opened in a list item over the items after
    it, 3.9 ends it at the next item: a changed version reads the document again."""
    (tmp_path / "doc.md").write_text("- item <!-- a\n- item @q8 -->\n", encoding="utf-8")
    ws = Workspace(Settings(pandoc_version="3.6.1"), root=tmp_path)
    path = ws.add_file(tmp_path / "doc.md")

    def cites() -> list[str]:
        ws.projects()
        doc = ws.document(path)
        assert doc is not None
        return [c.key for c in doc.citations]

    assert cites() == []
    ws.set_settings(Settings(pandoc_version="3.9"))
    assert cites() == ["q8"]
