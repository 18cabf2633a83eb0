"""Bootstrap: an existing Hive-style partitioned Parquet table (written by plain Spark) becomes a
Hudi table through ``CALL run_bootstrap``, with full records; the source is never touched.

Metadata-only bootstraps are in ``test_bootstrap_metadata_only.py``; Apache Hudi's reading of
both kinds, and its own bootstraps, in ``tests/oracle/test_bootstrap_interop.py``.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from bootstrap_sources import Bootstrapped, digest, write_source
from sql_session import fresh_database

from hudi_sql.errors import HudiConfigError, TableAlreadyExistsError
from hudi_sql.model.instant import FULL_BOOTSTRAP_INSTANT
from hudi_sql.table.meta_client import TableMetaClient

pytestmark = pytest.mark.spark

FULL_RECORD = "org.apache.hudi.client.bootstrap.selector.FullRecordBootstrapModeSelector"
ROWS = 3000


def _call(source: Path, base: Path, **extra: str) -> str:
    args = {"table": "boot", "table_type": "COPY_ON_WRITE", "bootstrap_path": str(source), "base_path": str(base),
            "rowKey_field": "id", "partition_path_field": "dt", "selector_class": FULL_RECORD, **extra}
    return "CALL run_bootstrap(" + ", ".join(f"{k} => '{v}'" for k, v in args.items()) + ")"


@pytest.fixture(scope="module")
def bootstrapped(spark: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Bootstrapped]:
    root = tmp_path_factory.mktemp("bootstrap")
    source, base = root / "source", root / "boot"
    write_source(spark, source, ROWS)
    before = digest(source)
    with fresh_database(spark, "bootstrap_db") as db:
        assert [tuple(r) for r in db.sql(_call(source, base)).collect()] == [(0,)]
        db.sql(f"CREATE TABLE boot USING hudi LOCATION '{base}'")
        yield Bootstrapped(db, source, base, before)


def _source_rows(spark: Any, source: Path) -> list[tuple[Any, ...]]:
    return sorted(tuple(r) for r in spark.read.parquet(str(source)).select("id", "name", "price", "ts", "dt").collect())


def test_the_bootstrapped_table_holds_the_source_rows(spark: Any, bootstrapped: Bootstrapped) -> None:
    rows = sorted(tuple(r) for r in bootstrapped.db.sql("SELECT id, name, price, ts, dt FROM boot").collect())
    assert rows == _source_rows(spark, bootstrapped.source)
    assert len(rows) == ROWS


def test_it_is_one_full_bootstrap_commit_recording_its_source(bootstrapped: Bootstrapped) -> None:
    meta = TableMetaClient.load(str(bootstrapped.base))
    (commit,) = meta.timeline.completed_writes()
    assert commit.instant_time == FULL_BOOTSTRAP_INSTANT
    assert meta.commit_metadata(commit).operation_type == "BULK_INSERT"
    assert meta.properties["hoodie.bootstrap.base.path"] == str(bootstrapped.source)
    assert sorted(meta.properties["hoodie.table.partition.fields"].split(",")) == ["dt"]
    partitions = sorted(p.name for p in bootstrapped.base.iterdir() if p.name != ".hoodie")
    assert partitions == ["2024-01-01", "2024-01-02", "2024-01-03"], "partitioned by the key generator"


def test_upserts_and_deletes_after_the_bootstrap_and_the_source_untouched(
        spark: Any, bootstrapped: Bootstrapped) -> None:
    db = bootstrapped.db
    db.sql("UPDATE boot SET name = 'renamed', ts = 2000 WHERE id < 10")
    db.sql("DELETE FROM boot WHERE id BETWEEN 10 AND 19")
    db.sql("INSERT INTO boot VALUES (100000, 'new', 1.0, 3000, '2024-01-09')")
    expected = {r[0]: r for r in _source_rows(spark, bootstrapped.source) if not 10 <= r[0] <= 19}
    for key in range(10):
        expected[key] = (key, "renamed", key * 1.5, 2000, expected[key][4])
    expected[100000] = (100000, "new", 1.0, 3000, datetime.date(2024, 1, 9))  # Spark inferred dt a date
    rows = sorted(tuple(r) for r in db.sql("SELECT id, name, price, ts, dt FROM boot").collect())
    assert rows == sorted(expected.values())
    assert digest(bootstrapped.source) == bootstrapped.source_digest, "the source table is never modified"


def test_a_second_bootstrap_to_the_same_path_is_refused_unless_it_overwrites(bootstrapped: Bootstrapped) -> None:
    with pytest.raises(TableAlreadyExistsError, match="already exists"):
        bootstrapped.db.sql(_call(bootstrapped.source, bootstrapped.base))


def test_a_failed_bootstrap_leaves_no_table(bootstrapped: Bootstrapped, tmp_path: Path) -> None:
    target = tmp_path / "failed"
    with pytest.raises(Exception, match="no_such_column"):
        bootstrapped.db.sql(_call(bootstrapped.source, target, rowKey_field="no_such_column"))
    assert not target.exists(), "nothing of the failed bootstrap is left"
    with pytest.raises(HudiConfigError, match="does not exist"):
        bootstrapped.db.sql(_call(tmp_path / "nowhere", target))
