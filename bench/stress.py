"""A concurrency campaign: writer processes upserting one table at once, trial after trial.

::

    .venv/bin/python -m bench.stress --minutes 10 [--writers 3] [--hold-ms 1500] [--work-dir DIR]

Each trial seeds a fresh table (30 keys, partitions ``p0`` and ``p1``), then starts the writers
together, each a process of its own (:mod:`bench.stress_writer`, a local SparkSession running
``hudi_sql.write``) under optimistic concurrency control with the file-system lock. All writers
but the last upsert the same 20 keys of ``p0`` (one file group), so they conflict; the last
upserts its own partition and must always commit. Every write holds its instant inflight for
``--hold-ms`` so that the writes overlap. After each trial the invariants are checked
(:func:`check`) and one line of figures is printed; the totals close the run:

``trials / commits / conflicts / refused / lost_updates / invariant_violations``

The exit status is 1 when any lost update or invariant violation was seen. The same machinery
runs the bounded scenarios of ``tests/integration/test_concurrency.py``.
"""

from __future__ import annotations

__all__ = ["BASE_OPTIONS", "OCC_OPTIONS", "ROW_SCHEMA", "Figures", "Writer", "check", "main", "run_together", "rust_rows",
           "seed", "writer_spec"]

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from hudi_sql.config import HudiTableConfig, HudiWriteConfig
from hudi_sql.config.concurrency import FILE_SYSTEM_LOCK_PROVIDER, HudiConcurrencyConfig
from hudi_sql.engine.session import child_process_env

ROOT = Path(__file__).resolve().parents[1]
#: Run as a module: as a script, ``bench/`` would come first on its path and shadow the
#: standard library (``bench/profile.py``).
WRITER_MODULE = "bench.stress_writer"
_C = HudiConcurrencyConfig

BASE_OPTIONS = {
    HudiTableConfig.NAME.key: "conc_t",
    HudiWriteConfig.RECORD_KEY_FIELDS.key: "id",
    HudiWriteConfig.PARTITION_PATH_FIELDS.key: "p",
    HudiWriteConfig.PRECOMBINE_FIELD.key: "ts",
}
OCC_OPTIONS = {
    **BASE_OPTIONS,
    _C.CONCURRENCY_MODE.key: "OPTIMISTIC_CONCURRENCY_CONTROL",
    _C.LOCK_PROVIDER.key: FILE_SYSTEM_LOCK_PROVIDER,
    _C.LOCK_WAIT_TIME_MS.key: "60000",
    _C.LOCK_RETRY_WAIT_MS.key: "20",
    _C.HEARTBEAT_INTERVAL_MS.key: "1000",
}
ROW_SCHEMA = "id int, v string, ts int, p string"


