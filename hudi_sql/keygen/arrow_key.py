"""Record keys of stored rows recomputed with Arrow, for tables without meta fields.

With ``hoodie.populate.meta.fields=false`` a base file has no ``_hoodie_record_key``, so a
merge handle (a Spark task working on Arrow tables, with no Spark expressions at hand) derives
the key of each stored row from its key columns. The incoming records and the index computed
their keys with the Spark expressions of :mod:`hudi_sql.keygen`; an update finds its stored row
only if both sides render every value to the same string. So this module follows the same
:class:`~hudi_sql.keygen.record_key.RecordKeySpec` and the same value rendering
(:mod:`hudi_sql.keygen.field_value`, Hudi's Avro path), by Arrow type:

=========================  ==========================================================
Arrow type (Spark type)    string
=========================  ==========================================================
string                     the value
int8..int64                decimal digits
bool                       ``true`` / ``false``
float32 / float64          Java ``Float/Double.toString``: ``1.0``, ``1.0E7``,
                           ``1.0E-5``, ``-0.0``, ``NaN``, ``Infinity``
decimal128(p, s)           ``BigDecimal.toString()`` (``1.0E-7`` below 1e-6 magnitude)
date32                     ISO ``2023-04-01`` (``LocalDate.toString``)
timestamp (any unit)       micros since the epoch (``1680350460000000``)
=========================  ==========================================================

Java's digits for a double are the shortest that read back to the same value (what Python's
``repr`` and numpy's ``unique`` formatting give). JDK 17 and older (``FloatingDecimal``) emit
one extra digit for a few values (JDK-4511638, fixed in JDK 19); Spark's own ``CAST`` on the
same JVM then differs from this module for those values, which the parity test would show.
"""

from __future__ import annotations

__all__ = ["arrow_key_string", "arrow_record_keys", "java_floating_string"]

import math
from decimal import Decimal

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from hudi_sql.errors import HudiKeyError, did_you_mean
from hudi_sql.keygen.record_key import EMPTY_RECORDKEY_PLACEHOLDER, NULL_RECORDKEY_PLACEHOLDER, RecordKeySpec

_MICROS_PER_UNIT = {"s": 1_000_000, "ms": 1_000, "us": 1}


def arrow_record_keys(table: pa.Table, spec: RecordKeySpec) -> pa.Array:
    """``_hoodie_record_key`` of every row of *table*, as the Spark expressions compute it.

    A key Hudi would reject (a null or empty simple key; a composite key whose parts are all
    null or empty) is null, as in :meth:`~hudi_sql.keygen.KeyGenerator.record_key`.

    Raises:
        HudiKeyError: a key field is missing or has a type with no key string.
    """
    values = [arrow_key_string(_field_array(table, path), path=path) for path in spec.fields]
    if not spec.composite:
        (value,) = values
        return pc.if_else(pc.equal(value, ""), pa.scalar(None, pa.string()), value)
    parts = []
    present = None
    for index, (path, value) in enumerate(zip(spec.fields, values)):
        rendered = pc.if_else(pc.equal(value, ""), pa.scalar(EMPTY_RECORDKEY_PLACEHOLDER),
                              value).fill_null(NULL_RECORDKEY_PLACEHOLDER)
        parts.append(pc.binary_join_element_wise(pa.scalar(("," if index else "") + f"{path}:"), rendered, ""))
        part_present = pc.not_equal(value, "").fill_null(False)
        present = part_present if present is None else pc.or_(present, part_present)
    joined = pc.binary_join_element_wise(*parts, "")
    return pc.if_else(present, joined, pa.scalar(None, pa.string()))


