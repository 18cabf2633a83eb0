"""Bootstrap: an existing Parquet table becomes a Hudi table (Apache Hudi's ``run_bootstrap``).

The source (Hive-style partitioned or not) is only ever read. A mode selector gives each of its
partitions a mode (:class:`~hudi_sql.config.BootstrapMode`), by Apache Hudi's selector classes:

* ``FULL_RECORD``: the partition's rows are written as regular base files, in one bulk insert
  at Apache Hudi's fixed instant ``00000000000002``, partitioned by the table's key generator;
* ``METADATA_ONLY``: skeleton files of meta columns beside an index into the source files, at
  ``00000000000001``. Not written yet: a bootstrap that would need it fails before writing,
  naming the partitions and the selector that gives them full records instead.

The new table records the source in ``hoodie.properties`` (``hoodie.bootstrap.base.path``) as
Apache Hudi does. A bootstrap either commits or leaves no table behind: when it fails, what it
created is removed (a table that existed before is refused unless ``bootstrap_overwrite``).
"""

from __future__ import annotations

__all__ = ["BootstrapRequest", "BootstrapResult", "partition_modes", "run_bootstrap", "source_partitions"]

import logging
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from hudi_sql.config import (
    BootstrapMode,
    HudiBootstrapConfig,
    HudiConfigs,
    HudiTableConfig,
    HudiWriteConfig,
    TableType,
)
from hudi_sql.config.bootstrap import FULL_RECORD_SELECTOR, METADATA_ONLY_SELECTOR, REGEX_SELECTOR
from hudi_sql.errors import HudiConfigError, TableAlreadyExistsError, UnsupportedFeatureError
from hudi_sql.model.instant import FULL_BOOTSTRAP_INSTANT
from hudi_sql.storage.fs import Storage
from hudi_sql.table.meta_client import TableMetaClient

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

_log = logging.getLogger(__name__)

SIMPLE_KEY_GENERATOR = "org.apache.hudi.keygen.SimpleKeyGenerator"
OVERWRITE_PAYLOAD = "org.apache.hudi.common.model.OverwriteWithLatestAvroPayload"


@dataclass(frozen=True)
class BootstrapRequest:
    """One bootstrap, as ``CALL run_bootstrap`` takes it (Apache Hudi's argument names in the docs)."""

    table_name: str
    table_type: TableType
    source_path: str  # bootstrap_path
    base_path: str
    record_key_fields: str  # rowKey_field
    partition_path_field: str = ""
    key_generator_class: str = SIMPLE_KEY_GENERATOR
    selector_class: str = METADATA_ONLY_SELECTOR
    payload_class: str = OVERWRITE_PAYLOAD
    database: str = "default"
    overwrite: bool = False  # bootstrap_overwrite: replace a table already at base_path
    options: Mapping[str, str] = field(default_factory=dict)  # more hoodie.* options (regex selector, sync)


@dataclass(frozen=True)
class BootstrapResult:
    instant_time: str
    modes: dict[str, BootstrapMode]  # source partition -> mode
    files_written: int


def source_partitions(storage: Storage, source_path: str) -> list[str]:
    """The source's partitions: folders (relative to it) that hold data files; ``""`` for the
    source folder itself. Hidden and ``_``-prefixed entries (``_SUCCESS``, ``.crc``) are not data."""
    root = source_path.rstrip("/")
    if not storage.exists(root):
        raise HudiConfigError(f"The bootstrap source '{source_path}' does not exist.",
                              help="bootstrap_path names the existing Parquet table's folder")
    found = []
    for current, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith((".", "_")))
        if any(f.endswith(".parquet") and not f.startswith((".", "_")) for f in files):
            rel = os.path.relpath(current, root)
            found.append("" if rel == "." else rel.replace(os.sep, "/"))
    if not found:
        raise HudiConfigError(f"The bootstrap source '{source_path}' holds no Parquet files.",
                              help="bootstrap_path names the existing Parquet table's folder")
    return sorted(found)


