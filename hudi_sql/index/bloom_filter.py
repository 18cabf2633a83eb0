"""Hudi's bloom filters on base files: Hadoop MurmurHash, the SIMPLE and DYNAMIC_V0 filters, footer keys.

Apache Hudi stores a bloom filter of the file's record keys, plus the smallest and largest key, in
the key-value metadata of every base parquet file it writes with meta fields populated. Java's
bloom index reads them on upsert: it prunes files by the ``[min, max]`` key range, tests the bloom
filter, then confirms candidates by reading the file. A missing key therefore means a duplicate
record after a Java upsert, so what we write must be exact, and byte-identical to Java's
serialization so that Java (which copies Hadoop's ``org.apache.hadoop.util.bloom`` classes) parses it.

Two filter types exist (``hoodie.bloom.index.filter.type``):

* ``SIMPLE`` (Hudi ``SimpleBloomFilter``, a Hadoop ``BloomFilter``): one bit vector,
  :class:`BloomFilter` here.
* ``DYNAMIC_V0`` (Hudi ``HoodieDynamicBoundedBloomFilter``, the default): a header plus one or more
  standard bit vectors ("rows") that fill up one after the other, bounded by
  ``hoodie.bloom.index.filter.dynamic.max.entries``; :class:`DynamicBloomFilter` here.

Sizes: with the defaults (60,000 entries, fpp 1e-9) a row has 2,587,966 bits and 30 hash
functions, so a serialized default filter is 323,534 bytes, a **431,380-character** base64 footer
value (about 431 KB), even for a file holding a single record. Every default Hudi base file
carries that much.

Layout of a standard filter (all integers big-endian, Java ``DataOutputStream``)::

    int32 -1 (version) | int32 nbHash | byte hashType (1 = Murmur) | int32 vectorSize
    | ceil(vectorSize / 8) bytes of bits, bit i in byte i // 8 under mask 1 << (i % 8)

A DYNAMIC_V0 filter writes the same first four fields, then ``int32 nr``, ``int32
currentNbRecord``, ``int32 rows`` and ``rows`` standard filters. Each key sets ``nbHash`` bits at
positions from a chain of Hadoop MurmurHash calls (:func:`hash_positions`).

Sources: ``docs/hudi-format-logs-and-footers.md`` sections 12 and 13, where the byte layout and
hash were verified against 55 real base files and Hadoop's own classes.

Speed: :meth:`BloomFilter.add_all` and :meth:`BloomFilter.might_contain_all` hash whole batches
with numpy (keys grouped by UTF-8 length, the 30 chained Murmur rounds run column-wise), so a
100,000-key base file costs a fraction of a second rather than 3 million Python-level hash rounds.
"""

from __future__ import annotations

__all__ = [
    "BLOOM_FILTER_KEY",
    "LEGACY_BLOOM_FILTER_KEY",
    "BLOOM_FILTER_TYPE_CODE_KEY",
    "MIN_RECORD_KEY_KEY",
    "MAX_RECORD_KEY_KEY",
    "DEFAULT_NUM_ENTRIES",
    "DEFAULT_FPP",
    "DEFAULT_MAX_ENTRIES",
    "BloomFilterType",
    "BloomFilter",
    "DynamicBloomFilter",
    "FooterIndex",
    "murmur_hash",
    "murmur_hash_many",
    "hash_positions",
    "hash_positions_many",
    "footer_metadata",
    "read_footer_index",
]

import base64
import binascii
import math
import struct
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from itertools import islice
from typing import Any

import numpy as np
import numpy.typing as npt

from hudi_sql.config.write import HudiWriteConfig
from hudi_sql.errors import HudiConfigError, HudiFileFormatError, HudiKeyError, UnsupportedFeatureError

BLOOM_FILTER_KEY = "org.apache.hudi.bloomfilter"
"""Footer key of the base64 bloom filter (Java ``HOODIE_AVRO_BLOOM_FILTER_METADATA_KEY``)."""
LEGACY_BLOOM_FILTER_KEY = "com.uber.hoodie.bloomfilter"
"""Pre-Apache footer key; Java readers fall back to it, so we read it too but never write it."""
BLOOM_FILTER_TYPE_CODE_KEY = "hoodie_bloom_filter_type_code"
"""Footer key of the filter type; written only for DYNAMIC types, absent means SIMPLE."""
MIN_RECORD_KEY_KEY = "hoodie_min_record_key"
"""Footer key of the smallest ``_hoodie_record_key`` in the file."""
MAX_RECORD_KEY_KEY = "hoodie_max_record_key"
"""Footer key of the largest ``_hoodie_record_key`` in the file."""

