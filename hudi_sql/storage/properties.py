"""Java ``Properties`` files: ``hoodie.properties`` and ``.hoodie_partition_metadata``.

Java's ``Properties.store`` writes a comment line, a date comment, then ``key=value`` lines,
escaping ``:`` ``=`` ``#`` ``!`` and ``\\`` with a backslash and non-ASCII as ``\\uXXXX``.
We write the same, so that Java reads our values back unchanged (hudi-rs splits on the first
``=`` and only unescapes ``\\:`` in the create schema, which these rules keep readable).

``hoodie.table.checksum`` is ``CRC32("<database>.<table>")`` as an unsigned integer; Java
refuses a properties file whose checksum does not match.
"""

from __future__ import annotations

__all__ = ["PartitionMetadata", "format_properties", "parse_properties", "table_checksum"]

import zlib
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timezone

from hudi_sql.errors import HudiFileFormatError


def table_checksum(database: str | None, table_name: str) -> int:
    return zlib.crc32(f"{database or ''}.{table_name}".encode())


def _escape(text: str, *, is_key: bool) -> str:
    out = []
    for index, ch in enumerate(text):
        if ch == "\\":
            out.append("\\\\")
        elif ch in ":=#!":
            out.append("\\" + ch)
        elif ch == " " and (is_key or index == 0):
            out.append("\\ ")
        elif ch == "\t":
            out.append("\\t")
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\r":
            out.append("\\r")
        elif ord(ch) < 0x20 or ord(ch) > 0x7E:
            out.extend(f"\\u{unit:04X}" for unit in _utf16_units(ch))
        else:
            out.append(ch)
    return "".join(out)


def _utf16_units(ch: str) -> list[int]:
    data = ch.encode("utf-16-be")
    return [int.from_bytes(data[i:i + 2], "big") for i in range(0, len(data), 2)]


def format_properties(values: Mapping[str, str], *, comment: str | None = None) -> bytes:
    """Bytes of a properties file, keys sorted (as later Hudi versions write them)."""
    now = datetime.now(timezone.utc)
    lines = [
        f"#{comment or 'Properties saved on ' + now.strftime('%Y-%m-%dT%H:%M:%S.%f')[:-3] + 'Z'}",
        "#" + now.strftime("%a %b %d %H:%M:%S UTC %Y"),
    ]
    for key in sorted(values):
        lines.append(f"{_escape(key, is_key=True)}={_escape(str(values[key]), is_key=False)}")
    return ("\n".join(lines) + "\n").encode("latin-1")


def parse_properties(data: bytes, *, origin: str = "properties file") -> dict[str, str]:
    """Parse a Java properties file (the subset Java writes: one logical line per entry)."""
    try:
        text = data.decode("latin-1")
    except UnicodeDecodeError as exc:  # pragma: no cover - latin-1 decodes every byte
        raise HudiFileFormatError(f"{origin} cannot be decoded: {exc}") from None
    result: dict[str, str] = {}
    logical: list[str] = []
    for raw_line in text.splitlines():
        line = raw_line.lstrip()
        if not logical and (not line or line[0] in "#!"):
            continue
        if _continues(line):
            logical.append(line[:-1])
            continue
        logical.append(line)
        key, value = _split_entry("".join(logical))
        result[key] = value
        logical = []
    return result


def _continues(line: str) -> bool:
    count = len(line) - len(line.rstrip("\\"))
    return count % 2 == 1


def _split_entry(line: str) -> tuple[str, str]:
    index = 0
    while index < len(line):
        ch = line[index]
        if ch == "\\":
            index += 2
            continue
        if ch in "=: \t":
            break
        index += 1
    key = line[:index]
    rest = line[index:].lstrip(" \t")
    if rest[:1] in ("=", ":"):
        rest = rest[1:].lstrip(" \t")
    return _unescape(key), _unescape(rest)


def _unescape(text: str) -> str:
    out: list[str] = []
    index = 0
    while index < len(text):
        ch = text[index]
        if ch != "\\":
            out.append(ch)
            index += 1
            continue
        nxt = text[index + 1:index + 2]
        if nxt == "u":
            out.append(chr(int(text[index + 2:index + 6], 16)))
            index += 6
            continue
        out.append({"t": "\t", "n": "\n", "r": "\r", "f": "\f"}.get(nxt, nxt))
        index += 2
    # Recombine surrogate pairs written as two \uXXXX escapes.
    return "".join(out).encode("utf-16", "surrogatepass").decode("utf-16")


@dataclass(frozen=True)
class PartitionMetadata:
    """``.hoodie_partition_metadata``: the instant that created the partition and its depth.

    Java climbs ``partitionDepth`` folders from a partition to find the base path; Hudi's
    file-system listing treats a folder as a partition only if it holds this file.
    """

    commit_time: str
    partition_depth: int

    @classmethod
    def for_partition(cls, commit_time: str, partition_path: str) -> PartitionMetadata:
        depth = len([p for p in partition_path.split("/") if p]) if partition_path else 0
        return cls(commit_time, depth)

    def to_bytes(self) -> bytes:
        return format_properties(
            {"commitTime": self.commit_time, "partitionDepth": str(self.partition_depth)},
            comment="partition metadata",
        )

    @classmethod
    def from_bytes(cls, data: bytes) -> PartitionMetadata:
        values = parse_properties(data, origin=".hoodie_partition_metadata")
        try:
            return cls(values["commitTime"], int(values.get("partitionDepth", "0")))
        except (KeyError, ValueError) as exc:
            raise HudiFileFormatError(f".hoodie_partition_metadata is incomplete: {exc}") from None
