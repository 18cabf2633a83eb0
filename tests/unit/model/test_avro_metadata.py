"""Avro timeline metadata: schemas, single-record containers, defaults, and errors."""

from __future__ import annotations

import copy
import io
import json
from typing import Any

import fastavro
import pytest

from hudi_sql.errors import HudiFileFormatError
from hudi_sql.model.avro_metadata import (
    AVRO_MAGIC,
    AvroMetadataKind,
    deserialize,
    deserialize_many,
    empty_requested_replace_metadata,
    schema,
    schema_json,
    serialize,
)

BASE = "/data/hudi/trips"
FID = "0712b9f9-4d34-4fa6-8f0b-4c8a1e6d2a11-0"

ROLLBACK_PLAN: dict[str, Any] = {
    "instantToRollback": {"commitTime": "20250126040826878", "action": "deltacommit"},
    "RollbackRequests": [
        {
            "partitionPath": "city=sf",
            "fileId": "",
            "latestBaseInstant": "",
            "filesToBeDeleted": [f"{BASE}/city=sf/cd329d8f-0_0-33-42_20250126040826878.parquet"],
            "logBlocksToBeDeleted": {},
        },
        {
            "partitionPath": "city=sf",
            "fileId": FID,
            "latestBaseInstant": "20250126040823628",
            "filesToBeDeleted": [],
            "logBlocksToBeDeleted": {f"file:{BASE}/city=sf/.{FID}_20250126040823628.log.1_0-33-43": 11828},
        },
    ],
    "version": 1,
}

ROLLBACK_METADATA: dict[str, Any] = {
    "startRollbackTime": "20250126040830111",
    "timeTakenInMillis": 1873,
    "totalFilesDeleted": 1,
    "commitsRollback": ["20250126040826878"],
    "partitionMetadata": {
        "city=sf": {
            "partitionPath": "city=sf",
            "successDeleteFiles": [f"file:{BASE}/city=sf/cd329d8f-0_0-33-42_20250126040826878.parquet"],
            "failedDeleteFiles": [],
            "rollbackLogFiles": {f"file:{BASE}/city=sf/.{FID}_20250126040823628.log.2_1-0-1": 105},
            "logFilesFromFailedCommit": {
                f"file:{BASE}/city=sf/.{FID}_20250126040823628.log.1_0-33-43": 11828
            },
        }
    },
    "version": 1,
    "instantsRollback": [{"commitTime": "20250126040826878", "action": "deltacommit"}],
}

REQUESTED_REPLACE_CLUSTERING: dict[str, Any] = {
    "operationType": "CLUSTER",
    "clusteringPlan": {
        "inputGroups": [
            {
                "slices": [
                    {
                        "dataFilePath": f"{BASE}/city=sf/{FID}_0-10-11_20240418172802262.parquet",
                        "deltaFilePaths": [],
                        "fileId": FID,
                        "partitionPath": "city=sf",
                        "bootstrapFilePath": "",
                        "version": 1,
                    }
                ],
                "metrics": {"TOTAL_IO_READ_MB": 0.5, "TOTAL_IO_WRITE_MB": 0.5, "TOTAL_IO_MB": 1.0},
                "numOutputFileGroups": 1,
                "extraMetadata": None,
                "version": 1,
            }
        ],
        "strategy": {
            "strategyClassName": "org.apache.hudi.client.clustering.run.strategy.SparkSortAndSizeExecutionStrategy",
            "strategyParams": {"hoodie.clustering.plan.strategy.sort.columns": "ts"},
            "version": 1,
        },
        "extraMetadata": {},
        "version": 1,
        "preserveHoodieMetadata": True,
    },
    "extraMetadata": {},
    "version": 1,
}

COMPACTION_PLAN: dict[str, Any] = {
    "operations": [
        {
            "baseInstantTime": "20240418172802262",
            "deltaFilePaths": [f".{FID}_20240418172802262.log.1_0-45-60"],
            "dataFilePath": f"{FID}_0-10-11_20240418172802262.parquet",
            "fileId": FID,
            "partitionPath": "city=sf",
            "metrics": {
                "TOTAL_LOG_FILES": 1.0,
                "TOTAL_IO_READ_MB": 0.42,
                "TOTAL_LOG_FILES_SIZE": 12044.0,
                "TOTAL_IO_WRITE_MB": 0.41,
                "TOTAL_IO_MB": 0.83,
            },
            "bootstrapFilePath": None,
        }
    ],
    "extraMetadata": None,
    "version": 2,
    "strategy": None,
    "preserveHoodieMetadata": False,
}

