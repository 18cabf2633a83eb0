"""The report's plots, drawn with matplotlib into inline SVG.

Why matplotlib: it is the long-maintained reference plotting library of Python (NumFOCUS,
releases several times a year, wheels for every platform), and its SVG backend renders a
static, self-contained file without a browser, a JavaScript runtime or a network: the report
page embeds the SVG text as is and opens offline. Plotly, Bokeh and Altair draw in the browser
with a JavaScript bundle (a CDN or megabytes inlined); seaborn and plotnine sit on matplotlib
anyway. Only the figure API is used (no ``pyplot``), so no GUI backend or global state is
touched; text is drawn as paths (``svg.fonttype = path``) so the page needs no fonts, and the
ids inside each SVG are salted with the figure's name so several figures share one page.

matplotlib is the optional extra ``report`` (``pip install 'hudi-sql[report]'``); the JSON
figures need nothing beyond the core.
"""

from __future__ import annotations

__all__ = ["Plot", "draw_plots"]

import importlib
import io
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from hudi_sql.errors import HudiTimelineError, NotInstalledError
from hudi_sql.model.instant import parse_instant_time
from hudi_sql.report.collect import TableReport

#: Above this many bars a series is drawn as one filled step path (SVG size and draw time).
MAX_BARS = 400
#: Partitions drawn in the per-partition figures (the largest ones).
MAX_PARTITIONS = 40
#: Partitions with a file-size histogram of their own (the ones with most files).
MAX_HISTOGRAMS = 12

_STATE_COLORS = {"completed": "#2e7d32", "inflight": "#ef6c00", "requested": "#1565c0"}
_ACTION_COLORS = {"commit": "#1565c0", "deltacommit": "#6a1b9a", "replacecommit": "#00838f"}
_MB = 1024 * 1024


@dataclass(frozen=True)
class Plot:
    """One figure of the page: its anchor, title, caption (what it shows) and SVG text."""

    name: str
    title: str
    caption: str
    svg: str


def _matplotlib() -> Any:
    try:
        import matplotlib
        from matplotlib.figure import Figure
    except ImportError:
        raise NotInstalledError(
            "The HTML report draws its plots with matplotlib, which is not installed.",
            help="pip install 'hudi-sql[report]' (or use --format json)",
        ) from None
    return matplotlib, Figure


def _svg(name: str, draw: Callable[[Any], None], *, height: float = 3.2, width: float = 10.0) -> str:
    matplotlib, figure_class = _matplotlib()
    with matplotlib.rc_context({"svg.fonttype": "path", "svg.hashsalt": f"hudi-report-{name}",
                                "font.size": 9, "axes.spines.top": False, "axes.spines.right": False}):
        figure = figure_class(figsize=(width, height), layout="constrained")
        draw(figure)
        buffer = io.StringIO()
        figure.savefig(buffer, format="svg", metadata={"Date": None, "Creator": "hudi-sql report"})
    text = buffer.getvalue()
    return text[text.index("<svg"):]  # drop the XML prolog and DOCTYPE: inline in HTML


def _when(instant_time: str) -> datetime | None:
    """The instant time as a UTC datetime; ``None`` for digits that are no date (a hand-made table)."""
    try:
        return parse_instant_time(instant_time)
    except (ValueError, HudiTimelineError):
        return None


def _short_time(instant_time: str) -> str:
    return f"{instant_time[4:6]}-{instant_time[6:8]} {instant_time[8:10]}:{instant_time[10:12]}:{instant_time[12:14]}"


def _commit_axis(ax: Any, times: Sequence[str]) -> None:
    """X axis of per-commit plots: commit index, labelled with (a thinned set of) instant times."""
    n = len(times)
    step = max(1, math.ceil(n / 10))
    ticks = list(range(0, n, step))
    ax.set_xticks(ticks)
    ax.set_xticklabels([_short_time(times[i]) for i in ticks], rotation=30, ha="right")
    ax.set_xlim(-0.6, n - 0.4)
    ax.set_xlabel("commit (instant time, UTC)")


def _bars(ax: Any, heights: Sequence[float], bottom: Sequence[float] | None, color: str, label: str) -> None:
    x = list(range(len(heights)))
    base = list(bottom) if bottom is not None else [0.0] * len(heights)
    if len(heights) <= MAX_BARS:
        ax.bar(x, heights, bottom=base, color=color, label=label, width=0.8)
    else:
        top = [b + h for b, h in zip(base, heights)]
        ax.fill_between(x, base, top, step="mid", color=color, label=label, linewidth=0)


def _count(number: int, noun: str) -> str:
    """``1 file``, ``3 files``: a count with its noun in the right number."""
    return f"{number:,} {noun if number == 1 else noun + 's'}"


