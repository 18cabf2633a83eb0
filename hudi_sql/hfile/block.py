"""One HFile version 3 block on disk: its 33-byte header, its (compressed) data, its checksums.

Header layout, big-endian (``HFileBlock.Header``)::

    0   8 bytes  magic                           the block type
    8   int32    onDiskSizeWithoutHeader         compressed data + checksum bytes
    12  int32    uncompressedSizeWithoutHeader   the data before compression, no checksums
    16  int64    prevBlockOffset                 the previous block of the same type, or -1
    24  int8     checksum type                   2 = CRC32C (HBase), 0 = NULL (Hudi 1.x writer)
    25  int32    bytesPerChecksum                16384
    29  int32    onDiskDataSizeWithHeader        header + compressed data, without checksums

The checksums cover the header and the compressed data (``onDiskDataSizeWithHeader`` bytes),
one per 16 KiB chunk (:mod:`hudi_sql.hfile.checksum`). Compression applies per block to the
data only; the header stays readable. ``prevBlockOffset`` chains blocks of one type: HBase
keeps one chain per type, so the meta index (a second ``IDXROOT2``) points back at the root
data index while every other first block of its type says -1.
"""

from __future__ import annotations

__all__ = ["BYTES_PER_CHECKSUM", "Block", "BlockHeader", "frame_block", "read_block"]

import struct
import zlib
from dataclasses import dataclass

from hudi_sql.errors import HudiFileFormatError, UnsupportedFeatureError
from hudi_sql.hfile.checksum import CHECKSUM_SIZE, ChecksumType, chunk_checksums, num_checksum_bytes
from hudi_sql.hfile.format import HEADER_SIZE, BlockType, Compression

BYTES_PER_CHECKSUM = 16 * 1024
_HEADER = struct.Struct(">8siiqBii")
_MAGICS = {t.value: t for t in BlockType}


@dataclass(frozen=True)
class BlockHeader:
    block_type: BlockType
    on_disk_size_without_header: int
    uncompressed_size_without_header: int
    prev_block_offset: int
    checksum_type: ChecksumType
    bytes_per_checksum: int
    on_disk_data_size_with_header: int

    @property
    def on_disk_size_with_header(self) -> int:
        """The whole block on disk; what an index entry records as the block's size."""
        return HEADER_SIZE + self.on_disk_size_without_header

    def encode(self) -> bytes:
        return _HEADER.pack(
            self.block_type.value, self.on_disk_size_without_header, self.uncompressed_size_without_header,
            self.prev_block_offset, int(self.checksum_type), self.bytes_per_checksum,
            self.on_disk_data_size_with_header,
        )

    @classmethod
    def decode(cls, data: bytes | memoryview, offset: int) -> BlockHeader:
        if offset < 0 or offset + HEADER_SIZE > len(data):
            raise HudiFileFormatError(
                f"HFile block header at offset {offset} runs past the end of the file ({len(data)} bytes): "
                "truncated?")
        magic, on_disk, uncompressed, prev, checksum, per_checksum, data_size = _HEADER.unpack_from(data, offset)
        if magic not in _MAGICS:
            raise HudiFileFormatError(f"unknown HFile block magic {magic!r} at offset {offset}")
        try:
            checksum_type = ChecksumType(checksum)
        except ValueError:
            raise HudiFileFormatError(f"unknown checksum type {checksum} in the block at offset {offset}") from None
        return cls(_MAGICS[magic], on_disk, uncompressed, prev, checksum_type, per_checksum, data_size)


@dataclass(frozen=True)
class Block:
    """A block read back: where it starts, its header, and its uncompressed data."""

    offset: int
    header: BlockHeader
    data: bytes


def frame_block(block_type: BlockType, data: bytes, *, prev_offset: int, compression: Compression) -> bytes:
    """The on-disk bytes of a block holding *data*, with CRC32C checksums as HBase writes them."""
    on_disk = _compress(data, compression)
    data_size_with_header = HEADER_SIZE + len(on_disk)
    header = BlockHeader(
        block_type,
        len(on_disk) + num_checksum_bytes(data_size_with_header, BYTES_PER_CHECKSUM),
        len(data),
        prev_offset,
        ChecksumType.CRC32C,
        BYTES_PER_CHECKSUM,
        data_size_with_header,
    )
    body = header.encode() + on_disk
    return body + chunk_checksums(body, BYTES_PER_CHECKSUM, ChecksumType.CRC32C)


