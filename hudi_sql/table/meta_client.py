"""TableMetaClient: a table's properties and timeline, loaded from ``.hoodie/``.

This is the read-side I/O boundary of the driver: it lists ``.hoodie/`` once per load and
caches commit metadata by instant (instant files are immutable once completed). Planners get
the pure values it loads (:class:`~hudi_sql.model.timeline.Timeline`, :class:`HudiConfigs`).

Table versions: :mod:`hudi_sql.table.version` decides on load whether the table's version is
one we read; any other version fails there, naming the version, instead of being read as an
empty timeline. Version 8 tables keep their timeline in ``.hoodie/timeline/`` with completion
times in completed file names (layout 2); this class resolves an instant to its file either way,
so callers keep asking by instant time and action. The LSM archived timeline of layout 2
(``.hoodie/timeline/history/``) is not loaded: as with layout 1's ``archived/``, files older
than the first active instant count as committed.

It is also the one reader of instant payloads: every plan and metadata kind of
:mod:`hudi_sql.model.instant_payloads` is read by one method here (``clean_plan``,
``compaction_plan``, ``clustering_plan``, ...), the counterpart of the one writer,
:mod:`hudi_sql.commit.timeline_writer`.
"""

from __future__ import annotations

__all__ = ["TableMetaClient", "init_table", "versioned_merge"]

import logging
import posixpath
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

from hudi_sql.config import HudiReadConfig, HudiTableConfig, TableType
from hudi_sql.config.resolve import TableConfig
from hudi_sql.errors import (
    HudiFileFormatError,
    HudiTimelineError,
    StorageError,
    TableAlreadyExistsError,
    TableNotFoundError,
    UnsupportedFeatureError,
)
from hudi_sql.keygen.factory import table_record_key_spec
from hudi_sql.model.commit_metadata import CommitMetadata
from hudi_sql.model.footer_keys import record_key_range
from hudi_sql.model.instant import Action, Instant, State
from hudi_sql.model.instant_payloads import (
    CLUSTER_OPERATION,
    CleanerPlan,
    ClusteringPlan,
    CompactionPlan,
    SavepointMetadata,
    decode_record,
)
from hudi_sql.model.payload import Payload
from hudi_sql.model.timeline import Timeline
from hudi_sql.storage.fs import Storage
from hudi_sql.storage.layout import INITIAL_FOLDERS, TableLayout
from hudi_sql.storage.properties import format_properties, parse_properties, table_checksum
from hudi_sql.table.merge_modes import (
    PAYLOAD_BASED_MERGE_STRATEGY_ID,
    version_8_defaults,
    version_9_merge_properties,
)
from hudi_sql.table.version import (
    DEFAULT_CREATE_VERSION,
    READ_SUPPORT,
    WRITE_VERSIONS,
    TableVersionSupport,
    check_readable,
    check_writable,
)

if TYPE_CHECKING:
    from hudi_sql.keygen.record_key import RecordKeySpec

_log = logging.getLogger(__name__)

#: completed writes :meth:`TableMetaClient.stored_keys_value_only` looks at, newest first
_KEY_FORM_WRITES_LOOKED_AT = 20


