"""Hadoop's MurmurHash and the bit positions it gives a record key, as Hudi's bloom filters use them.

Hudi's filters copy Hadoop's ``org.apache.hadoop.util.bloom`` classes: a key's ``nbHash`` bit
positions come from a chain of Hadoop ``MurmurHash`` calls, each seeded with the previous
result (:func:`hash_positions`). Hadoop's Murmur differs from canonical MurmurHash2 in its tail
handling, so the canonical algorithm would not reproduce Hudi's filters (:func:`murmur_hash`).

Split from :mod:`hudi_sql.index.bloom_filter` (the filter values and their bytes): hashing is
its own concern with its own speed work. :func:`hash_positions_many` hashes whole batches with
numpy (keys grouped by UTF-8 length, the chained rounds run column-wise), so a 100,000-key base
file costs a fraction of a second rather than 3 million Python-level hash rounds.
"""

from __future__ import annotations

__all__ = [
    "encode_key",
    "encoded_chunks",
    "hash_positions",
    "hash_positions_many",
    "murmur_hash",
    "murmur_hash_many",
]

import struct
from collections.abc import Iterable, Iterator, Sequence
from itertools import islice

import numpy as np
import numpy.typing as npt

from hudi_sql.errors import HudiKeyError

_M = 0x5BD1E995
_MASK32 = 0xFFFFFFFF
_CHUNK = 1 << 16  # keys hashed per numpy batch; bounds the (keys x nbHash) position array to ~16 MB.

_U32 = npt.NDArray[np.uint32]
_Positions = npt.NDArray[np.int64]


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


def encode_key(key: str) -> bytes:
    """A record key as the UTF-8 bytes Java hashes; a non-string key is a :class:`HudiKeyError`."""
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


def encoded_chunks(keys: Iterable[str]) -> Iterator[list[bytes]]:
    """*keys* encoded (:func:`encode_key`) in batches of at most 65,536, the unit numpy hashes at once."""
    iterator = iter(keys)
    while batch := list(islice(iterator, _CHUNK)):
        try:
            encoded = [key.encode("utf-8", "replace") for key in batch]  # fast path of encode_key
        except AttributeError:
            encoded = [encode_key(key) for key in batch]  # raises, naming the offending key
        yield encoded

