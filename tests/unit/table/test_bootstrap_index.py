"""The bootstrap index of a metadata-only bootstrap, as Apache Hudi 0.15 lays it out.

Two HFiles under ``.hoodie/.aux/.bootstrap/``: ``.partitions`` keyed ``part=<partition>`` and
``.fileids`` keyed ``part=<partition>;fileid=<id>``, each value an Avro container of one Hudi
record, each file's ``INDEX_INFO`` naming the source base path. What we write reads back
mapping for mapping; Apache's own reader was checked on our files outside the suite.
"""

from __future__ import annotations

import io
import json
import os
from pathlib import Path
from typing import Any

import fastavro
import pytest

import hudi_sql.model
from hudi_sql.errors import HudiFileFormatError, HudiKeyError, PathOutsideTableError, TableAlreadyExistsError
from hudi_sql.hfile import HFileReader, write_hfile
from hudi_sql.table.bootstrap_index import (
    BOOTSTRAP_INDEX_FILE_NAME,
    BootstrapFileMapping,
    FilePermission,
    SourceFile,
    bootstrap_index_paths,
    read_bootstrap_index,
    stat_source_file,
    write_bootstrap_index,
)

SOURCE = "/data/src"
CREATED = 1795805605291
RW_R_R = FilePermission("READ_WRITE", "READ", "READ", False)


def _source(name: str, n: int) -> SourceFile:
    return SourceFile(f"file:{SOURCE}/{name}", length=1000 + n, modification_time=1700000000000 + n,
                      permission=RW_R_R, owner="hudi", group="staff")


def _mapping(partition: str, file_id: str, n: int) -> BootstrapFileMapping:
    return BootstrapFileMapping(partition, file_id, partition, _source(f"{partition}/part-{n}.parquet", n))


MAPPINGS = [
    _mapping("dt=p2", "fa748d99-07fc-4912-9da8-68501582f13e", 1),
    _mapping("dt=p1", "a68e98d6-f603-4564-b854-1875b7cf81fa", 2),
    _mapping("dt=p1", "0b1c2d3e-0000-4000-8000-000000000001", 3),
    _mapping("a/b", "11111111-0000-4000-8000-000000000003", 4),
]


def _avro(value: bytes) -> tuple[dict[str, str], list[Any]]:
    """The header metadata and records of an Avro container, read with the writer's schema."""
    reader = fastavro.reader(io.BytesIO(value))
    return reader.metadata, list(reader)


def _hfiles(base: Path) -> tuple[HFileReader, HFileReader]:
    partitions, file_ids = bootstrap_index_paths(str(base))
    return HFileReader.open(partitions), HFileReader.open(file_ids)


# --- round trips -------------------------------------------------------------------------


def test_written_index_reads_back_every_mapping(tmp_path: Path) -> None:
    write_bootstrap_index(str(tmp_path), SOURCE, MAPPINGS, CREATED)

    index = read_bootstrap_index(str(tmp_path))

    assert index is not None
    assert index.source_base_path == SOURCE
    assert index.created_at_millis == CREATED
    assert index.partitions() == ["a/b", "dt=p1", "dt=p2"]
    assert index.entries("dt=p1") == sorted(MAPPINGS[1:3], key=lambda m: m.file_id)
    assert index.source_partition("a/b") == "a/b"
    for m in MAPPINGS:
        assert index.source_file(m.partition_path, m.file_id) == m.source_file
        assert index.file_mapping(m.partition_path, m.file_id) == m


def test_unknown_partitions_and_file_groups_give_empty_answers(tmp_path: Path) -> None:
    write_bootstrap_index(str(tmp_path), SOURCE, MAPPINGS, CREATED)
    index = read_bootstrap_index(str(tmp_path))
    assert index is not None

    assert index.entries("dt=p3") == []
    assert index.source_partition("dt=p3") is None
    assert index.source_file("dt=p1", "fa748d99-07fc-4912-9da8-68501582f13e") is None


def test_index_files_sit_where_apache_reads_them(tmp_path: Path) -> None:
    written = write_bootstrap_index(f"file:{tmp_path}", SOURCE, MAPPINGS, CREATED)

    root = tmp_path / ".hoodie" / ".aux" / ".bootstrap"
    assert BOOTSTRAP_INDEX_FILE_NAME == "00000000-0000-0000-0000-000000000000-0_1-0-1_00000000000001.hfile"
    assert written == [str(root / ".partitions" / BOOTSTRAP_INDEX_FILE_NAME),
                       str(root / ".fileids" / BOOTSTRAP_INDEX_FILE_NAME)]
    assert sorted(os.listdir(root / ".partitions")) == [BOOTSTRAP_INDEX_FILE_NAME]


