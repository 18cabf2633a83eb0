"""One Avro record in an Avro container file, byte for byte as Apache Hudi's Java writes it.

The bootstrap index stores its values this way (Hudi's ``TimelineMetadataUtils`` serialise a
generated record class with ``DataFileWriter``): the schema embedded is the one Hudi's
generated Java classes print (:func:`java_schema`), so Apache Hudi reads what we write and
the bytes of equal records are equal.
"""

from __future__ import annotations

__all__ = ["decode_single", "encode_single", "java_schema"]

import functools
import hashlib
import io
import json
from collections.abc import Mapping
from importlib import resources
from typing import Any

import fastavro

from hudi_sql.errors import HudiFileFormatError


@functools.cache
def _avsc(name: str) -> dict[str, Any]:
    text = resources.files("hudi_sql.model").joinpath("avsc", f"{name}.avsc").read_text(encoding="utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema


def java_schema(node: Any, namespace: str, defined: set[str]) -> Any:
    """*node* as Hudi's generated Java classes print their schema, the text Apache embeds.

    Hudi generates them with ``stringType`` String, which marks every string and map with
    ``"avro.java.string": "String"``. A record is defined at its first use, named by its short
    name within its enclosing namespace, and referred to by that name afterwards.
    """
    if isinstance(node, list):
        return [java_schema(branch, namespace, defined) for branch in node]
    if node == "string":
        return {"type": "string", "avro.java.string": "String"}
    if isinstance(node, str):
        if node in ("null", "boolean", "int", "long", "float", "double", "bytes"):
            return node
        if node in defined:
            return node
        return java_schema(_avsc(node), namespace, defined)
    kind = node["type"]
    if kind == "map":
        return {"type": "map", "values": java_schema(node["values"], namespace, defined), "avro.java.string": "String"}
    if kind == "array":
        return {"type": "array", "items": java_schema(node["items"], namespace, defined)}
    if kind != "record":
        return node
    defined.add(node["name"])
    out: dict[str, Any] = {"type": "record", "name": node["name"]}
    inner = node.get("namespace", namespace)
    if inner != namespace:
        out["namespace"] = inner
    fields = []
    for field in node["fields"]:
        entry = {"name": field["name"], "type": java_schema(field["type"], inner, defined)}
        if "default" in field:
            entry["default"] = field["default"]
        fields.append(entry)
    out["fields"] = fields
    return out


@functools.cache
def _schema_json(record: str) -> str:
    return json.dumps(java_schema(record, "", set()), separators=(",", ":"))


@functools.cache
def _schema(record: str) -> Any:
    return fastavro.parse_schema(json.loads(_schema_json(record)))


_CONTAINER_HEADER = fastavro.parse_schema({
    "type": "record", "name": "org.apache.avro.file.Header",
    "fields": [
        {"name": "magic", "type": {"type": "fixed", "name": "Magic", "size": 4}},
        {"name": "meta", "type": {"type": "map", "values": "bytes"}},
        {"name": "sync", "type": {"type": "fixed", "name": "Sync", "size": 16}},
    ],
})


def encode_single(record: str, datum: Mapping[str, Any]) -> bytes:
    """An Avro container of one *record*, as Java's ``DataFileWriter`` writes it with codec null.

    The sync marker is derived from the record, so equal records give equal bytes.
    """
    body = io.BytesIO()
    fastavro.schemaless_writer(body, _schema(record), dict(datum))
    encoded = body.getvalue()
    sync = hashlib.md5(encoded, usedforsecurity=False).digest()
    out = io.BytesIO()
    fastavro.schemaless_writer(out, _CONTAINER_HEADER, {
        "magic": b"Obj\x01", "meta": {"avro.schema": _schema_json(record).encode()}, "sync": sync})
    fastavro.schemaless_writer(out, "long", 1)
    fastavro.schemaless_writer(out, "long", len(encoded))
    out.write(encoded)
    out.write(sync)
    return out.getvalue()


def decode_single(record: str, value: bytes, where: str) -> dict[str, Any]:
    """The one *record* of an Avro container, resolved against Hudi's schema as Java does."""
    if not value.startswith(b"Obj\x01"):
        raise HudiFileFormatError(f"{where}: the value is not an Avro container (starts with {value[:4]!r})")
    try:
        records = list(fastavro.reader(io.BytesIO(value), _schema(record)))
    except (fastavro.read.SchemaResolutionError, ValueError, TypeError, KeyError, IndexError, EOFError) as e:
        raise HudiFileFormatError(f"{where}: the value does not read as a {record}: {e}") from e
    if len(records) != 1 or not isinstance(records[0], dict):
        raise HudiFileFormatError(f"{where}: expected one {record} in the value, found {len(records)} records")
    return records[0]
