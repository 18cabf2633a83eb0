"""The table health report of a scripted history, and its page in a real headless browser.

The history: a Copy-On-Write table (insert, upsert of updates and inserts, delete) and a
Merge-On-Read table (insert, two upserts of updates into logs, a compaction scheduled but not
run), written through :func:`hudi_sql.write`. The JSON figures are checked against what the test
wrote (record counts per commit, commits by action, the pending compaction, files on storage).
Then Debian's Chromium opens the HTML from a file URL, headless, dumps the DOM and takes a
screenshot; skipped with a message where no ``chromium`` is installed (``apt-get install chromium``).
"""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import subprocess
import tempfile
import uuid
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

import hudi_sql
from hudi_sql.apps.cli import main as cli
from hudi_sql.config import HudiReadConfig, HudiTableConfig, HudiWriteConfig

pytestmark = pytest.mark.spark

SCHEMA = "id int, name string, ts long, p string"
COW_INSERT = [(i, f"n{i}", 1, "a" if i < 12 else "b") for i in range(20)]
COW_UPSERT = [(i, f"u{i}", 2, "a") for i in range(5)] + [(100 + i, f"new{i}", 2, "b") for i in range(3)]
COW_DELETE = [(12, "x", 3, "b"), (13, "x", 3, "b")]
MOR_INSERT = [(i, f"n{i}", 1, "a" if i < 6 else "b") for i in range(10)]
MOR_UPDATES = [[(i, f"u{i}", 2, "a" if i < 6 else "b") for i in (0, 1, 6, 7)],
               [(i, f"v{i}", 3, "a" if i < 6 else "b") for i in (2, 3, 8)]]


def _options(name: str, table_type: str, operation: str = "upsert") -> dict[str, str]:
    return {
        HudiTableConfig.NAME.key: name,
        HudiWriteConfig.TABLE_TYPE.key: table_type,
        HudiWriteConfig.RECORD_KEY_FIELDS.key: "id",
        HudiWriteConfig.PARTITION_PATH_FIELDS.key: "p",
        HudiWriteConfig.PRECOMBINE_FIELD.key: "ts",
        HudiWriteConfig.OPERATION.key: operation,
        # MOR: updates go to logs, inserts to new file groups
        HudiWriteConfig.PARQUET_SMALL_FILE_LIMIT.key: "0" if table_type == "MERGE_ON_READ" else "104857600",
    }


