"""Writing HFile version 3 files that Apache Hudi 0.15 and 1.x read, natively and through HBase.

The layout follows what HBase's ``HFileWriterImpl`` produced for Hudi 0.15 (its metadata-table
files and bootstrap index), block for block: data blocks cut when their data reaches
``block_size``, then the meta blocks sorted by name, the root data index (single level), the
meta index, the file info, and the 4096-byte trailer. Every block carries CRC32C checksums.

Two readers must agree with us:

* Hudi's native reader (``org.apache.hudi.io.hfile.HFileReaderImpl``, 0.15 and 1.x) assumes
  each cell ends in a one-byte memstore timestamp and no tags, and finds the end of a data
  block's cells by subtracting checksum bytes *it* computes from the block's on-disk size. A
  block whose last cell is not longer than that figure would lose that cell (checked: Hudi
  0.15's reader drops 9 of 40000 30-byte cells written in 1 MiB blocks), so such a block is cut
  before its short trailing cells, which open the next block (:func:`_cut`). With blocks of
  64 KiB this never happens; it can with blocks of a megabyte and cells of a few dozen bytes.
* HBase's reader (shaded in the 0.15 bundle) loads the trailer's comparator class by name,
  needs ``hfile.AVG_KEY_LEN`` / ``hfile.AVG_VALUE_LEN`` in the file info, and reads the memstore
  timestamp only because ``KEY_VALUE_VERSION`` is 1.
"""

from __future__ import annotations

__all__ = ["write_hfile"]

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from hudi_sql.errors import HudiFileFormatError
from hudi_sql.hfile.block import BYTES_PER_CHECKSUM, frame_block
from hudi_sql.hfile.checksum import num_checksum_bytes
from hudi_sql.hfile.format import (
    COMPARATOR_CLASS_NAME,
    HEADER_SIZE,
    MAX_ROW_LENGTH,
    TRAILER_SIZE,
    BlockType,
    Compression,
    FileInfoKey,
    IndexEntry,
    Trailer,
    encode_cell,
    encode_file_info,
    encode_root_index,
    kv_key,
)

DEFAULT_BLOCK_SIZE = 64 * 1024
#: what an HBase key adds to its row: row length, family length, timestamp, type
_KEY_OVERHEAD = len(kv_key(b""))


@dataclass
class _File:
    """The bytes written so far and the figures the index, file info and trailer need."""

    compression: Compression
    out: bytearray = field(default_factory=bytearray)
    data_index: list[IndexEntry] = field(default_factory=list)
    #: uncompressed sizes with header of the blocks HBase counts in totalUncompressedBytes
    uncompressed_bytes: int = 0
    entry_count: int = 0
    key_bytes: int = 0
    value_bytes: int = 0
    last_row: bytes | None = None
    last_data_offset: int = -1

    def append(self, block_type: BlockType, data: bytes, prev_offset: int) -> tuple[int, int]:
        """Frames and appends one block; its offset and its on-disk size with header."""
        framed = frame_block(block_type, data, prev_offset=prev_offset, compression=self.compression)
        offset = len(self.out)
        self.out += framed
        return offset, len(framed)