class Writer:
    """One writer process; its JSON lines are read as they come."""

    def __init__(self, table: Path | str, state: Path, spec: dict[str, Any]) -> None:
        self.name = spec["writer"]
        self.proc = subprocess.Popen(
            [sys.executable, "-m", WRITER_MODULE, str(table), str(state), json.dumps(spec)],
            env=child_process_env(), cwd=ROOT,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
        self.lines: list[dict[str, Any]] = []

    def read_until(self, key: str, timeout: float = 90) -> dict[str, Any]:
        assert self.proc.stdout is not None and self.proc.stderr is not None
        deadline = time.time() + timeout
        while time.time() < deadline:
            line = self.proc.stdout.readline()
            if not line:
                raise AssertionError(f"writer {self.name} ended early: {self.proc.stderr.read()[-3000:]}")
            if line.startswith("{"):
                record = json.loads(line)
                self.lines.append(record)
                if key in record:
                    return record
        raise AssertionError(f"writer {self.name} printed no '{key}' in {timeout}s")

    def finish(self, timeout: float = 120) -> list[dict[str, Any]]:
        out, err = self.proc.communicate(timeout=timeout)
        assert self.proc.returncode == 0, f"writer {self.name} failed: {err[-3000:]}"
        self.lines += [json.loads(line) for line in out.splitlines() if line.startswith("{")]
        return [r for r in self.lines if "status" in r]

    def kill(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)  # the writer and its JVM, at once
        self.proc.wait(timeout=30)


def writer_spec(writer: str, ids: list[int], partition_of: dict[int, str], options: dict[str, str], *,
                rounds: int = 2, start_file: Path | None = None, hold_ms: int = 0,
                hold_lock_ms: int = 0, clustering_waits: int = 0) -> dict[str, Any]:
    """What :mod:`bench.stress_writer` does: *rounds* upserts of *ids*, each held inflight *hold_ms*
    (and holding the file-system lock of its completion *hold_lock_ms*); a round refused for a
    pending clustering is tried again up to *clustering_waits* times."""
    return {"writer": writer, "rounds": rounds, "ids": ids, "partition_of": {str(i): p for i, p in partition_of.items()},
            "options": options, "start_file": str(start_file) if start_file else None, "hold_ms": hold_ms,
            "hold_lock_ms": hold_lock_ms, "clustering_waits": clustering_waits}


def run_together(table: Path | str, work: Path, specs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Start one process per spec, release them at once, and return every write's outcome."""
    go = work / "go"
    writers = [Writer(table, work / f"state-{s['writer']}", {**s, "start_file": str(go)}) for s in specs]
    try:
        for w in writers:
            w.read_until("ready")
        go.touch()
        return [r for w in writers for r in w.finish()]
    finally:
        for w in writers:
            w.kill()


def seed(spark: Any, table: Path | str, ids: list[int], partition_of: dict[int, str],
         options: dict[str, str] | None = None) -> str:
    import hudi_sql

    df = spark.createDataFrame([(i, "seed", 0, partition_of[i]) for i in ids], ROW_SCHEMA)
    result = hudi_sql.write(df, str(table), {**BASE_OPTIONS, **(options or {})})
    assert result.instant_time
    return result.instant_time


@dataclass(frozen=True)
class Figures:
    """What one trial (or a whole campaign, summed) printed."""

    trials: int = 0
    commits: int = 0
    conflicts: int = 0
    refused: int = 0
    lost_updates: int = 0
    invariant_violations: int = 0

    def __add__(self, other: Figures) -> Figures:
        return Figures(**{k: v + getattr(other, k) for k, v in asdict(self).items()})

    def line(self) -> str:
        return " ".join(f"{k}={v}" for k, v in asdict(self).items())


@dataclass(frozen=True)
class Verdict:
    figures: Figures
    violations: tuple[str, ...]
    lost: dict[int, tuple[str | None, str]]  # key -> (value read, value of its latest committed write)


def check(spark: Any, table: Path | str, outcomes: list[dict[str, Any]], ids_of: dict[str, list[int]],
          rust_options: dict[str, str] | None = None) -> Verdict:
    """The invariants after a run of writers:

    * every acknowledged commit is a completed instant, and nothing is left pending;
    * no lost update: each key holds the value of the latest committed write of it (a later
      committed write saw every earlier one, else it would have conflicted);
    * one row per key, and (when the Rust reader ``hudi`` is installed) both readers read the
      same snapshot (*rust_options*: the Rust reader's storage options, for a table in a bucket).
    """
    import hudi_sql
    from hudi_sql.table.meta_client import TableMetaClient

    meta = TableMetaClient.load(str(table))
    completed = set(meta.timeline.completed_writes().times())
    committed = [o for o in outcomes if o["status"] == "committed"]
    violations = [f"acknowledged {o['instant']} not completed" for o in committed if o["instant"] not in completed]
    violations += [f"pending instant left: {i}" for i in meta.timeline.pending_writes().times()]
    latest: dict[int, tuple[str, str]] = {}
    for o in committed:
        for i in ids_of[o["writer"]]:
            if i not in latest or o["instant"] > latest[i][0]:
                latest[i] = (o["instant"], o["value"])
    ours = hudi_sql.read(spark, str(table)).select("id", "v").toArrow()
    rows = {r["id"]: r["v"] for r in ours.to_pylist()}
    if len(rows) != ours.num_rows:
        violations.append(f"duplicate keys: {ours.num_rows} rows for {len(rows)} keys")
    rust = rust_rows(table, rust_options)
    if rust is not None and rust != sorted(rows.items()):
        violations.append("our reader and the Rust reader disagree")
    lost = {i: (rows.get(i), value) for i, (_, value) in latest.items() if rows.get(i) != value}
    figures = Figures(trials=len(outcomes), commits=len(committed),
                      conflicts=sum(o["status"] == "conflict" for o in outcomes),
                      refused=sum(o["status"] == "refused" for o in outcomes),
                      lost_updates=len(lost), invariant_violations=len(violations))
    return Verdict(figures, tuple(violations), lost)


def rust_rows(table: Path | str, storage_options: dict[str, str] | None = None) -> list[tuple[int, str]] | None:
    """(id, v) of the table's snapshot as the Rust reader ``hudi`` reads it, sorted; ``None``
    when that reader is not installed."""
    try:
        from hudi import HudiReadOptions, HudiTableBuilder
    except ImportError:
        return None
    import pyarrow as pa

    # the Rust reader names S3 "s3://" (Hadoop's "s3a://" is the same bucket)
    builder = HudiTableBuilder.from_base_uri(str(table).replace("s3a://", "s3://", 1))
    if storage_options:
        builder = builder.with_storage_options(storage_options)
    batches = builder.build().read(HudiReadOptions())
    if not batches:
        return []
    rust = pa.Table.from_batches(batches)
    return sorted(zip(rust.column("id").to_pylist(), rust.column("v").to_pylist()))


def occ_trial(spark: Any, work: Path, *, writers: int, hold_ms: int) -> Verdict:
    """One trial of the campaign (module docstring)."""
    table = work / "table"
    shared, own = list(range(20)), list(range(20, 30))
    partition_of = {i: "p0" if i < 20 else "p1" for i in range(30)}
    seed(spark, table, shared + own, partition_of)
    names = [chr(ord("a") + n) for n in range(writers)]
    specs = [writer_spec(name, shared, partition_of, OCC_OPTIONS, hold_ms=hold_ms) for name in names[:-1]]
    specs.append(writer_spec(names[-1], own, partition_of, OCC_OPTIONS, hold_ms=hold_ms))
    outcomes = run_together(table, work, specs)
    verdict = check(spark, table, outcomes, {**{n: shared for n in names[:-1]}, names[-1]: own})
    own_statuses = [o["status"] for o in outcomes if o["writer"] == names[-1]]
    if own_statuses != ["committed"] * len(own_statuses):
        violations = (*verdict.violations, f"the disjoint writer did not always commit: {own_statuses}")
        return Verdict(Figures(**{**asdict(verdict.figures), "invariant_violations": len(violations)}),
                       violations, verdict.lost)
    return verdict


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.stress", description=__doc__.split("\n")[0])
    parser.add_argument("--minutes", type=float, default=5.0, help="how long to keep starting trials")
    parser.add_argument("--writers", type=int, default=3, help="writer processes per trial (at least 2)")
    parser.add_argument("--hold-ms", type=int, default=1500, help="how long each write stays inflight")
    parser.add_argument("--work-dir", type=Path, default=None, help="where the trial tables go")
    args = parser.parse_args(argv)
    if args.writers < 2:
        parser.error("--writers must be at least 2")
    import hudi_sql

    work_root = args.work_dir or Path(tempfile.mkdtemp(prefix="hudi-sql-stress-"))
    spark = hudi_sql.spark_session(master="local[1]", state_dir=str(work_root / "state"),
                                   conf={"spark.ui.showConsoleProgress": "false"})
    spark.sparkContext.setLogLevel("ERROR")
    total, started, trial = Figures(), time.monotonic(), 0
    try:
        while time.monotonic() - started < args.minutes * 60:
            trial += 1
            verdict = occ_trial(spark, work_root / f"trial-{trial}", writers=args.writers, hold_ms=args.hold_ms)
            total += verdict.figures
            print(f"trial {trial}: {verdict.figures.line()}", flush=True)
            for violation in verdict.violations:
                print(f"  violation: {violation}", flush=True)
            for key, (read, expected) in verdict.lost.items():
                print(f"  lost update of key {key}: read {read!r}, committed {expected!r}", flush=True)
    finally:
        spark.stop()
    minutes = (time.monotonic() - started) / 60
    print(f"total over {trial} trial(s), {minutes:.1f} min, {args.writers} writers: {total.line()}")
    return 1 if total.lost_updates or total.invariant_violations else 0


if __name__ == "__main__":
    sys.exit(main())
