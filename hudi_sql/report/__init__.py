"""A table health report: the figures operators ask about every week, drawn on one page.

``hudi-sql report <table or path>`` and ``CALL table_report(table => ...)`` build it; from
Python::

    from hudi_sql.report import table_report

    html = table_report("/data/trips")                    # one self-contained HTML page
    figures = table_report("/data/trips", format="json")  # the same figures as JSON text

:mod:`~hudi_sql.report.collect` gathers the figures (pure values, from the timeline and file
listings only; no data file is read and no Spark is needed), :mod:`~hudi_sql.report.advise`
recommends what to change (it reads the footers of a sample of base files for their key ranges),
:mod:`~hudi_sql.report.plots`
draws them with matplotlib (the optional extra ``report``) and
:mod:`~hudi_sql.report.render` lays out the page. docs/report.md explains every figure.
"""

from __future__ import annotations

__all__ = ["FORMATS", "TableReport", "collect_report", "render_html", "render_json", "table_report"]

import dataclasses
from collections.abc import Mapping
from datetime import datetime

from hudi_sql.config import HudiConfigs
from hudi_sql.errors import HudiConfigError
from hudi_sql.report.advise import recommend
from hudi_sql.report.collect import TableReport, collect_report
from hudi_sql.report.render import render_html, render_json
from hudi_sql.table.meta_client import TableMetaClient

FORMATS = ("html", "json")


def table_report(path_or_meta: str | TableMetaClient, options: HudiConfigs | Mapping[str, object] | None = None,
                 *, format: str = "html", now: datetime | None = None) -> str:
    """The report of a table as text: an HTML page, or JSON (``format="json"``).

    Args:
        path_or_meta: the table's base path, or its loaded meta client.
        options: options to judge by over the table's properties (``hoodie.parquet.small.file.limit``,
            ``hoodie.cleaner.policy``, ...).
        format: ``html`` or ``json``.
        now: the clock (``generated_at``, the KEEP_LATEST_BY_HOURS clean policy); default now, UTC.

    Raises:
        HudiConfigError: an unknown format or option.
        TableNotFoundError: no Hudi table at the path.
        NotInstalledError: ``html`` without matplotlib (the extra ``report``).
    """
    kind = format.strip().lower()
    if kind not in FORMATS:
        raise HudiConfigError(f"Report format '{format}' is not one of {', '.join(FORMATS)}.",
                              help="--format html (a page with plots) or --format json (the figures)")
    meta = path_or_meta if isinstance(path_or_meta, TableMetaClient) else TableMetaClient.load(path_or_meta)
    report = collect_report(meta, options, now=now)
    plain = options.raw() if isinstance(options, HudiConfigs) else options
    report = dataclasses.replace(report, recommendations=recommend(meta, report, plain))
    return render_html(report) if kind == "html" else render_json(report)
