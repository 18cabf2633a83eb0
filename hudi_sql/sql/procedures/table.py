"""``show_table_properties``: the table's ``hoodie.properties``."""

from __future__ import annotations

from typing import Any

from hudi_sql.sql.procedures import Arg, ProcedureContext, procedure


@procedure(
    "show_table_properties",
    args=[Arg("table"), Arg("path"), Arg("limit", "int", default=10)],
    output="key string, value string",
    description="The table's hoodie.properties, by key.",
)
def show_table_properties(ctx: ProcedureContext, args: dict[str, Any]) -> list[tuple[Any, ...]]:
    meta = ctx.meta(args)
    return sorted(meta.properties.items())[: args["limit"]]