#: Default of ``hoodie.index.bloom.num_entries``: keys per row the filter is sized for.
DEFAULT_NUM_ENTRIES = 60000
#: Default of ``hoodie.index.bloom.fpp``: target false-positive probability per row.
DEFAULT_FPP = 0.000000001
#: Default of ``hoodie.bloom.index.filter.dynamic.max.entries``: when DYNAMIC_V0 stops adding rows.
DEFAULT_MAX_ENTRIES = 100000

_VERSION = -1  # Hadoop Filter.VERSION; a positive first int would be a legacy Jenkins nbHash.
_MURMUR_HASH = 1  # Hadoop Hash.MURMUR_HASH; 0 would be JENKINS_HASH, which Hudi never writes.
_M = 0x5BD1E995
_MASK32 = 0xFFFFFFFF
_INT32_MAX = 2**31 - 1
_LOG2_SQUARED = math.log(2) * math.log(2)
_CHUNK = 1 << 16  # keys hashed per numpy batch; bounds the (keys x nbHash) position array to ~16 MB.
_STANDARD_HEADER = struct.Struct(">ibi")  # nbHash, hashType, vectorSize (after the version int)
_DYNAMIC_HEADER = struct.Struct(">iii")  # nr, currentNbRecord, rows

_U32 = npt.NDArray[np.uint32]
_Positions = npt.NDArray[np.int64]
_Bits = npt.NDArray[np.bool_]


class BloomFilterType(str, Enum):
    """Hudi's ``BloomFilterTypeCode``; the value is the footer string."""

    SIMPLE = "SIMPLE"
    DYNAMIC_V0 = "DYNAMIC_V0"

    @classmethod
    def parse(cls, value: str | BloomFilterType) -> BloomFilterType:
        """The member named by *value* (case-insensitive).

        Raises:
            HudiConfigError: *value* names no filter type.
        """
        if isinstance(value, BloomFilterType):
            return value
        try:
            return cls[value.strip().upper()]
        except KeyError:
            raise HudiConfigError(
                f"'{value}' is not a bloom filter type",
                help=f"use one of {', '.join(m.value for m in cls)} ({HudiWriteConfig.BLOOM_FILTER_TYPE.key})",
            ) from None


# --------------------------------------------------------------------------------------------
# Hashing
# --------------------------------------------------------------------------------------------


def _to_int32(value: int) -> int:
    value &= _MASK32
    return value - (1 << 32) if value & 0x80000000 else value


def murmur_hash(data: bytes, seed: int) -> int:
    """Hadoop's ``MurmurHash.hash(data, data.length, seed)``, as a signed 32-bit int.

    This is MurmurHash2 (32-bit) except for the tail: Hadoop reads the 1-3 leftover bytes counting
    from the **end** of the data, sign-extended as Java bytes, where canonical MurmurHash2 counts
    from the last full word. The two differ for 3-byte tails (e.g. ``id:1,name:Alice``) and for
    non-ASCII tails, so the canonical algorithm would not reproduce Hudi's filters.

    Args:
        data: The bytes to hash (Hudi passes the record key as UTF-8).
        seed: The seed, any int; only its low 32 bits count.

    Returns:
        The hash as Java's ``int`` (-2**31 .. 2**31-1).
    """
    length = len(data)
    h = (seed ^ length) & _MASK32
    full = length - length % 4
    for (k,) in struct.iter_unpack("<I", data[:full]):
        k = (k * _M) & _MASK32
        k ^= k >> 24
        k = (k * _M) & _MASK32
        h = ((h * _M) & _MASK32) ^ k
    left = length - full
    if left:
        if left >= 3:
            h ^= _signed_byte(data[length - 3]) << 16
        if left >= 2:
            h ^= _signed_byte(data[length - 2]) << 8
        h ^= _signed_byte(data[length - 1])
        h = (h * _M) & _MASK32
    h ^= h >> 13
    h = (h * _M) & _MASK32
    h ^= h >> 15
    return _to_int32(h)


def _signed_byte(b: int) -> int:
    # A Java byte widened to int, kept as 32 unsigned bits so that XOR stays within the mask.
    return (b - 256 if b >= 128 else b) & _MASK32


def hash_positions(key: bytes, nb_hash: int, vector_size: int) -> list[int]:
    """The bit positions Hadoop's ``HashFunction.hash`` gives *key*.

    Each round seeds Murmur with the previous round's result (the first with 0), and the position
    is ``abs(h % vectorSize)`` with Java's truncating ``%`` on the signed hash, which equals
    ``abs(h) % vectorSize`` and never overflows.

    Args:
        key: Key bytes (UTF-8 of the record key); must not be empty, as Hadoop rejects that.
        nb_hash: Number of hash functions (positions).
        vector_size: Number of bits in the vector.

    Returns:
        *nb_hash* positions in ``[0, vector_size)``, in round order (repeats possible).

    Raises:
        HudiKeyError: *key* is empty.
    """
    if not key:
        raise _empty_key_error()
    positions = []
    h = 0
    for _ in range(nb_hash):
        h = murmur_hash(key, h)
        positions.append(abs(h) % vector_size)
    return positions


