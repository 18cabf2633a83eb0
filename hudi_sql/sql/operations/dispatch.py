"""Which operation runs a statement: a table from statement type to handler.

Each handler takes the :class:`~.context.OperationContext` and its statement and returns the
statement's DataFrame. A new statement kind adds its class and handler here.
"""

from __future__ import annotations

__all__ = ["HANDLERS", "run"]

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from hudi_sql.errors import UnsupportedFeatureError
from hudi_sql.sql import statements as st
from hudi_sql.sql.operations import (
    alter_table,
    call,
    create_table,
    describe,
    explain,
    insert,
    merge_into,
    partitions,
    query,
    session_options,
    update_delete,
    views,
)
from hudi_sql.sql.operations.context import OperationContext

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

Handler = Callable[[OperationContext, Any], "DataFrame"]

HANDLERS: dict[type[st.Statement], Handler] = {
    st.Select: query.select,
    st.Passthrough: query.passthrough,
    st.SetOption: session_options.set_option,
    st.ShowOption: session_options.show_option,
    st.ResetOption: session_options.reset_option,
    st.Call: call.call,
    st.Explain: explain.explain,
    st.CreateTable: create_table.create_table,
    st.CreateView: views.create_view,
    st.DropTable: alter_table.drop_table,
    st.AlterTableAddColumns: alter_table.add_columns,
    st.AlterTableSetProperties: alter_table.set_properties,
    st.AlterTableRename: alter_table.rename_table,
    st.AlterTableDropPartition: partitions.drop_partition,
    st.ShowPartitions: partitions.show_partitions,
    st.TruncateTable: partitions.truncate_table,
    st.ShowCreateTable: describe.show_create_table,
    st.DescribeTable: describe.describe_table,
    st.ShowTableProperties: describe.show_table_properties,
    st.InsertInto: insert.insert_into,
    st.Update: update_delete.update,
    st.Delete: update_delete.delete,
    st.MergeInto: merge_into.merge_into,
}


def run(ctx: OperationContext, statement: st.Statement) -> DataFrame:
    """Run *statement* with the handler of its type."""
    handler = HANDLERS.get(type(statement))
    if handler is None:
        raise UnsupportedFeatureError(f"not supported: {type(statement).__name__} statements")
    return handler(ctx, statement)
