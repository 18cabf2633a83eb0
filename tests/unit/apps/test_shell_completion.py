"""Tab completion and history of the interactive shell, without a terminal or Spark."""

from __future__ import annotations

from pathlib import Path

import hudi_sql
from hudi_sql.apps.shell_complete import KEYWORDS, Completer, HistoryLines, history_path
from hudi_sql.apps.shell_output import spark_message, without_internal_names

COLUMNS = {"orders": ["order_id", "amount", "customer_id"], "customers": ["customer_id", "name"]}


def completer() -> Completer:
    return Completer(lambda: sorted(COLUMNS), lambda table: COLUMNS.get(table, []))


def all_completions(c: Completer, text: str, line: str) -> list[str]:
    found, state = [], 0
    while (match := c.complete(text, state, line)) is not None:
        found.append(match)
        state += 1
    return found


def test_completer_table_prefix_completes_table_and_keyword() -> None:
    assert completer().candidates("ord", "SELECT * FROM ord") == ["orders", "order"]


def test_completer_column_of_table_named_in_line_completes() -> None:
    assert completer().candidates("am", "SELECT am FROM orders") == ["amount"]


def test_completer_column_of_table_not_named_is_not_offered() -> None:
    assert completer().candidates("am", "SELECT am") == []


def test_completer_qualified_by_alias_completes_columns_of_its_table() -> None:
    line = "SELECT o.cu FROM orders AS o JOIN customers c ON o.customer_id = c.customer_id"
    assert completer().candidates("o.cu", line) == ["o.customer_id"]
    assert completer().candidates("c.", line) == ["c.customer_id", "c.name"]


def test_completer_keyword_keeps_the_case_typed() -> None:
    assert completer().candidates("sel", "") == ["select"]
    assert completer().candidates("SEL", "") == ["SELECT"]
    assert "TBLPROPERTIES" in KEYWORDS


def test_completer_readline_protocol_enumerates_then_ends() -> None:
    assert all_completions(completer(), "cu", "SELECT cu FROM customers") == [
        "customer_id",
        "customers",
        "current_date",
        "current_timestamp",
    ]


def test_completer_failing_catalog_completes_keywords_only() -> None:
    def broken() -> list[str]:
        raise RuntimeError("no catalog")

    c = Completer(broken, lambda table: [])
    assert c.candidates("fro", "SELECT 1 fro") == ["from"]


def test_completer_invalidate_reads_tables_again() -> None:
    tables = ["a1"]
    c = Completer(lambda: list(tables), lambda table: [])
    assert c.candidates("a", "")[:2] == ["a1", "add"]
    tables.append("a2")
    assert "a2" not in c.candidates("a", "")
    c.invalidate()
    assert "a2" in c.candidates("a", "")


def test_history_multiline_statement_is_one_entry() -> None:
    lines = HistoryLines()
    assert lines.add("SELECT id,", incomplete=True) is None
    assert lines.add("  name FROM t", incomplete=True) is None
    assert lines.add(";", incomplete=False) == "SELECT id, name FROM t ;"
    assert lines.add("SELECT 1;", incomplete=False) == "SELECT 1;"


def test_history_blank_line_and_abandoned_statement_make_no_entry() -> None:
    lines = HistoryLines()
    assert lines.add("   ", incomplete=False) is None
    lines.add("SELECT oops", incomplete=True)
    lines.clear()
    assert lines.add("SELECT 2;", incomplete=False) == "SELECT 2;"


def test_history_path_env_override_else_home_file(tmp_path: Path) -> None:
    assert history_path({"HUDI_SQL_HISTFILE": str(tmp_path / "h")}) == tmp_path / "h"
    assert history_path({}) == Path.home() / ".hudi_sql_history"


def test_error_message_analysis_plan_and_internal_view_names_are_dropped() -> None:
    raw = (
        "[UNRESOLVED_COLUMN.WITH_SUGGESTION] A column with name `s`.`idx` cannot be resolved. "
        "Did you mean one of the following? [`s`.`id`, `t`.`__hudi_tgt`, `s`.`ts`]. SQLSTATE: 42703; "
        "line 1 pos 8;\n'Join Inner\n+- SubqueryAlias __hudi_view_0_01601801\n\n\tat org.apache.Foo"
    )
    assert without_internal_names(spark_message(raw)) == (
        "[UNRESOLVED_COLUMN.WITH_SUGGESTION] A column with name `s`.`idx` cannot be resolved. "
        "Did you mean one of the following? [`s`.`id`, `s`.`ts`]. SQLSTATE: 42703"
    )


def test_error_message_query_context_kept_unless_it_quotes_internal_sql() -> None:
    user = "[DIVIDE_BY_ZERO] Division by zero. SQLSTATE: 22012\n== SQL (line 1, position 8) ==\nSELECT 1/0\n       ^^^\n"
    assert without_internal_names(spark_message(user)) == user.strip()
    bound = (
        "[CAST_INVALID_INPUT] The value 'x' cannot be cast. SQLSTATE: 22018\n== SQL (line 1, position 8) ==\n"
        "SELECT CAST('x' AS INT) FROM __hudi_view_3_53daf5d8 AS ...\n       ^^^^^^^^^^^^^^^^\n"
    )
    assert without_internal_names(spark_message(bound)) == (
        "[CAST_INVALID_INPUT] The value 'x' cannot be cast. SQLSTATE: 22018"
    )
    assert without_internal_names("in `__hudi_view_3_53daf5d8` AS t") == "in t"


def test_error_message_drops_the_dataframe_context_that_points_into_hudi_sql_source() -> None:
    source = Path(hudi_sql.__file__).parent / "sql" / "operations" / "insert.py"  # where the cast was built
    raw = ("[CAST_INVALID_INPUT] The value 'abc' of the type \"STRING\" cannot be cast to \"INT\" because it is "
           f"malformed. SQLSTATE: 22018\n== DataFrame ==\n\"cast\" was called from\n{source}:59\n\n\tat org.apache.Foo")
    assert spark_message(raw) == ("[CAST_INVALID_INPUT] The value 'abc' of the type \"STRING\" cannot be cast to "
                                  "\"INT\" because it is malformed. SQLSTATE: 22018")
