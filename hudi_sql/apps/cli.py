"""``hudi-sql``: the command-line entry point.

::

    hudi-sql [shell options]            the SQL shell (:mod:`hudi_sql.apps.shell`)
    hudi-sql thriftserver [options]     a HiveServer2 endpoint (:mod:`hudi_sql.apps.hiveserver2.cli`)
    hudi-sql sync --base-path ...       Hive metastore sync (:mod:`catalog.hive.cli`)
    hudi-sql report <path or table>     a table health report (:mod:`hudi_sql.apps.report`)
    hudi-sql dbt <dbt arguments>        dbt's session method on hudi-sql (:mod:`hudi_sql.apps.dbt_session`)

Each subcommand's module is imported only when it runs: the server needs Thrift, which the
shell does not.
"""

from __future__ import annotations

__all__ = ["main"]

import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from catalog.hive.cli import main as sync
from hudi_sql.apps.dbt_session import main as dbt
from hudi_sql.apps.hiveserver2.cli import main as serve
from hudi_sql.apps.report import main as report
from hudi_sql.apps.shell import main as shell

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


def main(argv: Sequence[str] | None = None, *, spark: SparkSession | None = None, **streams: Any) -> int:
    """Run ``hudi-sql``; returns the exit status.

    Args:
        argv: command-line arguments (default ``sys.argv[1:]``).
        spark: run on this session instead of starting one (shell and sync).
        streams: ``stdin``, ``stdout``, ``stderr`` (default the process's), as
            :func:`hudi_sql.apps.shell.main` takes them.
    """
    arguments = list(argv) if argv is not None else sys.argv[1:]
    if arguments and arguments[0] == "thriftserver":  # hudi-sql thriftserver [--port ...]

        return serve(arguments[1:])
    if arguments and arguments[0] == "sync":  # hudi-sql sync --base-path ... (Hive metastore sync)

        return sync(
            arguments[1:], spark=spark, stdout=streams.get("stdout"), stderr=streams.get("stderr")
        )
    if arguments and arguments[0] == "report":  # hudi-sql report <path or table> [--out FILE]

        return report(arguments[1:], spark=spark, stdout=streams.get("stdout"), stderr=streams.get("stderr"))
    if arguments and arguments[0] == "dbt":  # hudi-sql dbt run --project-dir ... (dbt-spark, method: session)

        return dbt(arguments[1:])

    return shell(arguments, spark=spark, **streams)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
