"""Session-wide test fixtures: one shared local SparkSession, and the Apache Hudi fixture tables."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

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


@pytest.fixture(scope="session", autouse=True)
def _fixture_cache() -> Iterator[None]:
    yield
    cleanup_cache()
