"""Table version 9 (Apache Hudi 1.1 / 1.2's default): read, with its merge description mapped to
the rules hudi-sql runs, and every other description refused by name.

Version 9 keeps version 8's files and timeline; ``hoodie.properties`` alone says how records of
one key merge, in the terms Apache Hudi 1.1's ``EightToNineUpgradeHandler`` writes (merge mode,
ordering fields, partial-update mode, delete field and marker, the legacy payload class kept for
the record). Hand-made ``.hoodie`` folders, no Spark; the reads of real version 9 tables against
Apache Hudi 1.2 are in ``tests/compat/test_v8_oracle_reads.py``.
"""

from __future__ import annotations

import io
from pathlib import Path

import fastavro
import pytest

from hudi_sql.config import HudiTableConfig as T
from hudi_sql.errors import HudiFileFormatError, UnsupportedFeatureError
from hudi_sql.log.block import BlockType, DeleteBlock, DeleteRecord, HeaderKey, OrderingKind, OrderingValue
from hudi_sql.log.format import (
    BLOCK_CONTENT_VERSION,
    DELETE_RECORD_LIST_READ_SCHEMA,
    DELETE_RECORD_LIST_SCHEMA,
    encode_delete_content,
    frame_block,
)
from hudi_sql.log.reader import read_log_blocks
from hudi_sql.model.payload import Payload
from hudi_sql.storage.properties import format_properties, table_checksum
from hudi_sql.table.meta_client import TableMetaClient

MODEL = "org.apache.hudi.avro.model"


def _v9_table(root: Path, **props: str) -> TableMetaClient:
    meta = root / ".hoodie"
    (meta / "timeline" / "history").mkdir(parents=True)
    values = {T.NAME.key: "t", T.TYPE.key: "MERGE_ON_READ", T.VERSION.key: "9", T.TIMELINE_LAYOUT_VERSION.key: "2",
              T.TIMELINE_PATH.key: "timeline", T.CHECKSUM.key: str(table_checksum("default", "t")), **props}
    (meta / "hoodie.properties").write_bytes(format_properties(values))
    return TableMetaClient.load(str(root))


@pytest.mark.parametrize(("props", "expected"), [
    ({T.RECORD_MERGE_MODE.key: "EVENT_TIME_ORDERING", T.ORDERING_FIELDS.key: "ts"}, ("ts", Payload.EVENT_TIME_ORDERING)),
    ({T.RECORD_MERGE_MODE.key: "COMMIT_TIME_ORDERING"}, (None, Payload.OVERWRITE_WITH_LATEST)),
    # the merge mode left out: inferred from whether there is an ordering field, as 1.x infers it
    ({T.ORDERING_FIELDS.key: "ts"}, ("ts", Payload.EVENT_TIME_ORDERING)),
    ({}, (None, Payload.OVERWRITE_WITH_LATEST)),
    # a version 8 AWSDmsAvroPayload table after Apache Hudi's upgrade to 9
    ({T.RECORD_MERGE_MODE.key: "COMMIT_TIME_ORDERING", T.MERGE_DELETE_FIELD.key: "Op", T.MERGE_DELETE_MARKER.key: "D",
      T.LEGACY_PAYLOAD_CLASS.key: Payload.AWS_DMS.java_class}, (None, Payload.AWS_DMS)),
    ({T.RECORD_MERGE_MODE.key: "EVENT_TIME_ORDERING", T.ORDERING_FIELDS.key: "ts", T.PARTIAL_UPDATE_MODE.key: "NONE"},
     ("ts", Payload.EVENT_TIME_ORDERING)),
])
def test_version9_merge_description_maps_to_the_rules_we_run(tmp_path: Path, props: dict[str, str],
                                                            expected: tuple[str | None, Payload]) -> None:
    meta = _v9_table(tmp_path / "t", **props)
    assert meta.table_version == 9 and meta.timeline_layout == 2
    assert meta.record_payload() == expected


@pytest.mark.parametrize(("props", "named"), [
    ({T.RECORD_MERGE_MODE.key: "EVENT_TIME_ORDERING", T.ORDERING_FIELDS.key: "_event_bin_file,_event_pos"},
     "2 ordering fields"),
    ({T.RECORD_MERGE_MODE.key: "EVENT_TIME_ORDERING", T.ORDERING_FIELDS.key: "ts",
      T.PARTIAL_UPDATE_MODE.key: "IGNORE_DEFAULTS"}, "IGNORE_DEFAULTS"),
    ({T.RECORD_MERGE_MODE.key: "COMMIT_TIME_ORDERING", T.MERGE_DELETE_FIELD.key: "op",
      T.MERGE_DELETE_MARKER.key: "delete"}, "hoodie.payload.delete.field=op"),
    ({T.RECORD_MERGE_MODE.key: "CUSTOM", T.RECORD_MERGE_STRATEGY_ID.key: "my-merger"}, "CUSTOM"),
])
def test_version9_merges_we_do_not_run_are_refused_naming_the_property(tmp_path: Path, props: dict[str, str],
                                                                     named: str) -> None:
    meta = _v9_table(tmp_path / "t", **props)
    with pytest.raises(UnsupportedFeatureError, match="table version 9") as refused:
        meta.record_payload()
    assert named in str(refused.value)


