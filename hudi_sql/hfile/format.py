"""The byte layout of HFile version 3 as Apache Hudi writes it: constants, trailer, cells, indexes.

An HFile is a sequence of blocks followed by a fixed-size trailer::

    data blocks ("DATABLK*")          the cells, in key order
    meta blocks ("METABLKc")          named byte strings (Hudi: the "bloomFilter" of the files partition)
    --- load-on-open section ---      (the trailer's loadOnOpenDataOffset)
    root data index ("IDXROOT2")      per data block: offset, on-disk size, first key
    meta index ("IDXROOT2")           per meta block: offset, on-disk size, name
    file info ("FILEINF2")            "PBUF" + length-delimited FileInfoProto
    trailer                           4096 bytes: 'TRABLK"$' + length-delimited FileTrailerProto,
                                      zero padding, then the version int

Every block starts with a 33-byte header (see :mod:`hudi_sql.hfile.block`). The facts here come
from Apache Hudi's own reader and writer (``hudi-io``: ``HFileBlockType``, ``HFileTrailer``,
``HFileInfo``, ``HFileUtils``, ``HFileRootIndexBlock``, ``HFileDataBlock``, ``HFileWriterImpl``)
and were checked against metadata-table files Apache Hudi 0.15 wrote through HBase.

**Cells.** Hudi stores one HBase ``KeyValue`` per record: ``int32 keyLength, int32 valueLength,
key, value``, then a memstore timestamp (a Hadoop ``VLong``, always the single byte 0) because
the file info says ``KEY_VALUE_VERSION = 1``. The key is ``int16 rowLength, row, int8
familyLength (0), int64 timestamp (Long.MAX_VALUE), int8 type (4, Put)`` with an empty family
and qualifier; the row is the record key. No tags are written (there is no
``hfile.MAX_TAGS_LEN`` in the file info), and Hudi's native reader could not skip them.

**Version.** The trailer's last int is ``minor << 24 | major``: HBase writes major 3, minor 3;
HBase readers take a minor version below 2 for the old Writable trailer, so we write 3 too.
"""

from __future__ import annotations

__all__ = [
    "COMPARATOR_CLASS_NAME",
    "HEADER_SIZE",
    "LATEST_TIMESTAMP",
    "MAJOR_VERSION",
    "MAX_ROW_LENGTH",
    "MINOR_VERSION",
    "PUT",
    "TRAILER_SIZE",
    "BlockType",
    "CellLayout",
    "Compression",
    "FileInfoKey",
    "IndexEntry",
    "Trailer",
    "decode_file_info",
    "decode_root_index",
    "encode_cell",
    "encode_file_info",
    "encode_root_index",
    "kv_key",
    "row_of",
]

import enum
import struct
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from hudi_sql.errors import HudiFileFormatError, UnsupportedFeatureError
from hudi_sql.hfile import protobuf

HEADER_SIZE = 33
TRAILER_SIZE = 4096
MAJOR_VERSION = 3
MINOR_VERSION = 3
#: The timestamp of every cell Hudi writes (HBase's ``HConstants.LATEST_TIMESTAMP``).
LATEST_TIMESTAMP = (1 << 63) - 1
#: The cell type of every cell Hudi writes (HBase's ``KeyValue.Type.Put``).
PUT = 4
#: The comparator HBase readers load by name; Hudi 1.x's writer names it too, the 0.15 bundle has it.
COMPARATOR_CLASS_NAME = "org.apache.hudi.io.storage.HoodieHBaseKVComparator"
PB_MAGIC = b"PBUF"
MAX_ROW_LENGTH = 0x7FFF
_KEY_SUFFIX = struct.pack(">bqb", 0, LATEST_TIMESTAMP, PUT)
_INT64 = 1 << 64


