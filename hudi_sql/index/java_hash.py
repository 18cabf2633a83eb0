"""Java's ``String.hashCode`` and Hudi's bucket number of record keys, vectorised with numpy.

``String.hashCode`` folds the UTF-16 code units: ``h = 31 * h + unit`` in 32-bit two's
complement, which is unsigned arithmetic modulo ``2**32`` (numpy's ``uint32`` wraps the same
way). ASCII keys, the usual case, have one code unit per byte: keys of one length are stacked
into a byte matrix and folded a column at a time. Other keys are folded one by one.

Hudi 0.14's ``BucketIdentifier.getBucketId`` hashes a ``List<String>`` (``h = 31 * h +
e.hashCode()`` from ``h = 1``, a null element adding 0): ``[recordKey]`` for a plain key, or the
values of the hash fields for a composite ``f1:v1,f2:v2`` key; the bucket is ``(h &
Integer.MAX_VALUE) % numBuckets``.
"""

from __future__ import annotations

__all__ = ["bucket_ids", "java_string_hash", "java_string_hashes"]

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc

_MASK32 = 0xFFFFFFFF


def java_string_hash(text: str) -> int:
    """``text.hashCode()`` as an unsigned 32-bit value."""
    data = text.encode("utf-16-be")
    h = 0
    for i in range(0, len(data), 2):
        h = (31 * h + ((data[i] << 8) | data[i + 1])) & _MASK32
    return h


def java_string_hashes(values: pa.Array) -> npt.NDArray[np.uint32]:
    """``hashCode()`` of every string (unsigned 32-bit); a null hashes to 0."""
    values = values.cast(pa.string())
    out = np.zeros(len(values), dtype=np.uint32)
    if len(values) == 0:
        return out
    valid = pc.is_valid(values).to_numpy(zero_copy_only=False)
    ascii_ = pc.fill_null(pc.string_is_ascii(values), False).to_numpy(zero_copy_only=False)
    fast = np.flatnonzero(valid & ascii_)
    if len(fast):
        strings = values.take(pa.array(fast))  # a fresh array: offsets from 0, no nulls
        _, offsets_buffer, data_buffer = strings.buffers()
        offsets = np.frombuffer(offsets_buffer, dtype=np.int32)[: len(strings) + 1]
        buffer = np.frombuffer(data_buffer, dtype=np.uint8) if data_buffer is not None else np.zeros(0, np.uint8)
        starts, lengths = offsets[:-1], np.diff(offsets)
        for length in np.unique(lengths).tolist():
            rows = np.flatnonzero(lengths == length)
            h = np.zeros(len(rows), dtype=np.uint32)
            if length:
                matrix = buffer[starts[rows][:, None] + np.arange(length)].astype(np.uint32)
                for column in range(length):
                    h = h * np.uint32(31) + matrix[:, column]
            out[fast[rows]] = h
    for index in np.flatnonzero(valid & ~ascii_).tolist():
        out[index] = java_string_hash(values[index].as_py())
    return out


def _list_hash(element_hashes: Sequence[npt.NDArray[np.uint32]], size: int) -> npt.NDArray[np.uint32]:
    h = np.ones(size, dtype=np.uint32)
    for element in element_hashes:
        h = h * np.uint32(31) + element
    return h


def _key_part(key: str, field: str) -> str | None:
    """The value of *field* in a composite key (Java: ``p.split(":")[1]`` of the first matching part)."""
    for part in key.split(","):
        pieces = part.split(":")
        if pieces[0] == field:
            return pieces[1] if len(pieces) > 1 else ""
    return None


def bucket_ids(keys: pa.Array, hash_fields: Sequence[str], num_buckets: int) -> npt.NDArray[np.int32]:
    """Hudi's bucket number of every record key."""
    keys = keys.cast(pa.string())
    h = _list_hash([java_string_hashes(keys)], len(keys))
    composite = np.flatnonzero(pc.fill_null(pc.match_substring(keys, ":"), False).to_numpy(zero_copy_only=False))
    if len(composite):
        texts = keys.take(pa.array(composite)).to_pylist()
        parts = [pa.array([_key_part(t, f) for t in texts], pa.string()) for f in hash_fields]
        h[composite] = _list_hash([java_string_hashes(p) for p in parts], len(composite))
    return ((h & np.uint32(0x7FFFFFFF)) % np.uint32(num_buckets)).astype(np.int32)
