"""The systems under test, one module each; every one runs in its own process (``bench.worker``).

A module named after its system defines ``SYSTEM``, a :class:`~bench.systems.base.System`
subclass. Modules load lazily, so a missing optional dependency (``deltalake``) only
affects its own system, which is then reported as skipped.
"""

from __future__ import annotations

__all__ = ["OURS", "PEERS", "SYSTEMS", "load_system"]

import importlib

from bench.systems.base import System, SystemUnavailable

OURS = ("hudi_cow_bloom", "hudi_cow_bucket", "hudi_mor", "hudi_sql_merge", "hudi_sql_merge_partial")
PEERS = ("naive_pyspark", "deltars", "pyarrow_floor")
SYSTEMS = OURS + PEERS


def load_system(name: str) -> type[System]:
    if name not in SYSTEMS:
        raise SystemExit(f"unknown system {name!r}; systems: {', '.join(SYSTEMS)}")
    try:
        module = importlib.import_module(f"bench.systems.{name}")
    except ImportError as exc:
        raise SystemUnavailable(f"{name}: {exc}") from exc
    system: type[System] = module.SYSTEM
    return system
