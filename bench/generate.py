"""Deterministic generator of the drone-telemetry inputs (numpy + pyarrow, no Spark).

Every value is a pure function of ``(scale.seed, day)``: the rows of a day, and the updates a
batch makes to the previous day, come out the same on every machine and every run. Rows are
ordered by record key, ``yyyyMMddHHmm_D<droneId>``; with ``ceil(rows_per_day / 1440)`` drones
each reporting once a minute, keys grow monotonically with time (the workload Hudi's bloom
index with key-range pruning is built for).

``python -m bench.generate --scale small --work-dir DIR`` writes the inputs alone.
"""

from __future__ import annotations

__all__ = ["batch_rows", "day_rows", "generate"]

import argparse
import datetime as dt
import json
import math
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from bench.workload import SCALES, SCHEMA, Inputs, Scale

_EPOCH_DAY = dt.date(2024, 1, 1)  # day 0 of every scale; the scaling run's extra days come before it
_DAY_OFFSET = 1_000_000  # SeedSequence entropy must be non-negative
_STATUSES = pa.array(["IDLE", "TAKEOFF", "CRUISE", "HOVER", "LANDING", "CHARGING"])
_US_PER_MS = 1_000


def _rng(scale: Scale, day: int, stream: int) -> np.random.Generator:
    return np.random.default_rng([scale.seed, day + _DAY_OFFSET, stream])


def _date(day: int) -> dt.date:
    return _EPOCH_DAY + dt.timedelta(days=day)


def day_rows(scale: Scale, day: int) -> pa.Table:
    """The ``rows_per_day`` inserts of *day* (0 = 2024-01-01), sorted by record key."""
    n = scale.rows_per_day
    drones = max(1, math.ceil(n / 1440))
    i = np.arange(n, dtype=np.int64)
    minute, drone = i // drones, i % drones
    date = _date(day)
    prefixes = pa.array([f"{date:%Y%m%d}{m // 60:02d}{m % 60:02d}" for m in range(1440)])
    drone_ids = pa.array([f"D{d:05d}" for d in range(drones)])
    drone_col = drone_ids.take(pa.array(drone))
    key = pc.binary_join_element_wise(prefixes.take(pa.array(minute)), drone_col, "_")

    rng = _rng(scale, day, 1)
    day_start_us = int(dt.datetime(date.year, date.month, date.day, tzinfo=dt.UTC).timestamp()) * 1_000_000
    offset_ms = (drone * 997 + rng.integers(0, 1000, n)) % 60_000  # within the minute, millisecond precision
    event_ts = day_start_us + minute * 60_000_000 + offset_ms * _US_PER_MS
    lat0 = 37.0 + (drone % 97) * 0.01
    lon0 = -122.0 + (drone % 89) * 0.01
    columns = {
        "record_key": key,
        "drone_id": drone_col,
        "mission_id": (day + _DAY_OFFSET) * 100_000 + drone,
        "event_ts": pa.array(event_ts, pa.timestamp("us", tz="UTC")),
        "latitude": lat0 + rng.normal(0.0, 0.002, n),
        "longitude": lon0 + rng.normal(0.0, 0.002, n),
        "altitude_m": rng.uniform(0.0, 400.0, n),
        "speed_mps": rng.gamma(2.0, 4.0, n),
        "heading_deg": rng.uniform(0.0, 360.0, n),
        "battery_pct": 100.0 - (minute % 240) * 0.4 + rng.normal(0.0, 0.5, n),
        "status": _STATUSES.take(pa.array(rng.integers(0, len(_STATUSES), n))),
        "satellites": rng.integers(4, 20, n).astype(np.int32),
        "day": pa.array([date.isoformat()]).take(pa.array(np.zeros(n, dtype=np.int64))),
    }
    return pa.Table.from_pydict(columns, schema=SCHEMA)


