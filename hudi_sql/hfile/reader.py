"""Reading HFile version 3 files written by Apache Hudi (through HBase in 0.15, natively in 1.x).

Opening a file reads what HBase calls the load-on-open section: the trailer, the root data
index, the meta index and the file info. Data blocks are read when asked for: a point lookup
binary-searches the root index by first key and reads one block. Every block's checksums are
verified as it is read (CRC32C as HBase writes; Hudi 1.x's writer leaves them NULL).

What is not read: multi-level data indexes (HBase adds leaf and intermediate index blocks only
when the root index outgrows ``hfile.index.block.max.size``, 128 KiB, i.e. files of thousands of
data blocks, far beyond the metadata table's files partition or a bootstrap index), encoded data
blocks (``DATABLKE``, which Hudi never configures) and codecs other than NONE and GZ. Each is
refused with an :class:`~hudi_sql.errors.UnsupportedFeatureError` rather than misread.
"""

from __future__ import annotations

__all__ = ["HFileReader"]

import bisect
import os
from collections.abc import Iterator

from hudi_sql.errors import HudiFileFormatError, UnsupportedFeatureError
from hudi_sql.hfile.block import Block, read_block
from hudi_sql.hfile.format import (
    TRAILER_SIZE,
    BlockType,
    CellLayout,
    FileInfoKey,
    IndexEntry,
    Trailer,
    decode_file_info,
    decode_root_index,
    row_of,
)


