"""Metadata-only bootstrap (Apache Hudi's default): a Hive-style partitioned Parquet table (written
by plain Spark) becomes a Hudi table of skeleton files and a bootstrap index through ``CALL
run_bootstrap``; reads stitch skeleton and source, and later writes rewrite the file groups they
touch into regular base files. The source is never modified.

Apache Hudi's reading of these tables, and its own metadata-only bootstraps, are checked in
``tests/oracle/test_bootstrap_interop.py``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
from bootstrap_sources import Bootstrapped, digest, write_source
from sql_session import fresh_database

from hudi_sql.errors import HudiKeyError
from hudi_sql.model.instant import FULL_BOOTSTRAP_INSTANT, METADATA_BOOTSTRAP_INSTANT
from hudi_sql.model.schema import META_FIELDS
from hudi_sql.table.bootstrap_index import read_bootstrap_index
from hudi_sql.table.fs_view import FileSystemView
from hudi_sql.table.meta_client import TableMetaClient

pytestmark = pytest.mark.spark

METADATA_ONLY = "org.apache.hudi.client.bootstrap.selector.MetadataOnlyBootstrapModeSelector"
REGEX = "org.apache.hudi.client.bootstrap.selector.BootstrapRegexModeSelector"
ROWS = 3000
COLUMNS = ["id", "name", "price", "ts", "dt"]


def _call(source: Path, base: Path, **extra: str) -> str:
    args = {"table": "boot_mo", "table_type": "COPY_ON_WRITE", "bootstrap_path": str(source),
            "base_path": str(base), "rowKey_field": "id", "partition_path_field": "dt",
            "selector_class": METADATA_ONLY, **extra}
    return "CALL run_bootstrap(" + ", ".join(f"{k} => '{v}'" for k, v in args.items()) + ")"


def _source_rows(spark: Any, source: Path) -> dict[int, tuple[Any, ...]]:
    """The source's rows by id, the partition value as the string its folder name holds."""
    frame = spark.read.parquet(str(source)).selectExpr("id", "name", "price", "ts", "CAST(dt AS STRING) AS dt")
    return {r[0]: tuple(r) for r in frame.collect()}


def _rows(db: Any, table: str) -> list[tuple[Any, ...]]:
    return sorted(tuple(r) for r in db.sql(f"SELECT {', '.join(COLUMNS)} FROM {table}").collect())


def _source_files(source: Path) -> list[Path]:
    return sorted(p for p in source.rglob("*.parquet") if not p.name.startswith((".", "_")))


