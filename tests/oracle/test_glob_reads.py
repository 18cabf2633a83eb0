"""Glob read paths, as older Apache Hudi guides load tables: ``load(base_path + "/*/*")``.

Apache Hudi and hudi-sql read the same table (written by hudi-sql, with updates in place: old
base file versions on COW, log files on MOR) through the same glob; both must give the
snapshot of the partitions the glob reaches, never old file versions.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from oracle_harness import Oracle, assert_same_rows, ours
from oracle_tables import SCHEMA, batch, options, spark_rows

pytestmark = [pytest.mark.oracle, pytest.mark.spark]


@pytest.mark.parametrize(("table_type", "keygen", "globs"), [
    ("COPY_ON_WRITE", "simple", ["/*/*", "/sf/*"]),
    ("MERGE_ON_READ", "simple", ["/*/*"]),
    ("COPY_ON_WRITE", "complex", ["/*/*/*", "/sf/*/*"]),
])
def test_glob_read_same_rows_as_apache_hudi(spark: Any, oracle: Oracle, tmp_path: Path, table_type: str,
                                            keygen: str, globs: list[str]) -> None:
    import hudi_sql

    path = tmp_path / f"glob_{table_type.lower()}_{keygen}"
    opts = options(path.name, table_type=table_type, keygen=keygen)
    for ids, ts, operation in ((range(12), 1, "insert"), ([0, 1, 2, 3, 12], 2, "upsert")):
        df = spark.createDataFrame(spark_rows(batch(ids, ts, f"v{ts}")), SCHEMA)
        hudi_sql.write(df, str(path), {**opts, "hoodie.datasource.write.operation": operation})
    theirs = oracle.run([{"read": {"path": f"{path}{glob}", "options": {}}} for glob in globs])
    for glob, their_rows in zip(globs, theirs):
        assert their_rows["rows"], f"Apache Hudi read nothing through {glob}"
        mine = ours(spark.read.format("hudi").load(f"{path}{glob}"))
        assert_same_rows(mine, their_rows, what=f"{path.name}{glob}")
