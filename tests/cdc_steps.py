"""The statements the CDC tests run, in hudi-sql and in Apache Hudi alike: inserts, an update, a
delete, a MERGE INTO that updates and inserts, and another update (``{t}`` is the table)."""

from __future__ import annotations

STATEMENTS = [
    "INSERT INTO {t} VALUES (1, 'a', 10.0, 1000, 'p1'), (2, 'b', 20.0, 1000, 'p1'), (3, 'c', 30.0, 1000, 'p2')",
    "UPDATE {t} SET price = price + 1, ts = 2000 WHERE id = 1",
    "DELETE FROM {t} WHERE id = 2",
    ("MERGE INTO {t} USING (SELECT 3 AS id, 'c2' AS name, 33.0 AS price, 3000L AS ts, 'p2' AS dt UNION ALL "
     "SELECT 5, 'e', 50.0, 1000L, 'p2') s ON {t}.id = s.id WHEN MATCHED THEN UPDATE SET * "
     "WHEN NOT MATCHED THEN INSERT *"),
    "UPDATE {t} SET name = 'a2', ts = 4000 WHERE id = 1",
]


def create_cdc_table(name: str, path: object, table_type: str, mode: str, version: int = 6) -> str:
    """CREATE TABLE of a partitioned table with CDC on, logging *mode*, of table *version*."""
    return (f"CREATE TABLE {name} (id INT, name STRING, price DOUBLE, ts BIGINT, dt STRING) USING hudi "
            f"PARTITIONED BY (dt) LOCATION '{path}' TBLPROPERTIES (primaryKey = 'id', preCombineField = 'ts', "
            f"type = '{table_type}', 'hoodie.table.cdc.enabled' = 'true', "
            f"'hoodie.table.cdc.supplemental.logging.mode' = '{mode}'"
            + ("" if version == 6 else f", 'hoodie.write.table.version' = '{version}'") + ")")