CLEANER_PLAN: dict[str, Any] = {
    "earliestInstantToRetain": {"timestamp": "20240418173000000", "action": "commit", "state": "COMPLETED"},
    "lastCompletedCommitTimestamp": "20240418173500000",
    "policy": "KEEP_LATEST_COMMITS",
    "filesToBeDeletedPerPartition": {},
    "version": 2,
    "filePathsToBeDeletedPerPartition": {
        "city=sf": [
            {
                "filePath": f"file:{BASE}/city=sf/{FID}_0-10-11_20240418172802262.parquet",
                "isBootstrapBaseFile": False,
            }
        ]
    },
    "partitionsToBeDeleted": [],
    "extraMetadata": None,
}

CLEAN_METADATA: dict[str, Any] = {
    "startCleanTime": "20240418173600000",
    "timeTakenInMillis": 412,
    "totalFilesDeleted": 1,
    "earliestCommitToRetain": "20240418173000000",
    "lastCompletedCommitTimestamp": "20240418173500000",
    "partitionMetadata": {
        "city=sf": {
            "partitionPath": "city=sf",
            "policy": "KEEP_LATEST_COMMITS",
            "deletePathPatterns": [f"{FID}_0-10-11_20240418172802262.parquet"],
            "successDeleteFiles": [f"{FID}_0-10-11_20240418172802262.parquet"],
            "failedDeleteFiles": [],
            "isPartitionDeleted": False,
        }
    },
    "version": 2,
    "bootstrapPartitionMetadata": {},
    "extraMetadata": None,
}

SAVEPOINT_METADATA: dict[str, Any] = {
    "savepointedBy": "hudi",
    "savepointedAt": 1713479282,
    "comments": "before the backfill",
    "partitionMetadata": {
        "city=sf": {
            "partitionPath": "city=sf",
            "savepointDataFile": [f"{FID}_0-10-11_20240418172802262.parquet"],
        }
    },
    "version": 1,
}

RESTORE_PLAN: dict[str, Any] = {
    "instantsToRollback": [
        {"commitTime": "20240418173500000", "action": "commit"},
        {"commitTime": "20240418173400000", "action": "replacecommit"},
    ],
    "version": 2,
    "savepointToRestoreTimestamp": "20240418172802262",
}

RESTORE_METADATA: dict[str, Any] = {
    "startRestoreTime": "20240418174000000",
    "timeTakenInMillis": 950,
    "instantsToRollback": ["20240418173500000"],
    "hoodieRestoreMetadata": {
        "20240418173500000": [{**ROLLBACK_METADATA, "startRollbackTime": "20240418174000000"}]
    },
    "version": 1,
    "restoreInstantInfo": [{"commitTime": "20240418173500000", "action": "commit"}],
    "extraMetadata": None,
}

WRITE_STAT: dict[str, Any] = {
    "fileId": FID,
    "path": f"city=sf/{FID}_0-10-11_20240418172802262.parquet",
    "prevCommit": "null",
    "numWrites": 3,
    "numDeletes": 0,
    "numUpdateWrites": 0,
    "numInserts": 3,
    "totalWriteBytes": 435321,
    "totalWriteErrors": 0,
    "partitionPath": "city=sf",
    "fileSizeInBytes": 435321,
}

ARCHIVED_META_ENTRY: dict[str, Any] = {
    "hoodieCommitMetadata": {
        "partitionToWriteStats": {"city=sf": [WRITE_STAT]},
        "compacted": False,
        "extraMetadata": {"schema": '{"type":"record","name":"trips","fields":[]}'},
        "version": 1,
        "operationType": "UPSERT",
    },
    "commitTime": "20240418172802262",
    "actionType": "commit",
    "version": 1,
    "actionState": "COMPLETED",
    "stateTransitionTime": "20240418172805000",
}

