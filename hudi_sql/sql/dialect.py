"""``HudiSpark``: Spark SQL as sqlglot reads it, plus what Apache Hudi's Spark SQL adds.

This is the only module that subclasses sqlglot's tokenizer, parser and generator (the
``_parse_*`` helpers are internal and change between majors, so the coupling stays here and
``tests/sql/test_dialect_roundtrip.py`` guards every extension). The additions:

* ``CALL proc(name => value, ...)`` / ``CALL proc(v1, v2)`` -> :class:`~.nodes.ProcedureCall`
  (``CALL`` is dropped from the tokenizer keywords, where it meant an opaque Command);
* ``EXPLAIN [mode] <statement>`` -> :class:`~.nodes.ExplainStatement` with the statement parsed;
* ``SET k=v`` / ``SET k`` / ``SET`` / ``SET -v`` / ``RESET [k]`` with Spark's raw-text rules
  -> :class:`~.nodes.SetConfig`, :class:`~.nodes.ShowConfig`, :class:`~.nodes.ResetConfig`;
* ``SHOW PARTITIONS`` / ``SHOW CREATE TABLE`` / ``SHOW TBLPROPERTIES`` -> nodes (other ``SHOW ...`` stay Commands);
* Apache Hudi's older compaction statements, ``SCHEDULE | RUN COMPACTION ON t | 'path' [AT instant]``
  and ``SHOW COMPACTION ON t | 'path' [LIMIT n]`` -> the :class:`~.nodes.ProcedureCall` Apache Hudi
  runs for them (``run_compaction`` / ``show_compaction``), so they answer with its columns;
* ``ALTER TABLE t DROP PARTITION (..) PURGE`` -> :class:`~.nodes.DropPartitionPurge`;
* the read hints ``SNAPSHOT``, ``READ_OPTIMIZED``, ``INCREMENTAL``, ``AS_OF`` inside
  ``/*+ ... */`` -> :class:`~.nodes.TableReadHint` (Spark's own hints are untouched).

:func:`parse` splits a script into statements and turns sqlglot's errors into
:class:`~hudi_sql.errors.HudiSqlError` with line, column and a caret.
"""

from __future__ import annotations

__all__ = [
    "PASSTHROUGH_COMMANDS",
    "HudiSpark",
    "ParsedStatement",
    "generate",
    "is_passthrough_command",
    "parse",
    "parse_statements",
    "partition_value_sql",
]

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar, cast

from sqlglot import exp
from sqlglot.dialects.spark import Spark
from sqlglot.errors import ErrorLevel, ParseError, TokenError, UnsupportedError
from sqlglot.generators.spark import SparkGenerator
from sqlglot.parsers.spark import SparkParser
from sqlglot.tokenizer_core import Token, TokenType
from sqlglot.trie import new_trie

from hudi_sql.errors import HudiSqlError, UnsupportedFeatureError, did_you_mean
from hudi_sql.sql.nodes import (
    HUDI_HINT_NAMES,
    DropPartitionPurge,
    ExplainStatement,
    ProcedureCall,
    ResetConfig,
    SetConfig,
    ShowConfig,
    ShowCreateTable,
    ShowPartitions,
    ShowTblProperties,
    TableReadHint,
)

#: Spark statements that sqlglot keeps as raw text (``exp.Command``) and that hudi-sql hands
#: to Spark as written. Any other raw-text statement is refused by the analyzer.
PASSTHROUGH_COMMANDS = (
    "ADD ARCHIVE",
    "ADD ARCHIVES",
    "ADD FILE",
    "ADD FILES",
    "ADD JAR",
    "ADD JARS",
    "ANALYZE",
    "CACHE",
    "CLEAR CACHE",
    "LIST",
    "MSCK REPAIR",
    "REFRESH",
    "SET TIME ZONE",
    "SHOW",
    "UNCACHE",
    "USE",
)


def is_passthrough_command(text: str) -> bool:
    """Whether *text* starts with one of :data:`PASSTHROUGH_COMMANDS`."""
    head = " ".join(text.split()).upper()
    return any(head == c or head.startswith(c + " ") for c in PASSTHROUGH_COMMANDS)