def _updates(scale: Scale, day: int, batch: int = 0) -> pa.Table:
    """Corrections to ``update_fraction`` of *day*'s rows: same key and day, later ``event_ts``.

    *batch* numbers the update-heavy batches (0 for the daily workload's single correction of a
    day): batch k's corrections are k x 10 minutes later than the original rows, plus up to
    10 minutes, so a later batch always wins over an earlier one.
    """
    base = day_rows(scale, day)
    rng = _rng(scale, day, 2 if batch == 0 else 100 + batch)
    n = base.num_rows
    m = max(1, round(n * scale.update_fraction))
    rows = base.take(pa.array(np.sort(rng.choice(n, m, replace=False))))
    later_ms = batch * 600_000 + rng.integers(1, 600_000, m)  # 1 ms to 10 minutes later
    event_ts = pc.cast(rows["event_ts"], pa.int64()).to_numpy() + later_ms * _US_PER_MS

    def nudge(name: str, sd: float) -> np.ndarray:
        return rows[name].to_numpy() + rng.normal(0.0, sd, m)

    columns = {
        "record_key": rows["record_key"],
        "drone_id": rows["drone_id"],
        "mission_id": rows["mission_id"],
        "event_ts": pa.array(event_ts, pa.timestamp("us", tz="UTC")),
        "latitude": nudge("latitude", 0.0005),
        "longitude": nudge("longitude", 0.0005),
        "altitude_m": nudge("altitude_m", 5.0),
        "speed_mps": np.abs(nudge("speed_mps", 1.0)),
        "heading_deg": nudge("heading_deg", 10.0) % 360.0,
        "battery_pct": nudge("battery_pct", 1.0),
        "status": _STATUSES.take(pa.array(rng.integers(0, len(_STATUSES), m))),
        "satellites": rng.integers(4, 20, m).astype(np.int32),
        "day": rows["day"],
    }
    return pa.Table.from_pydict(columns, schema=SCHEMA)


def batch_rows(scale: Scale, k: int) -> pa.Table:
    """Batch *k* (1-based): updates to the last loaded day, then the inserts of the next day; in
    the update-heavy workload, updates to every initial day and no inserts."""
    if scale.workload == "update_heavy":
        return pa.concat_tables([_updates(scale, day, batch=k) for day in range(scale.days)])
    last_day = scale.days - 2 + k
    return pa.concat_tables([_updates(scale, last_day), day_rows(scale, last_day + 1)])


def _write(table: pa.Table, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    pq.write_table(table, tmp, compression="snappy")
    tmp.replace(path)  # a crashed run never leaves a half-written input behind


def generate(scale: Scale, root: Path, *, scaling: bool = False) -> Inputs:
    """Write the inputs of *scale* under *root* (skipping files a previous run wrote)."""
    inputs = Inputs(Path(root), scale)
    manifest = {"scale": scale.to_json(), "generator": 1}
    # Inputs generated before workloads existed are the daily workload's.
    if inputs.manifest_path.exists() and {"workload": "daily", **inputs.manifest().get("scale", {})} != manifest["scale"]:
        raise SystemExit(f"{inputs.root} holds inputs of another scale; use another --work-dir")
    days = inputs.scaling_files() if scaling else inputs.initial_files()
    first = -(scale.scaling_factor - 1) * scale.days if scaling else 0
    for day, path in zip(range(first, scale.days), days, strict=True):
        if not path.exists():
            _write(day_rows(scale, day), path)
    for k, path in enumerate(inputs.batch_files(), start=1):
        if not path.exists():
            _write(batch_rows(scale, k), path)
    inputs.root.mkdir(parents=True, exist_ok=True)
    inputs.manifest_path.write_text(json.dumps(manifest, indent=2))
    return inputs


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--scale", choices=sorted(SCALES), default="small")
    parser.add_argument("--work-dir", type=Path, required=True)
    parser.add_argument("--scaling", action="store_true", help="also the scaling run's 10x initial load")
    args = parser.parse_args(argv)
    inputs = generate(SCALES[args.scale], args.work_dir / "inputs" / args.scale, scaling=args.scaling)
    print(inputs.root)


if __name__ == "__main__":
    main()
