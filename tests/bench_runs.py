"""Running ``python -m bench.run`` from a test as CI would: each system in its own process, on a
reduced small scale (5 000 rows a day, 2 initial days, 2 batches), correctness only, no timing."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]


def run_bench(work: Path, systems: list[str], *extra: str, batches: int = 2) -> dict[str, Any]:
    """The results JSON of one run, with its exit code, stdout (the report) and stderr added."""
    out = work / "results.json"
    command = [
        sys.executable, "-m", "bench.run",
        "--scale", "small", "--rows-per-day", "5000", "--days", "2", "--batches", str(batches),
        "--systems", ",".join(systems),
        "--bloom-fallback", "--no-scans",
        "--work-dir", str(work), "--out", str(out),
        "--timeout", "600", "--jobs", "2",
        *extra,
    ]
    proc = subprocess.run(command, check=False, cwd=REPO, capture_output=True, text=True, timeout=1500)
    assert out.exists(), f"no results written (exit {proc.returncode}):\n{proc.stderr[-4000:]}"
    run: dict[str, Any] = json.loads(out.read_text())
    run["exit_code"], run["stdout"], run["stderr"] = proc.returncode, proc.stdout, proc.stderr
    return run


def result_of(run: dict[str, Any], system: str) -> dict[str, Any]:
    return next(r for r in run["results"] if r["system"] == system)


def not_run(run: dict[str, Any]) -> dict[str, str | None]:
    """Systems that did not finish, with why."""
    return {r["system"]: r.get("message") for r in run["results"] if r["status"] != "ok"}


HAS_DELTALAKE = importlib.util.find_spec("deltalake") is not None
#: Ours and the plain baselines, checked by the benchmark smoke tests.
BASELINES = ["hudi_cow_bloom", "naive_pyspark", "pyarrow_floor", *(["deltars"] if HAS_DELTALAKE else [])]
#: Ours set against its Apache Hudi peer by the oracle's benchmark-peer test: the COW/bloom pair,
#: whose system is in the run anyway. The Merge-On-Read and bucket-index pairs run in every
#: ``bench/`` run, which checks their rows the same way (``hudi_mor``'s rows are checked by the
#: update-heavy smoke run); each pair here adds two JVMs (~80 s of CPU) to the shared run.
PEERED = ["hudi_cow_bloom"]


def apache_hudi_ready() -> bool:
    """Whether ``tools/oracle/setup.sh`` left Apache Hudi 0.15 ready, by the oracle harness's rule
    (``tests/oracle/oracle_harness.py``, imported under its own name when not yet imported)."""
    harness = sys.modules.get("oracle_harness")
    if harness is None:
        path = REPO / "tests" / "oracle" / "oracle_harness.py"
        spec = importlib.util.spec_from_file_location("oracle_harness", path)
        assert spec and spec.loader
        harness = importlib.util.module_from_spec(spec)
        sys.modules["oracle_harness"] = harness  # dataclasses look their module up while the class is built
        spec.loader.exec_module(harness)
    return bool((harness.oracle_dir() / "READY").exists())


def shared_small_run(work: Path, with_peers: bool) -> dict[str, Any]:
    """The one small run every benchmark test of a session reads: the baselines, and with
    *with_peers* also :data:`PEERED` and their Apache Hudi peers. One run rather than one per test
    starts each of our systems' JVMs once."""
    from bench.systems import APACHE_PEER_OF

    systems = list(BASELINES)
    if with_peers:
        systems += [s for s in PEERED if s not in systems] + [APACHE_PEER_OF[s] for s in PEERED]
    return run_bench(work, systems, "--bucket-num", "4")
