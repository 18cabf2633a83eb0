"""Session-wide test fixtures: one shared local SparkSession, and the Apache Hudi fixture tables."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(1, str(Path(__file__).resolve().parent.parent))  # tools/ (the S3 server, the oracle)

from fixture_tables import cleanup_cache


@pytest.fixture(scope="session")
def spark(tmp_path_factory: pytest.TempPathFactory) -> Iterator[object]:
    """The one SparkSession of the test session: local[2], few shuffle partitions, state in a temp dir."""
    from hudi_sql.spark.session import spark_session

    state = tmp_path_factory.mktemp("spark-state")
    session = spark_session(
        master="local[2]",
        state_dir=state,
        conf={"spark.sql.shuffle.partitions": "2", "spark.default.parallelism": "2"},
    )
    yield session
    session.stop()


@pytest.fixture(scope="session")
def small_bench_run(request: pytest.FixtureRequest,
                    tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """One reduced small run of ``python -m bench.run`` for every benchmark test of the session:
    the baselines, and the Apache Hudi peers too when a selected ``oracle`` test asks for this
    run and Apache Hudi is set up (``tests/bench_runs.py``)."""
    from bench_runs import apache_hudi_ready, shared_small_run

    wants_peers = any("small_bench_run" in getattr(item, "fixturenames", ())
                      and item.get_closest_marker("oracle") for item in request.session.items)
    return shared_small_run(tmp_path_factory.mktemp("bench"), wants_peers and apache_hudi_ready())


@pytest.fixture(scope="session", autouse=True)
def _fixture_cache() -> Iterator[None]:
    yield
    cleanup_cache()
