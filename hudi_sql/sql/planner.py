"""From typed statements and catalog facts to engine calls: pure decisions, no Spark.

The runner loads what a decision needs (a :class:`HudiTableFacts` per Hudi table, the
session's options) and asks this module what to do: which write operation and options an
``INSERT`` uses (:func:`plan_insert`), what ``hoodie.properties`` a ``CREATE TABLE`` writes
(:func:`plan_create`), how a query's columns map onto the table (:func:`align_insert`), how a
table reference is read (:func:`read_options`). Everything here takes and returns plain values
and is tested without a JVM (``tests/sql/test_planner.py``).

Option precedence follows Hudi's Spark SQL (``ProvidesHoodieConfig.combineOptions``): the
table's fixed properties < session options (``SET hoodie.x=...``) < the table's
``TBLPROPERTIES`` < what the statement itself decides (operation, partitions).
"""

from __future__ import annotations

__all__ = [
    "DEFAULT_SQL_PAYLOAD",
    "ColumnSource",
    "CreatePlan",
    "HudiTableFacts",
    "InsertPlan",
    "align_insert",
    "plan_create",
    "plan_insert",
    "read_options",
    "spec_matches",
    "sql_table_options",
    "write_options",
]

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from hudi_sql.config import (
    HudiConfigs,
    HudiMetadataConfig,
    HudiReadConfig,
    HudiTableConfig,
    HudiWriteConfig,
    QueryType,
    TableType,
)
from hudi_sql.config.resolve import TableConfig
from hudi_sql.config.sql_aliases import (
    PRECOMBINE_FIELD,
    PRIMARY_KEY,
    SQL_ALIASES,
    TYPE,
    resolve_sql_aliases,
    table_type_short_name,
)
from hudi_sql.errors import HudiConfigError, HudiSqlError, did_you_mean
from hudi_sql.sql import statements as st
from hudi_sql.write.operation import WriteOperationType

if TYPE_CHECKING:
    from pyspark.sql.types import StructType

DEFAULT_SQL_PAYLOAD = "org.apache.hudi.common.model.OverwriteWithLatestAvroPayload"
"""Tables created by SQL take the newest write of a key (Hudi 0.14 SQL tables record this
payload for MERGE_ON_READ; for COPY_ON_WRITE it is the default and not written)."""

SQL_KEY_GENERATOR = "org.apache.spark.sql.hudi.command.SqlKeyGenerator"

#: Properties fixed when a table is created; ALTER TABLE ... SET TBLPROPERTIES may not change them.
FIXED_PROPERTIES = frozenset(
    {
        *(alias.name.lower() for alias in SQL_ALIASES if alias.fixed),
        HudiWriteConfig.RECORD_KEY_FIELDS.key,
        HudiWriteConfig.PRECOMBINE_FIELD.key,
        HudiWriteConfig.TABLE_TYPE.key,
        HudiWriteConfig.PARTITION_PATH_FIELDS.key,
        HudiWriteConfig.KEY_GENERATOR_CLASS.key,
        HudiTableConfig.NAME.key,
        HudiTableConfig.TYPE.key,
        HudiTableConfig.RECORD_KEY_FIELDS.key,
        HudiTableConfig.PRECOMBINE_FIELD.key,
        HudiTableConfig.PARTITION_FIELDS.key,
        HudiTableConfig.KEY_GENERATOR_CLASS.key,
        HudiTableConfig.HIVE_STYLE_PARTITIONING.key,
        HudiTableConfig.URL_ENCODE_PARTITIONING.key,
        HudiTableConfig.POPULATE_META_FIELDS.key,
    }
)
#: Session options a query honours: the read options, and the metadata table's for reads
#: (listing through it, data skipping).
_READ_KEYS = frozenset(k.key for k in HudiReadConfig) | {"as.of.instant", HudiMetadataConfig.ENABLE.key,
                                                         HudiMetadataConfig.DATA_SKIPPING.key}


