"""The report page: one self-contained HTML file (inline CSS and SVG, no script, no link).

The page opens from a file with no network: every plot is SVG text inside the page
(:mod:`hudi_sql.report.plots`), the style sheet is inline, and there is no JavaScript, so there
is nothing to load and no script to fail. Tables below the plots repeat the exact numbers
(pending plans, savepoints, latest commits); the JSON form (:func:`render_json`) has them all.
"""

from __future__ import annotations

__all__ = ["render_html", "render_json"]

import json
from collections.abc import Iterable, Sequence
from html import escape
from typing import Any

from hudi_sql.report.collect import TableReport
from hudi_sql.report.plots import Plot, draw_plots, human_bytes

#: Latest commits listed in the commits table (the plots and the JSON have all of them).
COMMIT_ROWS = 25

_CSS = """
body { font: 14px/1.45 system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif; margin: 0; color: #1f2328;
       background: #f6f8fa; }
header { background: #0b3d59; color: #fff; padding: 18px 28px; }
header h1 { margin: 0 0 4px; font-size: 22px; }
header p { margin: 0; opacity: .85; font-size: 13px; }
main { max-width: 1100px; margin: 0 auto; padding: 18px 24px 40px; }
.cards { display: grid; grid-template-columns: repeat(auto-fill, minmax(150px, 1fr)); gap: 10px; margin: 8px 0 18px; }
.card { background: #fff; border: 1px solid #d0d7de; border-radius: 8px; padding: 10px 12px; }
.card .v { font-size: 20px; font-weight: 600; }
.card .k { font-size: 12px; color: #57606a; }
.card.warn { border-color: #ef6c00; background: #fff8f0; }
section { background: #fff; border: 1px solid #d0d7de; border-radius: 8px; padding: 12px 16px; margin: 14px 0; }
section h2 { font-size: 16px; margin: 0 0 4px; }
section p.caption { margin: 0 0 8px; color: #57606a; font-size: 13px; }
figure { margin: 0; }
figure svg { width: 100%; height: auto; }
table { border-collapse: collapse; width: 100%; font-size: 12.5px; }
th, td { border-bottom: 1px solid #eaeef2; padding: 4px 8px; text-align: left; }
td.n, th.n { text-align: right; font-variant-numeric: tabular-nums; }
.muted { color: #57606a; }
footer { color: #57606a; font-size: 12px; margin-top: 22px; }
"""


def render_json(report: TableReport, *, indent: int | None = 2) -> str:
    """The figures as JSON (``--format json``), for monitoring systems."""
    return json.dumps(report.to_json(), indent=indent, sort_keys=False)


