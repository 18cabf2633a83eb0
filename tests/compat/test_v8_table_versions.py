"""Table versions on load: versions 8 and 9 (timeline layout 2) are read; any version we cannot read fails.

Hand-made ``.hoodie`` folders (no Spark): a silent empty read of an unknown version is the
failure this guards against, so each unsupported version must raise, naming the version.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import fastavro
import pytest

from hudi_sql.config import HudiTableConfig as T
from hudi_sql.errors import HudiConfigError, UnsupportedFeatureError
from hudi_sql.model.instant import Action, State
from hudi_sql.model.payload import Payload
from hudi_sql.storage.properties import format_properties, table_checksum
from hudi_sql.table.meta_client import TableMetaClient, init_table

AVSC = Path(__file__).resolve().parents[2] / "hudi_sql" / "model" / "avsc" / "HoodieCommitMetadata.avsc"


def _table(root: Path, version: str, *, layout: str | None = None, **extra: str) -> Path:
    meta = root / ".hoodie"
    meta.mkdir(parents=True)
    values = {T.NAME.key: "t", T.TYPE.key: "COPY_ON_WRITE", T.VERSION.key: version,
              T.CHECKSUM.key: str(table_checksum("default", "t")), **extra}
    if layout is not None:
        values[T.TIMELINE_LAYOUT_VERSION.key] = layout
    (meta / "hoodie.properties").write_bytes(format_properties(values))
    return root


@pytest.mark.parametrize("version", ["10", "7", "5"])
def test_meta_client_load_unsupported_version_raises_naming_it(tmp_path: Path, version: str) -> None:
    table = _table(tmp_path / "t", version, layout="2" if int(version) >= 7 else "1")
    # Even a timeline we could parse must not be read as if it were a version we know.
    (table / ".hoodie" / "timeline").mkdir()
    (table / ".hoodie" / "timeline" / "20250101000000000_20250101000001000.commit").write_bytes(b"")
    with pytest.raises(UnsupportedFeatureError, match=f"table version {version}\\b"):
        TableMetaClient.load(str(table))


def test_meta_client_load_version8_with_layout1_raises(tmp_path: Path) -> None:
    table = _table(tmp_path / "t", "8", layout="1")
    with pytest.raises(HudiConfigError, match="timeline layout 2"):
        TableMetaClient.load(str(table))


def _avro_commit_metadata(partition: str, file_name: str) -> bytes:
    schema = fastavro.parse_schema(json.loads(AVSC.read_text()))
    record = {"partitionToWriteStats": {partition: [{"fileId": file_name.split("_")[0], "partitionPath": partition,
                                                     "path": f"{partition}/{file_name}", "numWrites": 3}]},
              "operationType": "UPSERT", "extraMetadata": {"schema": "{}"}, "version": 1}
    out = io.BytesIO()
    fastavro.writer(out, schema, [record])
    return out.getvalue()


def test_meta_client_load_version8_reads_layout2_timeline(tmp_path: Path) -> None:
    table = _table(tmp_path / "t", "8", layout="2", **{T.TIMELINE_PATH.key: "timeline"})
    timeline = table / ".hoodie" / "timeline"
    (timeline / "history").mkdir(parents=True)  # the LSM archived timeline: a folder, not instants
    (timeline / "history" / "_version_").write_text("1")
    req, done = "20250713011315930", "20250713011316231"
    (timeline / f"{req}.commit.requested").write_bytes(b"")
    (timeline / f"{req}.inflight").write_bytes(b"")
    (timeline / f"{req}_{done}.commit").write_bytes(_avro_commit_metadata("sf", f"fid-0_0-1-2_{req}.parquet"))
    (timeline / "20250713011317000.commit.requested").write_bytes(b"")
    meta = TableMetaClient.load(str(table))
    assert meta.table_version == 8 and meta.timeline_layout == 2
    completed = meta.timeline.completed_writes()
    assert [(i.instant_time, i.completion_time) for i in completed] == [(req, done)]
    assert [i.instant_time for i in meta.timeline.pending()] == ["20250713011317000"]
    metadata = meta.commit_metadata(meta.timeline.find(req, Action.COMMIT, State.COMPLETED))  # type: ignore[arg-type]
    assert metadata.operation_type == "UPSERT"
    assert [(s.partition_path, s.num_writes) for s in metadata.write_stats()] == [("sf", 3)]


def test_meta_client_require_writable_version8_accepts(tmp_path: Path) -> None:
    meta = TableMetaClient.load(str(_table(tmp_path / "t", "8", layout="2")))
    meta.require_writable("write")  # no error: version 8 is written in its own grammar


@pytest.mark.parametrize(("given", "mode", "strategy", "payload"), [
    ({T.PRECOMBINE_FIELD.key: "ts"}, "EVENT_TIME_ORDERING", "eeb8d96f-b1e4-49fd-bbf8-28ac514178e5",
     "org.apache.hudi.common.model.DefaultHoodieRecordPayload"),
    ({}, "COMMIT_TIME_ORDERING", "ce9acb64-bde0-424c-9b91-f6ebba25356d",
     "org.apache.hudi.common.model.OverwriteWithLatestAvroPayload"),
    ({T.PRECOMBINE_FIELD.key: "ts", T.PAYLOAD_CLASS.key: "org.apache.hudi.common.model.OverwriteWithLatestAvroPayload"},
     "COMMIT_TIME_ORDERING", "ce9acb64-bde0-424c-9b91-f6ebba25356d",
     "org.apache.hudi.common.model.OverwriteWithLatestAvroPayload"),
    ({T.PRECOMBINE_FIELD.key: "ts", T.PAYLOAD_CLASS.key: "org.apache.hudi.common.model.PartialUpdateAvroPayload"},
     "CUSTOM", "00000000-0000-0000-0000-000000000000", "org.apache.hudi.common.model.PartialUpdateAvroPayload"),
])
def test_init_table_version8_declares_what_apache_hudi_1x_declares(
        tmp_path: Path, given: dict[str, str], mode: str, strategy: str, payload: str) -> None:
    """The properties of a table Apache Hudi 1.0.2 creates (seen in its own tables): the merge mode
    follows the payload class when one is named, else the ordering field."""
    meta = init_table(str(tmp_path / "t"), {T.NAME.key: "t", T.VERSION.key: "8", **given})
    props = meta.properties
    assert (props[T.VERSION.key], props[T.INITIAL_VERSION.key], props[T.TIMELINE_LAYOUT_VERSION.key]) == ("8", "8", "2")
    assert (props[T.TIMELINE_PATH.key], props[T.TIMELINE_HISTORY_PATH.key]) == ("timeline", "history")
    assert (props[T.RECORD_MERGE_MODE.key], props[T.RECORD_MERGE_STRATEGY_ID.key], props[T.PAYLOAD_CLASS.key]) == (
        mode, strategy, payload)
    assert (tmp_path / "t" / ".hoodie" / "timeline" / "history").is_dir()
    assert meta.record_payload()[1] is not None  # every mode we create is one we merge


def test_init_table_refuses_a_version_it_does_not_write(tmp_path: Path) -> None:
    with pytest.raises(UnsupportedFeatureError, match="table version 7"):
        init_table(str(tmp_path / "t"), {T.NAME.key: "t", T.VERSION.key: "7"})
    assert not (tmp_path / "t" / ".hoodie").exists()


_MODEL = "org.apache.hudi.common.model"


@pytest.mark.parametrize(("given", "declared"), [
    ({T.PRECOMBINE_FIELD.key: "ts"}, {T.RECORD_MERGE_MODE.key: "EVENT_TIME_ORDERING", T.ORDERING_FIELDS.key: "ts"}),
    ({}, {T.RECORD_MERGE_MODE.key: "COMMIT_TIME_ORDERING"}),
    ({T.PRECOMBINE_FIELD.key: "ts", T.PAYLOAD_CLASS.key: f"{_MODEL}.OverwriteWithLatestAvroPayload"},
     {T.RECORD_MERGE_MODE.key: "COMMIT_TIME_ORDERING", T.ORDERING_FIELDS.key: "ts",
      T.LEGACY_PAYLOAD_CLASS.key: f"{_MODEL}.OverwriteWithLatestAvroPayload"}),
    ({T.PRECOMBINE_FIELD.key: "ts", T.PAYLOAD_CLASS.key: f"{_MODEL}.EventTimeAvroPayload"},
     {T.RECORD_MERGE_MODE.key: "EVENT_TIME_ORDERING", T.ORDERING_FIELDS.key: "ts",
      T.LEGACY_PAYLOAD_CLASS.key: f"{_MODEL}.EventTimeAvroPayload"}),
    ({T.PAYLOAD_CLASS.key: f"{_MODEL}.AWSDmsAvroPayload"},
     {T.RECORD_MERGE_MODE.key: "COMMIT_TIME_ORDERING", T.LEGACY_PAYLOAD_CLASS.key: f"{_MODEL}.AWSDmsAvroPayload",
      T.MERGE_DELETE_FIELD.key: "Op", T.MERGE_DELETE_MARKER.key: "D"}),
])
def test_init_table_version9_names_merge_modes_not_payload_classes(
        tmp_path: Path, given: dict[str, str], declared: dict[str, str]) -> None:
    """As Apache Hudi 1.1+ creates a version 9 table (``inferMergingConfigsForV9TableCreation``, and
    its own tables): no payload class, no precombine field, no strategy id of a built-in mode; a
    named payload kept as the legacy payload with the mode it stands for. Every such table is one
    whose merge we run."""
    meta = init_table(str(tmp_path / "t"), {T.NAME.key: "t", T.VERSION.key: "9", **given})
    props = meta.properties
    assert (props[T.VERSION.key], props[T.INITIAL_VERSION.key], props[T.TABLE_FORMAT.key]) == ("9", "9", "native")
    merge_keys = {T.RECORD_MERGE_MODE.key, T.ORDERING_FIELDS.key, T.LEGACY_PAYLOAD_CLASS.key, T.PAYLOAD_CLASS.key,
                  T.PRECOMBINE_FIELD.key, T.RECORD_MERGE_STRATEGY_ID.key, T.MERGE_DELETE_FIELD.key,
                  T.MERGE_DELETE_MARKER.key, T.PARTIAL_UPDATE_MODE.key}
    assert {k: v for k, v in props.items() if k in merge_keys} == declared
    meta.require_writable("upsert into")
    assert meta.record_payload()[1] is not None


def test_init_table_version9_refuses_a_payload_that_becomes_a_partial_update_mode(tmp_path: Path) -> None:
    with pytest.raises(UnsupportedFeatureError, match="partial-update mode"):
        init_table(str(tmp_path / "t"), {T.NAME.key: "t", T.VERSION.key: "9", T.PRECOMBINE_FIELD.key: "ts",
                                         T.PAYLOAD_CLASS.key: f"{_MODEL}.PartialUpdateAvroPayload"})
    assert not (tmp_path / "t" / ".hoodie").exists()


@pytest.mark.parametrize(("mode", "expected"), [("COMMIT_TIME_ORDERING", (None, Payload.OVERWRITE_WITH_LATEST)),
                                                ("EVENT_TIME_ORDERING", ("ts", Payload.EVENT_TIME_ORDERING))])
def test_meta_client_record_payload_version8_follows_merge_mode(tmp_path: Path, mode: str,
                                                                expected: tuple[str | None, Payload]) -> None:
    table = _table(tmp_path / "t", "8", layout="2", **{T.RECORD_MERGE_MODE.key: mode, T.PRECOMBINE_FIELD.key: "ts"})
    assert TableMetaClient.load(str(table)).record_payload() == expected


def test_meta_client_record_payload_custom_merge_mode_raises(tmp_path: Path) -> None:
    table = _table(tmp_path / "t", "8", layout="2", **{T.RECORD_MERGE_MODE.key: "CUSTOM"})
    with pytest.raises(UnsupportedFeatureError, match="CUSTOM"):
        TableMetaClient.load(str(table)).record_payload()


def test_meta_client_partition_fields_version8_drops_key_generator_types(tmp_path: Path) -> None:
    table = _table(tmp_path / "t", "8", layout="2", **{T.PARTITION_FIELDS.key: "city:SIMPLE,day:TIMESTAMP"})
    assert TableMetaClient.load(str(table)).partition_fields == ("city", "day")