def sql_table_options(properties: Mapping[str, str]) -> dict[str, str]:
    """``TBLPROPERTIES`` / ``OPTIONS`` as write options: Hudi's SQL short names become their
    option keys (:mod:`hudi_sql.config.sql_aliases`); other keys that are not options
    (``comment``, user tags) are dropped."""
    return resolve_sql_aliases(properties, keep_other=False)


def validate_options(options: Mapping[str, str], what: str) -> None:
    """Unknown ``hoodie.*`` keys (and values that do not parse) are errors naming the key."""
    try:
        configs = HudiConfigs.of(dict(options))
    except HudiConfigError as e:
        raise HudiConfigError(f"{what}: {e}") from None
    for enum_key in (*HudiWriteConfig, *HudiTableConfig, *HudiReadConfig):
        if configs.is_set(enum_key):
            try:
                configs.get(enum_key)
            except HudiConfigError as e:
                raise HudiConfigError(f"{what}: {e}") from None


@dataclass(frozen=True)
class HudiTableFacts:
    """What the planner needs to know about one Hudi table (loaded by the runner).

    ``data_schema`` is the table's current schema (latest commit, else the create schema)
    without meta columns; ``catalog_schema`` the columns the catalog records, in catalog order
    (partition columns last) with the declared SQL types (``TINYINT`` where Avro says int).
    """

    name: str
    location: str
    table_properties: Mapping[str, str] = field(default_factory=dict, hash=False)
    catalog_properties: Mapping[str, str] = field(default_factory=dict, hash=False)
    data_schema: StructType | None = field(default=None, hash=False, compare=False)
    catalog_schema: StructType | None = field(default=None, hash=False, compare=False)

    @property
    def configs(self) -> HudiConfigs:
        return HudiConfigs.of(self.table_properties, validate=False)

    @property
    def record_key_fields(self) -> tuple[str, ...]:
        return tuple(self.configs.get(HudiTableConfig.RECORD_KEY_FIELDS))

    @property
    def partition_fields(self) -> tuple[str, ...]:
        return tuple(f.split(":", 1)[0] for f in self.configs.get(HudiTableConfig.PARTITION_FIELDS))

    @property
    def precombine_field(self) -> str | None:
        value = self.configs.get(HudiTableConfig.PRECOMBINE_FIELD)
        return str(value) if value else None

    @property
    def table_type(self) -> TableType:
        return self.configs.get(HudiTableConfig.TYPE)  # type: ignore[no-any-return]

    @property
    def table_version(self) -> int:
        return int(self.configs.get(HudiTableConfig.VERSION))

    @property
    def hive_style(self) -> bool:
        return bool(self.configs.get(HudiTableConfig.HIVE_STYLE_PARTITIONING))

    @property
    def url_encode(self) -> bool:
        return bool(self.configs.get(HudiTableConfig.URL_ENCODE_PARTITIONING))

    @property
    def populate_meta_fields(self) -> bool:
        return bool(self.configs.get(HudiTableConfig.POPULATE_META_FIELDS))

    @property
    def key_generator_class(self) -> str | None:
        value = self.table_properties.get(HudiTableConfig.KEY_GENERATOR_CLASS.key)
        return value or None

    def target_schema(self) -> StructType:
        """The columns an INSERT fills, in the order a positional INSERT uses.

        The catalog's order and declared types when the catalog lists exactly the table's
        columns (the usual case), else the table's own schema (written by other tools).
        """
        from pyspark.sql.types import StructField, StructType

        data = self.data_schema or StructType([])
        catalog = self.catalog_schema
        if catalog is None:
            return data
        names = {f.name.lower() for f in data.fields}
        if {f.name.lower() for f in catalog.fields} != names:
            return data
        by_name = {f.name.lower(): f for f in data.fields}
        return StructType(
            [StructField(by_name[f.name.lower()].name, f.dataType, True, f.metadata) for f in catalog.fields]
        )

    def column(self, name: str, what: str) -> str:
        """The table's spelling of column *name*; raises naming the column with a hint."""
        names = [f.name for f in self.target_schema().fields]
        for candidate in names:
            if candidate.lower() == name.lower():
                return candidate
        raise HudiSqlError(
            f"{what}: column '{name}' is not a column of table {self.name}.{did_you_mean(name, names)}",
            help=f"columns are {', '.join(names)}",
        )


