"""Avro instant files written by Apache Hudi 0.14 decode with our schemas and survive a round trip.

Hudi writes the plans and results of rollback, clean, compaction, clustering and replace as Avro
(timeline fact sheet, section 3.3). Every such file found under ``<base>/.hoodie/`` of the fixture
tables is read with our reader schema for its kind, re-serialised with our schema, and read again.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest
from fixture_tables import SampleTable

from hudi_sql.model.avro_metadata import AVRO_MAGIC, AvroMetadataKind, deserialize, serialize

pytestmark = pytest.mark.compat

# Longest suffix first: ".rollback.requested" before ".rollback".
_KIND_BY_SUFFIX: dict[str, AvroMetadataKind] = {
    ".rollback.requested": AvroMetadataKind.ROLLBACK_PLAN,
    ".rollback": AvroMetadataKind.ROLLBACK_METADATA,
    ".replacecommit.requested": AvroMetadataKind.REQUESTED_REPLACE_METADATA,
    ".compaction.requested": AvroMetadataKind.COMPACTION_PLAN,
    ".clean.requested": AvroMetadataKind.CLEANER_PLAN,
    ".clean.inflight": AvroMetadataKind.CLEANER_PLAN,
    ".clean": AvroMetadataKind.CLEAN_METADATA,
    ".savepoint": AvroMetadataKind.SAVEPOINT_METADATA,
    ".restore.requested": AvroMetadataKind.RESTORE_PLAN,
    ".restore": AvroMetadataKind.RESTORE_METADATA,
}


def _kind_of(file_name: str) -> AvroMetadataKind | None:
    instant, _, suffix = file_name.partition(".")
    if not instant.isdigit():
        return None
    return _KIND_BY_SUFFIX.get(f".{suffix}")


@dataclass(frozen=True)
class _AvroInstant:
    table: SampleTable
    path: Path
    kind: AvroMetadataKind

    @property
    def instant_time(self) -> str:
        return self.path.name.split(".", 1)[0]

    def __str__(self) -> str:
        return f"{self.table.name}/.hoodie/{self.path.name}"


def _timeline_files() -> list[tuple[SampleTable, Path]]:
    found: list[tuple[SampleTable, Path]] = []
    for table in SampleTable:
        hoodie = table.path() / ".hoodie"
        found.extend((table, path) for path in sorted(hoodie.iterdir()) if path.is_file())
    return found


@pytest.fixture(scope="module")
def timeline_files() -> list[tuple[SampleTable, Path]]:
    return _timeline_files()


@pytest.fixture(scope="module")
def avro_instants(timeline_files: list[tuple[SampleTable, Path]]) -> list[_AvroInstant]:
    """Non-empty instant files whose name says Avro (``.rollback.inflight`` and the like are empty)."""
    instants: list[_AvroInstant] = []
    for table, path in timeline_files:
        kind = _kind_of(path.name)
        if kind is not None and path.stat().st_size > 0:
            instants.append(_AvroInstant(table, path, kind))
    return instants


def test_fixture_timeline_every_avro_file_has_a_kind(timeline_files: list[tuple[SampleTable, Path]]) -> None:
    unclassified = [
        f"{table.name}/.hoodie/{path.name}"
        for table, path in timeline_files
        if path.read_bytes()[:4] == AVRO_MAGIC and _kind_of(path.name) is None
    ]
    assert not unclassified, f"Avro files with no AvroMetadataKind: {unclassified}"


def test_fixture_avro_instants_decode_and_round_trip(avro_instants: list[_AvroInstant]) -> None:
    if not avro_instants:
        pytest.skip(
            "the fixture tables hold no Avro instant files (*.rollback, *.rollback.requested, "
            "*.replacecommit.requested, *.compaction.requested, *.clean*, *.savepoint, *.restore*): "
            "their timelines have only commit/deltacommit instants"
        )
    for instant in avro_instants:
        record = deserialize(instant.path.read_bytes(), instant.kind)
        again = deserialize(serialize(instant.kind, record), instant.kind)
        assert again == record, f"{instant}: round trip changed the record"
        _check_key_facts(instant, record)


def _check_key_facts(instant: _AvroInstant, record: dict[str, object]) -> None:
    kind = instant.kind
    if kind is AvroMetadataKind.ROLLBACK_METADATA:
        assert record["commitsRollback"], f"{instant}: commitsRollback is empty"
        assert record["startRollbackTime"] == instant.instant_time, str(instant)
    elif kind is AvroMetadataKind.ROLLBACK_PLAN:
        assert record["instantToRollback"] is not None, f"{instant}: no instantToRollback"
    elif kind is AvroMetadataKind.REQUESTED_REPLACE_METADATA:
        if record["clusteringPlan"] is None:
            # insert_overwrite / delete_partition: Hudi writes a record with every field null.
            assert all(value is None for value in record.values()), f"{instant}: {record}"
        else:
            assert record["operationType"] == "CLUSTER", str(instant)
    elif kind is AvroMetadataKind.COMPACTION_PLAN:
        assert record["operations"], f"{instant}: compaction plan without operations"
    elif kind is AvroMetadataKind.CLEANER_PLAN:
        assert record["policy"], f"{instant}: cleaner plan without policy"
    elif kind is AvroMetadataKind.CLEAN_METADATA:
        assert record["startCleanTime"] == instant.instant_time, str(instant)