def _empty_key_error() -> HudiKeyError:
    # Hadoop's HashFunction rejects empty keys ("key length must be > 0"); Hudi keys are never empty.
    return HudiKeyError(
        "an empty record key cannot go into a bloom filter",
        help="check the record key fields; Hudi never writes an empty _hoodie_record_key",
    )


class _KeyBatch:
    """Keys prepared for column-wise Murmur: grouped by byte length, seed-independent parts mixed once.

    Murmur's per-word mixing of ``k`` and the tail value do not depend on the seed, so for the
    chained rounds of :func:`hash_positions` only ``h = h * m ^ k`` per word and the finalizer
    remain per round. Keys of equal length share one (words x keys) uint32 matrix, word-major so
    that each step of a round reads one contiguous row.
    """

    def __init__(self, keys: Sequence[bytes]) -> None:
        self.size = len(keys)
        lengths = np.fromiter(map(len, keys), dtype=np.int64, count=self.size)
        if self.size and int(lengths.min()) == 0:
            raise _empty_key_error()
        if self.size and int(lengths.min()) == int(lengths.max()):
            self.order: npt.NDArray[np.int64] | None = None
            sorted_keys: Iterable[bytes] = keys
            sorted_lengths = lengths
        else:
            order = np.argsort(lengths, kind="stable")
            self.order = order
            sorted_keys = [keys[i] for i in order.tolist()]
            sorted_lengths = lengths[order]
        buffer = np.frombuffer(b"".join(sorted_keys), dtype=np.uint8)
        # (length, rows, mixed words, tail) per group, in sorted-key order.
        self.groups: list[tuple[int, int, _U32, _U32 | None]] = []
        offset = 0
        starts = np.flatnonzero(np.diff(sorted_lengths, prepend=-1)) if self.size else np.empty(0, np.int64)
        ends = np.append(starts[1:], self.size)
        for start, end in zip(starts.tolist(), ends.tolist()):
            length = int(sorted_lengths[start])
            count = end - start
            data = buffer[offset : offset + count * length].reshape(count, length)
            offset += count * length
            self.groups.append((length, count, *self._mix(data, length)))

    @staticmethod
    def _mix(data: npt.NDArray[np.uint8], length: int) -> tuple[_U32, _U32 | None]:
        full = length - length % 4
        words = np.ascontiguousarray(data[:, :full]).view("<u4").astype(np.uint32)
        words *= np.uint32(_M)
        words ^= words >> np.uint32(24)
        words *= np.uint32(_M)
        words = np.ascontiguousarray(words.T)
        left = length - full
        if not left:
            return words, None
        signed = data[:, length - left :].view(np.int8).astype(np.int64)
        tail = signed[:, -1].copy()
        if left >= 2:
            tail ^= signed[:, -2] << 8
        if left >= 3:
            tail ^= signed[:, -3] << 16
        return words, (tail & _MASK32).astype(np.uint32)

    def chain(self, rounds: int, seed: int | None = None) -> _U32:
        """(keys x rounds) unsigned hashes: round i is seeded by round i-1 (round 0 by *seed* or 0)."""
        out = np.empty((self.size, rounds), dtype=np.uint32)
        m = np.uint32(_M)
        row = 0
        for length, count, words, tail in self.groups:
            h_prev = np.full(count, (seed or 0) & _MASK32, dtype=np.uint32)
            for r in range(rounds):
                h = h_prev ^ np.uint32(length)
                for word in words:
                    h *= m
                    h ^= word
                if tail is not None:
                    h ^= tail
                    h *= m
                h ^= h >> np.uint32(13)
                h *= m
                h ^= h >> np.uint32(15)
                out[row : row + count, r] = h
                h_prev = h
            row += count
        if self.order is not None:
            unsorted = np.empty_like(out)
            unsorted[self.order] = out
            return unsorted
        return out


def _encode(key: str) -> bytes:
    # Java's getBytes(UTF_8) turns a lone surrogate into '?'; "replace" does the same.
    try:
        return key.encode("utf-8", "replace")
    except AttributeError:
        raise HudiKeyError(
            f"record key {key!r} is a {type(key).__name__}, not a string",
            help="bloom filters hold _hoodie_record_key strings",
        ) from None


def murmur_hash_many(keys: Sequence[bytes], seed: int) -> npt.NDArray[np.int32]:
    """:func:`murmur_hash` of every key with one seed, vectorised with numpy.

    Args:
        keys: Byte strings of any lengths; none may be empty.
        seed: The seed for every key.

    Returns:
        One signed int32 hash per key, in input order.

    Raises:
        HudiKeyError: A key is empty.
    """
    return _KeyBatch(keys).chain(1, seed)[:, 0].view(np.int32)


