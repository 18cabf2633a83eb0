"""What ``CALL advise`` says about the benchmark's tables, and what one of its recommendations
is worth once applied: ``python -m bench.advise --tables <work-dir>/tables/base [--apply [PROCEDURE]]``.

Run after ``python -m bench.run ... --keep-tables``, which leaves each system's final table under
``<work-dir>/tables/base/<system>``. For each table this prints the advisor's rows (a Markdown
table, as ``docs/performance.md`` records them). With ``--apply`` it then takes the table's first
recommendation that starts with a procedure call (``--apply run_compaction``: a call of that
procedure), runs the call (what follows it, ``, and <option>``, is for later writes), times a snapshot read of the
whole table (every column of every row, best of ``--repeat``) before and after running it, and
checks that the rows are the same (the bench's order-independent checksum). Settings that are
options (an index type, a table property) are printed, not applied: they change later writes,
which ``bench.run --option`` measures.

The advisor does not know the queries; ``--filters`` names the columns they filter on (default:
the workload's ``event_ts`` and ``drone_id``).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from bench.checksum import spark_checksum
from bench.systems._spark import noop_scan
from bench.worker import time_runs

#: the name the table is registered under while the advisor runs (its settings name it)
TABLE = "drones"


def _advise(db: Any, options: str, filters: str) -> list[dict[str, str]]:
    rows = db.sql(f"CALL advise(table => '{TABLE}', options => '{options}', filters => '{filters}')").collect()
    return [r.asDict() for r in rows]


def _markdown(name: str, rows: list[dict[str, str]]) -> str:
    lines = [f"#### `{name}`", "", "| finding | evidence | setting | expected effect |", "| --- | --- | --- | --- |"]
    lines += [f"| {r['finding']} | {r['evidence']} | `{r['setting']}` | {r['expected_effect']} |" for r in rows]
    return "\n".join(lines + [""])


def run_table(spark: Any, path: Path, *, apply: str | None, repeat: int, options: str,
              filters: str) -> dict[str, Any]:
    import hudi_sql

    db = hudi_sql.connect(spark)
    db.sql(f"CREATE TABLE {TABLE} USING hudi LOCATION '{path}'")
    try:
        advice = _advise(db, options, filters)
        result: dict[str, Any] = {"table": path.name, "advice": advice}
        print(_markdown(path.name, advice), flush=True)
        applied = next((r for r in advice if r["setting"].startswith(f"CALL {apply}")), None)
        if apply is None or applied is None:
            return result
        call = applied["setting"].split(", and ")[0]
        snapshot = spark.read.format("hudi").load(str(path))
        before = min(time_runs(lambda: noop_scan(spark.read.format("hudi").load(str(path))), repeat))
        checksum = spark_checksum(snapshot).hex
        start = time.perf_counter()
        db.sql(call).collect()
        seconds = time.perf_counter() - start
        after = min(time_runs(lambda: noop_scan(spark.read.format("hudi").load(str(path))), repeat))
        same = spark_checksum(spark.read.format("hudi").load(str(path))).hex == checksum
        result["applied"] = {"setting": call, "seconds": round(seconds, 2),
                             "snapshot_before_s": round(before, 2), "snapshot_after_s": round(after, 2),
                             "same_rows": same, "advice_after": _advise(db, options, filters)}
        print(f"applied `{call}` in {seconds:.1f} s: snapshot read {before:.2f} s -> {after:.2f} s "
              f"(best of {repeat}); rows {'unchanged' if same else 'CHANGED'}", flush=True)
        print(_markdown(f"{path.name}, after", result["applied"]["advice_after"]), flush=True)
        return result
    finally:
        db.sql(f"DROP TABLE {TABLE}")


def main(argv: list[str] | None = None) -> int:
    import hudi_sql

    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--tables", type=Path, required=True, help="folder holding one kept table per system")
    p.add_argument("--apply", nargs="?", const="", metavar="PROCEDURE",
                   help="apply each table's first procedure call (of PROCEDURE, when named) and measure it")
    p.add_argument("--repeat", type=int, default=3, help="snapshot reads per measurement (best counts)")
    p.add_argument("--options", default="hoodie.index.type=BLOOM", help="options the tables are written with")
    p.add_argument("--filters", default="event_ts,drone_id", help="columns the queries filter on")
    p.add_argument("--master", default="local[2]")
    p.add_argument("--driver-memory", default="6g")
    p.add_argument("--state-dir", type=Path, help="metastore folder (default: <tables>/../advise-state)")
    p.add_argument("--out", type=Path, help="results JSON")
    args = p.parse_args(argv)
    state = args.state_dir or args.tables.parent / "advise-state"
    spark = hudi_sql.spark_session(master=args.master, state_dir=state, app_name="bench-advise",
                                   conf={"spark.driver.memory": args.driver_memory,
                                         "spark.ui.showConsoleProgress": "false"})
    try:
        results = [run_table(spark, path, apply=args.apply, repeat=args.repeat, options=args.options,
                             filters=args.filters)
                   for path in sorted(p for p in args.tables.iterdir() if (p / ".hoodie").is_dir())]
    finally:
        spark.stop()
    if args.out:
        args.out.write_text(json.dumps(results, indent=2) + "\n")
    return 0 if all(r.get("applied", {}).get("same_rows", True) for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
