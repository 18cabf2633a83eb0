"""The ``files`` partition of Apache Hudi's metadata table (version 6), read without Spark.

Metadata tables are built here with the project's own HFile and log block writers, in the layout
Apache Hudi 0.15 writes (checked against the Apache-written example when it is present): a base
``.hfile`` per file group, log files of HFILE, delete and rollback blocks, and a timeline whose
metadata instants may carry a three-digit suffix.
"""

from __future__ import annotations

import io
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import fastavro
import pytest

from hudi_sql.config import HudiTableConfig
from hudi_sql.errors import HudiFileFormatError, UnsupportedFeatureError
from hudi_sql.hfile import write_hfile
from hudi_sql.log.block import BlockType, DeleteRecord, HeaderKey
from hudi_sql.log.format import encode_delete_block, encode_rollback_block, frame_block
from hudi_sql.metadata.reader import (
    FileInfo,
    MetadataRecord,
    RecordType,
    is_valid_metadata_instant,
    latest_file_slices,
    load_metadata_timeline,
    merge_file_slice,
    read_metadata_files,
    valid_instant_times,
)
from hudi_sql.model.instant import Action, Instant, State
from hudi_sql.model.timeline import Timeline
from hudi_sql.table.meta_client import init_table

SCHEMA: dict[str, Any] = {
    "type": "record", "name": "HoodieMetadataRecord", "namespace": "org.apache.hudi.avro.model",
    "fields": [
        {"name": "_hoodie_commit_time", "type": ["null", "string"], "default": None},
        {"name": "_hoodie_file_name", "type": ["null", "string"], "default": None},
        {"name": "key", "type": "string"},
        {"name": "type", "type": "int"},
        {"name": "filesystemMetadata", "type": ["null", {"type": "map", "values": {
            "type": "record", "name": "HoodieMetadataFileInfo",
            "fields": [{"name": "size", "type": "long"}, {"name": "isDeleted", "type": "boolean"}]}}]},
    ],
}
SCHEMA_JSON = json.dumps(SCHEMA)
PARSED = fastavro.parse_schema(SCHEMA)

T0 = "00000000000000010"  # the metadata table's initialisation, before any data commit
T1, T2, T3, T4 = "20240101000000100", "20240101000000200", "20240101000000300", "20240101000000400"
GROUP = "files-0000-0"

Files = Mapping[str, int | None]  # file name -> size, None for a tombstone


def _value(record_type: int, files: Files) -> bytes:
    """One HoodieMetadataRecord as Java serialises it in an HFile: the key field blanked."""
    out = io.BytesIO()
    fastavro.schemaless_writer(out, PARSED, {
        "key": "", "type": record_type,
        "filesystemMetadata": {n: {"size": s or 0, "isDeleted": s is None} for n, s in files.items()}})
    return out.getvalue()


def _hfile(partitions: Files | None = None, **by_partition: Files) -> bytes:
    """An HFile of the files partition: the partition list record, then one record per partition
    (keyword names stand for partition paths; ``_`` for the non-partitioned ``.``)."""
    entries = {} if partitions is None else {b"__all_partitions__": _value(1, partitions)}
    for partition, files in by_partition.items():
        entries[(partition if partition != "_" else ".").encode()] = _value(2, files)
    return write_hfile(sorted(entries.items()), file_info={b"schema": SCHEMA_JSON.encode()})


def _hfile_block(instant: str, partitions: Files | None = None, **by_partition: Files) -> bytes:
    header = {HeaderKey.SCHEMA: SCHEMA_JSON, HeaderKey.INSTANT_TIME: instant}
    return frame_block(BlockType.HFILE_DATA, header, _hfile(partitions, **by_partition))


