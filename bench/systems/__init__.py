"""The systems under test, one module each; every one runs in its own process (``bench.worker``).

A module named after its system defines ``SYSTEM``, a :class:`~bench.systems.base.System`
subclass. Modules load lazily, so a missing optional dependency (``deltalake``) only
affects its own system, which is then reported as skipped. Apache Hudi's systems run in the
interpreter of ``tools/oracle/setup.sh`` (:func:`interpreter`); each is the peer of one of ours
(:data:`APACHE_PEER_OF`).
"""

from __future__ import annotations

__all__ = ["APACHE", "APACHE_PEER_OF", "OURS", "PEERS", "SYSTEMS", "interpreter", "load_system"]

import importlib
import sys
from pathlib import Path

from bench.systems.base import System, SystemUnavailable

OURS = ("hudi_cow_bloom", "hudi_cow_bucket", "hudi_mor", "hudi_sql_merge", "hudi_sql_merge_partial")
PEERS = ("naive_pyspark", "deltars", "pyarrow_floor")
APACHE = ("apache_hudi_cow_bloom", "apache_hudi_cow_bucket", "apache_hudi_mor")
SYSTEMS = OURS + PEERS + APACHE
#: Our system -> the Apache Hudi system doing the same (the MERGE INTO systems: the COW upsert).
APACHE_PEER_OF = {
    "hudi_cow_bloom": "apache_hudi_cow_bloom",
    "hudi_cow_bucket": "apache_hudi_cow_bucket",
    "hudi_mor": "apache_hudi_mor",
    "hudi_sql_merge": "apache_hudi_cow_bloom",
    "hudi_sql_merge_partial": "apache_hudi_cow_bloom",
}


def interpreter(name: str) -> Path:
    """The Python that runs *name*'s worker: Apache Hudi's own for its systems, this one otherwise.

    Raises :class:`SystemUnavailable` when Apache Hudi is not set up here.
    """
    if name in APACHE:
        from bench.systems._apache import oracle_python

        return oracle_python()
    return Path(sys.executable)


def load_system(name: str) -> type[System]:
    if name not in SYSTEMS:
        raise SystemExit(f"unknown system {name!r}; systems: {', '.join(SYSTEMS)}")
    try:
        module = importlib.import_module(f"bench.systems.{name}")
    except ImportError as exc:
        raise SystemUnavailable(f"{name}: {exc}") from exc
    system: type[System] = module.SYSTEM
    return system