def write_hfile(
    entries: Iterable[tuple[bytes, bytes]],
    *,
    file_info: Mapping[bytes, bytes] | None = None,
    meta_blocks: Mapping[str, bytes] | None = None,
    block_size: int = DEFAULT_BLOCK_SIZE,
    compression: Compression = Compression.NONE,
    comparator_class_name: str = COMPARATOR_CLASS_NAME,
) -> bytes:
    """The bytes of an HFile holding *entries*, as Apache Hudi writes its HFiles.

    Args:
        entries: ``(record key, value)`` pairs in strictly increasing key order (unsigned byte
            order, the order of HBase's comparator on cells with empty family and qualifier).
            A key becomes the row of an HBase cell; keys may be up to 32767 bytes.
        file_info: extra file info entries (Hudi's ``schema``, ``minRecordKey``,
            ``bloomFilterTypeCode``; the bootstrap index's ``INDEX_INFO``), stored next to
            the ``hfile.*`` ones the writer adds.
        meta_blocks: named meta blocks (the metadata table's ``bloomFilter``), stored as given.
        block_size: a data block is closed once its cells reach this many bytes.
        compression: NONE (the default) or GZ, which Hudi 0.15's metadata table uses.
        comparator_class_name: the comparator the trailer names, which HBase's reader loads by
            name; the bootstrap index of Hudi 0.15 names its own (Hudi's native readers ignore it).

    Returns:
        The whole file.

    Raises:
        HudiFileFormatError: keys out of order or repeated, a key too long, a file info name
            the writer reserves, or a block size that is not positive.
    """
    if block_size <= 0:
        raise HudiFileFormatError(f"HFile block size must be positive, got {block_size}")
    extra_info = _checked_file_info(file_info or {})
    file = _File(compression)
    pending: list[bytes] = []
    pending_size = 0
    first_key = b""
    for row, value in entries:
        row, value = bytes(row), bytes(value)
        _check_order(file.last_row, row, file.entry_count)
        cell = encode_cell(row, value)
        if not pending:
            first_key = kv_key(row)
        pending.append(cell)
        pending_size += len(cell)
        file.entry_count += 1
        file.key_bytes += len(row) + _KEY_OVERHEAD
        file.value_bytes += len(value)
        file.last_row = row
        if pending_size >= block_size:
            pending, first_key = _flush_data(file, pending, first_key)
            pending_size = sum(len(c) for c in pending)
    while pending:
        pending, first_key = _flush_data(file, pending, first_key)
    meta_index = _write_meta_blocks(file, meta_blocks or {})
    return _finish(file, meta_index, extra_info, comparator_class_name)


def _check_order(previous: bytes | None, row: bytes, count: int) -> None:
    if len(row) > MAX_ROW_LENGTH:
        raise HudiFileFormatError(
            f"HFile key {row[:40]!r}... of {len(row)} bytes is longer than {MAX_ROW_LENGTH} bytes")
    if previous is not None and row <= previous:
        what = "repeats" if row == previous else "sorts before"
        raise HudiFileFormatError(
            f"HFile entry {count} has key {row!r}, which {what} the previous key {previous!r}",
            help="sort the entries by key (unsigned bytes) and drop duplicates before writing")


def _checked_file_info(info: Mapping[bytes, bytes]) -> dict[bytes, bytes]:
    checked = {}
    for name, value in info.items():
        if not isinstance(name, bytes) or not isinstance(value, (bytes, bytearray)):
            raise HudiFileFormatError(f"HFile file info entries are bytes to bytes, got {name!r}: {type(value)}")
        if FileInfoKey.is_reserved(name):
            raise HudiFileFormatError(
                f"HFile file info name {name!r} is reserved: the writer sets it itself",
                help="names starting with 'hfile.' and the KEY_VALUE_VERSION, MAX_MEMSTORE_TS_KEY and "
                     "DATA_BLOCK_ENCODING entries belong to the format")
        checked[name] = bytes(value)
    return checked


def _flush_data(file: _File, cells: list[bytes], first_key: bytes) -> tuple[list[bytes], bytes]:
    """Writes a data block of the leading *cells*; the cells left over and the next block's first key."""
    count = _cut(cells, file.compression)
    data = b"".join(cells[:count])
    offset, size = file.append(BlockType.DATA, data, file.last_data_offset)
    file.data_index.append(IndexEntry(offset, size, first_key))
    file.uncompressed_bytes += HEADER_SIZE + len(data)
    file.last_data_offset = offset
    rest = cells[count:]
    return rest, (_key_of_cell(rest[0]) if rest else b"")