_EXPLAIN_MODES = ("EXTENDED", "CODEGEN", "COST", "FORMATTED", "LOGICAL")
# Spark's SET grammar allows these characters in an unquoted key (plus '-' for "-v").
_CONFIG_KEY = re.compile(r"[A-Za-z0-9_.:\\-]+")
# A SET value made of these characters survives being written back unquoted.
_PLAIN_CONFIG_VALUE = re.compile(r"[^\s;'\"`]*")


def _plain_value(value: str) -> bool:
    return bool(_PLAIN_CONFIG_VALUE.fullmatch(value)) and not any(c in value for c in ("--", "/*", "*/"))


class HudiSpark(Spark):
    """Spark SQL with Hudi's statements; registered in sqlglot as ``hudispark``."""

    class Tokenizer(Spark.Tokenizer):
        # CALL and EXPLAIN arrive as plain words so that the parser can build real trees.
        KEYWORDS: ClassVar[dict[str, TokenType]] = {
            k: v for k, v in Spark.Tokenizer.KEYWORDS.items() if k not in ("CALL", "EXPLAIN")
        }
        # SHOW is parsed (PARTITIONS, CREATE TABLE) instead of being swallowed as raw text.
        COMMANDS: ClassVar[set[TokenType]] = Spark.Tokenizer.COMMANDS - {TokenType.SHOW}

    class Parser(SparkParser):
        STATEMENT_PARSERS: ClassVar[dict[TokenType, Callable[..., Any]]] = {
            **SparkParser.STATEMENT_PARSERS,
            TokenType.SET: lambda self: self._parse_config_set(),
            TokenType.SHOW: lambda self: self._parse_show(),
        }

        SHOW_PARSERS: ClassVar[dict[str, Callable[..., Any]]] = {
            **SparkParser.SHOW_PARSERS,
            "PARTITIONS": lambda self: self._parse_show_partitions(),
            "CREATE TABLE": lambda self: self._parse_show_create_table(),
            "TBLPROPERTIES": lambda self: self._parse_show_tblproperties(),
            "COMPACTION ON": lambda self: self._parse_compaction_statement("show"),
        }
        SHOW_TRIE = new_trie(key.split(" ") for key in SHOW_PARSERS)

        def _parse_statement(self) -> exp.Expr | None:
            if self._curr and self._curr.token_type not in self.TEXT_MATCH_EXCLUDED_TOKENS:
                start = self._curr
                if self._match_text_seq("CALL"):
                    return self._parse_procedure_call()
                if self._match_text_seq("EXPLAIN"):
                    return self._parse_explain()
                if self._match_text_seq("RESET"):
                    return self._parse_config_reset()
                for verb in ("SCHEDULE", "RUN"):
                    if self._match_text_seq(verb, "COMPACTION", "ON"):
                        return self._parse_compaction_statement(verb.lower())
                if self._match_text_seq("CLEAR", "CACHE") or self._match_texts(("LIST",)):
                    return self._parse_as_command(start)
            return super()._parse_statement()

        def _warn_unsupported(self) -> None:
            # Raw-text Spark commands we pass through on purpose are not worth a warning.
            if self._tokens and is_passthrough_command(self._find_sql(self._tokens[0], self._tokens[-1])):
                return
            super()._warn_unsupported()

        # CALL ------------------------------------------------------------------------------

        def _parse_procedure_call(self) -> exp.Expr:
            parts: list[exp.Identifier] = []
            while True:
                part = self._parse_id_var(any_token=False)
                if not isinstance(part, exp.Identifier):
                    self.raise_error("Expected a procedure name after CALL")
                    return self.expression(ProcedureCall(this=exp.to_table("_")))
                parts.append(part)
                if not self._match(TokenType.DOT):
                    break
            name = exp.Table(
                this=parts[-1],
                db=parts[-2] if len(parts) > 1 else None,
                catalog=parts[-3] if len(parts) > 2 else None,
            )
            if len(parts) > 3:
                self.raise_error("A procedure name has at most three parts")
            if not self._match(TokenType.L_PAREN):
                self.raise_error("Expected '(' after the procedure name")
                return self.expression(ProcedureCall(this=name))
            args: list[exp.Expr] = []
            if not self._match(TokenType.R_PAREN):
                args = self._parse_csv(self._parse_procedure_arg)
                self._match_r_paren()
            return self.expression(ProcedureCall(this=name, expressions=args))

        def _parse_procedure_arg(self) -> exp.Expr | None:
            if self._curr and self._next and self._next.token_type == TokenType.FARROW:
                # Any word may name an argument: `table`, `order` and `path` are keywords.
                name = self._curr.text
                self._advance(2)
                value = self._parse_disjunction()
                if value is None:
                    self.raise_error(f"Expected a value for argument '{name}'")
                return self.expression(exp.Kwarg(this=exp.var(name), expression=value))
            value = self._parse_disjunction()
            if value is None:
                self.raise_error("Expected a procedure argument")
            return value

        def _parse_compaction_statement(self, verb: str) -> exp.Expr:
            """``SCHEDULE|RUN COMPACTION ON <table | 'path'> [AT instant]`` and ``SHOW COMPACTION ON
            <table | 'path'> [LIMIT n]``: Apache Hudi 0.x's statements, which it runs as
            ``run_compaction(op => ..., timestamp => ...)`` and ``show_compaction(limit => ...)``."""
            if self._curr and self._curr.token_type == TokenType.STRING:
                target = exp.Kwarg(this=exp.var("path"), expression=exp.Literal.string(self._curr.text))
                self._advance()
            else:
                table = self._parse_table_parts()
                target = exp.Kwarg(this=exp.var("table"), expression=exp.Literal.string(table.sql(dialect="spark")))
            if verb == "show":
                args: list[exp.Expr] = [target]
                if self._match(TokenType.LIMIT):
                    args.append(exp.Kwarg(this=exp.var("limit"), expression=self._parse_number()))
                return self.expression(ProcedureCall(this=exp.to_table("show_compaction"), expressions=args))
            args = [exp.Kwarg(this=exp.var("op"), expression=exp.Literal.string(verb)), target]
            if self._match_text_seq("AT"):
                args.append(exp.Kwarg(this=exp.var("timestamp"), expression=self._parse_number()))
            return self.expression(ProcedureCall(this=exp.to_table("run_compaction"), expressions=args))

        # EXPLAIN ---------------------------------------------------------------------------

        def _parse_explain(self) -> exp.Expr:
            mode = None
            if self._next and self._match_texts(_EXPLAIN_MODES):
                mode = exp.var(self._prev.text.upper())
            statement = self._parse_statement()
            if statement is None:
                self.raise_error("Expected a statement after EXPLAIN")
            return self.expression(ExplainStatement(this=statement, mode=mode))

        # SET / RESET -------------------------------------------------------------------------

        def _parse_config_set(self) -> exp.Expr | None:
            if not self._curr:
                return self.expression(ShowConfig())
            if self._curr.text.upper() in ("TIME", "VAR", "VARIABLE"):
                return self._parse_set()  # SET TIME ZONE / SET VAR: Spark's own statements
            tokens = self._rest_of_statement()
            eq = next((i for i, tok in enumerate(tokens) if tok.token_type == TokenType.EQ), None)
            key_tokens = tokens if eq is None else tokens[:eq]
            if not key_tokens:
                self.raise_error("Expected an option key before '='", tokens[0])
                return None
            key = self._config_text(key_tokens)
            if key == "-v" and eq is None:
                return self.expression(ShowConfig(verbose=True))
            if not _CONFIG_KEY.fullmatch(key):
                self.raise_error(f"Invalid option key '{key}'", key_tokens[0])
            if eq is None:
                return self.expression(ShowConfig(this=exp.var(key)))
            value = self._config_text(tokens[eq + 1 :])
            return self.expression(SetConfig(this=exp.var(key), expression=exp.Literal.string(value)))

        def _parse_config_reset(self) -> exp.Expr:
            tokens = self._rest_of_statement()
            if not tokens:
                return self.expression(ResetConfig())
            key = self._config_text(tokens)
            if not _CONFIG_KEY.fullmatch(key):
                self.raise_error(f"Invalid option key '{key}'", tokens[0])
            return self.expression(ResetConfig(this=exp.var(key)))

        def _rest_of_statement(self) -> list[Token]:
            tokens = list(self._tokens[self._index :])
            while self._curr:
                self._advance()
            return tokens

        def _config_text(self, tokens: list[Token]) -> str:
            """Spark takes the text as written; one quoted string or identifier is unquoted."""
            if not tokens:
                return ""
            if len(tokens) == 1 and tokens[0].token_type in (TokenType.STRING, TokenType.IDENTIFIER):
                return tokens[0].text
            return self._find_sql(tokens[0], tokens[-1]).strip()

        # SHOW ------------------------------------------------------------------------------

        def _parse_show(self) -> exp.Expr | None:
            parser = self._find_parser(self.SHOW_PARSERS, self.SHOW_TRIE)
            if parser:
                return cast(exp.Expr, parser(self))
            return self._parse_as_command(self._prev)

        def _parse_show_partitions(self) -> exp.Expr:
            table = self._parse_table_parts()
            return self.expression(ShowPartitions(this=table, partition=self._parse_partition()))

        def _parse_show_create_table(self) -> exp.Expr:
            table = self._parse_table_parts()
            as_serde = self._match_text_seq("AS", "SERDE")
            return self.expression(ShowCreateTable(this=table, as_serde=as_serde or None))

        def _parse_show_tblproperties(self) -> exp.Expr:
            # Names only: sqlglot's table parser would read `t ('key')` as a function call.
            names = [self._parse_id_var(any_token=False)]
            while self._match(TokenType.DOT):
                names.append(self._parse_id_var(any_token=True))
            if any(n is None for n in names) or len(names) > 3:
                self.raise_error("expected a table name after SHOW TBLPROPERTIES")
            parts = [None] * (3 - len(names)) + names
            table = exp.Table(this=parts[2], db=parts[1], catalog=parts[0])
            key = None
            if self._match(TokenType.L_PAREN):
                if self._curr and self._curr.token_type == TokenType.STRING:
                    key = self._curr.text
                    self._advance()
                else:  # a dotted name: hoodie.table.name
                    parts = [self._parse_id_var(any_token=True)]
                    while self._match(TokenType.DOT):
                        parts.append(self._parse_id_var(any_token=True))
                    key = ".".join(p.name for p in parts if p is not None)
                self._match_r_paren()
            return self.expression(
                ShowTblProperties(this=table, key=exp.Literal.string(key) if key is not None else None)
            )

        # ALTER TABLE ... DROP PARTITION ... PURGE ----------------------------------------------

        def _parse_alter_table_drop(self) -> list[exp.Expr]:
            actions = super()._parse_alter_table_drop()
            if actions and isinstance(actions[-1], exp.DropPartition) and self._match_text_seq("PURGE"):
                last = actions[-1]
                actions[-1] = self.expression(
                    DropPartitionPurge(
                        expressions=last.expressions, exists=last.args.get("exists"), purge=True
                    )
                )
            return actions

        # USING org.apache.hudi ----------------------------------------------------------------

        def _parse_using_property(self) -> exp.Property:
            # Spark names a data source by short name or by class/package (org.apache.hudi).
            if self._curr and self._next and self._next.token_type == TokenType.DOT:
                parts = [self._curr.text]
                self._advance()
                while self._match(TokenType.DOT) and self._curr:
                    parts.append(self._curr.text)
                    self._advance()
                return self.expression(exp.FileFormatProperty(this=exp.var(".".join(parts))))
            return super()._parse_using_property()

        # Hints -------------------------------------------------------------------------------

        def _parse_hint_function_call(self) -> exp.Expr | None:
            if (
                self._curr
                and self._curr.text.upper() in HUDI_HINT_NAMES
                and self._next
                and self._next.token_type == TokenType.L_PAREN
            ):
                name = self._curr.text.upper()
                self._advance(2)
                args = self._parse_csv(self._parse_read_hint_arg)
                self._match_r_paren()
                return self.expression(TableReadHint(this=name, expressions=args))
            return super()._parse_hint_function_call()

        def _parse_read_hint_arg(self) -> exp.Expr | None:
            if self._curr and self._curr.token_type in (TokenType.STRING, TokenType.NUMBER):
                return self._parse_primary()
            return self._parse_table_parts()

    class Generator(SparkGenerator):
        TRANSFORMS: ClassVar[dict[type[exp.Expr], Callable[..., str]]] = {
            **SparkGenerator.TRANSFORMS,
            ProcedureCall: lambda self, e: f"CALL {self.sql(e, 'this')}({self.expressions(e, flat=True)})",
            TableReadHint: lambda self, e: self.func(e.name, *e.expressions),
            SetConfig: lambda self, e: f"SET {e.this.name}={_config_value_sql(self, e.expression.name)}",
            ShowConfig: lambda self, e: (
                "SET -v" if e.args.get("verbose") else f"SET {e.this.name}" if e.this else "SET"
            ),
            ResetConfig: lambda self, e: f"RESET {e.this.name}" if e.this else "RESET",
            ExplainStatement: lambda self, e: (
                f"EXPLAIN {e.args['mode'].name} {self.sql(e, 'this')}"
                if e.args.get("mode")
                else f"EXPLAIN {self.sql(e, 'this')}"
            ),
            ShowPartitions: lambda self, e: " ".join(
                part for part in ("SHOW PARTITIONS", self.sql(e, "this"), self.sql(e, "partition")) if part
            ),
            ShowCreateTable: lambda self, e: (
                f"SHOW CREATE TABLE {self.sql(e, 'this')}{' AS SERDE' if e.args.get('as_serde') else ''}"
            ),
            ShowTblProperties: lambda self, e: (
                f"SHOW TBLPROPERTIES {self.sql(e, 'this')}"
                + (f" ({self.sql(e, 'key')})" if e.args.get("key") else "")
            ),
            DropPartitionPurge: lambda self, e: f"{self.droppartition_sql(e)} PURGE",
        }

        def fileformatproperty_sql(self, expression: exp.FileFormatProperty) -> str:
            if not expression.args.get("hive_format") and "." in expression.name:
                return f"USING {expression.name}"  # a class or package name keeps its case
            return super().fileformatproperty_sql(expression)

        def partition_sql(self, expression: exp.Partition) -> str:
            # Spark's partition specs take constants only: DATE '2024-01-01' must stay a typed
            # literal, where sqlglot would write CAST('2024-01-01' AS DATE).
            keyword = "SUBPARTITION" if expression.args.get("subpartition") else "PARTITION"
            items = [
                f"{self.sql(item, 'this')} = {partition_value_sql(item.expression)}"
                if isinstance(item, exp.EQ)
                else self.sql(item)
                for item in expression.expressions
            ]
            return f"{keyword}({', '.join(items)})"


