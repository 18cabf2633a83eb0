"""Running ``python -m bench.run`` from a test as CI would: each system in its own process, on a
reduced small scale (5 000 rows a day, 2 initial days, 2 batches), correctness only, no timing."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]


def run_bench(work: Path, systems: list[str], *extra: str) -> dict[str, Any]:
    """The results JSON of one run, with its exit code, stdout (the report) and stderr added."""
    out = work / "results.json"
    command = [
        sys.executable, "-m", "bench.run",
        "--scale", "small", "--rows-per-day", "5000", "--days", "2", "--batches", "2",
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