def hash_positions_many(keys: Sequence[bytes], nb_hash: int, vector_size: int) -> _Positions:
    """:func:`hash_positions` of every key, vectorised with numpy.

    Args:
        keys: Key bytes; none may be empty.
        nb_hash: Number of hash functions.
        vector_size: Number of bits in the vector.

    Returns:
        An int64 array of shape ``(len(keys), nb_hash)``.

    Raises:
        HudiKeyError: A key is empty.
    """
    hashes = _KeyBatch(keys).chain(nb_hash).view(np.int32).astype(np.int64)
    np.abs(hashes, out=hashes)
    hashes %= vector_size
    return hashes


def _chunks(keys: Iterable[str]) -> Iterator[list[bytes]]:
    iterator = iter(keys)
    while batch := list(islice(iterator, _CHUNK)):
        try:
            encoded = [key.encode("utf-8", "replace") for key in batch]  # fast path of _encode
        except AttributeError:
            encoded = [_encode(key) for key in batch]  # raises, naming the offending key
        yield encoded


# --------------------------------------------------------------------------------------------
# Filters
# --------------------------------------------------------------------------------------------


def _sizing(num_entries: int, fpp: float) -> tuple[int, int]:
    """(vectorSize, nbHash) exactly as Hudi's ``BloomFilterUtils`` computes them (double arithmetic)."""
    if isinstance(num_entries, bool) or not isinstance(num_entries, int) or num_entries <= 0:
        raise HudiConfigError(
            f"bloom filter num_entries must be a positive int, got {num_entries!r}",
            help=f"set {HudiWriteConfig.BLOOM_NUM_ENTRIES.key} (default 60000)",
        )
    if not 0.0 < fpp < 1.0:
        raise HudiConfigError(
            f"bloom filter fpp must be between 0 and 1 (exclusive), got {fpp!r}",
            help=f"set {HudiWriteConfig.BLOOM_FPP.key} (default 0.000000001)",
        )
    vector_size = math.ceil(num_entries * (-math.log(fpp) / _LOG2_SQUARED))
    if vector_size > _INT32_MAX:
        raise HudiConfigError(
            f"a bloom filter for {num_entries} entries at fpp {fpp} needs {vector_size} bits, "
            "more than a Java int can count",
            help=f"lower {HudiWriteConfig.BLOOM_NUM_ENTRIES.key} or raise {HudiWriteConfig.BLOOM_FPP.key}",
        )
    nb_hash = math.ceil(math.log(2) * vector_size / num_entries)
    return vector_size, nb_hash


