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

Parsing differs from printing for offsets. Joda's ``Z`` and ``ZZ`` differ only in what they
print (``+0000``, ``+00:00``); both parse ``Z`` (any case) for zero and a signed offset with or
without colons: ``+05``, ``+0530``, ``+05:30``, ``+053015``, ``+05:30:15``
(``DateTimeFormatterBuilder.TimeZoneOffset.parseInto``). No one Spark letter parses all of
these, so :func:`joda_to_spark_parse_patterns` gives the Spark patterns that together do, one
per offset form: ``X`` (``Z``, ``+05``, ``+0530``), ``XXXX`` (``+053015``) and ``XXXXX``
(``+05:30``, ``+05:30:15``). A fractional-second offset (``+05:30:15.123``), which Joda also
reads, parses with none of them: the value is reported as unparseable, never misread.
"""

from __future__ import annotations

__all__ = ["has_zone_field", "joda_to_spark_parse_patterns", "joda_to_spark_pattern"]

import itertools

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
    """The Spark datetime pattern that formats like Joda's *pattern* (and parses like it, but for
    the offset forms of :func:`joda_to_spark_parse_patterns`).

    Raises:
        HudiConfigError: the pattern is empty, has an unterminated quote, or uses a Joda letter
            Spark has no equivalent for.
    """
    return "".join(piece for (piece,) in _spark_pieces(pattern, parse=False))


def joda_to_spark_parse_patterns(pattern: str) -> tuple[str, ...]:
    """Spark patterns that together parse what Joda's *pattern* parses: try each, first match wins.

    One pattern unless *pattern* has an offset field (``Z``, ``ZZ``); then one per combination
    of the offset forms Joda accepts (module doc), in a fixed order.

    Raises:
        HudiConfigError: as :func:`joda_to_spark_pattern`.
    """
    return tuple("".join(choice) for choice in itertools.product(*_spark_pieces(pattern, parse=True)))


# Spark letters that parse, between them, every offset Joda's ``Z`` / ``ZZ`` reads.
_OFFSET_PARSE_FORMS = ("X", "XXXX", "XXXXX")


def _spark_pieces(pattern: str, *, parse: bool) -> list[tuple[str, ...]]:
    """The Spark rendering of each token of *pattern*: a piece with its alternatives (several only
    for an offset field when *parse*)."""
    if not pattern.strip():
        raise HudiConfigError(
            "A timestamp key generator date format is empty.",
            help=f"set e.g. {HudiTableConfig.TIMESTAMP_OUTPUT_FORMAT.key}=yyyy/MM/dd",
        )
    out: list[tuple[str, ...]] = []
    literal: list[str] = []
    for kind, value in _tokens(pattern):
        if kind == "text":
            literal.append(value)
            continue
        if literal:
            out.append((_quote("".join(literal)),))
            literal = []
        letter, count = value[0], len(value)
        if letter in _SAME_COUNT:
            out.append((_SAME_COUNT[letter] * count,))
        elif letter == "Z" and count <= 2:
            out.append(_OFFSET_PARSE_FORMS if parse else ("Z" if count == 1 else "xxx",))
        elif letter == "Z":
            out.append(("VV",))
        elif letter in _UNSUPPORTED:
            raise HudiConfigError(
                f"Date pattern {pattern!r} uses '{letter}' ({_UNSUPPORTED[letter]}), "
                "which Spark cannot format.",
                help="use y, M, d, H, m, s, S and literal text",
            )
        else:
            raise HudiConfigError(f"Date pattern {pattern!r} has an illegal pattern letter '{letter}'.")
    if literal:
        out.append((_quote("".join(literal)),))
    return out


def has_zone_field(pattern: str) -> bool:
    """Whether a Joda pattern reads or prints a zone or offset (then it, not a setting, gives the zone)."""
    return any(kind == "field" and value[0] in _ZONE_LETTERS for kind, value in _tokens(pattern))