# Reads ---------------------------------------------------------------------------------------------


def read_options(ref: st.TableRef, session: Mapping[str, str]) -> dict[str, str]:
    """Read options for one table reference: its hint or table function, else the session's
    query type (:attr:`HudiReadConfig.QUERY_TYPE`, and incremental range)."""
    options = {k: v for k, v in session.items() if k in _READ_KEYS}
    if ref.incremental_format is not None:  # hudi_table_changes: 'latest_state' or 'cdc'
        options[HudiReadConfig.INCREMENTAL_FORMAT.key] = ref.incremental_format
    if ref.as_of is not None:
        options.pop(HudiReadConfig.BEGIN_INSTANT.key, None)
        options.pop(HudiReadConfig.END_INSTANT.key, None)
        options[HudiReadConfig.QUERY_TYPE.key] = QueryType.SNAPSHOT.value
        options[HudiReadConfig.AS_OF_INSTANT.key] = ref.as_of
        return options
    if ref.query_type is not None:
        options[HudiReadConfig.QUERY_TYPE.key] = ref.query_type.value
        if ref.query_type is QueryType.INCREMENTAL:
            options.pop(HudiReadConfig.END_INSTANT.key, None)
            options[HudiReadConfig.BEGIN_INSTANT.key] = ref.begin or "000"
            if ref.end:
                options[HudiReadConfig.END_INSTANT.key] = ref.end
    return options


# Writes --------------------------------------------------------------------------------------------


def write_options(
    table: HudiTableFacts, session: Mapping[str, str], statement: Mapping[str, str] | None = None
) -> dict[str, str]:
    """The options of a SQL write to *table*, layered as Hudi's SQL does (see the module doc)."""
    base = {
        HudiTableConfig.NAME.key: str(table.table_properties.get(HudiTableConfig.NAME.key, table.name)),
        HudiWriteConfig.TABLE_TYPE.key: table.table_type.value,
    }
    if table.key_generator_class:
        # Hudi's SQL writes wrap the table's key generator (timestamp partition values as SQL writes them).
        base[HudiWriteConfig.KEY_GENERATOR_CLASS.key] = SQL_KEY_GENERATOR
        base[HudiWriteConfig.SQL_ORIGIN_KEYGEN_CLASS.key] = table.key_generator_class
    if table.precombine_field:
        base[HudiWriteConfig.PRECOMBINE_FIELD.key] = table.precombine_field
    session_write = {k: v for k, v in session.items() if k.startswith("hoodie.") and k not in _READ_KEYS}
    layered = {**base, **session_write, **sql_table_options(table.catalog_properties), **(statement or {})}
    # A table's key generator is fixed; options naming one (a TBLPROPERTIES copy) must not undo the wrapper.
    if table.key_generator_class:
        layered[HudiWriteConfig.KEY_GENERATOR_CLASS.key] = SQL_KEY_GENERATOR
    return layered


class DupPolicy:
    NONE = "none"
    DROP = "drop"
    FAIL = "fail"


@dataclass(frozen=True)
class InsertPlan:
    """How one ``INSERT`` is written.

    ``operation`` is Hudi's write operation; ``options`` the full write options;
    ``dup_policy`` is ``fail`` when existing keys must be checked before writing, and
    ``refused_by`` then names the setting that asks for it (the dup policy, or the strict
    insert mode of older scripts);
    ``static_partition`` the static values of a static-mode ``INSERT OVERWRITE ... PARTITION (...)``:
    every existing partition they match is replaced, even when the query returns no rows.
    """

    operation: WriteOperationType
    options: Mapping[str, str] = field(hash=False)
    dup_policy: str = DupPolicy.NONE
    static_partition: Mapping[str, str] | None = field(default=None, hash=False)
    refused_by: str = ""


