"""The interactive ``hudi-sql`` shell on a pseudo-terminal, as a ``spark-sql`` user drives it:
Ctrl-C cancels a running statement, Spark's progress bar shows (not with ``--silent``), Tab
completes table and column names, an error prints once, Ctrl-D leaves, and a multi-line
statement is one history entry.

Each test session is a real ``hudi-sql`` process (stdlib ``pty``; stopped by pid).
"""

from __future__ import annotations

import os
import pty
import re
import select
import shutil
import signal
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

pytestmark = [pytest.mark.spark, pytest.mark.processes]

PROJECT = Path(__file__).resolve().parents[2]
PROMPT = "hudi-sql> "
STARTUP_S = 240
STATEMENT_S = 180
# reflect() of a void method is the string 'null'. Sleeps 2 ms per row in each of two tasks
# (about 1 s a stage), then shuffles: two stages.
MULTI_STAGE = (
    "SELECT id % 7 AS k, count(*) AS n FROM range(0, 1000, 1, 2) "
    "WHERE reflect('java.lang.Thread', 'sleep', bigint(2)) IS NOT NULL GROUP BY 1 ORDER BY 1;"
)
# 100 ms per row: hours, unless cancelled.
ENDLESS = "SELECT count(*) FROM range(0, 100000, 1, 2) WHERE reflect('java.lang.Thread', 'sleep', bigint(100)) IS NOT NULL;"


class Terminal:
    """A ``hudi-sql`` process on a pseudo-terminal: send keys, wait for output."""

    def __init__(self, args: list[str], env: dict[str, str], cwd: Path) -> None:
        command = [shutil.which("hudi-sql")] if shutil.which("hudi-sql") else [sys.executable, "-m", "hudi_sql.apps.cli"]
        argv = [str(c) for c in command] + args
        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # the child
            os.chdir(cwd)
            os.execvpe(argv[0], argv, env)
        self.output = ""
        self._seen = 0

    def send(self, keys: str) -> None:
        os.write(self.fd, keys.encode())

    def expect(self, pattern: str, timeout: float = STATEMENT_S) -> str:
        """The output since the last match, up to and including the first match of *pattern*."""
        regex = re.compile(pattern)
        deadline = time.monotonic() + timeout
        while True:
            match = regex.search(self.output, self._seen)
            if match:
                chunk = self.output[self._seen : match.end()]
                self._seen = match.end()
                return chunk
            if time.monotonic() > deadline or not self._read(1.0):  # timed out, or the process ended
                raise AssertionError(f"no {pattern!r} in:\n{self.output[self._seen:][-3000:]}")

    def _read(self, wait: float) -> bool:
        ready, _, _ = select.select([self.fd], [], [], wait)
        if not ready:
            return True
        try:
            data = os.read(self.fd, 65536)
        except OSError:  # the process ended
            return False
        self.output += data.decode(errors="replace").replace("\r\n", "\n")
        return bool(data)

    def run(self, statement: str) -> str:
        """Types *statement* (ending with ;) and returns its output up to the next prompt."""
        self.send(statement + "\n")
        return self.expect(re.escape(PROMPT))

    def exit_status(self) -> int:
        while self._read(0.5):
            pass
        _, status = os.waitpid(self.pid, 0)
        return os.waitstatus_to_exitcode(status)

    def stop(self) -> None:
        try:
            os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
        except (ProcessLookupError, ChildProcessError):
            pass
        os.close(self.fd)


def threads_taking_sigint(pid: int) -> list[int]:
    """The threads of process *pid* that do not block SIGINT (Linux ``/proc``)."""
    takers = []
    for task in sorted(Path(f"/proc/{pid}/task").iterdir(), key=lambda t: int(t.name)):
        try:
            status = (task / "status").read_text()
        except FileNotFoundError:  # the thread ended meanwhile
            continue
        blocked = re.search(r"^SigBlk:\s*([0-9a-f]+)$", status, re.MULTILINE)
        assert blocked is not None
        if not int(blocked.group(1), 16) & (1 << (signal.SIGINT - 1)):
            takers.append(int(task.name))
    return takers


