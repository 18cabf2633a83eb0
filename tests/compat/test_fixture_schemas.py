"""Schemas of tables Apache Hudi 0.14 wrote: our Avro JSON must equal theirs byte for byte.

For every fixture table the Avro schema strings Hudi stored (commit ``extraMetadata.schema``,
``hoodie.table.create.schema``, and the base files' ``parquet.avro.schema`` footers) are read
into a Spark ``StructType`` and written back; the strings must not change. The Arrow schema of
the same ``StructType`` must read every base file.

The timeline and properties are read here with a few lines of independent code, so a bug in
the project's own readers cannot hide a schema difference.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from fixture_tables import SampleTable

from hudi_sql.model.schema import META_FIELDS
from hudi_sql.spark.schema import avro_schema_json, from_avro_schema, to_arrow_schema

pytestmark = pytest.mark.compat

_COMPLETED = re.compile(r"^(\d{14,17})\.(commit|deltacommit|replacecommit)$")
_BASE_FILE = re.compile(r"^.+_.+_(\d{14,17})\.parquet$")
_TABLES = list(SampleTable)


def _completed_commits(base: Path) -> dict[str, Path]:
    """Instant time -> completed commit/deltacommit/replacecommit file in ``.hoodie/``."""
    found: dict[str, Path] = {}
    for entry in (base / ".hoodie").iterdir():
        match = _COMPLETED.match(entry.name)
        if match and entry.is_file():
            found[match.group(1)] = entry
    return dict(sorted(found.items()))


def _commit_schema(commit_file: Path) -> str:
    schema: str = json.loads(commit_file.read_text(encoding="utf-8"))["extraMetadata"]["schema"]
    return schema


def _unescape_java(text: str) -> str:
    """Undo ``java.util.Properties`` escaping (``\\:`` ``\\=`` ``\\uXXXX`` ``\\t`` ...)."""
    out: list[str] = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch != "\\" or i + 1 == len(text):
            out.append(ch)
            i += 1
            continue
        nxt = text[i + 1]
        if nxt == "u":
            out.append(chr(int(text[i + 2 : i + 6], 16)))
            i += 6
            continue
        out.append({"t": "\t", "n": "\n", "r": "\r", "f": "\f"}.get(nxt, nxt))
        i += 2
    return "".join(out)


def _read_properties(path: Path) -> dict[str, str]:
    props: dict[str, str] = {}
    for line in path.read_text(encoding="latin-1").splitlines():
        stripped = line.lstrip()
        if not stripped or stripped[0] in "#!":
            continue
        match = re.match(r"((?:[^\\=:\s]|\\.)+)\s*[=:\s]\s*(.*)$", stripped)
        if match:
            props[_unescape_java(match.group(1))] = _unescape_java(match.group(2))
    return props


def _base_files(base: Path) -> list[Path]:
    return sorted(p for p in base.rglob("*.parquet") if ".hoodie" not in p.relative_to(base).parts)


def _same_shape(actual: pa.DataType, expected: pa.DataType) -> bool:
    """Arrow types equal up to nullability and the names of list/map child fields.

    parquet-avro writes arrays in the legacy two-level form (items named ``array``, required),
    and names the map entry group after the column, so those names legitimately differ.
    """
    if pa.types.is_map(expected):
        return (
            pa.types.is_map(actual)
            and _same_shape(actual.key_type, expected.key_type)
            and _same_shape(actual.item_type, expected.item_type)
        )
    if pa.types.is_list(expected):
        return pa.types.is_list(actual) and _same_shape(actual.value_type, expected.value_type)
    if pa.types.is_struct(expected):
        if not pa.types.is_struct(actual) or actual.num_fields != expected.num_fields:
            return False
        return all(
            actual.field(i).name == expected.field(i).name
            and _same_shape(actual.field(i).type, expected.field(i).type)
            for i in range(expected.num_fields)
        )
    return bool(actual == expected)


@pytest.fixture(params=_TABLES, ids=[t.name.lower() for t in _TABLES])
def table(request: pytest.FixtureRequest) -> SampleTable:
    sample: SampleTable = request.param
    return sample


def _table_name(base: Path) -> str:
    return _read_properties(base / ".hoodie" / "hoodie.properties")["hoodie.table.name"]


def test_commit_schema_round_trip_byte_identical(table: SampleTable):
    base = table.path()
    commits = _completed_commits(base)
    if not commits:
        pytest.skip(f"{table.name} has no completed commit")
    original = _commit_schema(list(commits.values())[-1])
    struct = from_avro_schema(original)
    assert avro_schema_json(struct, _table_name(base), style="commit") == original


def test_create_schema_round_trip_byte_identical(table: SampleTable):
    base = table.path()
    props = _read_properties(base / ".hoodie" / "hoodie.properties")
    original = props["hoodie.table.create.schema"]
    assert '\\"' not in original and '":' in original  # unescaped
    struct = from_avro_schema(original)
    assert avro_schema_json(struct, props["hoodie.table.name"], style="create") == original


def test_parquet_avro_schema_footer_equals_schema_with_meta_fields(table: SampleTable):
    base = table.path()
    commits = _completed_commits(base)
    name = _table_name(base)
    checked = 0
    for path in _base_files(base):
        match = _BASE_FILE.match(path.name)
        if match is None or match.group(1) not in commits:
            continue  # leftover of a failed write
        footer = pq.read_metadata(path).metadata or {}
        if b"parquet.avro.schema" not in footer:
            continue  # Spark-native writer (mor/parquet samples)
        struct = from_avro_schema(_commit_schema(commits[match.group(1)]))
        expected = avro_schema_json(struct, name, with_meta_fields=True)
        assert footer[b"parquet.avro.schema"].decode("utf-8") == expected, path.name
        # The footer form also round-trips on its own.
        assert avro_schema_json(from_avro_schema(expected), name, with_meta_fields=True) == expected
        checked += 1
    if checked == 0:
        pytest.skip(f"{table.name} has no base file with a parquet.avro.schema footer")


def test_arrow_schema_reads_every_base_file(table: SampleTable):
    base = table.path()
    commits = _completed_commits(base)
    checked = 0
    for path in _base_files(base):
        match = _BASE_FILE.match(path.name)
        if match is None or match.group(1) not in commits:
            continue
        struct = from_avro_schema(_commit_schema(commits[match.group(1)]))
        expected = to_arrow_schema(struct, with_meta_fields=True)
        actual = pq.read_schema(path)
        assert actual.names == expected.names, path.name
        assert actual.names[: len(META_FIELDS)] == list(META_FIELDS)
        for field in expected:
            assert _same_shape(actual.field(field.name).type, field.type), (path.name, field.name)
        read = pq.read_table(path, schema=expected)
        assert read.schema.equals(expected)
        assert read.num_rows == pq.read_metadata(path).num_rows
        checked += 1
    if checked == 0:
        pytest.skip(f"{table.name} has no committed base file")
