"""The merge rules of the payload classes (hudi_sql.model.payload), on small Arrow tables."""

from __future__ import annotations

import pyarrow as pa
import pytest

from hudi_sql.config import HudiConfigs, HudiWriteConfig
from hudi_sql.errors import HudiConfigError
from hudi_sql.log.block import DataBlock
from hudi_sql.log.scanner import merge_log_records
from hudi_sql.model.payload import Payload, merge_with_stored
from hudi_sql.model.schema import RECORD_KEY_FIELD
from hudi_sql.write.combine import ARRIVAL_COLUMN, latest_per_key
from hudi_sql.write.handles import IS_DELETE_COLUMN

COLUMNS = ["id", "name", "price", "ts"]


def _table(rows: list[tuple[object, ...]]) -> pa.Table:
    schema = pa.schema([("id", pa.string()), ("name", pa.string()), ("price", pa.float64()), ("ts", pa.int64())])
    return pa.Table.from_pylist([dict(zip(COLUMNS, r)) for r in rows], schema=schema)


def _merge(payload: Payload, stored: tuple[object, ...], incoming: tuple[object, ...],
           delete: bool = False) -> tuple[bool, bool, dict[str, object]]:
    outcome = merge_with_stored(payload, _table([stored]), _table([incoming]), pa.array([delete]), "ts", COLUMNS)
    return outcome.deleted[0].as_py(), outcome.replaced[0].as_py(), outcome.rows.to_pylist()[0]


def test_payload_of_java_class_name_returns_member() -> None:
    assert Payload.of("org.apache.hudi.common.model.PartialUpdateAvroPayload") is Payload.PARTIAL_UPDATE
    assert Payload.of(None, default=Payload.DEFAULT) is Payload.DEFAULT


def test_payload_of_unknown_class_raises_naming_it_and_the_supported_ones() -> None:
    with pytest.raises(HudiConfigError) as info:
        Payload.of("com.example.MyPayload")
    text = f"{info.value} {info.value.help}"
    assert "com.example.MyPayload" in text
    assert all(p.java_class in text for p in Payload)


def test_payload_option_unknown_class_fails_when_resolved_naming_the_key() -> None:
    with pytest.raises(HudiConfigError, match="hoodie.datasource.write.payload.class"):
        HudiConfigs.of({HudiWriteConfig.PAYLOAD_CLASS.key: "com.example.MyPayload"})
    configs = HudiConfigs.of({HudiWriteConfig.PAYLOAD_CLASS.key: Payload.EVENT_TIME.java_class})
    assert configs.get(HudiWriteConfig.PAYLOAD_CLASS) is Payload.EVENT_TIME


def test_overwrite_with_latest_lower_ordering_incoming_wins() -> None:
    deleted, replaced, row = _merge(Payload.OVERWRITE_WITH_LATEST, ("1", "old", 1.0, 10), ("1", None, None, 5))
    assert (deleted, replaced, row["name"], row["price"]) == (False, True, None, None)


def test_default_lower_ordering_keeps_stored_equal_ordering_takes_incoming() -> None:
    assert _merge(Payload.DEFAULT, ("1", "old", 1.0, 10), ("1", "new", 2.0, 5))[:2] == (False, False)
    assert _merge(Payload.DEFAULT, ("1", "old", 1.0, 10), ("1", "new", 2.0, 10))[:2] == (False, True)


def test_default_delete_with_lower_ordering_keeps_stored() -> None:
    assert _merge(Payload.DEFAULT, ("1", "old", 1.0, 10), ("1", "x", 0.0, 5), delete=True)[:2] == (False, False)
    assert _merge(Payload.DEFAULT, ("1", "old", 1.0, 10), ("1", "x", 0.0, 15), delete=True)[0] is True


def test_event_time_delete_with_lower_ordering_still_deletes() -> None:
    assert _merge(Payload.EVENT_TIME, ("1", "old", 1.0, 10), ("1", "x", 0.0, 5), delete=True)[0] is True
    assert _merge(Payload.EVENT_TIME, ("1", "old", 1.0, 10), ("1", "new", 0.0, 5))[:2] == (False, False)


def test_overwrite_non_defaults_null_fields_keep_stored_values() -> None:
    deleted, replaced, row = _merge(Payload.OVERWRITE_NON_DEFAULTS, ("1", "old", 1.0, 10), ("1", None, 2.0, 5))
    assert (deleted, replaced, row["name"], row["price"], row["ts"]) == (False, True, "old", 2.0, 5)


def test_partial_update_newer_stored_wins_fields_and_incoming_fills_its_nulls() -> None:
    _, replaced, row = _merge(Payload.PARTIAL_UPDATE, ("1", "old", None, 10), ("1", "new", 2.0, 5))
    assert (replaced, row["name"], row["price"], row["ts"]) == (True, "old", 2.0, 10)
    _, _, row = _merge(Payload.PARTIAL_UPDATE, ("1", "old", 1.0, 10), ("1", None, 2.0, 20))
    assert (row["name"], row["price"], row["ts"]) == ("old", 2.0, 20)


def _batch(rows: list[tuple[object, ...]], deletes: list[bool] | None = None) -> pa.Table:
    table = _table(rows)
    table = table.append_column(RECORD_KEY_FIELD, table.column("id"))
    table = table.append_column(IS_DELETE_COLUMN, pa.array(deletes or [False] * len(rows)))
    return table.append_column(ARRIVAL_COLUMN, pa.array(range(len(rows)), pa.int64()))


def test_latest_per_key_partial_update_fills_winner_nulls_best_first() -> None:
    batch = _batch([("1", "first", 1.0, 5), ("1", None, None, 9), ("1", "second", None, 7)])
    (row,) = latest_per_key(batch, "ts", Payload.PARTIAL_UPDATE).to_pylist()
    assert (row["name"], row["price"], row["ts"]) == ("second", 1.0, 9)


def test_latest_per_key_overwrite_keeps_winner_nulls() -> None:
    batch = _batch([("1", "first", 1.0, 5), ("1", None, None, 9)])
    (row,) = latest_per_key(batch, "ts", Payload.OVERWRITE_WITH_LATEST).to_pylist()
    assert (row["name"], row["price"]) == (None, None)


def test_latest_per_key_partial_update_delete_winner_not_filled() -> None:
    batch = _batch([("1", "first", 1.0, 5), ("1", None, None, 9)], deletes=[False, True])
    (row,) = latest_per_key(batch, "ts", Payload.PARTIAL_UPDATE).to_pylist()
    assert (row["name"], row[IS_DELETE_COLUMN]) == (None, True)


def _block(instant: str, rows: list[tuple[object, ...]]) -> DataBlock:
    table = _table(rows)
    return DataBlock(instant, "", table.append_column(RECORD_KEY_FIELD, table.column("id")))


def test_merge_log_records_fill_nulls_merges_fields_across_blocks() -> None:
    blocks = [_block("001", [("1", "a", 1.0, 5)]), _block("002", [("1", None, 2.0, 3)]),
              _block("003", [("1", None, None, 8)])]
    (row,) = merge_log_records(blocks, record_key_field=RECORD_KEY_FIELD, ordering_field="ts",
                               fill_nulls=True).records.to_pylist()
    assert (row["name"], row["price"], row["ts"]) == ("a", 1.0, 8)
    (plain,) = merge_log_records(blocks, record_key_field=RECORD_KEY_FIELD, ordering_field="ts").records.to_pylist()
    assert (plain["name"], plain["price"]) == (None, None)
