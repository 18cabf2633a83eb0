"""Marker names are data, not paths: validated at the marker service and again before deleting
(issue 15, item 4)."""

from __future__ import annotations

import os
import urllib.request
from pathlib import Path

import pytest

from hudi_sql.commit.transaction import Transaction
from hudi_sql.config import HudiTableConfig
from hudi_sql.config.resolve import Resolved
from hudi_sql.errors import PathOutsideTableError
from hudi_sql.model.commit_metadata import CommitMetadata
from hudi_sql.model.instant import Action
from hudi_sql.storage.fs import Storage
from hudi_sql.storage.layout import TableLayout
from hudi_sql.table.meta_client import init_table
from hudi_sql.write.marker_server import MarkerServer, post_marker
from hudi_sql.write.markers import IOType, Marker, read_markers, validate_marker_name

INSTANT = "20260101000000000"
GOOD = "p/abcd-0_0-1-2_20260101000000000.parquet.marker.CREATE"
HOSTILE = ["../victim.parquet.marker.CREATE", "p/../../victim.parquet.marker.CREATE",
           "/elsewhere/victim.parquet.marker.CREATE", "p/not-a-base-file.txt.marker.CREATE", "no-suffix",
           "p/abcd-0_0-1-2_20260101000000000.parquet.marker.EXPLODE"]


@pytest.mark.parametrize("name", HOSTILE)
def test_validate_marker_name_hostile_name_raises(tmp_path: Path, name: str) -> None:
    with pytest.raises(PathOutsideTableError):
        validate_marker_name(TableLayout.of(str(tmp_path / "t")), name)


def test_validate_marker_name_data_file_marker_passes(tmp_path: Path) -> None:
    marker = validate_marker_name(TableLayout.of(str(tmp_path / "t")), GOOD)
    assert marker == Marker("p", "abcd-0_0-1-2_20260101000000000.parquet", IOType.CREATE)


def test_marker_server_wrong_token_refused_and_nothing_stored(tmp_path: Path) -> None:
    layout = TableLayout.of(str(tmp_path / "t"))
    with MarkerServer(layout, INSTANT, Storage()) as server:
        wrong = server.url.rsplit("/", 1)[0] + "/not-the-token"
        with pytest.raises(OSError, match="403"):
            post_marker(wrong, GOOD)
        with pytest.raises(OSError, match="403"):
            post_marker(server.url.rsplit("/", 1)[0], GOOD)
    assert read_markers(Storage(), layout, INSTANT) == []


@pytest.mark.parametrize("name", HOSTILE[:3])
def test_marker_server_hostile_name_refused_and_good_name_stored(tmp_path: Path, name: str) -> None:
    layout = TableLayout.of(str(tmp_path / "t"))
    with MarkerServer(layout, INSTANT, Storage()) as server:
        with pytest.raises(OSError, match="refused"):
            post_marker(server.url, name)
        post_marker(server.url, GOOD)
    assert [m.name for m in read_markers(Storage(), layout, INSTANT)] == [GOOD]


def test_marker_server_token_differs_per_write(tmp_path: Path) -> None:
    layout = TableLayout.of(str(tmp_path / "t"))
    with MarkerServer(layout, INSTANT, Storage()) as first, MarkerServer(layout, INSTANT, Storage()) as second:
        assert first.token != second.token and len(first.token) >= 24


def test_delete_uncommitted_files_hostile_stored_marker_deletes_nothing_outside(tmp_path: Path) -> None:
    base = tmp_path / "t"
    meta = init_table(str(base), {HudiTableConfig.NAME.key: "t", HudiTableConfig.TYPE.key: "COPY_ON_WRITE"})
    victim = tmp_path / "victim.parquet"
    victim.write_bytes(b"precious")
    marker_dir = Path(meta.layout.marker_dir(INSTANT))
    marker_dir.mkdir(parents=True)
    (marker_dir / "MARKERS.type").write_text("TIMELINE_SERVER_BASED")
    # written straight to storage, as a service without validation (or a hand) would have
    (marker_dir / "MARKERS0").write_text("../victim.parquet.marker.CREATE\n")
    loser = base / "p" / "abcd-0_0-1-2_20260101000000000.parquet"
    loser.parent.mkdir()
    loser.write_bytes(b"x")
    (marker_dir / "MARKERS1").write_text(f"{GOOD}\n")
    txn = Transaction(meta, Action.COMMIT, INSTANT, Resolved())
    deleted = txn.delete_uncommitted_files(CommitMetadata())
    assert victim.read_bytes() == b"precious"
    assert deleted == ["p/abcd-0_0-1-2_20260101000000000.parquet"] and not loser.exists()


def test_marker_server_binds_loopback(tmp_path: Path) -> None:
    with MarkerServer(TableLayout.of(str(tmp_path / "t")), INSTANT, Storage()) as server:
        assert server.url.startswith("http://127.0.0.1:")
        request = urllib.request.Request(server.url, data=GOOD.encode(), method="POST")
        with urllib.request.urlopen(request, timeout=10) as response:
            assert response.status == 200
    assert os.path.exists(os.path.join(str(tmp_path / "t"), ".hoodie", ".temp", INSTANT, "MARKERS.type"))
