"""The bytes of the metadata table's files, as Apache Hudi 0.15 writes them.

* A **log data block** (type 4, HFILE): header ``INSTANT_TIME`` then ``SCHEMA``; the content a
  GZ-compressed HFile of the block's records in key order, no file info of Hudi's own. One block
  per log file: Apache Hudi's writer cannot append on local or object storage, so every
  deltacommit writes a new log version of each file group it touches (so do we).
* The **empty delete block** a partition's initialisation writes into a first log file of every
  file group (header ``INSTANT_TIME`` only), so that a group no record reached is still a group.
* A **base file** (compaction, initialisation): a GZ-compressed HFile with the file info
  ``schema``, ``minRecordKey``, ``maxRecordKey`` and ``bloomFilterTypeCode`` and a ``bloomFilter``
  meta block holding a dynamic bloom filter of its keys; each value carries the file's name in
  ``_hoodie_file_name``.

Records of one file are given by key; the writer sorts them (HFile keys must increase).
"""

from __future__ import annotations

__all__ = [
    "BASE_FILE_TOKEN",
    "LOG_FILE_TOKEN",
    "base_file_name",
    "encode_base_file",
    "encode_init_block",
    "encode_log_block",
    "log_file_name",
]

from collections.abc import Mapping

from hudi_sql.hfile import write_hfile
from hudi_sql.hfile.format import Compression
from hudi_sql.index.bloom_filter import DynamicBloomFilter
from hudi_sql.log.block import BlockType, HeaderKey
from hudi_sql.log.format import encode_delete_content, frame_block
from hudi_sql.metadata.records import METADATA_SCHEMA_JSON, MetadataRecord, encode_record
from hudi_sql.model.file_names import BaseFileName, LogFileName

#: The write token of log files written outside Spark tasks (Java's ``DEFAULT_WRITE_TOKEN``).
LOG_FILE_TOKEN = "0-0-0"
BASE_FILE_TOKEN = "0-0-0"
#: The bloom filter of a metadata base file: Hudi's defaults for HFiles (one row of 60,000 keys).
_BLOOM_ENTRIES, _BLOOM_FPP, _BLOOM_MAX_ENTRIES = 60000, 0.000000001, 100000


def log_file_name(file_id: str, base_instant: str, version: int, token: str = LOG_FILE_TOKEN) -> str:
    return LogFileName(file_id, base_instant, version, token).name


def base_file_name(file_id: str, instant_time: str, token: str = BASE_FILE_TOKEN) -> str:
    return BaseFileName(file_id, token, instant_time, "hfile").name


def _sorted_cells(records: Mapping[str, MetadataRecord], base_file: str | None = None) -> list[tuple[bytes, bytes]]:
    return sorted((key.encode("utf-8"), encode_record(record, base_file_name=base_file))
                  for key, record in records.items())


def encode_log_block(instant_time: str, records: Mapping[str, MetadataRecord]) -> bytes:
    """One HFILE data block holding *records* (key -> record), written by *instant_time*."""
    content = write_hfile(_sorted_cells(records), compression=Compression.GZ)
    header = {HeaderKey.INSTANT_TIME: instant_time, HeaderKey.SCHEMA: METADATA_SCHEMA_JSON}
    return frame_block(BlockType.HFILE_DATA, header, content)


def encode_init_block(instant_time: str) -> bytes:
    """The empty delete block that opens every file group of a partition being initialised."""
    return frame_block(BlockType.DELETE, {HeaderKey.INSTANT_TIME: instant_time}, encode_delete_content(()))


def encode_base_file(records: Mapping[str, MetadataRecord], name: str) -> bytes:
    """The base HFile *name* holding *records* (tombstones of index records included)."""
    cells = _sorted_cells(records, base_file=name)
    bloom = DynamicBloomFilter(num_entries=_BLOOM_ENTRIES, fpp=_BLOOM_FPP, max_entries=_BLOOM_MAX_ENTRIES)
    bloom.add_all(key.decode("utf-8") for key, _ in cells)
    info = {b"schema": METADATA_SCHEMA_JSON.encode("utf-8"), b"bloomFilterTypeCode": b"DYNAMIC_V0"}
    if cells:
        info[b"minRecordKey"] = cells[0][0]
        info[b"maxRecordKey"] = cells[-1][0]
    return write_hfile(cells, file_info=info, meta_blocks={"bloomFilter": bloom.serialize().encode("ascii")},
                       compression=Compression.GZ)
