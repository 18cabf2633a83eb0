"""The metadata table's benchmarks: the bloom index reading from it, and data skipping.

```bash
.venv/bin/python -m bench.metadata_table --scale medium --parquet-codec snappy --out results-metadata.json
```

Two tables are written from the daily workload's inputs (``bench/README.md``), Copy-On-Write
with the BLOOM index and the metadata table's ``column_stats`` and ``bloom_filters`` partitions
on, so both pay the same to keep the metadata table: the initial load (``bulk_insert``), then
the batches (``upsert``). They differ in where the index finds key ranges and bloom filters:

* ``footers``: ``hoodie.bloom.index.use.metadata=false``, each candidate base file's footer;
* ``metadata``: ``=true``, the metadata table's ``column_stats`` (the ranges, one read on the
  driver) and ``bloom_filters`` (each lookup task reads its files' filters).

Per batch: the upsert's seconds, and what the index read (footers, bloom filters). Each final
table must hold the rows the inputs alone give (``bench.oracle``: count and checksum). Then a
filtered snapshot query of the final table, one hour of one day on ``event_ts`` (the time column
every file spans a day of), through SQL with and without ``hoodie.enable.data.skipping``: the
file slices read, the seconds (best of two), and the same rows either way.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.checksum import spark_checksum
from bench.generate import generate
from bench.oracle import expected_checksum
from bench.workload import KEY, ORDERING, SCALES, WORKLOADS, cow_bloom_options

VARIANTS = {"footers": "false", "metadata": "true"}


def _options(name: str, use_metadata: str, codec: str) -> dict[str, str]:
    return {
        **cow_bloom_options(name),
        "hoodie.metadata.index.column.stats.enable": "true",
        "hoodie.metadata.index.bloom.filter.enable": "true",
        "hoodie.bloom.index.use.metadata": use_metadata,
        "hoodie.parquet.compression.codec": codec,
    }


def _write_table(spark: Any, inputs: Any, path: Path, options: dict[str, str]) -> list[dict[str, Any]]:
    import hudi_sql
    from hudi_sql.index import bloom

    started = time.perf_counter()
    hudi_sql.write(spark.read.parquet(*map(str, inputs.initial_files())), str(path),
                   {**options, "hoodie.datasource.write.operation": "bulk_insert"})
    batches = [{"batch": 0, "seconds": round(time.perf_counter() - started, 2)}]
    for k, file in enumerate(inputs.batch_files(), start=1):
        bloom._KEY_RANGES.clear()  # every batch reads its ranges anew, as a fresh process would
        started = time.perf_counter()
        result = hudi_sql.write(spark.read.parquet(str(file)), str(path),
                                {**options, "hoodie.datasource.write.operation": "upsert"})
        seconds = time.perf_counter() - started
        stats = result.index_stats
        assert isinstance(stats, bloom.BloomIndexStats), "the bench writes with the bloom index"
        batches.append({"batch": k, "seconds": round(seconds, 2), "updated": result.num_updated,
                        "inserted": result.num_inserted, "candidate_files": stats.candidate_files,
                        "footers_read": stats.footers_read, "files_range_matched": stats.files_range_matched,
                        "bloom_filters_loaded": stats.bloom_filters_loaded})
        print(f"  batch {k}: {seconds:.2f} s, {stats.footers_read} footers read", file=sys.stderr)
    return batches


def _query(spark: Any, path: Path, day: str) -> dict[str, Any]:
    import hudi_sql

    db = hudi_sql.connect(spark)
    # An exact, order-independent answer: a floating-point sum would differ in its last digits
    # with the files read in another order.
    query = (f"SELECT count(*) AS n, sum(cast(hash({KEY}, {ORDERING}, latitude) AS BIGINT)) AS checksum "
             f"FROM hudi.`{path}` "
             f"WHERE {ORDERING} >= TIMESTAMP '{day} 06:00:00' AND {ORDERING} < TIMESTAMP '{day} 07:00:00'")
    out: dict[str, Any] = {"query": query}
    for label, skipping in (("without", "false"), ("with", "true")):
        db.sql(f"SET hoodie.enable.data.skipping={skipping}")
        plan = db.sql(f"EXPLAIN {query}").collect()[0][0]
        native = int(re.search(r"base files read by Spark's Parquet reader: (\d+)", plan).group(1))  # type: ignore[union-attr]
        times, rows = [], None
        for _ in range(2):
            started = time.perf_counter()
            rows = [tuple(r) for r in db.sql(query).collect()]
            times.append(time.perf_counter() - started)
        skipped = re.search(r"data skipping: (\d+) of (\d+) file slices skipped", plan)
        out[label] = {"seconds": round(min(times), 2), "files_read": native, "rows": rows,
                      "slices_skipped": int(skipped.group(1)) if skipped else 0}
    db.sql("RESET hoodie.enable.data.skipping")
    assert out["with"]["rows"] == out["without"]["rows"], "data skipping changed the answer"
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scale", choices=sorted(SCALES), default="small")
    parser.add_argument("--workload", choices=WORKLOADS, default="daily",
                        help="daily (each batch corrects the previous day, adds one) or update_heavy "
                             "(each batch updates every initial day): bench/README.md")
    parser.add_argument("--rows-per-day", type=int, help="override the scale's rows per day")
    parser.add_argument("--days", type=int, help="override the scale's initial days")
    parser.add_argument("--batches", type=int, help="override the scale's number of batches")
    parser.add_argument("--work-dir", type=Path, default=Path(tempfile.gettempdir()) / "hudi-sql-bench")
    parser.add_argument("--master", default="local[2]")
    parser.add_argument("--driver-memory", default=None)
    parser.add_argument("--parquet-codec", default="snappy")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    scale = SCALES[args.scale].with_overrides(
        rows_per_day=args.rows_per_day, days=args.days, batches=args.batches).with_workload(args.workload)
    inputs = generate(scale, args.work_dir / "inputs" / scale.id)
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    import hudi_sql

    memory = args.driver_memory or ("6g" if scale.name == "medium" else "2g")
    spark = hudi_sql.spark_session(master=args.master, state_dir=args.work_dir / "state-metadata",
                                   app_name="bench-metadata-table",
                                   conf={"spark.driver.memory": memory, "spark.ui.showConsoleProgress": "false"})
    results: dict[str, Any] = {"scale": scale.to_json(), "workload": args.workload, "master": args.master,
                               "codec": args.parquet_codec,
                               "variants": {}}
    expected = expected_checksum(inputs.initial_files() + inputs.batch_files())
    results["expected"] = expected.to_json()
    tables = {variant: args.work_dir / "tables" / f"metadata-{scale.id}-{variant}" for variant in VARIANTS}
    try:
        for variant, path in tables.items():
            shutil.rmtree(path, ignore_errors=True)
            print(f"{variant}: writing {path}", file=sys.stderr)
            options = _options(f"drones_{variant}", VARIANTS[variant], args.parquet_codec)
            batches = _write_table(spark, inputs, path, options)
            final_rows = spark_checksum(hudi_sql.read(spark, str(path)))
            assert final_rows == expected, f"{variant}: {final_rows.to_json()}, expected {expected.to_json()}"
            upserts = [b["seconds"] for b in batches[1:]]
            results["variants"][variant] = {"batches": batches, "median_upsert_s": statistics.median(upserts)}
        final = tables["metadata"]
        days = sorted(p.name.split("=")[-1] for p in final.iterdir() if p.is_dir() and not p.name.startswith("."))
        results["query"] = _query(spark, final, days[len(days) // 2])
    finally:
        spark.stop()
    out = args.out or args.work_dir / f"results-metadata-{scale.id}.json"
    out.write_text(json.dumps(results, indent=2, default=str))
    print(json.dumps({k: v["median_upsert_s"] for k, v in results["variants"].items()}))
    print(json.dumps({k: {x: results["query"][k][x] for x in ("seconds", "files_read", "slices_skipped")}
                      for k in ("without", "with")}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
