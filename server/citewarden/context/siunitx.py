"""siunitx's numbers and units as the document typesets them (pure): ``\\SI{5}{\\kilo\\gram}``
and ``\\qty{5}{\\kilo\\gram}`` read ``5 kg``, ``\\si{\\metre\\per\\second}`` and ``\\unit``
``m s⁻¹`` (siunitx's default ``per-mode = power``), ``\\num{1.5e-3}`` ``1.5 × 10⁻³``,
``\\SIrange{1}{5}{\\metre}`` ``1 m to 5 m``, ``\\numlist{1;2;3}`` ``1, 2 and 3`` and
``\\ang{30}`` ``30°``.  The SI prefixes, base and derived units and the common units
accepted with them are read; an unknown unit command shows nothing, a literal unit
(``{km/h}``) shows as written (``.`` and ``~`` between its parts a space).  Options
(``[per-mode=symbol]``) are not read.
"""

from __future__ import annotations

import re

_PREFIXES = {
    "quecto": "q", "ronto": "r", "yocto": "y", "zepto": "z", "atto": "a", "femto": "f",
    "pico": "p", "nano": "n", "micro": "µ", "milli": "m", "centi": "c", "deci": "d",
    "deca": "da", "deka": "da", "hecto": "h", "kilo": "k", "mega": "M", "giga": "G",
    "tera": "T", "peta": "P", "exa": "E", "zetta": "Z", "yotta": "Y", "ronna": "R",
    "quetta": "Q", "kibi": "Ki", "mebi": "Mi", "gibi": "Gi", "tebi": "Ti",
}  # fmt: skip
_UNITS = {
    "metre": "m", "meter": "m", "gram": "g", "second": "s", "ampere": "A", "kelvin": "K",
    "mole": "mol", "candela": "cd", "hertz": "Hz", "newton": "N", "pascal": "Pa",
    "joule": "J", "watt": "W", "coulomb": "C", "volt": "V", "farad": "F", "ohm": "Ω",
    "siemens": "S", "weber": "Wb", "tesla": "T", "henry": "H", "degreeCelsius": "°C",
    "celsius": "°C", "lumen": "lm", "lux": "lx", "becquerel": "Bq", "gray": "Gy",
    "sievert": "Sv", "katal": "kat", "radian": "rad", "steradian": "sr", "litre": "L",
    "liter": "L", "hour": "h", "minute": "min", "day": "d", "hectare": "ha", "tonne": "t",
    "electronvolt": "eV", "dalton": "Da", "bit": "bit", "byte": "B", "percent": "%",
    "degree": "°", "arcminute": "′", "arcsecond": "″", "decibel": "dB", "bel": "B",
    "neper": "Np", "astronomicalunit": "au", "angstrom": "Å", "bar": "bar", "barn": "b",
    "knot": "kn", "mmHg": "mmHg", "atomicmassunit": "u", "clight": "c",
}  # fmt: skip
_POWERS = {"squared": "²", "cubed": "³", "square": "²", "cubic": "³"}
_SUPERSCRIPT = str.maketrans("0123456789-+", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺")

_ARG = r"\{((?:[^{}]|\{[^{}]*\}){0,300})\}"
_OPT = r"(?:\s*\[[^\[\]]{0,200}\])?"
#: a command of siunitx with its options and as many arguments as it reads
_COMMAND = re.compile(
    r"\\(?:(num|numlist|si|unit|ang)|(SI|qty|numrange|SIlist|qtylist)|(SIrange|qtyrange))"
    r"(?![A-Za-z@])"
    + _OPT
    + r"\s*"
    + _ARG
    + r"(?(2)"
    + _OPT
    + r"\s*"
    + _ARG
    + r"|(?(3)\s*"
    + _ARG
    + r"\s*"
    + _ARG
    + r"|))"
)
_TOKEN = re.compile(r"\\([A-Za-z]+)(?:\s*\{([^{}]{0,20})\})?|([^\\]+)")
_EXPONENT = re.compile(r"(?<=[\d.])\s*[eEdD]\s*([-+]?\d+)")
#: how many arguments each command reads (after the first): numbers, then the unit
_SHAPE = {
    "SI": (1, True), "qty": (1, True), "SIrange": (2, True), "qtyrange": (2, True),
    "SIlist": (1, True), "qtylist": (1, True), "num": (1, False), "numrange": (2, False),
    "numlist": (1, False), "si": (0, True), "unit": (0, True), "ang": (1, False),
}  # fmt: skip


def unit_text(unit: str) -> str:
    """A siunitx unit as typeset: ``\\kilo\\metre\\per\\second`` -> ``km s⁻¹``."""
    parts: list[str] = []
    prefix = power = ""
    inverse = False
    for m in _TOKEN.finditer(unit):
        name, arg, literal = m.groups()
        if literal is not None:
            text = literal.replace("~", " ").replace(".", " ").strip()
            if text:
                parts.append(prefix + text)
                prefix = ""
        elif name in _PREFIXES:
            prefix += _PREFIXES[name]
        elif name == "per":
            inverse = True
        elif name in ("square", "cubic"):
            power = _POWERS[name]
        elif name in ("squared", "cubed") and parts:
            parts[-1] = _raised(parts[-1], _POWERS[name])
        elif name in ("tothe", "raiseto") and arg and parts:
            parts[-1] = _raised(parts[-1], arg.strip().translate(_SUPERSCRIPT))
        elif name in _UNITS:
            symbol = prefix + _UNITS[name] + power
            parts.append(_raised(symbol, "⁻¹") if inverse else symbol)
            prefix = power = ""
            inverse = False
    return " ".join(parts)


def _raised(symbol: str, power: str) -> str:
    """``symbol`` to ``power`` (``s⁻¹`` squared is ``s⁻²``)."""
    if symbol.endswith("⁻¹"):
        return symbol[:-2] + "⁻" + power
    return symbol + power


def number_text(number: str) -> str:
    """A siunitx number as typeset: ``1.5e-3`` -> ``1.5 × 10⁻³``, ``+-`` -> ``±``."""
    text = " ".join(number.replace("+-", " ± ").replace("\\pm", " ± ").split())
    return _EXPONENT.sub(lambda m: " × 10" + m.group(1).lstrip("+").translate(_SUPERSCRIPT), text)


def _listed(numbers: str) -> list[str]:
    return [number_text(n) for n in numbers.split(";") if n.strip()]


def _joined(items: list[str]) -> str:
    """``1, 2 and 3``, as siunitx lists."""
    return items[0] if len(items) < 2 else ", ".join(items[:-1]) + " and " + items[-1]


def _typeset(m: re.Match[str]) -> str:
    name = m.group(1) or m.group(2) or m.group(3)
    args = [a for a in m.groups()[3:] if a is not None]
    numbers, with_unit = _SHAPE[name]
    unit = unit_text(args[numbers]) if with_unit else ""
    values = args[:numbers]

    def quantity(n: str) -> str:
        return f"{n} {unit}" if unit else n

    if name in ("si", "unit"):
        return f" {unit} "
    if name == "ang":
        return f" {number_text(values[0])}° "
    if name.endswith("range"):
        return f" {quantity(number_text(values[0]))} to {quantity(number_text(values[1]))} "
    if name.endswith("list"):
        return f" {_joined([quantity(n) for n in _listed(values[0])])} "
    return f" {quantity(number_text(values[0]))} "


def siunitx_plain(text: str) -> str:
    """``text`` with each siunitx command as the words it typesets."""
    if "\\" not in text:
        return text
    return _COMMAND.sub(_typeset, text)