def test_version9_is_written_in_its_own_grammar(tmp_path: Path) -> None:
    meta = _v9_table(tmp_path / "t", **{T.RECORD_MERGE_MODE.key: "COMMIT_TIME_ORDERING"})
    meta.require_writable("upsert into")  # no error: version 9 keeps version 8's files and timeline


def test_a_table_of_another_format_is_refused(tmp_path: Path) -> None:
    with pytest.raises(UnsupportedFeatureError, match="hoodie.table.format=iceberg"):
        _v9_table(tmp_path / "t", **{T.TABLE_FORMAT.key: "iceberg"})


def _delete_content(ordering: object) -> bytes:
    """A delete block's content as Apache Hudi 1.1+ encodes it (its schema, with ArrayWrapper)."""
    out = io.BytesIO()
    datum = {"deleteRecordList": [{"recordKey": "k1", "partitionPath": "p", "orderingVal": ordering}]}
    fastavro.schemaless_writer(out, fastavro.parse_schema(DELETE_RECORD_LIST_READ_SCHEMA), datum)
    avro = out.getvalue()
    return BLOCK_CONTENT_VERSION.to_bytes(4, "big") + len(avro).to_bytes(4, "big") + avro


def _decode_deletes(content: bytes) -> tuple[DeleteRecord, ...]:
    """The records of a delete block holding *content*, read as a log file is read."""
    (block,) = list(read_log_blocks(frame_block(BlockType.DELETE, {HeaderKey.INSTANT_TIME: "20251101000000000"},
                                                content)))
    assert isinstance(block, DeleteBlock)
    return block.records


def test_a_delete_ordered_by_one_field_in_an_array_wrapper_reads_as_that_value() -> None:
    wrapped = (f"{MODEL}.ArrayWrapper", {"wrappedValues": [(f"{MODEL}.LongWrapper", {"value": 7})]})
    [record] = _decode_deletes(_delete_content(wrapped))
    assert record.ordering_value == OrderingValue(OrderingKind.LONG, 7)
    local_date = (f"{MODEL}.ArrayWrapper", {"wrappedValues": [(f"{MODEL}.LocalDateWrapper", {"value": 20000})]})
    [record] = _decode_deletes(_delete_content(local_date))
    assert record.ordering_value == OrderingValue(OrderingKind.DATE, 20000)


def test_the_array_wrapper_is_union_branch_12_after_every_plain_wrapper() -> None:
    """Java's union order: 11 plain wrappers after null, then ArrayWrapper (index 12, zig-zag 0x18)."""
    wrapped = (f"{MODEL}.ArrayWrapper", {"wrappedValues": [(f"{MODEL}.IntWrapper", {"value": 0})]})
    content = _delete_content(wrapped)
    # one record in the list; recordKey and partitionPath (non-null branch, length, bytes); orderingVal
    assert content[8:].startswith(bytes([2]) + bytes([2, 4]) + b"k1" + bytes([2, 2]) + b"p" + bytes([0x18]))
    [record] = _decode_deletes(content)
    assert record.ordering_value is not None and record.ordering_value.is_natural


def test_a_delete_ordered_by_several_fields_is_refused_naming_them() -> None:
    wrapped = (f"{MODEL}.ArrayWrapper", {"wrappedValues": [(f"{MODEL}.StringWrapper", {"value": "bin.1"}),
                                                           (f"{MODEL}.LongWrapper", {"value": 4})]})
    with pytest.raises(HudiFileFormatError, match="ordered by 2 fields"):
        _decode_deletes(_delete_content(wrapped))


def test_delete_blocks_we_write_still_use_the_plain_wrappers_every_version_reads() -> None:
    content = encode_delete_content([DeleteRecord("k1", "p", OrderingValue(OrderingKind.LONG, 7))])
    assert _decode_deletes(content)[0].ordering_value == OrderingValue(OrderingKind.LONG, 7)
    assert "ArrayWrapper" not in str(DELETE_RECORD_LIST_SCHEMA)
