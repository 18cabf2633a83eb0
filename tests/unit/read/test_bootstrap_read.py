"""A metadata-only bootstrap slice reads as its skeleton's meta columns beside its source file's rows."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from hudi_sql.errors import HudiFileFormatError
from hudi_sql.model.schema import META_FIELDS
from hudi_sql.read.bootstrap_read import BootstrapSlice, read_bootstrap_slice
from hudi_sql.storage.fs import Storage

TARGET = pa.schema([*(pa.field(f, pa.string()) for f in META_FIELDS), pa.field("id", pa.int32()),
                    pa.field("name", pa.string()), pa.field("dt", pa.date32())])


def _pair(tmp_path: Path, source_rows: int = 3) -> tuple[str, str]:
    skeleton = pa.table({f: pa.array([f"{f}-{i}" for i in range(3)]) for f in META_FIELDS})
    source = pa.table({"id": pa.array(range(source_rows), pa.int32()), "name": [f"n{i}" for i in range(source_rows)]})
    pq.write_table(skeleton, tmp_path / "skeleton.parquet")
    pq.write_table(source, tmp_path / "source.parquet")
    return str(tmp_path / "skeleton.parquet"), str(tmp_path / "source.parquet")


def test_rows_pair_up_by_position_and_take_the_partition_value_from_the_source_folder(tmp_path: Path) -> None:
    skeleton, source = _pair(tmp_path)
    rows = read_bootstrap_slice(BootstrapSlice(skeleton, source, (("dt", "2024-01-02"),)), TARGET, Storage()).to_pylist()
    assert [(r["_hoodie_record_key"], r["id"], r["name"]) for r in rows] == [
        ("_hoodie_record_key-0", 0, "n0"), ("_hoodie_record_key-1", 1, "n1"), ("_hoodie_record_key-2", 2, "n2")]
    assert {str(r["dt"]) for r in rows} == {"2024-01-02"}, "typed as the table's column"


def test_a_skeleton_and_source_of_different_lengths_are_refused_naming_both(tmp_path: Path) -> None:
    skeleton, source = _pair(tmp_path, source_rows=4)
    with pytest.raises(HudiFileFormatError, match="skeleton.parquet' has 3 rows.*source.parquet' 4"):
        read_bootstrap_slice(BootstrapSlice(skeleton, source), TARGET, Storage())