def plan_insert(
    statement: st.InsertInto, table: HudiTableFacts, session: Mapping[str, str], *, spark_overwrite_mode: str
) -> InsertPlan:
    """Hudi's operation choice for ``INSERT INTO`` / ``INSERT OVERWRITE``.

    * ``INSERT OVERWRITE`` (Apache Hudi's ``deduceOverwriteConfig``): the mode is dynamic when
      ``hoodie.datasource.write.operation`` is an overwrite, else
      ``hoodie.datasource.overwrite.mode``, else Spark's ``spark.sql.sources.partitionOverwriteMode``.
      A non-partitioned table, or a partitioned one in static mode without a partition value, is
      replaced whole (``insert_overwrite_table``, or as the operation option says); otherwise
      ``insert_overwrite`` replaces the partitions written and, in static mode, every existing
      partition matching the static values (:attr:`InsertPlan.static_partition`).
    * ``INSERT INTO``: :attr:`HudiWriteConfig.SQL_INSERT_INTO_OPERATION` when set; else, on a
      version 6 table whose session or table sets the older
      :attr:`HudiWriteConfig.SQL_INSERT_MODE`, the operation that mode implies (see
      :func:`_legacy_insert_operation`); else ``upsert`` when the table has an ordering
      (preCombine) field, ``insert`` otherwise.
      :attr:`HudiWriteConfig.INSERT_DUP_POLICY`: ``drop`` drops incoming records whose key
      exists, ``fail`` refuses the statement if any exists; both need the ``insert`` operation.
      A batch is deduplicated by key before an insert when the table has an ordering field
      (:attr:`HudiWriteConfig.COMBINE_BEFORE_INSERT` unless set), as Apache Hudi's SQL does.

    Args:
        spark_overwrite_mode: Spark's ``spark.sql.sources.partitionOverwriteMode``.
    """
    probe = write_options(table, session)
    configs = HudiConfigs.of(probe, validate=False)
    statement_options: dict[str, str] = {}
    static = {p.column: p.text or "" for p in statement.partition_spec if p.value is not None}
    if statement.overwrite:
        return _plan_overwrite(table, probe, static, spark_overwrite_mode)

    policy = str(configs.get(HudiWriteConfig.INSERT_DUP_POLICY)).lower()
    explicit = configs.get(HudiWriteConfig.SQL_INSERT_INTO_OPERATION)
    legacy_mode = configs.get(HudiWriteConfig.SQL_INSERT_MODE)
    refused_by = ""
    if explicit:
        operation = WriteOperationType.parse(str(explicit))
    elif legacy_mode and table.table_version < 8:
        # Older scripts' insert mode, honoured only while the newer key is unset (Apache Hudi 0.14+'s
        # rule); Apache Hudi 1.x no longer reads it, so a version 8+ table ignores it too.
        operation = _legacy_insert_operation(str(legacy_mode), table, configs)
        if (legacy_mode == "strict" and operation is WriteOperationType.UPSERT
                and table.table_type is TableType.COPY_ON_WRITE):
            # Apache Hudi writes such an upsert with a payload that fails on any stored key.
            refused_by = f"{HudiWriteConfig.SQL_INSERT_MODE.key}=strict"
        policy = DupPolicy.NONE  # the dup policy belongs to the newer flow, as in Apache Hudi
    elif policy != DupPolicy.NONE:
        operation = WriteOperationType.INSERT
    else:
        operation = WriteOperationType.UPSERT if table.precombine_field else WriteOperationType.INSERT
    if policy != DupPolicy.NONE and operation is not WriteOperationType.INSERT:
        raise HudiConfigError(
            f"'{HudiWriteConfig.INSERT_DUP_POLICY.key}={policy}' needs the insert operation, but "
            f"'{HudiWriteConfig.SQL_INSERT_INTO_OPERATION.key}' is {operation.value.lower()}.",
            help=f"set {HudiWriteConfig.SQL_INSERT_INTO_OPERATION.key}=insert, or the dup policy to none",
        )
    statement_options[HudiWriteConfig.OPERATION.key] = operation.value.lower()
    if not configs.is_set(HudiWriteConfig.COMBINE_BEFORE_INSERT):
        statement_options[HudiWriteConfig.COMBINE_BEFORE_INSERT.key] = str(bool(table.precombine_field)).lower()
    if policy == DupPolicy.DROP:
        statement_options[HudiWriteConfig.INSERT_DROP_DUPS.key] = "true"
    elif policy == DupPolicy.FAIL:
        refused_by = f"{HudiWriteConfig.INSERT_DUP_POLICY.key}=fail"
    return InsertPlan(operation, {**probe, **statement_options},
                      dup_policy=DupPolicy.FAIL if refused_by else policy, refused_by=refused_by)


