"""Session-wide test fixtures: one shared local SparkSession, and the Apache Hudi fixture tables."""

from __future__ import annotations

import os
import shlex
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(1, str(Path(__file__).resolve().parent.parent))  # tools/ (the S3 server, the oracle)

from fixture_tables import cleanup_cache
from local_inputs import use_local_relations
from process_helpers import HiveMetastore, start_hive_metastore, stop_process_group, wait_for_port

from tools.jvm.class_archive import GC_OPTION, driver_java_options

# Generative tests (tests/oracle/test_generative_differential.py): a few fixed-seed examples by
# default, so CI runs the same ones every time; ``--hypothesis-profile=long`` searches further
# (HUDI_LONG_EXAMPLES scenarios, 100 by default: about a minute for two on two cores).
settings.register_profile("ci", max_examples=2, derandomize=True, database=None, deadline=None)
settings.register_profile("long", max_examples=int(os.environ.get("HUDI_LONG_EXAMPLES", "100")), database=None,
                          deadline=None)
settings.load_profile("ci")

# Spark settings for every JVM this test session starts through PySpark (the shared session,
# writer processes, plain engines, the hudi-sql command and thriftserver, the standalone cluster's
# executors, our systems in benchmark runs), passed in PYSPARK_SUBMIT_ARGS: the serial collector,
# interpreted expressions, and no DataFrame call-site capture. On tables of tens of rows and 2 cores,
# G1's concurrent threads and Janino's compile of every new query shape cost more than they save
# (four Spark-heavy modules: 235 s with Spark's defaults, 209 s with the serial collector, 192 s
# with interpreted expressions too; docs/testing.md), and PySpark's call-site capture makes ~7 py4j
# calls per DataFrame method (a write's 1 400 calls become 600). The drivers also map the class
# archive of tools/jvm/class_archive.py when it has been made (~3 s less per JVM start). Nothing
# here changes a result, and the product's defaults stay as they are: bench/ timings, run outside
# pytest, measure those.
TEST_SPARK_DEFAULTS = {
    "spark.driver.defaultJavaOptions": GC_OPTION,  # the collector the class archive is made under
    "spark.executor.defaultJavaOptions": GC_OPTION,
    "spark.sql.codegen.factoryMode": "NO_CODEGEN",
    "spark.sql.codegen.wholeStage": "false",
    "spark.python.sql.dataFrameDebugging.enabled": "false",
}


def spark_submit_args(existing: str | None) -> str:
    """``PYSPARK_SUBMIT_ARGS`` with the test defaults first (a ``--conf`` already in *existing* wins:
    spark-submit keeps the last). Not ``SPARK_CONF_DIR``: Spark puts that folder on the class
    path, and a class archive cannot be used with a non-empty folder there."""
    conf = dict(TEST_SPARK_DEFAULTS)
    conf["spark.driver.defaultJavaOptions"] = f"{GC_OPTION} {driver_java_options()}".strip()
    ours = " ".join(f"--conf {shlex.quote(f'{key}={value}')}" for key, value in conf.items())
    return f"{ours} {existing or 'pyspark-shell'}"


def pytest_configure(config: pytest.Config) -> None:
    os.environ["PYSPARK_SUBMIT_ARGS"] = spark_submit_args(os.environ.get("PYSPARK_SUBMIT_ARGS"))


@pytest.fixture(scope="session")
def spark(tmp_path_factory: pytest.TempPathFactory) -> Iterator[object]:
    """The one SparkSession of the test session: local[2], few shuffle partitions, state in a temp dir."""
    from hudi_sql.engine.session import spark_session

    state = tmp_path_factory.mktemp("spark-state")
    session = spark_session(
        master="local[2]",
        state_dir=state,
        conf={"spark.sql.shuffle.partitions": "2", "spark.default.parallelism": "2"},
    )
    use_local_relations(session)  # tests' plain rows as local relations (tests/local_inputs.py)
    yield session
    session.stop()


@pytest.fixture(scope="session")
def hive_metastore(tmp_path_factory: pytest.TempPathFactory) -> Iterator[HiveMetastore]:
    """One standalone Hive metastore for every module that syncs to one or reads through one (Hive
    sync, the engines reading synced tables, manifest sync): a metastore JVM start is ~15 s here.
    Each module keeps to databases of its own. (The lock-provider tests start their own: a lock
    service changes the metastore's configuration.)"""
    from hudi_sql.engine.session import child_process_env

    work = tmp_path_factory.mktemp("hive-metastore")
    port, process, log = start_hive_metastore(work, child_process_env())
    try:
        wait_for_port(port, process, log, 180)
        yield HiveMetastore(f"thrift://127.0.0.1:{port}", port)
    finally:
        stop_process_group(process)


@pytest.fixture(scope="session")
def object_store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """One S3-compatible store (SeaweedFS on loopback, bucket ``lake``) for every module whose tables
    live in a bucket; each keeps to a prefix of its own. Skips with the build's reason where
    ``tools/s3/setup.sh`` could not build it."""
    from tools.s3.seaweedfs import start_object_store, unavailable_reason

    reason = unavailable_reason()
    if reason:
        pytest.skip(reason)
    server = start_object_store(tmp_path_factory.mktemp("object-store"))
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def s3_spark(spark: Any, object_store: Any) -> Iterator[Any]:
    """The shared session with the S3 store's Hadoop keys set, as a Spark user sets them
    (``spark.hadoop.fs.s3a.*``), and unset afterwards."""
    for key, value in object_store.hadoop_keys.items():
        spark.conf.set(key, value)
    try:
        yield spark
    finally:
        for key in object_store.hadoop_keys:
            spark.conf.unset(key)


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
