"""Deterministic number and text formatting for the generated LaTeX.

Every number that reaches the paper goes through here, so that the same data always gives
the same characters: a value with a confidence interval is rounded to two significant digits
of the CI half-width and the mean to the same decimal place (the usual reporting convention);
a value without one keeps three significant digits. Formatting uses Python's `format`, never
locale-dependent code, and "-0" is written as "0".
"""

from __future__ import annotations

import math
import re

from vbench.wording import platform_label

#: What a cell or macro shows when there is no data for it.
NOT_MEASURED = r"\textemdash"
NOT_MEASURED_TEXT = r"\emph{not measured}"

#: siunitx spelling of vbench's units (vbench.samples.UNITS); "" means a plain number.
SI_UNITS = {
    "s": r"\second",
    "ms": r"\milli\second",
    "us": r"\micro\second",
    "ns": r"\nano\second",
    "B": r"\byte",
    "KiB": r"\kibi\byte",
    "MiB": r"\mebi\byte",
    "GiB": r"\gibi\byte",
    "B/s": r"\byte\per\second",
    "KiB/s": r"\kibi\byte\per\second",
    "MiB/s": r"\mebi\byte\per\second",
    "GiB/s": r"\gibi\byte\per\second",
    "MB/s": r"\mega\byte\per\second",
    "GB/s": r"\giga\byte\per\second",
    "bit/s": r"\bit\per\second",
    "Mbit/s": r"\mega\bit\per\second",
    "Gbit/s": r"\giga\bit\per\second",
    "ops/s": r"ops\per\second",
    "IOPS": r"IOPS",
    "events/s": r"events\per\second",
    "files/s": r"files\per\second",
    "tps": r"ops\per\second",
    "%": r"\percent",
    "count": "",
    "ratio": "",
}

_LATEX_SPECIAL = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}
_DIGIT_WORDS = ["Zero", "One", "Two", "Three", "Four", "Five", "Six", "Seven", "Eight", "Nine"]


def tex_escape(text: object) -> str:
    """Plain text safe inside LaTeX (special characters escaped)."""
    return "".join(_LATEX_SPECIAL.get(ch, ch) for ch in str(text))


def code_tex(text: object) -> str:
    """A command as the paper prints it, in typewriter type: escaped, and each "--" of an option kept
    two hyphens ("-{}-"), which LaTeX would otherwise set as an en dash. Pure."""
    return rf"\texttt{{{tex_escape(text).replace('--', '-{}-')}}}"


def configuration_tex(config: object) -> str:
    """A configuration as the paper prints it (`vbench.wording.platform_label`: "LXC", the A/A
    copy `native~aa` as "native (A/A copy)"), safe inside LaTeX."""
    return tex_escape(platform_label(str(config)))


def and_list(items: list[str]) -> str:
    """ "a", "a and b", "a, b and c": a list as a sentence names it."""
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def macro_name(*parts: str) -> str:
    """A LaTeX control-sequence name (letters only) from parts: ("tera_sort", "lxc") -> "vbTeraSortLxc"."""
    out = ["vb"]
    for part in parts:
        for word in re.split(r"[^A-Za-z0-9]+", str(part)):
            if not word:
                continue
            word = "".join(_DIGIT_WORDS[int(c)] if c.isdigit() else c for c in word)
            out.append(word[0].upper() + word[1:])
    return "".join(out)


def _is_number(x) -> bool:
    try:
        return x is not None and not (isinstance(x, float) and math.isnan(x)) and math.isfinite(float(x))
    except (TypeError, ValueError):
        return False


def decimals_for(half_width: float, sig: int = 2) -> int:
    """Decimal places that keep `sig` significant digits of `half_width` (negative: tens, hundreds...)."""
    if half_width <= 0:
        return 0
    return sig - 1 - int(math.floor(math.log10(half_width)))


def _fixed(x: float, decimals: int) -> str:
    if decimals < 0:
        q = 10 ** (-decimals)
        x = round(x / q) * q
        decimals = 0
    s = format(round(x, decimals), f".{decimals}f")
    if re.fullmatch(r"-0(\.0*)?", s):
        s = s[1:]
    return s


def sig_digits(x: float, sig: int = 3) -> str:
    """`x` with `sig` significant digits, fixed-point (no exponent)."""
    if x == 0:
        return "0"
    decimals = sig - 1 - int(math.floor(math.log10(abs(x))))
    return _fixed(x, min(max(decimals, -15), 12))


def pm_parts(mean, low=None, high=None) -> tuple[str, str | None]:
    """(mean text, half-width text or None) with the rounding rule of the module docstring."""
    if not _is_number(mean):
        raise ValueError("pm_parts needs a number")
    mean = float(mean)
    if _is_number(low) and _is_number(high) and float(high) > float(low):
        half = (float(high) - float(low)) / 2.0
        d = min(decimals_for(half), 12)
        if abs(float(_fixed(half, d))) >= 10 ** (2 - d):  # 9.98 rounds to 10.0: keep two digits, "10"
            d -= 1
        return _fixed(mean, d), _fixed(half, d)
    if _is_number(low) and _is_number(high):  # zero-width interval
        return sig_digits(mean), "0"
    return sig_digits(mean), None


def num_pm(mean, low=None, high=None) -> str:
    """siunitx number "mean +/- half-width" (\\num{...}); no CI gives the bare mean with a dagger."""
    if not _is_number(mean):
        return NOT_MEASURED
    m, h = pm_parts(mean, low, high)
    if h is None:
        return rf"\num{{{m}}}$^\dagger$"
    return rf"\num{{{m} \pm {h}}}"


