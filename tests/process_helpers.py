"""Servers and processes the tests start themselves: a free loopback port, waiting for a
server to listen, and stopping a process with the process group it was started in."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from pathlib import Path
from typing import Any


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def wait_for_port(port: int, proc: subprocess.Popen[Any], log: Path, timeout: float) -> None:
    """Return once 127.0.0.1:*port* accepts connections; fail with the tail of *log* if *proc*
    exits first or *timeout* seconds pass."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"process {proc.pid} exited ({proc.returncode}):\n{log.read_text()[-3000:]}")
        try:
            socket.create_connection(("127.0.0.1", port), 1).close()
            return
        except OSError:
            time.sleep(0.5)
    raise RuntimeError(f"port {port} not open after {timeout}s:\n{log.read_text()[-3000:]}")


def stop_process_group(proc: subprocess.Popen[Any]) -> None:
    """Stop a process started with ``start_new_session=True``, then the rest of its process group
    (the JVM a PySpark process spawns)."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