class MetadataTable:
    """A data table with a metadata table, both as files under *root*."""

    def __init__(self, root: Path, *, declared: str = "files") -> None:
        self.base = str(root / "t")
        cfg = HudiTableConfig
        init_table(self.base, {cfg.NAME.key: "t", cfg.METADATA_PARTITIONS.key: declared})
        self.meta = Path(self.base) / ".hoodie"
        self.mdt = self.meta / "metadata"
        init_table(str(self.mdt), {cfg.NAME.key: "t_metadata", cfg.TYPE.key: "MERGE_ON_READ"})
        self.files = self.mdt / "files"
        self.files.mkdir()
        (self.files / ".hoodie_partition_metadata").write_text("#partition metadata\n")
        self.metadata_instant(T0)

    def data_instant(self, instant: str, action: str = "commit", *, completed: bool = True) -> None:
        for suffix in (".requested", ".inflight") + (("",) if completed else ()):
            (self.meta / f"{instant}.{action}{suffix}").write_bytes(b"")

    def metadata_instant(self, instant: str, action: str = "deltacommit", *, completed: bool = True) -> None:
        for suffix in (".requested", ".inflight") + (("",) if completed else ()):
            (self.mdt / ".hoodie" / f"{instant}.{action}{suffix}").write_bytes(b"")

    def commit(self, instant: str) -> None:
        """A data commit and the metadata deltacommit that recorded it."""
        self.data_instant(instant)
        self.metadata_instant(instant)

    def base_file(self, instant: str, data: bytes, group: str = GROUP) -> None:
        (self.files / f"{group}_0-1-1_{instant}.hfile").write_bytes(data)

    def log(self, base_instant: str, version: int, *blocks: bytes, group: str = GROUP) -> Path:
        path = self.files / f".{group}_{base_instant}.log.{version}_0-1-{version}"
        path.write_bytes(b"".join(blocks))
        return path


@pytest.fixture
def table(tmp_path: Path) -> MetadataTable:
    return MetadataTable(tmp_path)


def _listing(table: MetadataTable) -> Any:
    listing = read_metadata_files(table.base)
    assert listing is not None
    return listing


# -- merging base and logs ------------------------------------------------------------------


def test_read_metadata_files_base_and_logs_merged(table: MetadataTable) -> None:
    table.base_file(T0, _hfile({"p1": 0, "p2": 0}, p1={"a.parquet": 10, "b.parquet": 20},
                               p2={"c.parquet": 5}))
    table.commit(T1)
    table.commit(T2)
    table.log(T0, 1, _hfile_block(T1, {"p3": 0}, p1={"b.parquet": 25, "d.parquet": 7}, p3={"e.parquet": 1}))
    table.log(T0, 2, _hfile_block(T2, p1={"a.parquet": None, "b.parquet": 22}))

    listing = _listing(table)

    assert listing.instant_time == T2
    assert listing.partitions == ["p1", "p2", "p3"]
    assert listing.files("p1") == {"b.parquet": 25, "d.parquet": 7}  # sizes only grow: max wins
    assert listing.files("p2") == {"c.parquet": 5}
    assert listing.files("p3") == {"e.parquet": 1}
    assert listing.files("absent") == {}


def test_read_metadata_files_tombstone_in_logs_deletes_from_base(table: MetadataTable) -> None:
    table.base_file(T0, _hfile({"p": 0}, p={"a.parquet": 10, "b.parquet": 20}))
    for instant in (T1, T2, T3):
        table.commit(instant)
    table.log(T0, 1, _hfile_block(T1, p={"a.parquet": None}), _hfile_block(T2, p={"a.parquet": None}),
              _hfile_block(T3, p={"b.parquet": None}))
    table.commit(T4)
    table.log(T0, 2, _hfile_block(T4, p={"b.parquet": 30}))  # re-added after its delete

    assert _listing(table).files("p") == {"b.parquet": 30}


def test_merge_file_slice_logs_merge_first_then_onto_base() -> None:
    base = {"p": MetadataRecord("p", RecordType.FILE_LIST, {"f": FileInfo(30)})}
    deleted = MetadataRecord("p", RecordType.FILE_LIST, {"f": FileInfo(0, True)})
    readded = MetadataRecord("p", RecordType.FILE_LIST, {"f": FileInfo(20)})

    # Java's two stages: the logs give f of size 20, which then merges onto the base's 30
    assert merge_file_slice(base, [{"p": deleted}, {"p": readded}])["p"].live() == {"f": 30}
    # also Java's: a delete meeting the file in the logs cancels it there, leaving the base's entry
    assert merge_file_slice(base, [{"p": readded}, {"p": deleted}])["p"].live() == {"f": 30}
    assert merge_file_slice(base, [{"p": deleted}])["p"].live() == {}
    assert merge_file_slice(base, [{"p": deleted}, {"p": deleted}])["p"].live() == {}
    # without a base file the repeated tombstone is carried, as Java carries it
    assert merge_file_slice({}, [{"p": deleted}, {"p": deleted}])["p"].files == {"f": FileInfo(0, True)}


