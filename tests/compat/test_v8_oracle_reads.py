"""hudi-sql reads table versions 8 and 9 as Apache Hudi 1.x and the Rust reader do.

Apache Hudi 1.x (``tools/oracle/setup_v1.sh``: the Spark 3.5 bundle of the latest 1.x release)
writes a few small version 8 tables, and the same at version 9 (its default since 1.1), once
through ``tools/oracle/make_v8_tables.py``, kept in the oracle's cache until the bundle or the
script changes:
COW and MOR, partitioned and not, event-time and commit-time ordering, MOR logs holding updates
and deletes. The script also records Apache Hudi's own reads of each table (snapshot,
read-optimized, incremental from every completed write, time travel to every write). Each of
those reads is replayed here through our reader and compared row for row; the snapshot and the
time travel reads are also compared with the Rust reader (``hudi``).

Skips, with the reason, when the 1.x oracle is not set up (no Java, no Maven, no download).
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
GENERATOR = ROOT / "tools" / "oracle" / "make_v8_tables.py"
DRIVER = ROOT / "tools" / "oracle" / "driver.py"
HARNESS = ROOT / "tests" / "oracle" / "oracle_harness.py"
GENERATE_TIMEOUT_S = 900

pytestmark = [pytest.mark.oracle, pytest.mark.spark, pytest.mark.compat]


def _load(path: Path, name: str) -> Any:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up while the class is built
    spec.loader.exec_module(module)
    return module


harness = _load(HARNESS, "hudi_oracle_harness_v8")
_generator = _load(GENERATOR, "hudi_oracle_make_v8")
V8_TABLES = sorted(_generator.TABLES)
TABLES = V8_TABLES + [_generator.versioned(name, 9) for name in _generator.VERSION_9_CASES]


def _writes_version_9(hudi: str) -> bool:
    """Apache Hudi 1.1 introduced table version 9."""
    major, minor = (int(part) for part in hudi.split(".")[:2])
    return (major, minor) >= (1, 1)


def _table(tables: dict[str, Any], name: str) -> dict[str, Any]:
    if name not in tables:
        pytest.skip(f"Apache Hudi {tables['_hudi']} does not write table version 9 (1.1+ does)")
    table: dict[str, Any] = tables[name]
    return table


def _generate(home: Path, ready: dict[str, str], versions: list[str]) -> Path:
    """The folder ``make_v8_tables.py`` wrote with Apache Hudi *ready* names, kept in the oracle's
    cache: what Apache Hudi writes and reads depends only on its bundle, the generator and the
    driver's rendering, so those (and *versions*) key the folder, and a change to any of them
    writes the tables anew. The Apache Hudi JVM runs once per key, not once per session."""
    key = hashlib.sha256()
    key.update(GENERATOR.read_bytes())
    key.update(DRIVER.read_bytes())
    key.update(json.dumps([ready, versions], sort_keys=True).encode())
    cached = home / "v8-tables" / key.hexdigest()[:20]
    if (cached / "expected.json").exists():
        return cached
    partial = cached.with_name(cached.name + f".partial-{os.getpid()}")
    shutil.rmtree(partial, ignore_errors=True)
    partial.mkdir(parents=True)
    log = partial / "generator.log"
    env = {k: v for k, v in os.environ.items() if k not in harness.FOREIGN_ENV}
    env["SPARK_LOCAL_IP"] = "127.0.0.1"
    done = subprocess.run(
        [str(home / "venv" / "bin" / "python"), str(GENERATOR), "--jar", ready["jar"], "--out", str(partial),
         "--log", str(log), "--versions", *versions],
        capture_output=True, text=True, env=env, timeout=GENERATE_TIMEOUT_S, check=False)
    answer = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else "{}"
    if done.returncode != 0 or not json.loads(answer).get("ok"):
        raise RuntimeError(f"Apache Hudi {ready.get('hudi')} could not write the version 8 tables: {answer}; "
                           f"see {log}")
    shutil.rmtree(partial / "_state", ignore_errors=True)  # its Spark session's metastore and scratch space
    shutil.rmtree(cached, ignore_errors=True)
    partial.rename(cached)
    return cached


@pytest.fixture(scope="session")
def v8_tables(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Version 8 tables Apache Hudi 1.x wrote, with its reads of them (``expected.json``), copied
    from the oracle's cache (:func:`_generate`) into this session's temporary folder.

    ``HUDI_V8_TABLES`` may name a folder ``make_v8_tables.py`` already wrote (to iterate
    on tables made by another Apache Hudi build).
    """
    prepared = os.environ.get("HUDI_V8_TABLES")
    if prepared:
        reused: dict[str, Any] = json.loads((Path(prepared) / "expected.json").read_text())
        reused["_hudi"] = "1.x (prepared tables)"
        return reused
    home = harness.oracle_dir()
    if (home / "UNAVAILABLE_V1").exists():
        pytest.skip(f"Apache Hudi 1.x oracle unavailable: {(home / 'UNAVAILABLE_V1').read_text().strip()}")
    if not (home / "READY_V1").exists():
        pytest.skip(f"Apache Hudi 1.x oracle not set up in {home}: run tools/oracle/setup_v1.sh")
    ready = dict(line.split("=", 1) for line in (home / "READY_V1").read_text().split())
    versions = ["8", "9"] if _writes_version_9(ready["hudi"]) else ["8"]
    cached = _generate(home, ready, versions)
    out = tmp_path_factory.mktemp("hudi-v8-tables") / "tables"
    shutil.copytree(cached, out)
    expected: dict[str, Any] = json.loads((out / "expected.json").read_text())
    for table in expected.values():
        table["path"] = str(out / Path(table["path"]).name)
    expected["_hudi"] = ready.get("hudi")
    return expected