def partition_value_sql(value: exp.Expr) -> str:
    """Spark SQL for a partition spec value; a cast string literal is written as the typed
    literal it was parsed from (``DATE '2024-01-01'``)."""
    if (
        isinstance(value, exp.Cast)
        and isinstance(value.this, exp.Literal)
        and value.this.is_string
        and not value.to.expressions
    ):
        return f"{generate(value.to)} {generate(value.this)}"
    return generate(value)


def _config_value_sql(generator: SparkGenerator, value: str) -> str:
    return value if _plain_value(value) else generator.sql(exp.Literal.string(value))


@dataclass(frozen=True)
class ParsedStatement:
    """One statement of a script: its tree and the exact text it was parsed from."""

    expression: exp.Expr
    text: str


def parse_statements(sql: str) -> list[ParsedStatement]:
    """Parses a script of ``;``-separated statements, keeping each statement's source text.

    Raises:
        HudiSqlError: the script does not tokenize or a statement does not parse; the error
            has the line and column of the offending token and shows it with a caret.
    """
    dialect = HudiSpark()
    try:
        tokens = dialect.tokenize(sql)
    except TokenError as e:
        raise _token_error(e, sql) from None

    chunks: list[list[Token]] = [[]]
    for token in tokens:
        if token.token_type == TokenType.SEMICOLON:
            chunks.append([])
        else:
            chunks[-1].append(token)

    statements = []
    for chunk in chunks:
        if not chunk:
            continue
        parser = dialect.parser(error_level=ErrorLevel.RAISE)
        try:
            trees = parser.parse(chunk, sql)
        except ParseError as e:
            raise _unknown_statement(chunk[0], sql) or _parse_error(e, sql) from None
        for tree in trees:
            if tree is not None:
                statements.append(ParsedStatement(tree, sql[chunk[0].start : chunk[-1].end + 1]))
    return statements