def read_block(
    file: bytes | memoryview,
    offset: int,
    *,
    compression: Compression,
    expected: BlockType,
    end: int | None = None,
) -> Block:
    """The block at *offset*, its checksums verified and its data uncompressed.

    Raises:
        HudiFileFormatError: the block is not of the *expected* type, does not fit before
            *end* (the trailer by default), fails its checksum, or its data does not inflate
            to the size its header declares. The message names the block's offset.
    """
    end = len(file) if end is None else end
    header = BlockHeader.decode(file, offset)
    if header.block_type is not expected:
        raise HudiFileFormatError(
            f"HFile block at offset {offset} is {header.block_type.name} "
            f"({header.block_type.value!r}), expected {expected.name} ({expected.value!r})")
    stop = offset + header.on_disk_size_with_header
    data_stop = offset + header.on_disk_data_size_with_header
    if header.on_disk_size_without_header < 0 or stop > end:
        raise HudiFileFormatError(
            f"{expected.name} block at offset {offset} claims {header.on_disk_size_with_header} bytes, "
            f"past offset {end} where its section ends: truncated or damaged")
    if not offset + HEADER_SIZE <= data_stop <= stop:
        raise HudiFileFormatError(
            f"{expected.name} block at offset {offset} has an inconsistent header: "
            f"{header.on_disk_data_size_with_header} data bytes with header in "
            f"{header.on_disk_size_with_header} on disk")
    if header.checksum_type is not ChecksumType.NULL:
        _verify_checksums(file, offset, header)
    data = _decompress(bytes(file[offset + HEADER_SIZE : data_stop]), compression, offset)
    if len(data) != header.uncompressed_size_without_header:
        raise HudiFileFormatError(
            f"{expected.name} block at offset {offset} holds {len(data)} bytes of data, its header "
            f"declares {header.uncompressed_size_without_header}")
    return Block(offset, header, data)


def _verify_checksums(file: bytes | memoryview, offset: int, header: BlockHeader) -> None:
    per_chunk = header.bytes_per_checksum
    covered = header.on_disk_data_size_with_header
    if per_chunk <= 0:
        raise HudiFileFormatError(f"block at offset {offset} declares {per_chunk} bytes per checksum")
    if header.on_disk_size_with_header - covered != num_checksum_bytes(covered, per_chunk):
        raise HudiFileFormatError(
            f"block at offset {offset} has {header.on_disk_size_with_header - covered} checksum bytes "
            f"for {covered} bytes in chunks of {per_chunk}")
    view = memoryview(file)
    stored = view[offset + covered : offset + header.on_disk_size_with_header]
    for chunk, start in enumerate(range(0, covered, per_chunk)):
        actual = header.checksum_type.compute(view[offset + start : offset + min(start + per_chunk, covered)])
        expected = int.from_bytes(stored[chunk * CHECKSUM_SIZE : (chunk + 1) * CHECKSUM_SIZE], "big")
        if actual != expected:
            raise HudiFileFormatError(
                f"{header.checksum_type.name} checksum mismatch in the {header.block_type.name} block at "
                f"offset {offset}, chunk {chunk} (file bytes {offset + start} to "
                f"{offset + min(start + per_chunk, covered) - 1}): stored {expected:#010x}, "
                f"computed {actual:#010x}", help="the file is damaged; rewrite it from its source")


def _compress(data: bytes, compression: Compression) -> bytes:
    if compression is Compression.NONE:
        return data
    if compression is Compression.GZ:
        # one gzip member, as Hadoop's GzipCodec writes per block; mtime 0 keeps files reproducible
        packer = zlib.compressobj(6, zlib.DEFLATED, 31)
        return packer.compress(data) + packer.flush()
    raise UnsupportedFeatureError(f"writing {compression.name}-compressed HFiles is not supported",
                                  help="use Compression.NONE or Compression.GZ")


def _decompress(data: bytes, compression: Compression, offset: int) -> bytes:
    if compression is Compression.NONE:
        return data
    if compression is not Compression.GZ:
        raise UnsupportedFeatureError(
            f"the HFile is {compression.name}-compressed (block at offset {offset}); only NONE and GZ are read")
    out = []
    try:
        while data:
            member = zlib.decompressobj(31)
            out.append(member.decompress(data))
            if not member.eof:
                raise zlib.error("the gzip stream is cut short")
            data = member.unused_data
    except zlib.error as e:
        raise HudiFileFormatError(f"GZ data of the block at offset {offset} does not inflate: {e}") from e
    return b"".join(out)
