"""A class-data-sharing archive of the Spark driver JVM, for the test session's many JVM starts.

Every PySpark process a test starts (writer processes, plain engines, the hudi-sql command and
thriftserver, benchmark systems, dbt's session method) spends its first seconds loading and
verifying the same ~20 000 classes from Spark's jars. A dynamic CDS archive (JDK 13+,
``-XX:ArchiveClassesAtExit`` once, ``-XX:SharedArchiveFile`` after) maps them ready-parsed:
a session start and first write went from 19.1 s to 15.8 s here (2 cores).

The archive is only valid for the JVM and the class path it was made with, so it is cached under a
key of the ``java -version``, the PySpark jars (paths, sizes, modification times: what Java checks)
and the recorded driver, in ``~/.cache/hudi-sql/jvm``. A JVM whose class path differs (another
PySpark install) warns on stderr and runs without it; nothing is ever read differently. Made by
``python -m tools.jvm.class_archive`` (``.ci/run``'s set-up, ~1 minute once); ``tests/conftest.py``
uses it when it is there.

Java's class-path check refuses a non-empty directory on the class path at dump time, and
Spark's launcher puts ``$SPARK_CONF_DIR`` there: the test session passes its Spark settings in
``PYSPARK_SUBMIT_ARGS`` instead, and the dump runs without ``SPARK_CONF_DIR``.
"""

from __future__ import annotations

import hashlib
import os
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

#: The collector of every test JVM (``tests/conftest.py``); the archive is made under it.
GC_OPTION = "-XX:+UseSerialGC"
# JVM log lines (a class path that does not match the archive, say) go to stderr, never into the
# stdout a test reads results from.
_LOG_TO_STDERR = "-Xlog:disable -Xlog:all=warning:stderr"

# What the archived driver does: a hudi-sql session, writes and reads of both table types, and
# SQL statements, so their classes are in the archive.
_TRAINING = r"""
import os, sys
import hudi_sql
from hudi_sql.engine.session import spark_session
work = sys.argv[1]
spark = spark_session(master="local[2]", state_dir=os.path.join(work, "state"),
                      conf={"spark.sql.shuffle.partitions": "2", "spark.ui.enabled": "false"})
options = {"hoodie.table.name": "t", "hoodie.datasource.write.recordkey.field": "id",
           "hoodie.datasource.write.partitionpath.field": "p", "hoodie.datasource.write.precombine.field": "ts"}
rows = spark.createDataFrame([(i, f"n{i}", i, f"p{i % 2}") for i in range(20)], "id int, name string, ts int, p string")
for table_type in ("COPY_ON_WRITE", "MERGE_ON_READ"):
    path = os.path.join(work, table_type)
    write = {**options, "hoodie.datasource.write.table.type": table_type}
    hudi_sql.write(rows, path, {**write, "hoodie.datasource.write.operation": "insert"})
    hudi_sql.write(rows, path, {**write, "hoodie.datasource.write.operation": "upsert"})
    hudi_sql.read(spark, path).collect()
db = hudi_sql.connect(spark)
db.sql("CREATE TABLE s (id INT, v STRING, ts INT) USING hudi TBLPROPERTIES (primaryKey = 'id', preCombineField = 'ts')")
db.sql("INSERT INTO s VALUES (1, 'a', 1), (2, 'b', 1)")
db.sql("UPDATE s SET v = 'c' WHERE id = 1")
db.sql("MERGE INTO s USING (SELECT 3 AS id, 'd' AS v, 2 AS ts) src ON s.id = src.id "
       "WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *")
db.sql("SELECT * FROM s").collect()
spark.stop()
"""


def cache_dir() -> Path:
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "hudi-sql" / "jvm"


def _key() -> str:
    import pyspark

    try:
        java = subprocess.run(["java", "-version"], capture_output=True, text=True, check=False).stderr
    except OSError:  # no Java here: no Spark either, and no archive to find
        java = "none"
    # Java maps the archive only for the very jar files it was dumped with: their paths, sizes and
    # modification times. A fresh virtualenv (every CI run's clone installs one) has the same jars
    # with new times, so those are in the key: the archive is made again rather than refused at
    # every JVM start.
    jars = sorted(f"{p}:{p.stat().st_size}:{p.stat().st_mtime_ns}"
                  for p in (Path(pyspark.__file__).resolve().parent / "jars").glob("*.jar"))
    digest = hashlib.sha256("\n".join([java, pyspark.__version__, *jars, GC_OPTION, _TRAINING]).encode())
    return digest.hexdigest()[:16]


def archive_path() -> Path:
    return cache_dir() / f"spark-driver-{_key()}.jsa"


def driver_java_options() -> str:
    """The options that map the archive into a driver JVM, or ``""`` when there is none yet."""
    archive = archive_path()
    return f"-XX:SharedArchiveFile={archive} {_LOG_TO_STDERR}" if archive.exists() else ""


def build() -> Path | None:
    """Make the archive for this JVM and PySpark unless it exists; its path, or None if the JVM
    could not dump one (the reason is printed; the tests run without it)."""
    archive = archive_path()
    if archive.exists():
        return archive
    archive.parent.mkdir(parents=True, exist_ok=True)
    for old in archive.parent.glob("spark-driver-*.jsa"):  # another JVM's or PySpark's: ~200 MB each
        old.unlink()
    partial = archive.with_suffix(".partial")
    with tempfile.TemporaryDirectory(prefix="hudi-sql-cds-") as work:
        submit = (f"--driver-java-options {shlex.quote(f'{GC_OPTION} -XX:ArchiveClassesAtExit={partial} {_LOG_TO_STDERR}')}"
                  " pyspark-shell")
        env = {k: v for k, v in os.environ.items() if k != "SPARK_CONF_DIR"}
        env.update(PYSPARK_SUBMIT_ARGS=submit, SPARK_LOCAL_IP="127.0.0.1", PYSPARK_PYTHON=sys.executable,
                   PYTHONPATH=os.pathsep.join([str(Path(__file__).resolve().parents[2]), env.get("PYTHONPATH", "")]))
        proc = subprocess.run([sys.executable, "-c", _TRAINING, work], env=env, capture_output=True, text=True,
                              timeout=900, check=False)
    if proc.returncode != 0 or not partial.exists():
        print(f"no JVM class archive (exit {proc.returncode}): {proc.stderr[-2000:]}", file=sys.stderr)
        partial.unlink(missing_ok=True)
        return None
    partial.rename(archive)
    return archive


if __name__ == "__main__":
    made = build()
    print(made or "no archive")