class BloomFilter:
    """A SIMPLE bloom filter: Hudi's ``SimpleBloomFilter``, i.e. one Hadoop ``BloomFilter``.

    Bits live in a ``bool`` array (one byte per bit, 2.6 MB at the defaults) because numpy sets
    and gathers those with plain fancy indexing; they are packed LSB-first only to serialize.

    :class:`DynamicBloomFilter` subclasses this class, so ``isinstance(f, BloomFilter)`` holds for
    both; use :attr:`type_code` to tell them apart.

    Args:
        num_entries: Keys the filter is sized for (``hoodie.index.bloom.num_entries``).
        fpp: Target false-positive probability (``hoodie.index.bloom.fpp``).

    Raises:
        HudiConfigError: A sizing argument is out of range.
    """

    def __init__(self, *, num_entries: int = DEFAULT_NUM_ENTRIES, fpp: float = DEFAULT_FPP) -> None:
        vector_size, nb_hash = _sizing(num_entries, fpp)
        self._init_state(nb_hash, vector_size, [np.zeros(vector_size, dtype=np.bool_)])

    def _init_state(self, nb_hash: int, vector_size: int, rows: list[_Bits]) -> None:
        self._nb_hash = nb_hash
        self._vector_size = vector_size
        self._rows = rows

    @property
    def type_code(self) -> BloomFilterType:
        """The footer type code of this filter."""
        return BloomFilterType.SIMPLE

    @property
    def nb_hash(self) -> int:
        """Number of hash functions (bits set per key)."""
        return self._nb_hash

    @property
    def vector_size(self) -> int:
        """Bits per row."""
        return self._vector_size

    # -- adding ---------------------------------------------------------------------------------

    def _assign_rows(self, count: int) -> npt.NDArray[np.intp]:
        """Row index for each of the next *count* keys, advancing the row state."""
        return np.zeros(count, dtype=np.intp)

    def add(self, key: str) -> None:
        """Add one record key (as UTF-8).

        Raises:
            HudiKeyError: *key* is empty.
        """
        positions = hash_positions(_encode(key), self._nb_hash, self._vector_size)
        row = int(self._assign_rows(1)[0])
        self._rows[row][positions] = True

    def add_all(self, keys: Iterable[str]) -> None:
        """Add many record keys, in order, hashing them with numpy in batches.

        Order matters for DYNAMIC_V0 (it decides which row a key lands in); pass keys in the
        order their records are written to the file, as Java adds them.

        Raises:
            HudiKeyError: A key is empty.
        """
        for chunk in _chunks(keys):
            positions = hash_positions_many(chunk, self._nb_hash, self._vector_size)
            rows = self._assign_rows(len(chunk))
            first, last = int(rows.min()), int(rows.max())
            if first == last:
                self._rows[first][positions.ravel()] = True
                continue
            for row in np.unique(rows).tolist():
                self._rows[row][positions[rows == row].ravel()] = True

    # -- testing --------------------------------------------------------------------------------

    def might_contain(self, key: str) -> bool:
        """Whether *key* may have been added (no false negatives; false positives at about the fpp).

        Raises:
            HudiKeyError: *key* is empty.
        """
        positions = hash_positions(_encode(key), self._nb_hash, self._vector_size)
        return any(bool(bits[positions].all()) for bits in self._rows)

    def might_contain_all(self, keys: Iterable[str]) -> npt.NDArray[np.bool_]:
        """:meth:`might_contain` for many keys at once, vectorised.

        Returns:
            A bool array with one entry per key, in input order.

        Raises:
            HudiKeyError: A key is empty.
        """
        parts: list[npt.NDArray[np.bool_]] = []
        for chunk in _chunks(keys):
            positions = hash_positions_many(chunk, self._nb_hash, self._vector_size)
            hit = np.zeros(len(chunk), dtype=np.bool_)
            for bits in self._rows:
                hit |= bits[positions].all(axis=1)
            parts.append(hit)
        return np.concatenate(parts) if parts else np.zeros(0, dtype=np.bool_)

    # -- bytes ----------------------------------------------------------------------------------

    def _standard_bytes(self, bits: _Bits) -> bytes:
        packed = np.packbits(bits, bitorder="little")  # Hadoop: bit i under mask 1 << (i % 8)
        return _filter_header(self._nb_hash, self._vector_size) + packed.tobytes()

    def to_bytes(self) -> bytes:
        """The raw bytes Java's ``write(DataOutput)`` produces (before base64)."""
        return self._standard_bytes(self._rows[0])

    def serialize(self) -> str:
        """The footer string: standard base64 (``=`` padded, no line breaks) of :meth:`to_bytes`.

        Byte-identical to Java's ``serializeToString``; about 431 KB at the defaults.
        """
        return base64.b64encode(self.to_bytes()).decode("ascii")

    @classmethod
    def deserialize(cls, text: str, type_code: str | None = None) -> BloomFilter:
        """Parse a footer string the way Java's ``readBloomFilterFromMetadata`` does.

        A missing or empty *type_code* means SIMPLE (Java's fallback), so a DYNAMIC_V0 value
        without its type code does not parse here; Java would silently misread it.

        Called on :class:`DynamicBloomFilter`, the result must be a dynamic filter.

        Args:
            text: The ``org.apache.hudi.bloomfilter`` footer value.
            type_code: The ``hoodie_bloom_filter_type_code`` footer value, if any.

        Returns:
            A :class:`BloomFilter` (SIMPLE) or a :class:`DynamicBloomFilter` (DYNAMIC_V0).

        Raises:
            HudiFileFormatError: The text is not base64, the bytes are truncated or have trailing
                data, a field is out of range, or the type code is unknown.
            UnsupportedFeatureError: The filter uses Jenkins hashing (legacy Hadoop format).
        """
        if type_code is None or not type_code.strip():
            kind = BloomFilterType.SIMPLE
        else:
            try:
                kind = BloomFilterType(type_code.strip())
            except ValueError:
                raise HudiFileFormatError(
                    f"bloom filter type code '{type_code}' is not recognised",
                    help=f"expected one of {', '.join(m.value for m in BloomFilterType)}",
                ) from None
        try:
            data = base64.b64decode(text, validate=True)
        except (binascii.Error, ValueError) as exc:
            raise HudiFileFormatError(f"bloom filter footer value is not base64: {exc}") from None
        reader = _Reader(data)
        result: BloomFilter
        if kind is BloomFilterType.DYNAMIC_V0:
            result = DynamicBloomFilter._read(reader)
        else:
            nb_hash, vector_size, bits = _read_standard(reader)
            result = BloomFilter.__new__(BloomFilter)
            result._init_state(nb_hash, vector_size, [bits])
        if reader.remaining:
            raise HudiFileFormatError(
                f"{kind.value} bloom filter has {reader.remaining} bytes after its end",
                help=f"if the file holds a dynamic filter, its footer must carry "
                f"{BLOOM_FILTER_TYPE_CODE_KEY}=DYNAMIC_V0",
            )
        if not isinstance(result, cls):
            raise HudiFileFormatError(
                f"expected a {cls.__name__}, but the footer holds a {kind.value} bloom filter"
            )
        return result

    def __repr__(self) -> str:
        return f"{type(self).__name__}(vector_size={self._vector_size}, nb_hash={self._nb_hash})"


