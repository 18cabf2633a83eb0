"""``hudi_sql.write``: the DataFrame entry point of the write path."""

from __future__ import annotations

__all__ = ["write"]

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from hudi_sql.engine.write_client import WriteClient, WriteResult
from hudi_sql.errors import HudiConfigError

if TYPE_CHECKING:
    from pyspark.sql import DataFrame


def write(df: DataFrame, path: str, options: Mapping[str, Any] | None = None, *, mode: str = "append") -> WriteResult:
    """Write *df* into the Hudi table at *path* with Apache Hudi's datasource options.

    Args:
        df: the batch; its columns are the table's data columns (``_hoodie_*`` columns are ignored).
        path: the table's base path; the table is created on the first write.
        options: ``hoodie.*`` options (``hoodie.table.name``, ``hoodie.datasource.write.recordkey.field``,
            ``.precombine.field``, ``.partitionpath.field``, ``.operation``, ...). Unknown
            ``hoodie.*`` keys are rejected.
        mode: ``append`` (default), ``overwrite`` (re-initialise the table), ``error``, ``ignore``.

    Returns:
        The instant time and the statistics of every file written.

    Raises:
        HudiConfigError, HudiKeyError, HudiSchemaError: bad input; the table is left unchanged.
    """
    if not path:
        raise HudiConfigError("A write needs the table's base path.")
    return WriteClient(path, dict(options or {})).write(df, mode=mode)
