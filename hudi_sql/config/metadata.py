"""The metadata table: whether writers keep it, which indexes it holds, how readers use it.

Keys and defaults are Apache Hudi 0.15's (``HoodieMetadataConfig``, ``DataSourceReadOptions``,
``HoodieIndexConfig``): the metadata table is on by default for writers and readers, its
column statistics and bloom filter partitions are off until enabled, and queries skip files by
column statistics only with ``hoodie.enable.data.skipping``. :class:`MetadataConfig` is the
typed view the commit protocol and the planners take, resolved once per operation
(``Resolved.metadata``) and handed to the timeline writer and the file-system views.
"""

from __future__ import annotations

__all__ = ["HudiMetadataConfig", "MetadataConfig"]

from dataclasses import dataclass

from hudi_sql.config.registry import ConfigOption, ConfigScope, HudiConfigs, parse_bool, parse_int, parse_str
from hudi_sql.errors import HudiConfigError


class HudiMetadataConfig(ConfigScope):
    """The metadata table (``.hoodie/metadata``): file listings, column statistics, bloom filters
    (docs/metadata_table.md)."""

    ENABLE = ConfigOption(
        "hoodie.metadata.enable", parse_bool, True,
        "Keep the metadata table (writers) and list files through it (readers). A write with false "
        "removes the table's metadata table, as Apache Hudi does.")
    COMPACT_MAX_DELTA_COMMITS = ConfigOption(
        "hoodie.metadata.compact.max.delta.commits", parse_int, 10,
        "Deltacommits of the metadata table after which it is compacted.", minimum=1)
    COLUMN_STATS_ENABLE = ConfigOption(
        "hoodie.metadata.index.column.stats.enable", parse_bool, False,
        "Keep the column_stats partition: each column's range and counts per file, for data skipping.")
    COLUMN_STATS_COLUMNS = ConfigOption(
        "hoodie.metadata.index.column.stats.column.list", parse_str, None,
        "Columns the column_stats partition indexes (comma-separated; default: every top-level column, "
        "meta columns included).")
    COLUMN_STATS_FILE_GROUPS = ConfigOption(
        "hoodie.metadata.index.column.stats.file.group.count", parse_int, 2,
        "File groups of the column_stats partition (fixed when the partition is created).", minimum=1)
    BLOOM_FILTER_ENABLE = ConfigOption(
        "hoodie.metadata.index.bloom.filter.enable", parse_bool, False,
        "Keep the bloom_filters partition: each base file's bloom filter, for the bloom index.")
    BLOOM_FILTER_FILE_GROUPS = ConfigOption(
        "hoodie.metadata.index.bloom.filter.file.group.count", parse_int, 4,
        "File groups of the bloom_filters partition (fixed when the partition is created).", minimum=1)
    MAX_DELTACOMMITS_WHEN_PENDING = ConfigOption(
        "hoodie.metadata.max.deltacommits.when_pending", parse_int, 1000,
        "Metadata deltacommits allowed while a data instant stays pending (which holds back the "
        "metadata table's compaction); past it writes fail, naming the pending instant.", minimum=1)
    DATA_SKIPPING = ConfigOption(
        "hoodie.enable.data.skipping", parse_bool, False,
        "Snapshot queries skip files whose column statistics rule out the query's filters "
        "(needs the column_stats partition).")
    BLOOM_INDEX_USE_METADATA = ConfigOption(
        "hoodie.bloom.index.use.metadata", parse_bool, False,
        "The bloom index reads file bloom filters and key ranges from the metadata table instead of "
        "base file footers (needs the bloom_filters and column_stats partitions).")


@dataclass(frozen=True)
class MetadataConfig:
    """The metadata table options of one operation, typed."""

    enable: bool = True
    compact_max_delta_commits: int = 10
    column_stats: bool = False
    column_stats_columns: tuple[str, ...] = ()
    column_stats_file_groups: int = 2
    bloom_filters: bool = False
    bloom_filter_file_groups: int = 4
    max_deltacommits_when_pending: int = 1000
    data_skipping: bool = False
    bloom_index_use_metadata: bool = False

    @classmethod
    def of(cls, configs: HudiConfigs) -> MetadataConfig:
        """Read the options of *configs*.

        Raises:
            HudiConfigError: an index enabled with the metadata table off.
        """
        m = HudiMetadataConfig
        columns = tuple(c.strip() for c in str(configs.get(m.COLUMN_STATS_COLUMNS) or "").split(",") if c.strip())
        config = cls(
            enable=configs.get(m.ENABLE),
            compact_max_delta_commits=configs.get(m.COMPACT_MAX_DELTA_COMMITS),
            column_stats=configs.get(m.COLUMN_STATS_ENABLE),
            column_stats_columns=columns,
            column_stats_file_groups=configs.get(m.COLUMN_STATS_FILE_GROUPS),
            bloom_filters=configs.get(m.BLOOM_FILTER_ENABLE),
            bloom_filter_file_groups=configs.get(m.BLOOM_FILTER_FILE_GROUPS),
            max_deltacommits_when_pending=configs.get(m.MAX_DELTACOMMITS_WHEN_PENDING),
            data_skipping=configs.get(m.DATA_SKIPPING),
            bloom_index_use_metadata=configs.get(m.BLOOM_INDEX_USE_METADATA),
        )
        if not config.enable and (config.column_stats or config.bloom_filters):
            index = m.COLUMN_STATS_ENABLE if config.column_stats else m.BLOOM_FILTER_ENABLE
            raise HudiConfigError(
                f"'{index.key}=true' needs the metadata table, but '{m.ENABLE.key}=false'.",
                help=f"set '{m.ENABLE.key}=true', or drop '{index.key}'")
        return config