def _legacy_insert_operation(mode: str, table: HudiTableFacts, configs: HudiConfigs) -> WriteOperationType:
    """The operation Apache Hudi 0.14–0.15 deduce from ``hoodie.sql.insert.mode`` (``upsert``,
    ``strict``, ``non-strict``), ``hoodie.sql.bulk.insert.enable`` and the session's
    ``hoodie.datasource.write.insert.drop.duplicates``: bulk insert only in non-strict mode and
    without dropping duplicates; upsert in the other modes when the table has record key and
    ordering fields; insert otherwise."""
    bulk = bool(configs.get(HudiWriteConfig.SQL_ENABLE_BULK_INSERT))
    drop_duplicates = bool(configs.get(HudiWriteConfig.INSERT_DROP_DUPS))
    if bulk and mode != "non-strict":
        raise HudiConfigError(
            f"Table with primaryKey can not use bulk insert in {mode} mode.",
            help=f"{HudiWriteConfig.SQL_ENABLE_BULK_INSERT.key}=true needs {HudiWriteConfig.SQL_INSERT_MODE.key}=non-strict",
        )
    if bulk and drop_duplicates:
        raise HudiConfigError(
            "Bulk insert cannot support drop duplication. "
            f"Please disable {HudiWriteConfig.INSERT_DROP_DUPS.key} and try again.")
    if bulk:
        return WriteOperationType.BULK_INSERT
    if mode != "non-strict" and not drop_duplicates and table.precombine_field and table.record_key_fields:
        return WriteOperationType.UPSERT
    return WriteOperationType.INSERT


def _plan_overwrite(
    table: HudiTableFacts, probe: Mapping[str, str], static: Mapping[str, str], spark_overwrite_mode: str
) -> InsertPlan:
    configs = HudiConfigs.of(probe, validate=False)
    explicit = probe.get(HudiWriteConfig.OPERATION.key)
    chosen = WriteOperationType.parse(explicit) if explicit else None
    if chosen not in (WriteOperationType.INSERT_OVERWRITE, WriteOperationType.INSERT_OVERWRITE_TABLE):
        chosen = None  # only an overwrite operation option decides an INSERT OVERWRITE, as in Apache Hudi
    mode = str(configs.get(HudiWriteConfig.OVERWRITE_MODE) or spark_overwrite_mode or "static").upper()
    if mode not in ("STATIC", "DYNAMIC"):
        raise HudiConfigError(
            f"'{HudiWriteConfig.OVERWRITE_MODE.key}' (or spark.sql.sources.partitionOverwriteMode) is '{mode}'.",
            help="use STATIC or DYNAMIC",
        )
    static_mode = chosen is None and mode == "STATIC"
    if chosen is not None:
        operation = chosen
    elif not table.partition_fields or (static_mode and not static):
        operation = WriteOperationType.INSERT_OVERWRITE_TABLE
    else:
        operation = WriteOperationType.INSERT_OVERWRITE
    replace_static = static_mode and operation is WriteOperationType.INSERT_OVERWRITE and bool(static)
    options = {**probe, HudiWriteConfig.OPERATION.key: operation.value.lower()}
    return InsertPlan(operation, options, static_partition=dict(static) if replace_static else None)


@dataclass(frozen=True)
class ColumnSource:
    """Where one target column's value comes from: query column ``position``, a static
    partition ``literal`` (Spark SQL), or NULL when neither (columns an INSERT leaves out)."""

    column: str
    position: int | None = None
    literal: str | None = None