def parse(sql: str) -> list[exp.Expr]:
    """Parses a script of ``;``-separated statements with the :class:`HudiSpark` dialect.

    Raises:
        HudiSqlError: as :func:`parse_statements`.
    """
    return [statement.expression for statement in parse_statements(sql)]


def generate(expression: exp.Expr) -> str:
    """Spark SQL for *expression* (our nodes included), on one line.

    Raises:
        UnsupportedFeatureError: the tree holds something Spark SQL cannot express.
    """
    try:
        return HudiSpark().generate(expression, unsupported_level=ErrorLevel.RAISE)
    except UnsupportedError as e:
        raise UnsupportedFeatureError(f"not supported: {e}") from None


#: Spark's SQLSTATE of ``PARSE_SYNTAX_ERROR``.
SYNTAX_ERROR_STATE = "42601"


def _position(sql: str, offset: int) -> tuple[int, int]:
    before = sql[:offset]
    return before.count("\n") + 1, offset - (before.rfind("\n") + 1) + 1


#: The words a statement starts with, for "did you mean" when a statement starts with another word.
_STATEMENT_WORDS = ("SELECT", "WITH", "VALUES", "FROM", "TABLE", "INSERT", "UPDATE", "DELETE", "MERGE", "CREATE",
                    "DROP", "ALTER", "TRUNCATE", "SHOW", "DESCRIBE", "DESC", "EXPLAIN", "CALL", "SET", "RESET",
                    "USE", *sorted({command.split()[0] for command in PASSTHROUGH_COMMANDS}))