class DynamicBloomFilter(BloomFilter):
    """A DYNAMIC_V0 filter: Hudi's ``HoodieDynamicBoundedBloomFilter`` (``InternalDynamicBloomFilter``).

    It holds rows of standard filters, each sized for ``num_entries`` keys. Keys go to the last
    row until it has ``num_entries``; then a new row is added while ``rows * num_entries <
    max_entries``. Past that bound the filter "reaches max" and spreads further keys round-robin
    over the existing rows starting at row 0 (the first such key and the next both land in row 0,
    as in Java). A key is present if any row has all its bits.

    With the defaults, keys 1-60,000 go to row 0, keys 60,001-120,000 to row 1, the rest
    round-robin; a file with at most 60,000 keys has one row.

    ``max_entries`` is not serialized: a deserialized filter has ``max_entries == 0`` as in Java,
    so adding past a full last row never appends a row. ``current_count`` counts keys in the last
    row (it keeps counting after the bound is reached).

    Args:
        num_entries: Keys per row (``hoodie.index.bloom.num_entries``), the header's ``nr``.
        fpp: Target false-positive probability per row (``hoodie.index.bloom.fpp``).
        max_entries: Bound on ``rows * num_entries`` (``hoodie.bloom.index.filter.dynamic.max.entries``).

    Raises:
        HudiConfigError: A sizing argument is out of range.
    """

    def __init__(
        self,
        *,
        num_entries: int = DEFAULT_NUM_ENTRIES,
        fpp: float = DEFAULT_FPP,
        max_entries: int = DEFAULT_MAX_ENTRIES,
    ) -> None:
        super().__init__(num_entries=num_entries, fpp=fpp)
        if isinstance(max_entries, bool) or not isinstance(max_entries, int) or max_entries < 0:
            raise HudiConfigError(
                f"bloom filter max_entries must be a non-negative int, got {max_entries!r}",
                help=f"set {HudiWriteConfig.BLOOM_DYNAMIC_MAX_ENTRIES.key} (default 100000)",
            )
        self._init_dynamic(num_entries, max_entries, 0)

    def _init_dynamic(self, nr: int, max_nr: int, current: int) -> None:
        self._nr = nr
        self._max_nr = max_nr
        self._current = current
        self._reached_max = False
        self._cur_matrix_index = 0

    @property
    def type_code(self) -> BloomFilterType:
        return BloomFilterType.DYNAMIC_V0

    @property
    def num_entries(self) -> int:
        """Keys per row (the serialized ``nr``)."""
        return self._nr

    @property
    def max_entries(self) -> int:
        """The row bound; 0 for a deserialized filter, since Java does not serialize it."""
        return self._max_nr

    @property
    def num_rows(self) -> int:
        """Number of standard filters (rows)."""
        return len(self._rows)

    @property
    def current_count(self) -> int:
        """The serialized ``currentNbRecord``: keys added since the last row was started."""
        return self._current

    def _assign_rows(self, count: int) -> npt.NDArray[np.intp]:
        # Java's getActiveStandardBF, run for `count` keys in as few steps as the state allows.
        out = np.empty(count, dtype=np.intp)
        done = 0
        while done < count:
            if self._reached_max:
                n = count - done
                out[done:] = (self._cur_matrix_index + np.arange(n)) % len(self._rows)
                self._cur_matrix_index += n
                self._current += n
                done = count
            elif self._current >= self._nr:
                if len(self._rows) * self._nr < self._max_nr:
                    self._rows.append(np.zeros(self._vector_size, dtype=np.bool_))
                    self._current = 0
                else:
                    # Reaching the bound sends this key to row 0 without advancing the index.
                    self._reached_max = True
                    out[done] = 0
                    done += 1
                    self._current += 1
            else:
                n = min(count - done, self._nr - self._current)
                out[done : done + n] = len(self._rows) - 1
                self._current += n
                done += n
        return out

    def to_bytes(self) -> bytes:
        header = _filter_header(self._nb_hash, self._vector_size)
        header += _DYNAMIC_HEADER.pack(self._nr, self._current, len(self._rows))
        return header + b"".join(self._standard_bytes(bits) for bits in self._rows)

    @classmethod
    def _read(cls, reader: _Reader) -> DynamicBloomFilter:
        nb_hash, _, vector_size = _read_header(reader)
        nr, current, rows = reader.unpack(_DYNAMIC_HEADER)
        if nr <= 0 or rows <= 0:
            raise HudiFileFormatError(
                f"dynamic bloom filter header is invalid: nr={nr}, rows={rows} (both must be positive)"
            )
        matrix = []
        for index in range(rows):
            row_nb_hash, row_vector_size, bits = _read_standard(reader)
            if (row_nb_hash, row_vector_size) != (nb_hash, vector_size):
                raise HudiFileFormatError(
                    f"dynamic bloom filter row {index} has nbHash={row_nb_hash}, vectorSize="
                    f"{row_vector_size}, but the header says nbHash={nb_hash}, vectorSize={vector_size}"
                )
            matrix.append(bits)
        result = cls.__new__(cls)
        result._init_state(nb_hash, vector_size, matrix)
        result._init_dynamic(nr, 0, current)
        return result

    def __repr__(self) -> str:
        return (
            f"DynamicBloomFilter(vector_size={self._vector_size}, nb_hash={self._nb_hash}, "
            f"num_entries={self._nr}, rows={len(self._rows)}, current_count={self._current})"
        )


