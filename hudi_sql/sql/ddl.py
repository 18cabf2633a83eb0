"""Hudi DDL: CREATE / DROP / ALTER / TRUNCATE / SHOW / DESCRIBE on Hudi tables.

Each function takes the :class:`~hudi_sql.sql.runner.Runner` and one statement and returns a
DataFrame. Statements naming a table that is not a Hudi table run in Spark as written.

Order of work keeps a failure from leaving half a table behind:

* managed ``CREATE TABLE``: register in the catalog (Spark refuses a managed table whose
  folder exists), then write ``.hoodie/``; if that fails, unregister (which removes the folder);
* ``CREATE TABLE ... LOCATION``: write ``.hoodie/`` (unless a Hudi table is already there),
  then register; if registering fails, remove what was written;
* CTAS: as above, then a ``bulk_insert`` of the query; if it fails, the table goes again.
"""

from __future__ import annotations

__all__ = [
    "add_columns",
    "create_table",
    "describe_table",
    "drop_partition",
    "drop_table",
    "rename_table",
    "set_properties",
    "show_create_table",
    "show_partitions",
    "truncate_table",
]

import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING

from catalog.base import TableIdent, quote_identifier
from catalog.spark_catalog import quote_string
from hudi_sql.config import HudiTableConfig, HudiWriteConfig, TableType
from hudi_sql.errors import (
    HudiSchemaError,
    HudiSqlError,
    TableAlreadyExistsError,
    did_you_mean,
)
from hudi_sql.model.schema import META_FIELDS
from hudi_sql.sql import statements as st
from hudi_sql.sql.planner import (
    FIXED_PROPERTIES,
    CreatePlan,
    HudiTableFacts,
    order_columns,
    plan_create,
    registration_properties,
    spec_matches,
    validate_options,
    write_options,
)

if TYPE_CHECKING:
    from pyspark.sql import DataFrame
    from pyspark.sql.types import StructType

    from hudi_sql.sql.runner import Runner

_log = logging.getLogger(__name__)


# CREATE TABLE -----------------------------------------------------------------------------------


def declared_schema(columns: Sequence[st.ColumnDef]) -> StructType:
    """The declared columns as a Spark schema (every column nullable, as Hudi's Avro schema makes it)."""
    from pyspark.errors import PySparkException
    from pyspark.sql.types import StructField, StructType, _parse_datatype_string

    fields = []
    for column in columns:
        try:
            data_type = _parse_datatype_string(column.data_type)
        except (PySparkException, ValueError) as e:  # Spark's parse error
            raise HudiSqlError(f"column '{column.name}': unknown type '{column.data_type}' ({e})") from None
        metadata = {"comment": column.comment} if column.comment else {}
        fields.append(StructField(column.name, data_type, True, metadata))
    return StructType(fields)


def _avro_normalized(schema: StructType, name: str) -> dict[str, str]:
    """Column name (lower case) -> type as the table stores it (Avro has no byte or short)."""
    from hudi_sql.model.schema import avro_schema_json, from_avro_schema

    stored = from_avro_schema(avro_schema_json(schema, name))
    return {f.name.lower(): f.dataType.simpleString() for f in stored.fields}


def create_table(runner: Runner, statement: st.Statement) -> DataFrame:
    from hudi_sql.table.meta_client import TableMetaClient

    assert isinstance(statement, st.CreateTable)
    ident = runner.ident(statement.name)
    if runner.catalog.table_exists(ident):
        if statement.if_not_exists:
            return runner.empty()
        raise TableAlreadyExistsError(
            f"Table {ident} already exists.", help="use CREATE TABLE IF NOT EXISTS, or DROP TABLE first"
        )
    if not runner.catalog.database_exists(ident.database):
        raise runner.not_found(ident, "Database of table")
    location = statement.location
    if location is not None and TableMetaClient.exists(location):
        if statement.as_query is not None:
            raise HudiSqlError(
                f"CREATE TABLE {ident} AS SELECT: a Hudi table already exists at '{location}'.",
                help="INSERT INTO the table instead, or choose another LOCATION",
            )
        _register_existing(runner, statement, ident, location)
        return runner.empty()
    if statement.as_query is not None:
        from hudi_sql.sql.dml import drop_meta_columns

        source = drop_meta_columns(runner.query(statement.as_query))
        schema = source.schema
    else:
        source = None
        schema = declared_schema(statement.columns)
    plan = plan_create(statement, name=ident.name, database=ident.database, schema=schema)
    _create_new(runner, statement, ident, plan, location, source)
    return runner.empty()


