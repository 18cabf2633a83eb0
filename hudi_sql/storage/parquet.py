"""How our Parquet files are written: the codec, row group and page sizes, and bloom filter
settings a table asks for, gathered once in :class:`FileWriteSettings`.

Every writer of base files (a write's handles, compaction, clustering) takes its settings from
:meth:`FileWriteSettings.from_config`, so a table configured with ``hoodie.parquet.block.size``
or a bloom filter type gets them on every file, not only on the files of inserts and updates.

pyarrow's gzip runs zlib at level 9, which on our data is 3.5x slower than level 6 and yields
no smaller files. parquet-java (and so Apache Hudi) compresses gzip pages through Hadoop's
``ZlibCompressor`` at zlib's default level, 6; writing at that level gives the same kind of
files as Hudi, at the cost Hudi pays. Other codecs keep pyarrow's defaults.

Dictionary encoding is decided per column and file (:func:`dictionary_columns`). parquet-java
starts every column with a dictionary and falls back to plain encoding once the dictionary stops
paying; pyarrow falls back only when the dictionary page is full, after building it for a
megabyte of distinct values. For Hudi's unique-per-row columns (``_hoodie_record_key``,
``_hoodie_commit_seqno``) and measurements such as doubles, that wasted work made writing a
base file 2.2x slower and the file 20 % larger. A sample of the first rows tells the two kinds
of column apart before writing.
"""

from __future__ import annotations

__all__ = ["FileWriteSettings", "codec_options", "dictionary_columns"]

import functools
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import pyarrow as pa
import pyarrow.compute as pc

if TYPE_CHECKING:
    from hudi_sql.config.resolve import WriteConfig

_LEVELS = {"gzip": 6}  # zlib's Z_DEFAULT_COMPRESSION, as Hadoop's ZlibCompressor uses it
_MB = 1024 * 1024
# A column is dictionary-encoded when at most this share of its sampled values are distinct.
_DICTIONARY_SAMPLE_ROWS = 10_000
_DICTIONARY_MAX_DISTINCT_SHARE = 0.5


def codec_options(codec: str) -> dict[str, Any]:
    """``compression`` / ``compression_level`` keyword arguments for pyarrow's Parquet writers."""
    name = codec.lower()
    if name in ("uncompressed", "none"):
        return {"compression": "none"}
    return {"compression": name, "compression_level": _LEVELS.get(name)}


@dataclass(frozen=True)
class FileWriteSettings:
    """The user's file settings for every base file a task writes (frozen, picklable).

    Defaults are the registry's (Hudi's ``HoodieStorageConfig`` / ``HoodieIndexConfig``); build
    real ones with :meth:`from_config` rather than field by field.
    """

    codec: str = "gzip"
    row_group_bytes: int = 120 * _MB  # hoodie.parquet.block.size
    page_bytes: int = 1 * _MB  # hoodie.parquet.page.size
    max_file_size: int = 120 * _MB  # hoodie.parquet.max.file.size (clustering: its target size)
    bloom_num_entries: int = 60000
    bloom_fpp: float = 0.000000001
    bloom_max_entries: int = 100000
    bloom_filter_type: str = "DYNAMIC_V0"
    dictionary: bool = True  # hoodie.parquet.dictionary.enabled

    @classmethod
    def from_config(cls, config: WriteConfig, *, max_file_size: int | None = None) -> FileWriteSettings:
        """The settings of *config*; *max_file_size* overrides the target size (clustering has its own)."""
        return cls(
            codec=config.parquet_compression,
            row_group_bytes=config.parquet_block_size,
            page_bytes=config.parquet_page_size,
            max_file_size=config.max_file_size if max_file_size is None else max_file_size,
            bloom_num_entries=config.bloom_num_entries,
            bloom_fpp=config.bloom_fpp,
            bloom_max_entries=config.bloom_max_entries,
            bloom_filter_type=config.bloom_filter_type,
            dictionary=config.parquet_dictionary,
        )

    def writer_options(self, table: pa.Table) -> dict[str, Any]:
        """Keyword arguments for a ``pyarrow.parquet.ParquetWriter`` of *table*: codec, level, page
        size, and the columns to dictionary-encode."""
        dictionary: bool | list[str] = dictionary_columns(table) if self.dictionary else False
        return {**codec_options(self.codec), "data_page_size": self.page_bytes, "use_dictionary": dictionary}

    def bloom_options(self) -> dict[str, Any]:
        """Keyword arguments for :func:`hudi_sql.index.bloom_footer.footer_metadata`."""
        return {"num_entries": self.bloom_num_entries, "fpp": self.bloom_fpp,
                "max_entries": self.bloom_max_entries, "filter_type": self.bloom_filter_type}


def dictionary_columns(table: pa.Table) -> list[str]:
    """The Parquet column paths of *table* worth a dictionary: nested columns' leaves always, and
    flat columns whose first rows repeat (at most half of the sampled values distinct)."""
    sample = table.slice(0, _DICTIONARY_SAMPLE_ROWS)
    chosen: list[str] = []
    for field, column in zip(table.schema, sample.columns):
        if _is_nested(field.type):
            chosen.extend(_leaf_paths(field))
        elif column.length() == 0 or (pc.count_distinct(column, mode="all").as_py()
                                      <= _DICTIONARY_MAX_DISTINCT_SHARE * column.length()):
            chosen.append(field.name)
    return chosen


def _is_nested(type_: pa.DataType) -> bool:
    return pa.types.is_struct(type_) or pa.types.is_list(type_) or pa.types.is_large_list(type_) or \
        pa.types.is_map(type_)


@functools.lru_cache(maxsize=256)
def _leaf_paths(field: pa.Field) -> tuple[str, ...]:
    """The Parquet leaf column paths of a nested field, as pyarrow's writer names them (asked of
    pyarrow itself, once per field: a task writes many files of one schema)."""
    import io

    import pyarrow.parquet as pq

    buffer = io.BytesIO()
    pq.write_table(pa.table({field.name: pa.array([], field.type)}), buffer)
    return tuple(column.path for column in pq.ParquetFile(io.BytesIO(buffer.getvalue())).schema)
