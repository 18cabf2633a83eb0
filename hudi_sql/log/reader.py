"""Reading Hudi log files (log format version 1), with Java's corrupt-block rules.

Java's ``HoodieLogFileReader`` checks each block *before* parsing it, because a writer that
crashed mid-block leaves a torn tail and a later log version continues cleanly:

1. 6 bytes of MAGIC start every block; fewer than 6 bytes left is the normal end of file.
2. After the 8-byte length ``L``, the trailer at ``pos + L - 8`` must equal ``L + 6``, and the
   6 bytes at ``pos + L`` must be MAGIC or the end of the file (``pos`` = just after ``L``).
3. A block failing these checks becomes a :class:`~hudi_sql.log.block.CorruptBlock` spanning
   from just after its MAGIC to the next MAGIC (a forward byte scan) or the end of the file,
   and reading resumes there.

A block that passes the checks but does not parse inside (an unknown type or header key, a
content length that overruns) is not a torn write but a bad writer; that raises.

Corrupt blocks are reported through ``logging`` (this module's logger), never ``warnings``:
skipping them is the documented behaviour, not a misuse of the API.
"""

from __future__ import annotations

__all__ = ["LogSource", "decode_block", "read_log_blocks", "read_raw_blocks"]

import io
import logging
import os
import struct
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import fastavro
import pyarrow as pa
import pyarrow.parquet as pq

from hudi_sql.errors import HudiFileFormatError, UnsupportedFeatureError
from hudi_sql.log.avro_arrow import avro_records_to_arrow, avro_schema_to_arrow, parse_avro_schema
from hudi_sql.log.avro_columns import decode_datums
from hudi_sql.log.block import (
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
    ARRAY_WRAPPER,
    BLOCK_CONTENT_VERSION,
    DELETE_RECORD_LIST_READ_SCHEMA,
    LOCAL_DATE_WRAPPER,
    LOG_FORMAT_VERSION,
    MAGIC,
)

_log = logging.getLogger(__name__)

LogSource = bytes | bytearray | memoryview | str | os.PathLike[str] | Callable[[], bytes]
"""The bytes of a whole log file, a local path to one, or a function reading it (from any store)."""

_INT = struct.Struct(">i")
_LONG = struct.Struct(">q")
_MAGIC_LEN = len(MAGIC)
# format version + type + empty header + content length + empty footer + trailer
_MIN_BLOCK_LENGTH = 4 + 4 + 4 + 8 + 4 + 8
_WRAPPERS = {kind.full_name: kind for kind in OrderingKind} | {LOCAL_DATE_WRAPPER: OrderingKind.DATE}
_DELETE_SCHEMA = fastavro.parse_schema(DELETE_RECORD_LIST_READ_SCHEMA)


def _load(source: LogSource, name: str | None) -> tuple[bytes, str]:
    if isinstance(source, (bytes, bytearray, memoryview)):
        return bytes(source), name or "<bytes>"
    if callable(source):
        return source(), name or "<stored file>"
    path = Path(os.fspath(source))
    return path.read_bytes(), name or path.name


