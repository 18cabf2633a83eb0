"""Write operations, by Hudi's ``WriteOperationType`` names (a value of the ``operation`` option).

They live with the option registry because ``hoodie.datasource.write.operation`` parses to one:
the config layer must not import the write layer.
"""

from __future__ import annotations

__all__ = ["WriteOperationType"]

from enum import Enum


class WriteOperationType(str, Enum):
    """The operation of a write; its name is what commit metadata records as ``operationType``."""

    INSERT = "INSERT"
    UPSERT = "UPSERT"
    BULK_INSERT = "BULK_INSERT"
    DELETE = "DELETE"
    DELETE_PREPPED = "DELETE_PREPPED"
    UPSERT_PREPPED = "UPSERT_PREPPED"
    INSERT_OVERWRITE = "INSERT_OVERWRITE"
    INSERT_OVERWRITE_TABLE = "INSERT_OVERWRITE_TABLE"
    DELETE_PARTITION = "DELETE_PARTITION"
    CLUSTER = "CLUSTER"
    COMPACT = "COMPACT"
    UNKNOWN = "UNKNOWN"

    @classmethod
    def parse(cls, value: str) -> WriteOperationType:
        """Accepts the datasource spellings (``upsert``, ``bulk_insert``, ``insert_overwrite``...)."""
        name = value.strip().upper().replace("-", "_")
        try:
            return cls[name]
        except KeyError:
            raise ValueError(
                f"'{value}' is not a write operation (upsert, insert, bulk_insert, delete, "
                "insert_overwrite, insert_overwrite_table, delete_partition)"
            ) from None

    @property
    def is_overwrite(self) -> bool:
        """Operations committed as ``replacecommit`` with replaced file groups."""
        return self in (
            WriteOperationType.INSERT_OVERWRITE,
            WriteOperationType.INSERT_OVERWRITE_TABLE,
            WriteOperationType.DELETE_PARTITION,
        )

    @property
    def is_delete(self) -> bool:
        return self in (WriteOperationType.DELETE, WriteOperationType.DELETE_PREPPED)
