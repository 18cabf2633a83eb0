"""The few protobuf wire-format pieces HFile needs: varints, and flat messages of them.

HFile version 3 keeps two structures as protobuf messages: the trailer (HBase's
``FileTrailerProto``) and the file info (``FileInfoProto``, a list of ``BytesBytesPair``). Both
are written length-delimited (a varint length, then the message) and contain only varint
(wire type 0) and length-delimited (wire type 2) fields, so those two wire types are all this
module encodes; a reader skips the fixed-width ones should a future writer add them.

A damaged message raises ``ValueError`` here; the callers know where the message sits in the
file and turn it into a :class:`~hudi_sql.errors.HudiFileFormatError` that says so.
"""

from __future__ import annotations

__all__ = [
    "Field",
    "decode_message",
    "decode_varint",
    "encode_bytes_field",
    "encode_delimited",
    "encode_varint",
    "encode_varint_field",
]

from collections.abc import Iterator

_VARINT = 0
_FIXED64 = 1
_DELIMITED = 2
_FIXED32 = 5
_UINT64 = (1 << 64) - 1

#: One decoded field: its number and its value (an int for varints, bytes otherwise).
Field = tuple[int, int | bytes]


def encode_varint(value: int) -> bytes:
    """Protobuf's base-128 varint; a negative value is written as its 64-bit two's complement."""
    value &= _UINT64
    out = bytearray()
    while value > 0x7F:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def decode_varint(data: bytes | memoryview, pos: int) -> tuple[int, int]:
    """The varint at *pos* and the position after it."""
    result = shift = 0
    while True:
        if pos >= len(data):
            raise ValueError(f"varint runs past the end of its {len(data)} bytes")
        byte = data[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return result, pos
        shift += 7
        if shift >= 70:
            raise ValueError("varint longer than 10 bytes")


def encode_varint_field(number: int, value: int) -> bytes:
    return encode_varint(number << 3 | _VARINT) + encode_varint(value)


def encode_bytes_field(number: int, value: bytes) -> bytes:
    return encode_varint(number << 3 | _DELIMITED) + encode_varint(len(value)) + value


def encode_delimited(message: bytes) -> bytes:
    """*message* after its varint length, as Java's ``writeDelimitedTo`` writes it."""
    return encode_varint(len(message)) + message


def decode_message(data: bytes | memoryview) -> Iterator[Field]:
    """The fields of one message, in the order written (fixed-width fields are skipped)."""
    pos = 0
    while pos < len(data):
        tag, pos = decode_varint(data, pos)
        number, wire = tag >> 3, tag & 7
        if wire == _VARINT:
            value, pos = decode_varint(data, pos)
            yield number, value
        elif wire == _DELIMITED:
            length, pos = decode_varint(data, pos)
            if pos + length > len(data):
                raise ValueError(f"field {number} of {length} bytes runs past the end of the message")
            yield number, bytes(data[pos : pos + length])
            pos += length
        elif wire in (_FIXED64, _FIXED32):
            pos += 8 if wire == _FIXED64 else 4
        else:
            raise ValueError(f"field {number} has the unsupported wire type {wire}")
    if pos != len(data):
        raise ValueError("the last field runs past the end of the message")