@pytest.fixture(scope="module")
def source(spark: Any, tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("bootstrap_mo") / "orders"
    write_source(spark, path, ROWS)
    return path


@pytest.fixture(scope="module")
def bootstrapped(spark: Any, source: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Bootstrapped]:
    base = tmp_path_factory.mktemp("bootstrap_mo_table") / "boot_mo"
    before = digest(source)
    with fresh_database(spark, "bootstrap_mo_db") as db:
        assert [tuple(r) for r in db.sql(_call(source, base)).collect()] == [(0,)]
        db.sql(f"CREATE TABLE boot_mo USING hudi LOCATION '{base}'")
        yield Bootstrapped(db, source, base, before)


def test_a_metadata_only_bootstrap_reads_as_the_source(spark: Any, bootstrapped: Bootstrapped) -> None:
    rows = _rows(bootstrapped.db, "boot_mo")
    assert rows == sorted(_source_rows(spark, bootstrapped.source).values())
    assert len(rows) == ROWS
    (meta_row,) = bootstrapped.db.sql("SELECT _hoodie_record_key, _hoodie_commit_time, _hoodie_partition_path "
                                      "FROM boot_mo WHERE id = 7").collect()
    assert tuple(meta_row) == ("7", METADATA_BOOTSTRAP_INSTANT, "dt=2024-01-02")


def test_it_is_one_bootstrap_commit_of_one_skeleton_per_source_file(bootstrapped: Bootstrapped) -> None:
    meta = TableMetaClient.load(str(bootstrapped.base))
    (commit,) = meta.timeline.completed_writes()
    assert (commit.instant_time, commit.action) == (METADATA_BOOTSTRAP_INSTANT, "commit")
    assert meta.commit_metadata(commit).operation_type == "BOOTSTRAP"
    assert meta.properties["hoodie.bootstrap.base.path"] == str(bootstrapped.source)
    assert meta.properties["hoodie.datasource.write.hive_style_partitioning"] == "true", \
        "the skeletons sit in the source's dt=... folders, where later writes must find them"

    index = read_bootstrap_index(str(bootstrapped.base))
    assert index is not None and index.source_base_path == str(bootstrapped.source)
    slices = FileSystemView(meta).latest_file_slices()
    sources = _source_files(bootstrapped.source)
    assert len(slices) == len(sources), "one file group per source file"
    mapped = []
    for file_slice in slices:
        assert file_slice.base_file is not None
        skeleton = pq.read_table(file_slice.base_file.path)
        assert skeleton.column_names == list(META_FIELDS), "a skeleton holds the meta columns only"
        mapping = index.file_mapping(file_slice.partition_path, file_slice.file_id)
        assert mapping is not None and mapping.source_partition_path == file_slice.partition_path
        source_file = Path(mapping.source_file.path.removeprefix("file:"))
        assert skeleton.num_rows == pq.read_metadata(source_file).num_rows
        assert set(skeleton.column("_hoodie_record_key").to_pylist()) == {
            str(i) for i in pq.read_table(source_file, columns=["id"]).column("id").to_pylist()}
        mapped.append(source_file)
    assert sorted(mapped) == sources


def test_writes_rewrite_the_skeleton_groups_they_touch_and_leave_the_source(
        spark: Any, bootstrapped: Bootstrapped) -> None:
    db = bootstrapped.db
    meta = TableMetaClient.load(str(bootstrapped.base))
    before = {s.file_id: s for s in FileSystemView(meta).latest_file_slices()}
    # every key the writes touch is in partition dt=2024-01-01 (id % 3 == 0)
    db.sql("UPDATE boot_mo SET name = 'renamed', ts = 2000 WHERE id < 30 AND id % 3 = 0")
    db.sql("DELETE FROM boot_mo WHERE id BETWEEN 30 AND 59 AND id % 3 = 0")
    db.sql("INSERT INTO boot_mo VALUES (100000, 'new', 1.0, 3000, '2024-01-01')")
    expected = {k: r for k, r in _source_rows(spark, bootstrapped.source).items() if not (30 <= k <= 59 and k % 3 == 0)}
    for key in range(0, 30, 3):
        expected[key] = (key, "renamed", key * 1.5, 2000, expected[key][4])
    expected[100000] = (100000, "new", 1.0, 3000, "2024-01-01")
    assert _rows(db, "boot_mo") == sorted(expected.values())

    meta.reload_timeline()
    after = {s.file_id: s for s in FileSystemView(meta).latest_file_slices()}
    touched = {r[0] for r in db.sql("SELECT DISTINCT _hoodie_file_name FROM boot_mo WHERE id < 30 AND id % 3 = 0 OR id = 100000")
               .collect()}
    rewritten = {f for f, s in after.items() if s.base_instant_time != METADATA_BOOTSTRAP_INSTANT}
    assert rewritten and rewritten <= set(before), "writes went into the bootstrapped file groups"
    for file_id in rewritten:
        base = after[file_id].base_file
        assert base is not None and base.file_name in touched
        assert set(COLUMNS) <= set(pq.read_schema(base.path).names), "a rewritten group is a regular base file"
    assert {after[f].partition_path for f in rewritten} == {"dt=2024-01-01"}
    assert all(s.base_instant_time == METADATA_BOOTSTRAP_INSTANT for s in after.values()
               if s.partition_path != "dt=2024-01-01"), "groups no write touched stay skeletons"
    assert digest(bootstrapped.source) == bootstrapped.source_digest, "the source table is never modified"


def test_a_merge_on_read_bootstrap_takes_updates_into_rewritten_base_files(
        spark: Any, bootstrapped: Bootstrapped, tmp_path: Path) -> None:
    db, base = bootstrapped.db, tmp_path / "boot_mor"
    db.sql(_call(bootstrapped.source, base, table="boot_mor", table_type="MERGE_ON_READ"))
    db.sql(f"CREATE TABLE boot_mor USING hudi LOCATION '{base}'")
    db.sql("UPDATE boot_mor SET price = -1.0 WHERE id % 100 = 0")
    expected = _source_rows(spark, bootstrapped.source)
    for key in range(0, ROWS, 100):
        expected[key] = (*expected[key][:2], -1.0, *expected[key][3:])
    assert _rows(db, "boot_mor") == sorted(expected.values())
    data_logs = [p for p in base.rglob("*.log.*") if ".hoodie" not in p.parts]
    assert not data_logs, "skeleton groups are rewritten, never appended to"


def test_the_regex_selector_bootstraps_matching_partitions_metadata_only_and_the_rest_in_full(
        spark: Any, bootstrapped: Bootstrapped, tmp_path: Path) -> None:
    db, base = bootstrapped.db, tmp_path / "boot_mixed"
    db.sql("SET hoodie.bootstrap.mode.selector.regex = 'dt=2024-01-0[12]'")
    try:
        db.sql(_call(bootstrapped.source, base, table="boot_mixed", selector_class=REGEX))
    finally:
        db.sql("RESET hoodie.bootstrap.mode.selector.regex")
    db.sql(f"CREATE TABLE boot_mixed USING hudi LOCATION '{base}'")
    assert _rows(db, "boot_mixed") == sorted(_source_rows(spark, bootstrapped.source).values())
    meta = TableMetaClient.load(str(base))
    assert [i.instant_time for i in meta.timeline.completed_writes()] == [METADATA_BOOTSTRAP_INSTANT,
                                                                           FULL_BOOTSTRAP_INSTANT]
    by_instant = {(s.partition_path, s.base_instant_time) for s in FileSystemView(meta).latest_file_slices()}
    assert {p for p, t in by_instant if t == METADATA_BOOTSTRAP_INSTANT} == {"dt=2024-01-01", "dt=2024-01-02"}
    assert {p for p, t in by_instant if t == FULL_BOOTSTRAP_INSTANT} == {"dt=2024-01-03"}


def test_a_source_row_without_a_key_fails_the_bootstrap_and_leaves_no_table(
        spark: Any, bootstrapped: Bootstrapped, tmp_path: Path) -> None:
    source, base = tmp_path / "keyless", tmp_path / "keyless_table"
    spark.createDataFrame([(1, "a", "x"), (2, None, "x")], "id int, code string, part string") \
        .coalesce(1).write.partitionBy("part").parquet(str(source))
    with pytest.raises(HudiKeyError, match=r"1 row\(s\) of the bootstrap source file .*part=x.* code"):
        bootstrapped.db.sql(_call(source, base, table="keyless", rowKey_field="code", partition_path_field="part"))
    assert not base.exists(), "nothing of the failed bootstrap is left"
