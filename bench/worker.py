"""One system, one process: ``python -m bench.worker <spec.json>`` (started by ``bench.run``).

The spec names the system, its table folder, the input files and the settings; the worker
writes its measurements to the spec's ``result`` path as JSON. Status ``ok``; ``skipped``
when the system cannot run here (exit code 0); ``failed`` with the traceback (exit code 1).
"""

from __future__ import annotations

import json
import shutil
import sys
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench.fsdiff import diff, listing, total_bytes
from bench.systems import load_system
from bench.systems.base import Context, Settings, System, SystemUnavailable


def _step(system: System, action: Callable[[], dict[str, Any] | None]) -> dict[str, Any]:
    before = listing(system.path)
    start = time.perf_counter()
    engine = action()
    seconds = time.perf_counter() - start
    written = diff(before, listing(system.path))
    return {"seconds": seconds, **written.to_json(), "engine": engine}


def time_runs(action: Callable[[], None], repeat: int) -> list[float]:
    """Seconds of each of *repeat* runs of *action*."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return times


def _log(system: System, what: str, t0: float) -> None:
    print(f"[{system.name}] {time.perf_counter() - t0:7.1f}s {what}", file=sys.stderr, flush=True)


def run(spec: dict[str, Any]) -> dict[str, Any]:
    table_dir, state_dir = Path(spec["table_dir"]), Path(spec["state_dir"])
    for folder in (table_dir, state_dir):
        shutil.rmtree(folder, ignore_errors=True)
    table_dir.parent.mkdir(parents=True, exist_ok=True)
    state_dir.mkdir(parents=True, exist_ok=True)
    context = Context(table_dir, state_dir, Settings.from_json(spec["settings"]))
    system = load_system(spec["system"])(context)
    result: dict[str, Any] = {
        "system": system.name,
        "phase": spec["phase"],
        "description": system.description,
    }
    t0 = time.perf_counter()
    system.open()
    try:
        _log(system, "opened", t0)
        result["initial"] = _step(system, lambda: system.load([Path(f) for f in spec["initial_files"]]))
        _log(system, f"initial load: {result['initial']['seconds']:.2f}s", t0)
        result["initial"]["rows_after"] = system.count()
        result["memory_load"] = system.memory()
        system.reset_memory_peaks()  # memory_writes: the peaks of the upserts alone
        result["batches"] = []
        for k, batch in enumerate(spec["batch_files"], start=1):
            record = _step(system, lambda b=Path(batch): system.upsert(b))  # type: ignore[misc]
            record.update(batch=k, input_bytes=Path(batch).stat().st_size, rows_after=system.count())
            result["batches"].append(record)
            _log(system, f"batch {k}: {record['seconds']:.2f}s, {record['rows_after']:,} rows", t0)
        result["memory_writes"] = system.memory()
        files = listing(system.path)
        result["table"] = {
            "bytes": total_bytes(files),
            "data_bytes": total_bytes(files, data_only=True),
            "files": len(files),
        }
        if spec.get("scans", True):
            repeat = int(spec.get("scan_repeat", 2))
            result["scans"] = {name: time_runs(action, repeat) for name, action in system.scans().items()}
            _log(system, "scans done", t0)
        result["final"] = system.checksum().to_json()
        _log(system, "checksum done", t0)
        result["memory"] = system.memory()
        result["describe"] = system.describe()
    finally:
        system.close()
    result["notes"] = system.notes
    result["status"] = "ok"
    return result


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    spec = json.loads(Path(args[0]).read_text())
    out = Path(spec["result"])
    base = {"system": spec["system"], "phase": spec["phase"]}
    try:
        result = run(spec)
        code = 0
    except SystemUnavailable as exc:
        result, code = {**base, "status": "skipped", "message": str(exc)}, 0
    except Exception as exc:  # noqa: BLE001 - reported to the runner, which fails the run
        result = {
            **base,
            "status": "failed",
            "message": f"{type(exc).__name__}: {exc}",
            "traceback": traceback.format_exc(),
        }
        code = 1
    out.write_text(json.dumps(result, indent=2, default=str))
    return code


if __name__ == "__main__":
    sys.exit(main())
