"""Our Parquet files carry the codec the table asks for; gzip at parquet-java's zlib level."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from hudi_sql.storage.parquet import FileWriteSettings, codec_options


@pytest.mark.parametrize(("codec", "footer"), [("gzip", "GZIP"), ("snappy", "SNAPPY"), ("zstd", "ZSTD"),
                                              ("uncompressed", "UNCOMPRESSED"), ("none", "UNCOMPRESSED")])
def test_file_footer_names_the_configured_codec(tmp_path: Path, codec: str, footer: str) -> None:
    path = tmp_path / "f.parquet"
    pq.write_table(pa.table({"k": [f"key-{i}" for i in range(1000)]}), path, **codec_options(codec))
    assert pq.ParquetFile(path).metadata.row_group(0).column(0).compression == footer
    assert pq.read_table(path).num_rows == 1000


def test_gzip_uses_zlib_default_level_as_hadoop_does() -> None:
    assert codec_options("GZIP") == {"compression": "gzip", "compression_level": 6}


def _encodings(path: Path) -> dict[str, set[str]]:
    group = pq.ParquetFile(path).metadata.row_group(0)
    return {group.column(i).path_in_schema: set(group.column(i).encodings) for i in range(group.num_columns)}


def _write(path: Path, table: pa.Table, settings: FileWriteSettings) -> None:
    with pq.ParquetWriter(path, table.schema, **settings.writer_options(table)) as writer:
        writer.write_table(table)


def test_unique_per_row_columns_are_written_plain_and_repeating_columns_with_a_dictionary(tmp_path: Path) -> None:
    n = 20_000
    table = pa.table({
        "_hoodie_commit_time": ["20261125120000000"] * n,
        "_hoodie_record_key": [f"key-{i}" for i in range(n)],
        "status": ["OK", "LOW", "LOST"] * (n // 3) + ["OK"] * (n % 3),
        "reading": [i * 0.37 for i in range(n)],
        "tags": pa.array([{"site": "a", "serial": i} for i in range(n)]),
    })
    _write(tmp_path / "f.parquet", table, FileWriteSettings(codec="snappy"))

    encodings = _encodings(tmp_path / "f.parquet")
    assert "RLE_DICTIONARY" in encodings["_hoodie_commit_time"]
    assert "RLE_DICTIONARY" in encodings["status"]
    assert "RLE_DICTIONARY" not in encodings["_hoodie_record_key"]
    assert "RLE_DICTIONARY" not in encodings["reading"]
    assert "RLE_DICTIONARY" in encodings["tags.site"]  # nested leaves keep the dictionary
    assert pq.read_table(tmp_path / "f.parquet").equals(table)


def test_dictionary_encoding_turned_off_writes_every_column_plain(tmp_path: Path) -> None:
    table = pa.table({"_hoodie_commit_time": ["20261125120000000"] * 1000, "day": ["2024-01-01"] * 1000})
    _write(tmp_path / "f.parquet", table, FileWriteSettings(codec="snappy", dictionary=False))

    assert all("RLE_DICTIONARY" not in e for e in _encodings(tmp_path / "f.parquet").values())
