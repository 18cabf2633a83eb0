"""``SET`` / ``SET key`` / ``RESET``: Hudi options live in the session, anything else is Spark's.

A Hudi option (a registry key, or the time-travel instant) set with ``SET`` is checked when it
is set, so a bad value fails at the ``SET``, and then acts as a write and read option of every
statement that follows (below the table's own properties).
"""

from __future__ import annotations

__all__ = ["reset_option", "set_option", "show_option"]

from typing import TYPE_CHECKING

from hudi_sql.config import HudiConfigs, HudiReadConfig, all_config_enums
from hudi_sql.errors import HudiConfigError
from hudi_sql.sql import statements as st
from hudi_sql.sql.operations.context import OperationContext

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

#: Session keys that are not Hudi option keys but belong to hudi-sql's reads (time travel).
_SESSION_EXTRA_KEYS = frozenset({HudiReadConfig.AS_OF_INSTANT.key})
_KEY_VALUE = "key string, value string"


def _is_session_key(key: str) -> bool:
    return key.startswith("hoodie.") or key in _SESSION_EXTRA_KEYS


def _validate_value(configs: HudiConfigs, key: str) -> None:
    """Parse the value of a registered key now, so that a bad SET fails at the SET."""
    for enum in all_config_enums():
        for member in enum:
            if member.key == key or key in member.spec.aliases:
                configs.get(member)
                return


def set_option(ctx: OperationContext, statement: st.SetOption) -> DataFrame:
    key, value = statement.key, statement.value
    if _is_session_key(key):
        try:
            _validate_value(HudiConfigs.of({key: value}), key)
        except HudiConfigError as e:
            raise HudiConfigError(f"SET {key}: {e}") from None
        ctx.options[key] = value
    else:
        ctx.spark.conf.set(key, value)
    return ctx.rows(_KEY_VALUE, [(key, value)])


def show_option(ctx: OperationContext, statement: st.ShowOption) -> DataFrame:
    if statement.key is not None and _is_session_key(statement.key):
        value = ctx.options.get(statement.key, "<undefined>")
        return ctx.rows(_KEY_VALUE, [(statement.key, value)])
    if statement.key is not None:
        return ctx.spark.sql(statement.sql.text)  # Spark's own SET key, as written
    spark_rows = ctx.spark.sql("SET -v" if statement.verbose else "SET")
    if not ctx.options:
        return spark_rows
    ours = ctx.spark.createDataFrame(
        [(k, v) + (("",) * (len(spark_rows.columns) - 2)) for k, v in sorted(ctx.options.items())],
        spark_rows.schema,
    )
    return spark_rows.unionByName(ours)


def reset_option(ctx: OperationContext, statement: st.ResetOption) -> DataFrame:
    if statement.key is None:
        ctx.options.clear()
        ctx.spark.sql("RESET")
    elif _is_session_key(statement.key):
        ctx.options.pop(statement.key, None)
    else:
        ctx.spark.conf.unset(statement.key)
    return ctx.empty()