def _human_bytes(value: float) -> str:
    for unit in ("B", "KB", "MB", "GB", "TB"):
        if abs(value) < 1024 or unit == "TB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{value:.1f} TB"


def _empty(ax: Any, message: str) -> None:
    ax.set_axis_off()
    ax.text(0.5, 0.5, message, ha="center", va="center", transform=ax.transAxes, color="#666")


def _integer_axis(axis: Any) -> None:
    from matplotlib.ticker import MaxNLocator

    axis.set_major_locator(MaxNLocator(integer=True))


def _legend(ax: Any, **kwargs: Any) -> None:
    """A legend when something is labelled (matplotlib warns on an empty one)."""
    if ax.get_legend_handles_labels()[0]:
        ax.legend(frameon=False, **kwargs)


# -- the figures ----------------------------------------------------------------------------------


def _timeline(report: TableReport) -> Plot:
    actions = sorted({i.action for i in report.instants})

    def draw(fig: Any) -> None:
        ax = fig.subplots()
        if not report.instants:
            _empty(ax, "the active timeline is empty")
            return
        for state, color in _STATE_COLORS.items():
            points = [(when, actions.index(i.action)) for i in report.instants
                      if i.state == state and (when := _when(i.instant_time)) is not None]
            if points:
                ax.scatter([p[0] for p in points], [p[1] for p in points], s=28, color=color, label=state,
                           marker="o" if state == "completed" else "D", zorder=3)
        ax.set_yticks(range(len(actions)))
        ax.set_yticklabels(actions)
        ax.set_ylim(-0.6, len(actions) - 0.4)
        dates: Any = importlib.import_module("matplotlib.dates")  # untyped constructors
        locator = dates.AutoDateLocator()
        ax.xaxis.set_major_locator(locator)
        ax.xaxis.set_major_formatter(dates.ConciseDateFormatter(locator))
        ax.grid(axis="x", color="#ddd")
        ax.set_xlabel("instant time (UTC)")
        _legend(ax, loc="upper left", bbox_to_anchor=(1.0, 1.0))

    counts = ", ".join(f"{a}: {sum(n.values())}" for a, n in sorted(report.instant_counts().items()))
    return Plot("timeline", "Instants by action and state",
                f"Every instant of the active timeline at its requested time; colour is its state. {counts}.",
                _svg("timeline", draw, height=max(2.2, 0.45 * len(actions) + 1.4)))


def _durations(report: TableReport) -> Plot:
    commits = report.commits

    def draw(fig: Any) -> None:
        ax = fig.subplots()
        known = [c.duration_seconds for c in commits if c.duration_seconds is not None]
        if not known:
            _empty(ax, "no duration derivable (no completed commit with its inflight file)")
            return
        if not any(known):
            _empty(ax, "every commit completed within the clock's resolution (0 s)")
            return
        for action, color in _ACTION_COLORS.items():
            heights = [(c.duration_seconds or 0.0) if c.action == action else 0.0 for c in commits]
            if any(heights):
                _bars(ax, heights, None, color, action)
        ax.set_ylabel("seconds")
        _commit_axis(ax, [c.instant_time for c in commits])
        _legend(ax)

    return Plot("durations", "Commit duration",
                "Seconds from a commit's inflight (else requested) instant file to its completed file: how "
                "long it ran. Scheduled services count from when they started, not when they were planned.",
                _svg("durations", draw))


def _records(report: TableReport) -> Plot:
    commits = report.commits

    def draw(fig: Any) -> None:
        ax = fig.subplots()
        if not commits:
            _empty(ax, "no completed commit")
            return
        bottom = [0.0] * len(commits)
        for label, values, color in (("inserted", [c.records_inserted for c in commits], "#2e7d32"),
                                     ("updated", [c.records_updated for c in commits], "#1565c0"),
                                     ("deleted", [c.records_deleted for c in commits], "#c62828")):
            _bars(ax, [float(v) for v in values], bottom, color, label)
            bottom = [b + v for b, v in zip(bottom, values)]
        ax.plot(range(len(commits)), [c.records_written for c in commits], color="#444", linewidth=0.8,
                marker="." if len(commits) <= MAX_BARS else None, label="written (numWrites)")
        ax.set_ylabel("records")
        _integer_axis(ax.yaxis)
        _commit_axis(ax, [c.instant_time for c in commits])
        _legend(ax, loc="upper left", bbox_to_anchor=(1.0, 1.0))

    return Plot("records", "Records per commit",
                "Inserted, updated and deleted records of each commit (numInserts, numUpdateWrites, numDeletes "
                "of its write stats), and the records it wrote in all (numWrites; a Copy-On-Write merge "
                "rewrites the unchanged records of a file too).", _svg("records", draw))


