"""Small deterministic data and write options shared by the oracle tests (both engines get the same rows)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

SCHEMA = ("id INT, name STRING, price DOUBLE, ts BIGINT, city STRING, region STRING, "
          "created TIMESTAMP, amount DECIMAL(10,2)")
CITIES = ("sf", "nyc", "la")
REGIONS = ("us", "eu")


def batch(ids: range | list[int], ts: int, tag: str) -> list[list[Any]]:
    """Rows for *ids*: the partition columns depend on the id only, so an upsert stays in place."""
    return [[i, f"{tag}-{i}", round(i * 1.25 + ts, 2), ts, CITIES[i % 3], REGIONS[i % 2],
             f"2024-0{1 + i % 9}-1{i % 10}T0{i % 10}:30:00", f"{i}.{ts}5"] for i in ids]


def spark_rows(rows: list[list[Any]]) -> list[tuple[Any, ...]]:
    """The JSON rows as the Python values our Spark session expects for :data:`SCHEMA`."""
    import datetime
    import decimal

    return [(r[0], r[1], r[2], r[3], r[4], r[5], datetime.datetime.fromisoformat(r[6]), decimal.Decimal(r[7]))
            for r in rows]


def options(name: str, *, table_type: str, keygen: str = "simple", hive_style: bool = False,
            **extra: str) -> dict[str, str]:
    """Apache Hudi datasource options for a table of :data:`SCHEMA` keyed per *keygen*."""
    keygens = {
        "simple": ("id", "city", "org.apache.hudi.keygen.SimpleKeyGenerator"),
        "complex": ("id,region", "city,region", "org.apache.hudi.keygen.ComplexKeyGenerator"),
        "non_partitioned": ("id", "", "org.apache.hudi.keygen.NonpartitionedKeyGenerator"),
    }
    record_key, partition, keygen_class = keygens[keygen]
    opts = {
        "hoodie.table.name": name,
        "hoodie.datasource.write.table.type": table_type,
        "hoodie.datasource.write.recordkey.field": record_key,
        "hoodie.datasource.write.partitionpath.field": partition,
        "hoodie.datasource.write.keygenerator.class": keygen_class,
        "hoodie.datasource.write.precombine.field": "ts",
        "hoodie.datasource.write.hive_style_partitioning": str(hive_style).lower(),
    }
    opts.update(extra)
    return opts


#: The ``hoodie.properties`` keys that say how records are keyed and partitioned.
KEYGEN_PROPERTIES = ("hoodie.table.keygenerator.class", "hoodie.table.recordkey.fields",
                     "hoodie.table.partition.fields", "hoodie.datasource.write.hive_style_partitioning")


def table_properties(path: Path) -> dict[str, str]:
    """``hoodie.properties`` as parsed (Java properties escapes undone)."""
    from hudi_sql.table.meta_client import TableMetaClient

    return dict(TableMetaClient.load(str(path)).properties)


def keygen_properties(path: Path, *extra: str) -> dict[str, str]:
    """The key generator's properties (:data:`KEYGEN_PROPERTIES`, ``hoodie.keygen.*``) and *extra* keys."""
    return {k: v for k, v in table_properties(path).items()
            if k in KEYGEN_PROPERTIES or k in extra or k.startswith("hoodie.keygen.")}