def _register_existing(runner: Runner, statement: st.CreateTable, ident: TableIdent, location: str) -> None:
    """``CREATE TABLE t USING hudi LOCATION '...'`` over a table that exists: schema and keys
    come from its ``hoodie.properties`` and latest commit; a declaration must agree."""
    from hudi_sql.model.schema import from_avro_schema
    from hudi_sql.table.meta_client import TableMetaClient

    meta = TableMetaClient.load(location)
    schema_json = meta.latest_schema()
    if schema_json is None:
        raise HudiSchemaError(
            f"The Hudi table at '{location}' records no schema.",
            help="declare its columns: CREATE TABLE t (...) USING hudi LOCATION ...",
        )
    stored = from_avro_schema(schema_json)
    partitions = tuple(f.split(":", 1)[0] for f in meta.partition_fields)
    where = f"CREATE TABLE {ident}"
    if statement.partitioned_by and [p.lower() for p in statement.partitioned_by] != [
        p.lower() for p in partitions
    ]:
        raise HudiSqlError(
            f"{where}: PARTITIONED BY ({', '.join(statement.partitioned_by)}) differs from the "
            f"table's partition fields ({', '.join(partitions) or 'none'}) at '{location}'."
        )
    catalog_schema = stored
    if statement.columns:
        declared = declared_schema(statement.columns)
        want, have = _avro_normalized(declared, meta.table_name), _avro_normalized(stored, meta.table_name)
        for column, data_type in want.items():
            if column not in have:
                raise HudiSqlError(
                    f"{where}: column '{column}' is not in the table at '{location}'."
                    f"{did_you_mean(column, list(have))}",
                    help="leave the columns out to take the table's schema",
                )
            if have[column] != data_type:
                raise HudiSqlError(
                    f"{where}: column '{column}' is declared {data_type} but the table at "
                    f"'{location}' stores {have[column]}.",
                    help="leave the columns out to take the table's schema",
                )
        missing = [c for c in have if c not in want]
        if missing:
            raise HudiSqlError(
                f"{where}: the declaration lacks column(s) {', '.join(missing)} of the table at "
                f"'{location}'.",
                help="leave the columns out to take the table's schema",
            )
        catalog_schema = declared
    properties = registration_properties(meta.properties, statement.properties, ident.name)
    validate_options({k: v for k, v in properties.items() if k.startswith("hoodie.")}, where)
    runner.catalog.create_table(
        ident,
        schema=order_columns(catalog_schema, partitions),
        partition_columns=partitions,
        location=location,
        properties=properties,
        comment=statement.comment,
    )


