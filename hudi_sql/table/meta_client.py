"""TableMetaClient: a table's properties and timeline, loaded from ``.hoodie/``.

This is the read-side I/O boundary of the driver: it lists ``.hoodie/`` once per load and
caches commit metadata by instant (instant files are immutable once completed). Planners get
the pure values it loads (:class:`~hudi_sql.model.timeline.Timeline`, :class:`HudiConfigs`).
"""

from __future__ import annotations

__all__ = ["TableMetaClient", "init_table"]

import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property

from hudi_sql.config import HudiConfigs, HudiTableConfig, TableType
from hudi_sql.errors import HudiFileFormatError, TableAlreadyExistsError, TableNotFoundError
from hudi_sql.model.commit_metadata import CommitMetadata
from hudi_sql.model.instant import Instant
from hudi_sql.model.timeline import Timeline
from hudi_sql.storage.fs import Storage
from hudi_sql.storage.layout import INITIAL_FOLDERS, TableLayout
from hudi_sql.storage.properties import format_properties, parse_properties, table_checksum

_log = logging.getLogger(__name__)


@dataclass
class TableMetaClient:
    layout: TableLayout
    properties: dict[str, str]
    timeline: Timeline
    storage: Storage = field(default_factory=Storage)
    _metadata_cache: dict[Instant, CommitMetadata] = field(default_factory=dict, repr=False)

    @classmethod
    def load(cls, base_path: str, *, storage: Storage | None = None) -> TableMetaClient:
        storage = storage or Storage()
        layout = TableLayout.of(base_path)
        properties = _read_properties(storage, layout)
        return cls(layout, properties, _load_timeline(storage, layout), storage)

    @staticmethod
    def exists(base_path: str, *, storage: Storage | None = None) -> bool:
        storage = storage or Storage()
        layout = TableLayout.of(base_path)
        return storage.exists(layout.properties_path) or storage.exists(layout.properties_path + ".backup")

    def reload(self) -> TableMetaClient:
        return TableMetaClient.load(self.layout.base_path, storage=self.storage)

    def reload_timeline(self) -> None:
        self.timeline = _load_timeline(self.storage, self.layout)

    # -- properties ----------------------------------------------------------------------

    @cached_property
    def table_config(self) -> HudiConfigs:
        return HudiConfigs.of(self.properties, validate=False)

    @property
    def base_path(self) -> str:
        return self.layout.base_path

    @property
    def table_name(self) -> str:
        return str(self.table_config.get(HudiTableConfig.NAME))

    @property
    def table_type(self) -> TableType:
        return self.table_config.get(HudiTableConfig.TYPE)  # type: ignore[no-any-return]

    @property
    def record_key_fields(self) -> tuple[str, ...]:
        return self.table_config.get(HudiTableConfig.RECORD_KEY_FIELDS)  # type: ignore[no-any-return]

    @property
    def partition_fields(self) -> tuple[str, ...]:
        return self.table_config.get(HudiTableConfig.PARTITION_FIELDS)  # type: ignore[no-any-return]

    @property
    def precombine_field(self) -> str | None:
        return self.table_config.get(HudiTableConfig.PRECOMBINE_FIELD)  # type: ignore[no-any-return]

    @property
    def populate_meta_fields(self) -> bool:
        return bool(self.table_config.get(HudiTableConfig.POPULATE_META_FIELDS))

    def update_properties(self, changes: Mapping[str, str | None]) -> None:
        """Rewrite ``hoodie.properties`` as Java does: backup first, then the file, then drop the backup."""
        new = dict(self.properties)
        for key, value in changes.items():
            if value is None:
                new.pop(key, None)
            else:
                new[key] = value
        backup = self.layout.properties_path + ".backup"
        self.storage.write_bytes(backup, format_properties(self.properties))
        self.storage.write_bytes(self.layout.properties_path, format_properties(new))
        self.storage.delete(backup)
        self.properties = new
        self.__dict__.pop("table_config", None)

    # -- commit metadata -----------------------------------------------------------------

    def read_instant_bytes(self, instant: Instant) -> bytes:
        return self.storage.read_bytes(self.layout.instant_path(instant))

    def commit_metadata(self, instant: Instant) -> CommitMetadata:
        """Metadata of a completed commit / deltacommit / replacecommit (cached: immutable)."""
        cached = self._metadata_cache.get(instant)
        if cached is None:
            data = self.read_instant_bytes(instant)
            cached = CommitMetadata.from_bytes(data, origin=f"instant file {instant.file_name}")
            self._metadata_cache[instant] = cached
        return cached

    def latest_schema(self, as_of: str | None = None) -> str | None:
        """Avro schema JSON (data columns) of the latest completed write, else the create schema."""
        writes = self.timeline.completed_writes()
        if as_of is not None:
            writes = writes.up_to(as_of)
        for instant in reversed(writes.instants):
            schema = self.commit_metadata(instant).schema
            if schema:
                return schema
        return self.table_config.get(HudiTableConfig.CREATE_SCHEMA)  # type: ignore[no-any-return]