def _cut(cells: list[bytes], compression: Compression) -> int:
    """How many leading *cells* make a block whose last cell Hudi's native reader still sees.

    That reader stops at ``uncompressedSize - numChecksumBytes(onDiskSizeWithHeader)`` past the
    header (``HFileDataBlock``), so the last cell must be longer than those checksum bytes. The
    block's on-disk size is bounded from above (deflate grows incompressible data by well under
    0.1%), so no block is compressed twice; a block may be cut a few cells earlier than needed.
    """
    count, data = len(cells), sum(len(c) for c in cells)
    while count > 1:
        stored = data if compression is Compression.NONE else data + data // 1024 + 64
        on_disk = HEADER_SIZE + stored
        on_disk += num_checksum_bytes(on_disk, BYTES_PER_CHECKSUM)
        if len(cells[count - 1]) > num_checksum_bytes(on_disk, BYTES_PER_CHECKSUM):
            break
        count -= 1
        data -= len(cells[count])
    return count


def _key_of_cell(cell: bytes) -> bytes:
    key_length = int.from_bytes(cell[:4], "big")
    return cell[8 : 8 + key_length]


def _write_meta_blocks(file: _File, blocks: Mapping[str, bytes]) -> list[IndexEntry]:
    """Meta blocks in name order (HBase keeps them sorted; readers binary-search their index)."""
    named = sorted((name.encode("utf-8"), bytes(content)) for name, content in blocks.items())
    index: list[IndexEntry] = []
    prev = -1
    for name, content in named:
        if not name:
            raise HudiFileFormatError("an HFile meta block needs a non-empty name")
        prev, size = file.append(BlockType.META, content, prev)
        file.uncompressed_bytes += HEADER_SIZE + len(content)
        index.append(IndexEntry(prev, size, name))
    return index


def _finish(
    file: _File, meta_index: list[IndexEntry], extra_info: dict[bytes, bytes], comparator_class_name: str
) -> bytes:
    """The load-on-open section (root data index, meta index, file info) and the trailer."""
    load_on_open = len(file.out)
    root_data = encode_root_index(file.data_index)
    file.append(BlockType.ROOT_INDEX, root_data, -1)
    meta_data = encode_root_index(meta_index)
    file.append(BlockType.ROOT_INDEX, meta_data, load_on_open)
    info_data = encode_file_info({**extra_info, **_format_file_info(file)})
    file_info_offset, _ = file.append(BlockType.FILE_INFO, info_data, -1)
    file.uncompressed_bytes += 2 * HEADER_SIZE + len(meta_data) + len(info_data)
    trailer = Trailer(
        file_info_offset=file_info_offset,
        load_on_open_data_offset=load_on_open,
        uncompressed_data_index_size=len(root_data),
        total_uncompressed_bytes=file.uncompressed_bytes + TRAILER_SIZE,
        data_index_count=len(file.data_index),
        meta_index_count=len(meta_index),
        entry_count=file.entry_count,
        num_data_index_levels=1,
        first_data_block_offset=file.data_index[0].offset if file.data_index else -1,
        last_data_block_offset=file.last_data_offset,
        comparator_class_name=comparator_class_name,
        compression=file.compression,
    )
    return bytes(file.out + trailer.encode())


def _format_file_info(file: _File) -> dict[bytes, bytes]:
    """The entries HBase's writer adds: averages, last key, creation time, memstore fields."""
    count = file.entry_count
    info = {
        FileInfoKey.AVG_KEY_LEN.value: (file.key_bytes // count if count else 0).to_bytes(4, "big"),
        FileInfoKey.AVG_VALUE_LEN.value: (file.value_bytes // count if count else 0).to_bytes(4, "big"),
        # Hudi never sets a creation time on its HFile context: HBase writes 0
        FileInfoKey.CREATE_TIME_TS.value: bytes(8),
        FileInfoKey.KEY_VALUE_VERSION.value: (1).to_bytes(4, "big"),
        FileInfoKey.MAX_MEMSTORE_TS_KEY.value: bytes(8),
    }
    if file.last_row is not None:
        info[FileInfoKey.LAST_KEY.value] = kv_key(file.last_row)
    return info