def _create_new(
    runner: Runner,
    statement: st.CreateTable,
    ident: TableIdent,
    plan: CreatePlan,
    location: str | None,
    source: DataFrame | None,
) -> None:
    from hudi_sql.storage.fs import Storage
    from hudi_sql.table.meta_client import init_table

    storage = Storage()
    catalog = runner.catalog
    if location is None:
        path = catalog.default_location(ident)
        if storage.exists(path) and any(True for _ in storage.list(path)):
            raise TableAlreadyExistsError(
                f"Cannot create managed table {ident}: its location '{path}' already exists "
                "and is not empty.",
                help="remove the folder, or register it with CREATE TABLE ... LOCATION",
            )
        catalog.create_table(
            ident,
            schema=plan.schema,
            partition_columns=plan.partition_columns,
            properties=plan.catalog_properties,
            comment=statement.comment,
        )
        try:
            info = catalog.load_table(ident)
            assert info is not None and info.location is not None
            path = info.location
            init_table(path, plan.table_properties)
        except BaseException:
            catalog.drop_table(ident)
            raise
    else:
        path = location
        created_dir = not storage.exists(path)
        if not created_dir and any(True for _ in storage.list(path)):
            raise TableAlreadyExistsError(
                f"Cannot create table {ident} at '{path}': the folder is not empty and holds no Hudi table."
            )
        init_table(path, plan.table_properties)
        try:
            catalog.create_table(
                ident,
                schema=plan.schema,
                partition_columns=plan.partition_columns,
                location=path,
                properties=plan.catalog_properties,
                comment=statement.comment,
            )
        except BaseException:
            storage.delete_dir(path if created_dir else f"{path}/.hoodie")
            raise
    if source is None:
        return
    try:
        from hudi_sql.sql.dml import write_frame

        resolved = runner.resolve(statement.name)
        facts = runner.facts(resolved)
        aligned = source.select(*[source[c.name] for c in plan.schema.fields])
        write_frame(
            runner,
            facts,
            aligned,
            write_options(facts, runner.options, {HudiWriteConfig.OPERATION.key: "bulk_insert"}),
        )
    except BaseException:
        catalog.drop_table(ident)  # a managed table's folder goes with it
        if location is not None:
            storage.delete_dir(path)
        raise


# DROP / RENAME / properties / columns ------------------------------------------------------------


def drop_table(runner: Runner, statement: st.Statement) -> DataFrame:
    from hudi_sql.storage.fs import Storage

    assert isinstance(statement, st.DropTable)
    resolved = runner.lookup(statement.name)
    if resolved is None:
        if statement.if_exists:
            return runner.empty()
        raise runner.not_found(runner.ident(statement.name), "Table")
    if not resolved.is_hudi:
        return runner.spark.sql(statement.sql)
    info = resolved.info
    assert info is not None
    runner.catalog.drop_table(resolved.ident)
    if info.location and (statement.purge or info.managed):
        Storage().delete_dir(info.location)
    return runner.empty()


def rename_table(runner: Runner, statement: st.Statement) -> DataFrame:
    from hudi_sql.storage.properties import table_checksum
    from hudi_sql.table.meta_client import TableMetaClient

    assert isinstance(statement, st.AlterTableRename)
    resolved = runner.resolve(statement.table)
    if not resolved.is_hudi:
        return runner.spark.sql(statement.sql)
    new_ident = TableIdent(
        (statement.new_name.database or resolved.ident.database).lower(), statement.new_name.name.lower()
    )
    if runner.catalog.table_exists(new_ident):
        raise TableAlreadyExistsError(f"Cannot rename {resolved.ident} to {new_ident}: that table exists.")
    info = resolved.info
    assert info is not None and info.location is not None
    meta = TableMetaClient.load(info.location)
    old = {
        k: meta.properties.get(k)
        for k in (HudiTableConfig.NAME.key, HudiTableConfig.CHECKSUM.key, HudiTableConfig.DATABASE_NAME.key)
    }
    database = meta.properties.get(HudiTableConfig.DATABASE_NAME.key, "default")
    meta.update_properties(
        {
            HudiTableConfig.NAME.key: new_ident.name,
            HudiTableConfig.CHECKSUM.key: str(table_checksum(database, new_ident.name)),
        }
    )
    try:
        runner.catalog.rename(resolved.ident, new_ident)
    except BaseException:
        meta.update_properties(old)
        raise
    return runner.empty()


