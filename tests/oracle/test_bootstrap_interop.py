"""Bootstrap against Apache Hudi 0.15: one Hive-style partitioned Parquet table (written by plain
Spark), bootstrapped by both engines with ``CALL run_bootstrap``.

* Full records: Apache Hudi reads the table hudi-sql bootstrapped as hudi-sql does, and the
  other way round; the two tables hold the same rows, at the same instant, with the same
  partitions; and after an upsert through each engine they still agree. The Rust reader reads
  hudi-sql's table alike. Rows are compared by a fingerprint each engine computes over the data
  columns (count and the sum of Spark's ``hash`` of each row, the same function in Spark 3.5 and
  4), so 200,000 rows need not cross the process boundary.
* Metadata only (Apache Hudi's default selector), by both engines from the same source: each
  engine reads both tables as the source (skeletons and source files stitched through the
  bootstrap index), the two lay out the same commit, skeletons and index files, and the engines
  take turns upserting hudi-sql's table, then hudi-sql deletes from it. The Rust reader does not
  stitch bootstrapped tables (its data columns come back null), so it checks only the skeletons'
  record keys.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from oracle_harness import Oracle
from table_helpers import rust_table

pytestmark = [pytest.mark.oracle, pytest.mark.spark]

FULL_RECORD = "org.apache.hudi.client.bootstrap.selector.FullRecordBootstrapModeSelector"
ROWS = 200_000
DATA = ["id", "name", "price", "ts", "dt"]


def _call(table: str, source: Path, base: Path, selector: str = FULL_RECORD) -> str:
    return (f"CALL run_bootstrap(table => '{table}', table_type => 'COPY_ON_WRITE', bootstrap_path => '{source}', "
            f"base_path => '{base}', rowKey_field => 'id', partition_path_field => 'dt', "
            f"selector_class => '{selector}')")


#: types pinned, as each reader may surface them differently (a partition value as a date or a string)
FINGERPRINT = ["count(*) AS n", ("sum(CAST(hash(CAST(id AS INT), CAST(name AS STRING), CAST(price AS DOUBLE), "
                                 "CAST(ts AS BIGINT), CAST(dt AS STRING)) AS BIGINT)) AS h")]


def _fingerprint(df: Any) -> tuple[int, int]:
    row = df.selectExpr(*FINGERPRINT).collect()[0]
    return row["n"], row["h"]


def _read(spark: Any, path: Path) -> tuple[int, int]:
    import hudi_sql

    return _fingerprint(hudi_sql.read(spark, str(path)))


def _theirs(oracle: Oracle, path: Path) -> tuple[int, int]:
    rows = oracle.python(f"result = spark.read.format('hudi').load('{path}').selectExpr(*{FINGERPRINT!r})")["rows"]
    return rows[0][0], rows[0][1]


def _write_source(spark: Any, path: Path, rows: int) -> Path:
    from pyspark.sql import functions as F

    (spark.range(rows).select(
        F.col("id").cast("int").alias("id"), F.concat(F.lit("name-"), F.col("id")).alias("name"),
        (F.col("id") % 1000 * 0.25).alias("price"), F.lit(1000).cast("long").alias("ts"),
        F.concat(F.lit("2024-01-0"), (F.col("id") % 4 + 1).cast("string")).alias("dt"))
     .write.partitionBy("dt").parquet(str(path)))
    return path


@pytest.fixture(scope="module")
def source(spark: Any, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _write_source(spark, tmp_path_factory.mktemp("bootstrap_source") / "orders", ROWS)


@pytest.fixture(scope="module")
def tables(spark: Any, oracle: Oracle, source: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(Apache Hudi's full-record bootstrap, ours) of the same source."""
    import hudi_sql

    root = tmp_path_factory.mktemp("bootstrap_tables")
    theirs, mine = root / "apache", root / "ours"
    oracle.sql(_call("boot_apache", source, theirs))
    hudi_sql.connect(spark).sql(_call("boot_ours", source, mine))
    return theirs, mine


def test_each_engine_reads_both_full_record_bootstraps_as_the_source(
        spark: Any, oracle: Oracle, source: Path, tables: tuple[Path, Path]) -> None:
    expected = _fingerprint(spark.read.parquet(str(source)))
    assert expected[0] == ROWS
    for path in tables:
        assert _read(spark, path) == expected, f"hudi-sql reads {path.name} as the source"
        assert _theirs(oracle, path) == expected, f"Apache Hudi reads {path.name} as the source"
    rust = spark.createDataFrame(rust_table(str(tables[1])).select(DATA).to_pandas())
    assert _fingerprint(rust) == expected, "the Rust reader reads our bootstrap as the source"


def test_both_bootstraps_are_one_commit_at_the_same_instant_with_the_same_partitions(
        tables: tuple[Path, Path]) -> None:
    def layout(path: Path) -> tuple[list[str], list[str]]:
        commits = sorted(p.name for p in (path / ".hoodie").glob("*.commit"))
        return commits, sorted(p.name for p in path.iterdir() if p.name != ".hoodie")

    assert layout(tables[1]) == layout(tables[0])
    assert layout(tables[1])[0] == ["00000000000002.commit"]


