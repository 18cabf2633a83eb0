"""Block checksums of HFile version 3: CRC32C (Castagnoli) over every chunk of a block.

A version 3 block carries its own checksums, so a reader catches a damaged byte without
trusting the file system. The block header names the algorithm (one byte) and the chunk size
(``bytesPerChecksum``, 16 KiB in every file HBase and Hudi write). The bytes covered are the
header and the on-disk (possibly compressed) data; each chunk of that range gets one big-endian
``int32`` checksum, and the checksums follow the data, inside ``onDiskSizeWithoutHeader``.

HBase writes CRC32C, so the files Apache Hudi 0.15 writes through HBase carry CRC32C; Hudi
1.x's own writer writes the NULL type and no checksum bytes. CRC32C comes from ``google-crc32c``
(hardware-accelerated C, GB/s): a pure-Python table runs at about 8 MB/s, which made reading the
bloom filters of a metadata table (tens of MB of log blocks) take a minute per index lookup.
"""

from __future__ import annotations

__all__ = ["ChecksumType", "chunk_checksums", "crc32c", "num_checksum_bytes"]

import enum
import zlib

import google_crc32c

CHECKSUM_SIZE = 4


def crc32c(data: bytes | memoryview, crc: int = 0) -> int:
    """The CRC32C of *data*, continuing from *crc* (0 starts a new checksum)."""
    return int(google_crc32c.extend(crc, bytes(data)))


class ChecksumType(enum.IntEnum):
    """The checksum algorithm byte of a block header (HBase's ``ChecksumType`` codes)."""

    NULL = 0
    CRC32 = 1
    CRC32C = 2

    def compute(self, data: bytes | memoryview) -> int:
        """The checksum of one chunk; NULL has none and is never asked."""
        if self is ChecksumType.CRC32C:
            return crc32c(data)
        if self is ChecksumType.CRC32:
            return zlib.crc32(data)
        raise ValueError("the NULL checksum type has no checksum to compute")


def num_checksum_bytes(size: int, bytes_per_checksum: int) -> int:
    """How many checksum bytes cover *size* bytes: one ``int32`` per started chunk."""
    return -(-size // bytes_per_checksum) * CHECKSUM_SIZE


def chunk_checksums(data: bytes | memoryview, bytes_per_checksum: int, kind: ChecksumType) -> bytes:
    """The checksums HBase appends to a block whose header and data are *data*."""
    if kind is ChecksumType.NULL:
        return b""
    view = memoryview(data)
    return b"".join(
        kind.compute(view[start : start + bytes_per_checksum]).to_bytes(CHECKSUM_SIZE, "big")
        for start in range(0, len(view), bytes_per_checksum)
    )
