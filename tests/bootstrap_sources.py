"""The source the bootstrap integration tests bootstrap: a Hive-style partitioned Parquet table
written by plain Spark, and what they keep of each bootstrap."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass
class Bootstrapped:
    db: Any
    source: Path
    base: Path
    source_digest: dict[str, str]


def digest(folder: Path) -> dict[str, str]:
    """Every file under *folder* and its content hash: what 'never modified' means."""
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def write_source(spark: Any, path: Path, rows: int) -> None:
    """*rows* rows ``(id, name-<id>, id * 1.5, 1000, 2024-01-0<id % 3 + 1>)`` partitioned by ``dt``,
    two Parquet files per partition."""
    from pyspark.sql import functions as F

    (spark.range(rows).select(
        F.col("id").cast("int").alias("id"), F.concat(F.lit("name-"), F.col("id")).alias("name"),
        (F.col("id") * 1.5).alias("price"), F.lit(1000).cast("long").alias("ts"),
        F.concat(F.lit("2024-01-0"), (F.col("id") % 3 + 1).cast("string")).alias("dt"))
     .repartition(2).write.partitionBy("dt").parquet(str(path)))
