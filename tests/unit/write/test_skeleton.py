"""A skeleton file, as one task of a metadata-only bootstrap writes it for one source file."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from hudi_sql.errors import HudiKeyError
from hudi_sql.index.bloom_footer import read_footer_index
from hudi_sql.model.instant import METADATA_BOOTSTRAP_INSTANT
from hudi_sql.model.schema import META_FIELDS
from hudi_sql.write.handles import TaskIdentity
from hudi_sql.write.plan import HandleOptions
from hudi_sql.write.skeleton import SkeletonSpec, write_skeleton

FILE_ID = "6f1c3a52-4d0e-4b8e-9d55-0b1f2c3d4e5f"


def _options(base: Path, key_fields: tuple[str, ...] = ("id",), composite: bool = False) -> HandleOptions:
    return HandleOptions(instant_time=METADATA_BOOTSTRAP_INSTANT, table_name="orders", avro_schema="{}",
                         spark_schema_json='{"type":"struct","fields":[]}', record_key_fields=key_fields,
                         complex_keys=composite, base_path=str(base))


def _source(tmp_path: Path, table: pa.Table) -> Path:
    path = tmp_path / "source" / "dt=2024-01-02" / "part-0.parquet"
    path.parent.mkdir(parents=True)
    pq.write_table(table, path)
    return path


def test_a_skeleton_holds_the_meta_columns_of_each_source_row_in_order(tmp_path: Path) -> None:
    source = _source(tmp_path, pa.table({"id": [30, 10, 20], "name": ["c", "a", "b"]}))
    status = write_skeleton(_options(tmp_path / "table"), SkeletonSpec(str(source), "dt=2024-01-02", FILE_ID),
                            TaskIdentity(3, 7, 11))

    name = f"{FILE_ID}_3-7-11_{METADATA_BOOTSTRAP_INSTANT}.parquet"
    assert status.path == f"dt=2024-01-02/{name}" and status.num_inserts == status.num_writes == 3
    skeleton = pq.read_table(tmp_path / "table" / status.path)
    assert skeleton.column_names == list(META_FIELDS)
    assert skeleton.to_pylist() == [
        {"_hoodie_commit_time": METADATA_BOOTSTRAP_INSTANT, "_hoodie_commit_seqno": f"{METADATA_BOOTSTRAP_INSTANT}_3_{i}",
         "_hoodie_record_key": key, "_hoodie_partition_path": "dt=2024-01-02", "_hoodie_file_name": name}
        for i, key in enumerate(["30", "10", "20"])]
    footer = read_footer_index(pq.read_metadata(tmp_path / "table" / status.path).metadata)
    assert footer is not None and (footer.min_key, footer.max_key) == ("10", "30")
    assert footer.bloom_filter is not None
    assert all(footer.bloom_filter.might_contain(k) for k in ("10", "20", "30")), "the bloom index finds its keys"
    assert (tmp_path / "table" / "dt=2024-01-02" / ".hoodie_partition_metadata").exists()
    markers = list((tmp_path / "table" / ".hoodie" / ".temp" / METADATA_BOOTSTRAP_INSTANT).rglob("*.marker.CREATE"))
    assert [m.name for m in markers] == [f"{name}.marker.CREATE"], "the marker comes first, as for every handle"


def test_key_fields_the_files_lack_come_from_the_folder_names(tmp_path: Path) -> None:
    source = _source(tmp_path, pa.table({"id": [1, 2]}))
    spec = SkeletonSpec(str(source), "dt=2024-01-02", FILE_ID, (("dt", "2024-01-02"),))
    status = write_skeleton(_options(tmp_path / "table", ("id", "dt"), composite=True), spec, TaskIdentity(0, 0, 0))
    keys = pq.read_table(tmp_path / "table" / status.path).column("_hoodie_record_key").to_pylist()
    assert keys == ["id:1,dt:2024-01-02", "id:2,dt:2024-01-02"]


def test_a_source_row_without_a_key_fails_naming_the_file(tmp_path: Path) -> None:
    source = _source(tmp_path, pa.table({"id": pa.array([1, None, None], pa.int64())}))
    with pytest.raises(HudiKeyError, match=r"2 row\(s\) of the bootstrap source file .*part-0.parquet"):
        write_skeleton(_options(tmp_path / "table"), SkeletonSpec(str(source), "dt=2024-01-02", FILE_ID),
                       TaskIdentity(0, 0, 0))
    assert not list((tmp_path / "table").rglob("*.parquet")), "no skeleton for a source it cannot key"
