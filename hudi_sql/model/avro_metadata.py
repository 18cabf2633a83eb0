"""Avro timeline metadata of table version 6: plans and results of rollback, clean, compaction, ...

Hudi 0.14 stores the content of several instant files as an Avro Object Container File that holds
exactly **one** record, codec ``null`` (the file metadata has ``avro.schema`` and no
``avro.codec``), with a record from the namespace ``org.apache.hudi.avro.model``:

=========================================  ======================================================
instant file                               record (:class:`AvroMetadataKind`)
=========================================  ======================================================
``<ts>.rollback.requested``                ``HoodieRollbackPlan`` (ROLLBACK_PLAN)
``<ts>.rollback``                          ``HoodieRollbackMetadata`` (ROLLBACK_METADATA)
``<ts>.replacecommit.requested``           ``HoodieRequestedReplaceMetadata`` (all null for
                                           insert_overwrite; a clustering plan for clustering)
``<ts>.compaction.requested``              ``HoodieCompactionPlan`` (COMPACTION_PLAN)
``<ts>.clean.requested`` / ``.inflight``   ``HoodieCleanerPlan`` (CLEANER_PLAN)
``<ts>.clean``                             ``HoodieCleanMetadata`` (CLEAN_METADATA)
``<ts>.savepoint``                         ``HoodieSavepointMetadata`` (SAVEPOINT_METADATA)
``<ts>.restore.requested``                 ``HoodieRestorePlan`` (RESTORE_PLAN)
``<ts>.restore``                           ``HoodieRestoreMetadata`` (RESTORE_METADATA)
records in ``.hoodie/archived/`` logs      ``HoodieArchivedMetaEntry`` (ARCHIVED_META_ENTRY)
=========================================  ======================================================

Java reads these files with ``SpecificDatumReader``: the schema embedded in the file (ours) is
resolved against Hudi's generated classes. That works when the record names and namespace match
and every field that has no default in Hudi's schema is present in ours; fields Hudi does not know
are skipped. So the schemas under ``avsc/`` are transcriptions of Hudi's ``.avsc`` files, never
invented, and :func:`serialize` refuses a record that omits a field without a default or carries
a key the schema does not know (a silently dropped ``rollbackRequests`` instead of
``RollbackRequests`` would be the worst kind of bug).

**Schema files.** ``avsc/`` holds one file per Hudi ``.avsc`` (same file names, so
``HoodieCompactionOperation.avsc`` defines ``HoodieCompactionPlan`` as in Hudi), pure JSON without
Hudi's comments. Files refer to each other by record name, as in Hudi. :func:`schema` builds one
self-contained schema per kind: each named type is defined, inline, at its first use in
depth-first field order and referred to by full name afterwards, which is the form both Java's
``Schema.Parser`` and fastavro require. That self-contained JSON is what goes into the header of
every file we write.

Transcribed from ``apache/hudi`` ``hudi-common/src/main/avro/`` (the code index holds a mix of
versions; the closest to 0.14/0.15 were taken and checked against the fields of real 0.14 files
described in the timeline fact sheet, sections 8.1-8.8):

- ``HoodieInstantInfo`` ``ac3ae4a6``; ``HoodieRollbackPlan`` ``971b2c43``.
- ``HoodieRollbackMetadata`` ``3e0dcf4b`` plus ``logFilesFromFailedCommit`` (map<long>|null), the
  name real 0.14 files carry (older stored versions call it ``writtenLogFiles`` or lack it).
- ``HoodieRequestedReplaceMetadata`` ``d9d77e4a``; ``HoodieClusteringPlan`` ``22c0d5a0``;
  ``HoodieClusteringGroup`` and ``HoodieSliceInfo`` ``d5e5c40b``; ``HoodieClusteringStrategy``
  ``4a0107c3``.
- ``HoodieCompactionPlan`` ``362fff53`` plus ``strategy`` and ``preserveHoodieMetadata``
  (boolean, default false) from log compaction (0.13); ``HoodieCompactionStrategy`` ``5ebe5720``.
  Hudi 1.x adds ``missingSchedulePartitions``, left out here (it has a default).
- ``HoodieCleanerPlan`` ``ac3ae4a6``; ``HoodieCleanMetadata`` ``826de778``;
  ``HoodieCleanPartitionMetadata`` ``655551e5``. Both carry ``extraMetadata`` (0.15); the
  ``policy`` field one stored version of ``HoodieCleanMetadata`` has is not in the schema Hudi's
  own ``CleanerUtils`` writes, so it is left out.
- ``HoodieSavepointMetadata`` ``42a480fc``; ``HoodieRestorePlan`` ``1163eb82``;
  ``HoodieRestoreMetadata`` ``0141d991``.
- ``HoodieArchivedMetaEntry`` ``94e4c2e7``, with ``HoodieCommitMetadata`` (``HoodieWriteStat``)
  ``d5e5c40b``, ``HoodieReplaceCommitMetadata`` ``a99e93be``, ``HoodieCompactionMetadata``
  ``3474bcd8``, ``HoodieIndexCommitMetadata`` ``647754bf``, ``HoodieIndexPartitionInfo``
  ``d5e5c40b``.

Every field added on top of what 0.14 has carries a default, so Java 0.14 skips it on read, and
files written by 0.14 (which lack it) read back with the default filled in. Checked by hand with
Java Apache Avro 1.12.1 (the jar PySpark ships): its strict ``Schema.Parser`` accepts every
:func:`schema_json`, and ``DataFileReader`` reads what :func:`serialize` writes.
"""