def arrow_key_string(array: pa.Array, *, path: str = "?") -> pa.Array:
    """The string Hudi makes of each value of *array* (table in the module doc); null stays null.

    Raises:
        HudiKeyError: the type has no key string in Hudi (binary, nested, ...).
    """
    kind = array.type
    if pa.types.is_string(kind) or pa.types.is_large_string(kind):
        return array.cast(pa.string())
    if pa.types.is_null(kind):
        return pa.nulls(len(array), pa.string())
    if pa.types.is_integer(kind) or pa.types.is_boolean(kind) or pa.types.is_date32(kind):
        return array.cast(pa.string())
    if pa.types.is_decimal(kind):
        # Arrow's decimal string follows the same to-scientific-string rule as BigDecimal.toString.
        return array.cast(pa.string())
    if pa.types.is_floating(kind):
        single = pa.types.is_float32(kind) or pa.types.is_float16(kind)
        return pa.array([None if v is None else java_floating_string(v, single=single) for v in array.to_pylist()],
                        pa.string())
    if pa.types.is_timestamp(kind):
        return _timestamp_micros(array).cast(pa.string())
    raise HudiKeyError(
        f"Record key field '{path}' has type {kind}, which cannot be part of a record key.",
        help="use a string, number, boolean, date or timestamp column",
    )


def java_floating_string(value: float, *, single: bool = False) -> str:
    """Java's ``Double.toString`` (or ``Float.toString`` when *single*) of *value*.

    Decimal notation for magnitudes in [1e-3, 1e7), computerized scientific notation
    (``d.dddE-n``) otherwise; at least one digit after the point in both.
    """
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    sign = "-" if math.copysign(1.0, value) < 0 else ""
    if value == 0:
        return sign + "0.0"
    typed = np.float32(value) if single else np.float64(value)
    digits, exponent = _shortest_digits(np.format_float_scientific(typed, unique=True, trim="0"))
    if len(digits) == 1:
        # Java prints at least two digits and picks the two-digit decimal nearest to the exact
        # value when it reads back the same (Double.MIN_VALUE is 4.9E-324, not 5.0E-324).
        two, two_exponent = _shortest_digits(f"{Decimal(float(typed)):.1e}")
        if (np.float32(f"{two[0]}.{two[1:] or '0'}e{two_exponent}") if single
                else float(f"{two[0]}.{two[1:] or '0'}e{two_exponent}")) == typed:
            digits, exponent = two, two_exponent
    if -3 <= exponent < 7:
        if exponent >= 0:
            whole, fraction = digits[: exponent + 1].ljust(exponent + 1, "0"), digits[exponent + 1:]
        else:
            whole, fraction = "0", "0" * (-exponent - 1) + digits
        return f"{sign}{whole}.{fraction or '0'}"
    return f"{sign}{digits[0]}.{digits[1:] or '0'}E{exponent}"


def _shortest_digits(text: str) -> tuple[str, int]:
    """Significant digits (no trailing zeros) and the exponent of the first, of a number's text."""
    parsed = Decimal(text).as_tuple()
    exponent = len(parsed.digits) - 1 + int(parsed.exponent)
    return "".join(str(d) for d in parsed.digits).rstrip("0") or "0", exponent


def _timestamp_micros(array: pa.Array) -> pa.Array:
    """Micros since the epoch, floored (Spark's ``unix_micros`` of the stored instant)."""
    unit = array.type.unit
    raw = array.cast(pa.int64())
    if unit in _MICROS_PER_UNIT:
        return pc.multiply(raw, _MICROS_PER_UNIT[unit])
    return pa.array([None if v is None else v // 1000 for v in raw.to_pylist()], pa.int64())  # nanoseconds


def _field_array(table: pa.Table, path: str) -> pa.Array:
    """The values of a field path; ``a.b`` is child ``b`` of struct column ``a`` (null when ``a`` is)."""
    head, *rest = path.split(".")
    array = table.column(_resolve(table.schema.names, head, path)).combine_chunks()
    for part in rest:
        if not pa.types.is_struct(array.type):
            raise HudiKeyError(f"Record key field '{path}' needs struct columns; '{part}' is not in a struct.")
        names = [array.type.field(i).name for i in range(array.type.num_fields)]
        array = pc.struct_field(array, [names.index(_resolve(names, part, path))])
    return array


def _resolve(names: list[str], name: str, path: str) -> str:
    """*name* exactly, else its one case-insensitive match (Spark's default resolution)."""
    if name in names:
        return name
    folded = [n for n in names if n.lower() == name.lower()]
    if len(folded) == 1:
        return folded[0]
    raise HudiKeyError(f"Record key field '{path}' does not exist in the stored rows.{did_you_mean(name, names)}",
                       help=f"columns available here: {', '.join(names) or '(none)'}")