def _bytes(report: TableReport) -> Plot:
    commits = report.commits

    def draw(fig: Any) -> None:
        ax = fig.subplots()
        if not commits:
            _empty(ax, "no completed commit")
            return
        for action, color in _ACTION_COLORS.items():
            heights = [c.bytes_written / _MB if c.action == action else 0.0 for c in commits]
            if any(heights):
                _bars(ax, heights, None, color, action)
        ax.set_ylabel("MB written")
        _commit_axis(ax, [c.instant_time for c in commits])
        amp = [(i, c.write_amplification) for i, c in enumerate(commits) if c.write_amplification is not None]
        handles, labels = ax.get_legend_handles_labels()
        if amp:
            ax2 = ax.twinx()
            ax2.plot([p[0] for p in amp], [p[1] for p in amp], color="#ef6c00", marker="o", linewidth=1.2,
                     label="write amplification")
            ax2.set_ylabel("write amplification (x)")
            if max(p[1] for p in amp) / max(min(p[1] for p in amp), 1e-9) > 50:
                ax2.set_yscale("log")
            else:
                ax2.set_ylim(bottom=0)
            h2, l2 = ax2.get_legend_handles_labels()
            handles, labels = handles + h2, labels + l2
        if handles:
            ax.legend(handles, labels, frameon=False, loc="upper left", bbox_to_anchor=(1.08, 1.0))

    return Plot("bytes", "Bytes written and write amplification",
                "Bytes each commit wrote (totalWriteBytes), by action; the line is write amplification, bytes "
                "written divided by the bytes of the records it changed (see the notes below). Compactions "
                "and clusterings change no record and have none.", _svg("bytes", draw))


def _file_sizes(report: TableReport) -> Plot:
    small = report.settings["small_file_limit"] / _MB
    largest = report.settings["max_file_size"] / _MB
    chosen = sorted(report.partitions, key=lambda p: (-p.base_files, p.partition))[:MAX_HISTOGRAMS]
    columns = min(3, max(1, len(chosen)))
    rows = max(1, math.ceil(len(chosen) / columns))

    def draw(fig: Any) -> None:
        if not chosen:
            _empty(fig.subplots(), "no base file")
            return
        axes = fig.subplots(rows, columns, squeeze=False)
        for index, ax in enumerate(axes.flat):
            if index >= len(chosen):
                ax.set_visible(False)
                continue
            part = chosen[index]
            sizes = [max(s, 1) / _MB for s in part.base_file_sizes]
            # log-spaced bins: kilobyte files and files near the limits stay apart
            low = min([*sizes, small if small > 0 else largest]) / 1.5
            high = max([largest, *sizes]) * 1.5
            ax.hist(sizes, bins=[low * (high / low) ** (k / 24) for k in range(25)], color="#1565c0")
            ax.set_xscale("log")
            if small > 0:
                ax.axvline(small, color="#ef6c00", linestyle="--", linewidth=1.2, label="small.file.limit")
            ax.axvline(largest, color="#c62828", linestyle=":", linewidth=1.2, label="max.file.size")
            ax.set_title(f"{part.partition or '(table)'}: {_count(part.base_files, 'file')}, {part.small_files} small",
                         fontsize=8)
            ax.set_xlabel("MB (log scale)")
            _integer_axis(ax.yaxis)
        _legend(axes.flat[0], fontsize=7)

    more = len(report.partitions) - len(chosen)
    note = f" The {len(chosen)} partitions with most files are drawn ({more} more in the JSON)." if more > 0 else ""
    return Plot("file-sizes", "Base file sizes per partition",
                f"Sizes of the base files of the latest file slices against the small-file limit ({small:.0f} MB: "
                f"smaller files take inserts, or are clustered) and the max file size ({largest:.0f} MB)." + note,
                _svg("file-sizes", draw, height=2.3 * rows + 0.4))