def test_combine_records_of_different_types_refused() -> None:
    files = MetadataRecord("p", RecordType.FILE_LIST)
    with pytest.raises(HudiFileFormatError, match="type 1"):
        MetadataRecord("p", RecordType.PARTITION_LIST).combine(files)


def test_read_metadata_files_deleted_partition_left_out(table: MetadataTable) -> None:
    table.base_file(T0, _hfile({"p1": 0, "p2": 0}, p1={"a.parquet": 1}, p2={"b.parquet": 2}))
    table.commit(T1)
    table.log(T0, 1, _hfile_block(T1, {"p2": None}))

    assert _listing(table).partitions == ["p1"]


def test_read_metadata_files_non_partitioned_table_named_dot(table: MetadataTable) -> None:
    table.base_file(T0, _hfile({".": 0}, _={"a.parquet": 10}))
    table.commit(T1)
    table.log(T0, 1, _hfile_block(T1, {".": 0}, _={"b.parquet": 11}))

    listing = _listing(table)

    assert listing.partitions == [""]
    assert listing.files("") == {"a.parquet": 10, "b.parquet": 11}
    assert listing.files(".") == listing.files("")


def test_read_metadata_files_delete_block_drops_record(table: MetadataTable) -> None:
    table.base_file(T0, _hfile({"p": 0}, p={"a.parquet": 1}))
    table.commit(T1)
    table.commit(T2)
    table.log(T0, 1, encode_delete_block(T0, SCHEMA_JSON, []),  # the empty block Apache opens log 1 with
              encode_delete_block(T1, SCHEMA_JSON, [DeleteRecord("p", "files"), DeleteRecord("q", "files")]))
    table.log(T0, 2, _hfile_block(T2, q={"b.parquet": 2}))

    listing = _listing(table)

    assert listing.files("p") == {}
    assert listing.files("q") == {"b.parquet": 2}


def test_merge_file_slice_record_after_delete_starts_afresh() -> None:
    base = {"p": MetadataRecord("p", RecordType.FILE_LIST, {"a": FileInfo(1)})}
    later = MetadataRecord("p", RecordType.FILE_LIST, {"b": FileInfo(2)})

    assert merge_file_slice(base, [{"p": None}, {"p": later}])["p"].live() == {"b": 2}


# -- which blocks and slices count ----------------------------------------------------------


def test_read_metadata_files_block_of_failed_data_instant_skipped(table: MetadataTable) -> None:
    table.base_file(T0, _hfile({"p": 0}, p={"a.parquet": 1}))
    table.commit(T1)
    table.data_instant(T2, completed=False)  # the metadata table committed, the data table did not
    table.metadata_instant(T2)
    table.log(T0, 1, _hfile_block(T1, p={"b.parquet": 2}), _hfile_block(T2, p={"c.parquet": 3}))

    assert _listing(table).files("p") == {"a.parquet": 1, "b.parquet": 2}


def test_read_metadata_files_block_of_pending_metadata_instant_skipped(table: MetadataTable) -> None:
    table.base_file(T0, _hfile({"p": 0}, p={"a.parquet": 1}))
    table.commit(T1)
    table.data_instant(T2)
    table.metadata_instant(T2, completed=False)
    table.log(T0, 1, _hfile_block(T1, p={"b.parquet": 2}), _hfile_block(T2, p={"c.parquet": 3}))

    listing = _listing(table)

    assert listing.instant_time == T1
    assert listing.files("p") == {"a.parquet": 1, "b.parquet": 2}


def test_read_metadata_files_rollback_block_drops_its_target(table: MetadataTable) -> None:
    table.base_file(T0, _hfile({"p": 0}, p={"a.parquet": 1}))
    table.commit(T1)
    table.commit(T2)
    table.metadata_instant(T3 + "006", "rollback")
    table.log(T0, 1, _hfile_block(T1, p={"b.parquet": 2}), _hfile_block(T2, p={"c.parquet": 3}),
              encode_rollback_block(T3 + "006", T2))

    assert _listing(table).files("p") == {"a.parquet": 1, "b.parquet": 2}


