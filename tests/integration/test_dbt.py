"""dbt on Hudi tables through hudi-sql's thriftserver: dbt-core and dbt-spark (``method: thrift``)
run ``tests/integration/dbt_project`` twice, the seed changed in between, and every model holds
what its materialization promises: ``table`` (the seed), ``view`` (a filter of it, fresh),
``incremental`` with ``merge`` (upserted by key), ``append`` (newer rows added) and
``insert_overwrite`` (the partitions written replaced, the others kept).

dbt runs from its own virtualenv (``tools/dbt/setup.sh``, which ``.ci/run`` calls); without it the
test skips with the reason the setup recorded. The server is a process of its own, stopped by
process id.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from process_helpers import free_port, stop_process_group

from hudi_sql.spark.session import child_process_env

pytestmark = [pytest.mark.engines]

PROJECT = Path(__file__).resolve().parent / "dbt_project"
DBT_DIR = Path(os.environ.get("HUDI_DBT_DIR") or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
               / "hudi-sql" / "dbt")
SCHEMA = "dbt_rides"
Ride = tuple[int, str, float, int]  # id, rider, fare, ts

FIRST: list[Ride] = [(1, "ann", 10.5, 1), (2, "bo", 20.0, 1), (3, "cy", 7.25, 1)]
SECOND: list[Ride] = [(1, "ann", 5.5, 2), (2, "bo", 20.0, 1), (4, "dee", 30.0, 2)]


def _dbt() -> Path:
    dbt = DBT_DIR / "venv" / "bin" / "dbt"
    if not (DBT_DIR / "READY").exists() or not dbt.exists():
        reason = (DBT_DIR / "UNAVAILABLE").read_text().strip() if (DBT_DIR / "UNAVAILABLE").exists() else \
            f"not set up in {DBT_DIR}"
        pytest.skip(f"dbt unavailable ({reason}); run tools/dbt/setup.sh")
    return dbt


@pytest.fixture(scope="module")
def server_port(tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest) -> Iterator[int]:
    _dbt()
    work = tmp_path_factory.mktemp("dbt-thriftserver")
    port, log = free_port(), work / "server.log"
    proc = subprocess.Popen(
        [sys.executable, "-m", "hudi_sql.apps.hiveserver2.cli", "thriftserver", "--port", str(port),
         "--master", "local[2]", "--state-dir", str(work / "state")],
        cwd=work, env=child_process_env(), stdout=log.open("w"), stderr=subprocess.STDOUT, start_new_session=True)
    request.addfinalizer(lambda: stop_process_group(proc))
    deadline = time.monotonic() + 240
    while "listening on" not in log.read_text() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.5)
    assert "listening on" in log.read_text(), log.read_text()[-3000:]
    yield port


def _run_dbt(project: Path, *args: str) -> None:
    out = subprocess.run([str(_dbt()), *args, "--project-dir", str(project), "--profiles-dir", str(project)],
                         cwd=project, capture_output=True, text=True, timeout=900, check=False,
                         env={**os.environ, "DBT_SEND_ANONYMOUS_USAGE_STATS": "false"})
    assert out.returncode == 0, out.stdout[-6000:] + out.stderr[-2000:]


def _write_seed(project: Path, rides: list[Ride]) -> None:
    lines = ["id,rider,fare,ts", *(f"{i},{r},{f},{t}" for i, r, f, t in rides)]
    (project / "seeds").mkdir(exist_ok=True)
    (project / "seeds" / "rides.csv").write_text("\n".join(lines) + "\n")


def _rows(port: int, sql: str) -> list[tuple[Any, ...]]:
    from pyhive import hive

    connection = hive.connect(host="127.0.0.1", port=port, username="test")
    try:
        cursor = connection.cursor()
        cursor.execute(sql)
        return sorted(tuple(r) for r in cursor.fetchall())
    finally:
        connection.close()


def _model(port: int, name: str) -> list[tuple[Any, ...]]:
    return _rows(port, f"SELECT id, rider, fare, ts FROM {SCHEMA}.{name}")


def test_dbt_table_view_and_incremental_models_on_hudi_tables_over_two_runs(
        server_port: int, tmp_path: Path) -> None:
    project = tmp_path / "project"
    shutil.copytree(PROJECT, project)
    (project / "profiles.yml").write_text(
        "hudi_rides:\n  target: dev\n  outputs:\n    dev:\n      type: spark\n      method: thrift\n"
        f"      host: 127.0.0.1\n      port: {server_port}\n      user: dbt\n      schema: {SCHEMA}\n"
        "      threads: 1\n")

    _write_seed(project, FIRST)
    _run_dbt(project, "seed")
    _run_dbt(project, "run")
    for model in ("rides_table", "rides_merged", "rides_appended", "rides_by_ts"):
        assert _model(server_port, model) == sorted(FIRST), model
    assert _rows(server_port, f"SELECT id, rider, fare FROM {SCHEMA}.dear_rides") == sorted(
        (i, r, f) for i, r, f, _ in FIRST if f > 8)

    _write_seed(project, SECOND)
    _run_dbt(project, "seed")
    _run_dbt(project, "run")
    assert _model(server_port, "rides_table") == sorted(SECOND)
    # The view reads the table as it is now.
    assert _rows(server_port, f"SELECT id, rider, fare FROM {SCHEMA}.dear_rides") == sorted(
        (i, r, f) for i, r, f, _ in SECOND if f > 8)
    # merge: every row with ts >= the table's latest upserted by id.
    merged = {r[0]: r for r in FIRST} | {r[0]: r for r in SECOND if r[3] >= max(t for *_, t in FIRST)}
    assert _model(server_port, "rides_merged") == sorted(merged.values())
    # append: the newer rows added next to the old versions.
    assert _model(server_port, "rides_appended") == sorted(FIRST + [r for r in SECOND if r[3] > 1])
    # insert_overwrite: the ts partitions of the second run replaced, the others kept.
    written = {r[3] for r in SECOND}
    assert _model(server_port, "rides_by_ts") == sorted([r for r in FIRST if r[3] not in written] + SECOND)
    # They are Hudi tables, written in place: the merge model has a commit per run.
    commits = _rows(server_port, f"CALL show_commits(table => '{SCHEMA}.rides_merged')")
    assert len(commits) >= 2