def _partitions(report: TableReport) -> Plot:
    chosen = sorted(report.partitions, key=lambda p: (-(p.base_bytes + p.log_bytes), p.partition))[:MAX_PARTITIONS]
    skew = report.skew()

    def draw(fig: Any) -> None:
        ax_groups, ax_bytes = fig.subplots(1, 2)
        if not chosen:
            _empty(ax_groups, "no partition")
            _empty(ax_bytes, "no partition")
            return
        names = [p.partition or "(table)" for p in chosen]
        ax_groups.barh(range(len(chosen)), [p.file_groups for p in chosen], color="#1565c0")
        ax_groups.set_xlabel("file groups")
        sizes = [(p.base_bytes + p.log_bytes) / _MB for p in chosen]
        ax_bytes.barh(range(len(chosen)), [p.base_bytes / _MB for p in chosen], color="#1565c0", label="base")
        ax_bytes.barh(range(len(chosen)), [p.log_bytes / _MB for p in chosen],
                      left=[p.base_bytes / _MB for p in chosen], color="#6a1b9a", label="logs")
        mean = sum((p.base_bytes + p.log_bytes) for p in report.partitions) / len(report.partitions) / _MB
        ax_bytes.axvline(mean, color="#ef6c00", linestyle="--", label="mean")
        ax_bytes.set_xlabel("MB")
        ax_bytes.set_xlim(0, max(sizes) * 1.1 or 1)
        _legend(ax_bytes, fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0))
        _integer_axis(ax_groups.xaxis)
        for ax in (ax_groups, ax_bytes):
            ax.set_yticks(range(len(chosen)))
            ax.set_yticklabels(names, fontsize=7)
            ax.invert_yaxis()

    ratio = skew["max_over_mean"]
    text = (f"Largest partition '{skew['largest_partition']}' holds {ratio:.2f}x the mean; coefficient of "
            f"variation {skew['coefficient_of_variation']:.2f}." if ratio is not None else "")
    return Plot("partitions", "File groups and bytes per partition (skew)",
                f"File groups and bytes (base files and logs of the latest slices) per partition, largest first. "
                f"{text}", _svg("partitions", draw, height=max(2.4, 0.2 * len(chosen) + 1.0)))


def _log_slices(report: TableReport) -> Plot:
    slices = report.slices

    def draw(fig: Any) -> None:
        ax_scatter, ax_hist = fig.subplots(1, 2)
        with_logs = [s for s in slices if s.log_files]
        if not with_logs:
            _empty(ax_scatter, "no file slice has log files")
            _empty(ax_hist, "")
            return
        ax_scatter.scatter([s.log_files for s in with_logs], [s.log_bytes / 1024 for s in with_logs],
                           color="#6a1b9a", alpha=0.7, s=20)
        ax_scatter.set_xlabel("log files in the slice")
        ax_scatter.set_ylabel("log KB in the slice")
        ax_scatter.set_xlim(left=0)
        ax_scatter.set_ylim(bottom=0)
        counts = [s.log_files for s in slices]
        ax_hist.bar(range(max(counts) + 1), [counts.count(n) for n in range(max(counts) + 1)], color="#6a1b9a")
        ax_hist.set_xlabel("log files per file slice")
        ax_hist.set_ylabel("file slices")
        _integer_axis(ax_scatter.xaxis)
        _integer_axis(ax_hist.xaxis)
        _integer_axis(ax_hist.yaxis)

    deltas = report.delta_commits_since_compaction
    height = 3.2 if any(s.log_files for s in slices) else 1.0
    return Plot("log-slices", "Log files per file slice (Merge-On-Read)",
                f"Log files and their bytes in the latest slice of each file group: what the next compaction "
                f"merges. {deltas} deltacommits since the last compaction "
                f"(inline compaction triggers at {report.settings['compaction_max_delta_commits']}).",
                _svg("log-slices", draw, height=height))


def _clean(report: TableReport) -> Plot:
    clean = report.clean
    chosen = sorted(clean.bytes_by_partition, key=lambda p: -clean.bytes_by_partition[p])[:MAX_PARTITIONS]

    def draw(fig: Any) -> None:
        ax = fig.subplots()
        if not chosen:
            _empty(ax, f"a clean under {clean.policy} would remove nothing now")
            return
        ax.barh(range(len(chosen)), [clean.bytes_by_partition[p] / _MB for p in chosen], color="#c62828")
        ax.set_yticks(range(len(chosen)))
        ax.set_yticklabels([f"{p or '(table)'} ({_count(clean.files_by_partition[p], 'file')})" for p in chosen],
                           fontsize=7)
        ax.invert_yaxis()
        ax.set_xlabel("MB a clean would delete")

    return Plot("clean", "What a clean would remove now",
                f"The cleaner's plan under {clean.policy} (earliest commit to retain "
                f"{clean.earliest_commit_to_retain or '-'}): {_count(clean.files, 'file')}, {_human_bytes(clean.bytes)}. "
                "Planned only; nothing was scheduled or deleted.",
                _svg("clean", draw, height=max(1.8, 0.2 * len(chosen) + 1.0) if chosen else 1.0))


def draw_plots(report: TableReport) -> list[Plot]:
    """Every plot of the page, in page order (the Merge-On-Read one only for MOR tables)."""
    plots = [_timeline(report), _durations(report), _records(report), _bytes(report), _file_sizes(report),
             _partitions(report)]
    if report.is_mor:
        plots.append(_log_slices(report))
    plots.append(_clean(report))
    return plots


def human_bytes(value: float) -> str:
    """``1536`` -> ``1.5 KB`` (for the page's cards and tables)."""
    return _human_bytes(value)
