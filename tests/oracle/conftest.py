"""The ``oracle`` fixture: one Apache Hudi driver process per pytest session, stopped by pid.

``tools/oracle/setup.sh`` (run by ``.ci/run``) prepares a virtualenv with PySpark 3.5 and the
Hudi Spark bundle in the user's cache folder; tests marked ``oracle`` skip with the setup
script's reason only when it recorded one (no Java, no download).
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator

import pytest
from oracle_harness import DRIVER, FOREIGN_ENV, START_TIMEOUT_S, Oracle, oracle_dir, read_line, stop_driver


@pytest.fixture(scope="session")
def oracle(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Oracle]:
    """The session's Apache Hudi driver; skipped with the setup script's reason when unavailable."""
    home = oracle_dir()
    if (home / "UNAVAILABLE").exists():
        pytest.skip(f"Apache Hudi oracle unavailable: {(home / 'UNAVAILABLE').read_text().strip()}")
    if not (home / "READY").exists():
        pytest.skip(f"Apache Hudi oracle not set up in {home}: run tools/oracle/setup.sh")
    ready = dict(line.split("=", 1) for line in (home / "READY").read_text().split())
    state = tmp_path_factory.mktemp("hudi-oracle")
    log = state / "oracle.log"
    env = {k: v for k, v in os.environ.items() if k not in FOREIGN_ENV}
    env["SPARK_LOCAL_IP"] = "127.0.0.1"
    process = subprocess.Popen(
        [str(home / "venv" / "bin" / "python"), str(DRIVER), "--jar", ready["jar"],
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