def align_insert(statement: st.InsertInto, table: HudiTableFacts, query_width: int) -> list[ColumnSource]:
    """Map the query's output columns onto the table's columns, as Spark's INSERT does: by
    position over the non-static columns, or by the explicit column list; static
    ``PARTITION (p = v)`` values fill their columns.

    Raises:
        HudiSqlError: a column count mismatch, an unknown column, a static partition column
            that is not a partition column or is also listed.
    """
    target = [f.name for f in table.target_schema().fields]
    where = f"INSERT INTO {table.name}"
    partition_names = {p.lower() for p in table.partition_fields}
    static: dict[str, str] = {}
    for entry in statement.partition_spec:
        column = table.column(entry.column, where)
        if column.lower() not in partition_names:
            raise HudiSqlError(
                f"{where}: '{entry.column}' in PARTITION (...) is not a partition column.",
                help=f"partition columns are {', '.join(table.partition_fields) or '(none)'}",
            )
        if entry.value is not None:
            static[column.lower()] = entry.value
    if statement.columns:
        listed = [table.column(c, where) for c in statement.columns]
        clash = [c for c in listed if c.lower() in static]
        if clash:
            raise HudiSqlError(
                f"{where}: column '{clash[0]}' has a static value in PARTITION (...) and is also listed."
            )
        if len(listed) != query_width:
            raise HudiSqlError(
                f"{where}: the column list names {len(listed)} columns but the query gives {query_width}."
            )
        positions = {c.lower(): i for i, c in enumerate(listed)}
    else:
        expected = [c for c in target if c.lower() not in static]
        if len(expected) != query_width:
            raise HudiSqlError(
                f"{where}: the query gives {query_width} columns but the table expects {len(expected)} "
                f"({', '.join(expected)}).",
                help="list the columns, INSERT INTO t (a, b) SELECT ..., or match the table's column order",
            )
        positions = {c.lower(): i for i, c in enumerate(expected)}
    return [ColumnSource(c, position=positions.get(c.lower()), literal=static.get(c.lower())) for c in target]


# CREATE TABLE --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CreatePlan:
    """A new Hudi table: its ``hoodie.properties`` and its catalog entry.

    ``schema`` is in the table's column order (non-partition columns as declared, then the
    partition columns in ``PARTITIONED BY`` order, as Spark orders datasource tables).
    """

    table_properties: Mapping[str, str] = field(hash=False)
    catalog_properties: Mapping[str, str] = field(hash=False)
    schema: StructType = field(hash=False, compare=False)
    partition_columns: tuple[str, ...] = ()
    precombine_field: str | None = None


def order_columns(schema: StructType, partition_columns: Sequence[str]) -> StructType:
    """Partition columns moved to the end, in ``PARTITIONED BY`` order."""
    from pyspark.sql.types import StructType

    by_name = {f.name.lower(): f for f in schema.fields}
    parts = [by_name[p.lower()] for p in partition_columns]
    rest = [f for f in schema.fields if f.name.lower() not in {p.lower() for p in partition_columns}]
    return StructType(rest + parts)


