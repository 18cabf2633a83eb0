"""dbt on Hudi tables: dbt-core and dbt-spark run ``tests/integration/dbt_project`` twice, the seed
changed in between, and every model holds what its materialization promises: ``table`` (the
seed), ``view`` (a filter of it, fresh), ``incremental`` with ``merge`` (upserted by key),
``append`` (newer rows added) and ``insert_overwrite`` (the partitions written replaced, the
others kept). Both of dbt-spark's methods:

* ``thrift``: dbt talks to hudi-sql's thriftserver (a process of its own, stopped by process id);
* ``session``: ``hudi-sql dbt``'s entry point runs dbt in-process on the embedded default
  session (``$HUDI_SQL_HOME`` in a temp folder), its statements through hudi-sql, twice in one
  Python process (as a scheduler driving dbt would); the results are read back by a hudi-sql
  session on that same embedded session after each run.

dbt runs from virtualenvs of its own (``tools/dbt/setup.sh``, which ``.ci/run`` calls); without
them the test skips with the reason the setup recorded.
"""

from __future__ import annotations

import json
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

from hudi_sql.engine.session import child_process_env

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


def _dbt_flags(project: Path) -> list[str]:
    return ["--project-dir", str(project), "--profiles-dir", str(project)]


def _seed_csv(rides: list[Ride]) -> str:
    return "\n".join(["id,rider,fare,ts", *(f"{i},{r},{f},{t}" for i, r, f, t in rides)]) + "\n"


def _seed_path(project: Path) -> Path:
    return project / "seeds" / "rides.csv"


def _write_seed(project: Path, csv: str) -> None:
    _seed_path(project).parent.mkdir(exist_ok=True)
    _seed_path(project).write_text(csv)


def _thrift_runs(project: Path, port: int, seeds: list[str]) -> list[dict[str, list[tuple[Any, ...]]]]:
    """``dbt build`` (a process of its own, talking to the thriftserver) once per seed; the models
    read back through the thriftserver after each run."""
    results = []
    for csv in seeds:
        _write_seed(project, csv)
        out = subprocess.run([str(_dbt()), "build", *_dbt_flags(project)], cwd=project, capture_output=True,
                             text=True, timeout=900, check=False,
                             env={**child_process_env(), "DBT_SEND_ANONYMOUS_USAGE_STATS": "false"})
        assert out.returncode == 0, out.stdout[-6000:] + out.stderr[-2000:]
        results.append({name: _thrift_rows(port, sql) for name, sql in _queries().items()})
    return results


def _thrift_rows(port: int, sql: str) -> list[tuple[Any, ...]]:
    from pyhive import hive

    connection = hive.connect(host="127.0.0.1", port=port, username="test")
    try:
        cursor = connection.cursor()
        cursor.execute(sql)
        return sorted(tuple(r) for r in cursor.fetchall())
    finally:
        connection.close()


# The session method in one process, as a scheduler running dbt nightly in a long-lived Python
# would: ``hudi-sql dbt``'s entry point (``main``) once per seed, and the models read back by a
# hudi-sql session on the same embedded session after each run (one JVM start, not four).
_SESSION_RUNS = r"""
import json, sys
from pathlib import Path
import hudi_sql
from hudi_sql.apps.dbt_session import main
seed, seeds, flags, queries = Path(sys.argv[1]), *(json.loads(a) for a in sys.argv[2:5])
for csv in seeds:
    seed.write_text(csv)
    status = main(["build", *flags])
    if status != 0:
        sys.exit(status)
    session = hudi_sql.connect(hudi_sql.spark_session())
    print("RESULT " + json.dumps({n: [list(r) for r in session.sql(q).collect()] for n, q in queries.items()},
                                 default=str), flush=True)
"""


def _session_runs(project: Path, home: Path, seeds: list[str]) -> list[dict[str, list[tuple[Any, ...]]]]:
    python = str(DBT_DIR / "session-venv" / "bin" / "python")
    env = {**child_process_env(), "DBT_SEND_ANONYMOUS_USAGE_STATS": "false", "HUDI_SQL_HOME": str(home),
           "PYSPARK_PYTHON": python}
    _seed_path(project).parent.mkdir(exist_ok=True)  # the process writes each seed before its build
    out = subprocess.run([python, "-c", _SESSION_RUNS, str(_seed_path(project)), json.dumps(seeds),
                          json.dumps(_dbt_flags(project)), json.dumps(_queries())],
                         cwd=project, capture_output=True, text=True, timeout=900, check=False, env=env)
    results = [{n: sorted(tuple(r) for r in rows) for n, rows in json.loads(line[len("RESULT "):]).items()}
               for line in out.stdout.splitlines() if line.startswith("RESULT ")]
    assert out.returncode == 0 and len(results) == len(seeds), out.stdout[-6000:] + out.stderr[-3000:]
    return results


MODELS = ("rides_table", "rides_merged", "rides_appended", "rides_by_ts")


def _queries() -> dict[str, str]:
    queries = {m: f"SELECT id, rider, fare, ts FROM {SCHEMA}.{m}" for m in MODELS}
    queries["dear_rides"] = f"SELECT id, rider, fare FROM {SCHEMA}.dear_rides"
    queries["commits"] = f"CALL show_commits(table => '{SCHEMA}.rides_merged')"
    return queries


def _profile(method: str, port: int | None) -> str:
    target = (f"      method: thrift\n      host: 127.0.0.1\n      port: {port}\n      user: dbt\n"
              if method == "thrift" else "      method: session\n      host: NA\n")
    return (f"hudi_rides:\n  target: dev\n  outputs:\n    dev:\n      type: spark\n{target}"
            f"      schema: {SCHEMA}\n      threads: 1\n")


@pytest.mark.parametrize("method", ["thrift", "session"])
def test_dbt_table_view_and_incremental_models_on_hudi_tables_over_two_runs(
        method: str, request: pytest.FixtureRequest, tmp_path: Path) -> None:
    _dbt()
    port = request.getfixturevalue("server_port") if method == "thrift" else None
    project = tmp_path / "project"
    shutil.copytree(PROJECT, project)
    (project / "profiles.yml").write_text(_profile(method, port))

    seeds = [_seed_csv(FIRST), _seed_csv(SECOND)]  # dbt build (seed, then the models) once per seed
    first, second = (_thrift_runs(project, port, seeds) if port is not None
                     else _session_runs(project, tmp_path / "hudi-sql-home", seeds))
    for model in MODELS:
        assert first[model] == sorted(FIRST), model
    assert first["dear_rides"] == sorted((i, r, f) for i, r, f, _ in FIRST if f > 8)

    assert second["rides_table"] == sorted(SECOND)
    # The view reads the table as it is now.
    assert second["dear_rides"] == sorted((i, r, f) for i, r, f, _ in SECOND if f > 8)
    # merge: every row with ts >= the table's latest upserted by id.
    merged = {r[0]: r for r in FIRST} | {r[0]: r for r in SECOND if r[3] >= max(t for *_, t in FIRST)}
    assert second["rides_merged"] == sorted(merged.values())
    # append: the newer rows added next to the old versions.
    assert second["rides_appended"] == sorted(FIRST + [r for r in SECOND if r[3] > 1])
    # insert_overwrite: the ts partitions of the second run replaced, the others kept.
    written = {r[3] for r in SECOND}
    assert second["rides_by_ts"] == sorted([r for r in FIRST if r[3] not in written] + SECOND)
    # They are Hudi tables, written in place: the merge model has a commit per run.
    assert len(second["commits"]) > len(first["commits"]) >= 1