class HFileReader:
    """An HFile held in memory, with its index and file info parsed.

    Keys are the rows of the file's cells (Hudi's record keys); values are the cells' values.
    A file is immutable once written, so the reader keeps the bytes and decodes blocks on demand,
    caching the last data block read (lookups of sorted keys mostly hit one block in turn).
    """

    def __init__(self, data: bytes, *, source: str = "<bytes>") -> None:
        self._data = data
        self._source = source
        try:
            self.trailer = Trailer.decode(data)
        except HudiFileFormatError as e:
            raise self._located(e) from e
        if self.trailer.num_data_index_levels > 1:
            raise UnsupportedFeatureError(
                f"{source} has a {self.trailer.num_data_index_levels}-level data index; only a single "
                "root index level is read", help="multi-level indexes appear only in very large HFiles")
        self._end = len(data) - TRAILER_SIZE
        start = self.trailer.load_on_open_data_offset
        if not 0 <= start < self._end:
            raise HudiFileFormatError(
                f"{source}: the trailer puts the load-on-open section at offset {start}, outside the "
                f"{self._end} bytes before the trailer")
        root = self._read(start, BlockType.ROOT_INDEX, self._end)
        meta = self._read(_after(root), BlockType.ROOT_INDEX, self._end)
        info = self._read(_after(meta), BlockType.FILE_INFO, self._end)
        self._data_index = self._index(root, self.trailer.data_index_count, "data")
        self._meta_index = {e.key: e for e in self._index(meta, self.trailer.meta_index_count, "meta")}
        try:
            self._file_info = decode_file_info(info.data)
            self._first_rows = [row_of(e.key) for e in self._data_index]
        except ValueError as e:
            raise HudiFileFormatError(f"{source}: the block at offset {info.offset} does not parse: {e}") from e
        encoding = self._file_info.get(FileInfoKey.DATA_BLOCK_ENCODING.value, b"NONE")
        if encoding != b"NONE":
            raise UnsupportedFeatureError(f"{source} uses the data block encoding {encoding.decode()!r}")
        self._layout = CellLayout.from_file_info(self._file_info)
        self._cached: tuple[int, list[tuple[bytes, bytes]]] | None = None

    @classmethod
    def from_bytes(cls, data: bytes) -> HFileReader:
        """A reader of the whole file *data*."""
        return cls(bytes(data))

    @classmethod
    def open(cls, path: str | os.PathLike[str]) -> HFileReader:
        """A reader of the file at *path*, read whole into memory."""
        with open(path, "rb") as f:
            return cls(f.read(), source=os.fspath(path))

    @property
    def file_info(self) -> dict[bytes, bytes]:
        """Every file info entry: the writer's (``schema``, ``INDEX_INFO``...) and the ``hfile.*`` ones."""
        return dict(self._file_info)

    @property
    def entry_count(self) -> int:
        return self.trailer.entry_count

    @property
    def meta_block_names(self) -> list[str]:
        return [name.decode("utf-8", "replace") for name in self._meta_index]

    def get(self, key: bytes) -> bytes | None:
        """The value stored under *key*, reading at most one data block."""
        block = bisect.bisect_right(self._first_rows, key) - 1
        if block < 0:
            return None
        cells = self._cells(block)
        at = bisect.bisect_left(cells, key, key=lambda cell: cell[0])
        return cells[at][1] if at < len(cells) and cells[at][0] == key else None

    def items(self) -> Iterator[tuple[bytes, bytes]]:
        """Every ``(key, value)`` in key order."""
        for block in range(len(self._data_index)):
            yield from self._cells(block)

    def items_with_prefix(self, prefix: bytes) -> Iterator[tuple[bytes, bytes]]:
        """The ``(key, value)`` pairs whose key starts with *prefix*, in key order."""
        first = max(bisect.bisect_right(self._first_rows, prefix) - 1, 0)
        for block in range(first, len(self._data_index)):
            for key, value in self._cells(block):
                if key.startswith(prefix):
                    yield key, value
                elif key > prefix:
                    return

    def meta_block(self, name: str) -> bytes | None:
        """The content of the meta block *name*, or None when the file has none of that name."""
        entry = self._meta_index.get(name.encode("utf-8"))
        if entry is None:
            return None
        return self._read(entry.offset, BlockType.META, self._index_end(entry, "meta")).data

    # --- blocks ------------------------------------------------------------------------------

    def _read(self, offset: int, kind: BlockType, end: int) -> Block:
        try:
            return read_block(self._data, offset, compression=self.trailer.compression, expected=kind, end=end)
        except HudiFileFormatError as e:
            raise self._located(e) from e

    def _located(self, error: HudiFileFormatError) -> HudiFileFormatError:
        """*error* with the file's name in front (its offsets say where in the file)."""
        message = str(error)
        if error.help:
            message = message.rsplit("\nHelp: ", 1)[0]
        return HudiFileFormatError(f"{self._source}: {message}", help=error.help)

    def _index(self, block: Block, count: int, what: str) -> list[IndexEntry]:
        try:
            return decode_root_index(block.data, count)
        except ValueError as e:
            raise HudiFileFormatError(
                f"{self._source}: the {what} index block at offset {block.offset} does not hold "
                f"the {count} entries the trailer counts: {e}") from e

    def _index_end(self, entry: IndexEntry, what: str) -> int:
        end = entry.offset + entry.on_disk_size
        if entry.offset < 0 or end > self.trailer.load_on_open_data_offset:
            raise HudiFileFormatError(
                f"{self._source}: a {what} index entry puts a block at offsets {entry.offset} to {end}, "
                f"outside the {self.trailer.load_on_open_data_offset} bytes of data and meta blocks")
        return end

    def _cells(self, block: int) -> list[tuple[bytes, bytes]]:
        if self._cached is not None and self._cached[0] == block:
            return self._cached[1]
        entry = self._data_index[block]
        read = self._read(entry.offset, BlockType.DATA, self._index_end(entry, "data"))
        if read.header.on_disk_size_with_header != entry.on_disk_size:
            raise HudiFileFormatError(
                f"{self._source}: the data block at offset {entry.offset} is "
                f"{read.header.on_disk_size_with_header} bytes on disk, its index entry says {entry.on_disk_size}")
        try:
            cells = list(self._layout.cells(read.data))
        except ValueError as e:
            raise HudiFileFormatError(
                f"{self._source}: the data block at offset {entry.offset} does not parse: {e}") from e
        self._cached = (block, cells)
        return cells


def _after(block: Block) -> int:
    return block.offset + block.header.on_disk_size_with_header