def partition_modes(partitions: list[str], selector_class: str, configs: HudiConfigs) -> dict[str, BootstrapMode]:
    """Each partition's mode by Apache Hudi's selector classes (the simple class name is enough)."""
    short = selector_class.rsplit(".", 1)[-1]
    if short == METADATA_ONLY_SELECTOR.rsplit(".", 1)[-1]:
        return dict.fromkeys(partitions, BootstrapMode.METADATA_ONLY)
    if short == FULL_RECORD_SELECTOR.rsplit(".", 1)[-1]:
        return dict.fromkeys(partitions, BootstrapMode.FULL_RECORD)
    if short == REGEX_SELECTOR.rsplit(".", 1)[-1]:
        pattern = configs.get(HudiBootstrapConfig.MODE_SELECTOR_REGEX)
        try:
            regex = re.compile(pattern)
        except re.error as exc:
            raise HudiConfigError(f"'{pattern}' ({HudiBootstrapConfig.MODE_SELECTOR_REGEX.key}) is not a regular "
                                  f"expression: {exc}.") from None
        matched: BootstrapMode = configs.get(HudiBootstrapConfig.MODE_SELECTOR_REGEX_MODE)
        other = BootstrapMode.FULL_RECORD if matched is BootstrapMode.METADATA_ONLY else BootstrapMode.METADATA_ONLY
        return {p: matched if regex.fullmatch(p) else other for p in partitions}
    raise UnsupportedFeatureError(
        f"Bootstrap mode selector '{selector_class}' is not one hudi-sql runs.",
        help=f"use {FULL_RECORD_SELECTOR.rsplit('.', 1)[-1]}, {METADATA_ONLY_SELECTOR.rsplit('.', 1)[-1]} or "
             f"{REGEX_SELECTOR.rsplit('.', 1)[-1]} (with {HudiBootstrapConfig.MODE_SELECTOR_REGEX.key})")


def _write_options(request: BootstrapRequest) -> dict[str, str]:
    options = {k: v for k, v in request.options.items() if k.startswith("hoodie.")}
    options.update({
        HudiTableConfig.NAME.key: request.table_name,
        HudiTableConfig.DATABASE_NAME.key: request.database,
        HudiWriteConfig.TABLE_TYPE.key: request.table_type.value,
        HudiWriteConfig.RECORD_KEY_FIELDS.key: request.record_key_fields,
        HudiWriteConfig.PARTITION_PATH_FIELDS.key: request.partition_path_field,
        HudiWriteConfig.KEY_GENERATOR_CLASS.key: request.key_generator_class,
        HudiWriteConfig.PAYLOAD_CLASS.key: request.payload_class,
        HudiWriteConfig.OPERATION.key: "bulk_insert",
    })
    return options


def run_bootstrap(spark: SparkSession, request: BootstrapRequest) -> BootstrapResult:
    """Bootstrap *request*'s source into a new table at its base path (see the module notes).

    Raises:
        TableAlreadyExistsError: a table is at the base path and ``overwrite`` is off.
        HudiConfigError: a missing or empty source, a base path holding other files, a bad
            selector regex.
        UnsupportedFeatureError: a partition the selector gives ``METADATA_ONLY``, an unknown selector.
    """
    from hudi_sql.write.client import WriteClient

    storage = Storage()
    if os.path.abspath(request.source_path) == os.path.abspath(request.base_path):
        raise HudiConfigError("A bootstrap writes a new table beside its source, not into it.",
                              help="base_path and bootstrap_path must differ")
    configs = HudiConfigs.of(dict(request.options), validate=False)
    partitions = source_partitions(storage, request.source_path)
    modes = partition_modes(partitions, request.selector_class, configs)
    metadata_only = sorted(p or "(the source folder)" for p, m in modes.items() if m is BootstrapMode.METADATA_ONLY)
    if metadata_only:
        raise UnsupportedFeatureError(
            f"Metadata-only bootstrap (skeleton files and a bootstrap index) is not written yet; "
            f"the selector gives it to {len(metadata_only)} partition(s), e.g. '{metadata_only[0]}'.",
            help=f"selector_class => '{FULL_RECORD_SELECTOR}' rewrites the source as regular base files")
    existed = TableMetaClient.exists(request.base_path, storage=storage)
    if existed and not request.overwrite:
        raise TableAlreadyExistsError(f"A Hudi table already exists at '{request.base_path}'.",
                                      help="bootstrap_overwrite => true replaces it")
    if existed:
        storage.delete_dir(request.base_path)
    elif os.path.isdir(request.base_path) and os.listdir(request.base_path):
        # A failed bootstrap removes its base path whole, so it must hold nothing else.
        raise HudiConfigError(f"The bootstrap's base path '{request.base_path}' holds files and no Hudi table.",
                              help="base_path names a new or empty folder for the table")
    source = spark.read.option("basePath", request.source_path).parquet(
        *[os.path.join(request.source_path, p) if p else request.source_path for p in partitions])
    properties = {HudiBootstrapConfig.BASE_PATH.key: request.source_path,
                  HudiBootstrapConfig.INDEX_CLASS.key: configs.get(HudiBootstrapConfig.INDEX_CLASS)}
    client = WriteClient(request.base_path, _write_options(request), instant_time=FULL_BOOTSTRAP_INSTANT,
                         table_properties=properties)
    try:
        result = client.write(source)
    except BaseException:
        # Nothing committed: the partly written table goes, so the bootstrap can simply run again.
        _log.warning("Bootstrap of '%s' failed; removing what it wrote at '%s'.", request.source_path,
                     request.base_path)
        storage.delete_dir(request.base_path)
        raise
    return BootstrapResult(result.instant_time or FULL_BOOTSTRAP_INSTANT, modes, len(result.write_stats))