def _unknown_statement(first: Token, sql: str) -> HudiSqlError | None:
    """A statement that starts with a word no statement starts with, named where it is (Spark
    says "Syntax error at or near 'SELEC'"); ``None`` when the first word is a statement's."""
    if first.token_type != TokenType.VAR or first.text.upper() in _STATEMENT_WORDS:
        return None
    line, col = _position(sql, first.start)
    hint = did_you_mean(first.text.upper(), _STATEMENT_WORDS).strip()
    return HudiSqlError(f"syntax error at or near '{first.text}': no statement starts with it.{' ' + hint if hint else ''}",
                        line=line, col=col, sql=sql, sql_state=SYNTAX_ERROR_STATE)


def _parse_error(error: ParseError, sql: str) -> HudiSqlError:
    first = error.errors[0] if error.errors else {}
    description = first.get("description") or str(error)
    line, col = first.get("line"), first.get("col")
    highlight = first.get("highlight") or ""
    if isinstance(line, int) and isinstance(col, int) and highlight and "\n" not in highlight:
        col = max(col - len(highlight) + 1, 1)  # sqlglot reports the column the token ends on
    return HudiSqlError(
        f"syntax error: {description}.",
        line=line if isinstance(line, int) else None,
        col=col if isinstance(col, int) else None,
        sql=sql,
        sql_state=SYNTAX_ERROR_STATE,
    )


def _token_error(error: TokenError, sql: str) -> HudiSqlError:
    cause = str(error.__cause__ or error)
    offset: int | None = None
    message = f"syntax error: {cause}"
    missing = re.fullmatch(r"Missing (.+) from \d+:(\d+)", cause)
    if missing:
        offset = int(missing.group(2))
        message = f"syntax error: unterminated quoted text, missing the closing {missing.group(1)}"
    elif error.start is not None and error.start > 0:
        offset = error.start + 50  # sqlglot quotes 50 characters either side of the failure
    line, col = _position(sql, min(offset, len(sql))) if offset is not None else (None, None)
    return HudiSqlError(f"{message}.", line=line, col=col, sql=sql, sql_state=SYNTAX_ERROR_STATE)