from __future__ import annotations

__all__ = [
    "AVRO_MAGIC",
    "AvroMetadataKind",
    "deserialize",
    "deserialize_many",
    "empty_requested_replace_metadata",
    "schema",
    "schema_json",
    "serialize",
]

import functools
import hashlib
import io
import json
from collections.abc import Mapping
from enum import Enum
from pathlib import Path
from typing import Any

import fastavro
from fastavro.validation import ValidationError

from hudi_sql.errors import HudiFileFormatError, did_you_mean

AVRO_MAGIC = b"Obj\x01"
"""The first four bytes of every Avro Object Container File."""

_NAMESPACE = "org.apache.hudi.avro.model"
_AVSC_DIR = Path(__file__).with_name("avsc")
_PRIMITIVES = frozenset({"null", "boolean", "int", "long", "float", "double", "bytes", "string"})

# The container header, as the Avro specification defines it.
_HEADER_SCHEMA = fastavro.parse_schema(
    {
        "type": "record",
        "name": "org.apache.avro.file.Header",
        "fields": [
            {"name": "magic", "type": {"type": "fixed", "name": "Magic", "size": 4}},
            {"name": "meta", "type": {"type": "map", "values": "bytes"}},
            {"name": "sync", "type": {"type": "fixed", "name": "Sync", "size": 16}},
        ],
    }
)


class AvroMetadataKind(Enum):
    """Which Hudi record an Avro timeline file holds; the value is the record's name."""

    ROLLBACK_PLAN = "HoodieRollbackPlan"
    ROLLBACK_METADATA = "HoodieRollbackMetadata"
    REQUESTED_REPLACE_METADATA = "HoodieRequestedReplaceMetadata"
    COMPACTION_PLAN = "HoodieCompactionPlan"
    CLEANER_PLAN = "HoodieCleanerPlan"
    CLEAN_METADATA = "HoodieCleanMetadata"
    SAVEPOINT_METADATA = "HoodieSavepointMetadata"
    RESTORE_PLAN = "HoodieRestorePlan"
    RESTORE_METADATA = "HoodieRestoreMetadata"
    ARCHIVED_META_ENTRY = "HoodieArchivedMetaEntry"
    #: Table version 8 only: completed and inflight commit / deltacommit files (JSON in version 6).
    COMMIT_METADATA = "HoodieCommitMetadata"
    #: Table version 8 only: completed replacecommit files.
    REPLACE_COMMIT_METADATA = "HoodieReplaceCommitMetadata"

    @property
    def full_name(self) -> str:
        """The record's full name, e.g. ``org.apache.hudi.avro.model.HoodieRollbackPlan``."""
        return f"{_NAMESPACE}.{self.value}"


# --------------------------------------------------------------------------------------------
# Schemas


def _qualify(name: str, namespace: str) -> str:
    return name if "." in name or not namespace else f"{namespace}.{name}"


def _register(node: Any, namespace: str, into: dict[str, tuple[dict[str, Any], str]]) -> None:
    """Index every record defined in *node* (also nested ones) by full name."""
    if isinstance(node, list):
        for branch in node:
            _register(branch, namespace, into)
    elif isinstance(node, dict):
        kind = node.get("type")
        if kind == "record":
            namespace = node.get("namespace", namespace)
            into[_qualify(node["name"], namespace)] = (node, namespace)
            for field in node["fields"]:
                _register(field["type"], namespace, into)
        elif kind == "array":
            _register(node["items"], namespace, into)
        elif kind == "map":
            _register(node["values"], namespace, into)