def set_properties(runner: Runner, statement: st.Statement) -> DataFrame:
    assert isinstance(statement, st.AlterTableSetProperties)
    resolved = runner.resolve(statement.table)
    if not resolved.is_hudi:
        return runner.spark.sql(statement.sql)
    where = f"ALTER TABLE {resolved.ident} SET TBLPROPERTIES"
    info = resolved.info
    assert info is not None
    current = {k.lower(): v for k, v in info.properties.items()}
    for key, value in statement.properties.items():
        if key.lower() in FIXED_PROPERTIES and current.get(key.lower()) != value:
            raise HudiSqlError(
                f"{where}: '{key}' is fixed when a Hudi table is created.",
                help="create a new table (CREATE TABLE ... AS SELECT) to change it",
            )
    validate_options({k: v for k, v in statement.properties.items() if k.startswith("hoodie.")}, where)
    runner.catalog.set_properties(resolved.ident, statement.properties)
    return runner.empty()


def add_columns(runner: Runner, statement: st.Statement) -> DataFrame:
    """Hudi's ``AlterHoodieTableAddColumnsCommand``: an empty ``ALTER_SCHEMA`` commit carrying the
    new schema (older files read the new columns as NULL), then the catalog's columns."""
    from pyspark.sql.types import StructType

    from hudi_sql.commit.transaction import Transaction
    from hudi_sql.model.commit_metadata import CommitMetadata
    from hudi_sql.model.instant import Action
    from hudi_sql.model.schema import avro_schema_json
    from hudi_sql.table.meta_client import TableMetaClient

    assert isinstance(statement, st.AlterTableAddColumns)
    resolved = runner.resolve(statement.table)
    if not resolved.is_hudi:
        return runner.spark.sql(statement.sql)
    facts = runner.facts(resolved)
    where = f"ALTER TABLE {resolved.ident} ADD COLUMNS"
    current = facts.data_schema or StructType([])
    existing = {f.name.lower() for f in current.fields} | {m.lower() for m in META_FIELDS}
    added = declared_schema(statement.columns)
    for field_ in added.fields:
        if field_.name.lower() in existing:
            raise HudiSqlError(f"{where}: column '{field_.name}' already exists.")
    new_schema = StructType(list(current.fields) + list(added.fields))
    meta = TableMetaClient.load(facts.location)
    action = Action.DELTA_COMMIT if meta.table_type is TableType.MERGE_ON_READ else Action.COMMIT
    txn = Transaction.begin(meta, action)
    txn.start(CommitMetadata({}, "ALTER_SCHEMA"))
    txn.complete(
        CommitMetadata({}, "ALTER_SCHEMA", {"schema": avro_schema_json(new_schema, meta.table_name)})
    )
    info = resolved.info
    assert info is not None
    partitions = {p.lower() for p in info.partition_columns}
    catalog_schema = info.schema or current
    data = [f for f in catalog_schema.fields if f.name.lower() not in partitions]
    runner.catalog.set_data_schema(resolved.ident, StructType(data + list(added.fields)))
    return runner.empty()


# Partitions ---------------------------------------------------------------------------------------


def _live_partitions(facts: HudiTableFacts) -> list[str]:
    from hudi_sql.table.fs_view import FileSystemView
    from hudi_sql.table.meta_client import TableMetaClient

    view = FileSystemView(TableMetaClient.load(facts.location))
    if view.is_empty:
        return []
    return [p for p in view.partition_paths() if view.latest_file_slices([p])]


def _decoded(facts: HudiTableFacts, partition: str) -> dict[str, str] | None:
    from hudi_sql.read.plan import partition_values

    return partition_values(
        partition, facts.partition_fields, hive_style=facts.hive_style, url_encoded=facts.url_encode
    )