def test_keys_ascend_as_bytes_even_where_java_string_order_differs(tmp_path: Path) -> None:
    # (dt=1, x) sorts before (dt=10, y) as Java strings, but ';' (0x3b) sorts after '0' (0x30)
    mappings = [_mapping("dt=1", "55555555-0000-4000-8000-000000000007", 1),
                _mapping("dt=10", "66666666-0000-4000-8000-000000000008", 2)]
    write_bootstrap_index(str(tmp_path), SOURCE, mappings, CREATED)

    partitions, file_ids = _hfiles(tmp_path)
    assert [k for k, _ in partitions.items()] == [b"part=dt=1", b"part=dt=10"]
    assert [k for k, _ in file_ids.items()] == [
        b"part=dt=10;fileid=66666666-0000-4000-8000-000000000008",
        b"part=dt=1;fileid=55555555-0000-4000-8000-000000000007",
    ]
    index = read_bootstrap_index(str(tmp_path))
    assert index is not None
    assert index.file_group_ids() == [("dt=10", mappings[1].file_id), ("dt=1", mappings[0].file_id)]


def test_non_partitioned_table_keys_its_file_groups_under_the_empty_partition(tmp_path: Path) -> None:
    mappings = [BootstrapFileMapping("", "33333333-0000-4000-8000-000000000005", "", _source("part-5.parquet", 5))]
    write_bootstrap_index(str(tmp_path), SOURCE, mappings, CREATED)

    partitions, file_ids = _hfiles(tmp_path)
    assert [k for k, _ in partitions.items()] == [b"part="]
    assert [k for k, _ in file_ids.items()] == [b"part=;fileid=33333333-0000-4000-8000-000000000005"]
    index = read_bootstrap_index(str(tmp_path))
    assert index is not None
    assert index.partitions() == [""]
    assert index.entries("") == mappings


def test_equal_mappings_give_equal_files(tmp_path: Path) -> None:
    first = write_bootstrap_index(str(tmp_path / "a"), SOURCE, MAPPINGS, CREATED)
    second = write_bootstrap_index(str(tmp_path / "b"), SOURCE, list(reversed(MAPPINGS)), CREATED)

    assert [Path(p).read_bytes() for p in first] == [Path(p).read_bytes() for p in second]


# --- absent index ------------------------------------------------------------------------


def test_table_that_was_not_bootstrapped_has_no_index(tmp_path: Path) -> None:
    (tmp_path / ".hoodie" / ".aux" / ".bootstrap" / ".partitions").mkdir(parents=True)

    assert read_bootstrap_index(str(tmp_path)) is None


def test_index_with_one_of_its_files_missing_counts_as_absent(tmp_path: Path) -> None:
    _, file_ids = write_bootstrap_index(str(tmp_path), SOURCE, MAPPINGS, CREATED)
    os.unlink(file_ids)

    assert read_bootstrap_index(str(tmp_path)) is None


# --- the bytes, as Apache writes them ----------------------------------------------------


def test_partition_value_is_a_partition_metadata_record(tmp_path: Path) -> None:
    write_bootstrap_index(str(tmp_path), SOURCE, MAPPINGS, CREATED)
    partitions, _ = _hfiles(tmp_path)

    metadata, records = _avro(partitions.get(b"part=dt=p2") or b"")

    assert set(metadata) == {"avro.schema"}  # codec null, as Java's DataFileWriter leaves it
    assert records == [{
        "version": None,  # Apache builds it with setters, so the default 1 is not applied
        "bootstrapPartitionPath": "dt=p2",
        "partitionPath": "dt=p2",
        "fileIdToBootstrapFile": {"fa748d99-07fc-4912-9da8-68501582f13e": {
            "version": None,
            "path": {"version": 1, "uri": f"file:{SOURCE}/dt=p2/part-1.parquet"},
            "length": 1001,
            "isDir": False,
            "blockReplication": 1,
            "blockSize": 32 * 1024 * 1024,
            "modificationTime": 1700000000001,
            "accessTime": 1700000000001,
            "permission": {"version": 1, "userAction": "READ_WRITE", "groupAction": "READ",
                           "otherAction": "READ", "stickyBit": False},
            "owner": "hudi",
            "group": "staff",
            "symlink": None,
        }},
    }]


def test_file_id_value_is_a_file_partition_info_record(tmp_path: Path) -> None:
    write_bootstrap_index(str(tmp_path), SOURCE, MAPPINGS, CREATED)
    _, file_ids = _hfiles(tmp_path)

    _, records = _avro(file_ids.get(b"part=a/b;fileid=11111111-0000-4000-8000-000000000003") or b"")

    assert [(r["version"], r["partitionPath"], r["bootstrapPartitionPath"], r["bootstrapFileStatus"]["path"])
            for r in records] == [(None, "a/b", "a/b", {"version": 1, "uri": f"file:{SOURCE}/a/b/part-4.parquet"})]


def test_each_file_counts_its_own_keys_in_index_info(tmp_path: Path) -> None:
    write_bootstrap_index(str(tmp_path), SOURCE, MAPPINGS, CREATED)

    infos = [_avro(reader.file_info[b"INDEX_INFO"]) for reader in _hfiles(tmp_path)]

    assert [records for _, records in infos] == [
        [{"version": 1, "bootstrapBasePath": SOURCE, "createdTimestamp": CREATED, "numKeys": 3}],
        [{"version": 1, "bootstrapBasePath": SOURCE, "createdTimestamp": CREATED, "numKeys": 4}],
    ]
    # the schema text Hudi's generated Java classes print (strings marked avro.java.string)
    assert infos[0][0]["avro.schema"] == (
        '{"type":"record","name":"HoodieBootstrapIndexInfo","namespace":"org.apache.hudi.avro.model","fields":['
        '{"name":"version","type":["int","null"],"default":1},'
        '{"name":"bootstrapBasePath","type":["null",{"type":"string","avro.java.string":"String"}],"default":null},'
        '{"name":"createdTimestamp","type":["null","long"],"default":null},'
        '{"name":"numKeys","type":["null","int"],"default":null}]}')