@dataclass
class TableMetaClient:
    layout: TableLayout
    properties: dict[str, str]
    timeline: Timeline
    storage: Storage = field(default_factory=Storage)
    _metadata_cache: dict[Instant, CommitMetadata] = field(default_factory=dict, repr=False)
    #: the stored key form, once a footer showed it (:meth:`stored_keys_value_only`; stored keys keep it)
    _stored_key_form: bool | None = field(default=None, repr=False)

    @classmethod
    def load(cls, base_path: str, *, storage: Storage | None = None) -> TableMetaClient:
        """Properties and active timeline of the table at *base_path*.

        Raises:
            TableNotFoundError: no ``hoodie.properties``.
            UnsupportedFeatureError: the table version is not one we read (named in the message).
        """
        storage = storage or Storage.for_path(base_path)
        layout = TableLayout.of(base_path)
        properties = _read_properties(storage, layout)
        support = check_readable(properties, base_path=layout.base_path)
        timeline = _load_timeline(storage, layout, support, TableConfig.of(properties).timeline_path)
        return cls(layout, properties, timeline, storage)

    @staticmethod
    def exists(base_path: str, *, storage: Storage | None = None) -> bool:
        storage = storage or Storage.for_path(base_path)
        layout = TableLayout.of(base_path)
        return storage.exists(layout.properties_path) or storage.exists(layout.properties_path + ".backup")

    def reload(self) -> TableMetaClient:
        return TableMetaClient.load(self.layout.base_path, storage=self.storage)

    def reload_timeline(self) -> None:
        self.timeline = _load_timeline(self.storage, self.layout, self.version_support, self.config.timeline_path)

    # -- table version -------------------------------------------------------------------

    @property
    def version_support(self) -> TableVersionSupport:
        return check_readable(self.properties, base_path=self.layout.base_path)

    @property
    def table_version(self) -> int:
        return self.version_support.version

    @property
    def timeline_layout(self) -> int:
        return self.version_support.timeline_layout

    def require_writable(self, operation: str) -> None:
        """Raise :class:`UnsupportedFeatureError` when we cannot write this table's version."""
        check_writable(self.properties, base_path=self.base_path, operation=operation)

    @property
    def timeline_path(self) -> str:
        """Folder of the active timeline: ``.hoodie`` (layout 1) or ``.hoodie/<hoodie.timeline.path>``."""
        return _timeline_path(self.layout, self.timeline_layout, self.config.timeline_path)

    def timeline_path_of_layout(self, timeline_layout: int) -> str:
        """Folder the timeline of *timeline_layout* lives in, whatever the table's version says now
        (an upgrade writes layout 2 while the table is still version 6)."""
        return _timeline_path(self.layout, timeline_layout, self.config.timeline_path)

    def instant_file_path(self, instant: Instant) -> str:
        """Path of *instant*'s file; on layout 2 a completed instant is looked up for its completion time."""
        if self.timeline_layout == 1:
            return self.layout.instant_path(instant)
        if instant.is_completed and instant.completion_time is None:
            listed = self.timeline.find(instant.instant_time, instant.action, State.COMPLETED)
            if listed is not None:
                instant = listed
        return f"{self.timeline_path}/{instant.file_name}"

    # -- properties ----------------------------------------------------------------------

    @property
    def base_path(self) -> str:
        return self.layout.base_path

    @property
    def table_name(self) -> str:
        return self.config.name

    @property
    def table_type(self) -> TableType:
        return self.config.table_type

    @property
    def record_key_fields(self) -> tuple[str, ...]:
        return self.config.record_key_fields

    @cached_property
    def config(self) -> TableConfig:
        """``hoodie.properties`` typed: the one reading of it (:meth:`TableConfig.of` says its rules)."""
        return TableConfig.of(self.properties)

    @property
    def partition_fields(self) -> tuple[str, ...]:
        """Partition columns (a version 8 field's ``:TYPE`` left out)."""
        return self.config.partition_fields

    @property
    def precombine_field(self) -> str | None:
        """The ordering field (``hoodie.table.precombine.field``, else the first ordering field)."""
        return self.config.precombine_field

    def record_payload(self) -> tuple[str | None, Payload]:
        """(ordering field, payload) merging records of one key across base and logs, in reads and
        table services.

        Version 6 names the payload class in ``hoodie.properties`` (its rules: :mod:`hudi_sql.model.payload`).
        Version 8 says it in ``hoodie.record.merge.mode``: ``EVENT_TIME_ORDERING`` compares the
        ordering field, ``COMMIT_TIME_ORDERING`` lets the latest write win whatever its ordering
        value (so no ordering field is used at all). ``CUSTOM`` mergers run user Java code.

        Raises:
            HudiConfigError: a payload class hudi-sql does not run.
            UnsupportedFeatureError: a CUSTOM merge mode.
        """
        if self.table_version >= 9:
            return self._version_9_merge()
        return versioned_merge(self.config, self.table_version, where=f"Table '{self.base_path}'")

    def _version_9_merge(self) -> tuple[str | None, Payload]:
        """Version 9 (Apache Hudi 1.1+) describes merging without payload classes: the merge mode,
        the ordering fields, a partial-update mode and merge properties (a delete field and
        marker). The combinations that are rules hudi-sql runs map onto them; the others fail
        naming the property, rather than merging differently from Apache Hudi."""
        cfg = HudiTableConfig
        config = self.config
        fields = list(config.ordering_fields) or ([self.precombine_field] if self.precombine_field else [])
        mode = config.record_merge_mode or ("EVENT_TIME_ORDERING" if fields else "COMMIT_TIME_ORDERING")
        partial = config.partial_update_mode
        delete = (config.merge_delete_field, config.merge_delete_marker)

        def refuse(what: str) -> UnsupportedFeatureError:
            return UnsupportedFeatureError(
                f"Table '{self.base_path}' (table version 9) merges records {what}, which hudi-sql does not run yet.",
                help=f"read it with Apache Hudi, or with {HudiReadConfig.QUERY_TYPE.key}=read_optimized (base "
                     "files only, no merging)")

        if mode == "EVENT_TIME_ORDERING" and len(fields) > 1:
            raise refuse(f"by {len(fields)} ordering fields compared as a tuple ({cfg.ORDERING_FIELDS.key}="
                         f"{','.join(fields)})")
        if partial != "NONE":
            raise refuse(f"with partial updates ({cfg.PARTIAL_UPDATE_MODE.key}={partial})")
        if mode == "COMMIT_TIME_ORDERING":
            if not any(delete):
                return None, Payload.OVERWRITE_WITH_LATEST
            if delete == Payload.AWS_DMS.rules.delete_marker:
                return None, Payload.AWS_DMS
        elif mode == "EVENT_TIME_ORDERING" and not any(delete):
            return (fields[0] if fields else None), Payload.EVENT_TIME_ORDERING
        if any(delete):
            raise refuse(f"with the delete marker {cfg.MERGE_DELETE_FIELD.key}={delete[0]}, "
                         f"{cfg.MERGE_DELETE_MARKER.key}={delete[1]} under {mode}")
        named = config.declared_payload_class
        if mode == "CUSTOM" and config.record_merge_strategy_id == PAYLOAD_BASED_MERGE_STRATEGY_ID and named:
            return (fields[0] if fields else None), Payload.of(named, default=Payload.OVERWRITE_WITH_LATEST)
        raise refuse(f"with {cfg.RECORD_MERGE_MODE.key}={mode} (a custom merger is Java code)")

    @property
    def populate_meta_fields(self) -> bool:
        return self.config.populate_meta_fields

    def recomputed_key_spec(self) -> RecordKeySpec | None:
        """How a reader finds a stored row's record key: ``None`` when ``_hoodie_record_key`` holds
        it; for a table without meta fields (where that column is null) the key fields, rendered as
        the key generator renders them (:func:`~hudi_sql.keygen.arrow_key.arrow_record_keys`).

        Raises:
            HudiConfigError: the table has no meta fields and no record key fields.
        """
        if self.populate_meta_fields:
            return None
        return table_record_key_spec(self.properties, stored_keys_value_only=self.stored_keys_value_only())

    def stored_keys_value_only(self) -> bool | None:
        """For a table keyed by a ComplexKeyGenerator over one field: whether its stored record keys
        are bare values (``True``) or ``field:value`` (``False``); ``None`` for other tables, and
        when no recent completed write left a base file whose footer records a key.

        Apache Hudi 0.14.0 and 1.1+ key such a record ``id:1``, 0.14.1 to 1.0.2 ``1`` (HUDI-7001,
        reverted by HUDI-9666). A writer of the other form matches none of the stored keys: every
        upserted record is stored a second time, and the write reports success. So a write that
        does not set ``hoodie.write.complex.keygen.new.encoding`` keys records as the table already
        does (:meth:`~hudi_sql.config.keygen.KeyGenConfig.single_complex_key_value_only`); the
        form shows, without reading a row, in the smallest key a base file's footer records.
        """
        key_field = self.config.single_complex_key_field
        if key_field is None or self._stored_key_form is not None:
            return self._stored_key_form if key_field is not None else None
        prefix = f"{key_field}:"
        for instant in list(reversed(list(self.timeline.completed_writes())))[:_KEY_FORM_WRITES_LOOKED_AT]:
            for stat in self.commit_metadata(instant).write_stats():
                if not stat.path or not stat.path.endswith(".parquet"):
                    continue
                try:
                    key, _ = record_key_range(self.storage.parquet_metadata(posixpath.join(self.base_path,
                                                                                             stat.path)).metadata)
                except (FileNotFoundError, StorageError):
                    continue  # cleaned or replaced since: an older file may still show the form
                if key:
                    self._stored_key_form = not key.startswith(prefix)
                    return self._stored_key_form
        return None

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
        self.__dict__.pop("config", None)

    # -- commit metadata -----------------------------------------------------------------

    def read_instant_bytes(self, instant: Instant) -> bytes:
        return self.storage.read_bytes(self.instant_file_path(instant))

    def commit_metadata(self, instant: Instant) -> CommitMetadata:
        """Metadata of a completed commit / deltacommit / replacecommit (cached: immutable)."""
        cached = self._metadata_cache.get(instant)
        if cached is None:
            data = self.read_instant_bytes(instant)
            cached = CommitMetadata.from_bytes(data, origin=f"instant file {instant.file_name}")
            self._metadata_cache[instant] = cached
        return cached

    def extra_metadata_values(self, key: str) -> Iterator[tuple[Instant, str]]:
        """``(instant, value)`` of *key* in the extra metadata of the completed commits that
        carry it, newest first: where a stream's batch ids and a pipeline's checkpoints are kept."""
        for instant in reversed(list(self.timeline.completed_writes())):
            value = self.commit_metadata(instant).extra_metadata.get(key)
            if value:
                yield instant, value

    def inflight_workload(self, instant: Instant) -> CommitMetadata:
        """The workload profile in a write's inflight file (empty metadata for an empty file)."""
        inflight = instant.to(State.INFLIGHT)
        return CommitMetadata.from_bytes(self.read_instant_bytes(inflight), origin=f"instant file {inflight.file_name}")

    # -- plans and metadata of the table services (one reader per payload kind) ------------

    def instant_record(self, instant: Instant) -> dict[str, Any] | None:
        """The Avro record of an instant file (``None`` when the file is empty)."""
        return decode_record(instant, self.read_instant_bytes(instant))

    def _record(self, instant: Instant) -> dict[str, Any]:
        record = self.instant_record(instant)
        if record is None:
            raise HudiFileFormatError(f"Instant file {instant.file_name} of '{self.base_path}' is empty.")
        return record

    def clean_plan(self, instant_time: str) -> CleanerPlan:
        """The ``HoodieCleanerPlan`` of ``<t>.clean.requested``."""
        return CleanerPlan.from_avro(self._record(Instant(instant_time, Action.CLEAN, State.REQUESTED)))

    def clean_metadata(self, instant_time: str) -> dict[str, Any]:
        """The ``HoodieCleanMetadata`` record of a completed clean."""
        return self._record(Instant(instant_time, Action.CLEAN))

    def compaction_plan(self, instant_time: str) -> CompactionPlan:
        """The ``HoodieCompactionPlan`` of ``<t>.compaction.requested``."""
        return CompactionPlan.from_avro(instant_time, self._record(Instant(instant_time, Action.COMPACTION,
                                                                           State.REQUESTED)))

    def pending_compaction_operations(self) -> dict[tuple[str, str], str]:
        """(partition, file id) -> instant of every file group under a pending compaction."""
        out: dict[tuple[str, str], str] = {}
        for instant in self.timeline.pending_compactions():
            for op in self.compaction_plan(instant.instant_time).operations:
                out[(op.partition_path, op.file_id)] = instant.instant_time
        return out

    @property
    def clustering_action(self) -> Action:
        """The action a clustering is requested and inflight as: ``replacecommit`` (version 6) or
        ``clustering`` (version 8); either way it completes as a ``replacecommit``."""
        return Action.CLUSTERING if self.timeline_layout == 2 else Action.REPLACE_COMMIT

    def requested_replace_metadata(self, instant_time: str) -> dict[str, Any] | None:
        """The ``HoodieRequestedReplaceMetadata`` of a replacecommit or (layout 2) a clustering
        (``None``: no or empty file)."""
        for action in dict.fromkeys((self.clustering_action, Action.REPLACE_COMMIT)):
            requested = Instant(instant_time, action, State.REQUESTED)
            if self.storage.exists(self.instant_file_path(requested)):
                return self.instant_record(requested)  # insert_overwrite by some writers: an empty file
        return None

    def is_clustering_instant(self, instant: Instant) -> bool:
        """Whether an instant is a clustering: a layout 2 ``clustering`` action, or a replacecommit
        whose requested file holds a clustering plan (Java's ``ClusteringUtils.isClusteringInstant``),
        or, once completed, whose operation is CLUSTER."""
        if instant.action is Action.CLUSTERING:
            return True
        if instant.action is not Action.REPLACE_COMMIT:
            return False
        if instant.is_completed and self.commit_metadata(instant).operation_type == CLUSTER_OPERATION:
            return True
        record = self.requested_replace_metadata(instant.instant_time)
        return bool(record and record.get("clusteringPlan"))

    def pending_clustering_instants(self) -> Timeline:
        """Pending (requested or inflight) clusterings, oldest first.

        The write path's failed-write rollback must leave these alone, as Java's
        ``getInstantsToRollback`` does: a scheduled clustering is not a failed write.
        """
        pending = self.timeline.pending().with_actions(Action.REPLACE_COMMIT, Action.CLUSTERING)
        return Timeline.of(i for i in pending if self.is_clustering_instant(i))

    def clustering_plan(self, instant_time: str) -> ClusteringPlan:
        """The clustering plan of a replacecommit.

        Raises:
            HudiTimelineError: the replacecommit is not a clustering.
        """
        record = self.requested_replace_metadata(instant_time)
        if record is None or not record.get("clusteringPlan"):
            raise HudiTimelineError(f"Replacecommit {instant_time} of '{self.table_name}' is not a clustering.",
                                    help="CALL show_clustering(table => ...) lists pending clusterings")
        return ClusteringPlan.from_avro(instant_time, record, self.base_path)

    def rollback_metadata(self, instant_time: str) -> dict[str, Any]:
        """The ``HoodieRollbackMetadata`` record of a completed rollback."""
        return self._record(Instant(instant_time, Action.ROLLBACK))

    def savepoint_metadata(self, instant_time: str) -> SavepointMetadata:
        """The ``HoodieSavepointMetadata`` of a completed savepoint."""
        return SavepointMetadata.from_avro(instant_time, self._record(Instant(instant_time, Action.SAVEPOINT)))

    def restore_metadata(self, instant_time: str) -> dict[str, Any]:
        """The ``HoodieRestoreMetadata`` record of a completed restore."""
        return self._record(Instant(instant_time, Action.RESTORE))

    def latest_schema(self, as_of: str | None = None) -> str | None:
        """Avro schema JSON (data columns) of the latest completed write, else the create schema."""
        writes = self.timeline.completed_writes()
        if as_of is not None:
            writes = writes.up_to(as_of)
        for instant in reversed(writes.instants):
            schema = self.commit_metadata(instant).schema
            if schema:
                return schema
        return self.config.create_schema