def init_table(base_path: str, properties: Mapping[str, str], *, storage: Storage | None = None) -> TableMetaClient:
    """Create an empty v6 table: ``.hoodie/`` with its folders and ``hoodie.properties``.

    *properties* holds the table-scope keys; name and type are required. Version, layout,
    checksum and the v6 defaults the readers require are filled in here.
    """
    storage = storage or Storage()
    layout = TableLayout.of(base_path)
    if TableMetaClient.exists(base_path, storage=storage):
        raise TableAlreadyExistsError(f"A Hudi table already exists at '{layout.base_path}'.")
    values = {k: v for k, v in properties.items() if v is not None and v != ""}
    if "hoodie.table.name" not in values:
        raise HudiFileFormatError("A table needs 'hoodie.table.name'.")
    database = values.setdefault("hoodie.database.name", "default")
    values.setdefault("hoodie.table.type", TableType.COPY_ON_WRITE.value)
    values["hoodie.table.version"] = "6"
    values["hoodie.timeline.layout.version"] = "1"
    values.setdefault("hoodie.table.base.file.format", "PARQUET")
    values.setdefault("hoodie.archivelog.folder", "archived")
    values.setdefault("hoodie.table.timeline.timezone", "UTC")
    values.setdefault("hoodie.datasource.write.partitionpath.urlencode", "false")
    values.setdefault("hoodie.datasource.write.hive_style_partitioning", "false")
    values.setdefault("hoodie.datasource.write.drop.partition.columns", "false")
    if values.get("hoodie.populate.meta.fields", "true").lower() == "true":
        values.pop("hoodie.populate.meta.fields", None)
    if values["hoodie.table.type"] == TableType.MERGE_ON_READ.value:
        values.setdefault("hoodie.compaction.payload.class",
                          "org.apache.hudi.common.model.OverwriteWithLatestAvroPayload")
        values.setdefault("hoodie.compaction.record.merger.strategy", "eeb8d96f-b1e4-49fd-bbf8-28ac514178e5")
    values["hoodie.table.checksum"] = str(table_checksum(database, values["hoodie.table.name"]))
    for folder in INITIAL_FOLDERS:
        storage.mkdirs(f"{layout.meta_path}/{folder}")
    storage.write_bytes(layout.properties_path, format_properties(values))
    return TableMetaClient.load(base_path, storage=storage)


def _read_properties(storage: Storage, layout: TableLayout) -> dict[str, str]:
    for candidate in (layout.properties_path, layout.properties_path + ".backup"):
        if storage.exists(candidate):
            values = parse_properties(storage.read_bytes(candidate), origin=candidate)
            if "hoodie.table.name" not in values or "hoodie.table.type" not in values:
                raise HudiFileFormatError(
                    f"'{candidate}' lacks hoodie.table.name or hoodie.table.type.",
                    help="the properties file is damaged; restore it from hoodie.properties.backup",
                )
            return values
    raise TableNotFoundError(
        f"No Hudi table at '{layout.base_path}' (no .hoodie/hoodie.properties).",
        help="check the path, or create the table first (CREATE TABLE ... USING hudi, or a write)",
    )


def _load_timeline(storage: Storage, layout: TableLayout) -> Timeline:
    instants = []
    for status in storage.list(layout.meta_path):
        if status.is_dir:
            continue
        instant = Instant.parse_file_name(status.name)
        if instant is not None:
            instants.append(instant)
    return Timeline.of(instants)
