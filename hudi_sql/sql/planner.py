"""From typed statements and catalog facts to engine calls: pure decisions, no Spark.

The runner loads what a decision needs (a :class:`HudiTableFacts` per Hudi table, the
session's options) and asks this module what to do: which write operation and options an
``INSERT`` uses (:mod:`hudi_sql.sql.insert_planner`), what ``hoodie.properties`` a ``CREATE
TABLE`` writes (:func:`plan_create`), how a table reference is read (:func:`read_options`) and
written (:func:`write_options`). Everything here takes and returns plain values
and is tested without a JVM (``tests/sql/test_planner.py``).

Option precedence follows Hudi's Spark SQL (``ProvidesHoodieConfig.combineOptions``): the
table's fixed properties < session options (``SET hoodie.x=...``) < the table's
``TBLPROPERTIES`` < what the statement itself decides (operation, partitions).
"""

from __future__ import annotations

__all__ = [
    "DEFAULT_SQL_PAYLOAD",
    "CreatePlan",
    "HudiTableFacts",
    "plan_create",
    "read_options",
    "spec_matches",
    "sql_table_options",
    "write_options",
]

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
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
from hudi_sql.config.resolve import Resolved, TableConfig
from hudi_sql.config.sql_aliases import (
    PRECOMBINE_FIELD,
    PRIMARY_KEY,
    SQL_ALIASES,
    TYPE,
    resolve_sql_aliases,
    table_type_short_name,
)
from hudi_sql.errors import HudiConfigError, HudiKeyError, HudiSqlError, did_you_mean
from hudi_sql.keygen import key_generator_for
from hudi_sql.keygen.field_value import resolve_field
from hudi_sql.model.schema import META_FIELDS
from hudi_sql.spark.schema import avro_schema_json
from hudi_sql.sql import statements as st
from hudi_sql.table.meta_client import versioned_merge
from hudi_sql.table.new_table import NewTable

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
    #: the form of the stored keys where releases disagree (:meth:`~hudi_sql.table.meta_client.TableMetaClient.stored_keys_value_only`)
    stored_keys_value_only: bool | None = field(default=None, hash=False, compare=False)

    @cached_property
    def table_config(self) -> TableConfig:
        """The table's ``hoodie.properties`` read as the meta client reads them (one set of rules)."""
        return TableConfig.of(self.table_properties)

    @property
    def record_key_fields(self) -> tuple[str, ...]:
        return self.table_config.record_key_fields

    @property
    def partition_fields(self) -> tuple[str, ...]:
        return self.table_config.partition_fields

    @property
    def precombine_field(self) -> str | None:
        return self.table_config.precombine_field

    @property
    def orders_against_stored(self) -> bool:
        """Whether a write keeps a stored row whose ordering value is greater than the incoming
        one's: on version 6 whenever there is an ordering field (Apache Hudi 0.15's MERGE payload
        compares it), from version 8 only under ``EVENT_TIME_ORDERING`` (``COMMIT_TIME_ORDERING``:
        the latest write wins, as Apache Hudi 1.2 does)."""
        if self.precombine_field is None:
            return False
        if self.table_version < 8:
            return True
        _, payload = versioned_merge(self.table_config, self.table_version, where=f"Table '{self.location}'")  # as reads merge it
        return payload.rules.ordered_merge

    @property
    def table_type(self) -> TableType:
        return self.table_config.table_type

    @property
    def table_version(self) -> int:
        return self.table_config.version

    @property
    def hive_style(self) -> bool:
        return self.table_config.hive_style_partitioning

    @property
    def url_encode(self) -> bool:
        return self.table_config.url_encode_partitioning

    @property
    def populate_meta_fields(self) -> bool:
        return self.table_config.populate_meta_fields

    @property
    def key_generator_class(self) -> str | None:
        return self.table_config.key_generator_class or None

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
        HudiTableConfig.NAME.key: table.table_config.name or table.name,
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

    where = f"CREATE TABLE {name}"
    columns = {f.name.lower(): f.name for f in schema.fields}
    for field_ in schema.fields:
        if field_.name in META_FIELDS:
            raise HudiSqlError(f"{where}: '{field_.name}' is a Hudi meta column and cannot be declared.")

    def known(column: str, what: str, *, nested: bool = False) -> str:
        """The column's name as declared; with *nested*, a path into struct columns (``nestedcol.a1``,
        which Apache Hudi takes for a record key or ordering field)."""
        if not nested or "." not in column:
            if column.lower() not in columns:
                raise HudiSqlError(
                    f"{where}: {what} '{column}' is not a column of the table."
                    f"{did_you_mean(column, list(columns.values()))}",
                    help=f"columns are {', '.join(columns.values())}",
                )
            return columns[column.lower()]
        try:
            return resolve_field(schema, column, role=what)[0]
        except HudiKeyError as e:
            raise HudiSqlError(f"{where}: {e.message}", help=e.help) from None

    partitions = tuple(known(c, "partition column") for c in statement.partitioned_by)
    record_keys = tuple(known(c, "primaryKey field", nested=True) for c in statement.primary_key)
    precombine = (known(statement.precombine_field, "preCombineField", nested=True)
                  if statement.precombine_field else None)
    options = statement.hoodie_options()
    validate_options(options, where)
    # the table version: TBLPROPERTIES, else the session's SET hoodie.write.table.version=8
    configs = HudiConfigs.layered({k: v for k, v in (session or {}).items()
                                   if k == HudiWriteConfig.WRITE_TABLE_VERSION.key}, options)
    write = Resolved(configs).write
    keygen_session = {k: v for k, v in (session or {}).items() if k in _KEYGEN_SESSION_KEYS}
    table_type = statement.table_type or TableType.COPY_ON_WRITE
    # Apache Hudi's SQL layer partitions hive-style unless told otherwise (its DataFrame writer does not)
    hive_style = write.hive_style_partitioning if configs.is_set(HudiWriteConfig.HIVE_STYLE_PARTITIONING) else True
    keygen_options = {
        HudiWriteConfig.RECORD_KEY_FIELDS.key: ",".join(record_keys),
        HudiWriteConfig.PARTITION_PATH_FIELDS.key: ",".join(partitions),
        HudiWriteConfig.HIVE_STYLE_PARTITIONING.key: str(hive_style).lower(),
        HudiWriteConfig.URL_ENCODE_PARTITIONING.key: str(write.url_encode_partitioning).lower(),
    }
    declared_class = _declared_key_generator(options)
    if declared_class is not None:  # (a key generator type in the options reaches it through them)
        keygen_options[HudiWriteConfig.KEY_GENERATOR_CLASS.key] = declared_class
    keygen_configs = HudiConfigs.layered(keygen_session, options, keygen_options)
    keygen = key_generator_for(keygen_configs, sql=True)
    ordered = order_columns(
        StructType([StructField(f.name, f.dataType, True, f.metadata) for f in schema.fields]), partitions
    )
    version = write.write_table_version
    payload = write.payload_class.java_class if write.payload_class else None
    if payload is None and table_type is TableType.MERGE_ON_READ and version in (None, 6):
        payload = DEFAULT_SQL_PAYLOAD
    # (version 8 without a payload: the merge mode follows the ordering field, as in Apache Hudi 1.x)
    props = NewTable(
        name=name, table_type=table_type, database=database,
        create_schema=avro_schema_json(ordered, name, style="create"), key_generator=keygen.table_properties(),
        ordering_field=precombine, populate_meta_fields=write.populate_meta_fields, payload_class=payload,
        version=version, cdc=TableConfig.cdc_properties(HudiConfigs.of(options, validate=False)),
    ).properties()
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