def qty_pm(mean, low, high, unit: str, single: str = "$^\\dagger$") -> str:
    """Like `num_pm`, with the unit (\\qty) when there is one; `single` marks a value without interval."""
    if not _is_number(mean):
        return NOT_MEASURED_TEXT
    si = SI_UNITS.get(unit, None)
    m, h = pm_parts(mean, low, high)
    body = m if h is None else f"{m} \\pm {h}"
    dagger = single if h is None else ""
    if si is None:
        return rf"\num{{{body}}}~{tex_escape(unit)}{dagger}"
    if not si:
        return rf"\num{{{body}}}{dagger}"
    return rf"\qty{{{body}}}{{{si}}}{dagger}"


def unit_tex(unit: str) -> str:
    """The unit alone, for table headers: \\unit{...} (or escaped text for unknown units)."""
    si = SI_UNITS.get(unit)
    if si is None:
        return tex_escape(unit)
    return rf"\unit{{{si}}}" if si else ""


def interval_text(estimate, low, high, *, scale: float = 1.0, offset: float = 0.0, sig: int = 2) -> str:
    """ "est [low, high]" for asymmetric intervals (ratios); numbers rounded to a common decimal place.

    `scale`/`offset` convert (e.g. ratio -> percent: scale 100, offset -100)."""
    if not _is_number(estimate):
        return NOT_MEASURED
    e = float(estimate) * scale + offset
    if _is_number(low) and _is_number(high):
        lo, hi = float(low) * scale + offset, float(high) * scale + offset
        width = (hi - lo) / 2.0
        d = min(decimals_for(width, sig), 12) if width > 0 else 3
        if offset == 0 and lo > 0 and float(_fixed(lo, d)) == 0:
            # A ratio's interval on a log scale reaches far up and a little down (4.1 [0.40, 42]):
            # its low limit keeps one significant digit, never "0", which no ratio can be.
            d = min(decimals_for(lo, 1), 12)
        if offset == 0 and scale == 1.0:
            # A ratio's interval that excludes 1 never reads as if it held it ("[1.00, 1.20]" of a
            # low limit 1.002): its limit nearest 1 keeps the decimals that show its side.
            for limit, side in ((lo, 1.0), (hi, -1.0)):
                while d < 6 and (limit - 1.0) * side > 0 and float(_fixed(limit, d)) == 1.0:
                    d += 1
        return rf"\num{{{_fixed(e, d)}}} [\num{{{_fixed(lo, d)}}}, \num{{{_fixed(hi, d)}}}]"
    return rf"\num{{{sig_digits(e)}}}$^\dagger$"


#: Multiples a reader says in words ("twice", "three times"); larger ones read better as digits.
_TIMES_WORDS = {
    2: "twice",
    3: "three times",
    4: "four times",
    5: "five times",
    6: "six times",
    7: "seven times",
    8: "eight times",
    9: "nine times",
    10: "ten times",
}
#: How far from a whole multiple a ratio may be and still be "about" it (3.13 is about three times).
TIMES_TOLERANCE = 0.15


def times_text(ratio: float) -> str:
    """A ratio of 2 or more as a reader says it: "about three times" (3.13), "2.5 times", "12 times"
    (12.3). A 213 % overhead makes a reader do the sum; a multiple does not."""
    r = float(ratio)
    if not math.isfinite(r) or r < 2:
        raise ValueError(f"times_text is for ratios of 2 or more, not {ratio!r}")
    whole = round(r)
    if whole in _TIMES_WORDS and abs(r - whole) <= TIMES_TOLERANCE:
        return f"about {_TIMES_WORDS[whole]}"
    return f"{sig_digits(r, 2)} times"


def plain_number(x, sig: int = 6) -> str:
    """A published or configured value as typed in its source: integers stay integers, others keep
    up to `sig` significant digits without trailing zeros (43.795 -> "43.795", 1.02 -> "1.02")."""
    if not _is_number(x):
        return NOT_MEASURED
    x = float(x)
    if x.is_integer() and abs(x) < 1e15:
        return str(int(x))
    text = sig_digits(x, sig)
    return text.rstrip("0").rstrip(".") if "." in text else text


_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([KMGT]i?B)?\s*$", re.I)
_SCALE_MB = {"KB": 1 / 1024, "KIB": 1 / 1024, "MB": 1, "MIB": 1, "GB": 1024, "GIB": 1024, "TB": 1024**2, "TIB": 1024**2}


def size_mb(label: str) -> float | None:
    """ "64MB" -> 64, "2GB" -> 2048, "64" -> 64 (a bare number is taken as MB); None if not a size."""
    m = _SIZE.match(str(label))
    if not m:
        return None
    return float(m[1]) * _SCALE_MB[(m[2] or "MB").upper()]


def size_display(label: str) -> str:
    """A data size for people: 64MB -> "64 MB", 2048MB -> "2 GB"; other labels (bare numbers too) unchanged."""
    mb = size_mb(label) if re.search(r"[KMGT]i?B\s*$", str(label), re.I) else None
    if mb is None:
        return str(label)
    for unit, factor in (("TB", 1024**2), ("GB", 1024)):
        if mb >= factor and (mb / factor).is_integer():
            return f"{int(mb / factor)} {unit}"
    return f"{plain_number(mb)} MB"


def digits_display(n) -> str:
    """Pi digits: 1000000 -> "1M", 100000 -> "100k"."""
    n = int(float(n))
    if n % 1_000_000 == 0:
        return f"{n // 1_000_000}M"
    if n % 1000 == 0:
        return f"{n // 1000}k"
    return str(n)