def read_raw_blocks(source: LogSource, *, name: str | None = None) -> Iterator[RawBlock | CorruptBlock]:
    """The blocks of one log file, framed but not decoded, in file order.

    The whole file is read into memory: log files roll over at ``hoodie.logfile.max.size``
    (1 GB by default), and blocks of the slices we write are far smaller.

    Args:
        source: the file's bytes or its path.
        name: the file name for messages; defaults to the path's name.

    Yields:
        A :class:`RawBlock` per well-framed block, a :class:`CorruptBlock` per span skipped
        by the corruption rules (each also logged as a warning).

    Raises:
        HudiFileFormatError: when the file does not start with MAGIC, or a well-framed block
            does not parse (format version other than 1, unknown type or header key).
    """
    data, where = _load(source, name)
    size = len(data)
    pos = 0
    while size - pos >= _MAGIC_LEN:
        if data[pos : pos + _MAGIC_LEN] != MAGIC:
            raise HudiFileFormatError(
                f"log file {where}: no MAGIC at offset {pos}",
                help="this is not a Hudi log file (or not log format version 1)",
            )
        start = pos + _MAGIC_LEN
        reason = _framing_problem(data, start)
        if reason is not None:
            # Same result as Java's byte-by-byte scan: the first MAGIC at or after start.
            found = data.find(MAGIC, start)
            end = size if found < 0 else found
            _log.warning(
                "log file %s: corrupt block at offset %d (%s); skipped %d bytes up to offset %d",
                where,
                start,
                reason,
                end - start,
                end,
            )
            yield CorruptBlock(offset=start, length=end - start)
            pos = end
            continue
        (length,) = _LONG.unpack_from(data, start)
        yield _parse_block(data, pos, start + 8, start + length, where)
        pos = start + 8 + length
    if pos < size:
        _log.debug("log file %s: %d trailing bytes shorter than MAGIC ignored", where, size - pos)


def _framing_problem(data: bytes, start: int) -> str | None:
    """Why the block whose length field is at *start* fails Java's checks, or ``None``."""
    size = len(data)
    if size - start < 8:
        return "length field cut off"
    (length,) = _LONG.unpack_from(data, start)
    if length < _MIN_BLOCK_LENGTH:
        return f"block length {length} too small"
    trailer_at = start + length
    if trailer_at + 8 > size:
        return f"block length {length} runs past the end of the file"
    (trailer,) = _LONG.unpack_from(data, trailer_at)
    if trailer - _MAGIC_LEN != length:
        return f"trailer {trailer} does not match block length {length} + 6"
    next_at = trailer_at + 8
    if size - next_at >= _MAGIC_LEN and data[next_at : next_at + _MAGIC_LEN] != MAGIC:
        return "no MAGIC after the block"
    return None


class _Cursor:
    """Bounds-checked big-endian reads inside one block."""

    def __init__(self, data: bytes, pos: int, end: int, what: str) -> None:
        self.data, self.pos, self.end, self.what = data, pos, end, what

    def take(self, n: int) -> bytes:
        if n < 0 or self.pos + n > self.end:
            raise HudiFileFormatError(f"{self.what}: a field of {n} bytes overruns the block")
        chunk = self.data[self.pos : self.pos + n]
        self.pos += n
        return chunk

    def int32(self) -> int:
        value: int = _INT.unpack(self.take(4))[0]
        return value

    def int64(self) -> int:
        value: int = _LONG.unpack(self.take(8))[0]
        return value

    def metadata(self) -> dict[HeaderKey, str]:
        entries: dict[HeaderKey, str] = {}
        count = self.int32()
        for _ in range(count):
            key = self.int32()
            if not 0 <= key <= max(HeaderKey):
                raise HudiFileFormatError(
                    f"{self.what}: invalid metadata key {key} (valid keys are 0..8)",
                    help="the block was written by a newer or foreign writer",
                )
            raw = self.take(self.int32())
            try:
                entries[HeaderKey(key)] = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise HudiFileFormatError(
                    f"{self.what}: {HeaderKey(key).name} value is not UTF-8: {exc}"
                ) from exc
        return entries


def _parse_block(data: bytes, magic_at: int, body_at: int, trailer_at: int, where: str) -> RawBlock:
    cursor = _Cursor(data, body_at, trailer_at, f"log file {where}, block at offset {magic_at}")
    version = cursor.int32()
    if version != LOG_FORMAT_VERSION:
        raise HudiFileFormatError(
            f"{cursor.what}: log format version {version}",
            help="only log format version 1 (Hudi 0.x/1.x) is supported",
        )
    code = cursor.int32()
    try:
        block_type = BlockType(code)
    except ValueError:
        raise HudiFileFormatError(f"{cursor.what}: unknown block type {code}") from None
    header = cursor.metadata()
    content = cursor.take(cursor.int64())
    footer = cursor.metadata()
    if cursor.pos != trailer_at:
        raise HudiFileFormatError(
            f"{cursor.what}: {trailer_at - cursor.pos} unexplained bytes before the trailer"
        )
    return RawBlock(magic_at, block_type, header, content, footer)


