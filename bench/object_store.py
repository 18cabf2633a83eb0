"""The daily upsert on an S3-compatible store beside the local disk: time, ratio and requests per commit.

::

    .venv/bin/python -m bench.object_store --scale medium [--work-dir DIR] [--out results.json]

The same workload as ``bench.run`` (the drone telemetry, ``bench/README.md``) through the same
system as ``hudi_cow_bloom`` (COPY_ON_WRITE, BLOOM index with range pruning, the metadata table on
as by default): the initial days with ``bulk_insert``, then every daily batch with ``upsert``, once
into a table on the local disk and once into ``s3a://lake/…`` on a SeaweedFS started here on
loopback (``tools/s3/setup.sh`` builds it). One SparkSession does both, step by step in turn.

For every commit on the store it records the S3 requests the server counted (its Prometheus
counters: GET, which counts HEAD too, LIST, PUT, POST for multipart steps, DELETE) and the
prefixes hudi-sql listed (``HUDI_SQL_STORAGE_TRACE``, set for this process and its Spark tasks).
A listing of a partition folder, or a recursive listing of the table, counts as a partition
listing: with the metadata table on, an upsert must have none (the file listing comes from
``.hoodie/metadata/files``). Both tables must end with the same rows (count and checksum); the
exit status is 1 when they do not or a commit listed a partition.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.checksum import spark_checksum
from bench.generate import generate
from bench.workload import SCALES, cow_bloom_options

OPTIONS = cow_bloom_options("drones")


def partition_listings(trace: list[str], table: str) -> list[str]:
    """The listings in *trace* that walk the table's data: a partition folder, or the table recursively."""
    base = table.rstrip("/")
    found = []
    for line in trace:
        kind, _, uri = line.partition(" ")
        uri = uri.rstrip("/")
        inside = uri.startswith(base + "/") and not uri.startswith(base + "/.hoodie")
        if inside or (uri == base and kind == "LIST-RECURSIVE"):
            found.append(line)
    return found


def _timed_write(spark: Any, files: list[Path], table: str, operation: str, options: dict[str, str]) -> float:
    import hudi_sql

    frame = spark.read.parquet(*(str(f) for f in files))
    started = time.perf_counter()
    hudi_sql.write(frame, table, {**OPTIONS, **options, "hoodie.datasource.write.operation": operation})
    return time.perf_counter() - started


def run(scale_name: str, work: Path, overrides: dict[str, int | None]) -> dict[str, Any]:
    import hudi_sql
    from tools.s3.seaweedfs import BUCKET, start_object_store, unavailable_reason

    reason = unavailable_reason()
    if reason:
        raise SystemExit(reason)
    scale = SCALES[scale_name].with_overrides(**overrides)
    inputs = generate(scale, work / "inputs" / scale.id)
    trace = work / "list-trace.txt"
    os.environ["HUDI_SQL_STORAGE_TRACE"] = str(trace)  # before the JVM starts: its Python workers inherit it
    server = start_object_store(work / "s3")
    spark = hudi_sql.spark_session(master="local[2]", state_dir=work / "spark",
                                   conf={"spark.driver.memory": "2g" if scale_name == "small" else "6g",
                                         "spark.ui.showConsoleProgress": "false", **server.hadoop_keys})
    spark.sparkContext.setLogLevel("ERROR")
    stamp = int(time.time())
    tables = {"local": str(work / f"local-{stamp}" / "drones"), "s3": f"s3a://{BUCKET}/drones-{stamp}"}
    results: dict[str, Any] = {"scale": scale.to_json(), "stores": {store: {"table": table, "commits": []}
                                                                    for store, table in tables.items()}}
    steps = [("bulk_insert", inputs.initial_files())] + [("upsert", [f]) for f in inputs.batch_files()]
    try:
        for operation, files in steps:  # each step on both stores in turn, so neither runs on a colder JVM
            for store, table in tables.items():
                trace.write_text("")
                before = server.request_counts() if store == "s3" else {}
                seconds = _timed_write(spark, files, table, operation, {})
                commit: dict[str, Any] = {"operation": operation, "seconds": round(seconds, 2)}
                if store == "s3":
                    after = server.request_counts()
                    commit["requests"] = {k: after.get(k, 0) - before.get(k, 0) for k in sorted(after)}
                    listed = trace.read_text().splitlines()
                    commit["lists_sent"] = len(listed)
                    commit["partition_listings"] = partition_listings(listed, table)
                results["stores"][store]["commits"].append(commit)
                print(f"[{store}] {operation}: {seconds:.1f}s {commit.get('requests', '')}", flush=True)
        for store, table in tables.items():
            checksum = spark_checksum(hudi_sql.read(spark, table))
            results["stores"][store].update(rows=checksum.count, checksum=checksum.hex)
    finally:
        spark.stop()
        server.stop()
    return results


def report(results: dict[str, Any]) -> str:
    local, s3 = results["stores"]["local"], results["stores"]["s3"]
    lines = ["| commit | local disk (s) | S3 store (s) | ratio | GET | LIST | PUT | POST | DELETE | partition LISTs |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for n, (a, b) in enumerate(zip(local["commits"], s3["commits"], strict=True)):
        r = b["requests"]
        lines.append(f"| {n} {a['operation']} | {a['seconds']:.1f} | {b['seconds']:.1f} | "
                     f"{b['seconds'] / a['seconds']:.2f} | {r.get('GET', 0)} | {r.get('LIST', 0)} | {r.get('PUT', 0)} | "
                     f"{r.get('POST', 0)} | {r.get('DELETE', 0)} | {len(b['partition_listings'])} |")
    upserts = [(a["seconds"], b["seconds"]) for a, b in zip(local["commits"], s3["commits"]) if a["operation"] == "upsert"]
    total_local, total_s3 = sum(a for a, _ in upserts), sum(b for _, b in upserts)
    lines.append(f"\nUpserts together: {total_local:.1f} s local, {total_s3:.1f} s on S3, "
                 f"ratio {total_s3 / total_local:.2f}. Rows: {local['rows']} / {s3['rows']}; "
                 f"checksums {'agree' if local['checksum'] == s3['checksum'] else 'DIFFER'}.")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.object_store", description=__doc__.split("\n")[0])
    parser.add_argument("--scale", choices=sorted(SCALES), default="small")
    parser.add_argument("--rows-per-day", type=int)
    parser.add_argument("--days", type=int)
    parser.add_argument("--batches", type=int)
    parser.add_argument("--work-dir", type=Path, default=Path(tempfile.gettempdir()) / "hudi-sql-bench-s3")
    parser.add_argument("--out", type=Path, help="results JSON (default <work-dir>/results-s3-<scale>.json)")
    args = parser.parse_args(argv)
    args.work_dir.mkdir(parents=True, exist_ok=True)
    results = run(args.scale, args.work_dir,
                  {"rows_per_day": args.rows_per_day, "days": args.days, "batches": args.batches})
    out = args.out or args.work_dir / f"results-s3-{args.scale}.json"
    out.write_text(json.dumps(results, indent=2))
    print(report(results))
    local, s3 = results["stores"]["local"], results["stores"]["s3"]
    listed = [c for c in s3["commits"] if c["operation"] == "upsert" and c["partition_listings"]]
    for commit in listed:
        print(f"an upsert listed partitions: {commit['partition_listings'][:5]}", file=sys.stderr)
    return 0 if local["checksum"] == s3["checksum"] and local["rows"] == s3["rows"] and not listed else 1


if __name__ == "__main__":
    raise SystemExit(main())
