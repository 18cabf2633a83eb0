"""``hudi-sql thriftserver --detach`` and ``--stop``: the server as a background process.

As Spark's ``start-thriftserver.sh`` / ``stop-thriftserver.sh``: ``--detach`` starts the same
command without it as a process of its own (its own session, so a terminal's Ctrl-C does not
reach it), waits until it listens, and returns, printing where and its pid; its output goes to
``<state dir>/thriftserver-<port>.log`` and its pid to ``thriftserver-<port>.pid`` beside it.
``--stop`` sends that process SIGTERM (the server stops its sessions and Spark, then exits) and
waits for it to end. A server that fails to start is reported with the end of its log.
"""

from __future__ import annotations

__all__ = ["detach", "stop_detached"]

import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import IO

#: How long ``--detach`` waits for the server to listen, and ``--stop`` for it to exit.
START_TIMEOUT_S = 180.0
STOP_TIMEOUT_S = 60.0

_LISTENING = re.compile(r"hudi-sql thriftserver listening on (\S+):(\d+)")


def _files(state_dir: str, port: int) -> tuple[Path, Path]:
    folder = Path(state_dir)
    return folder / f"thriftserver-{port}.pid", folder / f"thriftserver-{port}.log"


def detach(arguments: Sequence[str], port: int, state_dir: str, stdout: IO[str], stderr: IO[str]) -> int:
    """Start ``hudi-sql thriftserver <arguments>`` in the background; 0 once it listens."""
    os.makedirs(state_dir, exist_ok=True)
    pid_path, log_path = _files(state_dir, port)
    running = _running_pid(pid_path)
    if running is not None:
        stderr.write(f"Error: a hudi-sql thriftserver started for port {port} is running (pid {running}); "
                     f"stop it first: hudi-sql thriftserver --port {port} --stop\n")
        return 1
    command = [sys.executable, "-m", "hudi_sql.apps.hiveserver2.cli", *arguments]
    with open(log_path, "w", encoding="utf-8") as log:
        process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                   start_new_session=True)
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        found = _LISTENING.search(log_path.read_text(encoding="utf-8", errors="replace"))
        if found:
            bound = int(found.group(2))
            if bound != port:  # --port 0: the files are named by the port it got
                pid_path, new_log = _files(state_dir, bound)
                os.replace(log_path, new_log)
                log_path = new_log
            pid_path.write_text(f"{process.pid}\n", encoding="utf-8")
            stdout.write(f"hudi-sql thriftserver listening on {found.group(1)}:{bound} "
                         f"(jdbc:hive2://{found.group(1)}:{bound}), pid {process.pid}, log {log_path}; "
                         f"stop it with: hudi-sql thriftserver --port {bound} --stop\n")
            stdout.flush()
            return 0
        if process.poll() is not None:
            tail = log_path.read_text(encoding="utf-8", errors="replace").strip().splitlines()[-15:]
            stderr.write(f"Error: the thriftserver exited with status {process.returncode} before listening; "
                         f"its log ({log_path}) ends:\n" + "\n".join(tail) + "\n")
            return 1
        time.sleep(0.2)
    process.terminate()
    stderr.write(f"Error: the thriftserver did not listen within {START_TIMEOUT_S:.0f} s; it was stopped "
                 f"(log: {log_path})\n")
    return 1


def stop_detached(port: int, state_dir: str, stdout: IO[str], stderr: IO[str]) -> int:
    """Stop the server ``--detach`` started on *port*; 0 once it has exited."""
    pid_path, _ = _files(state_dir, port)
    pid = _running_pid(pid_path)
    if pid is None:
        pid_path.unlink(missing_ok=True)
        stderr.write(f"Error: no hudi-sql thriftserver started with --detach runs on port {port} "
                     f"(no live pid in {pid_path})\n")
        return 1
    os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + STOP_TIMEOUT_S
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.2)
    if _alive(pid):
        stderr.write(f"Error: the thriftserver (pid {pid}) did not exit within {STOP_TIMEOUT_S:.0f} s of SIGTERM\n")
        return 1
    pid_path.unlink(missing_ok=True)
    stdout.write(f"hudi-sql thriftserver on port {port} (pid {pid}) stopped\n")
    return 0


def _running_pid(pid_path: Path) -> int | None:
    try:
        pid = int(pid_path.read_text(encoding="utf-8").strip())
    except (OSError, ValueError):
        return None
    return pid if _alive(pid) else None


def _alive(pid: int) -> bool:
    try:
        waited, _ = os.waitpid(pid, os.WNOHANG)  # our own child: reap it once it exits
        if waited == pid:
            return False
    except ChildProcessError:
        pass  # not our child (another command started it)
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