#: A version 8 deltacommit file, as Apache Hudi 1.0.2 writes one (the log-append fields set).
COMMIT_METADATA: dict[str, Any] = {
    "partitionToWriteStats": {"city=sf": [{
        **WRITE_STAT, "path": f"city=sf/.{FID}_20240418172802262.log.1_0-91-123", "prevCommit": "20240418172802262",
        "logVersion": 1, "logOffset": 0, "baseFile": "", "logFiles": [f".{FID}_20240418172802262.log.1_0-91-123"],
        "runtimeStats": {"totalScanTime": 0, "totalCreateTime": 0, "totalUpsertTime": 152},
    }]},
    "compacted": False,
    "extraMetadata": {"schema": '{"type":"record","name":"trips","fields":[]}'},
    "version": None,
    "operationType": "UPSERT_PREPPED",
}

REPLACE_COMMIT_METADATA: dict[str, Any] = {
    "partitionToWriteStats": {"city=sf": [WRITE_STAT]},
    "extraMetadata": {"schema": '{"type":"record","name":"trips","fields":[]}'},
    "version": 1,
    "operationType": "INSERT_OVERWRITE",
    "partitionToReplaceFileIds": {"city=sf": ["5d2a1a3e-0000-4a8f-9d3e-2b8f1c0e7a10-0"]},
}

REALISTIC: dict[AvroMetadataKind, dict[str, Any]] = {
    AvroMetadataKind.COMMIT_METADATA: COMMIT_METADATA,
    AvroMetadataKind.REPLACE_COMMIT_METADATA: REPLACE_COMMIT_METADATA,
    AvroMetadataKind.ROLLBACK_PLAN: ROLLBACK_PLAN,
    AvroMetadataKind.ROLLBACK_METADATA: ROLLBACK_METADATA,
    AvroMetadataKind.REQUESTED_REPLACE_METADATA: REQUESTED_REPLACE_CLUSTERING,
    AvroMetadataKind.COMPACTION_PLAN: COMPACTION_PLAN,
    AvroMetadataKind.CLEANER_PLAN: CLEANER_PLAN,
    AvroMetadataKind.CLEAN_METADATA: CLEAN_METADATA,
    AvroMetadataKind.SAVEPOINT_METADATA: SAVEPOINT_METADATA,
    AvroMetadataKind.RESTORE_PLAN: RESTORE_PLAN,
    AvroMetadataKind.RESTORE_METADATA: RESTORE_METADATA,
    AvroMetadataKind.ARCHIVED_META_ENTRY: ARCHIVED_META_ENTRY,
}


def _with_defaults(kind: AvroMetadataKind, record: dict[str, Any]) -> dict[str, Any]:
    """What a reader returns for *record*: omitted fields filled with their defaults, deeply."""
    named: dict[str, Any] = {}
    fastavro.parse_schema(json.loads(schema_json(kind)), named)

    def fill(node: Any, datum: Any) -> Any:
        if isinstance(node, str) and node in named:
            node = named[node]
        if isinstance(node, list):
            if datum is None:
                return None
            (other,) = [branch for branch in node if branch != "null"]
            return fill(other, datum)
        if isinstance(node, dict) and node["type"] == "record":
            return {
                f["name"]: fill(f["type"], datum[f["name"]]) if f["name"] in datum else f["default"]
                for f in node["fields"]
            }
        if isinstance(node, dict) and node["type"] == "array":
            return [fill(node["items"], item) for item in datum]
        if isinstance(node, dict) and node["type"] == "map":
            return {key: fill(node["values"], value) for key, value in datum.items()}
        return datum

    return fill(kind.full_name, record)  # type: ignore[no-any-return]


def _container(writer_schema: dict[str, Any], records: list[dict[str, Any]]) -> bytes:
    out = io.BytesIO()
    fastavro.writer(out, fastavro.parse_schema(writer_schema), records)
    return out.getvalue()


# --- schemas -----------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", list(AvroMetadataKind))
def test_schema_each_kind_has_hudi_record_name_and_namespace(kind: AvroMetadataKind) -> None:
    assert schema(kind)["name"] == f"org.apache.hudi.avro.model.{kind.value}"
    assert schema(kind) is schema(kind)  # cached
    embedded = json.loads(schema_json(kind))
    assert (embedded["namespace"], embedded["name"]) == ("org.apache.hudi.avro.model", kind.value)