def test_read_metadata_files_compacted_slice_read_with_its_logs(table: MetadataTable) -> None:
    compaction = T1 + "001"  # the metadata table's compaction after T1: a 20-digit commit
    table.base_file(T0, _hfile({"p": 0}, p={"old.parquet": 1}))
    table.commit(T1)
    table.log(T0, 1, _hfile_block(T1, p={"stale.parquet": 2}))
    table.metadata_instant(compaction, "commit")
    table.base_file(compaction, _hfile({"p": 0, "q": 0}, p={"a.parquet": 1}, q={"b.parquet": 2}))
    table.commit(T2)
    table.log(compaction, 1, _hfile_block(T2, q={"c.parquet": 3}))

    listing = _listing(table)

    assert [(s.base_instant, s.log_files) for s in listing.file_slices] == [
        (compaction, (f".{GROUP}_{compaction}.log.1_0-1-1",))]
    assert listing.files("p") == {"a.parquet": 1}
    assert listing.files("q") == {"b.parquet": 2, "c.parquet": 3}


def test_latest_file_slices_logs_of_pending_compaction_join_previous_slice() -> None:
    pending = T1 + "001"
    names = [f"{GROUP}_0-1-1_{T0}.hfile", f".{GROUP}_{T0}.log.1_0-1-1", f"{GROUP}_0-2-2_{pending}.hfile",
             f".{GROUP}_{pending}.log.1_0-3-3", f".{GROUP}_{T2}.log.1_0-4-4", ".hoodie_partition_metadata",
             f"..{GROUP}_{T0}.log.1_0-1-1.crc"]
    timeline = Timeline.of([Instant(T0, Action.DELTA_COMMIT), Instant(T1, Action.DELTA_COMMIT),
                            Instant(pending, Action.COMPACTION, State.INFLIGHT),
                            Instant(T2, Action.DELTA_COMMIT)])

    [only] = latest_file_slices(names, timeline)

    assert only.base_file == f"{GROUP}_0-1-1_{T0}.hfile"
    assert only.log_files == (f".{GROUP}_{T0}.log.1_0-1-1", f".{GROUP}_{pending}.log.1_0-3-3")


def test_load_metadata_timeline_suffixed_instants_parsed() -> None:
    timeline = load_metadata_timeline([
        f"{T1}001.commit", f"{T1}001.compaction.requested", f"{T1}002.clean",
        f"{T1}004.deltacommit.inflight", f"{T0}.deltacommit", "hoodie.properties"])

    assert [(i.instant_time, i.action, i.state) for i in timeline.completed()] == [
        (T0, Action.DELTA_COMMIT, State.COMPLETED), (T1 + "001", Action.COMMIT, State.COMPLETED),
        (T1 + "002", Action.CLEAN, State.COMPLETED)]
    assert [i.instant_time for i in timeline.pending()] == [T1 + "004"]


def test_valid_instant_times_follow_apache_rules() -> None:
    data = Timeline.of([Instant(T1, Action.COMMIT), Instant(T2, Action.COMMIT, State.INFLIGHT),
                        Instant(T3, Action.ROLLBACK)])
    metadata = Timeline.of([Instant(T0, Action.DELTA_COMMIT), Instant(T1, Action.DELTA_COMMIT),
                            Instant(T2, Action.DELTA_COMMIT), Instant(T2 + "004", Action.DELTA_COMMIT),
                            Instant(T2 + "006", Action.ROLLBACK), Instant(T2 + "003", Action.DELTA_COMMIT)])

    valid = valid_instant_times(data, metadata, lambda instant: ["20231231000000000"])

    # T2 is not: its data instant never completed
    assert valid == {T0, T1, T3, T2 + "004", T2 + "006", T2 + "003", "20231231000000000"}
    assert not is_valid_metadata_instant(Instant(T1, Action.DELTA_COMMIT))
    assert is_valid_metadata_instant(Instant(T1 + "012", Action.DELTA_COMMIT))
    assert not is_valid_metadata_instant(Instant(T1 + "007", Action.DELTA_COMMIT))
    assert not is_valid_metadata_instant(Instant(T1 + "001", Action.COMMIT))


