"""The table's health from SQL: ``CALL advise`` (what to change, from the table's own figures:
:mod:`hudi_sql.report.advise`), ``CALL check_config`` (the options set on it that are ignored,
renamed, dropped, unknown or contradictory: :mod:`hudi_sql.config.check`) and ``CALL
verify_table`` (whether it is whole: :mod:`hudi_sql.report.verify`).

Not Apache Hudi's procedures. One row per recommendation, option finding or discrepancy; none
when all is well; nothing is applied or repaired. The options judged by are the table's (its catalog
properties and the session's ``SET``) with ``options => 'k=v,...'`` over them.
"""

from __future__ import annotations

from typing import Any

from hudi_sql.config.check import check_options
from hudi_sql.report.advise import recommend
from hudi_sql.report.collect import collect_report
from hudi_sql.report.verify import verify_table as verify
from hudi_sql.sql.procedures import Arg, ProcedureContext, parse_options, procedure


@procedure(
    "advise",
    args=[Arg("table"), Arg("path"), Arg("options"), Arg("filters")],
    output="finding string, evidence string, setting string, expected_effect string",
    description="Recommendations for the table from its commits and files: the finding, its evidence, the "
    "setting to apply and what it should change (nothing is applied). filters: the columns queries filter "
    "on (comma-separated), judged by the column statistics.",
)
def advise(ctx: ProcedureContext, args: dict[str, Any]) -> list[tuple[Any, ...]]:
    meta = ctx.meta(args)
    options = ctx.write_configs(args, parse_options(args["options"], "CALL advise")).raw()
    report = collect_report(meta, options)
    filters = [c.strip() for c in str(args.get("filters") or "").split(",") if c.strip()]
    return [(r.finding, r.evidence, r.setting, r.expected_effect)
            for r in recommend(meta, report, options, filters=filters)]


@procedure(
    "verify_table",
    args=[Arg("table"), Arg("path"), Arg("options")],
    output="check string, subject string, detail string",
    description="Whether the table is whole: every file of its latest file slices on storage, the metadata "
    "table's listing equal to storage, no record key twice in the snapshot; one row per discrepancy.",
)
def verify_table(ctx: ProcedureContext, args: dict[str, Any]) -> list[tuple[Any, ...]]:
    meta = ctx.meta(args)
    options = ctx.resolve(args, parse_options(args["options"], "CALL verify_table"))
    return [(d.check, d.subject, d.detail) for d in verify(ctx.spark, meta, options)]


@procedure(
    "check_config",
    args=[Arg("table"), Arg("path")],
    output="key string, value string, source string, finding string, detail string",
    description="The hoodie.* options set on the table (TBLPROPERTIES) and in the session (SET) that hudi-sql "
    "ignores, reads under a newer name, that an Apache Hudi release dropped, that no release knows, that do "
    "not parse, or that contradict each other or the table; and what an upgrade of Apache Hudi would change "
    "for the table where no option pins today's behaviour.",
)
def check_config(ctx: ProcedureContext, args: dict[str, Any]) -> list[tuple[Any, ...]]:
    meta = ctx.meta(args)
    session = {k: str(v) for k, v in ctx.runner.options.items() if k.startswith("hoodie.")}
    table = dict(ctx.facts(str(args["table"])).catalog_properties) if args.get("table") else {}
    sources = {"session": session, "table": {k: v for k, v in table.items() if k.startswith("hoodie.")}}
    found = check_options(sources, meta.properties, stored_keys_value_only=meta.stored_keys_value_only())
    return [(f.key, f.value, f.source, f.finding, f.detail) for f in found]
