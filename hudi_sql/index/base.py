"""Index protocol and registry: how incoming records find their file group.

An index adds the column ``_hoodie_file_id`` to the prepared records: the file id of the
file group holding the key (an update or delete), or null (an insert). It may also rewrite
``_hoodie_partition_path`` and add delete records (global indexes moving a record between
partitions). All of it is Spark work; the driver only chooses which base files to consult.
"""

from __future__ import annotations

__all__ = [
    "FILE_ID_COLUMN",
    "Index",
    "IndexContext",
    "register_index",
    "registered_index",
    "registered_index_types",
]

from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from hudi_sql.config import IndexType
from hudi_sql.config.scoped import IndexConfig

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

    from hudi_sql.keygen.base import KeyGenerator
    from hudi_sql.table.fs_view import FileSystemView
    from hudi_sql.table.meta_client import TableMetaClient

FILE_ID_COLUMN = "_hoodie_file_id"


@dataclass(frozen=True)
class IndexContext:
    meta_client: TableMetaClient
    view: FileSystemView
    keygen: KeyGenerator
    config: IndexConfig
    index_type: IndexType
    #: the write's ordering field, and whether its payload keeps a stored record with a greater
    #: ordering value (a late record moving partition under a global index then stays)
    ordering_field: str | None = None
    ordered_merge: bool = False


class Index(ABC):
    """Tags records with their location; one instance per write."""

    def __init__(self, context: IndexContext) -> None:
        self.context = context

    @abstractmethod
    def tag_location(self, records: DataFrame) -> DataFrame:
        """*records* plus ``_hoodie_file_id`` (null for inserts)."""

    def release(self) -> None:
        """Free what :meth:`tag_location` cached; called once the write no longer needs its output."""

    @property
    def last_stats(self) -> object | None:
        """Counts of the latest lookup (files considered, footers and filters read), reported in
        the write's result; ``None`` for an index that keeps none."""
        return None


_REGISTRY: dict[IndexType, Callable[[IndexContext], Index]] = {}


def register_index(*types: IndexType) -> Callable[[type[Index]], type[Index]]:
    def decorate(cls: type[Index]) -> type[Index]:
        for index_type in types:
            _REGISTRY[index_type] = cls
        return cls

    return decorate


def registered_index(index_type: IndexType) -> Callable[[IndexContext], Index] | None:
    """The implementation registered for *index_type* (see :mod:`hudi_sql.index.factory`)."""
    return _REGISTRY.get(index_type)


def registered_index_types() -> tuple[IndexType, ...]:
    return tuple(_REGISTRY)
