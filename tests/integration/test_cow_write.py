"""Copy-On-Write writes, read back by our reader and by the Rust reader, against an independent model.

Every scenario runs a sequence bulk_insert -> upsert -> insert -> delete -> upsert with
``_hoodie_is_deleted``; after each commit our snapshot (meta columns included) must equal the
Rust reader's, and the data rows must equal what :class:`ExpectedTable` computes.
"""

from __future__ import annotations

import datetime
from pathlib import Path
from typing import Any

import pytest
from table_helpers import META, ExpectedTable, data_rows, our_table, rows_of, rust_table

import hudi_sql

pytestmark = pytest.mark.spark

SCHEMA = "id int, name string, ts long, p string, q int, price double"


def _row(i: int, ts: int, p: str = "a", q: int = 1, name: str | None = None) -> dict[str, Any]:
    return {"id": i, "name": name or f"n{i}-{ts}", "ts": ts, "p": p, "q": q, "price": i * 1.5 + ts}


SCENARIOS = {
    "simple-plain": {"hoodie.datasource.write.recordkey.field": "id",
                     "hoodie.datasource.write.partitionpath.field": "p"},
    "simple-hive-style": {"hoodie.datasource.write.recordkey.field": "id",
                          "hoodie.datasource.write.partitionpath.field": "p",
                          "hoodie.datasource.write.hive_style_partitioning": "true"},
    "complex-hive-style": {"hoodie.datasource.write.recordkey.field": "id,name",
                           "hoodie.datasource.write.partitionpath.field": "p,q",
                           "hoodie.datasource.write.keygenerator.class": "org.apache.hudi.keygen.ComplexKeyGenerator",
                           "hoodie.datasource.write.hive_style_partitioning": "true"},
    "non-partitioned": {"hoodie.datasource.write.recordkey.field": "id",
                        "hoodie.datasource.write.keygenerator.class":
                            "org.apache.hudi.keygen.NonpartitionedKeyGenerator"},
    "timestamp-based": {"hoodie.datasource.write.recordkey.field": "id",
                        "hoodie.datasource.write.partitionpath.field": "ts",
                        "hoodie.datasource.write.keygenerator.class":
                            "org.apache.hudi.keygen.TimestampBasedKeyGenerator",
                        "hoodie.keygen.timebased.timestamp.type": "EPOCHMILLISECONDS",
                        "hoodie.keygen.timebased.output.dateformat": "yyyy/MM/dd"},
    "custom": {"hoodie.datasource.write.recordkey.field": "id",
               "hoodie.datasource.write.partitionpath.field": "p:SIMPLE,ts:TIMESTAMP",
               "hoodie.datasource.write.keygenerator.class": "org.apache.hudi.keygen.CustomKeyGenerator",
               "hoodie.keygen.timebased.timestamp.type": "EPOCHMILLISECONDS",
               "hoodie.keygen.timebased.output.dateformat": "yyyyMMdd"},
    "meta-fields-off": {"hoodie.datasource.write.recordkey.field": "id",
                        "hoodie.datasource.write.partitionpath.field": "p",
                        "hoodie.populate.meta.fields": "false"},
}

# Timestamps inside one day for the time-based partitioners, so keys keep their partition.
DAY = int(datetime.datetime(2024, 4, 1, tzinfo=datetime.timezone.utc).timestamp() * 1000)


def _check(spark: Any, path: Path, model: ExpectedTable, key_fields: tuple[str, ...], meta_fields: bool) -> None:
    ours = our_table(spark, str(path))
    rust = rust_table(str(path))
    if meta_fields:
        assert rows_of(ours) == rows_of(rust), "our snapshot (meta columns included) differs from the Rust reader"
    else:
        assert all(v is None for v in ours.column("_hoodie_record_key").to_pylist())
        assert data_rows(ours, "id") == data_rows(rust, "id")
    assert data_rows(ours, "id") == model.sorted_rows("id")


