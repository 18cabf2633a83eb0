"""How our Parquet files are written: the codec, row group and page sizes, and bloom filter
settings a table asks for, gathered once in :class:`FileWriteSettings`.

Every writer of base files (a write's handles, compaction, clustering) takes its settings from
:meth:`FileWriteSettings.from_config`, so a table configured with ``hoodie.parquet.block.size``
or a bloom filter type gets them on every file, not only on the files of inserts and updates.

pyarrow's gzip runs zlib at level 9, which on our data is 3.5x slower than level 6 and yields
no smaller files. parquet-java (and so Apache Hudi) compresses gzip pages through Hadoop's
``ZlibCompressor`` at zlib's default level, 6; writing at that level gives the same kind of
files as Hudi, at the cost Hudi pays. Other codecs keep pyarrow's defaults.
"""

from __future__ import annotations

__all__ = ["FileWriteSettings", "codec_options"]

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from hudi_sql.config.resolve import WriteConfig

_LEVELS = {"gzip": 6}  # zlib's Z_DEFAULT_COMPRESSION, as Hadoop's ZlibCompressor uses it
_MB = 1024 * 1024


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
        )

    def writer_options(self) -> dict[str, Any]:
        """Keyword arguments for ``pyarrow.parquet.ParquetWriter``: codec, level and page size."""
        return {**codec_options(self.codec), "data_page_size": self.page_bytes}

    def bloom_options(self) -> dict[str, Any]:
        """Keyword arguments for :func:`hudi_sql.index.bloom_footer.footer_metadata`."""
        return {"num_entries": self.bloom_num_entries, "fpp": self.bloom_fpp,
                "max_entries": self.bloom_max_entries, "filter_type": self.bloom_filter_type}
