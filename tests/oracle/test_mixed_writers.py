"""Two writers on one table: Apache Hudi creates it and writes commit 1 (its metadata table on),
hudi-sql upserts commit 2, Apache Hudi upserts commit 3; both engines agree after every step.

Apache Hudi is read twice after each step: with its metadata table (its default, the file
listing comes from ``.hoodie/metadata``) and with ``hoodie.metadata.enable=false`` (the file
listing comes from storage). Both must agree with us: hudi-sql keeps the metadata table Apache
Hudi created, committing each of its instants there first, and Apache Hudi's validation of the
metadata table finds it in step with storage after our commit. A writer that turns the
metadata table off removes it, in either engine alike.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from oracle_harness import Oracle, assert_same_rows, ours
from test_apache_reads_ours import apache_metadata_table_disagreements

pytestmark = [pytest.mark.oracle, pytest.mark.spark]

SCHEMA = "id INT, name STRING, price DOUBLE, ts BIGINT, city STRING"
LISTING = {"hoodie.metadata.enable": "false"}
METADATA = {"hoodie.metadata.enable": "true"}


def _our_upsert(spark: Any, path: Path, name: str, table_type: str, **extra: str) -> str:
    import hudi_sql

    df = spark.createDataFrame([(1, "ours-1", 11.0, 5, "sf"), (7, "ours-7", 70.0, 5, "la")], SCHEMA)
    result = hudi_sql.write(df, str(path), {
        **extra,
        "hoodie.table.name": name,
        "hoodie.datasource.write.table.type": table_type,
        "hoodie.datasource.write.recordkey.field": "id",
        "hoodie.datasource.write.partitionpath.field": "city",
        "hoodie.datasource.write.precombine.field": "ts",
        "hoodie.datasource.write.hive_style_partitioning": "true",
        "hoodie.datasource.write.operation": "upsert",
    })
    assert result.instant_time
    return result.instant_time


def _agree(spark: Any, oracle: Oracle, path: Path, what: str, listing_only: bool = False) -> list[str]:
    """Our snapshot against Apache Hudi's, read by storage listing and (unless *listing_only*) by its
    metadata table, explicitly and by its reader default; returns the differences."""
    reads = [("listing", LISTING)] + ([] if listing_only else [("metadata", METADATA), ("default", {})])
    theirs = oracle.run([{"read": {"path": str(path), "options": o}} for _, o in reads])
    mine = ours(spark.read.format("hudi").load(str(path)))
    failures = []
    for (how, _), their_rows in zip(reads, theirs):
        try:
            assert_same_rows(mine, their_rows, what=f"{what}/snapshot({how})")
        except AssertionError as exc:
            failures.append(str(exc))
    return failures


def _properties(path: Path) -> dict[str, str]:
    lines = (path / ".hoodie" / "hoodie.properties").read_text().splitlines()
    return dict(line.split("=", 1) for line in lines if "=" in line and not line.startswith("#"))


def _metadata_state(path: Path) -> tuple[bool, str]:
    """What a writer left of the metadata table: its folder, and the partitions hoodie.properties lists."""
    return (path / ".hoodie" / "metadata").exists(), _properties(path).get("hoodie.table.metadata.partitions", "")


def _create_and_write(oracle: Oracle, name: str, path: Path, table_type: str) -> None:
    oracle.sql(f"DROP TABLE IF EXISTS {name}")
    oracle.sql(f"CREATE TABLE {name} (id INT, name STRING, price DOUBLE, ts BIGINT, city STRING) USING hudi "
               f"PARTITIONED BY (city) LOCATION '{path}' "
               f"TBLPROPERTIES (type = '{table_type}', primaryKey = 'id', preCombineField = 'ts')")
    oracle.sql(f"INSERT INTO {name} VALUES (1, 'a', 10.0, 1, 'sf'), (2, 'b', 20.0, 1, 'nyc'), "
               f"(3, 'c', 30.0, 1, 'la')")


@pytest.fixture(scope="module", params=["cow", "mor"])
def mixed_steps(request: pytest.FixtureRequest, spark: Any, oracle: Oracle,
                tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[str]]:
    """One table, three commits by alternating writers; the differences after each, by Apache Hudi's
    listing mode ("listing" / "metadata", the latter holding its explicit and default readers)."""
    table_type = request.param
    name = f"mixed_{table_type}"
    path = tmp_path_factory.mktemp("mixed") / name
    _create_and_write(oracle, name, path, table_type)
    found = _agree(spark, oracle, path, f"{name}/1-apache")
    _our_upsert(spark, path, name, "COPY_ON_WRITE" if table_type == "cow" else "MERGE_ON_READ")
    found += _agree(spark, oracle, path, f"{name}/2-ours")
    assert _metadata_state(path) == (True, "files"), "our upsert kept the metadata table"
    found += [f"{name}/2-ours (metadata validation): {row}" for row in apache_metadata_table_disagreements(oracle, path)]
    oracle.sql(f"UPDATE {name} SET price = price + 100, ts = 9 WHERE id IN (1, 2)")
    found += _agree(spark, oracle, path, f"{name}/3-apache")
    return {"listing": [f for f in found if "(listing)" in f],
            "metadata": [f for f in found if "(listing)" not in f]}


def test_mixed_writers_storage_listing_agrees_every_step(mixed_steps: dict[str, list[str]]) -> None:
    """Reading by storage listing, the engines agree after each commit whoever wrote it."""
    assert not mixed_steps["listing"], "\n".join(mixed_steps["listing"])


def test_mixed_writers_apache_metadata_table_sees_our_commit(mixed_steps: dict[str, list[str]]) -> None:
    """Apache Hudi reading through its metadata table (explicitly, and by its reader default) must see
    the commit we made."""
    assert not mixed_steps["metadata"], "\n".join(mixed_steps["metadata"])


def test_mixed_writers_our_commit_without_metadata_table_removes_it_as_apache_hudi_does(
        spark: Any, oracle: Oracle, tmp_path: Path) -> None:
    """Our upsert with ``hoodie.metadata.enable=false`` must leave the metadata table as Apache Hudi's
    own metadata-disabled upsert leaves it."""
    theirs, mine = tmp_path / "mdt_off_theirs", tmp_path / "mdt_off_ours"
    for name, path in (("mdt_off_theirs", theirs), ("mdt_off_ours", mine)):
        _create_and_write(oracle, name, path, "cow")
    assert _metadata_state(theirs)[0], "Apache Hudi created no metadata table"
    oracle.run([{"write": {"path": str(theirs), "schema": SCHEMA, "mode": "append",
                           "rows": [[1, "x", 1.0, 5, "sf"], [7, "y", 7.0, 5, "la"]],
                           "options": {"hoodie.table.name": "mdt_off_theirs",
                                       "hoodie.datasource.write.recordkey.field": "id",
                                       "hoodie.datasource.write.partitionpath.field": "city",
                                       "hoodie.datasource.write.precombine.field": "ts",
                                       "hoodie.datasource.write.hive_style_partitioning": "true",
                                       "hoodie.datasource.write.operation": "upsert",
                                       "hoodie.metadata.enable": "false"}}}])
    _our_upsert(spark, mine, "mdt_off_ours", "COPY_ON_WRITE", **{"hoodie.metadata.enable": "false"})
    assert _metadata_state(mine) == _metadata_state(theirs) == (False, "")
