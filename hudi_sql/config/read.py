"""Read-scope options: query type, time travel and incremental ranges."""

from __future__ import annotations

__all__ = ["HudiReadConfig", "IncrementalFormat", "QueryType"]

from enum import Enum

from hudi_sql.config.registry import ConfigOption, ConfigScope, parse_bool, parse_str


class QueryType(str, Enum):
    SNAPSHOT = "snapshot"
    READ_OPTIMIZED = "read_optimized"
    INCREMENTAL = "incremental"

    @classmethod
    def parse(cls, value: str) -> QueryType:
        try:
            return cls(value.strip().lower())
        except ValueError:
            raise ValueError(f"'{value}' is not a query type (snapshot, read_optimized, incremental)") from None


class IncrementalFormat(str, Enum):
    """What an incremental query returns: each changed record's latest state, or its changes."""

    LATEST_STATE = "latest_state"
    CDC = "cdc"

    @classmethod
    def parse(cls, value: str) -> IncrementalFormat:
        try:
            return cls(value.strip().lower())
        except ValueError:
            raise ValueError(f"'{value}' is not an incremental format (latest_state, cdc)") from None


class HudiReadConfig(ConfigScope):
    """Options of a query: query type, incremental range, time travel (read scope)."""

    QUERY_TYPE = ConfigOption("hoodie.datasource.query.type", QueryType.parse, QueryType.SNAPSHOT,
                  "snapshot, read_optimized or incremental.")
    BEGIN_INSTANT = ConfigOption("hoodie.datasource.read.begin.instanttime", parse_str, None,
                     "Incremental: changes after this instant (exclusive).")
    END_INSTANT = ConfigOption("hoodie.datasource.read.end.instanttime", parse_str, None,
                   "Incremental: changes up to this instant (inclusive); default the latest.")
    INCREMENTAL_FORMAT = ConfigOption(
        "hoodie.datasource.query.incremental.format", IncrementalFormat.parse, IncrementalFormat.LATEST_STATE,
        "Incremental: latest_state (the rows as last written in the range) or cdc (one row per change: op, "
        "ts_ms, before, after).")
    AS_OF_INSTANT = ConfigOption("as.of.instant", parse_str, None,
                     "Time travel: the table as of this instant (yyyyMMddHHmmssSSS or a date-time).")
    INCR_FALLBACK_FULL_SCAN = ConfigOption("hoodie.datasource.read.incr.fallback.fulltablescan.enable", parse_bool, False,
                               "Incremental over cleaned files falls back to a full scan.")
    QUERY_AS_RO_TABLE = ConfigOption("hoodie.query.as.ro.table", parse_bool, False,
                         "Set by hive sync on each Hive table of a Merge-On-Read table: true on the "
                         "read-optimized one (read it read_optimized), false on the snapshot one.")
    EXTRACT_PARTITION_FROM_PATH = ConfigOption("hoodie.datasource.read.extract.partition.values.from.path", parse_bool,
                                   False, "Partition values from the path.", (), (), False)
