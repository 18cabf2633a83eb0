"""Every ``CALL`` procedure hudi-sql shares with Apache Hudi 0.15 takes Apache Hudi's arguments and
answers with Apache Hudi's columns, so a script's ``CALL`` and what it reads from the result carry
over unchanged.

Apache Hudi's procedures declare their parameters (name, required) and output schema; the oracle
reads them from its own registry (``HoodieProcedures``), so the check covers every procedure and
argument at once, not a hand-picked list.
"""

from __future__ import annotations

from typing import Any

import pytest
from oracle_harness import Oracle

from hudi_sql.sql.procedures import registry

pytestmark = [pytest.mark.oracle]

# The registry of Apache Hudi 0.15, read in its own session: name -> parameters and output columns.
SIGNATURES = """
procedures = spark._jvm.org.apache.spark.sql.hudi.command.procedures.HoodieProcedures
rows = []
for name in names:
    builder = procedures.newBuilder(name)
    if builder is None:
        continue
    built = builder.build()
    params = ",".join(("!" if p.required() else "") + p.name() for p in built.parameters())
    rows.append((name, params, ",".join(built.outputType().fieldNames())))
result = spark.createDataFrame(rows, "name string, params string, output string")
"""

# Arguments Apache Hudi 0.15 declares that hudi-sql does not take yet, each with the reason; a CALL
# naming one fails with "unknown argument" (never ignored). docs/compatibility.md lists them.
NOT_TAKEN: dict[tuple[str, str], str] = {
    ("run_clustering", "show_involved_partition"): "the involved partitions are always in the result",
    ("run_clustering", "order_strategy"): "clustering sorts linearly by the order columns (no z-order / hilbert)",
    ("show_fsview_latest", "include_inflight"): "the file-system view shows completed file slices only",
}


# Result columns that differ from Apache Hudi 0.15's, each with the reason (docs/compatibility.md).
OTHER_COLUMNS: dict[str, str] = {
    "show_archived_commits": "lists each archived instant state (commit_time, action, state); Apache Hudi lists "
                             "archived commits with their write totals, which needs the archived metadata read",
}


@pytest.fixture(scope="module")
def apache_signatures(oracle: Oracle) -> dict[str, dict[str, Any]]:
    answer = oracle.python(SIGNATURES, names=sorted(registry()))
    found = {}
    for name, params, output in answer["rows"]:
        declared = [p for p in params.split(",") if p]
        found[name] = {
            "args": [p.lstrip("!") for p in declared],
            "required": {p[1:] for p in declared if p.startswith("!")},
            "output": [c for c in output.split(",") if c],
        }
    return found


def test_procedures_shared_with_apache_hudi_take_every_argument_it_declares(
    apache_signatures: dict[str, dict[str, Any]],
) -> None:
    assert len(apache_signatures) >= 25, sorted(apache_signatures)
    missing = []
    for name, apache in sorted(apache_signatures.items()):
        ours = {arg.name for arg in registry()[name].args}
        missing += [f"{name}({arg})" for arg in apache["args"]
                    if arg not in ours and (name, arg) not in NOT_TAKEN]
    assert not missing, f"arguments Apache Hudi 0.15 takes and hudi-sql refuses: {missing}"


def test_procedures_shared_with_apache_hudi_require_no_argument_it_leaves_optional(
    apache_signatures: dict[str, dict[str, Any]],
) -> None:
    stricter = []
    for name, apache in sorted(apache_signatures.items()):
        for arg in registry()[name].args:
            # 'table' stands for 'table' or 'path' wherever Apache Hudi takes both.
            either = arg.name == "table" and "path" in apache["args"]
            if arg.required and arg.name not in apache["required"] and not either:
                stricter.append(f"{name}({arg.name})")
    assert not stricter, f"arguments hudi-sql requires and Apache Hudi 0.15 does not: {stricter}"


@pytest.mark.spark
def test_procedures_shared_with_apache_hudi_answer_with_its_columns(
    apache_signatures: dict[str, dict[str, Any]], spark: Any,
) -> None:
    differ = {name: {"ours": [c for c, _ in registry()[name].output_fields()], "Apache Hudi": apache["output"]}
              for name, apache in sorted(apache_signatures.items())
              if [c for c, _ in registry()[name].output_fields()] != apache["output"] and name not in OTHER_COLUMNS}
    assert not differ, f"result columns differ: {differ}"
