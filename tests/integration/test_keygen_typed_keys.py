"""Updates and deletes by timestamp, double, decimal and date record keys, read back by the Rust reader.

With ``hoodie.populate.meta.fields=false`` a stored row has no ``_hoodie_record_key``: the merge
handle recomputes it from the key columns with Arrow (:mod:`hudi_sql.keygen.arrow_key`) while
the index and the incoming records use the Spark expressions. If the two render a value
differently (a timestamp as micros, a double as Java's ``Double.toString``, a decimal as
``BigDecimal.toString``), an update misses the stored row and writes a duplicate, and a delete
removes nothing. Each scenario writes, updates, deletes, and compares our snapshot and the Rust
reader's with an independent model after every commit. With meta fields on, an update matches
by the stored ``_hoodie_record_key`` (the Spark rendering on both sides), so those scenarios
insert only and check that the stored keys equal what the Arrow side computes from the data
columns: the rendering the no-meta scenarios rely on.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
from table_helpers import ExpectedTable, data_rows, our_table, rows_of, rust_table

import hudi_sql
from hudi_sql.config import HudiConfigs, HudiWriteConfig
from hudi_sql.keygen import key_generator_for
from hudi_sql.keygen.arrow_key import arrow_record_keys
from hudi_sql.model.schema import RECORD_KEY_FIELD

pytestmark = pytest.mark.spark

UTC = dt.timezone.utc

# Values whose key strings differ between a plain Arrow cast and Hudi's rendering (except dates,
# which both render ISO): micros since the epoch, Java's Double.toString, BigDecimal.toString.
KEY_VALUES: dict[str, tuple[str, list[Any]]] = {
    "timestamp": ("timestamp", [dt.datetime(2023, 4, 1, 12, 1, tzinfo=UTC),
                                dt.datetime(2023, 4, 1, 12, 1, 0, 123456, tzinfo=UTC),
                                dt.datetime(1969, 12, 31, 23, 59, 59, 999999, tzinfo=UTC),
                                dt.datetime(2024, 2, 29, 0, 0, tzinfo=UTC)]),
    "double": ("double", [2.0, 1.0e7, 1.0e-5, -3.25]),
    "decimal": ("decimal(20,8)", [Decimal("0.00000010"), Decimal("12.50000000"), Decimal("0E-8"),
                                  Decimal("-123456789.12345678")]),
    "date": ("date", [dt.date(2023, 4, 1), dt.date(1969, 12, 31), dt.date(2024, 2, 29), dt.date(1, 1, 1)]),
}

GENERATORS: dict[str, dict[str, str]] = {
    "simple": {HudiWriteConfig.RECORD_KEY_FIELDS.key: "k",
               HudiWriteConfig.PARTITION_PATH_FIELDS.key: "p",
               HudiWriteConfig.KEY_GENERATOR_CLASS.key: "org.apache.hudi.keygen.SimpleKeyGenerator"},
    "complex": {HudiWriteConfig.RECORD_KEY_FIELDS.key: "k,name",
                HudiWriteConfig.PARTITION_PATH_FIELDS.key: "p",
                HudiWriteConfig.KEY_GENERATOR_CLASS.key: "org.apache.hudi.keygen.ComplexKeyGenerator"},
    "complex-one-field-new-encoding": {
        HudiWriteConfig.RECORD_KEY_FIELDS.key: "k",
        HudiWriteConfig.PARTITION_PATH_FIELDS.key: "p",
        HudiWriteConfig.KEY_GENERATOR_CLASS.key: "org.apache.hudi.keygen.ComplexKeyGenerator",
        HudiWriteConfig.COMPLEX_KEYGEN_NEW_ENCODING.key: "true"},
}


def _scenarios(*, meta_fields: bool) -> list[Any]:
    return [pytest.param(kind, generator, id=f"{kind}-{generator}")
            for kind in KEY_VALUES for generator in GENERATORS
            # with meta fields the stored key is read from the meta column: nothing to recompute
            if not (meta_fields and generator == "complex-one-field-new-encoding")]


def _schema(spark_type: str) -> str:
    return f"id int, k {spark_type}, name string, ts long, p string"


def _row(i: int, k: Any, ts: int, p: str) -> dict[str, Any]:
    return {"id": i, "k": k, "name": f"n{i}", "ts": ts, "p": p}


def _check(spark: Any, path: Path, model: ExpectedTable, options: dict[str, str], meta_fields: bool) -> None:
    ours, rust = our_table(spark, str(path)), rust_table(str(path))
    assert data_rows(ours, "id") == data_rows(rust, "id"), "our snapshot differs from the Rust reader"
    assert data_rows(rust, "id") == model.sorted_rows("id"), "the table differs from the model"
    if meta_fields:
        assert rows_of(ours) == rows_of(rust)
        keygen = key_generator_for(HudiConfigs.of(options))
        for file in path.rglob("*.parquet"):
            stored = pq.read_table(file)
            assert arrow_record_keys(stored, keygen.record_key_spec()).to_pylist() == \
                stored.column(RECORD_KEY_FIELD).to_pylist(), file.name


def _options(kind: str, generator: str, meta_fields: bool) -> dict[str, str]:
    return {"hoodie.table.name": f"t_{kind}", HudiWriteConfig.PRECOMBINE_FIELD.key: "ts",
            HudiWriteConfig.POPULATE_META_FIELDS.key: str(meta_fields).lower(), **GENERATORS[generator]}


def _first_rows(values: list[Any]) -> list[dict[str, Any]]:
    return [_row(i, value, ts=1, p="a" if i % 2 else "b") for i, value in enumerate(values)]


def _writer(spark: Any, path: Path, spark_type: str,
            options: dict[str, str]) -> Callable[[list[dict[str, Any]], str], hudi_sql.WriteResult]:
    def write(rows: list[dict[str, Any]], operation: str) -> hudi_sql.WriteResult:
        df = spark.createDataFrame([tuple(r.values()) for r in rows], _schema(spark_type))
        return hudi_sql.write(df, str(path), {**options, HudiWriteConfig.OPERATION.key: operation})

    return write


@pytest.mark.parametrize(("kind", "generator"), _scenarios(meta_fields=True))
def test_stored_typed_record_keys_equal_the_arrow_rendering(spark: Any, tmp_path: Path, kind: str,
                                                           generator: str) -> None:
    spark_type, values = KEY_VALUES[kind]
    options = _options(kind, generator, meta_fields=True)
    model = ExpectedTable(tuple(options[HudiWriteConfig.RECORD_KEY_FIELDS.key].split(",")), "ts")
    path = tmp_path / "table"
    first = _first_rows(values)
    _writer(spark, path, spark_type, options)(first, "insert")
    model.insert(first)
    _check(spark, path, model, options, meta_fields=True)


@pytest.mark.parametrize(("kind", "generator"), _scenarios(meta_fields=False))
def test_typed_record_key_update_and_delete_without_meta_fields_match_rust_reader_and_model(
        spark: Any, tmp_path: Path, kind: str, generator: str) -> None:
    spark_type, values = KEY_VALUES[kind]
    options = _options(kind, generator, meta_fields=False)
    model = ExpectedTable(tuple(options[HudiWriteConfig.RECORD_KEY_FIELDS.key].split(",")), "ts")
    path = tmp_path / "table"
    write = _writer(spark, path, spark_type, options)

    first = _first_rows(values)
    write(first, "insert")
    model.insert(first)
    _check(spark, path, model, options, meta_fields=False)

    # Every stored key is updated (same key, same partition, greater ordering value).
    updates = [dict(row, ts=2) for row in first]
    result = write(updates, "upsert")
    model.upsert(updates)
    assert (result.num_updated, result.num_inserted) == (len(values), 0)
    _check(spark, path, model, options, meta_fields=False)

    doomed = updates[:2]
    result = write(doomed, "delete")
    model.delete(doomed)
    assert result.num_deleted == 2
    _check(spark, path, model, options, meta_fields=False)
