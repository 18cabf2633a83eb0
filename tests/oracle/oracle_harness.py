"""Apache Hudi 0.15 (Spark 3.5) as the oracle: the driver process, and comparing its rows with ours.

``tools/oracle/setup.sh`` (run by ``.ci/run``) prepares a virtualenv with PySpark 3.5 and the
Hudi Spark bundle in the user's cache folder; ``tools/oracle/driver.py`` runs there as a
subprocess and answers JSON steps over pipes. Tests marked ``oracle`` skip with the setup
script's reason only when it recorded one (no Java, no download).
"""

from __future__ import annotations

import importlib.util
import json
import os
import select
import signal
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
DRIVER = ROOT / "tools" / "oracle" / "driver.py"
START_TIMEOUT_S = 240
STEP_TIMEOUT_S = 300
# Variables that point a Spark launcher at our Spark 4; the oracle must find its own 3.5.
FOREIGN_ENV = ("SPARK_HOME", "PYSPARK_PYTHON", "PYSPARK_DRIVER_PYTHON", "PYTHONPATH", "VIRTUAL_ENV",
                "PYSPARK_SUBMIT_ARGS", "SPARK_CONF_DIR", "HADOOP_CONF_DIR")


def oracle_dir() -> Path:
    override = os.environ.get("HUDI_ORACLE_DIR")
    if override:
        return Path(override)
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache) / "hudi-sql" / "oracle"


def _load_render() -> Any:
    """The driver's value rendering, so both engines' rows are compared in one form."""
    spec = importlib.util.spec_from_file_location("hudi_oracle_driver", DRIVER)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.render


render = _load_render()


class OracleError(AssertionError):
    """Apache Hudi refused a step; the message is its exception."""

    def __init__(self, response: dict[str, Any]) -> None:
        causes = "".join(f"\n  caused by: {c}" for c in (response.get("causes") or [])[:4])
        super().__init__(f"Apache Hudi failed at step {response.get('step')}: {response.get('error')}{causes}")
        self.response = response


@dataclass
class Tally:
    """What the oracle tests compared, for the summary test."""

    table_reads: list[str] = field(default_factory=list)
    script_steps: list[str] = field(default_factory=list)
    generated_steps: list[int] = field(default_factory=list)  # per generated scenario, its steps run


TALLY = Tally()