class _Reader:
    """Big-endian cursor over serialized filter bytes; truncation is a format error."""

    def __init__(self, data: bytes) -> None:
        self._data = data
        self._offset = 0

    @property
    def remaining(self) -> int:
        return len(self._data) - self._offset

    def take(self, size: int) -> bytes:
        if size > self.remaining:
            raise HudiFileFormatError(
                f"bloom filter bytes end early: need {size} bytes at offset {self._offset}, "
                f"have {self.remaining}"
            )
        chunk = self._data[self._offset : self._offset + size]
        self._offset += size
        return chunk

    def unpack(self, fmt: struct.Struct) -> tuple[Any, ...]:
        return fmt.unpack(self.take(fmt.size))


def _filter_header(nb_hash: int, vector_size: int) -> bytes:
    """Hadoop ``Filter.write``: version, nbHash, hashType, vectorSize."""
    return struct.pack(">i", _VERSION) + _STANDARD_HEADER.pack(nb_hash, _MURMUR_HASH, vector_size)


def _read_header(reader: _Reader) -> tuple[int, int, int]:
    """Hadoop ``Filter.readFields``: (nbHash, hashType, vectorSize), insisting on version -1 and Murmur."""
    (version,) = reader.unpack(struct.Struct(">i"))
    if version > 0:
        raise UnsupportedFeatureError(
            f"bloom filter uses the legacy Hadoop format (first int {version} = nbHash, Jenkins hash)",
            help="Hudi writes version -1 with Murmur hashing; rewrite the file with a current writer",
        )
    if version != _VERSION:
        raise HudiFileFormatError(f"bloom filter version {version} is not supported (expected -1)")
    nb_hash, hash_type, vector_size = reader.unpack(_STANDARD_HEADER)
    if hash_type != _MURMUR_HASH:
        raise UnsupportedFeatureError(
            f"bloom filter hash type {hash_type} is not supported (only 1 = Murmur)",
            help="Hudi always writes Murmur filters; rewrite the file with a current writer",
        )
    if nb_hash <= 0 or vector_size <= 0:
        raise HudiFileFormatError(
            f"bloom filter header is invalid: nbHash={nb_hash}, vectorSize={vector_size} "
            "(both must be positive)"
        )
    return nb_hash, hash_type, vector_size