class BlockType(enum.Enum):
    """Block kinds by their 8-byte magic (``HFileBlockType``)."""

    DATA = b"DATABLK*"
    ENCODED_DATA = b"DATABLKE"
    LEAF_INDEX = b"IDXLEAF2"
    BLOOM_CHUNK = b"BLMFBLK2"
    META = b"METABLKc"
    INTERMEDIATE_INDEX = b"IDXINTE2"
    ROOT_INDEX = b"IDXROOT2"
    FILE_INFO = b"FILEINF2"
    GENERAL_BLOOM_META = b"BLMFMET2"
    DELETE_FAMILY_BLOOM_META = b"DFBLMET2"
    TRAILER = b'TRABLK"$'
    INDEX_V1 = b"IDXBLK)+"


class Compression(enum.IntEnum):
    """The trailer's codec id; the ids are fixed forever, uncompressed files say NONE (2)."""

    LZO = 0
    GZ = 1
    NONE = 2
    SNAPPY = 3
    LZ4 = 4
    BZIP2 = 5
    ZSTD = 6


class FileInfoKey(bytes, enum.Enum):
    """File info entries HBase writes itself; names with the ``hfile.`` prefix are reserved."""

    LAST_KEY = b"hfile.LASTKEY"
    AVG_KEY_LEN = b"hfile.AVG_KEY_LEN"
    AVG_VALUE_LEN = b"hfile.AVG_VALUE_LEN"
    CREATE_TIME_TS = b"hfile.CREATE_TIME_TS"
    MAX_TAGS_LEN = b"hfile.MAX_TAGS_LEN"
    DATA_BLOCK_ENCODING = b"DATA_BLOCK_ENCODING"
    KEY_VALUE_VERSION = b"KEY_VALUE_VERSION"
    MAX_MEMSTORE_TS_KEY = b"MAX_MEMSTORE_TS_KEY"

    @staticmethod
    def is_reserved(name: bytes) -> bool:
        """Whether a user entry of this name would clash with what the writer adds."""
        return name.startswith(b"hfile.") or name in {k.value for k in FileInfoKey}


# --- cells -------------------------------------------------------------------------------


def kv_key(row: bytes) -> bytes:
    """The HBase key of a Hudi cell: row, empty family and qualifier, latest timestamp, Put."""
    return len(row).to_bytes(2, "big") + row + _KEY_SUFFIX


def row_of(key: bytes | memoryview) -> bytes:
    """The row (record key) of an HBase key; what follows the row (family, timestamp, type) is ignored."""
    length = int.from_bytes(key[:2], "big")
    if len(key) < 2 + length:
        raise ValueError(f"key of {len(key)} bytes is shorter than its row length {length}")
    return bytes(key[2 : 2 + length])


def encode_cell(row: bytes, value: bytes) -> bytes:
    """One cell of a data block, memstore timestamp 0 included, no tags."""
    key = kv_key(row)
    return struct.pack(">ii", len(key), len(value)) + key + value + b"\x00"


@dataclass(frozen=True)
class CellLayout:
    """What follows a cell's value, as the file info declares it (HBase's ``HFileInfo``)."""

    includes_tags: bool = False
    includes_mvcc: bool = True

    @classmethod
    def from_file_info(cls, info: Mapping[bytes, bytes]) -> CellLayout:
        version = info.get(FileInfoKey.KEY_VALUE_VERSION.value)
        return cls(
            includes_tags=FileInfoKey.MAX_TAGS_LEN.value in info,
            includes_mvcc=version is not None and int.from_bytes(version[:4], "big") == 1,
        )

    def cells(self, data: bytes | memoryview) -> Iterator[tuple[bytes, bytes]]:
        """The (row, value) of every cell in a data block's uncompressed data."""
        view = memoryview(data)
        pos, end = 0, len(view)
        while pos < end:
            if pos + 8 > end:
                raise ValueError(f"cell at {pos} is cut short")
            key_length, value_length = struct.unpack_from(">ii", view, pos)
            key_start = pos + 8
            value_start = key_start + key_length
            pos = value_start + value_length
            if key_length < 2 or value_length < 0 or pos > end:
                raise ValueError(f"cell at {key_start - 8} has lengths {key_length}/{value_length} "
                                 f"past the end of the block data ({end} bytes)")
            if self.includes_tags:
                pos += 2 + int.from_bytes(view[pos : pos + 2], "big")
            if self.includes_mvcc:
                pos += _vlong_size(view[pos]) if pos < end else 1
            if pos > end:
                raise ValueError(f"cell at {key_start - 8} runs past the end of the block data")
            yield row_of(view[key_start:value_start]), bytes(view[value_start : value_start + value_length])


