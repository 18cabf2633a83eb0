"""Joda-Time date patterns (what Hudi's timestamp key generator is configured with) as Spark patterns.

Hudi 0.14 formats and parses timestamp partition values with Joda-Time
(``DateTimeFormat.forPattern``). Spark 3+ uses its own ``java.time``-based patterns. The two
agree on the common letters (``yyyy MM dd HH mm ss SSS``), but differ elsewhere:

* Joda treats every non-letter as literal text; for ``java.time`` the characters ``[ ] { } #``
  are syntax (optional sections, reserved). So literal text is always emitted quoted.
* Joda ``Y`` (year of era) is Spark ``y``; Joda ``ZZ`` (``+08:00``) is Spark ``xxx``; Joda
  ``ZZZ`` (zone id) is Spark ``VV``.
* Joda ``C`` (century), ``x`` (week year), ``w`` (week of week year) and ``e`` (day of week
  number) have no Spark equivalent and are refused.
"""

from __future__ import annotations

__all__ = ["has_zone_field", "joda_to_spark_pattern"]

from hudi_sql.config.table import HudiTableConfig
from hudi_sql.errors import HudiConfigError

# Joda letter -> Spark letter, for letters whose count carries over unchanged.
_SAME_COUNT: dict[str, str] = {
    "G": "G",
    "y": "y",
    "Y": "y",
    "M": "M",
    "d": "d",
    "D": "D",
    "E": "E",
    "a": "a",
    "H": "H",
    "h": "h",
    "k": "k",
    "K": "K",
    "m": "m",
    "s": "s",
    "S": "S",
    "z": "z",
}
_UNSUPPORTED: dict[str, str] = {
    "C": "century of era",
    "x": "week year",
    "w": "week of week year",
    "e": "day of week (number)",
}
_ZONE_LETTERS = frozenset("zZ")


def _quote(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _tokens(pattern: str) -> list[tuple[str, str]]:
    """Split a Joda pattern into ("field", letters) and ("text", literal) tokens."""
    tokens: list[tuple[str, str]] = []
    i = 0
    n = len(pattern)
    while i < n:
        ch = pattern[i]
        if ch.isascii() and ch.isalpha():
            j = i
            while j < n and pattern[j] == ch:
                j += 1
            tokens.append(("field", pattern[i:j]))
            i = j
        elif ch == "'":
            if i + 1 < n and pattern[i + 1] == "'":
                tokens.append(("text", "'"))
                i += 2
                continue
            j = i + 1
            text: list[str] = []
            while j < n:
                if pattern[j] == "'":
                    if j + 1 < n and pattern[j + 1] == "'":
                        text.append("'")
                        j += 2
                        continue
                    break
                text.append(pattern[j])
                j += 1
            else:
                raise HudiConfigError(f"Date pattern {pattern!r} has an unterminated quote.")
            tokens.append(("text", "".join(text)))
            i = j + 1
        else:
            tokens.append(("text", ch))
            i += 1
    return tokens


def joda_to_spark_pattern(pattern: str) -> str:
    """The Spark datetime pattern that formats and parses like Joda's *pattern*.

    Raises:
        HudiConfigError: the pattern is empty, has an unterminated quote, or uses a Joda letter
            Spark has no equivalent for.
    """
    if not pattern.strip():
        raise HudiConfigError(
            "A timestamp key generator date format is empty.",
            help=f"set e.g. {HudiTableConfig.TIMESTAMP_OUTPUT_FORMAT.key}=yyyy/MM/dd",
        )
    out: list[str] = []
    literal: list[str] = []
    for kind, value in _tokens(pattern):
        if kind == "text":
            literal.append(value)
            continue
        if literal:
            out.append(_quote("".join(literal)))
            literal = []
        letter, count = value[0], len(value)
        if letter in _SAME_COUNT:
            out.append(_SAME_COUNT[letter] * count)
        elif letter == "Z":
            out.append("Z" if count == 1 else "xxx" if count == 2 else "VV")
        elif letter in _UNSUPPORTED:
            raise HudiConfigError(
                f"Date pattern {pattern!r} uses '{letter}' ({_UNSUPPORTED[letter]}), "
                "which Spark cannot format.",
                help="use y, M, d, H, m, s, S and literal text",
            )
        else:
            raise HudiConfigError(f"Date pattern {pattern!r} has an illegal pattern letter '{letter}'.")
    if literal:
        out.append(_quote("".join(literal)))
    return "".join(out)


def has_zone_field(pattern: str) -> bool:
    """Whether a Joda pattern reads or prints a zone or offset (then it, not a setting, gives the zone)."""
    return any(kind == "field" and value[0] in _ZONE_LETTERS for kind, value in _tokens(pattern))
