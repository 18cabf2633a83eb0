"""The report page: self-contained (nothing to fetch, no script), one inline SVG per plot."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

pytest.importorskip("matplotlib", reason="the HTML report needs matplotlib (pip install '.[report]')")

from test_collect import HandMadeTable, _stat

from hudi_sql.model.instant import Action
from hudi_sql.report import table_report
from hudi_sql.report.collect import collect_report
from hudi_sql.report.plots import draw_plots

KB = 1024


def _mor_table(root: Path) -> HandMadeTable:
    table = HandMadeTable(root, "MERGE_ON_READ")
    t1 = table.next_time()
    base = table.data_file("p1", f"eeee-0_0-1-0_{t1}.parquet", 30 * KB)
    table.commit(Action.DELTA_COMMIT, {"p1": [_stat(base, writes=30, inserts=30, size=30 * KB)]}, instant_time=t1,
                 started=1_700_000_000.0, ran_seconds=3.0)
    t2 = table.next_time()
    log = table.data_file("p1", f".eeee-0_{t1}.log.1_0-1-0", 2 * KB)
    table.commit(Action.DELTA_COMMIT, {"p1": [_stat(log, writes=4, updates=4, size=2 * KB, prev=t1)]}, instant_time=t2)
    return table


def test_render_html_is_self_contained_with_one_svg_per_plot(tmp_path: Path) -> None:
    table = _mor_table(tmp_path / "mor")
    page = table_report(str(table.root))
    plots = draw_plots(collect_report(table.reload()))
    assert [p.name for p in plots] == ["timeline", "durations", "records", "bytes", "file-sizes", "partitions",
                                       "log-slices", "clean"]
    assert page.count("<svg") == len(plots)
    for plot in plots:
        assert f'<section id="{plot.name}">' in page
    lowered = page.lower()
    for fetch in ("<script", "<link", "<img", "<iframe", "@import", "url(http", 'src="http', "href=\"http"):
        assert fetch not in lowered, f"the page would fetch or run something: {fetch}"


def test_render_html_of_cow_table_has_no_merge_on_read_plot(tmp_path: Path) -> None:
    table = HandMadeTable(tmp_path / "cow")
    t1 = table.next_time()
    base = table.data_file("p1", f"ffff-0_0-1-0_{t1}.parquet", 10 * KB)
    table.commit(Action.COMMIT, {"p1": [_stat(base, writes=10, inserts=10, size=10 * KB)]}, instant_time=t1)
    page = table_report(str(table.root))
    assert '<section id="log-slices">' not in page
    assert '<section id="bytes">' in page


def test_render_html_of_empty_table_says_so_in_every_plot(tmp_path: Path) -> None:
    table = HandMadeTable(tmp_path / "empty")
    page = table_report(str(table.root))
    assert page.count("<svg") == 7
    assert "No completed commit." in page
    text = re.sub(r"<svg.*?</svg>", "", page, flags=re.DOTALL)
    assert not re.search(r"\b(nan|inf)\b", text, flags=re.IGNORECASE), "no NaN or infinity in the figures"
