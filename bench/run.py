"""Run the benchmark: ``python -m bench.run --scale small|medium [--systems ...] [--out results.json]``.

Generates the inputs once (cached under ``--work-dir``), runs each system in its own process
on the same inputs, checks every final table against the expected rows (count and checksum,
computed from the inputs alone), prints a Markdown report and writes every number as JSON.
Exits with 1 when a table is wrong or a system failed; systems that cannot run here (no
``deltalake``, an index this checkout lacks) are reported as skipped.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from bench.generate import generate
from bench.memory import TreeSampler
from bench.oracle import expected_checksum
from bench.report import render, summarize
from bench.systems import SYSTEMS, interpreter
from bench.systems.base import Settings, SystemUnavailable
from bench.workload import SCALES, WORKLOADS, Inputs

_REPO = Path(__file__).resolve().parents[1]
_LIVE: set[subprocess.Popen[bytes]] = (
    set()
)  # worker processes running now (stopped if the run is interrupted)
# Variables that would point another interpreter's Spark launcher at ours (Apache Hudi's workers).
_SPARK_ENV = ("SPARK_HOME", "PYSPARK_PYTHON", "PYSPARK_DRIVER_PYTHON", "PYSPARK_SUBMIT_ARGS", "VIRTUAL_ENV",
              "SPARK_CONF_DIR")


def _parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="python -m bench.run", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--scale", choices=sorted(SCALES), default="small")
    p.add_argument("--workload", choices=WORKLOADS, default="daily",
                   help="daily: a new day of inserts plus corrections; update_heavy: 20%% of every day updated")
    p.add_argument(
        "--systems",
        default=",".join(SYSTEMS),
        help=f"comma-separated, in run order (default: all: {','.join(SYSTEMS)})",
    )
    p.add_argument("--out", type=Path, help="results JSON (default: <work-dir>/results-<scale>.json)")
    p.add_argument(
        "--work-dir",
        type=Path,
        default=Path(tempfile.gettempdir()) / "hudi-sql-bench",
        help="inputs (kept between runs), tables and logs",
    )
    p.add_argument(
        "--scaling",
        action="store_true",
        help="also apply batch 1 to a table 10x larger (the extra days precede the initial ones)",
    )
    p.add_argument("--scaling-systems", help="systems of the scaling run (default: those of the base run)")
    p.add_argument("--rows-per-day", type=int, help="override the scale's rows per day")
    p.add_argument("--days", type=int, help="override the scale's initial days")
    p.add_argument("--batches", type=int, help="override the scale's number of batches")
    p.add_argument("--master", default="local[2]", help="Spark master of the Spark-based systems")
    p.add_argument("--driver-memory", help="Spark driver memory (default: 2g small, 6g medium)")
    p.add_argument(
        "--shuffle-partitions", type=int, help="spark.sql.shuffle.partitions (default: hudi-sql's)"
    )
    p.add_argument("--parquet-codec", help="one Parquet codec for every system (default: each system's own)")
    p.add_argument("--bucket-num", type=int, help="hoodie.bucket.index.num.buckets of hudi_cow_bucket")
    p.add_argument(
        "--bloom-fallback",
        action="store_true",
        help="run BLOOM systems with the SIMPLE index when this checkout has no BLOOM index",
    )
    p.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="an extra hoodie.* option for our systems (repeatable)",
    )
    p.add_argument(
        "--timeout", type=float, help="seconds per system process (default: 1800 small, 5400 medium)"
    )
    p.add_argument(
        "--budget",
        type=float,
        help="total seconds for all system processes; systems not started in time are skipped",
    )
    p.add_argument(
        "--jobs",
        type=int,
        default=1,
        help="system processes at a time; above 1 only for correctness runs (timings then interfere)",
    )
    p.add_argument("--no-scans", action="store_true", help="skip the timed reads of the final tables")
    p.add_argument("--keep-tables", action="store_true", help="keep each system's table after its run")
    return p.parse_args(argv)


def _versions() -> dict[str, str]:
    from importlib.metadata import PackageNotFoundError, version

    found = {"python": platform.python_version()}
    for package in ("hudi-sql", "pyspark", "pyarrow", "numpy", "deltalake"):
        try:
            found[package] = version(package)
        except PackageNotFoundError:
            pass
    try:
        found["commit"] = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=_REPO, capture_output=True, text=True, check=True
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        pass
    return found


def _machine() -> str:
    memory = ""
    try:
        kb = int(Path("/proc/meminfo").read_text().split("\n")[0].split()[1])
        memory = f", {kb / 2**20:.0f} GiB RAM"
    except (OSError, ValueError, IndexError):
        pass
    return f"{platform.system()} {platform.machine()}, {os.cpu_count()} CPUs{memory}"


def _run_worker(
    name: str,
    phase: str,
    initial: list[Path],
    batches: list[Path],
    *,
    work: Path,
    settings: Settings,
    timeout: float,
    scans: bool,
    keep: bool,
    by_budget: bool = False,
) -> dict[str, Any]:
    runs = work / "runs" / phase
    runs.mkdir(parents=True, exist_ok=True)
    spec_path, result_path, log_path = (runs / f"{name}.{ext}" for ext in ("spec.json", "result.json", "log"))
    result_path.unlink(missing_ok=True)
    table_dir = work / "tables" / phase / name
    spec = {
        "system": name,
        "phase": phase,
        "table_dir": str(table_dir),
        "state_dir": str(work / "state" / name),
        "initial_files": [str(f) for f in initial],
        "batch_files": [str(f) for f in batches],
        "settings": settings.to_json(),
        "scans": scans,
        "result": str(result_path),
    }
    spec_path.write_text(json.dumps(spec, indent=2))
    try:
        python = interpreter(name)
    except SystemUnavailable as exc:
        print(f"[bench] {phase}: {name}: skipped: {exc}", file=sys.stderr, flush=True)
        return {"system": name, "phase": phase, "status": "skipped", "message": str(exc)}
    env = {
        **os.environ,
        "SPARK_LOCAL_IP": "127.0.0.1",
        "PYTHONPATH": os.pathsep.join(p for p in (str(_REPO), os.environ.get("PYTHONPATH", "")) if p),
    }
    if python != Path(sys.executable):  # its own PySpark and Spark, found from its own interpreter
        env = {k: v for k, v in env.items() if k not in _SPARK_ENV} | {"PYTHONPATH": str(_REPO)}
    print(f"[bench] {phase}: {name} ...", file=sys.stderr, flush=True)
    start = time.perf_counter()
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(
            [str(python), "-m", "bench.worker", str(spec_path)],
            cwd=_REPO,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        _LIVE.add(proc)
        with TreeSampler(proc.pid) as sampler:
            try:
                proc.wait(timeout=timeout)
                timed_out = False
            except subprocess.TimeoutExpired:
                timed_out = True
                _stop_group(proc)
            except BaseException:  # interrupted (Ctrl-C, SIGTERM): take the worker's processes down too
                _stop_group(proc)
                raise
            finally:
                _LIVE.discard(proc)
    elapsed = time.perf_counter() - start
    if result_path.exists():
        result: dict[str, Any] = json.loads(result_path.read_text())
    else:
        why = f"timed out after {timeout:.0f}s" if timed_out else f"exited with {proc.returncode}"
        if timed_out and by_budget:  # the run's budget ran out, not the system's own timeout
            why = f"stopped at the end of the time budget, after {timeout:.0f}s"
        result = {
            "system": name,
            "phase": phase,
            "status": "skipped" if timed_out and by_budget else "failed",
            "message": f"{why}; see {log_path}",
        }
    result.update(process_s=elapsed, tree_peak_mb=sampler.peak_mb, log=str(log_path))
    status = result["status"] + ("" if result["status"] == "ok" else f": {result.get('message', '')}")
    print(f"[bench] {phase}: {name}: {status} ({elapsed:.0f}s)", file=sys.stderr, flush=True)
    if not keep:
        shutil.rmtree(table_dir, ignore_errors=True)
    return result


def _stop_group(proc: subprocess.Popen[bytes]) -> None:
    """Stop the worker and everything it started (its own process group: JVM, Python workers)."""
    for sig, grace in ((signal.SIGTERM, 15), (signal.SIGKILL, 15)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(timeout=grace)
            return
        except subprocess.TimeoutExpired:
            continue


def _save(out: Path, data: dict[str, Any]) -> None:
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_suffix(".tmp")
    tmp.write_text(json.dumps(data, indent=2, default=str))
    tmp.replace(out)


def _check(results: list[dict[str, Any]], expected: dict[str, dict[str, Any]]) -> dict[str, Any]:
    problems = []
    checked = 0
    for r in results:
        if r.get("status") != "ok":
            continue
        checked += 1
        want, got = expected[r["phase"]], r["final"]
        if got != want:
            problems.append(
                f"{r['system']} ({r['phase']}): {got['count']:,} rows, checksum {got['checksum']}"
            )
    failed = [f"{r['system']} ({r['phase']})" for r in results if r.get("status") == "failed"]
    ok = not problems and not failed and checked > 0
    parts = [
        f"{checked} tables checked against the expected "
        + "; ".join(
            f"{phase}: {e['count']:,} rows, checksum {e['checksum']}" for phase, e in expected.items()
        )
    ]
    if problems:
        parts.append("MISMATCH: " + "; ".join(problems))
    if failed:
        parts.append("FAILED: " + ", ".join(failed))
    return {
        "ok": ok,
        "detail": ". ".join(parts),
        "expected": expected,
        "mismatches": problems,
        "failed": failed,
    }


def _exit_on_sigterm(signum: int, frame: object) -> None:
    raise SystemExit(128 + signum)


def main(argv: list[str] | None = None) -> int:
    args = _parse_args(argv)
    signal.signal(signal.SIGTERM, _exit_on_sigterm)
    systems = [s.strip() for s in args.systems.split(",") if s.strip()]
    unknown = [s for s in systems if s not in SYSTEMS]
    if unknown:
        raise SystemExit(f"unknown systems {unknown}; known: {', '.join(SYSTEMS)}")
    scale = SCALES[args.scale].with_overrides(
        rows_per_day=args.rows_per_day, days=args.days, batches=args.batches
    ).with_workload(args.workload)
    big = scale.rows_per_day > 200_000
    work = args.work_dir.resolve()
    settings = Settings(
        master=args.master,
        driver_memory=args.driver_memory or ("6g" if big else "2g"),
        shuffle_partitions=args.shuffle_partitions,
        parquet_codec=args.parquet_codec,
        bucket_num=args.bucket_num,
        bloom_fallback=args.bloom_fallback,
        extra=dict(o.split("=", 1) for o in args.option),
    )
    timeout = args.timeout or (5400.0 if big else 1800.0)

    print(f"[bench] generating inputs ({scale.id}) ...", file=sys.stderr, flush=True)
    inputs: Inputs = generate(scale, work / "inputs" / scale.id, scaling=args.scaling)
    expected = {"base": expected_checksum(inputs.initial_files() + inputs.batch_files()).to_json()}

    deadline = time.monotonic() + args.budget if args.budget else None
    common = {"work": work, "settings": settings, "keep": args.keep_tables}
    results: list[dict[str, Any]] = []
    out = args.out or work / f"results-{scale.id}.json"

    def run_one(
        phase: str, name: str, initial: list[Path], batches: list[Path], scans: bool
    ) -> dict[str, Any]:
        left = deadline - time.monotonic() if deadline is not None else timeout
        if left < 30:
            return {
                "system": name,
                "phase": phase,
                "status": "skipped",
                "message": f"out of the time budget (--budget {args.budget:.0f}s)",
            }
        result = _run_worker(
            name,
            phase,
            initial,
            batches,
            scans=scans,
            timeout=min(timeout, left),
            by_budget=left < timeout,
            **common,
        )
        _save(out, {"partial": True, "scale": scale.to_json(), "results": [*results, result]})
        return result

    def run_phase(
        phase: str, names: list[str], initial: list[Path], batches: list[Path], scans: bool
    ) -> None:
        if args.jobs <= 1:
            results.extend(run_one(phase, name, initial, batches, scans) for name in names)
            return
        with ThreadPoolExecutor(max_workers=args.jobs) as pool:
            results.extend(pool.map(lambda name: run_one(phase, name, initial, batches, scans), names))

    try:
        run_phase("base", systems, inputs.initial_files(), inputs.batch_files(), not args.no_scans)
        if args.scaling:
            expected["scaling"] = expected_checksum(inputs.scaling_files() + [inputs.batch_file(1)]).to_json()
            ran = {r["system"] for r in results if r["status"] == "ok"}
            chosen = [
                s.strip() for s in (args.scaling_systems or args.systems).split(",") if s.strip() in ran
            ]
            run_phase("scaling", chosen, inputs.scaling_files(), [inputs.batch_file(1)], False)
    except BaseException:
        for proc in list(_LIVE):
            _stop_group(proc)
        raise

    versions = _versions()
    run: dict[str, Any] = {
        "meta": {
            "date": dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
            "machine": _machine(),
            "versions": versions,
            "versions_line": ", ".join(f"{k} {v}" for k, v in versions.items()),
        },
        "scale": scale.to_json(),
        "settings": settings.to_json(),
        "inputs": {"root": str(inputs.root), "batch_bytes": [f.stat().st_size for f in inputs.batch_files()]},
        "results": results,
    }
    run["summary"] = summarize(results)
    run["correctness"] = _check(results, expected)
    report = render(run)
    print(report)
    _save(out, run)
    print(f"\n[bench] results: {out}", file=sys.stderr)
    return 0 if run["correctness"]["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