def test_values_resolve_against_the_transcribed_hudi_schemas(tmp_path: Path) -> None:
    avsc = Path(hudi_sql.model.__file__).with_name("avsc")
    named: dict[str, Any] = {}
    schemas = {name: fastavro.parse_schema(json.loads((avsc / f"{name}.avsc").read_text()), named_schemas=named)
               for name in ("HoodiePath", "HoodieFSPermission", "HoodieFileStatus", "HoodieBootstrapIndexInfo",
                            "HoodieBootstrapPartitionMetadata", "HoodieBootstrapFilePartitionInfo")}
    write_bootstrap_index(str(tmp_path), SOURCE, MAPPINGS, CREATED)
    partitions, file_ids = _hfiles(tmp_path)

    def read(value: bytes, name: str) -> list[Any]:
        return list(fastavro.reader(io.BytesIO(value), schemas[name]))

    assert read(partitions.file_info[b"INDEX_INFO"], "HoodieBootstrapIndexInfo")[0]["numKeys"] == 3
    assert [len(read(v, "HoodieBootstrapPartitionMetadata")[0]["fileIdToBootstrapFile"])
            for _, v in partitions.items()] == [1, 2, 1]
    assert [read(v, "HoodieBootstrapFilePartitionInfo")[0]["bootstrapFileStatus"]["length"]
            for _, v in file_ids.items()] == [1004, 1003, 1002, 1001]


def test_trailer_names_the_comparator_of_hudi_015_bootstrap_index(tmp_path: Path) -> None:
    write_bootstrap_index(str(tmp_path), SOURCE, MAPPINGS, CREATED)

    assert {r.trailer.comparator_class_name for r in _hfiles(tmp_path)} == {
        "org.apache.hudi.common.bootstrap.index.HFileBootstrapIndex$HoodieKVComparator"}


# --- refusals ----------------------------------------------------------------------------


def test_writing_over_an_existing_index_is_refused(tmp_path: Path) -> None:
    write_bootstrap_index(str(tmp_path), SOURCE, MAPPINGS, CREATED)

    with pytest.raises(TableAlreadyExistsError, match="bootstrap index exists already"):
        write_bootstrap_index(str(tmp_path), SOURCE, MAPPINGS[:1], CREATED)


@pytest.mark.parametrize(("mappings", "error", "message"), [
    ([_mapping("a;b", "f1", 1)], HudiKeyError, "holds ';'"),
    ([_mapping("dt=p1", "", 1)], HudiKeyError, "empty file id"),
    ([_mapping("dt=p1", "f1", 1), _mapping("dt=p1", "f1", 2)], HudiKeyError, "mapped twice"),
    ([_mapping("dt=p1", "f1", 1), BootstrapFileMapping("dt=p1", "f2", "other", _source("other/x", 2))],
     HudiKeyError, "two source partitions"),
    ([_mapping("../up", "f1", 1)], PathOutsideTableError, "leaves the table"),
], ids=["semicolon", "empty-file-id", "duplicate", "two-sources", "outside"])
def test_mappings_apache_could_not_read_back_are_refused(
        tmp_path: Path, mappings: list[BootstrapFileMapping], error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=message):
        write_bootstrap_index(str(tmp_path), SOURCE, mappings, CREATED)

    assert read_bootstrap_index(str(tmp_path)) is None


def test_index_without_index_info_is_refused_as_damaged(tmp_path: Path) -> None:
    partitions, _ = write_bootstrap_index(str(tmp_path), SOURCE, MAPPINGS, CREATED)
    Path(partitions).write_bytes(write_hfile([(b"part=dt=p1", b"x")]))

    with pytest.raises(HudiFileFormatError, match="no INDEX_INFO"):
        read_bootstrap_index(str(tmp_path))


# --- source files ------------------------------------------------------------------------


def test_stat_source_file_reports_a_local_file_as_hadoop_does(tmp_path: Path) -> None:
    data = tmp_path / "dt=p1" / "part-0.parquet"
    data.parent.mkdir()
    data.write_bytes(b"x" * 1251)
    data.chmod(0o640)
    os.utime(data, ns=(1795805569213702261, 1795805569213702261))

    source = stat_source_file(str(data))

    assert (source.path, source.name, source.length) == (f"file:{data}", "part-0.parquet", 1251)
    assert source.modification_time == source.access_time == 1795805569213  # milliseconds, truncated
    assert (source.block_replication, source.block_size, source.is_dir) == (1, 32 * 1024 * 1024, False)
    assert source.permission == FilePermission("READ_WRITE", "READ", "NONE", False)
