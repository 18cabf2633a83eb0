"""From sqlglot trees to typed statements: the last place a sqlglot object exists.

:func:`analyze` parses a script with :mod:`hudi_sql.sql.dialect` and turns each tree into one
of the frozen dataclasses of :mod:`hudi_sql.sql.statements`, checking what Spark's and
Hudi's grammars require (MERGE clause order and actions, CALL argument forms, literal
partition values, ...). It never looks at a catalog: every table named in a query position
becomes a :class:`~.statements.TableRef` behind a placeholder, and the runner decides which
of them are Hudi tables.

Statements we do not handle ourselves become :class:`~.statements.Passthrough` for Spark,
except SQL that sqlglot could only keep as raw text (``exp.Command``): that is an error
unless it starts with one of the Spark commands in :data:`PASSTHROUGH_COMMANDS`.


The work is split by statement family: :mod:`.refs` (table references, hints, expressions),
:mod:`.values` (literals, partition specs, properties), :mod:`.ddl` and :mod:`.dml`; this
module dispatches and handles session options, CALL, EXPLAIN and raw-text commands.
"""

from __future__ import annotations

__all__ = ["PASSTHROUGH_COMMANDS", "analyze", "analyze_expression"]

import re
from collections.abc import Callable

from sqlglot import exp

from hudi_sql.errors import HudiSqlError, UnsupportedFeatureError
from hudi_sql.sql import nodes
from hudi_sql.sql import statements as st
from hudi_sql.sql.analyzer.ddl import (
    analyze_alter,
    analyze_create,
    analyze_describe,
    analyze_drop,
    analyze_show_create_table,
    analyze_show_partitions,
    analyze_show_tblproperties,
    analyze_truncate,
)
from hudi_sql.sql.analyzer.dml import analyze_delete, analyze_insert, analyze_merge, analyze_update
from hudi_sql.sql.analyzer.refs import (
    Context,
    passthrough,
    select_statement,
    shorten,
    targets_of,
    to_sql,
)
from hudi_sql.sql.dialect import (
    PASSTHROUGH_COMMANDS,
    generate,
    is_passthrough_command,
    parse_statements,
)

#: Statement kinds handed to Spark as they are (after binding table references).
_PASSTHROUGH_TYPES: tuple[type[exp.Expr], ...] = (
    exp.Use,
    exp.Cache,
    exp.Uncache,
    exp.Refresh,
    exp.Analyze,
    exp.Comment,
    exp.LoadData,
    exp.Set,
)

# Trees that are expressions, not statements (`FOO BAR` parses as a column with an alias).
_NOT_STATEMENTS = (exp.Condition, exp.Alias, exp.Identifier, exp.Tuple, exp.Paren, exp.Star)



def analyze(sql: str) -> list[st.Statement]:
    """Parses and analyses a script of ``;``-separated statements.

    Raises:
        HudiSqlError: a statement does not parse (with line, column and caret) or breaks a rule
            of Spark's or Hudi's SQL (the message says which).
        UnsupportedFeatureError: valid SQL that hudi-sql does not support ("not supported: ...").
    """
    return [analyze_expression(parsed.expression, parsed.text) for parsed in parse_statements(sql)]


def analyze_expression(tree: exp.Expr, text: str | None = None) -> st.Statement:
    """Analyses one parsed statement; *text* is its source (used for raw-text commands)."""
    source = text if text is not None else generate(tree)
    handler = _handler_for(tree, source)
    return handler(Context(source), tree.copy())



# Session options, procedures, EXPLAIN ------------------------------------------------------------


def _set_option(ctx: Context, tree: exp.Expr) -> st.Statement:
    return st.SetOption(tree.this.name, tree.expression.name)


def _show_option(ctx: Context, tree: exp.Expr) -> st.Statement:
    key = tree.args.get("this")
    return st.ShowOption(
        key.name if key else None, verbose=bool(tree.args.get("verbose")), sql=st.SparkSql(text=ctx.source.strip())
    )


def _reset_option(ctx: Context, tree: exp.Expr) -> st.Statement:
    key = tree.args.get("this")
    return st.ResetOption(key.name if key else None)


def _call_value(node: exp.Expr, name: str | None, procedure: str) -> st.CallValue:
    if isinstance(node, exp.Null):
        return None
    if isinstance(node, exp.Boolean):
        return bool(node.this)
    negative = isinstance(node, exp.Neg)
    literal = node.this if negative else node
    if isinstance(literal, exp.Literal) and not (negative and literal.is_string):
        if literal.is_string:
            return literal.name
        text = f"-{literal.name}" if negative else literal.name
        try:
            return int(text)
        except ValueError:
            return float(text)
    what = f"argument '{name}'" if name else "a positional argument"
    raise HudiSqlError(
        f"CALL {procedure}: {what} must be a literal, got {to_sql(node)}",
        help="pass strings, numbers, true/false or null",
    )


