"""What a new table's ``hoodie.properties`` says, whichever entry point creates it.

A table is created by the first DataFrame write (:meth:`~hudi_sql.write.client.WriteClient.create_table`),
by ``CREATE TABLE`` (:func:`~hudi_sql.sql.planner.plan_create_table`) and by a bootstrap (which
writes through the write client). Each decides the values by its own API's defaults (the SQL
layer's payload and hive-style partitioning differ from the DataFrame writer's, as in Apache
Hudi); the properties those values become are assembled here, once, so the entry points cannot
drift apart in what they record. :func:`~hudi_sql.table.meta_client.init_table` then fills in what
every table of the version records (layout, checksum, merge mode).
"""

from __future__ import annotations

__all__ = ["NewTable"]

from collections.abc import Mapping
from dataclasses import dataclass, field

from hudi_sql.config.table import HudiTableConfig, TableType


@dataclass(frozen=True)
class NewTable:
    """The decided values of a table about to be created.

    Attributes:
        create_schema: the Avro schema recorded as ``hoodie.table.create.schema``.
        key_generator: the key generator's entries (class, fields, partitioning flags:
            :meth:`~hudi_sql.keygen.base.KeyGenerator.table_properties`).
        payload_class: the payload recorded; ``None`` records none (version 8 tables whose merge
            mode follows the ordering field).
        version: ``hoodie.table.version``; ``None``: the default version.
        cdc: the change-data-capture entries (:meth:`~hudi_sql.config.resolve.TableConfig.cdc_properties`).
        extra: entries an entry point adds as they are (a bootstrap's source path and index).
    """

    name: str
    table_type: TableType
    database: str
    create_schema: str
    key_generator: Mapping[str, str]
    ordering_field: str | None = None
    populate_meta_fields: bool = True
    payload_class: str | None = None
    version: int | None = None
    cdc: Mapping[str, str] = field(default_factory=dict)
    extra: Mapping[str, str] = field(default_factory=dict)

    def properties(self) -> dict[str, str]:
        """The ``hoodie.properties`` entries these values stand for (before the version's defaults)."""
        t = HudiTableConfig
        props = {
            t.NAME.key: self.name,
            t.TYPE.key: self.table_type.value,
            t.DATABASE_NAME.key: self.database,
            t.CREATE_SCHEMA.key: self.create_schema,
            **self.key_generator,
            **self.cdc,
            **self.extra,
        }
        if self.ordering_field:
            props[t.PRECOMBINE_FIELD.key] = self.ordering_field
        if not self.populate_meta_fields:
            props[t.POPULATE_META_FIELDS.key] = "false"
        if self.payload_class:
            props[t.PAYLOAD_CLASS.key] = self.payload_class
        if self.version is not None:
            props[t.VERSION.key] = str(self.version)
        return props