def _cards(report: TableReport) -> str:
    s = report.summary()
    pending = len(report.pending_compactions) + len(report.pending_clusterings)
    items: list[tuple[str, str, bool]] = [
        ("table type", report.table_type.replace("_", " ").lower(), False),
        ("completed commits", f"{s['completed_commits']:,}", False),
        ("pending instants", f"{s['pending_instants']:,}", s["pending_instants"] > 0),
        ("partitions", f"{s['partitions']:,}", False),
        ("file groups", f"{s['file_groups']:,}", False),
        ("base data", human_bytes(s["base_bytes"]), False),
        ("small base files", f"{s['small_files']:,} of {s['base_files']:,}",
         s["base_files"] > 1 and s["small_files"] > s["base_files"] // 2),
    ]
    if report.is_mor:
        due = report.settings["compaction_max_delta_commits"]
        deltas = report.delta_commits_since_compaction or 0
        items += [("log files / bytes", f"{s['log_files']:,} / {human_bytes(s['log_bytes'])}", False),
                  ("deltacommits since compaction", f"{deltas:,}", deltas >= due)]
    items += [
        ("pending compaction / clustering", f"{len(report.pending_compactions)} / {len(report.pending_clusterings)}",
         pending > 0),
        ("clean would remove", (f"{report.clean.files:,} file{'' if report.clean.files == 1 else 's'}, "
                                f"{human_bytes(report.clean.bytes)}"),
         report.clean.files > 0),
        ("savepoints", f"{len(report.savepoints)}", False),
    ]
    return '<div class="cards">' + "".join(
        f'<div class="card{" warn" if warn else ""}"><div class="v">{escape(value)}</div>'
        f'<div class="k">{escape(key)}</div></div>' for key, value, warn in items) + "</div>"


def _table(headers: Sequence[str], rows: Iterable[Sequence[Any]], numeric: Sequence[bool]) -> str:
    head = "".join(f'<th class="{"n" if n else ""}">{escape(h)}</th>' for h, n in zip(headers, numeric))
    body = "".join(
        "<tr>" + "".join(f'<td class="{"n" if n else ""}">{escape(_cell(v))}</td>' for v, n in zip(row, numeric))
        + "</tr>" for row in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _cell(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:,.2f}"
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}"
    return str(value)


def _section(anchor: str, title: str, caption: str, body: str) -> str:
    return (f'<section id="{escape(anchor)}"><h2>{escape(title)}</h2>'
            f'<p class="caption">{escape(caption)}</p>{body}</section>')


def _plot_section(plot: Plot) -> str:
    return _section(plot.name, plot.title, plot.caption, f'<figure class="plot">{plot.svg}</figure>')


def _tables(report: TableReport) -> list[str]:
    out = [_section(
        "recommendations", "Recommendations",
        "What the table's own figures say to change (none is applied); docs/report.md explains each rule.",
        _table(["finding", "evidence", "setting", "expected effect"],
               [(r.finding, r.evidence, r.setting, r.expected_effect) for r in report.recommendations],
               [False, False, False, False])
        if report.recommendations else '<p class="muted">None: nothing in the figures calls for a change.</p>')]
    pending = list(report.pending_compactions) + list(report.pending_clusterings)
    out.append(_section(
        "pending", "Pending compaction and clustering plans",
        "Table services scheduled on the timeline and not yet completed.",
        _table(["instant", "kind", "state", "file groups", "partitions", "log files"],
               [(p.instant_time, p.kind, p.state, p.file_groups, p.partitions, p.log_files) for p in pending],
               [False, False, False, True, True, True])
        if pending else '<p class="muted">None.</p>'))
    out.append(_section(
        "savepoints", "Savepoints", "Completed savepoints: the cleaner keeps every file they pin.",
        _table(["instant", "by", "comments", "files pinned"],
               [(s.instant_time, s.savepointed_by, s.comments, s.files) for s in report.savepoints],
               [False, False, False, True])
        if report.savepoints else '<p class="muted">None.</p>'))
    latest = list(report.commits)[-COMMIT_ROWS:][::-1]
    out.append(_section(
        "commits", f"Latest {len(latest)} commits", "Newest first; the JSON has every commit.",
        _table(["instant", "action", "operation", "inserted", "updated", "deleted", "written", "bytes",
                "write ampl.", "seconds"],
               [(c.instant_time, c.action, c.operation, c.records_inserted, c.records_updated, c.records_deleted,
                 c.records_written, human_bytes(c.bytes_written), c.write_amplification, c.duration_seconds)
                for c in latest],
               [False, False, False, True, True, True, True, True, True, True])
        if latest else '<p class="muted">No completed commit.</p>'))
    return out


def render_html(report: TableReport) -> str:
    """The report page (see the module doc)."""
    plots = draw_plots(report)
    settings = report.settings
    notes = (
        "Write amplification = bytes written / bytes of changed records; per write stat the changed bytes are "
        "totalWriteBytes x (numInserts + numUpdateWrites + numDeletes) / numWrites, at most totalWriteBytes. "
        f"Judged with small.file.limit = {human_bytes(settings['small_file_limit'])}, max.file.size = "
        f"{human_bytes(settings['max_file_size'])}, cleaner policy {settings['cleaner_policy']} "
        f"(commits retained {settings['cleaner_commits_retained']}, file versions retained "
        f"{settings['cleaner_file_versions_retained']}, hours retained {settings['cleaner_hours_retained']})."
    )
    body = "".join(_plot_section(p) for p in plots) + "".join(_tables(report))
    title = f"Hudi table report: {report.table_name}"
    return (
        "<!DOCTYPE html>\n"
        f'<html lang="en"><head><meta charset="utf-8"><title>{escape(title)}</title>'
        f'<meta name="viewport" content="width=device-width, initial-scale=1"><style>{_CSS}</style></head>'
        f"<body><header><h1>{escape(title)}</h1>"
        f"<p>{escape(report.base_path)} &middot; {escape(report.table_type)} &middot; table version "
        f"{report.table_version} &middot; generated {escape(report.generated_at)}</p></header>"
        f"<main>{_cards(report)}{body}<footer>{escape(notes)} Built from the timeline and file listings only; "
        "no data file was read. docs/report.md explains every figure.</footer></main></body></html>\n"
    )
