"""The table itself: ``show_table_properties`` (its ``hoodie.properties``), and moving it between
table versions (``upgrade_table``, ``downgrade_table``)."""

from __future__ import annotations

from typing import Any

from hudi_sql.errors import HudiSqlError
from hudi_sql.services.downgrade import downgrade_table as downgrade
from hudi_sql.services.upgrade import upgrade_table as upgrade
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


#: Apache Hudi's ``HoodieTableVersion`` names, which its procedure takes as ``to_version``.
_VERSION_NAMES = {"SIX": 6, "EIGHT": 8, "NINE": 9}


def _target_version(value: Any, procedure_name: str) -> int:
    text = str(value).strip().upper()
    if text in _VERSION_NAMES:
        return _VERSION_NAMES[text]
    if text.isdigit():
        return int(text)
    raise HudiSqlError(f"CALL {procedure_name}: to_version => '{value}' is not a table version.",
                       help="to_version => 9, 8 or 6 (or 'NINE' / 'EIGHT' / 'SIX', Apache Hudi's names)")


@procedure(
    "upgrade_table",
    args=[Arg("table", required=True), Arg("to_version", required=True)],
    output="result boolean",
    description="Upgrade the table to version 8 (Apache Hudi 1.0: its timeline, commit metadata and "
                "properties) or 9 (1.1 / 1.2: its properties); a MERGE_ON_READ table is compacted first. Run "
                "again, it finishes an interrupted upgrade.",
)
def upgrade_table(ctx: ProcedureContext, args: dict[str, Any]) -> list[tuple[Any, ...]]:
    meta = ctx.meta(args)
    result = upgrade(ctx.spark, meta, to_version=_target_version(args["to_version"], "upgrade_table"),
                     configs=ctx.write_configs(args))
    return [(result.from_version != result.to_version,)]


@procedure(
    "downgrade_table",
    args=[Arg("table", required=True), Arg("to_version", required=True)],
    output="result boolean",
    description="Downgrade the table from version 9 to 8 (its properties), or to 6 (Apache Hudi 0.14 / 0.15: "
                "its timeline, commit metadata and properties); a MERGE_ON_READ table is compacted first. Run "
                "again, it finishes an interrupted downgrade.",
)
def downgrade_table(ctx: ProcedureContext, args: dict[str, Any]) -> list[tuple[Any, ...]]:
    meta = ctx.meta(args)
    result = downgrade(ctx.spark, meta, to_version=_target_version(args["to_version"], "downgrade_table"),
                       configs=ctx.write_configs(args))
    return [(result.from_version != result.to_version,)]
