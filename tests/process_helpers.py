"""Servers and processes the tests start themselves: a free loopback port, a standalone Hive
metastore from the PySpark wheel's jars, waiting for a server to listen, and stopping a process
with the process group it was started in."""

from __future__ import annotations

import os
import shlex
import signal
import socket
import subprocess
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple

_HIVE_SITE = """<?xml version="1.0"?>
<configuration>
<property><name>javax.jdo.option.ConnectionURL</name><value>jdbc:derby:;databaseName={db};create=true</value></property>
<property><name>hive.metastore.warehouse.dir</name><value>{wh}</value></property>
<property><name>datanucleus.schema.autoCreateAll</name><value>true</value></property>
<property><name>hive.metastore.schema.verification</name><value>false</value></property>
{extra}</configuration>
"""

#: What a metastore needs to serve table locks: Hive's transaction tables (which
#: ``schematool -initSchema`` creates on a real metastore; ``hive.in.test`` makes this Derby one
#: create them at start) and a connection pool whose jar the wheel ships (HikariCP; Hive's
#: default BoneCP is not in it).
_LOCK_SERVICE = """<property><name>hive.support.concurrency</name><value>true</value></property>
<property><name>hive.txn.manager</name><value>org.apache.hadoop.hive.ql.lockmgr.DbTxnManager</value></property>
<property><name>hive.in.test</name><value>true</value></property>
<property><name>datanucleus.connectionPoolingType</name><value>HikariCP</value></property>
"""


class HiveMetastore(NamedTuple):
    """A running standalone metastore: its thrift URI and port."""

    uri: str
    port: int


def session_spark_conf() -> list[str]:
    """The ``--conf`` options this test session gives PySpark's JVMs (``PYSPARK_SUBMIT_ARGS``,
    ``tests/conftest.py``), for Spark's own launcher scripts (``spark-sql``), which do not read it."""
    return [arg for arg in shlex.split(os.environ.get("PYSPARK_SUBMIT_ARGS", "")) if arg != "pyspark-shell"]


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


def descendants(pid: int) -> list[int]:
    """Every process below *pid* (PySpark's worker daemon leaves the driver's process group)."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as fh:
                    ppid = int(fh.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(entry))
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def kill_tree(pid: int) -> None:
    """SIGKILL *pid* and every process below it, at once (a killed machine, as the crash tests need)."""
    for target in [pid, *descendants(pid)]:
        try:
            os.kill(target, signal.SIGKILL)
        except ProcessLookupError:
            pass


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


def start_hive_metastore(work: Path, env: dict[str, str], *, locks: bool = False,
                         extra_jars: Sequence[str] = (), site: Mapping[str, str] | None = None,
                         ) -> tuple[int, subprocess.Popen[Any], Path]:
    """A Hive metastore (``HiveMetaStore`` from the PySpark wheel's jars, Derby under *work*) on a
    free loopback port: ``(port, process, log)``; with *locks*, one that serves table locks; with
    *extra_jars* on its classpath and *site* in its ``hive-site.xml`` (Hadoop's S3A connector and
    keys, for tables whose location is in a bucket). The caller stops it
    (:func:`stop_process_group`) and waits for it (:func:`wait_for_port`)."""
    from xml.sax.saxutils import escape

    import pyspark

    conf = work / "conf"
    conf.mkdir()
    extra = (_LOCK_SERVICE if locks else "") + "".join(
        f"<property><name>{escape(k)}</name><value>{escape(v)}</value></property>\n" for k, v in (site or {}).items())
    (conf / "hive-site.xml").write_text(_HIVE_SITE.format(db=work / "metastore_db", wh=work / "wh", extra=extra))
    port = free_port()
    jars = os.pathsep.join([str(Path(pyspark.__file__).resolve().parent / "jars" / "*"), *extra_jars])
    log = work / "metastore.log"
    proc = subprocess.Popen(
        ["java", "-Dlog4j2.contextSelector=org.apache.logging.log4j.core.selector.ClassLoaderContextSelector",
         f"-Dderby.system.home={work}", "-cp", f"{conf}{os.pathsep}{jars}",
         "org.apache.hadoop.hive.metastore.HiveMetaStore", "-p", str(port)],
        cwd=work, stdout=log.open("w"), stderr=subprocess.STDOUT, env=env, start_new_session=True)
    return port, proc, log
