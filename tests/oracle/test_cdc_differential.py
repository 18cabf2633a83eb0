"""CDC against Apache Hudi 0.15 (table version 6) and 1.2 (version 8): the same statements through both engines, the same changes.

Each case creates a table with CDC on (one logging mode), runs inserts, an update, a delete, a
MERGE INTO and another update through Apache Hudi and, on a table of its own, through hudi-sql;
then checks:

* both engines read the *same* table's changes alike, image for image, meta columns included
  (Apache Hudi's table and ours, each read by both);
* the two tables' changes agree commit by commit on the data columns (the commits have
  different times, so they are compared by their place in the sequence).

A last case has the engines take turns writing one table (Apache Hudi creates it, we update,
Apache Hudi deletes, we merge), and both read its changes alike.

Apache Hudi writes an absent image as the string ``"null"`` where a CDC log holds it; hudi-sql
returns SQL NULL, and the comparison counts the two as one (docs/compatibility.md).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from cdc_steps import STATEMENTS, create_cdc_table
from oracle_harness import Oracle, ours
from sql_session import fresh_database

pytestmark = [pytest.mark.oracle, pytest.mark.spark]

#: (table type, logging mode, table version): every mode on version 6 (against Apache Hudi 0.15), and
#: on version 8 (against Apache Hudi 1.2) a Copy-On-Write and a Merge-On-Read table, whose log files
#: are named by the deltacommit that wrote them
CASES = [("cow", "data_before_after", 6), ("cow", "op_key_only", 6), ("cow", "data_before", 6),
         ("mor", "data_before_after", 6), ("cow", "op_key_only", 8), ("mor", "data_before_after", 8)]

CDC_READ = {"hoodie.datasource.query.type": "incremental", "hoodie.datasource.query.incremental.format": "cdc",
            "hoodie.datasource.read.begin.instanttime": "0"}


def _image(value: str | None) -> dict[str, Any] | None:
    return None if value in (None, "null") else json.loads(value)


def _changes(result: dict[str, Any]) -> list[tuple[str, str, str, str]]:
    """CDC rows as (ts_ms, op, before, after), the images as sorted JSON (field order differs
    between Apache Hudi's own code paths)."""
    index = {c: i for i, c in enumerate(result["columns"])}
    out = []
    for row in result["rows"]:
        before, after = (_image(row[index[c]]) for c in ("before", "after"))
        out.append((row[index["ts_ms"]], row[index["op"]], json.dumps(before, sort_keys=True),
                    json.dumps(after, sort_keys=True)))
    return sorted(out)


def _data_changes(changes: list[tuple[str, str, str, str]]) -> list[tuple[int, str, str, str]]:
    """Data columns only, each commit by its place in the sequence."""
    order = {ts: i for i, ts in enumerate(sorted({c[0] for c in changes}))}

    def data(image: str) -> str:
        value = json.loads(image)
        return json.dumps(None if value is None else {k: v for k, v in value.items() if not k.startswith("_hoodie_")},
                          sort_keys=True)

    return sorted((order[ts], op, data(before), data(after)) for ts, op, before, after in changes)


def _our_changes(spark: Any, path: Path) -> list[tuple[str, str, str, str]]:
    import hudi_sql

    return _changes(ours(hudi_sql.read(spark, str(path), CDC_READ)))


def _their_changes(oracle: Oracle, path: Path) -> list[tuple[str, str, str, str]]:
    return _changes(oracle.run([{"read": {"path": str(path), "options": CDC_READ}}])[0])


@pytest.fixture(scope="module")
def db(spark: Any) -> Iterator[Any]:
    with fresh_database(spark, "oracle_cdc") as session:
        yield session


@dataclass(frozen=True)
class Tables:
    theirs: Path  # Apache Hudi's table
    mine: Path  # ours, after the same statements
    oracle: Oracle  # the Apache Hudi of the table version


@pytest.fixture(scope="module", params=CASES, ids=[f"{t}-{m}-v{v}" for t, m, v in CASES])
def tables(request: pytest.FixtureRequest, db: Any, tmp_path_factory: pytest.TempPathFactory) -> Tables:
    table_type, mode, version = request.param
    oracle: Oracle = request.getfixturevalue("oracle" if version == 6 else "oracle_v1")
    name = f"cdc_{table_type}_{mode}_v{version}"
    root = tmp_path_factory.mktemp(name)
    theirs, mine = root / "apache", root / "ours"
    # (Apache Hudi 1.2 writes version 9 unless each write names the version)
    pinned = [] if version == 6 else [f"SET hoodie.write.table.version={version}"]
    their_statements = oracle.begin([{"sql": f"DROP TABLE IF EXISTS {name}"},
                                     *({"sql": s} for s in pinned),
                                     {"sql": create_cdc_table(name, theirs, table_type, mode, version)},
                                     *({"sql": s.format(t=name)} for s in STATEMENTS),
                                     *({"sql": "RESET hoodie.write.table.version"} for _ in pinned)])
    db.sql(create_cdc_table(name, mine, table_type, mode, version))
    for statement in STATEMENTS:
        db.sql(statement.format(t=name))
    their_statements.results()
    return Tables(theirs, mine, oracle)


def test_we_read_apache_hudis_changes_as_it_does(spark: Any, tables: Tables) -> None:
    assert _our_changes(spark, tables.theirs) == _their_changes(tables.oracle, tables.theirs)


def test_apache_hudi_reads_our_changes_as_we_do(spark: Any, tables: Tables) -> None:
    assert _their_changes(tables.oracle, tables.mine) == _our_changes(spark, tables.mine)


def test_the_same_statements_make_the_same_changes(spark: Any, tables: Tables) -> None:
    theirs, mine = tables.theirs, tables.mine
    changes = _data_changes(_our_changes(spark, mine))
    assert changes == _data_changes(_our_changes(spark, theirs))
    assert len({c[0] for c in changes}) == len(STATEMENTS), "every statement changed something"


def test_engines_taking_turns_on_one_table_read_its_changes_alike(
        spark: Any, db: Any, oracle: Oracle, tmp_path_factory: pytest.TempPathFactory) -> None:
    name = "cdc_turns"
    path = tmp_path_factory.mktemp(name) / name
    oracle.run([{"sql": f"DROP TABLE IF EXISTS {name}"}, {"sql": create_cdc_table(name, path, "cow", "op_key_only")},
                {"sql": STATEMENTS[0].format(t=name)}])
    db.sql(f"CREATE TABLE {name} USING hudi LOCATION '{path}'")
    db.sql(STATEMENTS[1].format(t=name))  # ours: an update, logged by us
    oracle.sql(STATEMENTS[2].format(t=name))  # Apache Hudi: a delete, logged by it
    db.sql(STATEMENTS[3].format(t=name))  # ours: a merge
    mine, theirs = _our_changes(spark, path), _their_changes(oracle, path)
    assert mine == theirs
    assert [op for _, op, *_ in _data_changes(mine)] == ["i", "i", "i", "u", "d", "i", "u"]
