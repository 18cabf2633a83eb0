"""``CALL table_report``: the table health report (:mod:`hudi_sql.report`) from SQL.

Not one of Apache Hudi's procedures. With ``out`` the page (or JSON) is written to that file
and the row names it; without, the row carries the document in ``content`` (JSON is what a
monitoring query wants: ``CALL table_report(table => 't', format => 'json')``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hudi_sql.config import HudiConfigs
from hudi_sql.report import table_report as build
from hudi_sql.sql.procedures import Arg, ProcedureContext, parse_options, procedure


@procedure(
    "table_report",
    args=[Arg("table"), Arg("path"), Arg("format", default="html"), Arg("out"), Arg("options")],
    output="format string, out string, bytes long, content string",
    description="A health report of the table (commits, file sizes, skew, compaction, clean) as one "
    "self-contained HTML page with plots, or as JSON (format => 'json'); out => writes it to a file.",
)
def table_report(ctx: ProcedureContext, args: dict[str, Any]) -> list[tuple[Any, ...]]:
    meta = ctx.meta(args)
    extra = parse_options(args["options"], "CALL table_report")
    configs = HudiConfigs.layered(meta.properties, ctx.write_configs(args, extra).raw())
    kind = str(args["format"]).strip().lower()
    text = build(meta, configs, format=kind)
    data = text.encode("utf-8")
    if args["out"]:
        out = Path(str(args["out"]))
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_bytes(data)
        return [(kind, str(out), len(data), None)]
    return [(kind, None, len(data), text)]
