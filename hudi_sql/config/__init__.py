"""Typed option registry: one declaration per ``hoodie.*`` key (see :mod:`.registry`)."""

from hudi_sql.config.bootstrap import BootstrapMode, HudiBootstrapConfig
from hudi_sql.config.compaction import HudiCompactionConfig
from hudi_sql.config.concurrency import HudiConcurrencyConfig as HudiConcurrencyConfig
from hudi_sql.config.metadata import HudiMetadataConfig, MetadataConfig
from hudi_sql.config.read import HudiReadConfig, IncrementalFormat, QueryType
from hudi_sql.config.registry import ConfigEnum, ConfigKey, HudiConfigs, all_config_enums, describe
from hudi_sql.config.services import CleanerPolicy as CleanerPolicy
from hudi_sql.config.services import HudiServiceConfig as HudiServiceConfig
from hudi_sql.config.streaming import HudiStreamingConfig
from hudi_sql.config.table import CdcLoggingMode, HudiTableConfig, TableType
from hudi_sql.config.write import HudiWriteConfig, IndexType

__all__ = [
    "BootstrapMode",
    "CdcLoggingMode",
    "ConfigEnum",
    "ConfigKey",
    "HudiBootstrapConfig",
    "HudiCompactionConfig",
    "HudiConfigs",
    "HudiMetadataConfig",
    "HudiReadConfig",
    "HudiStreamingConfig",
    "HudiTableConfig",
    "HudiWriteConfig",
    "IncrementalFormat",
    "IndexType",
    "MetadataConfig",
    "QueryType",
    "TableType",
    "all_config_enums",
    "describe",
]
