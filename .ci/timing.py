"""CI's timing summary: each step's wall time, each test group's counts, and the slowest tests.

``.ci/run`` records a line ``<seconds> <step>`` per step in ``$CI_TIMES`` and has pytest write
one JUnit XML file per group into ``$CI_REPORTS``; this prints the table every stop reads to see
where CI stands against its budget (90 minutes; the suite aims for 45, the default group 10).
A test's time is what pytest reports for it: set-up, call and tear-down together, so a
module-scoped fixture's cost lands on the first test that asks for it.
"""

from __future__ import annotations

import sys
import xml.etree.ElementTree as ET
from pathlib import Path

SLOWEST = 15


def _steps(times: Path) -> list[tuple[str, float]]:
    if not times.exists():
        return []
    out = []
    for line in times.read_text().splitlines():
        seconds, _, step = line.partition(" ")
        out.append((step, float(seconds)))
    return out


def _cases(report: Path) -> tuple[dict[str, int], list[tuple[float, str]]]:
    counts = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    cases: list[tuple[float, str]] = []
    try:
        root = ET.parse(report).getroot()
    except (OSError, ET.ParseError):
        return counts, cases
    for suite in root.iter("testsuite"):
        for key in counts:
            counts[key] += int(suite.get(key, "0"))
    for case in root.iter("testcase"):
        name = f"{case.get('classname', '')}::{case.get('name', '')}"
        cases.append((float(case.get("time", "0")), name))
    return counts, cases


def main(times: Path, reports: Path) -> None:
    steps = _steps(times)
    total = sum(seconds for _, seconds in steps)
    print("\n== CI timing ==")
    for step, seconds in steps:
        print(f"{seconds:8.0f} s  {step}")
    print(f"{total:8.0f} s  total ({total / 60:.1f} min of 90)")
    every: list[tuple[float, str]] = []
    totals = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    for report in sorted(reports.glob("*.xml")):
        counts, cases = _cases(report)
        every += cases
        totals = {key: totals[key] + counts[key] for key in totals}
        spent = sum(t for t, _ in cases)
        print(f"group {report.stem}: {counts['tests']} tests, {counts['failures']} failed, "
              f"{counts['errors']} errors, {counts['skipped']} skipped; {spent:.0f} s in tests")
    print(f"\n== the {SLOWEST} slowest tests ==")
    for seconds, name in sorted(every, reverse=True)[:SLOWEST]:
        print(f"{seconds:8.1f} s  {name}")
    passed = totals["tests"] - totals["failures"] - totals["errors"] - totals["skipped"]
    failed = totals["failures"] + totals["errors"]
    print(f"\ntotal: {passed} passed, {failed} failed, {totals['skipped']} skipped")


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]))
