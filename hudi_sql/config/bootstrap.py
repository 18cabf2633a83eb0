"""Bootstrap options: turning an existing Parquet table into a Hudi table (Apache Hudi's keys)."""

from __future__ import annotations

__all__ = ["BootstrapMode", "HudiBootstrapConfig"]

from enum import Enum

from hudi_sql.config.registry import ConfigOption, ConfigScope, parse_int, parse_str


class BootstrapMode(str, Enum):
    """How a source partition becomes part of the table (Apache Hudi's ``BootstrapMode``)."""

    #: skeleton files of meta columns only, beside an index into the untouched source files
    METADATA_ONLY = "METADATA_ONLY"
    #: the source rows rewritten as regular base files
    FULL_RECORD = "FULL_RECORD"

    @classmethod
    def parse(cls, value: str) -> BootstrapMode:
        try:
            return cls(value.strip().upper())
        except ValueError:
            raise ValueError(f"'{value}' is not a bootstrap mode (METADATA_ONLY, FULL_RECORD)") from None


#: Apache Hudi's mode selector classes, by the mode each gives every partition (the regex
#: selector is the third choice: see :attr:`HudiBootstrapConfig.MODE_SELECTOR_REGEX`).
METADATA_ONLY_SELECTOR = "org.apache.hudi.client.bootstrap.selector.MetadataOnlyBootstrapModeSelector"
FULL_RECORD_SELECTOR = "org.apache.hudi.client.bootstrap.selector.FullRecordBootstrapModeSelector"
REGEX_SELECTOR = "org.apache.hudi.client.bootstrap.selector.BootstrapRegexModeSelector"
HFILE_BOOTSTRAP_INDEX = "org.apache.hudi.common.bootstrap.index.hfile.HFileBootstrapIndex"


class HudiBootstrapConfig(ConfigScope):
    """``CALL run_bootstrap`` and bootstrap writes (bootstrap scope)."""

    BASE_PATH = ConfigOption(
        "hoodie.bootstrap.base.path", parse_str, None,
        "The existing Parquet table to bootstrap from (never modified); recorded in hoodie.properties.")
    MODE_SELECTOR = ConfigOption(
        "hoodie.bootstrap.mode.selector", parse_str, METADATA_ONLY_SELECTOR,
        "Chooses each source partition's mode: MetadataOnlyBootstrapModeSelector, "
        "FullRecordBootstrapModeSelector, or BootstrapRegexModeSelector (by the regex below).")
    MODE_SELECTOR_REGEX = ConfigOption(
        "hoodie.bootstrap.mode.selector.regex", parse_str, ".*",
        "BootstrapRegexModeSelector: partitions matching it take the regex mode, the others the other mode.")
    MODE_SELECTOR_REGEX_MODE = ConfigOption(
        "hoodie.bootstrap.mode.selector.regex.mode", BootstrapMode.parse, BootstrapMode.METADATA_ONLY,
        "BootstrapRegexModeSelector: the mode of the partitions the regex matches.")
    PARALLELISM = ConfigOption("hoodie.bootstrap.parallelism", parse_int, 1500,
                               "Spark tasks of a bootstrap (an upper bound: never more than the source files).",
                               minimum=1)
    INDEX_CLASS = ConfigOption(
        "hoodie.bootstrap.index.class", parse_str, HFILE_BOOTSTRAP_INDEX,
        "The bootstrap index of metadata-only partitions; recorded in hoodie.properties.")