def start(tmp_path: Path, *extra: str) -> Terminal:
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(PROJECT), os.environ.get("PYTHONPATH", "")]),
        "HUDI_SQL_HOME": str(tmp_path / "home"),
        "HUDI_SQL_HISTFILE": str(tmp_path / "history"),
        "SPARK_LOCAL_IP": "127.0.0.1",
        "TERM": "xterm",
    }
    args = ["--master", "local[2]", "--warehouse", str(tmp_path / "wh"),
            "--conf", "spark.sql.shuffle.partitions=2", *extra]
    terminal = Terminal(args, env, tmp_path)
    terminal.expect(re.escape(PROMPT), STARTUP_S)
    return terminal


@pytest.fixture(scope="module")
def shell(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Terminal]:
    terminal = start(tmp_path_factory.mktemp("tty"))
    try:
        out = terminal.run("CREATE TABLE shelltab (id INT, amount DOUBLE) USING hudi TBLPROPERTIES (primaryKey = 'id');")
        assert "Error" not in out, out
        yield terminal
    finally:
        terminal.stop()


def test_shell_ctrl_c_cancels_running_statement_and_next_statement_works(shell: Terminal) -> None:
    shell.send(ENDLESS + "\n")
    shell.expect(r"\[Stage \d+:")  # the job is running
    shell.send("\x03")
    out = shell.expect(re.escape(PROMPT))
    assert "Statement cancelled" in out and "Traceback" not in out
    assert "| 42     |" in shell.run("SELECT 42 AS answer;")


def test_shell_ctrl_c_at_prompt_drops_the_typed_statement(shell: Terminal) -> None:
    # Ctrl-C must reach the main thread, asleep in readline: no other thread may take SIGINT.
    assert threads_taking_sigint(shell.pid) == [shell.pid]
    shell.send("SELECT no_such_column_typed_then_dropped")
    # As a person does: Ctrl-C a moment after the typed text shows. (CPython notices a SIGINT
    # at the prompt only when it interrupts readline's select(); one that lands in the few
    # microseconds between readline echoing keys and that select() waits for the next key.)
    shell.expect("typed_then_dropped")
    time.sleep(0.3)
    shell.send("\x03")
    shell.expect(re.escape(PROMPT))
    out = shell.run("SELECT 'fresh' AS s;")
    assert "| fresh |" in out and "Error" not in out


def test_shell_multi_stage_query_shows_progress_bar(shell: Terminal) -> None:
    out = shell.run(MULTI_STAGE)
    assert re.search(r"\[Stage \d+:", out), out
    assert "Fetched 7 row(s)" in out


def test_shell_tab_completes_table_name_and_column_name(shell: Terminal) -> None:
    shell.send("SELECT shelltab.amo\t FROM shell\t;\n")
    out = shell.expect(re.escape(PROMPT))
    assert "| amount |" in out and "Fetched 0 row(s)" in out and "Error" not in out


def test_shell_analysis_error_prints_once_without_java_frames(shell: Terminal) -> None:
    out = shell.run("SELECT missing_col FROM shelltab;")
    assert out.count("Error: ") == 1 and "[UNRESOLVED_COLUMN" in out
    assert "\tat " not in out and "at org.apache" not in out and "Traceback" not in out
    assert "__hudi_" not in out and '"level"' not in out
    out = shell.run("SELECT * FROM nope_table;")
    assert out.count("Error: ") == 1 and "nope_table" in out


def test_shell_silent_shows_no_progress_and_ctrl_d_exits_saving_history(tmp_path: Path) -> None:
    terminal = start(tmp_path, "--silent")
    try:
        out = terminal.run(MULTI_STAGE)
        assert "|" in out and "[Stage" not in out and "Time taken" not in out
        terminal.send("SELECT 1\n")
        terminal.send("  AS two_lines;\n")
        terminal.expect(re.escape(PROMPT))
        terminal.send("\x04")
        assert terminal.exit_status() == 0
    finally:
        terminal.stop()
    assert "SELECT 1 AS two_lines;" in (tmp_path / "history").read_text().splitlines()