def _read_standard(reader: _Reader) -> tuple[int, int, _Bits]:
    """Hadoop ``BloomFilter.readFields``; padding bits past vectorSize are ignored, as in Java."""
    nb_hash, _, vector_size = _read_header(reader)
    packed = np.frombuffer(reader.take((vector_size + 7) // 8), dtype=np.uint8)
    bits = np.unpackbits(packed, count=vector_size, bitorder="little").view(np.bool_)
    return nb_hash, vector_size, bits


# --------------------------------------------------------------------------------------------
# Footer
# --------------------------------------------------------------------------------------------


def footer_metadata(
    keys: Sequence[str] | npt.NDArray[Any],
    *,
    num_entries: int = DEFAULT_NUM_ENTRIES,
    fpp: float = DEFAULT_FPP,
    max_entries: int = DEFAULT_MAX_ENTRIES,
    filter_type: BloomFilterType | str = BloomFilterType.DYNAMIC_V0,
) -> dict[bytes, bytes]:
    """The Hudi key-value metadata for a base parquet file holding *keys*.

    Follows Java's ``HoodieBloomFilterWriteSupport.finalizeMetadata``: the bloom filter always,
    the type code only for DYNAMIC types (a reader without it assumes SIMPLE), min/max only when
    keys were added. We return nothing at all for no keys, since our writer never writes empty
    base files.

    Min and max use Python ``str`` order (by code point). That equals Java's order on the Spark
    write path (``UTF8String``, unsigned UTF-8 bytes) and on the Avro path (``String.compareTo``,
    UTF-16 code units) unless keys contain characters outside the Basic Multilingual Plane,
    where UTF-16 surrogates sort below U+E000..U+FFFF.

    Args:
        keys: The file's ``_hoodie_record_key`` values, in the order the rows are written (the
            order decides the rows of a dynamic filter past ``num_entries`` keys).
        num_entries: ``hoodie.index.bloom.num_entries``.
        fpp: ``hoodie.index.bloom.fpp``.
        max_entries: ``hoodie.bloom.index.filter.dynamic.max.entries`` (DYNAMIC_V0 only).
        filter_type: ``hoodie.bloom.index.filter.type``.

    Returns:
        Footer key to value, both UTF-8 bytes; empty when *keys* is empty.

    Raises:
        HudiConfigError: A sizing option or the filter type is invalid.
        HudiKeyError: A key is empty.
    """
    kind = BloomFilterType.parse(filter_type)
    if len(keys) == 0:
        return {}
    bloom: BloomFilter
    if kind is BloomFilterType.DYNAMIC_V0:
        bloom = DynamicBloomFilter(num_entries=num_entries, fpp=fpp, max_entries=max_entries)
    else:
        bloom = BloomFilter(num_entries=num_entries, fpp=fpp)
    bloom.add_all(keys)
    metadata = {BLOOM_FILTER_KEY.encode(): bloom.serialize().encode("ascii")}
    if kind is BloomFilterType.DYNAMIC_V0:
        metadata[BLOOM_FILTER_TYPE_CODE_KEY.encode()] = kind.value.encode()
    metadata[MIN_RECORD_KEY_KEY.encode()] = _encode(str(min(keys)))  # str(): numpy arrays give np.str_
    metadata[MAX_RECORD_KEY_KEY.encode()] = _encode(str(max(keys)))
    return metadata


@dataclass(frozen=True)
class FooterIndex:
    """What a base file's footer offers the bloom index: its key range and bloom filter.

    Attributes:
        min_key: ``hoodie_min_record_key``, or ``None`` when absent (a filter with no keys).
        max_key: ``hoodie_max_record_key``, or ``None`` when absent.
        bloom_filter: The parsed filter, or ``None`` when the footer has only a key range.
    """

    min_key: str | None
    max_key: str | None
    bloom_filter: BloomFilter | None


def read_footer_index(metadata: Mapping[bytes, bytes] | None) -> FooterIndex | None:
    """The bloom filter and key range from parquet key-value metadata (``ParquetFile.metadata.metadata``).

    Reads ``org.apache.hudi.bloomfilter``, falling back to the legacy ``com.uber.hoodie.bloomfilter``,
    and its type code (absent means SIMPLE), as Java's ``readBloomFilterFromMetadata`` does.

    Args:
        metadata: The footer key-value metadata; ``None`` (no metadata) is allowed.

    Returns:
        ``None`` when the footer has neither a bloom filter nor a key range (for example tables
        with ``hoodie.populate.meta.fields=false``), else a :class:`FooterIndex`.

    Raises:
        HudiFileFormatError: A value is not UTF-8, the filter does not parse, or only one of
            min/max is present.
        UnsupportedFeatureError: The filter is in the legacy Jenkins format.
    """
    if not metadata:
        return None
    text = _footer_value(metadata, BLOOM_FILTER_KEY)
    if text is None:
        text = _footer_value(metadata, LEGACY_BLOOM_FILTER_KEY)
    min_key = _footer_value(metadata, MIN_RECORD_KEY_KEY)
    max_key = _footer_value(metadata, MAX_RECORD_KEY_KEY)
    if (min_key is None) != (max_key is None):
        raise HudiFileFormatError(
            f"footer has only one of {MIN_RECORD_KEY_KEY} / {MAX_RECORD_KEY_KEY}",
            help="Hudi writes both or neither; the file footer is damaged",
        )
    if text is None and min_key is None:
        return None
    bloom = None
    if text is not None:
        bloom = BloomFilter.deserialize(text, _footer_value(metadata, BLOOM_FILTER_TYPE_CODE_KEY))
    return FooterIndex(min_key=min_key, max_key=max_key, bloom_filter=bloom)


def _footer_value(metadata: Mapping[bytes, bytes], key: str) -> str | None:
    raw = metadata.get(key.encode())
    if raw is None:
        return None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise HudiFileFormatError(f"footer value of '{key}' is not UTF-8") from None