@functools.cache
def _definitions() -> dict[str, tuple[dict[str, Any], str]]:
    """Every record of the ``avsc/`` files: full name -> (definition, enclosing namespace)."""
    found: dict[str, tuple[dict[str, Any], str]] = {}
    for path in sorted(_AVSC_DIR.glob("*.avsc")):
        _register(json.loads(path.read_text(encoding="utf-8")), "", found)
    return found


def _inline(node: Any, namespace: str, defined: set[str]) -> Any:
    """A copy of *node* where each record is defined at its first use and named after that."""
    if isinstance(node, str):
        if node in _PRIMITIVES:
            return node
        full = _qualify(node, namespace)
        if full in defined:
            return full
        try:
            definition, enclosing = _definitions()[full]
        except KeyError:
            raise HudiFileFormatError(f"Avro schema refers to unknown type '{full}'") from None
        return _inline(definition, enclosing, defined)
    if isinstance(node, list):
        return [_inline(branch, namespace, defined) for branch in node]
    kind = node.get("type")
    if kind == "record":
        namespace = node.get("namespace", namespace)
        full = _qualify(node["name"], namespace)
        if full in defined:
            return full
        defined.add(full)
        out = {key: value for key, value in node.items() if key not in ("name", "namespace", "fields")}
        short = full.rsplit(".", 1)[-1]
        out["name"] = short
        out["namespace"] = full[: -len(short) - 1]
        out["fields"] = [
            {**field, "type": _inline(field["type"], namespace, defined)} for field in node["fields"]
        ]
        return out
    if kind == "array":
        return {**node, "items": _inline(node["items"], namespace, defined)}
    if kind == "map":
        return {**node, "values": _inline(node["values"], namespace, defined)}
    return node


@functools.cache
def schema_json(kind: AvroMetadataKind) -> str:
    """The self-contained schema of *kind*, as JSON: what :func:`serialize` embeds in each file."""
    return json.dumps(_inline(kind.full_name, "", set()), separators=(",", ":"))


@functools.cache
def _parsed(kind: AvroMetadataKind) -> tuple[dict[str, Any], dict[str, Any]]:
    named: dict[str, Any] = {}
    parsed = fastavro.parse_schema(json.loads(schema_json(kind)), named)
    assert isinstance(parsed, dict)  # a record schema parses to a dict
    return parsed, named


def schema(kind: AvroMetadataKind) -> dict[str, Any]:
    """The parsed fastavro schema of *kind* (cached; do not mutate it)."""
    return _parsed(kind)[0]


# --------------------------------------------------------------------------------------------
# Writing


def _check_shape(kind: AvroMetadataKind, node: Any, datum: Any, path: str, named: dict[str, Any]) -> None:
    """Fields without a default must be present; keys the schema does not know are refused.

    Type checks are left to fastavro's validation, which runs afterwards.
    """
    if isinstance(node, str):
        if node not in named:
            return
        node = named[node]
    if isinstance(node, list):
        if datum is None:
            return
        others = [branch for branch in node if branch != "null"]
        if len(others) == 1:
            _check_shape(kind, others[0], datum, path, named)
        return
    kind_of = node.get("type")
    if kind_of == "record" and isinstance(datum, Mapping):
        fields = {field["name"]: field for field in node["fields"]}
        for key in datum:
            if key not in fields:
                raise HudiFileFormatError(
                    f"{kind.value}: '{path}' has no field '{key}'.{did_you_mean(str(key), fields)}",
                    help=f"the fields of {node['name']} are: {', '.join(fields)}",
                )
        for name, field in fields.items():
            where = f"{path}.{name}"
            if name in datum:
                _check_shape(kind, field["type"], datum[name], where, named)
            elif "default" not in field:
                raise HudiFileFormatError(
                    f"{kind.value}: required field '{where}' is missing",
                    help="Hudi's schema gives this field no default; set it (None where the type allows null)",
                )
    elif kind_of == "array" and isinstance(datum, list | tuple):
        for index, item in enumerate(datum):
            _check_shape(kind, node["items"], item, f"{path}[{index}]", named)
    elif kind_of == "map" and isinstance(datum, Mapping):
        for key, value in datum.items():
            _check_shape(kind, node["values"], value, f"{path}[{key!r}]", named)


def _long(value: int) -> bytes:
    out = io.BytesIO()
    fastavro.schemaless_writer(out, "long", value)
    return out.getvalue()