def decode_block(raw: RawBlock) -> DataBlock | DeleteBlock | CommandBlock:
    """Decodes the content of a well-framed block.

    Raises:
        HudiFileFormatError: when the content or a required header does not parse.
        UnsupportedFeatureError: for HFile blocks (the metadata table's).
    """
    what = f"{raw.block_type.name} block at offset {raw.offset}"
    if raw.block_type in (BlockType.AVRO_DATA, BlockType.CDC_DATA):
        schema = _required(raw, HeaderKey.SCHEMA)
        table = _decode_avro_columns(raw.content, schema)
        if table is None:
            table = avro_records_to_arrow(_decode_avro_records(raw.content, schema, what), schema)
        return DataBlock(raw.instant_time, schema, table, raw.block_type, raw.header)
    if raw.block_type is BlockType.PARQUET_DATA:
        try:
            table = pq.read_table(pa.BufferReader(raw.content))
        except (pa.ArrowException, OSError) as exc:
            raise HudiFileFormatError(f"{what}: content is not a parquet file: {exc}") from exc
        return DataBlock(
            raw.instant_time, _required(raw, HeaderKey.SCHEMA), table, raw.block_type, raw.header
        )
    if raw.block_type is BlockType.DELETE:
        schema = raw.header.get(HeaderKey.SCHEMA, "")
        return DeleteBlock(raw.instant_time, schema, _decode_deletes(raw.content, what), raw.header)
    if raw.block_type is BlockType.COMMAND:
        command = _required(raw, HeaderKey.COMMAND_BLOCK_TYPE)
        if command != str(int(CommandType.ROLLBACK)):
            raise HudiFileFormatError(f"{what}: unknown command block type '{command}'")
        target = _required(raw, HeaderKey.TARGET_INSTANT_TIME)
        return CommandBlock(raw.instant_time, target, raw.header)
    if raw.block_type is BlockType.CORRUPT:
        raise HudiFileFormatError(f"{what}: CORRUPT blocks are never written; the file is damaged")
    raise UnsupportedFeatureError(
        f"{what}: {raw.block_type.name} blocks are not supported",
        help="HFile blocks belong to the metadata table, which is not read here",
    )


def _required(raw: RawBlock, key: HeaderKey) -> str:
    try:
        return raw.header[key]
    except KeyError:
        raise HudiFileFormatError(
            f"{raw.block_type.name} block at offset {raw.offset} has no {key.name} header"
        ) from None


def _decode_avro_columns(content: bytes, schema_json: str) -> pa.Table | None:
    """The records of version 3 content decoded column-wise (:mod:`hudi_sql.log.avro_columns`);
    ``None`` for what only the record decoder handles, or explains: other schemas, bad bytes."""
    if len(content) < 8 or _INT.unpack_from(content, 0)[0] != BLOCK_CONTENT_VERSION:
        return None
    return decode_datums(schema_json, avro_schema_to_arrow(schema_json), content, 8, _INT.unpack_from(content, 4)[0])


