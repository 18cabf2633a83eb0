"""The ``oracle`` fixtures: one Apache Hudi driver process per pytest session and version, stopped by pid.

``tools/oracle/setup.sh`` (run by ``.ci/run``) prepares a virtualenv with PySpark 3.5 and the
Hudi 0.15 Spark bundle in the user's cache folder, ``tools/oracle/setup_v1.sh`` adds the bundle
of the latest 1.x release (table version 8) beside it; tests marked ``oracle`` skip with the
setup script's reason only when it recorded one (no Java, no download). ``tools/oracle/setup_s3.sh``
adds Hadoop's S3A connector to both, for the tests that share a bucket with Apache Hudi.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator

import pytest
from oracle_harness import DRIVER, FOREIGN_ENV, START_TIMEOUT_S, Oracle, oracle_dir, read_line, stop_driver


def _driver(tmp_path_factory: pytest.TempPathFactory, suffix: str, setup: str) -> Iterator[Oracle]:
    """Start the driver with the bundle ``READY<suffix>`` names; skip with the reason
    ``UNAVAILABLE<suffix>`` records."""
    home = oracle_dir()
    if (home / f"UNAVAILABLE{suffix}").exists():
        pytest.skip(f"Apache Hudi oracle unavailable: {(home / f'UNAVAILABLE{suffix}').read_text().strip()}")
    if not (home / f"READY{suffix}").exists():
        pytest.skip(f"Apache Hudi oracle not set up in {home}: run {setup}")
    ready = dict(line.split("=", 1) for line in (home / f"READY{suffix}").read_text().split())
    jars = ready["jar"]
    if (home / "READY_S3").exists():  # Hadoop's S3A connector (tools/oracle/setup_s3.sh): the store tests' bucket
        jars += "," + dict(line.split("=", 1) for line in (home / "READY_S3").read_text().split())["jars"]
    state = tmp_path_factory.mktemp(f"hudi-oracle{suffix.lower()}")
    log = state / "oracle.log"
    env = {k: v for k, v in os.environ.items() if k not in FOREIGN_ENV}
    env["SPARK_LOCAL_IP"] = "127.0.0.1"
    process = subprocess.Popen(
        [str(home / "venv" / "bin" / "python"), str(DRIVER), "--jar", jars,
         "--state-dir", str(state), "--log", str(log)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env, start_new_session=True,
    )
    try:
        info = json.loads(read_line(process, START_TIMEOUT_S, log))
        if not info.get("ready"):
            raise RuntimeError(f"the oracle driver did not start: {info.get('error')}; see {log}")
        yield Oracle(process, log, info)
    finally:
        stop_driver(process)


@pytest.fixture(scope="session")
def oracle(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Oracle]:
    """The session's Apache Hudi 0.15 driver (table version 6)."""
    yield from _driver(tmp_path_factory, "", "tools/oracle/setup.sh")


@pytest.fixture(scope="session")
def oracle_v1(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Oracle]:
    """The session's Apache Hudi 1.x driver (table version 8)."""
    yield from _driver(tmp_path_factory, "_V1", "tools/oracle/setup_v1.sh")


@pytest.fixture(scope="module")
def oracle_v9(oracle_v1: Oracle) -> Iterator[Oracle]:
    """The 1.x driver writing SQL at table version 9, Apache Hudi 1.2's default (named, since another
    module may have left the session at 8), reset after the module."""
    oracle_v1.sql("SET hoodie.write.table.version=9")
    yield oracle_v1
    oracle_v1.sql("RESET hoodie.write.table.version")
