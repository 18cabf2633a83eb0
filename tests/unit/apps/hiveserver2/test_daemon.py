"""``hudi-sql thriftserver --detach`` / ``--stop`` refuse what they cannot do, saying why (no server
started: the README walk-through, ``tests/integration/test_readme.py``, starts and stops a real one)."""

from __future__ import annotations

import io
import os
from pathlib import Path

from hudi_sql.apps.hiveserver2.daemon import detach, stop_detached


def test_stop_without_a_detached_server_is_an_error_naming_the_port(tmp_path: Path) -> None:
    out, err = io.StringIO(), io.StringIO()
    assert stop_detached(10000, str(tmp_path), out, err) == 1
    assert "no hudi-sql thriftserver started with --detach runs on port 10000" in err.getvalue()
    (tmp_path / "thriftserver-10000.pid").write_text("999999999\n")  # a pid no process has
    assert stop_detached(10000, str(tmp_path), out, err) == 1
    assert not (tmp_path / "thriftserver-10000.pid").exists()  # the stale file is cleared


def test_detach_refuses_a_second_server_for_a_port_whose_server_runs(tmp_path: Path) -> None:
    (tmp_path / "thriftserver-10000.pid").write_text(f"{os.getpid()}\n")  # a live process
    out, err = io.StringIO(), io.StringIO()
    assert detach(["--port", "10000"], 10000, str(tmp_path), out, err) == 1
    assert f"is running (pid {os.getpid()})" in err.getvalue() and "--stop" in err.getvalue()
