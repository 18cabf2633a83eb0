"""The embedded default SparkSession: the only place hudi-sql creates one.

Out of the box hudi-sql runs on local Spark with an embedded Derby metastore kept in a state
folder (``$HUDI_SQL_HOME``, default ``~/.hudi-sql``), never in the current directory, the UI
off and every socket on loopback. Python workers run the driver's interpreter, because the
Arrow paths need pyarrow and pandas in the worker (the system ``python3`` may lack them).
"""

from __future__ import annotations

__all__ = ["REMOTE_WAREHOUSE_CONF", "child_process_env", "default_state_dir", "prepare_environment", "register",
           "spark_session"]

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hudi_sql.engine.datasource import register_datasource
from hudi_sql.engine.format_hook import install
from hudi_sql.storage.uri import is_local, qualify

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


def default_state_dir() -> Path:
    return Path(os.environ.get("HUDI_SQL_HOME", Path.home() / ".hudi-sql")).expanduser().resolve()


def prepare_environment() -> None:
    """Process environment every Spark process of ours needs; call before the JVM starts."""
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    # Executors import hudi_sql from the same place the driver does.
    root = str(Path(__file__).resolve().parents[2])
    paths = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    if root not in paths:
        os.environ["PYTHONPATH"] = os.pathsep.join([root, *paths])


def child_process_env() -> dict[str, str]:
    """The environment for a Python child process that starts a Spark session of its own (a
    benchmark worker, a writer process, a plain Spark session in a test): this environment,
    loopback only, its Python workers on this interpreter, and hudi-sql importable by it and
    its workers from where this process imports it (what a wheel install gives)."""
    env = dict(os.environ)
    env["SPARK_LOCAL_IP"] = "127.0.0.1"
    root = str(Path(__file__).resolve().parents[2])
    env["PYTHONPATH"] = os.pathsep.join([root, env.get("PYTHONPATH", "")])
    env["PYSPARK_PYTHON"] = sys.executable
    return env


#: Where managed Hudi tables go when the warehouse is on an object store (``<it>/<table>`` in the
#: ``default`` database, ``<it>/<db>.db/<table>`` elsewhere, as Spark lays out its warehouse).
REMOTE_WAREHOUSE_CONF = "spark.hudi_sql.warehouse.dir"


def spark_session(
    *,
    master: str | None = None,
    state_dir: str | os.PathLike[str] | None = None,
    warehouse: str | os.PathLike[str] | None = None,
    metastore_uris: str | None = None,
    app_name: str = "hudi-sql",
    conf: dict[str, Any] | None = None,
    spark: SparkSession | None = None,
) -> SparkSession:
    """The embedded default session, or *spark* with hudi-sql registered on it.

    Args:
        master: Spark master URL; default ``local[*]``.
        state_dir: folder for the Derby metastore and, by default, the warehouse.
        warehouse: where managed tables live; default ``<state_dir>/warehouse``.
        metastore_uris: a thrift Hive metastore to use instead of the embedded one.
        app_name: Spark application name.
        conf: further Spark settings (win over the defaults).
        spark: an existing session; it only gets the ``hudi`` format registered.
    """
    if spark is not None:
        register(spark)
        return spark
    prepare_environment()
    from pyspark.sql import SparkSession

    state = Path(state_dir).expanduser().resolve() if state_dir else default_state_dir()
    state.mkdir(parents=True, exist_ok=True)
    # A local warehouse is made absolute. One on an object store (s3a://lake/wh) holds the managed
    # Hudi tables only (REMOTE_WAREHOUSE_CONF, read by the catalog): the metastore keeps its own
    # folders on the local disk, since it makes them through Hadoop's file system, which has no
    # connector for the store unless the user added one (hadoop-aws).
    remote = qualify(str(warehouse)) if warehouse and not is_local(warehouse) else None
    wh = state / "warehouse" if remote or not warehouse else Path(warehouse).expanduser().resolve()
    settings: dict[str, Any] = {
        "spark.ui.enabled": "false",
        "spark.driver.host": "127.0.0.1",
        "spark.driver.bindAddress": "127.0.0.1",
        "spark.sql.warehouse.dir": str(wh),
        "spark.sql.shuffle.partitions": "4",
        "spark.sql.session.timeZone": "UTC",
        "spark.sql.execution.arrow.pyspark.enabled": "true",
        # the `hudi` Python data source skips files by the filters Spark pushes to it
        "spark.sql.python.filterPushdown.enabled": "true",
        "spark.hadoop.javax.jdo.option.ConnectionURL": f"jdbc:derby:;databaseName={state / 'metastore_db'};create=true",
        "spark.hadoop.datanucleus.schema.autoCreateAll": "true",
        "spark.hadoop.hive.metastore.schema.verification": "false",
        "spark.driver.extraJavaOptions": f"-Dderby.system.home={state}",
        "spark.executorEnv.PYTHONPATH": os.environ["PYTHONPATH"],
        "spark.pyspark.python": sys.executable,
        "spark.pyspark.driver.python": sys.executable,
    }
    if remote:
        settings[REMOTE_WAREHOUSE_CONF] = remote
    if metastore_uris:
        settings["spark.hadoop.hive.metastore.uris"] = metastore_uris
    settings.update(conf or {})
    builder = SparkSession.builder.master(master or "local[*]").appName(app_name)
    for key, value in settings.items():
        builder = builder.config(key, str(value))
    session = builder.enableHiveSupport().getOrCreate()
    session.sparkContext.setLogLevel("ERROR")
    register(session)
    return session


def register(spark: SparkSession) -> None:
    """Make ``spark.read.format("hudi")`` / ``df.write.format("hudi")`` use hudi-sql."""
    install(spark)
    register_datasource(spark)