@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
def test_write_sequence_matches_rust_reader_and_model(spark: Any, tmp_path: Path, scenario: str) -> None:
    options = {"hoodie.table.name": "t_" + scenario.replace("-", "_"),
               "hoodie.datasource.write.precombine.field": "ts",
               # event-time merging, which the model follows (the DataFrame default lets the latest win)
               "hoodie.datasource.write.payload.class": "org.apache.hudi.common.model.DefaultHoodieRecordPayload",
               **SCENARIOS[scenario]}
    key_fields = tuple(options["hoodie.datasource.write.recordkey.field"].split(","))
    meta_fields = options.get("hoodie.populate.meta.fields") != "false"
    model = ExpectedTable(key_fields, "ts")
    path = tmp_path / "table"

    def write(rows: list[dict[str, Any]], operation: str, schema: str = SCHEMA) -> hudi_sql.WriteResult:
        df = spark.createDataFrame([tuple(r.values()) for r in rows], schema)
        return hudi_sql.write(df, str(path), {**options, "hoodie.datasource.write.operation": operation})

    first = [_row(i, DAY + i, p="a" if i % 2 else "b", q=i % 3) for i in range(1, 9)]
    result = write(first, "bulk_insert")
    model.insert(first)
    assert result.num_inserted == 8
    _check(spark, path, model, key_fields, meta_fields)

    # Updates (one with a lower ordering value, which must not win) and new keys.
    second = [_row(1, DAY + 100, p="a", q=1), _row(2, DAY + 1, p="b", q=2, name="n2-" + str(DAY + 2)),
              _row(3, DAY + 200, p="a", q=0), _row(20, DAY + 20, p="b", q=2)]
    if scenario == "complex-hive-style":  # the key includes name: keep names of updated rows
        second = [dict(r, name=f"n{r['id']}-{DAY + r['id']}") if r["id"] < 20 else r for r in second]
        second[1]["ts"] = DAY + 1  # equal ordering value: the later write wins
    write(second, "upsert")
    model.upsert(second)
    _check(spark, path, model, key_fields, meta_fields)

    third = [_row(30, DAY + 30, p="a", q=0), _row(31, DAY + 31, p="c", q=1)]
    write(third, "insert")
    model.insert(third)
    _check(spark, path, model, key_fields, meta_fields)

    doomed = [model.rows[k] for k in list(model.rows)[:2]]
    write(doomed, "delete")
    model.delete(doomed)
    _check(spark, path, model, key_fields, meta_fields)

    victim = dict(next(iter(model.rows.values())))
    flagged = [dict(victim, ts=victim["ts"] + 1000, _hoodie_is_deleted=True),
               dict(_row(40, DAY + 40, p="b", q=1), _hoodie_is_deleted=False)]
    write(flagged, "upsert", SCHEMA + ", _hoodie_is_deleted boolean")
    model.delete([victim])
    model.upsert([{k: v for k, v in flagged[1].items() if k != "_hoodie_is_deleted"}])
    ours = our_table(spark, str(path))
    assert sorted(r["id"] for r in ours.to_pylist()) == sorted(r["id"] for r in model.rows.values())
    assert sorted(r["id"] for r in rust_table(str(path)).to_pylist()) == sorted(r["id"] for r in model.rows.values())


def test_upsert_batch_duplicates_keep_greatest_ordering_value(spark: Any, tmp_path: Path) -> None:
    options = {"hoodie.table.name": "dups", "hoodie.datasource.write.recordkey.field": "id",
               "hoodie.datasource.write.partitionpath.field": "p", "hoodie.datasource.write.precombine.field": "ts"}
    rows = [(1, "first", 5, "a", 0, 1.0), (1, "greatest", 9, "a", 0, 2.0), (1, "middle", 7, "a", 0, 3.0)]
    hudi_sql.write(spark.createDataFrame(rows, SCHEMA), str(tmp_path), options)
    names = [r["name"] for r in our_table(spark, str(tmp_path)).to_pylist()]
    assert names == ["greatest"]