@pytest.fixture(scope="module")
def history(spark: Any, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("report")
    cow, mor = str(root / "cow"), str(root / "mor")
    written: dict[str, Any] = {"cow": cow, "mor": mor, "root": root}

    def write(path: str, rows: list[tuple[Any, ...]], options: dict[str, str]) -> hudi_sql.WriteResult:
        return hudi_sql.write(spark.createDataFrame(rows, SCHEMA), path, options)

    written["cow_results"] = [
        write(cow, COW_INSERT, _options("cow", "COPY_ON_WRITE", "insert")),
        write(cow, COW_UPSERT, _options("cow", "COPY_ON_WRITE")),
        write(cow, COW_DELETE, _options("cow", "COPY_ON_WRITE", "delete")),
    ]
    written["mor_results"] = [write(mor, MOR_INSERT, _options("mor", "MERGE_ON_READ", "insert"))] + [
        write(mor, rows, _options("mor", "MERGE_ON_READ")) for rows in MOR_UPDATES]
    written["compaction"] = hudi_sql.compact(spark, mor, execute=False)
    return written


def _json(path: str) -> dict[str, Any]:
    out = io.StringIO()
    assert cli(["report", path, "--format", "json"], stdout=out, stderr=io.StringIO()) == 0
    return json.loads(out.getvalue())


def _files(path: str) -> list[str]:
    return [name for folder, _, names in os.walk(path) if ".hoodie" not in folder for name in names]


def test_report_cow_history_records_per_commit_are_what_was_written(history: dict[str, Any]) -> None:
    figures = _json(history["cow"])
    updated = {r[0] for r in COW_UPSERT} & {r[0] for r in COW_INSERT}
    expected = [(len(COW_INSERT), 0, 0), (len(COW_UPSERT) - len(updated), len(updated), 0), (0, 0, len(COW_DELETE))]
    assert [(c["records_inserted"], c["records_updated"], c["records_deleted"]) for c in figures["commits"]] == expected
    results = history["cow_results"]
    assert [c["instant_time"] for c in figures["commits"]] == [r.instant_time for r in results]
    assert figures["instant_counts"] == {"commit": {"completed": len(results)}}
    assert figures["commits"][0]["write_amplification"] == pytest.approx(1.0), "inserts into new files"
    assert figures["commits"][1]["write_amplification"] > 1.0, "a COW upsert rewrites unchanged records"


def test_report_cow_history_file_groups_are_the_file_ids_on_storage(history: dict[str, Any]) -> None:
    figures = _json(history["cow"])
    parquet = [n for n in _files(history["cow"]) if n.endswith(".parquet")]
    assert figures["summary"]["file_groups"] == len({n.split("_")[0] for n in parquet})
    assert {p["partition"] for p in figures["partitions"]} == {"a", "b"}
    total = sum(c["bytes_written"] for c in figures["commits"])
    assert total == sum(os.path.getsize(os.path.join(d, n)) for d, _, ns in os.walk(history["cow"])
                        if ".hoodie" not in d for n in ns if n.endswith(".parquet"))


def test_report_mor_history_counts_deltas_logs_and_the_pending_compaction(spark: Any, history: dict[str, Any]) -> None:
    figures = _json(history["mor"])
    assert figures["instant_counts"] == {"deltacommit": {"completed": 1 + len(MOR_UPDATES)},
                                         "compaction": {"requested": 1}}
    expected = [(len(MOR_INSERT), 0, 0)] + [(0, len(rows), 0) for rows in MOR_UPDATES]
    assert [(c["records_inserted"], c["records_updated"], c["records_deleted"]) for c in figures["commits"]] == expected
    mor = figures["merge_on_read"]
    assert mor["delta_commits_since_compaction"] == 1 + len(MOR_UPDATES)
    (pending,) = mor["pending_compactions"]
    assert pending["instant_time"] == history["compaction"]
    with_logs = [s for s in mor["file_slices"] if s["log_files"]]
    updated_ids = [r[0] for rows in MOR_UPDATES for r in rows]
    read_optimized = hudi_sql.read(spark, history["mor"], {HudiReadConfig.QUERY_TYPE.key: "read_optimized"})
    groups = {row["_hoodie_file_name"].split("_")[0]
              for row in read_optimized.where(read_optimized["id"].isin(updated_ids)).collect()}
    assert pending["file_groups"] == len(with_logs) == len(groups), "the file groups the updates went to"
    assert {s["file_id"] for s in with_logs} == groups
    files = _files(history["mor"])
    assert figures["summary"]["log_files"] == sum(1 for n in files if ".log." in n) == pending["log_files"]
    assert figures["summary"]["base_files"] == sum(1 for n in files if n.endswith(".parquet"))


def test_report_procedure_returns_the_json_figures(spark: Any, history: dict[str, Any]) -> None:
    db = hudi_sql.connect(spark)
    (row,) = db.sql(f"CALL table_report(path => '{history['mor']}', format => 'json')").collect()
    figures = json.loads(row["content"])
    assert row["format"] == "json" and row["out"] is None
    assert [c["instant_time"] for c in figures["commits"]] == [r.instant_time for r in history["mor_results"]]
    out = history["root"] / "proc" / "mor.html"
    (written,) = db.sql(f"CALL table_report(path => '{history['mor']}', out => '{out}')").collect()
    assert written["out"] == str(out) and written["content"] is None
    assert out.read_text().count("<svg") == 8


def test_advise_names_random_keys_under_the_bloom_index_and_is_quiet_on_a_healthy_table(
        spark: Any, history: dict[str, Any], tmp_path: Path) -> None:
    db = hudi_sql.connect(spark)
    assert db.sql(f"CALL advise(path => '{history['cow']}')").collect() == []
    path = str(tmp_path / "random_keys")
    options = {**_options("random_keys", "COPY_ON_WRITE", "insert"), HudiWriteConfig.PARQUET_SMALL_FILE_LIMIT.key: "0",
               "hoodie.metadata.index.column.stats.enable": "true"}
    for batch in range(4):  # four inserts, four files in one partition, each spanning nearly every key
        rows = [(str(uuid.uuid4()), f"n{batch}", batch, "a") for _ in range(20)]
        hudi_sql.write(spark.createDataFrame(rows, "id string, name string, ts long, p string"), path, options)
    (advice,) = db.sql(f"CALL advise(path => '{path}', options => 'hoodie.index.type=BLOOM')").collect()
    assert advice["setting"] == "hoodie.index.type=SIMPLE"
    assert "over 4 sampled files" in advice["evidence"]
    assert db.sql(f"CALL advise(path => '{path}')").collect() == []  # the simple index already
    # Queries filtering on ts skip files (one ts per file); on id every file holds nearly every value.
    (cluster,) = db.sql(f"CALL advise(path => '{path}', filters => 'TS, id')").collect()
    assert cluster["setting"] == "CALL run_clustering(table => 'random_keys', order => 'id')"
    with pytest.raises(Exception, match="has no column fare to filter on"):
        db.sql(f"CALL advise(path => '{path}', filters => 'fare')").collect()


def test_verify_table_finds_a_duplicate_key_a_missing_file_and_a_stale_listing_and_nothing_in_a_whole_table(
        spark: Any, history: dict[str, Any], tmp_path: Path) -> None:
    db = hudi_sql.connect(spark)
    assert db.sql(f"CALL verify_table(path => '{history['cow']}')").collect() == []
    assert db.sql(f"CALL verify_table(path => '{history['mor']}')").collect() == []
    path = str(tmp_path / "planted")
    rows = [(i, f"n{i}", 1, "a") for i in range(6)]
    hudi_sql.write(spark.createDataFrame(rows, SCHEMA), path, _options("planted", "COPY_ON_WRITE"))
    # a bulk insert does not look keys up: key 1 is then twice in partition a
    hudi_sql.write(spark.createDataFrame([(1, "again", 2, "a")], SCHEMA), path,
                   _options("planted", "COPY_ON_WRITE", "bulk_insert"))
    (duplicate,) = db.sql(f"CALL verify_table(path => '{path}')").collect()
    assert (duplicate["check"], duplicate["subject"]) == ("keys", "a/1")
    assert duplicate["detail"].startswith("2 rows with this record key in its partition")
    partition = Path(path) / "a"
    first = min(partition.glob("*.parquet"))
    shutil.copy(first, partition / ("0000dead-beef-0" + first.name[first.name.index("_"):]))  # not in the listing
    first.unlink()  # part of a latest slice
    found = {(r["check"], Path(r["subject"]).name) for r in db.sql(f"CALL verify_table(path => '{path}')").collect()}
    assert ("files", first.name) in found
    assert ("metadata listing", first.name) in found  # listed, gone from storage
    assert any(c == "metadata listing" and n.startswith("0000dead-beef-0") for c, n in found)
    assert ("keys", "(not checked)") in found  # the snapshot cannot be read with a file missing


def test_check_config_names_the_ignored_and_dropped_options_of_the_table_and_the_session(
        spark: Any, tmp_path: Path) -> None:
    db = hudi_sql.connect(spark)
    db.sql(f"CREATE TABLE check_cfg (id INT, ts BIGINT) USING hudi LOCATION '{tmp_path / 'check_cfg'}' "
           "TBLPROPERTIES (primaryKey = 'id', 'hoodie.payload.combined.schema.validate' = 'true')")
    db.sql("SET hoodie.clustering.preserve.commit.metadata = true")
    try:
        found = {(r["key"], r["source"], r["finding"]) for r in db.sql("CALL check_config(table => 'check_cfg')").collect()}
    finally:
        db.sql("DROP TABLE check_cfg")
    assert found == {("hoodie.payload.combined.schema.validate", "table", "ignored"),
                     ("hoodie.clustering.preserve.commit.metadata", "session", "dropped by Apache Hudi")}


def test_a_healthy_table_gets_no_advice_no_discrepancy_and_no_wrong_option(
        spark: Any, history: dict[str, Any]) -> None:
    """All three agree the table is well: the advisor and the verifier say nothing; the
    configuration check names only what an Apache Hudi upgrade would change (this version 6
    table has an ordering field: INSERT INTO and the merge mode change in 1.x)."""
    db = hudi_sql.connect(spark)
    assert db.sql(f"CALL advise(path => '{history['cow']}')").collect() == []
    assert db.sql(f"CALL verify_table(path => '{history['cow']}')").collect() == []
    found = {(r["key"], r["finding"]) for r in db.sql(f"CALL check_config(path => '{history['cow']}')").collect()}
    assert found == {("hoodie.spark.sql.insert.into.operation", "changes on upgrade"),
                     ("hoodie.record.merge.mode", "changes on upgrade")}


def test_report_cli_table_name_is_looked_up_in_the_catalog(spark: Any, history: dict[str, Any]) -> None:
    hudi_sql.connect(spark).sql(f"CREATE TABLE report_cli_cow USING hudi LOCATION '{history['cow']}'")
    out, err = io.StringIO(), io.StringIO()
    assert cli(["report", "report_cli_cow", "--format", "json"], spark=spark, stdout=out, stderr=err) == 0, err.getvalue()
    figures = json.loads(out.getvalue())
    assert figures["table"]["base_path"].rstrip("/").endswith(Path(history["cow"]).name)
    assert [c["instant_time"] for c in figures["commits"]] == [r.instant_time for r in history["cow_results"]]


# -- a real browser ---------------------------------------------------------------------------------

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
BROWSER_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--enable-logging=stderr", "--v=0", "--hide-scrollbars"]
#: Lines of Chromium's log that mean the page failed: script errors, console errors, blocked loads.
#: The report page runs no script, so any console message at all is a failure.
PAGE_ERRORS = re.compile(r"CONSOLE[:(]\d+|Uncaught|Not allowed to load|net::ERR_|Refused to")


def _chromium(url: str, *extra: str) -> subprocess.CompletedProcess[str]:
    assert CHROMIUM is not None
    with tempfile.TemporaryDirectory(prefix="chromium-profile-") as profile:
        return subprocess.run([CHROMIUM, *BROWSER_FLAGS, f"--user-data-dir={profile}", *extra, url],
                              check=False, capture_output=True, text=True,
                              timeout=180)


needs_chromium = pytest.mark.skipif(CHROMIUM is None,
                                    reason="no chromium on PATH (Debian: apt-get install -y chromium)")


@needs_chromium
def test_report_browser_check_catches_a_page_with_a_script_error(tmp_path: Path) -> None:
    broken = tmp_path / "broken.html"
    broken.write_text("<html><body><p>x</p><script>console.error('boom'); notAFunction();</script></body></html>")
    dumped = _chromium(broken.resolve().as_uri(), "--dump-dom")
    assert dumped.returncode == 0
    assert len(PAGE_ERRORS.findall(dumped.stderr)) >= 2, dumped.stderr[-2000:]


@needs_chromium
def test_report_page_opens_in_headless_chromium_with_every_plot(history: dict[str, Any], tmp_path: Path) -> None:
    page = tmp_path / "mor.html"
    assert cli(["report", history["mor"], "--out", str(page)], stdout=io.StringIO(), stderr=io.StringIO()) == 0
    url = page.resolve().as_uri()

    dumped = _chromium(url, "--dump-dom")
    assert dumped.returncode == 0, dumped.stderr[-2000:]
    sections = Counter(re.findall(r'<section id="([a-z-]+)">', dumped.stdout))
    plots = ["timeline", "durations", "records", "bytes", "file-sizes", "partitions", "log-slices", "clean"]
    assert all(sections[name] == 1 for name in plots), sections
    assert dumped.stdout.count("<svg") == len(plots), "every plot is an SVG element of the loaded page"
    assert not PAGE_ERRORS.findall(dumped.stderr), dumped.stderr[-2000:]

    shot = tmp_path / "mor.png"
    taken = _chromium(url, f"--screenshot={shot}", "--window-size=1280,2400")
    assert taken.returncode == 0, taken.stderr[-2000:]
    assert not PAGE_ERRORS.findall(taken.stderr), taken.stderr[-2000:]
    from PIL import Image

    with Image.open(shot) as image:
        assert image.size == (1280, 2400)
        colours = image.convert("RGB").getcolors(maxcolors=1 << 20)
    assert colours is not None and len(colours) > 50, "the screenshot shows a drawn page, not a blank one"
