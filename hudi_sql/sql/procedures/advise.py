"""``CALL advise``: what to change in a table, from its own figures (:mod:`hudi_sql.report.advise`).

Not one of Apache Hudi's procedures. One row per recommendation (``finding``, ``evidence``,
``setting``, ``expected_effect``), none when nothing calls for a change; nothing is applied. The
options judged by are the table's (its catalog properties and the session's ``SET``) with
``options => 'k=v,...'`` over them.
"""

from __future__ import annotations

from typing import Any

from hudi_sql.report.advise import recommend
from hudi_sql.report.collect import collect_report
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
