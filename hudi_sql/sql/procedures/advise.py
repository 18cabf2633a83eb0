"""``CALL advise`` and ``CALL verify_table``: what to change in a table, from its own figures
(:mod:`hudi_sql.report.advise`), and whether it is whole (:mod:`hudi_sql.report.verify`).

Not Apache Hudi's procedures. One row per recommendation (``finding``, ``evidence``, ``setting``,
``expected_effect``) or per discrepancy (``check``, ``subject``, ``detail``); none when all is
well; nothing is applied or repaired. The options judged by are the table's (its catalog
properties and the session's ``SET``) with ``options => 'k=v,...'`` over them.
"""

from __future__ import annotations

from typing import Any

from hudi_sql.report.advise import recommend
from hudi_sql.report.collect import collect_report
from hudi_sql.report.verify import verify_table as verify
from hudi_sql.sql.procedures import Arg, ProcedureContext, parse_options, procedure


@procedure(
    "advise",
    args=[Arg("table"), Arg("path"), Arg("options")],
    output="finding string, evidence string, setting string, expected_effect string",
    description="Recommendations for the table from its commits and files: the finding, its evidence, the "
    "setting to apply and what it should change (nothing is applied).",
)
def advise(ctx: ProcedureContext, args: dict[str, Any]) -> list[tuple[Any, ...]]:
    meta = ctx.meta(args)
    options = ctx.write_configs(args, parse_options(args["options"], "CALL advise")).raw()
    report = collect_report(meta, options)
    return [(r.finding, r.evidence, r.setting, r.expected_effect) for r in recommend(meta, report, options)]


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
