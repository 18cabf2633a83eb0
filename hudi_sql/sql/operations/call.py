"""``CALL procedure(...)``: the procedure registry (:mod:`hudi_sql.sql.procedures`) over the
operation context."""

from __future__ import annotations

__all__ = ["call"]

from typing import TYPE_CHECKING

from hudi_sql.errors import HudiSqlError
from hudi_sql.sql import statements as st
from hudi_sql.sql.operations.context import OperationContext
from hudi_sql.sql.procedures import Procedure, ProcedureContext, bind_args, lookup

if TYPE_CHECKING:
    from pyspark.sql import DataFrame


def call(ctx: OperationContext, statement: st.Call) -> DataFrame:
    proc = lookup(statement.procedure)
    args = bind_args(proc, statement.args)
    condition = str(args.get("filter") or "").strip()
    if condition:
        _check_filter(ctx, proc, condition)
    rows = proc.run(ProcedureContext(ctx, proc.name), args)
    answer = ctx.spark.createDataFrame(list(rows), proc.output)
    return answer.filter(condition) if condition else answer


def _check_filter(ctx: OperationContext, proc: Procedure, condition: str) -> None:
    """A procedure's ``filter`` argument (Apache Hudi 1.x's ``HoodieProcedureFilterUtils``) is a Spark SQL
    condition on its output columns; one that does not parse or names other columns is refused before
    the procedure runs, as Apache Hudi refuses it."""
    from pyspark.errors import AnalysisException, ParseException

    try:
        ctx.spark.createDataFrame([], proc.output).filter(condition).schema  # noqa: B018 (analysis only)
    except (ParseException, AnalysisException) as exc:
        first_line = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise HudiSqlError(f"CALL {proc.name}: invalid filter expression '{condition}': {first_line}") from None