def _ours(spark: Any, path: str, options: dict[str, str]) -> dict[str, Any]:
    return harness.ours(spark.read.format("hudi").options(**options).load(path))


def test_v8_generated_tables_are_of_their_version_with_layout_2(v8_tables: dict[str, Any]) -> None:
    from hudi_sql.table.meta_client import TableMetaClient

    for name in (n for n in TABLES if n in v8_tables):
        meta = TableMetaClient.load(v8_tables[name]["path"])
        assert (meta.table_version, meta.timeline_layout) == (v8_tables[name].get("version", 8), 2), name
        writes = [(i.instant_time, i.completion_time) for i in meta.timeline.completed_writes()]
        assert writes == [(w["requested"], w["completion"]) for w in
                          sorted(v8_tables[name]["writes"], key=lambda w: w["requested"])], name


def _same_question(options: dict[str, str], hudi: str) -> dict[str, str]:
    """Our options asking what Apache Hudi *hudi* was asked: 1.0 took the incremental begin as
    inclusive, 1.1+ (and hudi-sql) as exclusive, so a 1.0 begin is ours one millisecond earlier."""
    begin = options.get("hoodie.datasource.read.begin.instanttime")
    if hudi.startswith("1.0") and begin and begin != "000":
        return {**options, "hoodie.datasource.read.begin.instanttime": _just_before(begin)}
    return options


@pytest.mark.parametrize("name", TABLES)
def test_v8_reads_same_rows_as_apache_hudi(spark: Any, v8_tables: dict[str, Any], name: str) -> None:
    table = _table(v8_tables, name)
    failures = []
    for read in table["reads"]:
        what = f"{name}/{read['label']}"
        try:
            ours = _ours(spark, table["path"], _same_question(read["options"], v8_tables["_hudi"]))
            harness.assert_same_rows(ours, read["result"], what=what)
        except Exception as exc:  # noqa: BLE001 - every read is compared, then all differences reported
            failures.append(f"{what}: {exc}")
    assert not failures, f"{len(failures)} of {len(table['reads'])} reads differ from Apache Hudi " \
                         f"{v8_tables['_hudi']}:\n" + "\n".join(failures)


@pytest.mark.parametrize("name", TABLES)
def test_v8_snapshot_and_time_travel_same_rows_as_rust_reader(spark: Any, v8_tables: dict[str, Any],
                                                             name: str) -> None:
    from table_helpers import rust_table

    table = _table(v8_tables, name)
    retained = _earliest_commit_retained(table["path"])
    cases: list[tuple[str, dict[str, str], dict[str, str]]] = [("snapshot", {}, {})]
    failures = []
    for write in table["writes"]:
        if retained and write["completion"] < retained:
            # Before what the latest clean retained: refused, as Apache Hudi refuses it (the Rust
            # reader answers with the files that are left).
            try:
                _ours(spark, table["path"], {"as.of.instant": write["completion"]})
                failures.append(f"{name}/as_of_{write['completion']}: read, though cleaned up to {retained}")
            except Exception as exc:  # noqa: BLE001 - the refusal is the expected answer
                if "cleaner removed" not in str(exc):
                    failures.append(f"{name}/as_of_{write['completion']}: {exc}")
            continue
        cases.append((f"as_of_{write['completion']}", {"as.of.instant": write["completion"]},
                      {"as_of": write["completion"]}))
    for label, ours_options, rust_options in cases:
        rust = rust_table(table["path"], **rust_options)
        theirs = {"columns": rust.column_names,
                  "rows": [[harness.render(row[c]) for c in rust.column_names] for row in rust.to_pylist()]}
        try:
            harness.assert_same_rows(_ours(spark, table["path"], ours_options), theirs, what=f"{name}/{label}")
        except AssertionError as exc:
            failures.append(str(exc))
    assert not failures, "\n".join(failures)


