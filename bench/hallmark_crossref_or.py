"""A copy of the HALLMARK dev harness whose Crossref ORs repeated filters, as Crossref does.

Crossref answers ``/works?filter=doi:a,doi:b`` with every work whose DOI is a *or* b: values
of one filter name are ORed, different names ANDed (Crossref's REST API tracker records
this as the production behaviour, gitlab.com/crossref/rest_api issue 160; the plan sends
20 DOIs a request so).  The harness's replay ANDs every filter, so each batch of two DOIs
or more comes back empty there and its DOIs are asked one by one.  This copies the harness
into a temporary folder and changes its replay in exactly that: same-name values of
``/works`` filters (``doi:``, ``updates:``) are ORed.  Nothing else of the replay changes;
its records are read from the shared corpus as before (``CITEWARDEN_EVAL_CORPUS``).

Used by ``bench/verify_bench.py --hallmark --hallmark-crossref-or``.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

#: The joint of same-name values carried as one (no filter value holds it).
JOINT = "\x1f"
#: (text of the shipped replay, its replacement); each must be found exactly as written.
PATCHES = (
    (
        '        for flt in (self.q1(qs, "filter") or "").split(","):\n'
        "            if not flt:\n"
        "                continue\n"
        '            name, _, val = flt.partition(":")\n'
        '            if name == "updates":\n'
        "                notices = st.updates.get(val.lower(), {})\n",
        '        for flt in _ored_filters(self.q1(qs, "filter") or ""):\n'
        "            if not flt:\n"
        "                continue\n"
        '            name, _, val = flt.partition(":")\n'
        '            if name == "updates":\n'
        "                notices = {k: r for v in val.split(JOINT)\n"
        "                           for k, r in st.updates.get(v.lower(), {}).items()}\n",
    ),
    (
        "    def _cr_filter(self, d, name, val):\n",
        "    def _cr_filter(self, d, name, val):\n"
        "        if JOINT in val:\n"
        "            return any(self._cr_filter(d, name, v) for v in val.split(JOINT))\n",
    ),
)
#: Put before the replay's first class: the joint and the merging of same-name values.
HELPERS = f'''
JOINT = {JOINT!r}


def _ored_filters(text):
    """Crossref's filters with the values of a repeated name joined (ORed)."""
    merged = {{}}
    for flt in text.split(","):
        if flt:
            name, _, val = flt.partition(":")
            merged.setdefault(name, []).append(val)
    return [f"{{name}}:{{JOINT.join(vals)}}" for name, vals in merged.items()]

'''


def ored_copy(harness: Path, into: Path) -> Path:
    """A copy of ``harness`` in ``into`` whose replay ORs Crossref's repeated filters; the
    environment variable that points its records at the shared corpus is set."""
    target = into / "hallmark-dev"
    shutil.copytree(harness, target, ignore=shutil.ignore_patterns("__pycache__"))
    replay = target / "replay_server.py"
    text = replay.read_text(encoding="utf-8")
    for old, new in PATCHES:
        if text.count(old) != 1:
            raise RuntimeError(
                "the harness's replay has changed: the Crossref filter loop is not found"
            )
        text = text.replace(old, new)
    first_class = text.index("\nclass ")
    text = text[:first_class] + HELPERS + text[first_class:]
    replay.write_text(text, encoding="utf-8")
    corpus = (harness / ".." / ".." / "corpus" / "api").resolve()
    os.environ.setdefault("CITEWARDEN_EVAL_CORPUS", str(corpus))
    return target
