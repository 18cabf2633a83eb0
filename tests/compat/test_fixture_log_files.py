"""Real log files written by Apache Hudi 0.14: decode them, and rebuild them byte for byte.

Re-encoding keeps each block's header order as read (Java serialises a HashMap, so the order
is not reproducible otherwise). Parquet data blocks were written by parquet-mr and cannot be
rebuilt from rows, so their content bytes are re-framed as read, and their rows are
cross-checked through an Avro round trip with the block's own SCHEMA instead.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from fixture_tables import SampleTable, log_file_fixture

from hudi_sql.log.block import (
    BlockType,
    CommandBlock,
    DataBlock,
    DeleteBlock,
    HeaderKey,
    OrderingKind,
    OrderingValue,
    RawBlock,
)
from hudi_sql.log.format import (
    LogFileName,
    encode_avro_data_block,
    encode_delete_block,
    encode_rollback_block,
    frame_block,
)
from hudi_sql.log.reader import decode_block, read_log_blocks, read_raw_blocks
from hudi_sql.log.scanner import merge_log_records, scan_file_slice_logs

pytestmark = pytest.mark.compat

MOR_TABLES = [
    SampleTable.MOR_AVRO_TRIPS_8I1U,
    SampleTable.MOR_PARQUET_NONPARTITIONED,
    SampleTable.MOR_PARQUET_SIMPLEKEYGEN_NONHIVESTYLE,
]
SOURCES = ["valid_log_delete", "valid_log_avro_data", *MOR_TABLES]
META = [
    "_hoodie_commit_time",
    "_hoodie_commit_seqno",
    "_hoodie_record_key",
    "_hoodie_partition_path",
    "_hoodie_file_name",
]


def _folder(source: str | SampleTable) -> Path:
    return source.path() if isinstance(source, SampleTable) else log_file_fixture(source)


def _log_files(folder: Path) -> list[Path]:
    files = [p for p in folder.rglob(".*.log.*") if "__MACOSX" not in p.parts]
    return sorted(files, key=lambda p: LogFileName.parse(p.name))


def _completed_instants(table: Path) -> set[str]:
    return {p.name.split(".")[0] for p in (table / ".hoodie").glob("*.deltacommit")}


def _reencode(raw: RawBlock) -> bytes:
    order = list(raw.header)
    block = decode_block(raw)
    if isinstance(block, CommandBlock):
        return encode_rollback_block(block.instant_time, block.target_instant_time, header_order=order)
    if isinstance(block, DeleteBlock):
        return encode_delete_block(block.instant_time, block.schema, block.records, header_order=order)
    if block.block_type is BlockType.AVRO_DATA:
        # Record by record (fastavro), and column-wise from the Arrow rows where the schema is flat.
        by_record = encode_avro_data_block(
            block.instant_time, block.schema, block.to_avro_records(), header_order=order
        )
        by_column = encode_avro_data_block(block.instant_time, block.schema, block.records, header_order=order)
        assert by_column == by_record, f"column-wise encoding differs in a block of {block.instant_time}"
        return by_record
    return frame_block(raw.block_type, raw.header, raw.content, raw.footer)


@pytest.mark.parametrize("source", SOURCES, ids=str)
def test_fixture_log_file_reencodes_byte_identical(source: str | SampleTable) -> None:
    files = _log_files(_folder(source))
    assert files, f"no log file found for {source}"

    for path in files:
        data = path.read_bytes()
        raws = list(read_raw_blocks(data))
        assert all(isinstance(r, RawBlock) for r in raws), f"{path.name} has corrupt spans"

        rebuilt = b"".join(_reencode(r) for r in raws if isinstance(r, RawBlock))

        assert rebuilt == data, path.name


def _datagen_uuids(sql: str, riders: list[str]) -> dict[str, str]:
    """rider -> uuid from the INSERT rows of a datagen.sql."""
    rows = re.findall(r"\(\d+,\s*'([0-9a-f-]{36})',\s*'(rider-[A-Z])'", sql)
    return {rider: uuid for uuid, rider in rows if rider in riders}


def test_fixture_delete_log_decodes_rider_a_c_d_natural_order_deletes() -> None:
    folder = log_file_fixture("valid_log_delete")
    (path,) = _log_files(folder)
    sql = (folder / "datagen.sql").read_text()
    uuids = _datagen_uuids(sql, ["rider-A", "rider-C", "rider-D"])
    assert "WHERE rider in ('rider-A', 'rider-C', 'rider-D')" in sql and len(uuids) == 3

    (block,) = list(read_log_blocks(path))

    assert isinstance(block, DeleteBlock)
    assert block.instant_time == "20250618054714114"
    assert list(block.header) == [HeaderKey.SCHEMA, HeaderKey.INSTANT_TIME]
    assert '"name":"v6_trips_8i3d_record"' in block.schema
    assert {r.record_key for r in block.records} == set(uuids.values())
    assert len(block.records) == 3
    assert {r.partition_path for r in block.records} == {"city=san_francisco"}
    assert {r.ordering_value for r in block.records} == {OrderingValue(OrderingKind.INT, 0)}
    assert all(r.ordering_value is not None and r.ordering_value.is_natural for r in block.records)


def _assert_meta_fields(block: DataBlock, file_id: str) -> None:
    table = block.to_arrow()
    assert table.column_names[:5] == META
    for row in table.to_pylist():
        assert row["_hoodie_commit_time"] == block.instant_time
        assert row["_hoodie_commit_seqno"].startswith(f"{block.instant_time}_")
        assert row["_hoodie_file_name"] == file_id


def test_fixture_avro_data_log_decodes_rows_with_meta_fields() -> None:
    (path,) = _log_files(log_file_fixture("valid_log_avro_data"))

    (block,) = list(read_log_blocks(path))

    assert isinstance(block, DataBlock) and block.block_type is BlockType.AVRO_DATA
    _assert_meta_fields(block, LogFileName.parse(path.name).file_id)
    rows = block.to_arrow().to_pylist()
    assert len(rows) == 1
    row = rows[0]
    assert row["_hoodie_record_key"] == row["uuid"]
    assert row["_hoodie_partition_path"] == f"city={row['city']}"
    assert set(row) == {*META, "ts", "uuid", "rider", "driver", "fare", "city"}
    assert isinstance(row["ts"], int) and isinstance(row["fare"], float)


def test_fixture_trips_8i1u_slice_log_holds_rider_d_update() -> None:
    table = SampleTable.MOR_AVRO_TRIPS_8I1U.path()
    (path,) = _log_files(table)
    name = LogFileName.parse(path.name)
    base_files = list(path.parent.glob(f"{name.file_id}_*.parquet"))
    completed = _completed_instants(table)

    result = scan_file_slice_logs([(path.name, path)], completed_instants=completed)
    merged = merge_log_records(result.blocks, ordering_field="ts")

    assert [b.name for b in base_files] and base_files[0].stem.endswith(f"_{name.base_instant}")
    (block,) = result.data_blocks
    assert block.instant_time in completed and block.instant_time != name.base_instant
    _assert_meta_fields(block, name.file_id)
    (row,) = merged.records.to_pylist()
    assert (row["rider"], row["fare"], row["ts"]) == ("rider-D", 25.0, 1695046462179)
    assert row["_hoodie_partition_path"] == "city=san_francisco"
    assert merged.deletes == ()


@pytest.mark.parametrize(
    "table",
    [SampleTable.MOR_PARQUET_NONPARTITIONED, SampleTable.MOR_PARQUET_SIMPLEKEYGEN_NONHIVESTYLE],
    ids=str,
)
def test_fixture_parquet_log_holds_alice_update(table: SampleTable) -> None:
    base = table.path()
    files = _log_files(base)

    result = scan_file_slice_logs([(p.name, p) for p in files], completed_instants=_completed_instants(base))
    merged = merge_log_records(result.blocks, ordering_field="longField")

    assert result.corrupt_blocks == 0 and result.rollback_blocks == 0
    assert all(b.block_type is BlockType.PARQUET_DATA for b in result.data_blocks)
    _assert_meta_fields(result.data_blocks[0], LogFileName.parse(files[0].name).file_id)
    (row,) = merged.records.to_pylist()
    assert (row["_hoodie_record_key"], row["id"], row["name"], row["isActive"]) == ("1", 1, "Alice", False)


@pytest.mark.parametrize(
    "table",
    [SampleTable.MOR_PARQUET_NONPARTITIONED, SampleTable.MOR_PARQUET_SIMPLEKEYGEN_NONHIVESTYLE],
    ids=str,
)
def test_fixture_parquet_log_rows_round_trip_through_avro_schema(table: SampleTable) -> None:
    # The header SCHEMA describes the parquet rows; encoding them as an Avro block with it and
    # decoding again must give the same values (decimal, date, timestamp, map, array, struct).
    for path in _log_files(table.path()):
        for block in read_log_blocks(path):
            assert isinstance(block, DataBlock)
            avro = encode_avro_data_block(block.instant_time, block.schema, block.to_avro_records())
            (again,) = list(read_log_blocks(avro))
            assert isinstance(again, DataBlock)
            assert again.to_avro_records() == block.to_avro_records()