def _vlong_size(first: int) -> int:
    """Length of a Hadoop ``WritableUtils`` VLong from its first byte (HBase's memstore timestamps)."""
    signed = first - 256 if first > 127 else first
    if signed >= -112:
        return 1
    return -119 - signed + 1 if signed < -120 else -111 - signed + 1


# --- indexes -----------------------------------------------------------------------------


class IndexEntry(NamedTuple):
    """One root-index entry: where a block starts, its on-disk size with header, its first key."""

    offset: int
    on_disk_size: int
    key: bytes


def encode_root_index(entries: Sequence[IndexEntry]) -> bytes:
    """The data of a root index block: offset, size, varint key length, key (``BlockIndexWriter``)."""
    return b"".join(
        struct.pack(">qi", e.offset, e.on_disk_size) + protobuf.encode_varint(len(e.key)) + e.key
        for e in entries
    )


def decode_root_index(data: bytes | memoryview, count: int) -> list[IndexEntry]:
    """The *count* entries of a root index block (any mid-key metadata after them is ignored)."""
    entries, pos = [], 0
    for i in range(count):
        if pos + 12 > len(data):
            raise ValueError(f"entry {i} of {count} starts past the end of the index data")
        offset, size = struct.unpack_from(">qi", data, pos)
        length, pos = protobuf.decode_varint(data, pos + 12)
        if pos + length > len(data):
            raise ValueError(f"the key of entry {i} runs past the end of the index data")
        entries.append(IndexEntry(offset, size, bytes(data[pos : pos + length])))
        pos += length
    return entries


# --- file info ---------------------------------------------------------------------------


def encode_file_info(info: Mapping[bytes, bytes]) -> bytes:
    """The data of a file info block, entries sorted by name as HBase's ``TreeMap`` keeps them."""
    message = b"".join(
        protobuf.encode_bytes_field(
            1, protobuf.encode_bytes_field(1, name) + protobuf.encode_bytes_field(2, info[name])
        )
        for name in sorted(info)
    )
    return PB_MAGIC + protobuf.encode_delimited(message)


def decode_file_info(data: bytes | memoryview) -> dict[bytes, bytes]:
    if bytes(data[:4]) != PB_MAGIC:
        raise ValueError(f"the file info starts with {bytes(data[:4])!r}, not {PB_MAGIC!r}")
    length, pos = protobuf.decode_varint(data, 4)
    if pos + length > len(data):
        raise ValueError(f"the file info message of {length} bytes runs past its block")
    info = {}
    for number, entry in protobuf.decode_message(data[pos : pos + length]):
        if number == 1 and isinstance(entry, bytes):
            pair = dict(protobuf.decode_message(entry))
            name, value = pair.get(1, b""), pair.get(2, b"")
            if isinstance(name, bytes) and isinstance(value, bytes):
                info[name] = value
    return info


