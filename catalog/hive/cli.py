"""``hudi-sql sync``: sync one table to a Hive metastore now, like Hudi's ``HiveSyncTool`` command.

    hudi-sql sync --base-path /data/trips --mode jdbc --jdbc-url jdbc:hive2://127.0.0.1:10000 \\
                  [--database db] [--table t] [--partition-fields a,b] [--conf hoodie.k=v ...] [--output json]

It prints what it did, a line per change (tables created, columns added or changed, partitions
added, moved or dropped, the commit synced up to), or with ``--output json`` one object.

Options map one to one onto ``hoodie.datasource.hive_sync.*``; ``--conf`` passes any other
``hoodie.*`` key. ``hms`` and ``hiveql`` modes use the embedded SparkSession's JVM.
"""

from __future__ import annotations

import hudi_sql

__all__ = ["main"]

import argparse
import json
import sys
from collections.abc import Sequence
from typing import IO, TYPE_CHECKING, Any

from catalog.hive.config import HiveSyncConfig
from catalog.hive.sync import HiveSyncTool
from hudi_sql.errors import HudiError

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

_FLAGS = {
    "mode": HiveSyncConfig.MODE, "jdbc_url": HiveSyncConfig.JDBC_URL, "metastore_uris": HiveSyncConfig.METASTORE_URIS,
    "user": HiveSyncConfig.USERNAME, "password": HiveSyncConfig.PASSWORD, "database": HiveSyncConfig.DATABASE,
    "table": HiveSyncConfig.TABLE, "partition_fields": HiveSyncConfig.PARTITION_FIELDS,
    "partition_value_extractor": HiveSyncConfig.PARTITION_EXTRACTOR_CLASS,
}


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="hudi-sql sync", description="Sync a Hudi table to a Hive metastore.")
    parser.add_argument("--base-path", required=True, help="the table's base path")
    parser.add_argument("--mode", choices=("jdbc", "hms", "hiveql"), help="how to reach the metastore")
    parser.add_argument("--jdbc-url", help="HiveServer2 url (jdbc mode)")
    parser.add_argument("--metastore-uris", help="thrift://host:port (hms mode)")
    parser.add_argument("--user")
    parser.add_argument("--password")
    parser.add_argument("--database")
    parser.add_argument("--table")
    parser.add_argument("--partition-fields")
    parser.add_argument("--partition-value-extractor")
    parser.add_argument("--skip-ro-suffix", action="store_true")
    parser.add_argument("--conf", action="append", default=[], metavar="KEY=VALUE", help="more hoodie.* options")
    parser.add_argument("--output", choices=("text", "json"), default="text",
                        help="what the sync did: a line per change (text), or one JSON object")
    return parser


def main(argv: Sequence[str] | None = None, *, spark: SparkSession | None = None,
         stdout: IO[str] | None = None, stderr: IO[str] | None = None) -> int:
    stdout, stderr = stdout or sys.stdout, stderr or sys.stderr
    args = _parser().parse_args(list(argv) if argv is not None else None)
    options: dict[str, Any] = {}
    for item in args.conf:
        key, sep, value = item.partition("=")
        if not sep:
            stderr.write(f"Error: --conf takes KEY=VALUE, got '{item}'\n")
            return 2
        options[key.strip()] = value.strip()
    for flag, key in _FLAGS.items():
        value = getattr(args, flag)
        if value is not None:
            options[key.key] = value
    if args.skip_ro_suffix:
        options[HiveSyncConfig.SKIP_RO_SUFFIX.key] = "true"
    if spark is None and args.mode in ("hms", "hiveql"):
        spark = hudi_sql.spark_session(metastore_uris=args.metastore_uris)
    try:
        result = HiveSyncTool.for_table(args.base_path, options, spark=spark).sync()
    except HudiError as exc:
        stderr.write(f"Error: {exc}\n")
        return 1
    if args.output == "json":
        stdout.write(json.dumps({"base_path": args.base_path, **result.summary()}) + "\n")
    else:
        stdout.write(f"Synced {args.base_path}\n" + "".join(f"  {line}\n" for line in result.lines()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