@pytest.mark.parametrize("kind", list(AvroMetadataKind))
def test_schema_json_each_kind_defines_every_named_type_once(kind: AvroMetadataKind) -> None:
    definitions: list[str] = []

    def walk(node: Any) -> None:
        if isinstance(node, list):
            for branch in node:
                walk(branch)
        elif isinstance(node, dict):
            if node["type"] == "record":
                assert node["namespace"] == "org.apache.hudi.avro.model"
                definitions.append(node["name"])
                for field in node["fields"]:
                    walk(field["type"])
            elif node["type"] == "array":
                walk(node["items"])
            elif node["type"] == "map":
                walk(node["values"])

    walk(json.loads(schema_json(kind)))
    assert len(definitions) == len(set(definitions))
    # Self-contained: a fresh parser (no shared named types) accepts it.
    fastavro.parse_schema(json.loads(schema_json(kind)), {})


def test_schema_archived_meta_entry_includes_union_members() -> None:
    text = schema_json(AvroMetadataKind.ARCHIVED_META_ENTRY)
    for name in (
        "HoodieCommitMetadata",
        "HoodieWriteStat",
        "HoodieReplaceCommitMetadata",
        "HoodieCleanMetadata",
        "HoodieCleanerPlan",
        "HoodieCompactionPlan",
        "HoodieRollbackMetadata",
        "HoodieSavepointMetadata",
        "HoodieRequestedReplaceMetadata",
        "HoodieIndexCommitMetadata",
    ):
        assert f'"name":"{name}"' in text


# --- serialize / deserialize -------------------------------------------------------------------


@pytest.mark.parametrize("kind", list(AvroMetadataKind))
def test_serialize_realistic_record_round_trips(kind: AvroMetadataKind) -> None:
    record = REALISTIC[kind]
    data = serialize(kind, record)
    assert deserialize(data, kind) == _with_defaults(kind, record)
    # Read with the writer schema only, the same values come back.
    assert deserialize(data) == _with_defaults(kind, record)


def test_serialize_rollback_plan_keeps_files_and_log_blocks() -> None:
    read = deserialize(
        serialize(AvroMetadataKind.ROLLBACK_PLAN, ROLLBACK_PLAN), AvroMetadataKind.ROLLBACK_PLAN
    )
    first, second = read["RollbackRequests"]
    assert first["filesToBeDeleted"] == ROLLBACK_PLAN["RollbackRequests"][0]["filesToBeDeleted"]
    assert second["logBlocksToBeDeleted"] == {
        f"file:{BASE}/city=sf/.{FID}_20250126040823628.log.1_0-33-43": 11828
    }


def test_serialize_compaction_plan_keeps_operations_and_metrics() -> None:
    read = deserialize(
        serialize(AvroMetadataKind.COMPACTION_PLAN, COMPACTION_PLAN), AvroMetadataKind.COMPACTION_PLAN
    )
    (operation,) = read["operations"]
    assert operation["fileId"] == FID
    assert operation["metrics"]["TOTAL_LOG_FILES_SIZE"] == 12044.0
    assert read["version"] == 2


def test_serialize_output_is_one_record_container_without_codec() -> None:
    data = serialize(AvroMetadataKind.CLEANER_PLAN, CLEANER_PLAN)
    assert data.startswith(AVRO_MAGIC)
    reader = fastavro.reader(io.BytesIO(data))
    assert reader.metadata.get("avro.codec", "null") == "null"
    assert set(reader.metadata) == {"avro.schema"}
    assert json.loads(reader.metadata["avro.schema"]) == json.loads(
        schema_json(AvroMetadataKind.CLEANER_PLAN)
    )
    assert len(list(reader)) == 1
    blocks = list(fastavro.block_reader(io.BytesIO(data)))
    assert [block.num_records for block in blocks] == [1]


def test_serialize_same_record_gives_same_bytes() -> None:
    assert serialize(AvroMetadataKind.ROLLBACK_METADATA, ROLLBACK_METADATA) == serialize(
        AvroMetadataKind.ROLLBACK_METADATA, copy.deepcopy(ROLLBACK_METADATA)
    )