def _earliest_commit_retained(path: str) -> str:
    """The latest clean's ``earliestCommitToRetain`` ("" when the table was never cleaned)."""
    from hudi_sql.model.instant import Action
    from hudi_sql.table.meta_client import TableMetaClient

    meta = TableMetaClient.load(str(path))
    clean = meta.timeline.completed().with_actions(Action.CLEAN).last
    return meta.clean_metadata(clean.instant_time).get("earliestCommitToRetain") or "" if clean else ""


def _just_before(instant_time: str) -> str:
    """The previous millisecond of a 17-digit instant time (string arithmetic keeps leading digits)."""
    return str(int(instant_time) - 1).zfill(len(instant_time))


@pytest.mark.parametrize("name", TABLES)
def test_v8_incremental_same_rows_as_rust_reader(spark: Any, v8_tables: dict[str, Any], name: str) -> None:
    """The Rust reader (hudi 0.5.0) takes the begin completion time as exclusive, as Apache Hudi
    1.1+ and hudi-sql do (docs/compatibility.md)."""
    from table_helpers import rust_table

    table = _table(v8_tables, name)
    writes = sorted(table["writes"], key=lambda w: w["completion"])
    failures = []
    for i, write in enumerate(writes[:-1]):
        ends = [None, writes[i + 1]["completion"]]
        for end in ends:
            rust = rust_table(table["path"], begin=write["completion"], end=end)
            theirs = {"columns": rust.column_names,
                      "rows": [[harness.render(row[c]) for c in rust.column_names] for row in rust.to_pylist()]}
            options = {"hoodie.datasource.query.type": "incremental",
                       "hoodie.datasource.read.begin.instanttime": write["completion"]}
            if end:
                options["hoodie.datasource.read.end.instanttime"] = end
            try:
                harness.assert_same_rows(_ours(spark, table["path"], options), theirs,
                                         what=f"{name}/incremental_from_{i}_to_{end or 'latest'}")
            except AssertionError as exc:
                failures.append(str(exc))
    assert not failures, "\n".join(failures)


def test_v8_we_write_into_a_table_apache_hudi_1x_wrote_and_it_stays_version_8(
        spark: Any, v8_tables: dict[str, Any], tmp_path: Path) -> None:
    """A version 8 table Apache Hudi 1.x wrote takes our upsert in its own grammar: the table stays
    version 8 with a layout 2 timeline, and the Rust reader reads what we read."""
    from table_helpers import data_rows, our_table, rust_table

    from hudi_sql.table.meta_client import TableMetaClient

    table = tmp_path / "v8_mor_p"
    shutil.copytree(v8_tables["v8_mor_p"]["path"], table)
    frame = spark.createDataFrame([(9, "z", 9.0, 9, "sf"), (5, "e2", 55.0, 9, "nyc")],
                                  "id INT, name STRING, price DOUBLE, ts BIGINT, city STRING")
    (frame.write.format("hudi").option("hoodie.table.name", "v8_mor_p")
     .option("hoodie.datasource.write.recordkey.field", "id").option("hoodie.datasource.write.precombine.field", "ts")
     .option("hoodie.datasource.write.partitionpath.field", "city").mode("append").save(str(table)))
    meta = TableMetaClient.load(str(table))
    assert (meta.table_version, meta.timeline_layout) == (8, 2)
    assert all(i.completion_time for i in meta.timeline.completed().instants)
    rows = {r["id"]: r["name"] for r in data_rows(our_table(spark, str(table)), "id")}
    assert rows[9] == "z" and rows[5] == "e2"
    assert data_rows(rust_table(str(table)), "id") == data_rows(our_table(spark, str(table)), "id")


@pytest.mark.parametrize("name", [n for n in TABLES if n.endswith("_archived")])
def test_v8_lsm_archived_timeline_lists_what_apache_hudi_archived(v8_tables: dict[str, Any], name: str) -> None:
    """Apache Hudi 1.x archived the oldest commits into ``.hoodie/timeline/history/``; our
    archived timeline (``CALL show_archived_commits``) lists the same commits, and the table
    still reads as Apache Hudi reads it (the reads above)."""
    from hudi_sql.services.archive import has_archived_instants, read_archived_instants
    from hudi_sql.table.meta_client import TableMetaClient

    table = _table(v8_tables, name)
    meta = TableMetaClient.load(table["path"])
    commits = sorted({i["commitTime"] for i in read_archived_instants(meta)
                      if i["actionType"] in ("commit", "deltacommit", "replacecommit")})
    assert table["archived"], "Apache Hudi archived nothing: the case no longer tests the LSM timeline"
    assert has_archived_instants(meta) and commits == table["archived"]
    assert not set(commits) & {i.instant_time for i in meta.timeline.instants}
