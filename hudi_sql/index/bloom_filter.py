"""Hudi's bloom filters on base files: the SIMPLE and DYNAMIC_V0 filter values and their bytes.

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

Modules: the hashing (Hadoop Murmur, bit positions) is :mod:`hudi_sql.index.bloom_hash`; writing
a file's footer metadata and reading its filter and key range back is
:mod:`hudi_sql.index.bloom_footer`. The footer key names live here, with the format.

Speed: :meth:`BloomFilter.add_all` and :meth:`BloomFilter.might_contain_all` hash whole batches
with numpy (:func:`~hudi_sql.index.bloom_hash.hash_positions_many`).
"""


from __future__ import annotations

__all__ = [
    "DEFAULT_FPP",
    "DEFAULT_MAX_ENTRIES",
    "DEFAULT_NUM_ENTRIES",
    "BloomFilter",
    "BloomFilterType",
    "DynamicBloomFilter",
]

import base64
import binascii
import math
import struct
from collections.abc import Iterable
from enum import Enum
from typing import Any

import numpy as np
import numpy.typing as npt

from hudi_sql.config.write import HudiWriteConfig
from hudi_sql.errors import HudiConfigError, HudiFileFormatError, UnsupportedFeatureError
from hudi_sql.index.bloom_hash import encode_key, encoded_chunks, hash_positions, hash_positions_many
from hudi_sql.model.footer_keys import BLOOM_FILTER_TYPE_CODE_KEY

#: Default of ``hoodie.index.bloom.num_entries``: keys per row the filter is sized for.
DEFAULT_NUM_ENTRIES = 60000
#: Default of ``hoodie.index.bloom.fpp``: target false-positive probability per row.
DEFAULT_FPP = 0.000000001
#: Default of ``hoodie.bloom.index.filter.dynamic.max.entries``: when DYNAMIC_V0 stops adding rows.
DEFAULT_MAX_ENTRIES = 100000

_VERSION = -1  # Hadoop Filter.VERSION; a positive first int would be a legacy Jenkins nbHash.
_MURMUR_HASH = 1  # Hadoop Hash.MURMUR_HASH; 0 would be JENKINS_HASH, which Hudi never writes.
_INT32_MAX = 2**31 - 1
_LOG2_SQUARED = math.log(2) * math.log(2)
_STANDARD_HEADER = struct.Struct(">ibi")  # nbHash, hashType, vectorSize (after the version int)
_DYNAMIC_HEADER = struct.Struct(">iii")  # nr, currentNbRecord, rows

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
        positions = hash_positions(encode_key(key), self._nb_hash, self._vector_size)
        row = int(self._assign_rows(1)[0])
        self._rows[row][positions] = True

    def add_all(self, keys: Iterable[str]) -> None:
        """Add many record keys, in order, hashing them with numpy in batches.

        Order matters for DYNAMIC_V0 (it decides which row a key lands in); pass keys in the
        order their records are written to the file, as Java adds them.

        Raises:
            HudiKeyError: A key is empty.
        """
        for chunk in encoded_chunks(keys):
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
        positions = hash_positions(encode_key(key), self._nb_hash, self._vector_size)
        return any(bool(bits[positions].all()) for bits in self._rows)

    def might_contain_all(self, keys: Iterable[str]) -> npt.NDArray[np.bool_]:
        """:meth:`might_contain` for many keys at once, vectorised.

        Returns:
            A bool array with one entry per key, in input order.

        Raises:
            HudiKeyError: A key is empty.
        """
        parts: list[npt.NDArray[np.bool_]] = []
        for chunk in encoded_chunks(keys):
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