def _container(kind: AvroMetadataKind, encoded: bytes) -> bytes:
    """An Object Container File with one block holding one record, as Java's DataFileWriter writes it.

    The sync marker is derived from the content, so the same record always gives the same bytes.
    """
    sync = hashlib.md5(encoded, usedforsecurity=False).digest()
    out = io.BytesIO()
    fastavro.schemaless_writer(
        out,
        _HEADER_SCHEMA,
        {"magic": AVRO_MAGIC, "meta": {"avro.schema": schema_json(kind).encode("utf-8")}, "sync": sync},
    )
    out.write(_long(1))
    out.write(_long(len(encoded)))
    out.write(encoded)
    out.write(sync)
    return out.getvalue()


def serialize(kind: AvroMetadataKind, record: Mapping[str, Any]) -> bytes:
    """The bytes of an instant file holding *record*: one record, codec null, our schema of *kind*.

    Args:
        kind: Which Hudi record *record* is.
        record: Field name -> value, with Hudi's (camelCase) names. Fields with a default may be
            left out; the default is written.

    Returns:
        An Avro Object Container File that Hudi's Java reader accepts.

    Raises:
        HudiFileFormatError: A field without a default is missing, a key is not a field of the
            record, or a value does not fit its type.
    """
    parsed, named = _parsed(kind)
    _check_shape(kind, parsed, record, kind.value, named)
    try:
        fastavro.validation.validate(record, parsed, raise_errors=True)
        encoded = io.BytesIO()
        fastavro.schemaless_writer(
            encoded, parsed, record, strict_allow_default=True, disable_tuple_notation=True
        )
    except (ValidationError, ValueError, TypeError, AttributeError) as error:
        raise HudiFileFormatError(
            f"{kind.value}: the record does not fit Hudi's schema: {error}",
            help="compare the record with hudi_sql/model/avsc/",
        ) from error
    return _container(kind, encoded.getvalue())


def empty_requested_replace_metadata() -> bytes:
    """The ``.replacecommit.requested`` content of insert_overwrite: every field null.

    Hudi 0.14 serialises a ``HoodieRequestedReplaceMetadata`` built with no values, so even
    ``version`` is null (not its default 1).
    """
    return serialize(
        AvroMetadataKind.REQUESTED_REPLACE_METADATA,
        {"operationType": None, "clusteringPlan": None, "extraMetadata": None, "version": None},
    )


# --------------------------------------------------------------------------------------------
# Reading


def deserialize_many(data: bytes, kind: AvroMetadataKind | None = None) -> list[dict[str, Any]]:
    """Every record of an Avro Object Container File.

    Args:
        data: The file's bytes.
        kind: When given, records are resolved to our schema of *kind*: fields the writer did not
            know get their defaults, fields we do not know are dropped, and the record names must
            match (as in Java). When ``None``, records are read with the writer's schema as is.

    Raises:
        HudiFileFormatError: The bytes are empty or not an Avro container, or they do not resolve
            to *kind* (another record, or a field without a default is missing).
    """
    what = kind.value if kind is not None else "Avro metadata"
    if not data:
        raise HudiFileFormatError(
            f"{what}: the file is empty",
            help="some instant files are empty by design (e.g. .rollback.inflight, .compaction.inflight)",
        )
    if data[: len(AVRO_MAGIC)] != AVRO_MAGIC:
        raise HudiFileFormatError(
            f"{what}: not an Avro container file (starts with {data[:4]!r}, not {AVRO_MAGIC!r})",
            help="commit, deltacommit and replacecommit files are JSON, not Avro",
        )
    reader_schema = schema(kind) if kind is not None else None
    try:
        values = list(fastavro.reader(io.BytesIO(data), reader_schema))
    except (
        fastavro.read.SchemaResolutionError,
        ValueError,
        TypeError,
        KeyError,
        IndexError,
        EOFError,
    ) as error:
        raise HudiFileFormatError(f"{what}: cannot read the Avro file: {error}") from error
    records = []
    for value in values:
        if not isinstance(value, dict):
            raise HudiFileFormatError(f"{what}: the Avro file holds a {type(value).__name__}, not a record")
        records.append(value)
    return records


def deserialize(data: bytes, kind: AvroMetadataKind | None = None) -> dict[str, Any]:
    """The one record of an Avro instant file (see :func:`deserialize_many` for *kind*).

    Raises:
        HudiFileFormatError: As :func:`deserialize_many`, or the file holds no record or several.
    """
    records = deserialize_many(data, kind)
    if len(records) != 1:
        what = kind.value if kind is not None else "Avro metadata"
        raise HudiFileFormatError(f"{what}: expected exactly one record in the file, found {len(records)}")
    return records[0]
