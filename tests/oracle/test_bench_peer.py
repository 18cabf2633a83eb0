"""Apache Hudi 0.15 as a benchmark peer (``bench/systems/apache_hudi_*``): it runs the same
batches as our systems, in the oracle's interpreter, and ends with the expected rows.

A reduced small scale, correctness only: the figures come from the medium run in
``docs/performance.md``. What a user of the report checks is asserted: every Apache Hudi table
holds exactly the rows the inputs say, and each of our systems is set against its counterpart.
"""

from __future__ import annotations

from itertools import takewhile
from typing import Any

import pytest
from bench_runs import PEERED, not_run, result_of
from oracle_harness import oracle_dir

from bench.systems import APACHE_PEER_OF

pytestmark = [pytest.mark.oracle, pytest.mark.spark]
def test_apache_hudi_systems_end_with_the_expected_rows_beside_ours(small_bench_run: dict[str, Any]) -> None:
    """The session's shared small run (``small_bench_run`` in ``tests/conftest.py``) holds the
    peers whenever this test is selected and Apache Hudi is set up."""
    if not (oracle_dir() / "READY").exists():
        pytest.skip(f"Apache Hudi oracle not set up in {oracle_dir()}: run tools/oracle/setup.sh")
    theirs = [APACHE_PEER_OF[system] for system in PEERED]
    run = small_bench_run

    assert not not_run(run), f"systems did not run: {not_run(run)}\n{run['stderr'][-4000:]}"
    assert run["correctness"]["ok"], run["correctness"]["detail"]
    expected = run["correctness"]["expected"]["base"]
    for system in theirs:
        result = result_of(run, system)
        assert result["final"] == expected, system
        assert [b["rows_after"] for b in result["batches"]] == [15000, 20000], system
        assert result["describe"]["apache_hudi"].startswith("0.15"), result["describe"]
        assert result["describe"]["pyspark"].startswith("3.5"), result["describe"]
    # The report's upsert table sets each of ours against its counterpart, and only ours.
    lines = run["stdout"].splitlines()
    header = next(line for line in lines if line.startswith("| system |") and "÷ Apache Hudi" in line)
    column = [c.strip() for c in header.strip("|").split("|")].index("÷ Apache Hudi")
    rows = takewhile(lambda line: line.startswith("| "), lines[lines.index(header) + 2:])
    cells = {row[0]: row[column] for row in ([c.strip() for c in line.strip("|").split("|")] for line in rows)}
    for ours in PEERED:
        mine, peer = run["summary"][ours], run["summary"][APACHE_PEER_OF[ours]]
        assert cells[ours] == f"{mine['median_upsert_s'] / peer['median_upsert_s']:.2f}×", ours
    assert all(cells[system] == "–" for system in theirs)