def versioned_merge(config: TableConfig, version: int, *, where: str) -> tuple[str | None, Payload]:
    """(ordering field, payload) of a version 6 or 8 table (:meth:`TableMetaClient.record_payload`):
    version 6 and a version 8 file without a merge mode by the payload class it names; version 8
    by ``hoodie.record.merge.mode`` otherwise (*where* names the table in a refusal)."""
    mode = config.record_merge_mode
    if version < 8 or not mode:
        return config.precombine_field, Payload.of(config.declared_payload_class, default=Payload.OVERWRITE_WITH_LATEST)
    if mode == "COMMIT_TIME_ORDERING":
        return None, Payload.OVERWRITE_WITH_LATEST
    if mode == "EVENT_TIME_ORDERING":
        return config.precombine_field, Payload.EVENT_TIME_ORDERING
    named = config.declared_payload_class
    if config.record_merge_strategy_id == PAYLOAD_BASED_MERGE_STRATEGY_ID and named:  # CUSTOM, by a payload
        return config.precombine_field, Payload.of(named, default=Payload.OVERWRITE_WITH_LATEST)
    raise UnsupportedFeatureError(
        f"{where} merges records with {HudiTableConfig.RECORD_MERGE_MODE.key}={mode}, which hudi-sql "
        "cannot run (a custom merger is Java code).",
        help="read it with Apache Hudi, or read_optimized (base files only, no merging)",
    )


