"""Our Parquet files carry the codec the table asks for; gzip at parquet-java's zlib level."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from hudi_sql.storage.parquet import codec_options


@pytest.mark.parametrize(("codec", "footer"), [("gzip", "GZIP"), ("snappy", "SNAPPY"), ("zstd", "ZSTD"),
                                              ("uncompressed", "UNCOMPRESSED"), ("none", "UNCOMPRESSED")])
def test_file_footer_names_the_configured_codec(tmp_path: Path, codec: str, footer: str) -> None:
    path = tmp_path / "f.parquet"
    pq.write_table(pa.table({"k": [f"key-{i}" for i in range(1000)]}), path, **codec_options(codec))
    assert pq.ParquetFile(path).metadata.row_group(0).column(0).compression == footer
    assert pq.read_table(path).num_rows == 1000


def test_gzip_uses_zlib_default_level_as_hadoop_does() -> None:
    assert codec_options("GZIP") == {"compression": "gzip", "compression_level": 6}