class Oracle:
    """The running Apache Hudi driver: ``run(steps)`` returns one result per step."""

    def __init__(self, process: subprocess.Popen[str], log: Path, info: dict[str, Any]) -> None:
        self.process = process
        self.log = log
        self.info = info
        self._in_flight: Pending | None = None

    def request(self, steps: list[dict[str, Any]]) -> dict[str, Any]:
        return self.begin(steps).response()

    def begin(self, steps: list[dict[str, Any]]) -> Pending:
        """Send *steps* and return at once: Apache Hudi works on them in its own JVM while this
        process does our side of the same step (the two engines overlap on the two cores instead of
        taking turns); :meth:`Pending.results` waits for the answer. One request is in flight at a
        time: an answer nobody read (a test failed before reading it) is read here first, so the next
        answer is this request's."""
        assert self.process.stdin and self.process.stdout
        if self._in_flight is not None and not self._in_flight.answered:
            self._in_flight.response()
        if self.process.poll() is not None:
            raise RuntimeError(f"the oracle driver exited ({self.process.returncode}); see {self.log}")
        self.process.stdin.write(json.dumps({"steps": steps}) + "\n")
        self.process.stdin.flush()
        self._in_flight = Pending(self)
        return self._in_flight

    def run(self, steps: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Results of *steps*, or :class:`OracleError` naming the step Apache Hudi refused."""
        return self.begin(steps).results()

    def sql(self, text: str) -> dict[str, Any]:
        return self.run([{"sql": text}])[0]

    def python(self, code: str, **variables: Any) -> dict[str, Any]:
        """Run a PySpark snippet in Apache Hudi's session (``spark`` and *variables* in scope)."""
        return self.run([{"python": code, "vars": variables}])[0]

    def read(self, path: str | Path, options: dict[str, Any] | None = None) -> dict[str, Any]:
        return self.run([{"read": {"path": str(path), "options": dict(options or {})}}])[0]


class Pending:
    """Apache Hudi's answer to a request sent with :meth:`Oracle.begin`, read once when asked for."""

    def __init__(self, oracle: Oracle) -> None:
        self._oracle = oracle
        self._response: dict[str, Any] | None = None

    def response(self) -> dict[str, Any]:
        if self._response is None:
            line = read_line(self._oracle.process, STEP_TIMEOUT_S, self._oracle.log)
            self._response = json.loads(line)
        return self._response

    @property
    def answered(self) -> bool:
        return self._response is not None

    def results(self) -> list[dict[str, Any]]:
        """Results of the steps, or :class:`OracleError` naming the step Apache Hudi refused."""
        response = self.response()
        if "error" in response:
            raise OracleError(response)
        return response["results"]


def read_line(process: subprocess.Popen[str], timeout: float, log: Path) -> str:
    assert process.stdout
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        ready, _, _ = select.select([process.stdout], [], [], 1.0)
        if ready:
            line = process.stdout.readline()
            if not line:
                raise RuntimeError(f"the oracle driver closed its output; see {log}")
            return line
        if process.poll() is not None:
            raise RuntimeError(f"the oracle driver exited ({process.returncode}); see {log}")
    raise TimeoutError(f"no answer from the oracle driver in {timeout:.0f} s; see {log}")


def stop_driver(process: subprocess.Popen[str]) -> None:
    """Close its input (it stops Spark and exits), then end its process group by id if it lingers."""
    try:
        if process.stdin:
            process.stdin.close()
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


# --- comparing the two engines ------------------------------------------------------------------

def ours(df: Any) -> dict[str, Any]:
    """Our DataFrame in the driver's result form (columns + rendered rows)."""
    return {"columns": list(df.columns), "rows": [[render(v) for v in row] for row in df.collect()]}


def ours_or_error(db: Any, statement: str) -> dict[str, Any] | str:
    """Our result of one SQL statement, or the refusal as text (a refusal is compared, not raised)."""
    try:
        return ours(db.sql(statement))
    except Exception as exc:  # noqa: BLE001 - a refusal is a result to compare, not a crash
        return f"{type(exc).__name__}: {exc}"


def side_by_side(db: Any, ours_statement: str, oracle: Oracle,
                 theirs_statement: str) -> tuple[dict[str, Any] | str, dict[str, Any] | str]:
    """Our result of *ours_statement* and Apache Hudi's of *theirs_statement* (each a refusal as text),
    the two run at once: Apache Hudi's JVM works on its statement while ours runs here."""
    pending = oracle.begin([{"sql": theirs_statement}])
    mine = ours_or_error(db, ours_statement)
    try:
        return mine, pending.results()[0]
    except OracleError as exc:
        return mine, str(exc.response.get("error"))


def as_records(result: dict[str, Any], columns: list[str] | None = None) -> list[str]:
    """Rows as sorted JSON objects (order-free comparison, one diffable line per row)."""
    cols = columns or result["columns"]
    index = {c: i for i, c in enumerate(result["columns"])}
    records = [json.dumps({c: row[index[c]] for c in cols}, sort_keys=True) for row in result["rows"]]
    return sorted(records)


def assert_same_rows(mine: dict[str, Any], theirs: dict[str, Any], *, what: str,
                     tally: list[str] | None = None) -> None:
    """Same columns (as a set) and the same multiset of rows; counted in *tally* when equal.

    The failure message lists the rows only one side has (a few of each), which is the
    difference to write down in docs/compatibility.md.
    """
    assert sorted(mine["columns"]) == sorted(theirs["columns"]), (
        f"{what}: columns differ: ours only {sorted(set(mine['columns']) - set(theirs['columns']))}, "
        f"Apache Hudi only {sorted(set(theirs['columns']) - set(mine['columns']))}")
    a, b = as_records(mine), as_records(theirs, mine["columns"])
    if a != b:
        only_ours = [r for r in a if r not in b][:3]
        only_theirs = [r for r in b if r not in a][:3]
        raise AssertionError(f"{what}: rows differ ({len(a)} ours, {len(b)} Apache Hudi's)\n"
                             f"  only ours: {only_ours}\n  only Apache Hudi's: {only_theirs}")
    (TALLY.table_reads if tally is None else tally).append(what)


def only_columns(result: dict[str, Any], columns: list[str]) -> dict[str, Any]:
    """*result* cut down to *columns*, in that order (the data columns, meta columns left out).

    A result without rows may lack them: a table whose only commit was rolled back has no schema
    to read, and each engine answers with what it knows (Apache Hudi 1.x no columns, hudi-sql the
    meta columns); no rows is all there is to compare."""
    if not result["rows"]:
        return {"columns": list(columns), "rows": []}
    index = [result["columns"].index(c) for c in columns]
    return {"columns": list(columns), "rows": [[row[i] for i in index] for row in result["rows"]]}


def snapshot_disagreements(spark: Any, oracle: Oracle, mine: Path, theirs: Path, columns: list[str], *,
                           what: str, read_options: dict[str, str] | None = None,
                           apache_reads_ours: bool = True, we_read_theirs: bool = False) -> list[str]:
    """Our snapshot of our table against Apache Hudi's snapshots of its own table and (with
    *apache_reads_ours*) of ours, and (with *we_read_theirs*) our snapshot of Apache Hudi's table,
    on *columns*: how each differs (empty when they agree)."""
    options = dict(read_options or {})
    paths = [theirs, mine] if apache_reads_ours else [theirs]
    pending = oracle.begin([{"read": {"path": str(path), "options": options}} for path in paths])
    our_own = only_columns(ours(spark.read.format("hudi").load(str(mine))), columns)
    readings = [("our table read by us", our_own)]
    if we_read_theirs:
        readings.append(("Apache Hudi's table read by us",
                         only_columns(ours(spark.read.format("hudi").load(str(theirs))), columns)))
    answers = pending.results()
    readings += zip(("Apache Hudi's table", "our table read by Apache Hudi"), answers, strict=False)
    failures = []
    for whose, other in readings[1:]:
        try:
            assert_same_rows(our_own, only_columns(other, columns), what=f"{what}: {whose}")
        except AssertionError as exc:
            failures.append(str(exc))
    return failures