# --- trailer -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Trailer:
    """The fixed file trailer (``FileTrailerProto`` field numbers in the comments).

    Offsets HBase leaves unset (no data block in the file) are -1, stored as a 64-bit varint.
    """

    file_info_offset: int  # 1
    load_on_open_data_offset: int  # 2
    uncompressed_data_index_size: int  # 3
    total_uncompressed_bytes: int  # 4
    data_index_count: int  # 5
    meta_index_count: int  # 6
    entry_count: int  # 7
    num_data_index_levels: int  # 8
    first_data_block_offset: int  # 9
    last_data_block_offset: int  # 10
    comparator_class_name: str = COMPARATOR_CLASS_NAME  # 11
    compression: Compression = Compression.NONE  # 12
    major_version: int = MAJOR_VERSION
    minor_version: int = MINOR_VERSION

    def encode(self) -> bytes:
        """The trailer's :data:`TRAILER_SIZE` bytes."""
        numbers = (
            self.file_info_offset, self.load_on_open_data_offset, self.uncompressed_data_index_size,
            self.total_uncompressed_bytes, self.data_index_count, self.meta_index_count,
            self.entry_count, self.num_data_index_levels, self.first_data_block_offset,
            self.last_data_block_offset,
        )
        message = b"".join(protobuf.encode_varint_field(i, v) for i, v in enumerate(numbers, 1))
        message += protobuf.encode_bytes_field(11, self.comparator_class_name.encode())
        message += protobuf.encode_varint_field(12, int(self.compression))
        body = BlockType.TRAILER.value + protobuf.encode_delimited(message)
        version = (self.minor_version << 24 | self.major_version).to_bytes(4, "big")
        return body + bytes(TRAILER_SIZE - len(body) - 4) + version

    @classmethod
    def decode(cls, data: bytes | memoryview) -> Trailer:
        """The trailer at the end of the file *data*."""
        start = len(data) - TRAILER_SIZE
        if start < 0:
            raise HudiFileFormatError(
                f"HFile of {len(data)} bytes is shorter than its {TRAILER_SIZE}-byte trailer: truncated?")
        magic = bytes(data[start : start + 8])
        if magic != BlockType.TRAILER.value:
            raise HudiFileFormatError(
                f"no HFile trailer at offset {start} (found {magic!r}, expected {BlockType.TRAILER.value!r})"
                ": the file is truncated or not an HFile")
        version = bytes(data[-4:])
        major, minor = int.from_bytes(version[1:], "big"), version[0]
        if major != MAJOR_VERSION:
            raise UnsupportedFeatureError(
                f"HFile major version {major} (minor {minor}) at offset {len(data) - 4}: only version 3 "
                "is read", help="Apache Hudi writes HFile version 3; was this file written by HBase 1?")
        try:
            length, pos = protobuf.decode_varint(data, start + 8)
            if pos + length > len(data) - 4:
                raise ValueError(f"its length {length} runs past the trailer")
            fields = dict(protobuf.decode_message(data[pos : pos + length]))
            numbers = [_signed_int(fields.get(i, 0)) for i in range(1, 11)]
            name = fields.get(11, b"")
            if not isinstance(name, bytes):
                raise ValueError("the comparator class name is not a string")  # noqa: TRY004 - a damaged file
            compression = Compression(_signed_int(fields.get(12, int(Compression.NONE))))
        except ValueError as e:
            raise HudiFileFormatError(f"the HFile trailer protobuf at offset {start + 8} is damaged: {e}") from e
        (file_info_offset, load_on_open, index_size, total_bytes, data_index_count, meta_index_count,
         entry_count, levels, first_data_block, last_data_block) = numbers
        return cls(
            file_info_offset=file_info_offset,
            load_on_open_data_offset=load_on_open,
            uncompressed_data_index_size=index_size,
            total_uncompressed_bytes=total_bytes,
            data_index_count=data_index_count,
            meta_index_count=meta_index_count,
            entry_count=entry_count,
            num_data_index_levels=levels,
            first_data_block_offset=first_data_block,
            last_data_block_offset=last_data_block,
            comparator_class_name=name.decode("utf-8", "replace"),
            compression=compression,
            major_version=major,
            minor_version=minor,
        )


def _signed_int(value: int | bytes) -> int:
    """A varint field as a signed 64-bit number (HBase stores unset offsets as -1)."""
    if not isinstance(value, int):
        raise ValueError("a numeric field holds bytes")  # noqa: TRY004 - a damaged file
    return value - _INT64 if value >= 1 << 63 else value