def plan_create(
    statement: st.CreateTable,
    *,
    name: str,
    database: str,
    schema: StructType,
    session: Mapping[str, str] | None = None,
) -> CreatePlan:
    """``hoodie.properties`` for a table created by SQL, as Hudi 0.15's ``CreateHoodieTableCommand``
    writes them: hive-style partitioning unless the properties say otherwise, the key generator
    named by ``hoodie.table.keygenerator.class`` / ``hoodie.datasource.write.keygenerator.class``
    / ``...keygenerator.type`` or inferred from the fields, with its options (a timestamp key
    generator's ``hoodie.keygen.timebased.*``, from ``TBLPROPERTIES`` over ``SET``), the SQL
    payload for MERGE_ON_READ. Without a primary key, record keys are generated
    (:mod:`hudi_sql.keygen.auto_key`) and no record key fields are recorded.

    Args:
        schema: the declared columns, or the CTAS query's output, in declared order.
        session: the session's options (``SET hoodie.x=...``).
    """
    from pyspark.sql.types import StructField, StructType

    from hudi_sql.keygen import key_generator_for
    from hudi_sql.model.schema import META_FIELDS
    from hudi_sql.spark.schema import avro_schema_json

    where = f"CREATE TABLE {name}"
    columns = {f.name.lower(): f.name for f in schema.fields}
    for field_ in schema.fields:
        if field_.name in META_FIELDS:
            raise HudiSqlError(f"{where}: '{field_.name}' is a Hudi meta column and cannot be declared.")

    def known(column: str, what: str) -> str:
        if column.lower() not in columns:
            raise HudiSqlError(
                f"{where}: {what} '{column}' is not a column of the table."
                f"{did_you_mean(column, list(columns.values()))}",
                help=f"columns are {', '.join(columns.values())}",
            )
        return columns[column.lower()]

    partitions = tuple(known(c, "partition column") for c in statement.partitioned_by)
    record_keys = tuple(known(c, "primaryKey field") for c in statement.primary_key)
    precombine = known(statement.precombine_field, "preCombineField") if statement.precombine_field else None
    options = statement.hoodie_options()
    validate_options(options, where)
    configs = HudiConfigs.of(options)
    keygen_session = {k: v for k, v in (session or {}).items() if k in _KEYGEN_SESSION_KEYS}
    table_type = statement.table_type or TableType.COPY_ON_WRITE
    hive_style = (
        configs.get(HudiWriteConfig.HIVE_STYLE_PARTITIONING)
        if configs.is_set(HudiWriteConfig.HIVE_STYLE_PARTITIONING)
        else True
    )
    keygen_options = {
        HudiWriteConfig.RECORD_KEY_FIELDS.key: ",".join(record_keys),
        HudiWriteConfig.PARTITION_PATH_FIELDS.key: ",".join(partitions),
        HudiWriteConfig.HIVE_STYLE_PARTITIONING.key: str(bool(hive_style)).lower(),
        HudiWriteConfig.URL_ENCODE_PARTITIONING.key: str(
            bool(configs.get(HudiWriteConfig.URL_ENCODE_PARTITIONING))
        ).lower(),
    }
    declared_class = _declared_key_generator(options)
    if declared_class is not None:
        keygen_options[HudiWriteConfig.KEY_GENERATOR_CLASS.key] = declared_class
    elif HudiWriteConfig.KEY_GENERATOR_TYPE.key in options:
        keygen_options[HudiWriteConfig.KEY_GENERATOR_TYPE.key] = options[HudiWriteConfig.KEY_GENERATOR_TYPE.key]
    keygen_configs = HudiConfigs.layered(keygen_session, options, keygen_options)
    keygen = key_generator_for(keygen_configs, sql=True)
    ordered = order_columns(
        StructType([StructField(f.name, f.dataType, True, f.metadata) for f in schema.fields]), partitions
    )
    props: dict[str, str] = {
        HudiTableConfig.NAME.key: name,
        HudiTableConfig.TYPE.key: table_type.value,
        HudiTableConfig.DATABASE_NAME.key: database,
        HudiTableConfig.CREATE_SCHEMA.key: avro_schema_json(ordered, name, style="create"),
        HudiTableConfig.DROP_PARTITION_COLUMNS.key: "false",
        **keygen.table_properties(),
        **TableConfig.cdc_properties(HudiConfigs.of(options, validate=False)),
    }
    if precombine:
        props[HudiTableConfig.PRECOMBINE_FIELD.key] = precombine
    if not configs.get(HudiWriteConfig.POPULATE_META_FIELDS):
        props[HudiTableConfig.POPULATE_META_FIELDS.key] = "false"
    # the table version: TBLPROPERTIES, else the session's SET hoodie.write.table.version=8
    versions = HudiConfigs.layered({k: v for k, v in (session or {}).items()
                                    if k == HudiWriteConfig.WRITE_TABLE_VERSION.key}, options)
    version = versions.get(HudiWriteConfig.WRITE_TABLE_VERSION)
    if version is not None:
        props[HudiTableConfig.VERSION.key] = str(version)
    payload = options.get(HudiWriteConfig.PAYLOAD_CLASS.key)
    if payload or (table_type is TableType.MERGE_ON_READ and version in (None, 6)):
        # version 8 without a payload: the merge mode follows the ordering field, as in Apache Hudi 1.x
        props[HudiTableConfig.PAYLOAD_CLASS.key] = payload or DEFAULT_SQL_PAYLOAD
    catalog = dict(statement.properties)
    catalog.setdefault(TYPE.name, table_type_short_name(table_type))
    if record_keys:
        catalog.setdefault(PRIMARY_KEY.name, ",".join(record_keys))
    if precombine:
        catalog.setdefault(PRECOMBINE_FIELD.name, precombine)
    return CreatePlan(props, catalog, ordered, partitions, precombine)