def init_table(base_path: str, properties: Mapping[str, str], *, storage: Storage | None = None) -> TableMetaClient:
    """Create an empty table: ``.hoodie/`` with its folders and ``hoodie.properties``.

    *properties* holds the table-scope keys; name and type are required. ``hoodie.table.version``
    is 6 unless it says 8 (``hoodie.write.table.version``). Layout, checksum and the defaults
    the readers of that version require are filled in here; for version 8 those Apache Hudi 1.x
    writes: the timeline folder and its history, the initial version, and the record merge mode
    with its strategy id (event-time ordering with an ordering field, else commit-time).

    Raises:
        UnsupportedFeatureError: a version other than 6 or 8.
    """
    storage = storage or Storage.for_path(base_path)
    layout = TableLayout.of(base_path)
    if TableMetaClient.exists(base_path, storage=storage):
        raise TableAlreadyExistsError(f"A Hudi table already exists at '{layout.base_path}'.")
    values = {k: v for k, v in properties.items() if v is not None and v != ""}
    t = HudiTableConfig
    if t.NAME.key not in values:
        raise HudiFileFormatError(f"A table needs '{t.NAME.key}'.")
    database = values.setdefault(t.DATABASE_NAME.key, "default")
    values.setdefault(t.TYPE.key, TableType.COPY_ON_WRITE.value)
    version = int(values.get(t.VERSION.key) or DEFAULT_CREATE_VERSION)
    if version not in WRITE_VERSIONS:
        raise UnsupportedFeatureError(
            f"Cannot create table '{layout.base_path}' at table version {version}.",
            help=f"hudi-sql writes table versions {', '.join(map(str, sorted(WRITE_VERSIONS)))}")
    values[t.VERSION.key] = str(version)
    values[t.TIMELINE_LAYOUT_VERSION.key] = str(READ_SUPPORT[version].timeline_layout)
    values.setdefault(t.BASE_FILE_FORMAT.key, "PARQUET")
    values.setdefault(t.ARCHIVELOG_FOLDER.key, "archived")
    values.setdefault(t.TIMELINE_TIMEZONE.key, "UTC")
    values.setdefault(t.URL_ENCODE_PARTITIONING.key, "false")
    values.setdefault(t.HIVE_STYLE_PARTITIONING.key, "false")
    values.setdefault(t.DROP_PARTITION_COLUMNS.key, "false")
    if values.get(t.POPULATE_META_FIELDS.key, "true").lower() == "true":
        values.pop(t.POPULATE_META_FIELDS.key, None)
    named_payload = values.get(t.PAYLOAD_CLASS.key)
    if version >= 8:
        version_8_defaults(values)
    if version >= 9:
        version_9_merge_properties(values, named_payload, where=f"table '{layout.base_path}'")
    elif values[t.TYPE.key] == TableType.MERGE_ON_READ.value:
        values.setdefault(t.PAYLOAD_CLASS.key, "org.apache.hudi.common.model.OverwriteWithLatestAvroPayload")
        values.setdefault(t.RECORD_MERGER_STRATEGY.key, "eeb8d96f-b1e4-49fd-bbf8-28ac514178e5")
    values[t.CHECKSUM.key] = str(table_checksum(database, values[t.NAME.key]))
    for folder in INITIAL_FOLDERS:
        storage.mkdirs(f"{layout.meta_path}/{folder}")
    if version >= 8:
        storage.mkdirs(f"{layout.meta_path}/{values[t.TIMELINE_PATH.key]}/{values[t.TIMELINE_HISTORY_PATH.key]}")
    storage.write_bytes(layout.properties_path, format_properties(values))
    return TableMetaClient.load(base_path, storage=storage)


