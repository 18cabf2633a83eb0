"""The LSM archived timeline of layout 2 as a reader finds it: the snapshot a manifest names, chosen
by ``_version_`` (or, without it, by the greatest manifest), and nothing else in the folder.

Apache Hudi 1.x's own archives are read in ``tests/compat/test_v8_oracle_reads.py``; these
cases build the folder by hand to pin the snapshot rules.
"""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from hudi_sql.config import HudiTableConfig as T
from hudi_sql.errors import HudiFileFormatError
from hudi_sql.storage.properties import format_properties, table_checksum
from hudi_sql.table.lsm_timeline import has_lsm_instants, read_lsm_instants
from hudi_sql.table.meta_client import TableMetaClient


def _table(root: Path) -> Path:
    history = root / ".hoodie" / "timeline" / "history"
    history.mkdir(parents=True)
    values = {T.NAME.key: "t", T.TYPE.key: "COPY_ON_WRITE", T.VERSION.key: "8", T.TIMELINE_LAYOUT_VERSION.key: "2",
              T.TIMELINE_PATH.key: "timeline", T.CHECKSUM.key: str(table_checksum("default", "t"))}
    (root / ".hoodie" / "hoodie.properties").write_bytes(format_properties(values))
    return history


def _archive_file(history: Path, name: str, instants: list[tuple[str, str, str]]) -> None:
    rows = {"instantTime": [i[0] for i in instants], "completionTime": [i[1] for i in instants],
            "action": [i[2] for i in instants], "metadata": [b"" for _ in instants], "plan": [None for _ in instants],
            "version": [1 for _ in instants]}
    pq.write_table(pa.table(rows), history / name)


def _manifest(history: Path, version: int, files: list[str]) -> None:
    entries = [{"fileName": f, "fileLen": (history / f).stat().st_size} for f in files]
    (history / f"manifest_{version}").write_text(json.dumps({"files": entries}))


def test_no_manifest_means_nothing_archived(tmp_path: Path) -> None:
    _table(tmp_path)
    meta = TableMetaClient.load(str(tmp_path))
    assert not has_lsm_instants(meta) and read_lsm_instants(meta) == []


def test_the_version_file_picks_the_snapshot_and_files_outside_it_are_not_read(tmp_path: Path) -> None:
    history = _table(tmp_path)
    _archive_file(history, "001_002_0.parquet", [("001", "0015", "commit"), ("002", "0025", "commit")])
    _archive_file(history, "003_004_0.parquet", [("003", "0035", "commit"), ("004", "0045", "deltacommit")])
    _archive_file(history, "001_005_1.parquet", [("001", "0015", "commit"), ("002", "0025", "commit"),
                                                 ("003", "0035", "commit"), ("004", "0045", "deltacommit"),
                                                 ("005", "0055", "commit")])
    _manifest(history, 1, ["001_002_0.parquet"])
    _manifest(history, 2, ["001_002_0.parquet", "003_004_0.parquet"])
    _manifest(history, 3, ["001_005_1.parquet"])  # a later archival, its version not yet published
    (history / "_version_").write_text("2")
    meta = TableMetaClient.load(str(tmp_path))
    instants = read_lsm_instants(meta)
    assert [(i.instant_time, i.completion_time, i.action) for i in instants] == [
        ("001", "0015", "commit"), ("002", "0025", "commit"), ("003", "0035", "commit"), ("004", "0045", "deltacommit")]
    (history / "_version_").unlink()  # without it, the greatest manifest is the snapshot
    assert [i.instant_time for i in read_lsm_instants(meta)] == ["001", "002", "003", "004", "005"]


def test_a_damaged_manifest_fails_naming_it(tmp_path: Path) -> None:
    history = _table(tmp_path)
    (history / "manifest_1").write_text("not json")
    with pytest.raises(HudiFileFormatError, match="manifest_1"):
        read_lsm_instants(TableMetaClient.load(str(tmp_path)))