def test_serialize_omitted_fields_with_defaults_written_as_defaults() -> None:
    data = serialize(
        AvroMetadataKind.ROLLBACK_PLAN, {"instantToRollback": ROLLBACK_PLAN["instantToRollback"]}
    )
    assert deserialize(data) == {
        "instantToRollback": {"commitTime": "20250126040826878", "action": "deltacommit"},
        "RollbackRequests": None,
        "version": 1,
    }
    plan = serialize(AvroMetadataKind.COMPACTION_PLAN, {"operations": []})
    assert deserialize(plan)["preserveHoodieMetadata"] is False


def test_serialize_missing_required_field_raises() -> None:
    record = {key: value for key, value in ROLLBACK_METADATA.items() if key != "startRollbackTime"}
    with pytest.raises(HudiFileFormatError, match=r"HoodieRollbackMetadata\.startRollbackTime"):
        serialize(AvroMetadataKind.ROLLBACK_METADATA, record)


def test_serialize_missing_nested_required_field_names_its_path() -> None:
    record = copy.deepcopy(ROLLBACK_PLAN)
    del record["RollbackRequests"][1]["partitionPath"]
    with pytest.raises(HudiFileFormatError, match=r"RollbackRequests\[1\]\.partitionPath"):
        serialize(AvroMetadataKind.ROLLBACK_PLAN, record)


def test_serialize_nullable_field_without_default_must_still_be_present() -> None:
    operation = {k: v for k, v in COMPACTION_PLAN["operations"][0].items() if k != "baseInstantTime"}
    with pytest.raises(HudiFileFormatError, match="baseInstantTime"):
        serialize(AvroMetadataKind.COMPACTION_PLAN, {"operations": [operation]})
    # Explicitly null is fine: the type allows it.
    serialize(AvroMetadataKind.COMPACTION_PLAN, {"operations": [{**operation, "baseInstantTime": None}]})


def test_serialize_unknown_field_raises_with_hint() -> None:
    record = {"rollbackRequests": ROLLBACK_PLAN["RollbackRequests"]}
    with pytest.raises(HudiFileFormatError, match="Did you mean 'RollbackRequests'"):
        serialize(AvroMetadataKind.ROLLBACK_PLAN, record)


def test_serialize_wrong_type_raises() -> None:
    with pytest.raises(HudiFileFormatError, match="does not fit"):
        serialize(AvroMetadataKind.ROLLBACK_METADATA, {**ROLLBACK_METADATA, "totalFilesDeleted": "1"})
    with pytest.raises(HudiFileFormatError, match="does not fit"):
        serialize(AvroMetadataKind.CLEANER_PLAN, {**CLEANER_PLAN, "policy": None})


def test_deserialize_writer_without_defaulted_fields_fills_defaults() -> None:
    # A rollback written by an older Hudi: no log-file maps, no version, no instantsRollback.
    old_schema = {
        "type": "record",
        "name": "HoodieRollbackMetadata",
        "namespace": "org.apache.hudi.avro.model",
        "fields": [
            {"name": "startRollbackTime", "type": "string"},
            {"name": "timeTakenInMillis", "type": "long"},
            {"name": "totalFilesDeleted", "type": "int"},
            {"name": "commitsRollback", "type": {"type": "array", "items": "string"}},
            {
                "name": "partitionMetadata",
                "type": {
                    "type": "map",
                    "values": {
                        "type": "record",
                        "name": "HoodieRollbackPartitionMetadata",
                        "fields": [
                            {"name": "partitionPath", "type": "string"},
                            {"name": "successDeleteFiles", "type": {"type": "array", "items": "string"}},
                            {"name": "failedDeleteFiles", "type": {"type": "array", "items": "string"}},
                        ],
                    },
                },
            },
        ],
    }
    old = {
        "startRollbackTime": "20250126040830111",
        "timeTakenInMillis": 5,
        "totalFilesDeleted": 0,
        "commitsRollback": ["20250126040826878"],
        "partitionMetadata": {
            "": {"partitionPath": "", "successDeleteFiles": [], "failedDeleteFiles": ["x"]}
        },
    }
    read = deserialize(_container(old_schema, [old]), AvroMetadataKind.ROLLBACK_METADATA)
    assert read["version"] == 1
    assert read["instantsRollback"] == []
    assert read["partitionMetadata"][""] == {
        "partitionPath": "",
        "successDeleteFiles": [],
        "failedDeleteFiles": ["x"],
        "rollbackLogFiles": None,
        "logFilesFromFailedCommit": None,
    }


