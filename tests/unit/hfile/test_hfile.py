"""HFile version 3 as Apache Hudi keeps its metadata table and bootstrap index in it.

What we write reads back entry for entry, and its bytes follow the layout Hudi's and HBase's
readers expect (block magics and headers, CRC32C per 16 KiB chunk, HBase cells, the 4096-byte
trailer with version 3). Damaged files are refused with the offset of the damage.
"""

from __future__ import annotations

import dataclasses
import struct
from pathlib import Path
from typing import Any

import pytest

from hudi_sql.errors import HudiFileFormatError, UnsupportedFeatureError
from hudi_sql.hfile import BlockType, Compression, HFileReader, Trailer, write_hfile
from hudi_sql.hfile.block import BlockHeader
from hudi_sql.hfile.checksum import crc32c, num_checksum_bytes
from hudi_sql.hfile.format import HEADER_SIZE, LATEST_TIMESTAMP, PUT, TRAILER_SIZE

PARTITIONS = [f"dt=2024-01-{day:02d}".encode() for day in range(1, 29)]
ENTRIES = sorted((p + f"/key-{i:05d}".encode(), f"value of {i} ".encode() * (i % 5 + 1))
                 for i, p in enumerate(PARTITIONS * 40))


def _blocks(data: bytes) -> list[tuple[int, BlockHeader]]:
    """Every block before the trailer, by walking the headers."""
    found, offset = [], 0
    while offset < len(data) - TRAILER_SIZE:
        header = BlockHeader.decode(data, offset)
        found.append((offset, header))
        offset += header.on_disk_size_with_header
    return found


def _with_trailer(data: bytes, **changes: Any) -> bytes:
    return data[:-TRAILER_SIZE] + dataclasses.replace(Trailer.decode(data), **changes).encode()


# --- round trips -------------------------------------------------------------------------


def test_write_many_entries_small_blocks_read_back_in_order() -> None:
    data = write_hfile(ENTRIES, block_size=1024)
    reader = HFileReader.from_bytes(data)

    assert reader.trailer.data_index_count > 10
    assert reader.entry_count == len(ENTRIES)
    assert list(reader.items()) == ENTRIES


def test_get_present_keys_return_their_values_absent_keys_none() -> None:
    reader = HFileReader.from_bytes(write_hfile(ENTRIES, block_size=1024))

    for key, value in ENTRIES[::37] + ENTRIES[-1:]:
        assert reader.get(key) == value
    for absent in (b"", b"a", b"dt=2024-01-01", ENTRIES[5][0] + b"\x00", b"dt=2024-01-29", b"\xff"):
        assert reader.get(absent) is None


def test_items_with_prefix_spanning_blocks_returns_exactly_the_matches() -> None:
    reader = HFileReader.from_bytes(write_hfile(ENTRIES, block_size=512))

    for prefix in (b"dt=2024-01-07/", b"dt=2024-01-2", b"dt=2024-01-28/key-0", b"dt=2024-01-01/"):
        assert list(reader.items_with_prefix(prefix)) == [e for e in ENTRIES if e[0].startswith(prefix)]
    assert list(reader.items_with_prefix(b"")) == ENTRIES
    assert list(reader.items_with_prefix(b"dt=2023")) == []
    assert list(reader.items_with_prefix(b"zzz")) == []


def test_file_info_and_meta_blocks_round_trip_beside_the_format_entries() -> None:
    schema = b'{"type":"record","name":"HoodieMetadataRecord","fields":[]}'
    data = write_hfile(
        [(b"__all_partitions__", b"payload")],
        file_info={b"schema": schema, b"minRecordKey": b"__all_partitions__", b"INDEX_INFO": b"\x00\x01"},
        meta_blocks={"bloomFilter": b"/////wAAAB4B" * 1000, "another": b""},
    )
    reader = HFileReader.from_bytes(data)

    assert reader.file_info[b"schema"] == schema
    assert reader.file_info[b"INDEX_INFO"] == b"\x00\x01"
    assert reader.file_info[b"hfile.AVG_KEY_LEN"] == (12 + len(b"__all_partitions__")).to_bytes(4, "big")
    assert reader.file_info[b"hfile.AVG_VALUE_LEN"] == (7).to_bytes(4, "big")
    assert reader.file_info[b"KEY_VALUE_VERSION"] == (1).to_bytes(4, "big")
    assert reader.file_info[b"MAX_MEMSTORE_TS_KEY"] == bytes(8)
    assert reader.file_info[b"hfile.LASTKEY"] == (
        b"\x00\x12__all_partitions__" + struct.pack(">bqb", 0, LATEST_TIMESTAMP, PUT))
    assert reader.meta_block_names == ["another", "bloomFilter"]
    assert reader.meta_block("bloomFilter") == b"/////wAAAB4B" * 1000
    assert reader.meta_block("another") == b""
    assert reader.meta_block("nosuch") is None