def _matching(
    facts: HudiTableFacts, partitions: list[str], spec: Sequence[st.PartitionValue], where: str
) -> list[str]:
    names = {p.lower() for p in facts.partition_fields}
    for entry in spec:
        if entry.column.lower() not in names:
            raise HudiSqlError(
                f"{where}: '{entry.column}' is not a partition column of {facts.name}."
                f"{did_you_mean(entry.column, list(facts.partition_fields))}",
                help=f"partition columns are {', '.join(facts.partition_fields) or '(none)'}",
            )
    return [p for p in partitions if spec_matches(_decoded(facts, p), spec)]


def _spec_sql(spec: Sequence[st.PartitionValue]) -> str:
    return "PARTITION (" + ", ".join(f"{p.column} = {p.value}" for p in spec) + ")"


def _glob_escape(partition: str) -> str:
    return "".join(f"[{c}]" if c in "*?[" else c for c in partition)


def _delete_partitions(runner: Runner, facts: HudiTableFacts, partitions: list[str]) -> None:
    from hudi_sql.sql.dml import write_frame

    empty = runner.spark.createDataFrame([], facts.target_schema())
    write_frame(
        runner,
        facts,
        empty,
        write_options(
            facts,
            runner.options,
            {
                HudiWriteConfig.OPERATION.key: "delete_partition",
                HudiWriteConfig.PARTITIONS_TO_DELETE.key: ",".join(_glob_escape(p) for p in partitions),
            },
        ),
    )


def drop_partition(runner: Runner, statement: st.Statement) -> DataFrame:
    from hudi_sql.storage.fs import Storage

    assert isinstance(statement, st.AlterTableDropPartition)
    resolved = runner.resolve(statement.table)
    if not resolved.is_hudi:
        return runner.spark.sql(statement.sql)
    facts = runner.facts(resolved)
    where = f"ALTER TABLE {resolved.ident} DROP PARTITION"
    if not facts.partition_fields:
        raise HudiSqlError(f"{where}: table {resolved.ident} is not partitioned.")
    live = _live_partitions(facts)
    doomed: list[str] = []
    for spec in statement.partitions:
        found = _matching(facts, live, spec, where)
        if not found and not statement.if_exists:
            raise HudiSqlError(
                f"{where}: {_spec_sql(spec)} does not exist in {resolved.ident}.",
                help="SHOW PARTITIONS lists them; ALTER TABLE ... DROP IF EXISTS PARTITION ignores it",
            )
        doomed += [p for p in found if p not in doomed]
    if doomed:
        _delete_partitions(runner, facts, doomed)
        if statement.purge:
            from hudi_sql.storage.layout import TableLayout

            layout = TableLayout.of(facts.location)
            for partition in doomed:
                Storage().delete_dir(layout.partition_dir(partition))
    return runner.empty()


def truncate_table(runner: Runner, statement: st.Statement) -> DataFrame:
    from hudi_sql.sql.dml import write_frame

    assert isinstance(statement, st.TruncateTable)
    resolved = runner.resolve(statement.table)
    if not resolved.is_hudi:
        return runner.spark.sql(statement.sql)
    facts = runner.facts(resolved)
    live = _live_partitions(facts)
    if statement.partition_spec:
        where = f"TRUNCATE TABLE {resolved.ident}"
        if not facts.partition_fields:
            raise HudiSqlError(f"{where}: the table is not partitioned, so it has no PARTITION to truncate.")
        found = _matching(facts, live, statement.partition_spec, where)
        if found:
            _delete_partitions(runner, facts, found)
        return runner.empty()
    if live:
        empty = runner.spark.createDataFrame([], facts.target_schema())
        write_frame(
            runner,
            facts,
            empty,
            write_options(facts, runner.options, {HudiWriteConfig.OPERATION.key: "insert_overwrite_table"}),
        )
    return runner.empty()


