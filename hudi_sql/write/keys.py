"""Record keys recomputed from data columns with Arrow, for tables without meta fields.

With ``hoodie.populate.meta.fields=false`` the stored rows carry no ``_hoodie_record_key``, so
a merge handle derives the key of each stored row from its key columns, by the same rules the
key generators apply in Spark: the value as a string (simple), or ``field:value`` pairs joined
by ``,`` with ``__null__`` / ``__empty__`` for missing values (complex).
"""

from __future__ import annotations

__all__ = ["arrow_record_keys"]

import pyarrow as pa
import pyarrow.compute as pc

NULL_VALUE = "__null__"
EMPTY_VALUE = "__empty__"


def arrow_record_keys(table: pa.Table, fields: tuple[str, ...], *, complex_keys: bool) -> pa.Array:
    if not fields:
        raise ValueError("no record key fields")
    if not complex_keys and len(fields) == 1:
        return table.column(fields[0]).combine_chunks().cast(pa.string())
    parts = []
    for name in fields:
        text = table.column(name).combine_chunks().cast(pa.string())
        text = pc.if_else(pc.equal(text, ""), pa.scalar(EMPTY_VALUE), text).fill_null(NULL_VALUE)
        parts.append(pc.binary_join_element_wise(pa.scalar(f"{name}:"), text, ""))
    return pc.binary_join_element_wise(*parts, ",")
