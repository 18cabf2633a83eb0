"""``CALL procedure(...)``: the procedure registry (:mod:`hudi_sql.sql.procedures`) over the
operation context."""

from __future__ import annotations

__all__ = ["call"]

from typing import TYPE_CHECKING

from hudi_sql.sql import statements as st
from hudi_sql.sql.operations.context import OperationContext
from hudi_sql.sql.procedures import ProcedureContext, bind_args, lookup

if TYPE_CHECKING:
    from pyspark.sql import DataFrame


def call(ctx: OperationContext, statement: st.Call) -> DataFrame:
    proc = lookup(statement.procedure)
    args = bind_args(proc, statement.args)
    rows = proc.run(ProcedureContext(ctx, proc.name), args)
    return ctx.spark.createDataFrame(list(rows), proc.output)
