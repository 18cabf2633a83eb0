"""Hudi log files (Merge-On-Read delta logs, table version 6): blocks, bytes, scanning, merging.

* :mod:`.block` - the block values (data, delete, command, corrupt) and their enums;
* :mod:`.format` - encoding blocks and naming log files;
* :mod:`.reader` - reading blocks with Java's corrupt-block rules;
* :mod:`.scanner` - which blocks of a file slice count, and merging their records by key;
* :mod:`.avro_arrow` - Avro writer schemas to Arrow schemas for decoded rows.
"""

from hudi_sql.log.avro_arrow import avro_records_to_arrow, avro_schema_to_arrow
from hudi_sql.log.block import (
    NATURAL_ORDER,
    BlockType,
    CommandBlock,
    CommandType,
    CorruptBlock,
    DataBlock,
    DeleteBlock,
    DeleteRecord,
    HeaderKey,
    LogBlock,
    OrderingKind,
    OrderingValue,
    RawBlock,
)
from hudi_sql.log.format import (
    ROLLBACK_WRITE_TOKEN,
    LogFileName,
    encode_avro_data_block,
    encode_delete_block,
    encode_parquet_data_block,
    encode_rollback_block,
    frame_block,
)
from hudi_sql.log.reader import decode_block, read_log_blocks, read_raw_blocks
from hudi_sql.log.scanner import (
    LogScanResult,
    MergedLogRecords,
    RecordBlock,
    merge_log_records,
    scan_file_slice_logs,
)

__all__ = [
    "NATURAL_ORDER",
    "ROLLBACK_WRITE_TOKEN",
    "BlockType",
    "CommandBlock",
    "CommandType",
    "CorruptBlock",
    "DataBlock",
    "DeleteBlock",
    "DeleteRecord",
    "HeaderKey",
    "LogBlock",
    "LogFileName",
    "LogScanResult",
    "MergedLogRecords",
    "OrderingKind",
    "OrderingValue",
    "RawBlock",
    "RecordBlock",
    "avro_records_to_arrow",
    "avro_schema_to_arrow",
    "decode_block",
    "encode_avro_data_block",
    "encode_delete_block",
    "encode_parquet_data_block",
    "encode_rollback_block",
    "frame_block",
    "merge_log_records",
    "read_log_blocks",
    "read_raw_blocks",
    "scan_file_slice_logs",
]