def show_partitions(runner: Runner, statement: st.Statement) -> DataFrame:
    assert isinstance(statement, st.ShowPartitions)
    resolved = runner.resolve(statement.table)
    if not resolved.is_hudi:
        return runner.spark.sql(statement.sql)
    facts = runner.facts(resolved)
    if not facts.partition_fields:
        raise HudiSqlError(f"SHOW PARTITIONS: table {resolved.ident} is not partitioned.")
    live = _live_partitions(facts)
    rows = []
    for partition in _matching(facts, live, statement.partition_spec, "SHOW PARTITIONS"):
        values = _decoded(facts, partition)
        rows.append(("/".join(f"{k}={v}" for k, v in values.items()) if values else partition,))
    return runner.rows("partition string", sorted(rows))


# SHOW CREATE TABLE / DESCRIBE -------------------------------------------------------------------


def show_create_table(runner: Runner, statement: st.Statement) -> DataFrame:
    assert isinstance(statement, st.ShowCreateTable)
    resolved = runner.resolve(statement.table)
    if not resolved.is_hudi:
        return runner.spark.sql(statement.sql)
    facts = runner.facts(resolved)
    info = resolved.info
    assert info is not None
    columns = []
    for field_ in facts.target_schema().fields:
        line = f"  {quote_identifier(field_.name)} {field_.dataType.simpleString().upper()}"
        comment = field_.metadata.get("comment") if field_.metadata else None
        if comment:
            line += f" COMMENT {quote_string(str(comment))}"
        columns.append(line)
    text = [f"CREATE TABLE {resolved.ident.quoted()} (", ",\n".join(columns), ")", "USING hudi"]
    if info.partition_columns:
        text.append("PARTITIONED BY (" + ", ".join(quote_identifier(c) for c in info.partition_columns) + ")")
    if info.comment:
        text.append(f"COMMENT {quote_string(info.comment)}")
    if not info.managed:
        text.append(f"LOCATION {quote_string(str(info.location))}")
    if info.properties:
        props = ",\n".join(
            f"  {quote_string(k)} = {quote_string(v)}" for k, v in sorted(info.properties.items())
        )
        text.append(f"TBLPROPERTIES (\n{props})")
    return runner.rows("createtab_stmt string", [("\n".join(text) + "\n",)])


def describe_table(runner: Runner, statement: st.Statement) -> DataFrame:
    from hudi_sql.model.schema import add_meta_fields

    assert isinstance(statement, st.DescribeTable)
    resolved = runner.resolve(statement.table)
    if not resolved.is_hudi:
        return runner.spark.sql(statement.sql)
    facts = runner.facts(resolved)
    info = resolved.info
    assert info is not None
    rows: list[tuple[str, str, str | None]] = []
    for field_ in add_meta_fields(facts.target_schema()).fields:
        comment = field_.metadata.get("comment") if field_.metadata else None
        rows.append((field_.name, field_.dataType.simpleString(), comment))
    if info.partition_columns:
        types = {f.name.lower(): f.dataType.simpleString() for f in facts.target_schema().fields}
        rows += [("# Partition Information", "", ""), ("# col_name", "data_type", "comment")]
        rows += [(c, types.get(c.lower(), ""), None) for c in info.partition_columns]
    if statement.extended:
        props = ", ".join(f"{k}={v}" for k, v in sorted(info.properties.items()))
        rows += [
            ("", "", ""),
            ("# Detailed Table Information", "", ""),
            ("Catalog", "spark_catalog", ""),
            ("Database", info.ident.database, ""),
            ("Table", info.ident.name, ""),
            ("Type", "MANAGED" if info.managed else "EXTERNAL", ""),
            ("Provider", "hudi", ""),
            ("Location", str(info.location), ""),
            ("Hudi Table Type", facts.table_type.value, ""),
            ("Record Key", ",".join(facts.record_key_fields), ""),
            ("Precombine Field", facts.precombine_field or "", ""),
            ("Partition Fields", ",".join(facts.partition_fields), ""),
            ("Table Properties", f"[{props}]", ""),
        ]
        if info.comment:
            rows.append(("Comment", info.comment, ""))
    return runner.rows("col_name string, data_type string, comment string", rows)
