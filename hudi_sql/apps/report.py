"""``hudi-sql report``: write a table's health report.

::

    hudi-sql report <path or table> [--out report.html] [--format html|json] [--conf hoodie.k=v ...]

Given the base path of a table, the report is built from its timeline and listings alone: no
SparkSession starts. Given a table name, hudi-sql starts its Spark session to look the table up
in the catalog and runs ``CALL table_report`` there. Without ``--out`` the page (or JSON) goes to
standard output. ``--conf`` sets options judged by (the small-file limit, the cleaner policy,
...), over the table's properties.
"""

from __future__ import annotations

__all__ = ["main"]

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING

from hudi_sql.apps.conf import state_dir_for
from hudi_sql.config import HudiServiceConfig, HudiWriteConfig
from hudi_sql.engine.session import default_state_dir, spark_session
from hudi_sql.errors import HudiError
from hudi_sql.report import table_report
from hudi_sql.sql import statements as st
from hudi_sql.sql.session import connect
from hudi_sql.table.meta_client import TableMetaClient

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="hudi-sql report", description="Write a table health report "
                                     "(HTML page with plots, or JSON) from its timeline and file listings.")
    parser.add_argument("table", help="base path of the table, or its name in the catalog")
    parser.add_argument("--out", help="file to write (default: standard output)")
    parser.add_argument("--format", choices=("html", "json"), default=None,
                        help="html (default; json when --out ends in .json)")
    parser.add_argument("--warehouse", metavar="DIR",
                        help="a table name is looked up in this warehouse's catalog (as the shell's --warehouse)")
    parser.add_argument("--state-dir", metavar="DIR", help="the embedded metastore's folder (as the shell's)")
    parser.add_argument("--conf", action="append", default=[], metavar="KEY=VALUE",
                        help=f"an option to judge by ({HudiWriteConfig.PARQUET_SMALL_FILE_LIMIT.key}, "
                        f"{HudiServiceConfig.CLEANER_POLICY.key}, ...)")
    return parser


def main(argv: Sequence[str] | None = None, *, spark: SparkSession | None = None,
         stdout: IO[str] | None = None, stderr: IO[str] | None = None) -> int:
    """Run ``hudi-sql report``; returns the exit status (0, 1 on a failure, 2 on bad arguments)."""
    stdout, stderr = stdout or sys.stdout, stderr or sys.stderr
    args = _parser().parse_args(list(argv) if argv is not None else None)
    options: dict[str, str] = {}
    for item in args.conf:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            stderr.write(f"Error: --conf takes KEY=VALUE, got '{item}'\n")
            return 2
        options[key.strip()] = value.strip()
    kind = args.format or ("json" if args.out and args.out.endswith(".json") else "html")
    try:
        if spark is None and (args.warehouse or args.state_dir) and not TableMetaClient.exists(args.table):
            state_dir = state_dir_for(args.state_dir, args.warehouse) or default_state_dir()
            spark = spark_session(state_dir=state_dir, warehouse=args.warehouse)
        text = _report(args.table, options, kind, spark)
    except HudiError as exc:
        stderr.write(f"Error: {exc}\n")
        return 1
    if args.out:
        out = Path(args.out)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(text, encoding="utf-8")
        stdout.write(f"Wrote the {kind} report of {args.table} to {out}\n")
    else:
        stdout.write(text)
    return 0


def _report(target: str, options: dict[str, str], kind: str, spark: SparkSession | None) -> str:
    if TableMetaClient.exists(target):
        return table_report(target, options, format=kind)
    if "/" in target or "\\" in target:  # a path, not a table name: say so before starting Spark
        TableMetaClient.load(target)  # raises TableNotFoundError naming the path

    session = connect(spark)
    rows = session.execute(st.Call("table_report", (
        st.CallArg("table", target), st.CallArg("format", kind),
        st.CallArg("options", ",".join(f"{k}={v}" for k, v in options.items()) or None),
    ))).collect()
    return str(rows[0]["content"])
