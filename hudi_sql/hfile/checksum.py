"""Block checksums of HFile version 3: CRC32C (Castagnoli) over every chunk of a block.

A version 3 block carries its own checksums, so a reader catches a damaged byte without
trusting the file system. The block header names the algorithm (one byte) and the chunk size
(``bytesPerChecksum``, 16 KiB in every file HBase and Hudi write). The bytes covered are the
header and the on-disk (possibly compressed) data; each chunk of that range gets one big-endian
``int32`` checksum, and the checksums follow the data, inside ``onDiskSizeWithoutHeader``.

HBase writes CRC32C, so the files Apache Hudi 0.15 writes through HBase carry CRC32C; Hudi
1.x's own writer writes the NULL type and no checksum bytes. The ``crc32c`` wheel is not a
dependency, so CRC32C is computed here from a 256-entry table: about 8 MB/s in CPython, plenty
for metadata-table and bootstrap-index files of a few MB.
"""

from __future__ import annotations

__all__ = ["ChecksumType", "chunk_checksums", "crc32c", "num_checksum_bytes"]

import enum
import zlib

#: The reflected Castagnoli polynomial (iSCSI, ext4, HBase's ``ChecksumType.CRC32C``).
_CASTAGNOLI = 0x82F63B78
CHECKSUM_SIZE = 4


def _table() -> tuple[int, ...]:
    entries = []
    for byte in range(256):
        crc = byte
        for _ in range(8):
            crc = (crc >> 1) ^ _CASTAGNOLI if crc & 1 else crc >> 1
        entries.append(crc)
    return tuple(entries)


_TABLE = _table()


def crc32c(data: bytes | memoryview, crc: int = 0) -> int:
    """The CRC32C of *data*, continuing from *crc* (0 starts a new checksum)."""
    table = _TABLE
    crc ^= 0xFFFFFFFF
    for byte in data:
        crc = table[(crc ^ byte) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


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
