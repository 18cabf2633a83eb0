"""The oracle's tally: how many (table, read) and (script, step) pairs were compared this session.

Runs last among the oracle tests (file order); ``-s`` or the report shows the printed counts.
"""

from __future__ import annotations

import pytest
from oracle_harness import TALLY, Oracle

pytestmark = [pytest.mark.oracle, pytest.mark.spark]  # the oracle is a JVM too


def test_oracle_summary_counts_compared_pairs(oracle: Oracle, request: pytest.FixtureRequest) -> None:
    ran_oracle_tests = [item for item in request.session.items
                        if item.get_closest_marker("oracle") and item.name != request.node.name]
    print(f"\nApache Hudi {oracle.info.get('spark')} oracle compared "
          f"{len(TALLY.table_reads)} (table, read) pairs and {len(TALLY.script_steps)} (script, step) pairs; "
          f"{len(TALLY.generated_steps)} generated scenarios of {sum(TALLY.generated_steps)} steps in all")
    for what in TALLY.table_reads + TALLY.script_steps:
        print(f"  = {what}")
    if ran_oracle_tests:
        assert TALLY.table_reads or TALLY.script_steps, "oracle tests ran but compared nothing"