# -- no listing to use ----------------------------------------------------------------------


def test_read_metadata_files_files_partition_not_declared_none(tmp_path: Path) -> None:
    table = MetadataTable(tmp_path, declared="")
    table.base_file(T0, _hfile({"p": 0}, p={"a.parquet": 1}))

    assert read_metadata_files(table.base) is None


def test_read_metadata_files_no_metadata_table_none(tmp_path: Path) -> None:
    base = str(tmp_path / "plain")
    init_table(base, {HudiTableConfig.NAME.key: "plain"})

    assert read_metadata_files(base) is None


def test_read_metadata_files_files_folder_absent_none(table: MetadataTable) -> None:
    for child in table.files.iterdir():
        child.unlink()
    table.files.rmdir()

    assert read_metadata_files(table.base) is None


# -- damaged files --------------------------------------------------------------------------


def test_read_metadata_files_truncated_base_file_error_names_it(table: MetadataTable) -> None:
    table.base_file(T0, _hfile({"p": 0}, p={"a.parquet": 1})[:-100])

    with pytest.raises(HudiFileFormatError, match=f"{GROUP}_0-1-1_{T0}.hfile"):
        read_metadata_files(table.base)


def test_read_metadata_files_bad_record_in_log_block_error_names_file(table: MetadataTable) -> None:
    table.base_file(T0, _hfile({"p": 0}, p={"a.parquet": 1}))
    table.commit(T1)
    bad = write_hfile([(b"p", b"\x02\xff")], file_info={b"schema": SCHEMA_JSON.encode()})
    path = table.log(T0, 1, frame_block(BlockType.HFILE_DATA, {HeaderKey.INSTANT_TIME: T1,
                                                               HeaderKey.SCHEMA: SCHEMA_JSON}, bad))

    with pytest.raises(HudiFileFormatError, match=f"{path.name}.*HFILE block at offset 0.*key 'p'"):
        read_metadata_files(table.base)


def test_read_metadata_files_record_of_other_partition_refused(table: MetadataTable) -> None:
    table.base_file(T0, write_hfile([(b"k", _value(3, {}))], file_info={b"schema": SCHEMA_JSON.encode()}))

    with pytest.raises(HudiFileFormatError, match="record type 3"):
        read_metadata_files(table.base)


def test_read_metadata_files_block_without_instant_error_names_file(table: MetadataTable) -> None:
    table.base_file(T0, _hfile({"p": 0}, p={"a.parquet": 1}))
    path = table.log(T0, 1, frame_block(BlockType.HFILE_DATA, {HeaderKey.SCHEMA: SCHEMA_JSON}, _hfile(p={})))

    with pytest.raises(HudiFileFormatError, match=f"{path.name}.*no INSTANT_TIME"):
        read_metadata_files(table.base)


def test_read_metadata_files_damaged_delete_block_error_names_file(table: MetadataTable) -> None:
    table.base_file(T0, _hfile({"p": 0}, p={"a.parquet": 1}))
    table.commit(T1)
    content = b"\x00\x00\x00\x03\xff"  # content version 3, then a cut-off length
    path = table.log(T0, 1, frame_block(BlockType.DELETE, {HeaderKey.INSTANT_TIME: T1}, content))

    with pytest.raises(HudiFileFormatError, match=f"log file .*{path.name}"):
        read_metadata_files(table.base)


def test_read_metadata_files_log_compacted_block_refused(table: MetadataTable) -> None:
    table.base_file(T0, _hfile({"p": 0}, p={"a.parquet": 1}))
    table.commit(T1)
    header = {HeaderKey.INSTANT_TIME: T1, HeaderKey.SCHEMA: SCHEMA_JSON, HeaderKey.COMPACTED_BLOCK_TIMES: T0}
    table.log(T0, 1, frame_block(BlockType.HFILE_DATA, header, _hfile(p={"b.parquet": 2})))

    with pytest.raises(UnsupportedFeatureError, match="log compaction"):
        read_metadata_files(table.base)