def test_upserts_after_the_bootstrap_agree(spark: Any, oracle: Oracle, tables: tuple[Path, Path]) -> None:
    import hudi_sql

    theirs, mine = tables
    update = ("result = None\nfrom pyspark.sql import functions as F\n"
              "df = spark.read.format('hudi').load(path).where('id < 100').select('id', 'name', 'price', 'ts', 'dt')"
              ".withColumn('name', F.lit('updated')).withColumn('ts', F.lit(2000).cast('long'))\n"
              "df.write.format('hudi').option('hoodie.table.name', name)"
              ".option('hoodie.datasource.write.recordkey.field', 'id')"
              ".option('hoodie.datasource.write.partitionpath.field', 'dt')"
              ".option('hoodie.datasource.write.precombine.field', 'ts').mode('append').save(path)\n")
    oracle.python(update, path=str(theirs), name="boot_apache")
    exec(update, {"spark": spark, "path": str(mine), "name": "boot_ours"})  # noqa: S102 - the same user snippet
    assert _read(spark, mine) == _read(spark, theirs), "both tables after the upsert"
    assert _theirs(oracle, mine) == _read(spark, mine), "Apache Hudi reads our upserted table as we do"
    assert hudi_sql.read(spark, str(mine)).where("name = 'updated'").count() == 100


METADATA_ONLY = "org.apache.hudi.client.bootstrap.selector.MetadataOnlyBootstrapModeSelector"


@pytest.fixture(scope="module")
def metadata_only(spark: Any, oracle: Oracle, source: Path,
                  tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path]:
    """(the source, Apache Hudi's metadata-only bootstrap of it, ours)."""
    import hudi_sql

    root = tmp_path_factory.mktemp("bootstrap_metadata_only")
    theirs, mine = root / "apache", root / "ours"
    oracle.sql(_call("boot_meta_apache", source, theirs, selector=METADATA_ONLY))
    hudi_sql.connect(spark).sql(_call("boot_meta_ours", source, mine, selector=METADATA_ONLY))
    return source, theirs, mine


def test_each_engine_reads_both_metadata_only_bootstraps_as_the_source(
        spark: Any, oracle: Oracle, metadata_only: tuple[Path, Path, Path]) -> None:
    import hudi_sql

    source, *tables = metadata_only
    expected = _fingerprint(spark.read.parquet(str(source)))
    for path in tables:
        assert _read(spark, path) == expected, f"hudi-sql stitches {path.name}'s skeletons and source"
        assert _theirs(oracle, path) == expected, f"Apache Hudi stitches {path.name}'s skeletons and source"
        meta_columns = hudi_sql.read(spark, str(path)).where("id = 7").select("_hoodie_record_key",
                                                                              "_hoodie_commit_time").collect()
        assert [tuple(r) for r in meta_columns] == [("7", "00000000000001")]
    # The Rust reader does not stitch (data columns come back null) but reads our skeletons' keys.
    keys = rust_table(str(tables[1])).column("_hoodie_record_key").to_pylist()
    assert sorted(keys) == sorted(str(i) for i in range(ROWS))


def test_both_metadata_only_bootstraps_lay_out_the_same_files(metadata_only: tuple[Path, Path, Path]) -> None:
    def layout(path: Path) -> tuple[list[str], dict[str, int], list[str]]:
        commits = sorted(p.name for p in (path / ".hoodie").glob("*.commit"))
        skeletons = {p.name: len(list(p.glob("*_00000000000001.parquet")))
                     for p in path.iterdir() if p.name != ".hoodie"}
        index = sorted(str(p.relative_to(path)) for p in (path / ".hoodie" / ".aux" / ".bootstrap").rglob("*.hfile"))
        return commits, skeletons, index

    source, theirs, mine = metadata_only
    assert layout(mine) == layout(theirs)
    assert layout(mine)[1] == {p.name: len(list(p.glob("*.parquet"))) for p in source.iterdir() if p.is_dir()}, \
        "one skeleton per source file, in the source's folders"


def test_the_engines_take_turns_upserting_and_deleting_in_our_metadata_only_bootstrap(
        spark: Any, oracle: Oracle, metadata_only: tuple[Path, Path, Path]) -> None:
    import hudi_sql

    mine = metadata_only[2]
    snippet = ("result = None\nfrom pyspark.sql import functions as F\n"
               "df = spark.read.format('hudi').load(path).where(f'id % 100 = {turn}').select(*columns)"
               ".withColumn('name', F.lit(f'turn-{turn}')).withColumn('ts', F.lit(2000 + turn).cast('long'))\n"
               "df.write.format('hudi').option('hoodie.table.name', 'boot_meta_ours')"
               ".option('hoodie.datasource.write.recordkey.field', 'id')"
               ".option('hoodie.datasource.write.partitionpath.field', 'dt')"
               ".option('hoodie.datasource.write.precombine.field', 'ts').mode('append').save(path)\n")
    oracle.python(snippet, path=str(mine), turn=1, columns=DATA)  # Apache Hudi rewrites skeleton groups
    exec(snippet, {"spark": spark, "path": str(mine), "turn": 2, "columns": DATA})  # noqa: S102 - then hudi-sql
    mine_now, theirs_now = _read(spark, mine), _theirs(oracle, mine)
    assert mine_now == theirs_now, "both engines read the table both wrote alike"
    assert mine_now[0] == ROWS, "every update landed on its key: no duplicates beside the skeletons"
    names = {r[0]: r[1] for r in hudi_sql.read(spark, str(mine)).where("id % 100 IN (1, 2)")
             .groupBy("name").count().collect()}
    assert names == {"turn-1": ROWS // 100, "turn-2": ROWS // 100}

    doomed = hudi_sql.read(spark, str(mine)).where("id % 100 = 3").select(*DATA)
    hudi_sql.write(doomed, str(mine), {"hoodie.table.name": "boot_meta_ours", "hoodie.datasource.write.operation":
                                       "delete", "hoodie.datasource.write.recordkey.field": "id",
                                       "hoodie.datasource.write.partitionpath.field": "dt"})
    after_delete = _theirs(oracle, mine)
    assert after_delete == _read(spark, mine) and after_delete[0] == ROWS - ROWS // 100, "deletes, read alike"