def test_gz_compressed_file_round_trips_and_says_gz_in_its_trailer() -> None:
    data = write_hfile(ENTRIES, block_size=2048, compression=Compression.GZ,
                       meta_blocks={"bloomFilter": b"b" * 10000})
    reader = HFileReader.from_bytes(data)

    assert reader.trailer.compression is Compression.GZ
    assert len(data) < len(write_hfile(ENTRIES, block_size=2048))
    assert list(reader.items()) == ENTRIES
    assert reader.meta_block("bloomFilter") == b"b" * 10000


def test_empty_file_has_no_data_block_and_reads_as_empty() -> None:
    reader = HFileReader.from_bytes(write_hfile([], file_info={b"INDEX_INFO": b"x"}))

    assert reader.entry_count == 0
    assert list(reader.items()) == []
    assert reader.get(b"anything") is None
    assert reader.trailer.first_data_block_offset == reader.trailer.last_data_block_offset == -1
    assert b"hfile.LASTKEY" not in reader.file_info


def test_open_reads_a_file_from_disk(tmp_path: Path) -> None:
    path = tmp_path / "files-0000-0_0-1-1_00000000000000010.hfile"
    path.write_bytes(write_hfile(ENTRIES[:3]))

    assert list(HFileReader.open(str(path)).items()) == ENTRIES[:3]


# --- what the writer refuses -------------------------------------------------------------


@pytest.mark.parametrize("entries", [
    [(b"b", b"1"), (b"a", b"2")],
    [(b"a", b"1"), (b"a", b"2")],
    [(b"dt=p1/k2", b""), (b"dt=p1/k10", b"")],
])
def test_write_keys_out_of_order_or_repeated_refused(entries: list[tuple[bytes, bytes]]) -> None:
    with pytest.raises(HudiFileFormatError, match="entry 1 has key"):
        write_hfile(entries)


def test_write_key_longer_than_a_short_refused() -> None:
    with pytest.raises(HudiFileFormatError, match="longer than 32767"):
        write_hfile([(b"k" * 40000, b"v")])


@pytest.mark.parametrize("name", [b"hfile.LASTKEY", b"hfile.ANYTHING", b"KEY_VALUE_VERSION"])
def test_write_file_info_name_the_format_reserves_refused(name: bytes) -> None:
    with pytest.raises(HudiFileFormatError, match="reserved"):
        write_hfile([(b"k", b"v")], file_info={name: b"x"})


# --- the bytes on disk -------------------------------------------------------------------


def test_trailer_is_the_last_4096_bytes_with_magic_and_version_3() -> None:
    data = write_hfile(ENTRIES, block_size=4096, meta_blocks={"bloomFilter": b"x"})
    trailer = Trailer.decode(data)
    blocks = _blocks(data)

    assert data[-TRAILER_SIZE:][:8] == b'TRABLK"$'
    assert data[-4:] == b"\x03\x00\x00\x03"  # minor 3 in the high byte, major 3 below it
    assert (trailer.major_version, trailer.minor_version) == (3, 3)
    assert trailer.comparator_class_name == "org.apache.hudi.io.storage.HoodieHBaseKVComparator"
    assert trailer.compression is Compression.NONE
    assert trailer.num_data_index_levels == 1
    assert trailer.entry_count == len(ENTRIES)
    assert trailer.meta_index_count == 1
    data_blocks = [offset for offset, h in blocks if h.block_type is BlockType.DATA]
    assert trailer.data_index_count == len(data_blocks)
    assert (trailer.first_data_block_offset, trailer.last_data_block_offset) == (data_blocks[0], data_blocks[-1])
    kinds = [h.block_type for _, h in blocks]
    assert kinds[len(data_blocks):] == [BlockType.META, BlockType.ROOT_INDEX, BlockType.ROOT_INDEX,
                                        BlockType.FILE_INFO]
    assert trailer.load_on_open_data_offset == blocks[-3][0]
    assert trailer.file_info_offset == blocks[-1][0]


def test_block_headers_chain_blocks_of_a_type_and_carry_crc32c_per_chunk() -> None:
    data = write_hfile(ENTRIES, block_size=40000, meta_blocks={"a": b"1", "b": b"2"})
    blocks = _blocks(data)

    previous: dict[BlockType, int] = {}
    for offset, header in blocks:
        assert header.checksum_type.name == "CRC32C"
        assert header.bytes_per_checksum == 16384
        assert header.on_disk_data_size_with_header == HEADER_SIZE + header.uncompressed_size_without_header
        covered = data[offset : offset + header.on_disk_data_size_with_header]
        stored = data[offset + header.on_disk_data_size_with_header : offset + header.on_disk_size_with_header]
        assert stored == b"".join(crc32c(covered[i : i + 16384]).to_bytes(4, "big")
                                  for i in range(0, len(covered), 16384))
        # HBase keeps one prevBlockOffset chain per block type; the file info starts its own
        assert header.prev_block_offset == previous.get(header.block_type, -1)
        previous[header.block_type] = offset
    assert any(h.on_disk_size_with_header - h.on_disk_data_size_with_header > 4 for _, h in blocks), \
        "some block should span several checksum chunks"