def test_deserialize_without_kind_keeps_writer_fields() -> None:
    newer = json.loads(schema_json(AvroMetadataKind.RESTORE_PLAN))
    newer["fields"].append({"name": "futureField", "type": ["null", "string"], "default": None})
    data = _container(newer, [{**RESTORE_PLAN, "futureField": "x"}])
    assert deserialize(data)["futureField"] == "x"
    assert "futureField" not in deserialize(data, AvroMetadataKind.RESTORE_PLAN)


def test_deserialize_writer_missing_required_field_raises() -> None:
    incomplete = json.loads(schema_json(AvroMetadataKind.SAVEPOINT_METADATA))
    incomplete["fields"] = [f for f in incomplete["fields"] if f["name"] != "comments"]
    data = _container(incomplete, [{k: v for k, v in SAVEPOINT_METADATA.items() if k != "comments"}])
    assert "comments" not in deserialize(data)
    with pytest.raises(HudiFileFormatError, match="HoodieSavepointMetadata"):
        deserialize(data, AvroMetadataKind.SAVEPOINT_METADATA)


def test_deserialize_other_record_kind_raises() -> None:
    data = serialize(AvroMetadataKind.ROLLBACK_PLAN, ROLLBACK_PLAN)
    with pytest.raises(HudiFileFormatError, match="HoodieCleanerPlan"):
        deserialize(data, AvroMetadataKind.CLEANER_PLAN)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"", "empty"),
        (b'{\n  "partitionToWriteStats" : {}\n}', "not an Avro container"),
        (b"Obj\x01\x02", "cannot read"),
    ],
    ids=["empty", "json", "truncated"],
)
def test_deserialize_bad_bytes_raises(data: bytes, message: str) -> None:
    with pytest.raises(HudiFileFormatError, match=message):
        deserialize(data, AvroMetadataKind.ROLLBACK_METADATA)


def test_deserialize_container_of_non_records_raises() -> None:
    out = io.BytesIO()
    fastavro.writer(out, "string", ["not a record"])
    with pytest.raises(HudiFileFormatError, match="holds a str, not a record"):
        deserialize(out.getvalue())


def test_deserialize_truncated_container_raises() -> None:
    data = serialize(AvroMetadataKind.CLEAN_METADATA, CLEAN_METADATA)
    with pytest.raises(HudiFileFormatError):
        deserialize(data[: len(data) - 40], AvroMetadataKind.CLEAN_METADATA)


def test_deserialize_many_reads_every_record() -> None:
    entries = [
        ARCHIVED_META_ENTRY,
        {
            "hoodieRollbackMetadata": ROLLBACK_METADATA,
            "commitTime": "20250126040830111",
            "actionType": "rollback",
        },
        {"hoodieCleanerPlan": CLEANER_PLAN, "commitTime": "20240418173600000", "actionType": "clean"},
    ]
    kind = AvroMetadataKind.ARCHIVED_META_ENTRY
    data = _container(json.loads(schema_json(kind)), entries)
    assert deserialize_many(data, kind) == [_with_defaults(kind, entry) for entry in entries]
    with pytest.raises(HudiFileFormatError, match="exactly one record"):
        deserialize(data, kind)


# --- insert_overwrite -------------------------------------------------------------------------


def test_empty_requested_replace_metadata_is_all_null() -> None:
    data = empty_requested_replace_metadata()
    assert data.startswith(AVRO_MAGIC)
    expected = {"operationType": None, "clusteringPlan": None, "extraMetadata": None, "version": None}
    assert deserialize(data) == expected
    # Not even version takes its default: the value is present, and null.
    assert deserialize(data, AvroMetadataKind.REQUESTED_REPLACE_METADATA) == expected
