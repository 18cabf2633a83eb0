"""The record keys of the metadata table's index partitions (``ColumnIndexID``, ``PartitionIndexID``,
``FileIndexID`` of ``org.apache.hudi.common.util.hash``).

A ``column_stats`` record is keyed by its column, partition and file; a ``bloom_filters`` record
by its partition and file. Each part is a fixed-width hash, base64-encoded (standard alphabet,
padded), and the parts are concatenated, so keys of one column (or one partition) share a prefix
and sort together in the HFiles, which lets a reader fetch one column's statistics by prefix:

* column and partition: XXH64 of the UTF-8 name with seed ``0xdabadaba`` (a Java ``int``,
  sign-extended to the ``long`` seed), 8 bytes big-endian, 12 base64 characters;
* file: MD5 of the UTF-8 file name, 16 bytes, 24 base64 characters.

The partition is named as the metadata table names it (``.`` for a non-partitioned table).
XXH64 is written out here (the algorithm of its public specification) to keep the package free
of native dependencies; keys are short, so speed does not matter.
"""

from __future__ import annotations

__all__ = [
    "bloom_filter_key",
    "column_hash",
    "column_stats_key",
    "column_stats_partition_hash",
    "file_hash",
    "partition_hash",
    "xxh64",
]

import base64
import functools
import hashlib
import struct

from hudi_sql.metadata.layout import partition_identifier

_MASK = (1 << 64) - 1
_P1 = 0x9E3779B185EBCA87
_P2 = 0xC2B2AE3D27D4EB4F
_P3 = 0x165667B19E3779F9
_P4 = 0x85EBCA77C2B2AE63
_P5 = 0x27D4EB2F165667C5
#: ``HashID.HASH_SEED``, the int ``0xdabadaba`` widened to a long as Java does.
_SEED = 0xDABADABA | 0xFFFFFFFF00000000


def _rotl(value: int, bits: int) -> int:
    return ((value << bits) | (value >> (64 - bits))) & _MASK


def _round(acc: int, lane: int) -> int:
    acc = (acc + lane * _P2) & _MASK
    return (_rotl(acc, 31) * _P1) & _MASK


def _merge(acc: int, lane: int) -> int:
    acc ^= _round(0, lane)
    return (acc * _P1 + _P4) & _MASK


def xxh64(data: bytes, seed: int = 0) -> int:
    """The 64-bit xxHash of *data* (XXH64), as an unsigned integer."""
    seed &= _MASK
    length = len(data)
    pos = 0
    if length >= 32:
        v1 = (seed + _P1 + _P2) & _MASK
        v2 = (seed + _P2) & _MASK
        v3 = seed
        v4 = (seed - _P1) & _MASK
        while pos + 32 <= length:
            a, b, c, d = struct.unpack_from("<4Q", data, pos)
            v1, v2, v3, v4 = _round(v1, a), _round(v2, b), _round(v3, c), _round(v4, d)
            pos += 32
        h = (_rotl(v1, 1) + _rotl(v2, 7) + _rotl(v3, 12) + _rotl(v4, 18)) & _MASK
        for lane in (v1, v2, v3, v4):
            h = _merge(h, lane)
    else:
        h = (seed + _P5) & _MASK
    h = (h + length) & _MASK
    while pos + 8 <= length:
        (lane,) = struct.unpack_from("<Q", data, pos)
        h ^= _round(0, lane)
        h = (_rotl(h, 27) * _P1 + _P4) & _MASK
        pos += 8
    if pos + 4 <= length:
        (word,) = struct.unpack_from("<I", data, pos)
        h ^= (word * _P1) & _MASK
        h = (_rotl(h, 23) * _P2 + _P3) & _MASK
        pos += 4
    while pos < length:
        h ^= (data[pos] * _P5) & _MASK
        h = (_rotl(h, 11) * _P1) & _MASK
        pos += 1
    h ^= h >> 33
    h = (h * _P2) & _MASK
    h ^= h >> 29
    h = (h * _P3) & _MASK
    h ^= h >> 32
    return h


def _b64(raw: bytes) -> str:
    return base64.b64encode(raw).decode("ascii")


@functools.lru_cache(maxsize=4096)
def column_hash(column: str) -> str:
    """``ColumnIndexID(column).asBase64EncodedString()``."""
    return _b64(xxh64(column.encode("utf-8"), _SEED).to_bytes(8, "big"))


@functools.lru_cache(maxsize=4096)
def partition_hash(partition_path: str) -> str:
    """``PartitionIndexID`` of a data partition (``""`` is hashed as ``.``)."""
    return _b64(xxh64(partition_identifier(partition_path).encode("utf-8"), _SEED).to_bytes(8, "big"))


def file_hash(file_name: str) -> str:
    """``FileIndexID(fileName).asBase64EncodedString()``: the MD5 of the name."""
    return _b64(hashlib.md5(file_name.encode("utf-8"), usedforsecurity=False).digest())


def column_stats_key(partition_path: str, file_name: str, column: str) -> str:
    """The key of a ``column_stats`` record: column, partition, file."""
    return column_hash(column) + partition_hash(partition_path) + file_hash(file_name)


#: Characters of a column or partition hash (8 bytes, base64).
_HASH_LENGTH = 12


def column_stats_partition_hash(key: str) -> str:
    """The partition hash inside a ``column_stats`` record's key (:func:`column_stats_key`)."""
    return key[_HASH_LENGTH:2 * _HASH_LENGTH]


def bloom_filter_key(partition_path: str, file_name: str) -> str:
    """The key of a ``bloom_filters`` record: partition, file."""
    return partition_hash(partition_path) + file_hash(file_name)