def _read_properties(storage: Storage, layout: TableLayout) -> dict[str, str]:
    for candidate in (layout.properties_path, layout.properties_path + ".backup"):
        if storage.exists(candidate):
            values = parse_properties(storage.read_bytes(candidate), origin=candidate)
            name, type_ = HudiTableConfig.NAME.key, HudiTableConfig.TYPE.key
            if name not in values or type_ not in values:
                raise HudiFileFormatError(
                    f"'{candidate}' lacks {name} or {type_}.",
                    help="the properties file is damaged; restore it from hoodie.properties.backup",
                )
            return values
    raise TableNotFoundError(
        f"No Hudi table at '{layout.base_path}' (no .hoodie/hoodie.properties).",
        help="check the path, or create the table first (CREATE TABLE ... USING hudi, or a write)",
    )


def _timeline_path(layout: TableLayout, timeline_layout: int, folder: str) -> str:
    """The timeline's folder: ``.hoodie`` on layout 1, ``.hoodie/<folder>`` on layout 2."""
    return layout.meta_path if timeline_layout == 1 else f"{layout.meta_path}/{folder}"


def _load_timeline(storage: Storage, layout: TableLayout, support: TableVersionSupport, folder: str) -> Timeline:
    """The active timeline; folders (``archived/``, layout 2's ``history/``) are not instants."""
    folder = _timeline_path(layout, support.timeline_layout, folder)
    if support.timeline_layout == 2 and not storage.exists(folder):
        return Timeline.of(())
    instants = []
    for status in storage.list(folder):
        if status.is_dir:
            continue
        instant = Instant.parse_file_name(status.name, layout=support.timeline_layout)
        if instant is not None:
            instants.append(instant)
    return Timeline.of(instants)