def _decode_avro_records(content: bytes, schema_json: str, what: str) -> list[dict[str, Any]]:
    """Version 3 content: count, then length-prefixed datums in the header SCHEMA."""
    cursor = _Cursor(content, 0, len(content), what)
    version = cursor.int32()
    if version != BLOCK_CONTENT_VERSION:
        raise HudiFileFormatError(
            f"{what}: Avro data block content version {version}",
            help="only content version 3 (Hudi 0.14+) is supported",
        )
    count = cursor.int32()
    schema = parse_avro_schema(schema_json)
    stream = io.BytesIO(content)
    rows: list[dict[str, Any]] = []
    for index in range(count):
        datum_length = cursor.int32()
        stream.seek(cursor.pos)
        end = cursor.pos + datum_length
        try:
            row = fastavro.schemaless_reader(stream, schema, None)
        except (EOFError, ValueError, IndexError, UnicodeDecodeError, StopIteration) as exc:
            raise HudiFileFormatError(f"{what}: record {index} does not decode: {exc}") from exc
        if stream.tell() != end:
            raise HudiFileFormatError(
                f"{what}: record {index} decodes to {stream.tell() - cursor.pos} bytes, "
                f"its length prefix says {datum_length}"
            )
        cursor.take(datum_length)
        rows.append(row)
    if cursor.pos != len(content):
        raise HudiFileFormatError(f"{what}: {len(content) - cursor.pos} bytes after the last record")
    return rows


def _decode_deletes(content: bytes, what: str) -> tuple[DeleteRecord, ...]:
    """Version 3 content: one ``HoodieDeleteRecordList`` with the wrapper union."""
    cursor = _Cursor(content, 0, len(content), what)
    version = cursor.int32()
    if version != BLOCK_CONTENT_VERSION:
        raise HudiFileFormatError(
            f"{what}: delete block content version {version}",
            help="versions 1 and 2 are Java-serialised keys from old Hudi releases; only 3 is supported",
        )
    avro = cursor.take(cursor.int32())
    try:
        datum: Any = fastavro.schemaless_reader(
            io.BytesIO(avro), _DELETE_SCHEMA, None, return_record_name=True
        )
    except IndexError as exc:
        raise HudiFileFormatError(
            f"{what}: an orderingVal union branch beyond ArrayWrapper",
            help="the log was written by an Apache Hudi release newer than 1.2; read it with Apache Hudi",
        ) from exc
    except (EOFError, ValueError, UnicodeDecodeError, StopIteration) as exc:
        raise HudiFileFormatError(f"{what}: HoodieDeleteRecordList does not decode: {exc}") from exc
    records = []
    for item in datum["deleteRecordList"]:
        if item["recordKey"] is None:
            raise HudiFileFormatError(f"{what}: a delete record has a null recordKey")
        records.append(
            DeleteRecord(item["recordKey"], item["partitionPath"] or "", _ordering(item["orderingVal"], what))
        )
    return tuple(records)


def _ordering(wrapped: Any, what: str) -> OrderingValue | None:
    """The ordering value of a delete record.

    Apache Hudi 1.1+ (table version 9) wraps it in an ``ArrayWrapper``, one element per ordering
    field; with one ordering field that element is the value, compared exactly as the plain
    wrapper of earlier versions. An ordering over several fields is a tuple, which the merge
    rules here do not compare (tables declaring several are refused before any log is read).
    """
    if wrapped is None:
        return None
    name, record = wrapped
    if name != ARRAY_WRAPPER:
        return OrderingValue(_WRAPPERS[name], record["value"])
    values = record["wrappedValues"] or []
    if not values:
        return None
    if len(values) > 1:
        raise HudiFileFormatError(
            f"{what}: a delete ordered by {len(values)} fields (an ArrayWrapper of {len(values)} values)",
            help="tables ordered by several fields are not supported; read it with Apache Hudi",
        )
    return _ordering(values[0], what)


def read_log_blocks(source: LogSource, *, name: str | None = None) -> Iterator[LogBlock]:
    """The decoded blocks of one log file, in file order, corrupt spans included.

    Args:
        source: the file's bytes or its path.
        name: the file name for messages; defaults to the path's name.

    Yields:
        :class:`DataBlock`, :class:`DeleteBlock`, :class:`CommandBlock` and
        :class:`CorruptBlock` values.

    Raises:
        HudiFileFormatError: as :func:`read_raw_blocks` and :func:`decode_block`.
        UnsupportedFeatureError: for HFile and CDC blocks.
    """
    for block in read_raw_blocks(source, name=name):
        yield block if isinstance(block, CorruptBlock) else decode_block(block)