def _call(ctx: Context, tree: exp.Expr) -> st.Statement:
    procedure = ".".join(part.name for part in tree.this.parts).lower()
    args: list[st.CallArg] = []
    for item in tree.expressions:
        if isinstance(item, exp.Kwarg):
            name = item.this.name.lower()
            if any(a.name == name for a in args):
                raise HudiSqlError(f"CALL {procedure}: argument '{name}' is given twice")
            args.append(st.CallArg(name, _call_value(item.expression, name, procedure)))
        else:
            args.append(st.CallArg(None, _call_value(item, None, procedure)))
    if len({a.name is None for a in args}) > 1:
        raise HudiSqlError(
            f"CALL {procedure}: named and positional arguments cannot be mixed",
            help=f"write CALL {procedure}(name => value, ...)",
        )
    return st.Call(procedure, tuple(args))


def _explain(ctx: Context, tree: exp.Expr) -> st.Statement:
    inner_tree = tree.this
    handler = _handler_for(inner_tree)
    explain_source = ctx.source
    ctx.source = _EXPLAIN_PREFIX.sub("", ctx.source, count=1)
    inner = handler(ctx, inner_tree)
    if isinstance(inner, (st.Explain, st.Call, st.SetOption, st.ShowOption, st.ResetOption)):
        raise UnsupportedFeatureError(f"not supported: EXPLAIN of {shorten(to_sql(inner_tree))}")
    mode_node = tree.args.get("mode")
    mode = mode_node.name.lower() if mode_node else None
    sql = st.SparkSql()
    if isinstance(inner, (st.Select, st.Passthrough)):
        # The whole EXPLAIN tree (its statement rewritten in place), or the text as written.
        sql = st.SparkSql.of(tree) if ctx.refs else st.SparkSql(text=explain_source.strip())
    return st.Explain(inner, mode, sql=sql)


# Passthrough -------------------------------------------------------------------------------------


_EXPLAIN_PREFIX = re.compile(
    r"^\s*EXPLAIN(\s+(EXTENDED|CODEGEN|COST|FORMATTED|LOGICAL)(?=\s))?\s+", re.IGNORECASE
)




_PASSTHROUGH_KINDS = {"loaddata": "LOAD DATA"}


def _passthrough_statement(ctx: Context, tree: exp.Expr) -> st.Statement:
    targets = () if isinstance(tree, (exp.Use, exp.Set)) else targets_of(tree)
    return passthrough(ctx, tree, _PASSTHROUGH_KINDS.get(tree.key, tree.key.upper()), targets)


def _command(ctx: Context, tree: exp.Expr) -> st.Statement:
    text = " ".join(ctx.source.split())
    if not is_passthrough_command(text):
        raise UnsupportedFeatureError(
            f"not supported: {shorten(text)}",
            help="hudi-sql runs Spark SQL statements and Hudi's SQL extensions (CALL, MERGE, ...)",
        )
    return st.Passthrough(st.SparkSql(text=ctx.source.strip()), (), (), str(tree.this).upper())



_Handler = Callable[[Context, exp.Expr], st.Statement]

_HANDLERS: dict[type[exp.Expr], _Handler] = {
    exp.Create: analyze_create,
    exp.Drop: analyze_drop,
    exp.Alter: analyze_alter,
    exp.TruncateTable: analyze_truncate,
    exp.Describe: analyze_describe,
    nodes.ShowPartitions: analyze_show_partitions,
    nodes.ShowCreateTable: analyze_show_create_table,
    nodes.ShowTblProperties: analyze_show_tblproperties,
    exp.Insert: analyze_insert,
    exp.Merge: analyze_merge,
    exp.Update: analyze_update,
    exp.Delete: analyze_delete,
    nodes.SetConfig: _set_option,
    nodes.ShowConfig: _show_option,
    nodes.ResetConfig: _reset_option,
    nodes.ProcedureCall: _call,
    nodes.ExplainStatement: _explain,
    exp.Command: _command,
}


def _handler_for(tree: exp.Expr, source: str | None = None) -> _Handler:
    handler = _HANDLERS.get(type(tree))
    if handler is None and isinstance(tree, (exp.Query, exp.Values)):
        handler = select_statement
    if handler is None and isinstance(tree, _PASSTHROUGH_TYPES):
        handler = _passthrough_statement
    if handler is None and isinstance(tree, _NOT_STATEMENTS):
        raise HudiSqlError(
            f"syntax error: '{shorten(source or generate(tree))}' is not a statement",
            help="statements start with SELECT, INSERT, MERGE, UPDATE, DELETE, CREATE, CALL, SET, ...",
        )
    if handler is None:
        raise UnsupportedFeatureError(f"not supported: {tree.key.upper()} statements")
    return handler