def test_data_block_cells_are_hbase_keyvalues_with_empty_family_latest_timestamp_put() -> None:
    data = write_hfile([(b"dt=p1", b"avro"), (b"dt=p2", b"")])

    cells = data[HEADER_SIZE : HEADER_SIZE + BlockHeader.decode(data, 0).uncompressed_size_without_header]
    key = b"\x00\x05dt=p1" + b"\x00" + b"\x7f" + b"\xff" * 7 + b"\x04"
    assert cells.startswith(struct.pack(">ii", len(key), 4) + key + b"avro" + b"\x00")
    assert len(cells) == 2 * (8 + len(key) + 1) + 4


def test_root_index_keys_are_the_first_cell_keys_of_each_data_block() -> None:
    data = write_hfile(ENTRIES, block_size=2048)
    trailer = Trailer.decode(data)
    root = BlockHeader.decode(data, trailer.load_on_open_data_offset)
    index = data[trailer.load_on_open_data_offset + HEADER_SIZE :][: root.uncompressed_size_without_header]

    offset, size, key_length = struct.unpack_from(">qiB", index, 0)
    first_key = ENTRIES[0][0]
    assert (offset, size, key_length) == (0, BlockHeader.decode(data, 0).on_disk_size_with_header,
                                          len(first_key) + 12)
    assert index[13 : 13 + key_length] == len(first_key).to_bytes(2, "big") + first_key + (
        struct.pack(">bqb", 0, LATEST_TIMESTAMP, PUT))


def test_big_blocks_of_tiny_cells_end_where_hudis_native_reader_still_sees_the_last_cell() -> None:
    """Hudi's ``HFileDataBlock`` stops ``numChecksumBytes(onDiskSizeWithHeader)`` before the data ends."""
    tiny = [(f"k{i:06d}".encode(), b"v") for i in range(12000)]
    data = write_hfile(tiny, block_size=1 << 20)

    for offset, header in _blocks(data):
        if header.block_type is BlockType.DATA:
            cells = data[offset + HEADER_SIZE : offset + HEADER_SIZE + header.uncompressed_size_without_header]
            last_cell_start = len(cells) - 29  # every cell: lengths 8, key 2 + 7 + 10, value 1, memstore 1
            hudi_end = len(cells) - num_checksum_bytes(header.on_disk_size_with_header, 16384)
            assert last_cell_start < hudi_end
    assert list(HFileReader.from_bytes(data).items()) == tiny


def test_crc32c_matches_the_castagnoli_check_value() -> None:
    assert crc32c(b"123456789") == 0xE3069283
    assert crc32c(b"") == 0


# --- damaged files -----------------------------------------------------------------------


def test_flipped_byte_in_a_data_block_fails_its_checksum_naming_the_block() -> None:
    data = bytearray(write_hfile(ENTRIES, block_size=1024))
    second = _blocks(bytes(data))[1][0]
    data[second + HEADER_SIZE + 5] ^= 0x01
    reader = HFileReader.from_bytes(bytes(data))

    assert reader.get(ENTRIES[0][0]) == ENTRIES[0][1]  # the first block is intact
    with pytest.raises(HudiFileFormatError, match=f"checksum mismatch in the DATA block at offset {second}"):
        list(reader.items())


def test_flipped_byte_in_the_file_info_fails_on_open() -> None:
    data = bytearray(write_hfile(ENTRIES[:10]))
    data[Trailer.decode(bytes(data)).file_info_offset + HEADER_SIZE + 1] ^= 0x40

    with pytest.raises(HudiFileFormatError, match="checksum mismatch in the FILE_INFO block"):
        HFileReader.from_bytes(bytes(data))


@pytest.mark.parametrize("keep", [0.5, 0.99, 10])
def test_truncated_file_refused_as_truncated(keep: float) -> None:
    data = write_hfile(ENTRIES, block_size=1024)

    with pytest.raises(HudiFileFormatError, match="truncated"):
        HFileReader.from_bytes(data[: int(len(data) * keep) if keep < 1 else int(keep)])


def test_damaged_block_size_refused_with_its_offset() -> None:
    data = write_hfile(ENTRIES[:10])
    load_on_open = Trailer.decode(data).load_on_open_data_offset
    damaged = data[: load_on_open + 8] + (10**6).to_bytes(4, "big") + data[load_on_open + 12 :]

    with pytest.raises(HudiFileFormatError, match=f"block at offset {load_on_open} claims"):
        HFileReader.from_bytes(damaged)


def test_multi_level_data_index_refused_as_unsupported() -> None:
    data = _with_trailer(write_hfile(ENTRIES[:10]), num_data_index_levels=2)

    with pytest.raises(UnsupportedFeatureError, match="2-level data index"):
        HFileReader.from_bytes(data)


def test_snappy_compressed_file_refused_as_unsupported() -> None:
    data = _with_trailer(write_hfile(ENTRIES[:10]), compression=Compression.SNAPPY)

    with pytest.raises(UnsupportedFeatureError, match="SNAPPY"):
        HFileReader.from_bytes(data)


def test_other_major_version_refused_as_unsupported() -> None:
    data = write_hfile(ENTRIES[:10])

    with pytest.raises(UnsupportedFeatureError, match="major version 2"):
        HFileReader.from_bytes(data[:-4] + b"\x03\x00\x00\x02")