def test_upsert_without_ordering_field_latest_write_wins(spark: Any, tmp_path: Path) -> None:
    options = {"hoodie.table.name": "noorder", "hoodie.datasource.write.recordkey.field": "id",
               "hoodie.datasource.write.partitionpath.field": "p"}
    hudi_sql.write(spark.createDataFrame([(1, "old", 9, "a", 0, 1.0)], SCHEMA), str(tmp_path), options)
    hudi_sql.write(spark.createDataFrame([(1, "new", 1, "a", 0, 1.0)], SCHEMA), str(tmp_path), options)
    assert [r["name"] for r in our_table(spark, str(tmp_path)).to_pylist()] == ["new"]
    props = (tmp_path / ".hoodie" / "hoodie.properties").read_text()
    assert "OverwriteWithLatestAvroPayload" in props


def test_update_rewrites_only_file_groups_holding_updated_keys(spark: Any, tmp_path: Path) -> None:
    options = {"hoodie.table.name": "touch", "hoodie.datasource.write.recordkey.field": "id",
               "hoodie.datasource.write.partitionpath.field": "p", "hoodie.datasource.write.precombine.field": "ts",
               "hoodie.parquet.small.file.limit": "0"}
    rows = [_row(i, 1, p=p) for i, p in [(1, "a"), (2, "b"), (3, "c")]]
    hudi_sql.write(spark.createDataFrame([tuple(r.values()) for r in rows], SCHEMA), str(tmp_path), options)
    before = {f.name for f in tmp_path.rglob("*.parquet")}
    result = hudi_sql.write(spark.createDataFrame([tuple(_row(2, 5, p="b").values())], SCHEMA), str(tmp_path),
                            options)
    after = {f.name for f in tmp_path.rglob("*.parquet")}
    new_files = after - before
    assert len(new_files) == 1 and result.num_updated == 1 and result.num_inserted == 0
    (new_file,) = new_files
    old_b = [f for f in before if f.split("_")[0] == new_file.split("_")[0]]
    assert old_b, "the update must keep the file id of the file group it rewrites"
    assert [s.prev_commit for s in result.write_stats] == [old_b[0].split("_")[2].split(".")[0]]


def test_schema_evolution_adds_column_old_rows_read_null(spark: Any, tmp_path: Path) -> None:
    options = {"hoodie.table.name": "evolve", "hoodie.datasource.write.recordkey.field": "id",
               "hoodie.datasource.write.partitionpath.field": "p", "hoodie.datasource.write.precombine.field": "ts"}
    hudi_sql.write(spark.createDataFrame([(1, "a", 1, "x", 0, 1.0)], SCHEMA), str(tmp_path), options)
    hudi_sql.write(spark.createDataFrame([(2, "b", 1, "y", 0, 1.0, "new")], SCHEMA + ", extra string"),
                   str(tmp_path), options)
    ours = {r["id"]: r["extra"] for r in our_table(spark, str(tmp_path)).to_pylist()}
    assert ours == {1: None, 2: "new"}
    rust = {r["id"]: r["extra"] for r in rust_table(str(tmp_path)).to_pylist()}
    assert rust == ours


def test_dataframe_writer_and_reader_format_hudi(spark: Any, tmp_path: Path) -> None:
    df = spark.createDataFrame([(1, "a", 1, "x", 0, 1.0)], SCHEMA)
    (df.write.format("hudi").option("hoodie.table.name", "fmt").option("hoodie.datasource.write.recordkey.field", "id")
     .option("hoodie.datasource.write.partitionpath.field", "p").mode("overwrite").save(str(tmp_path)))
    back = spark.read.format("hudi").load(str(tmp_path))
    assert back.columns[:5] == list(META) and back.select("id", "name").collect()[0].asDict() == {"id": 1, "name": "a"}