#: Session options (``SET``) a CREATE TABLE takes for its key generator: the timestamp options,
#: under their current and their older (``hoodie.deltastreamer.``) names.
_KEYGEN_SESSION_KEYS = frozenset(
    key
    for option in (
        HudiTableConfig.TIMESTAMP_TYPE,
        HudiTableConfig.TIMESTAMP_SCALAR_UNIT,
        HudiTableConfig.TIMESTAMP_INPUT_FORMAT,
        HudiTableConfig.TIMESTAMP_INPUT_FORMAT_DELIMITER,
        HudiTableConfig.TIMESTAMP_INPUT_TIMEZONE,
        HudiTableConfig.TIMESTAMP_OUTPUT_FORMAT,
        HudiTableConfig.TIMESTAMP_OUTPUT_TIMEZONE,
        HudiTableConfig.TIMESTAMP_TIMEZONE,
        HudiTableConfig.DATETIME_PARSER_CLASS,
    )
    for key in (option.key, *option.spec.aliases)
)


def _declared_key_generator(options: Mapping[str, str]) -> str | None:
    """The key generator class ``TBLPROPERTIES`` name: the write option, else the table property
    (Hudi's SQL wrapper ``SqlKeyGenerator`` names none)."""
    for key in (HudiWriteConfig.KEY_GENERATOR_CLASS.key, HudiTableConfig.KEY_GENERATOR_CLASS.key):
        value = (options.get(key) or "").strip()
        if value and value not in (SQL_KEY_GENERATOR, SQL_KEY_GENERATOR.rsplit(".", 1)[-1]):
            return value
    return None


def registration_properties(
    table_properties: Mapping[str, str], declared: Mapping[str, str], name: str
) -> dict[str, str]:
    """Catalog properties for ``CREATE TABLE t USING hudi LOCATION`` over an existing table:
    the declared ones, checked against the table's fixed properties, plus its keys and type."""
    facts = HudiTableFacts(name, "", table_properties)
    statement_like = sql_table_options(declared)
    checks = {
        HudiWriteConfig.RECORD_KEY_FIELDS.key: ",".join(facts.record_key_fields),
        HudiWriteConfig.PRECOMBINE_FIELD.key: facts.precombine_field or "",
        HudiWriteConfig.TABLE_TYPE.key: facts.table_type.value,
    }
    for key, actual in checks.items():
        given = statement_like.get(key)
        if given is not None and given.replace(" ", "") != actual:
            raise HudiSqlError(
                f"CREATE TABLE {name}: '{key}' is {given} but the table at the location has "
                f"{actual or '(none)'}.",
                help="leave it out: the properties of an existing table come from its hoodie.properties",
            )
    props = dict(declared)
    props.setdefault(TYPE.name, table_type_short_name(facts.table_type))
    if facts.record_key_fields:
        props.setdefault(PRIMARY_KEY.name, ",".join(facts.record_key_fields))
    if facts.precombine_field:
        props.setdefault(PRECOMBINE_FIELD.name, facts.precombine_field)
    return props


# Partition specs -----------------------------------------------------------------------------------


def spec_matches(values: Mapping[str, str] | None, spec: Sequence[st.PartitionValue]) -> bool:
    """Whether a partition with decoded *values* matches every entry of a static *spec*
    (column names compared case-insensitively; a NULL value matches Hudi's default partition)."""
    if values is None:
        return False
    lowered = {k.lower(): v for k, v in values.items()}
    for entry in spec:
        actual = lowered.get(entry.column.lower())
        expected = entry.text if entry.text is not None else "__HIVE_DEFAULT_PARTITION__"
        if actual != expected:
            return False
    return True
