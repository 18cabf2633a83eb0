"""CDC logs: the changes one rewrite of a base file made, written beside it (Hudi's ``HoodieCDCLogger``).

On a table with ``hoodie.table.cdc.enabled``, a merge handle that rewrites a file group's base
file also writes ``.<fileId>_<commit>.log.1_<writeToken>.cdc``: one CDC data block (type 6)
holding a record per inserted, updated and deleted row, and names it in the write stat's
``cdcStats``. A base file that only holds new rows needs no log (a CDC query reads it as
inserts), and neither do Merge-On-Read log appends (a CDC query merges them with the slice
before them), so only rewrites log, as in Apache Hudi.

What a record holds depends on the table's supplemental logging mode:

* ``DATA_BEFORE_AFTER``: ``op``, ``ts_ms`` (the commit time) and both images, the data columns
  without meta columns; a CDC query returns them as they are;
* ``DATA_BEFORE``: ``op``, ``record_key`` and the before image; the after image is read back
  from the new base file;
* ``OP_KEY_ONLY``: ``op`` and ``record_key``; both images are read back from the base files.
"""

from __future__ import annotations

__all__ = ["CdcChanges", "cdc_schema_json", "write_cdc_log"]

import json
from dataclasses import dataclass
from typing import Any

import pyarrow as pa

from hudi_sql.config.table import CdcLoggingMode
from hudi_sql.keygen.arrow_key import arrow_record_keys
from hudi_sql.keygen.record_key import RecordKeySpec
from hudi_sql.log.format import encode_cdc_data_block
from hudi_sql.model.file_names import LogFileName
from hudi_sql.model.schema import META_FIELDS, RECORD_KEY_FIELD
from hudi_sql.storage.layout import TableLayout
from hudi_sql.write.plan import HandleOptions

#: Apache Hudi's CDC schema for ``OP_KEY_ONLY`` (``HoodieCDCUtils``), byte for byte.
OP_KEY_ONLY_SCHEMA = ('{"type":"record","name":"Record","fields":[{"name":"op","type":["string","null"]},'
                      '{"name":"record_key","type":["string","null"]}]}')


def _nullable_string(name: str) -> dict[str, Any]:
    return {"name": name, "type": ["null", "string"], "doc": "", "default": None}


def cdc_schema_json(mode: CdcLoggingMode, data_schema_json: str) -> str:
    """The Avro schema of a CDC log's records for *mode*, over the table's data schema.

    The images nest the table's record (data columns only) as a nullable field; the outer
    record is ``CDC`` in the table's namespace, as Apache Hudi names it.
    """
    if mode is CdcLoggingMode.OP_KEY_ONLY:
        return OP_KEY_ONLY_SCHEMA
    image = dict(json.loads(data_schema_json))
    namespace = image.pop("namespace", None)
    before = {"name": "before", "type": ["null", image], "doc": "", "default": None}
    if mode is CdcLoggingMode.DATA_BEFORE_AFTER:
        after = {"name": "after", "type": ["null", image["name"]], "doc": "", "default": None}
        fields = [_nullable_string("op"), _nullable_string("ts_ms"), before, after]
    else:
        fields = [_nullable_string("op"), _nullable_string("record_key"), before]
    schema: dict[str, Any] = {"type": "record", "name": "CDC"}
    if namespace:
        schema["namespace"] = namespace
    schema["fields"] = fields
    return json.dumps(schema, separators=(",", ":"))


@dataclass(frozen=True)
class CdcChanges:
    """The rows one merge changed, each table in the table's full schema (meta columns first).

    ``updated_before`` and ``updated_after`` are aligned row for row.
    """

    inserted: pa.Table
    updated_before: pa.Table
    updated_after: pa.Table
    deleted: pa.Table

    @property
    def is_empty(self) -> bool:
        return not (self.inserted.num_rows or self.updated_after.num_rows or self.deleted.num_rows)


def _images(table: pa.Table) -> list[dict[str, Any]]:
    data_columns = [name for name in table.column_names if name not in META_FIELDS]
    images: list[dict[str, Any]] = table.select(data_columns).to_pylist()
    return images


def _keys(table: pa.Table, key_spec: RecordKeySpec | None) -> list[str]:
    """The rows' record keys: ``_hoodie_record_key``, or (a table without meta fields, where it is
    null) computed from the key fields as the key generator renders them."""
    keys = table.column(RECORD_KEY_FIELD) if key_spec is None else arrow_record_keys(table, key_spec)
    return [str(key) for key in keys.to_pylist()]


def _records(mode: CdcLoggingMode, instant_time: str, changes: CdcChanges,
             key_spec: RecordKeySpec | None = None) -> list[dict[str, Any]]:
    """One record per change: updates and deletes first, then inserts (Apache Hudi's order: the
    stored rows as the merge meets them, then the new ones)."""
    records: list[dict[str, Any]] = []
    if mode is CdcLoggingMode.OP_KEY_ONLY:
        for op, table in (("u", changes.updated_after), ("d", changes.deleted), ("i", changes.inserted)):
            records.extend({"op": op, "record_key": key} for key in _keys(table, key_spec))
        return records
    if mode is CdcLoggingMode.DATA_BEFORE:
        for op, table, with_image in (("u", changes.updated_before, True), ("d", changes.deleted, True),
                                      ("i", changes.inserted, False)):
            images = _images(table) if with_image else [None] * table.num_rows
            records.extend({"op": op, "record_key": key, "before": image}
                           for key, image in zip(_keys(table, key_spec), images))
        return records
    before, after = _images(changes.updated_before), _images(changes.updated_after)
    records.extend({"op": "u", "ts_ms": instant_time, "before": b, "after": a} for b, a in zip(before, after))
    records.extend({"op": "d", "ts_ms": instant_time, "before": b, "after": None} for b in _images(changes.deleted))
    records.extend({"op": "i", "ts_ms": instant_time, "before": None, "after": a} for a in _images(changes.inserted))
    return records


def write_cdc_log(options: HandleOptions, partition_path: str, file_id: str, write_token: str,
                  changes: CdcChanges) -> dict[str, int]:
    """Write the CDC log of one rewritten base file; returns ``cdcStats`` ({relative path: size}).
    A merge that changed nothing writes none on version 6, and a log of one empty block from
    version 8 on (:attr:`HandleOptions.empty_cdc_logs`)."""
    if not options.cdc_logging_mode or (changes.is_empty and not options.empty_cdc_logs):
        return {}
    mode = CdcLoggingMode.parse(options.cdc_logging_mode)
    layout = TableLayout.of(options.base_path)
    name = LogFileName(file_id, options.instant_time, 1, write_token).cdc_name
    path = layout.file_path(partition_path, name)
    schema = cdc_schema_json(mode, options.avro_schema)
    key_spec = None if options.populate_meta_fields else RecordKeySpec(options.record_key_fields,
                                                                       composite=options.complex_keys)
    data = encode_cdc_data_block(options.instant_time, schema, _records(mode, options.instant_time, changes, key_spec))
    options.storage.write_bytes(path, data, overwrite=False)
    return {layout.relative(path): len(data)}
