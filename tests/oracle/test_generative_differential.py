"""Generative differential test: random tables and operation sequences through Apache Hudi and hudi-sql.

Hypothesis draws a table and what is done to it:

* the table: table version (6, checked against Apache Hudi 0.15; 8 and 9, against Apache Hudi 1.2),
  Copy-On-Write or Merge-On-Read, the key, partition and ordering column types, the key
  generator (simple, complex, non-partitioned, timestamp-based on epoch milliseconds), the
  payload (or none named), the index, the metadata table, meta fields on or off, CDC on or off,
  and whether it is made and written through the DataFrame API or through SQL;
* the operations: inserts, upserts with duplicate keys, late records and nulls, deletes of
  present and absent keys, overwrites of the written partitions or the whole table, partitions
  deleted, SQL ``UPDATE`` / ``MERGE INTO`` (whole rows, or some columns: partial updates on
  Merge-On-Read from version 8) / ``DELETE`` / ``ALTER TABLE … DROP PARTITION``, and
  the services a user calls in between: compaction, clean, clustering, a rollback of the latest
  commit, a savepoint and a restore to it.

Each engine writes its own table. After every step the snapshot of our table, Apache Hudi's
snapshot of its own, Apache Hudi's snapshot of ours and ours of Apache Hudi's must hold the same
data rows, and a step one engine refuses the other must refuse too. At the end, over a drawn
range of commits: the incremental reads, time travel, the read-optimized view (Merge-On-Read)
and the change feed (CDC tables) of both engines must agree. A failure is shrunk to a minimal
scenario, printed as a Python literal that goes into :data:`REGRESSIONS` (replayed in every
oracle run) once understood.

The CI profile runs a few fixed-seed examples; a longer search (``--hypothesis-profile=long``,
see ``docs/testing.md``) runs the same test with many more.
"""

from __future__ import annotations

import base64
import datetime
import decimal
import json
import re
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st
from oracle_harness import (
    TALLY,
    Oracle,
    OracleError,
    Pending,
    assert_same_rows,
    only_columns,
    ours,
    snapshot_disagreements,
)
from sql_session import fresh_database

pytestmark = [pytest.mark.oracle, pytest.mark.spark]

PACKAGE = "org.apache.hudi.common.model"
DATABASE = "generative"
KEY_POOL = 10  # keys are drawn from a small pool, so upserts and deletes meet stored rows

#: Column types a key, partition or ordering field may have, with the value of pool entry i.
KEY_TYPES = {"INT": lambda i: i, "BIGINT": lambda i: 10_000_000_000 + i, "STRING": lambda i: f"k {i:02d}",
             "DATE": lambda i: (datetime.date(2024, 2, 27) + datetime.timedelta(days=i)).isoformat(),
             "DECIMAL(10,2)": lambda i: f"{i * 7 - 30}.25"}
#: Partition values by column type; ``EPOCH_MS`` is a BIGINT of epoch milliseconds, the timestamp
#: key generator's input (two of its values fall on one day, so one partition holds both).
PARTITION_TYPES = {"STRING": ("a", "b", "c d"), "INT": (1, 2, 3), "DATE": ("2024-01-01", "2024-02-29", "2025-12-31"),
                   "EPOCH_MS": (1_704_103_200_000, 1_704_151_800_000, 1_709_164_800_000)}
SQL_TYPES = {"EPOCH_MS": "BIGINT"}
ORDERING_TYPES = ("INT", "BIGINT", "DOUBLE")
KEY_GENERATORS = {"simple": "org.apache.hudi.keygen.SimpleKeyGenerator",
                  "complex": "org.apache.hudi.keygen.ComplexKeyGenerator",
                  "non_partitioned": "org.apache.hudi.keygen.NonpartitionedKeyGenerator",
                  "timestamp": "org.apache.hudi.keygen.TimestampBasedKeyGenerator"}
#: The timestamp key generator's settings: epoch milliseconds printed as a day in UTC.
TIMESTAMP_KEYGEN = {"hoodie.keygen.timebased.timestamp.type": "EPOCHMILLISECONDS",
                    "hoodie.keygen.timebased.output.dateformat": "yyyy/MM/dd",
                    "hoodie.keygen.timebased.timezone": "UTC"}
PAYLOADS = (None, "DefaultHoodieRecordPayload", "OverwriteWithLatestAvroPayload", "EventTimeAvroPayload")
INDEXES = ("BLOOM", "SIMPLE", "GLOBAL_SIMPLE", "GLOBAL_BLOOM", "BUCKET")
#: Operations that take no rows: the services and the timeline's own.
SERVICES = ("compact", "clean", "cluster", "rollback", "savepoint", "restore")
#: A compaction is scheduled after one deltacommit (Apache Hudi's default trigger waits for five).
COMPACT_NOW = "hoodie.compact.inline.max.delta.commits=1"
#: Clustering takes every file of these tables (Apache Hudi 1.x's default small-file limit is lower).
CLUSTERING = "hoodie.clustering.plan.strategy.small.file.limit=1073741824"


@dataclass
class Scenario:
    """One drawn table and its operations; ``repr`` is the literal a regression test replays."""

    table_type: str
    key_type: str
    partition_type: str
    ordering_type: str
    keygen: str
    payload: str | None
    index: str
    metadata: bool
    steps: list[tuple[str, list[list[Any]]]] = field(default_factory=list)
    read_from: int = 0  # the step whose commit incremental reads begin after (and time travel goes to)
    version: int = 6
    api: str = "dataframe"  # or "sql": CREATE TABLE, and every write a SQL statement
    meta_fields: bool = True
    cdc: bool = False
    read_to: int | None = None  # the step whose commit incremental reads end at (None: the latest)

    @property
    def partitioned(self) -> bool:
        return self.keygen != "non_partitioned"

    @property
    def columns(self) -> list[str]:
        return ["id", *(["sub"] if self.keygen == "complex" else []), "part", "ts", "name", "price", "info"]

    @property
    def compared(self) -> list[str]:
        """The columns both engines' reads must agree on. A timestamp key generator's partition
        column is read differently by each Apache Hudi (docs/compatibility.md §22): 0.15 gives the
        partition path it formatted (``2024/01/01`` for ``1704103200000``), 1.x the stored value as
        a string; hudi-sql the stored value in the column's type. ``_hoodie_partition_path`` stands
        in for that column."""
        if self.keygen == "timestamp":
            return [c for c in self.columns if c != "part"] + (["_hoodie_partition_path"] if self.meta_fields else [])
        return self.columns

    @property
    def types(self) -> dict[str, str]:
        return {"id": self.key_type, "sub": "STRING", "part": SQL_TYPES.get(self.partition_type, self.partition_type),
                "ts": self.ordering_type, "name": "STRING", "price": "DOUBLE", "info": "STRUCT<a: INT, b: STRING>"}

    @property
    def schema(self) -> str:
        return ", ".join(f"{column} {self.types[column]}" for column in self.columns)

    @property
    def table_columns(self) -> list[str]:
        """The SQL table's column order: a partition column comes last, as Spark lays it out."""
        if not self.partitioned:
            return self.columns
        return [c for c in self.columns if c != "part"] + ["part"]

    @property
    def key_fields(self) -> str:
        return "id,sub" if self.keygen == "complex" else "id"

    def table_options(self) -> dict[str, str]:
        """What both APIs set on the table besides its keys: index, payload, services, features."""
        options = {"hoodie.index.type": self.index, "hoodie.metadata.enable": str(self.metadata).lower()}
        if self.payload:
            options["hoodie.datasource.write.payload.class"] = f"{PACKAGE}.{self.payload}"
        if self.index == "BUCKET":
            options["hoodie.bucket.index.num.buckets"] = "2"
        if self.keygen == "timestamp":
            options.update(TIMESTAMP_KEYGEN)
        if not self.meta_fields:
            options["hoodie.populate.meta.fields"] = "false"
        if self.cdc:
            options["hoodie.table.cdc.enabled"] = "true"
        if self.version != 6:
            options["hoodie.write.table.version"] = str(self.version)
        return options

    def options(self, name: str) -> dict[str, str]:
        """The DataFrame writer's options."""
        return {
            "hoodie.table.name": name,
            "hoodie.datasource.write.table.type": self.table_type,
            "hoodie.datasource.write.recordkey.field": self.key_fields,
            "hoodie.datasource.write.partitionpath.field": "part" if self.partitioned else "",
            "hoodie.datasource.write.keygenerator.class": KEY_GENERATORS[self.keygen],
            "hoodie.datasource.write.precombine.field": "ts",
            **self.table_options(),
        }

    def create_table(self, name: str, path: Path) -> str:
        """The SQL API's ``CREATE TABLE`` (both engines run the same text)."""
        columns = ", ".join(f"{column} {self.types[column]}" for column in self.table_columns)
        properties = {"type": "cow" if self.table_type == "COPY_ON_WRITE" else "mor",
                      "primaryKey": self.key_fields, "preCombineField": "ts", **self.table_options()}
        if self.keygen == "timestamp":
            properties["hoodie.table.keygenerator.class"] = KEY_GENERATORS["timestamp"]
        listed = ", ".join(f"'{key}' = '{value}'" for key, value in properties.items())
        partitioned = " PARTITIONED BY (part)" if self.partitioned else ""
        return f"CREATE TABLE {name} ({columns}) USING hudi{partitioned} LOCATION '{path}' TBLPROPERTIES ({listed})"

    # -- SQL statements of the SQL API's steps ------------------------------------------------

    def literal(self, column: str, value: Any) -> str:
        sql_type = self.types[column]
        if value is None:
            return f"CAST(NULL AS {sql_type})"
        if column == "info":
            return f"named_struct('a', {int(value[0])}, 'b', '{value[1]}')"
        if sql_type == "STRING":
            return "'" + str(value).replace("'", "''") + "'"
        if sql_type == "DATE":
            return f"DATE'{value}'"
        return f"CAST({value!r} AS {sql_type})"

    def source(self, rows: list[list[Any]]) -> str:
        """*rows* as an inline table of the data columns, in the table's column order."""
        values = ", ".join("(" + ", ".join(self.literal(c, v) for c, v in zip(self.columns, row, strict=True)) + ")"
                           for row in rows)
        return f"SELECT {', '.join(self.table_columns)} FROM VALUES {values} AS s({', '.join(self.columns)})"

    def statement(self, operation: str, rows: list[list[Any]], table: str, number: int) -> str:
        keys = ", ".join(sorted({self.literal("id", row[0]) for row in rows}))
        if operation == "insert":
            return f"INSERT INTO {table} {self.source(rows)}"
        if operation == "insert_overwrite_table":
            return f"INSERT OVERWRITE TABLE {table} {self.source(rows)}"
        if operation == "upsert":
            on = " AND ".join(f"t.{key} = s.{key}" for key in self.key_fields.split(","))
            return (f"MERGE INTO {table} t USING ({self.source(rows)}) s ON {on} "
                    "WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *")
        if operation == "merge_update":  # some columns of the matched rows: a partial update on MOR from version 8
            on = " AND ".join(f"t.{key} = s.{key}" for key in [*self.key_fields.split(","),
                                                              *(["part"] if self.partitioned else [])])
            return (f"MERGE INTO {table} t USING ({self.source(rows)}) s ON {on} "
                    "WHEN MATCHED THEN UPDATE SET price = s.price, ts = s.ts")
        if operation == "update":
            return f"UPDATE {table} SET name = 'u{number}', ts = ts + 50 WHERE id IN ({keys})"
        if operation == "delete":
            return f"DELETE FROM {table} WHERE id IN ({keys})"
        if operation == "delete_partition":
            part = rows[0][self.columns.index("part")]
            return f"ALTER TABLE {table} DROP PARTITION (part = {self.literal('part', part)})"
        raise ValueError(f"no SQL statement for {operation}")


@st.composite
def _rows(draw: Any, scenario: Scenario, *, allow_duplicates: bool) -> list[list[Any]]:
    """A batch: keys from the pool (duplicates of a key carry distinct ordering values, so which one
    wins never depends on arrival order), partitions per key mostly, nulls in the value columns."""
    key_of = KEY_TYPES[scenario.key_type]
    parts = PARTITION_TYPES[scenario.partition_type]
    picks = draw(st.lists(st.integers(0, KEY_POOL - 1), min_size=1, max_size=6,
                          unique=not allow_duplicates))
    orderings = draw(st.lists(st.integers(0, 40), min_size=len(picks), max_size=len(picks), unique=True))
    rows = []
    for pick, ordering in zip(picks, orderings, strict=True):
        part = parts[pick % len(parts)] if draw(st.integers(0, 4)) else draw(st.sampled_from(parts))
        name = draw(st.one_of(st.none(), st.sampled_from(["x", "y", "z é"])))
        price = draw(st.one_of(st.none(), st.sampled_from([0.0, 1.5, -2.25])))
        info = draw(st.one_of(st.none(), st.tuples(st.integers(-3, 3), st.sampled_from(["p", "q"])).map(list)))
        sub = ["s"] if scenario.keygen == "complex" else []
        ordering_value = ordering + 0.5 if scenario.ordering_type == "DOUBLE" else ordering
        rows.append([key_of(pick), *sub, part, ordering_value, name, price, info])
    return rows


def _operations(scenario: Scenario) -> list[str]:
    """What may follow the first insert: writes (upserts weighted double), then services."""
    operations = ["upsert", "upsert", "delete", "insert", "insert_overwrite_table"]
    if scenario.api == "sql" and scenario.keygen == "timestamp":
        # Apache Hudi 0.15's UPDATE writes a timestamp key generator's partition path into the
        # partition column, as a string, and its MERGE INTO fails syncing the catalog; Apache Hudi
        # 1.2's MERGE INTO refuses the source's long partition column against the catalog's string
        # one (docs/compatibility.md §22): neither on such tables.
        operations = ["delete", "insert", "insert_overwrite_table"]
    elif scenario.api == "sql":
        operations.append("update")
        if "GLOBAL" not in scenario.index and not (scenario.version == 6 and scenario.table_type == "MERGE_ON_READ"):
            # MERGE's UPDATE SET of some columns, matched on key and partition. Not under a global
            # index (a row of the source's other partition is moved by Apache Hudi, not matched), nor
            # on version 6 Merge-On-Read (Apache Hudi 0.15 misreads such an update of a logged record,
            # docs/compatibility.md §4).
            operations.append("merge_update")
    if scenario.api == "dataframe":  # a dynamic-partition overwrite needs a session setting: DataFrame only
        operations.append("insert_overwrite")
    if scenario.partitioned and not (scenario.api == "sql" and scenario.keygen == "timestamp"):
        operations.append("delete_partition")  # the partitions of the drawn rows (DROP PARTITION: the first's)
    if scenario.table_type == "MERGE_ON_READ":
        operations.append("compact")
    if scenario.cdc and scenario.table_type == "COPY_ON_WRITE" and scenario.api == "dataframe":
        # Apache Hudi 0.15 merges an insert of a stored key into the key's file without the change
        # log its own change-feed reader then asks for (docs/compatibility.md §28): no later inserts.
        operations.remove("insert")
    operations += ["clean", "cluster", "rollback", "savepoint", "restore"]
    if not scenario.meta_fields:
        # Apache Hudi (0.15 and 1.2) clusters a table without meta fields into files at the table
        # root (their partition path is the null _hoodie_partition_path), after which it cannot read
        # the table (docs/compatibility.md §26): no clustering of such tables.
        operations.remove("cluster")
    return operations


@st.composite
def scenarios(draw: Any) -> Scenario:
    keygen = draw(st.sampled_from(sorted(KEY_GENERATORS)))
    table_type = draw(st.sampled_from(("COPY_ON_WRITE", "MERGE_ON_READ")))
    index = draw(st.sampled_from(INDEXES))
    version = draw(st.sampled_from((6, 8, 9)))
    # Apache Hudi reads a Merge-On-Read table without meta fields wrongly once it has logs, and
    # its bloom indexes fail on files without meta fields (docs/compatibility.md): meta fields are
    # drawn off on Copy-On-Write with a simple or bucket index only, and never with CDC.
    meta_fields = table_type == "MERGE_ON_READ" or "BLOOM" in index or draw(st.integers(0, 3)) > 0
    scenario = Scenario(
        table_type=table_type,
        key_type=draw(st.sampled_from(sorted(KEY_TYPES))),
        partition_type="EPOCH_MS" if keygen == "timestamp" else draw(st.sampled_from(("DATE", "INT", "STRING"))),
        ordering_type=draw(st.sampled_from(ORDERING_TYPES)),
        keygen=keygen, payload=draw(st.sampled_from(PAYLOADS)), index=index,
        metadata=draw(st.booleans()), version=version, api=draw(st.sampled_from(("dataframe", "sql"))),
        meta_fields=meta_fields, cdc=meta_fields and draw(st.integers(0, 3)) == 0)
    scenario.steps.append(("insert", draw(_rows(scenario, allow_duplicates=False))))
    for operation in draw(st.lists(st.sampled_from(_operations(scenario)), min_size=1, max_size=5)):
        if operation == "rollback" and any(op == "savepoint" for op, _ in scenario.steps):
            # Apache Hudi refuses to roll back a savepointed commit after it scheduled the rollback,
            # and its next write fails on that pending plan (docs/compatibility.md §35); the refusal
            # itself is REGRESSIONS[rollback_of_a_savepointed_commit_is_refused].
            continue
        duplicates = operation == "upsert" and scenario.api == "dataframe"  # a MERGE source has one row per key
        rows = [] if operation in SERVICES else draw(_rows(scenario, allow_duplicates=duplicates))
        scenario.steps.append((operation, rows))
    scenario.read_from = draw(st.integers(0, len(scenario.steps) - 1))
    scenario.read_to = draw(st.one_of(st.none(), st.integers(scenario.read_from, len(scenario.steps) - 1)))
    return scenario


def _python_values(scenario: Scenario, rows: list[list[Any]]) -> list[tuple[Any, ...]]:
    """The JSON rows as the values our Spark session takes (dates as dates, decimals as decimals,
    structs as tuples)."""
    convert = {"DATE": datetime.date.fromisoformat, "DECIMAL(10,2)": decimal.Decimal}
    types = [scenario.types[column] for column in scenario.columns]
    out = []
    for row in rows:
        values = [convert[t](v) if t in convert and v is not None else v for t, v in zip(types, row, strict=True)]
        values[-1] = tuple(values[-1]) if values[-1] is not None else None
        out.append(tuple(values))
    return out


@dataclass
class Side:
    """One engine's table: where it is, its catalog name, and the commits its steps made."""

    path: Path
    table: str
    registered: bool = False
    commits: list[str | None] = field(default_factory=list)  # per step, the latest completed write
    completions: list[str | None] = field(default_factory=list)  # ... and when it completed
    savepoints: list[str] = field(default_factory=list)

    def timeline(self) -> Any:
        from hudi_sql.table.meta_client import TableMetaClient

        return TableMetaClient.load(str(self.path)).timeline if (self.path / ".hoodie").exists() else None

    def latest_write(self) -> tuple[str | None, str | None]:
        timeline = self.timeline()
        last = timeline.completed_writes().last if timeline is not None else None
        if last is None:
            return None, None
        return last.instant_time, timeline.completion_time(last.instant_time)


def _service_statement(operation: str, side: Side) -> str | None:
    """The ``CALL`` a service step runs on *side*'s table (None: nothing to do, e.g. no savepoint yet)."""
    table = side.table
    latest, _ = side.latest_write()
    if latest is None and operation in ("clean", "compact", "cluster"):
        # A table whose only commit was rolled back: Apache Hudi 1.2's services look up the table's
        # schema first and fail (docs/compatibility.md §30); nothing to do here for either engine.
        return None
    if operation == "compact":  # whatever deltacommits there are (the trigger's default is 5)
        return f"CALL run_compaction(op => 'run', table => '{table}', options => '{COMPACT_NOW}')"
    if operation == "clean":
        return f"CALL run_clean(table => '{table}', retain_commits => 1)"
    if operation == "cluster":
        return f"CALL run_clustering(table => '{table}', options => '{CLUSTERING}')"
    if operation == "rollback":
        return f"CALL rollback_to_instant(table => '{table}', instant_time => '{latest}')" if latest else None
    if operation == "savepoint":
        if latest is None:
            return None
        side.savepoints.append(latest)
        return f"CALL create_savepoint(table => '{table}', commit_time => '{latest}')"
    if operation == "restore":
        if not side.savepoints:
            return None
        return f"CALL rollback_to_savepoint(table => '{table}', instant_time => '{side.savepoints[-1]}')"
    raise ValueError(f"unknown service {operation}")


class Run:
    """One scenario run through both engines, step by step."""

    def __init__(self, spark: Any, db: Any, oracle: Oracle, work: Path, scenario: Scenario) -> None:
        self.spark, self.db, self.oracle, self.scenario = spark, db, oracle, scenario
        name = f"gen_{uuid.uuid4().hex[:8]}"
        self.mine = Side(work / "ours", f"{DATABASE}.{name}")
        self.theirs = Side(work / "theirs", f"{DATABASE}.{name}")
        #: Apache Hudi's reads list files as its writes did (a 1.x reader's default is the metadata table).
        self.read_options = {"hoodie.metadata.enable": str(scenario.metadata).lower()}

    def __iter__(self) -> Iterator[tuple[int, str]]:
        return iter(enumerate(op for op, _ in self.scenario.steps))

    def begin(self) -> None:
        setup = [{"sql": f"CREATE DATABASE IF NOT EXISTS {DATABASE}"}]
        if self.scenario.version != 6:
            setup.append({"sql": f"SET hoodie.write.table.version={self.scenario.version}"})
        self.oracle.run(setup)
        if self.scenario.api == "sql":
            their_step = self.oracle.begin([{"sql": self.scenario.create_table(self.theirs.table, self.theirs.path)}])
            self.db.sql(self.scenario.create_table(self.mine.table, self.mine.path))
            their_step.results()
            self.mine.registered = self.theirs.registered = True

    def end(self) -> None:
        if self.scenario.version != 6:
            self.oracle.run([{"sql": "RESET hoodie.write.table.version"}])

    def _register(self) -> None:
        """A DataFrame-written table gets a catalog entry before its first ``CALL`` (both engines)."""
        if self.mine.registered or not (self.mine.path / ".hoodie").exists():
            return
        their_step = self.oracle.begin([{"sql": f"CREATE TABLE {self.theirs.table} USING hudi "
                                                f"LOCATION '{self.theirs.path}'"}])
        self.db.sql(f"CREATE TABLE {self.mine.table} USING hudi LOCATION '{self.mine.path}'")
        their_step.results()
        self.mine.registered = self.theirs.registered = True

    def step(self, number: int) -> tuple[str | None, str | None] | None:
        """Run step *number* in both engines: (our error, Apache Hudi's error); None when it had
        nothing to do in either (a restore with no savepoint)."""
        operation, rows = self.scenario.steps[number]
        # Apache Hudi's step is sent first and runs in its JVM while ours runs here.
        if operation in SERVICES:
            self._register()
            mine, theirs = _service_statement(operation, self.mine), _service_statement(operation, self.theirs)
            if mine is None or theirs is None:
                return None
            their_step = self.oracle.begin([{"sql": theirs}])
            our_error = _our_step(self.db.sql, mine)
        elif self.scenario.api == "sql":
            their_step = self.oracle.begin([{"sql": self.scenario.statement(operation, rows, self.theirs.table,
                                                                             number)}])
            our_error = _our_step(self.db.sql, self.scenario.statement(operation, rows, self.mine.table, number))
        else:
            import hudi_sql

            options = {**self.scenario.options("generated"), "hoodie.datasource.write.operation": operation}
            their_step = self.oracle.begin([{"write": {"path": str(self.theirs.path), "schema": self.scenario.schema,
                                                       "rows": rows, "options": options}}])
            df = self.spark.createDataFrame(_python_values(self.scenario, rows), self.scenario.schema)
            our_error = _our_step(hudi_sql.write, df, str(self.mine.path), options)
        return our_error, _their_error(their_step)

    def record_commits(self) -> None:
        for side in (self.mine, self.theirs):
            latest, completed = side.latest_write()
            side.commits.append(latest)
            side.completions.append(completed)


def run_scenario(spark: Any, db: Any, oracle: Oracle, work: Path, scenario: Scenario) -> list[str]:
    """Every disagreement between the engines over *scenario* (empty when they agree)."""
    run = Run(spark, db, oracle, work, scenario)
    run.begin()
    try:
        return _run_steps(run)
    finally:
        run.end()


def _run_steps(run: Run) -> list[str]:
    scenario = run.scenario
    TALLY.generated_steps.append(0)
    for number, operation in run:
        what = f"step {number} ({operation})"
        TALLY.generated_steps[-1] += 1
        errors = run.step(number)
        if errors is not None and (errors[0] is None) != (errors[1] is None):
            return [f"{what}: ours {errors[0] or 'ok'}; Apache Hudi {errors[1] or 'ok'}"]
        run.record_commits()
        if not (run.mine.path / ".hoodie").exists():
            continue
        failures = snapshot_disagreements(run.spark, run.oracle, run.mine.path, run.theirs.path, scenario.compared,
                                          what=what, read_options=run.read_options, we_read_theirs=True)
        if failures:
            return failures
    return _range_reads(run) + _read_optimized(run) + _changes(run)


def _range(run: Run, side: Side) -> dict[str, str] | None:
    """*side*'s incremental read options over the drawn range (None: the range is empty or unknown).

    A version 6 range is of requested times; from version 8 on, Apache Hudi 1.x bounds it by
    completion times, which is what a user reads off its timeline."""
    scenario = run.scenario
    bounds = side.commits if scenario.version == 6 else side.completions
    begin = bounds[scenario.read_from]
    end = bounds[scenario.read_to] if scenario.read_to is not None else None
    if begin is None or begin == bounds[-1] or (end is not None and end <= begin):
        return None
    options = {"hoodie.datasource.query.type": "incremental", "hoodie.datasource.read.begin.instanttime": begin}
    if end is not None:
        options["hoodie.datasource.read.end.instanttime"] = end
    return options


def _range_reads(run: Run) -> list[str]:
    """Incremental reads over the drawn range, and time travel to the commit of step ``read_from``,
    each engine of its own table, and Apache Hudi's of ours."""
    scenario = run.scenario
    reads = []
    mine_range, their_range = _range(run, run.mine), _range(run, run.theirs)
    if mine_range and their_range and not _global_index_merges_on_write(scenario):
        reads.append(("incremental", mine_range, their_range))
    ours_at, theirs_at = run.mine.commits[scenario.read_from], run.theirs.commits[scenario.read_from]
    if ours_at and theirs_at and ours_at != run.mine.commits[-1]:
        reads.append(("time travel", {"as.of.instant": ours_at}, {"as.of.instant": theirs_at}))
    failures = []
    for read, mine_options, their_options in reads:
        what = f"{read} at step {scenario.read_from}"
        failures += _compare_read(run, what, mine_options, their_options)
    return failures


def _global_index_merges_on_write(scenario: Scenario) -> bool:
    """Whether Apache Hudi 1.x writes an update as its merge with the stored record: a global index
    on a Merge-On-Read table of version 8 logs a late update as the stored row it lost to (with the
    update's commit time), where hudi-sql, as Apache Hudi 0.15, logs the update itself. Snapshots
    agree; an incremental read over that commit does not (docs/compatibility.md §23)."""
    return scenario.version >= 8 and scenario.index.startswith("GLOBAL") and scenario.table_type == "MERGE_ON_READ"


def _compare_read(run: Run, what: str, mine_options: dict[str, str], their_options: dict[str, str]) -> list[str]:
    """Our read of our table with *mine_options* against Apache Hudi's of its own (*their_options*)
    and of ours; a read one engine refuses the other must refuse too."""
    columns = run.scenario.compared
    pending = run.oracle.begin([
        {"read": {"path": str(run.theirs.path), "options": {**run.read_options, **their_options}}},
        {"read": {"path": str(run.mine.path), "options": {**run.read_options, **mine_options}}}])
    our_error, mine_rows = None, None
    try:
        mine_rows = only_columns(ours(run.spark.read.format("hudi").options(**mine_options).load(str(run.mine.path))),
                                 columns)
    except Exception as exc:  # noqa: BLE001 - a refusal is compared with Apache Hudi's
        our_error = f"{type(exc).__name__}: {exc}"
    try:
        answers = pending.results()
    except OracleError as exc:
        if APACHE_EMPTY_READ_FAILURE in str(exc) and mine_rows is not None and not mine_rows["rows"]:
            return []  # Apache Hudi 0.15 fails to read a range with no files left; ours is empty
        if our_error is not None:
            return []
        return [f"{what}: Apache Hudi fails ({exc}); ours {len(mine_rows['rows'])} rows"]  # type: ignore[index]
    if our_error is not None:
        return [f"{what}: ours fails ({our_error}); Apache Hudi reads {len(answers[0]['rows'])} rows"]
    failures = []
    for whose, other in zip(("Apache Hudi's table", "our table read by Apache Hudi"), answers, strict=True):
        try:
            assert_same_rows(mine_rows, only_columns(other, columns), what=f"{what}: {whose}")  # type: ignore[arg-type]
        except AssertionError as exc:
            failures.append(str(exc))
    return failures


def _read_optimized(run: Run) -> list[str]:
    """The base files alone of a Merge-On-Read table, as each engine reads them."""
    if run.scenario.table_type != "MERGE_ON_READ" or not (run.mine.path / ".hoodie").exists():
        return []
    options = {"hoodie.datasource.query.type": "read_optimized"}
    return _compare_read(run, "read-optimized", options, options)


def _changes(run: Run) -> list[str]:
    """The change feed over the drawn range (from its first commit on): each engine's of its own
    table and Apache Hudi's of ours, commit by commit in order, on the data columns."""
    scenario = run.scenario
    last = scenario.read_to if scenario.read_to is not None else len(scenario.steps) - 1
    in_range = {operation for operation, _ in scenario.steps[scenario.read_from + 1:last + 1]}
    if not scenario.cdc or in_range & REPLACING or _global_index_merges_on_write(scenario):
        return []
    mine_range, their_range = _range(run, run.mine), _range(run, run.theirs)
    if not (mine_range and their_range):
        return []
    cdc = {"hoodie.datasource.query.incremental.format": "cdc"}
    pending = run.oracle.begin([{"read": {"path": str(run.theirs.path), "options": {**their_range, **cdc}}},
                                {"read": {"path": str(run.mine.path), "options": {**mine_range, **cdc}}}])
    dates = frozenset(column for column, sql_type in scenario.types.items() if sql_type == "DATE")
    scales = {column: int(found.group(1)) for column, sql_type in scenario.types.items()
              if (found := re.fullmatch(r"DECIMAL\(\d+,(\d+)\)", sql_type))}
    mine = _data_changes(ours(run.spark.read.format("hudi").options(**mine_range, **cdc).load(str(run.mine.path))),
                         dates, scales)
    failures = []
    for whose, answer in zip(("Apache Hudi's table", "our table read by Apache Hudi"), pending.results(), strict=True):
        theirs = _data_changes(answer, dates, scales)
        if mine != theirs:
            only_ours = [c for c in mine if c not in theirs][:3]
            only_theirs = [c for c in theirs if c not in mine][:3]
            failures.append(f"changes at step {run.scenario.read_from}: {whose}: {len(mine)} ours, {len(theirs)} "
                            f"theirs\n  only ours: {only_ours}\n  only Apache Hudi's: {only_theirs}")
        else:
            TALLY.table_reads.append(f"generated changes: {whose}")
    return failures


#: Writes that replace file groups: Apache Hudi 0.15's change feed repeats one row of a replaced
#: group for all of them (docs/compatibility.md §13), so ranges with these are not compared.
REPLACING = {"insert_overwrite", "insert_overwrite_table", "delete_partition"}


def _data_changes(result: dict[str, Any], dates: frozenset[str],
                  scales: dict[str, int]) -> list[tuple[int, str, str, str]]:
    """CDC rows as (place of the commit in the range, op, before, after): the images as sorted JSON of
    the data columns. Rendering differences docs/compatibility.md records are evened out: Apache
    Hudi writes an absent image as the string ``"null"``, a date as Avro's day number, a decimal
    (of the column's scale in *scales*) as its unscaled value's bytes, a struct of some images as
    the UnsafeRow holding it, and leaves null fields out of some images."""
    index = {c: i for i, c in enumerate(result["columns"])}
    epoch = datetime.date(1970, 1, 1)

    def plain(data: dict[str, Any] | None) -> str:
        if data is not None:
            data = {k: v for k, v in data.items() if not k.startswith("_hoodie_") and v is not None}
            for column in dates & data.keys():
                if isinstance(data[column], int):
                    data[column] = (epoch + datetime.timedelta(days=data[column])).isoformat()
            for column in scales.keys() & data.keys():
                if isinstance(data[column], list):
                    unscaled = int.from_bytes(bytes(b & 0xFF for b in data[column]), "big", signed=True)
                    data[column] = str(decimal.Decimal(unscaled).scaleb(-scales[column]))
        return json.dumps(data, sort_keys=True)

    def struct(value: Any) -> Any:
        # Apache Hudi 0.15 renders a struct of a new file group's insert as the Spark UnsafeRow
        # holding it (docs/compatibility.md §13): decoded back, for STRUCT<a: INT, b: STRING>
        if not (isinstance(value, dict) and "sizeInBytes" in value):
            return value
        raw = base64.b64decode(value["bytes"])
        nulls, word = int.from_bytes(raw[0:8], "little"), int.from_bytes(raw[16:24], "little")
        return {"a": None if nulls & 1 else int.from_bytes(raw[8:12], "little", signed=True),
                "b": None if nulls & 2 else raw[word >> 32:(word >> 32) + (word & 0xFFFFFFFF)].decode()}

    def image(value: str | None) -> str:
        data = None if value in (None, "null") else json.loads(value)
        if data is not None and "info" in data:
            data["info"] = struct(data["info"])
        return plain(data)

    order = {ts: i for i, ts in enumerate(sorted({row[index["ts_ms"]] for row in result["rows"]}))}
    return sorted((order[row[index["ts_ms"]]], row[index["op"]], image(row[index["before"]]),
                   image(row[index["after"]])) for row in result["rows"])


#: How Apache Hudi 0.15 fails an incremental or time-travel read of a table whose files a
#: delete_partition replaced: its empty relation gets the meta columns twice.
APACHE_EMPTY_READ_FAILURE = "COLUMN_ALREADY_EXISTS"


def _their_error(step: Pending) -> str | None:
    """Apache Hudi's refusal, by its innermost cause (a Py4J error names only the call it broke)."""
    try:
        step.results()
    except OracleError as exc:
        causes = exc.response.get("causes") or [exc.response.get("error")]
        return str(causes[-1])
    return None


def _our_step(action: Any, *args: Any) -> str | None:
    try:
        action(*args)
    except Exception as exc:  # noqa: BLE001 - a refusal is compared with Apache Hudi's, not raised
        return f"{type(exc).__name__}: {exc}"
    return None


#: Minimal scenarios the search found, replayed on every oracle run (each with what it found).
REGRESSIONS: list[tuple[str, Scenario]] = [
    # run_compaction(op => 'run') compacted after two deltacommits here; Apache Hudi schedules only
    # once the trigger is met (5 deltacommits by default), so its read-optimized view still had the
    # stored row. The step now sets the trigger to one in both engines; the default is covered by
    # test_runner_procedures.
    ("compaction_waits_for_its_trigger", Scenario(
        table_type="MERGE_ON_READ", key_type="BIGINT", partition_type="DATE", ordering_type="INT",
        keygen="non_partitioned", payload=None, index="BUCKET", metadata=True,
        steps=[("insert", [[10_000_000_000, "2024-01-01", 19, None, None, None],
                           [10_000_000_001, "2024-01-01", 37, None, None, None]]),
               ("upsert", [[10_000_000_000, "2024-01-01", 0, None, None, None],
                           [10_000_000_000, "2024-01-01", 3, None, None, None]]),
               ("compact", [])], read_from=0, cdc=True)),
    # A clean removed the files of the instant a time travel went to: we read the table as empty,
    # Apache Hudi refuses ("Cleaner cleaned up the timestamp of interest").
    ("time_travel_to_a_cleaned_instant", Scenario(
        table_type="COPY_ON_WRITE", key_type="INT", partition_type="INT", ordering_type="INT", keygen="simple",
        payload=None, index="SIMPLE", metadata=False,
        steps=[("insert", [[1, 1, 0, None, None, None]]), ("upsert", [[1, 1, 1, None, None, None]]),
               ("upsert", [[1, 1, 2, None, None, None]]), ("clean", [])], read_from=0)),
    # A key moved to another partition under a global index logs a delete in its old file group;
    # its ordering value was written as a LongWrapper for an INT field, and Apache Hudi 1.x's merge
    # of that file group failed (ClassCastException: Integer cannot be cast to Long).
    ("global_index_partition_move_delete_ordering_int", Scenario(
        table_type="MERGE_ON_READ", key_type="BIGINT", partition_type="INT", ordering_type="INT", keygen="simple",
        payload=None, index="GLOBAL_SIMPLE", metadata=False,
        steps=[("insert", [[10_000_000_001, 1, 0, None, None, None]]),
               ("upsert", [[10_000_000_001, 2, 0, None, None, None]])], read_from=0, version=8)),
    # delete_partition without partitions.to.delete deleted nothing here (the batch's partitions
    # were taken from the workload profile, which leaves out deletes of keys no file group holds).
    ("delete_partition_of_the_batch", Scenario(
        table_type="COPY_ON_WRITE", key_type="BIGINT", partition_type="DATE", ordering_type="INT", keygen="complex",
        payload=None, index="BLOOM", metadata=False,
        steps=[("insert", [[10_000_000_000, "s", "2024-01-01", 0, None, None, None]]),
               ("delete_partition", [[10_000_000_000, "s", "2024-01-01", 0, None, None, None]])], read_from=0)),
    # MERGE INTO whose matched row moves to another partition, complex keys, bloom (not global), version 8:
    # Apache Hudi 1.2 keeps the old row and writes the new one; found by seed 1134.
    ("merge_moves_a_key_to_another_partition_v8", Scenario(
        table_type="COPY_ON_WRITE", key_type="BIGINT", partition_type="DATE", ordering_type="INT", keygen="complex",
        payload=None, index="BLOOM", metadata=False,
        steps=[("insert", [[10_000_000_000, "s", "2024-01-01", 0, None, None, None]]),
               ("upsert", [[10_000_000_000, "s", "2024-02-29", 0, None, None, None]])],
        read_from=0, version=8, api="sql")),
    ("merge_moves_a_key_to_another_partition_simple_index_v6", Scenario(
        table_type="MERGE_ON_READ", key_type="INT", partition_type="STRING", ordering_type="INT", keygen="simple",
        payload=None, index="SIMPLE", metadata=False,
        steps=[("insert", [[1, "a", 0, None, None, None]]), ("upsert", [[1, "b", 1, None, None, None]])],
        read_from=0, version=6, api="sql")),
    # An overwrite of a bucket-index table lost the records of buckets that had a file group
    # (no new file group was planned for them).
    ("bucket_index_insert_overwrite_table", Scenario(
        table_type="COPY_ON_WRITE", key_type="BIGINT", partition_type="DATE", ordering_type="INT", keygen="complex",
        payload=None, index="BUCKET", metadata=False,
        steps=[("insert", [[10_000_000_000, "s", "2024-01-01", 32, None, None, None],
                           [10_000_000_001, "s", "2024-01-01", 0, None, None, [0, "p"]]]),
               ("insert_overwrite_table", [[10_000_000_000, "s", "2024-01-01", 0, None, None, None]])], read_from=0)),
    # Two records of one key in a batch, on a version 8 table merging by commit time: the later
    # arrival won in Apache Hudi 1.2 (its record merger ignores the ordering value), the greater
    # ordering value here (seed 1135).
    ("batch_duplicates_commit_time_ordering_v8", Scenario(
        table_type="COPY_ON_WRITE", key_type="BIGINT", partition_type="DATE", ordering_type="INT", keygen="complex",
        payload="OverwriteWithLatestAvroPayload", index="SIMPLE", metadata=False,
        steps=[("insert", [[10_000_000_000, "s", "2024-01-01", 28, None, None, None]]),
               ("upsert", [[10_000_000_000, "s", "2024-01-01", 29, None, None, None],
                           [10_000_000_000, "s", "2024-01-01", 0, None, None, None]])],
        read_from=0, version=8)),
    # A change feed beginning at a rolled-back commit, after the latest one: Apache Hudi answers no
    # change; hudi-sql refused the range as ending before it began (seed 1135).
    ("cdc_range_begins_after_the_latest_commit", Scenario(
        table_type="COPY_ON_WRITE", key_type="BIGINT", partition_type="DATE", ordering_type="INT",
        keygen="non_partitioned", payload=None, index="BLOOM", metadata=False,
        steps=[("insert", [[10_000_000_000, "2024-01-01", 0, None, None, None]]),
               ("upsert", [[10_000_000_000, "2024-01-01", 40, "y", None, None]]), ("rollback", [])],
        read_from=1, version=6, cdc=True)),
    # The change feed of inserts into new file groups with a struct column: Apache Hudi 0.15 renders
    # the struct as the UnsafeRow holding it, decoded by the comparison (seed 1144, compatibility §13).
    ("cdc_insert_of_a_struct_into_a_new_file_group", Scenario(
        table_type="COPY_ON_WRITE", key_type="BIGINT", partition_type="DATE", ordering_type="INT",
        keygen="simple", payload=None, index="SIMPLE", metadata=False,
        steps=[("insert", [[10_000_000_000, "2024-01-01", 0, None, None, [1, "p"]]]),
               ("upsert", [[10_000_000_001, "2025-12-31", 14, "x", 1.5, [-3, "q"]]])],
        read_from=0, version=6, api="sql", cdc=True)),
    # A rollback of the latest commit while a savepoint holds it: Apache Hudi refuses it ("Could not
    # rollback a savepointed commit"); hudi-sql rolled it back (seed 1145).
    ("rollback_of_a_savepointed_commit_is_refused", Scenario(
        table_type="COPY_ON_WRITE", key_type="BIGINT", partition_type="DATE", ordering_type="INT",
        keygen="complex", payload=None, index="BLOOM", metadata=False,
        steps=[("insert", [[10_000_000_000, "s", "2024-01-01", 0, None, None, None]]), ("savepoint", []),
               ("rollback", [])],
        read_from=0, version=6, cdc=True)),
    # A change-logging version 8 table whose upsert loses to the stored record on event time: the
    # rewrite changed nothing; Apache Hudi 1.2 logs an empty CDC block, hudi-sql logged none and its
    # own change feed refused the commit as a rewrite without a log (seed 1145).
    ("cdc_v8_late_upsert_changes_nothing", Scenario(
        table_type="COPY_ON_WRITE", key_type="BIGINT", partition_type="DATE", ordering_type="INT",
        keygen="complex", payload=None, index="BLOOM", metadata=False,
        steps=[("insert", [[10_000_000_000, "s", "2024-01-01", 0, None, None, None],
                           [10_000_000_001, "s", "2024-01-01", 1, None, None, None]]),
               ("upsert", [[10_000_000_001, "s", "2024-01-01", 0, None, None, None]])],
        read_from=0, version=8, cdc=True)),
    # A second savepoint of a commit on a version 8 table: Apache Hudi 1.2 succeeds and keeps one
    # savepoint (0.15 refuses, as hudi-sql does on version 6); hudi-sql refused it (seed 1146).
    ("second_savepoint_of_a_commit_v8", Scenario(
        table_type="COPY_ON_WRITE", key_type="BIGINT", partition_type="DATE", ordering_type="INT",
        keygen="complex", payload=None, index="SIMPLE", metadata=False,
        steps=[("insert", [[10_000_000_000, "s", "2024-01-01", 0, None, None, None]]), ("savepoint", []),
               ("savepoint", [])],
        read_from=0, version=8)),
    # DROP PARTITION of a partition an INSERT OVERWRITE TABLE emptied: Apache Hudi 0.15 drops it (its
    # folder is still there); hudi-sql refused it as a partition that does not exist (seed 1147).
    ("drop_partition_emptied_by_an_overwrite", Scenario(
        table_type="COPY_ON_WRITE", key_type="BIGINT", partition_type="DATE", ordering_type="INT",
        keygen="complex", payload=None, index="BLOOM", metadata=False,
        steps=[("insert", [[10_000_000_000, "s", "2024-01-01", 11, None, None, None]]),
               ("insert_overwrite_table", [[10_000_000_001, "s", "2024-02-29", 38, None, None, None]]),
               ("delete_partition", [[10_000_000_002, "s", "2024-01-01", 38, None, 1.5, None],
                                     [10_000_000_003, "s", "2024-02-29", 40, "y", None, None]])],
        read_from=1, version=6, api="sql")),
    # An incremental query of a table with no completed commit (its one commit rolled back):
    # Apache Hudi answers no row, even without meta fields; hudi-sql refused the table (seed 1135).
    # INSERT INTO a version 8 table with an ordering field, of a stored key: Apache Hudi 1.2 runs it
    # as an insert (both rows kept), hudi-sql upserted as for version 6 (seed 1136).
    ("sql_insert_into_a_version_8_table_inserts", Scenario(table_type='COPY_ON_WRITE', key_type='BIGINT', partition_type='DATE', ordering_type='INT', keygen='non_partitioned', payload=None, index='BLOOM', metadata=True, steps=[('insert', [[10000000000, '2024-01-01', 0, None, 0.0, [0, 'p']], [10000000001, '2024-01-01', 22, None, None, None], [10000000002, '2024-01-01', 18, None, None, None]]), ('cluster', []), ('insert', [[10000000000, '2024-01-01', 0, None, None, None]]), ('clean', [])], read_from=0, version=8, api='sql', meta_fields=True, cdc=False, read_to=None)),
    ("incremental_read_of_a_table_without_commits", Scenario(
        table_type="COPY_ON_WRITE", key_type="BIGINT", partition_type="DATE", ordering_type="INT", keygen="complex",
        payload=None, index="SIMPLE", metadata=False,
        steps=[("insert", [[10_000_000_000, "s", "2024-01-01", 0, None, None, None]]), ("rollback", [])],
        read_from=0, version=6, meta_fields=False)),
    # A record moving partition under a global index with a lower ordering value than its stored one:
    # Apache Hudi merges it with the stored record first, and the stored row stays. hudi-sql moved it
    # (version 8 MOR: the late row in the new partition; version 6 COW with DefaultHoodieRecordPayload:
    # the key twice). Seed 1139; docs/compatibility.md §31.
    ("global_index_late_partition_move_v8_mor", Scenario(table_type='MERGE_ON_READ', key_type='BIGINT', partition_type='DATE', ordering_type='INT', keygen='complex', payload=None, index='GLOBAL_BLOOM', metadata=True, steps=[('insert', [[10000000000, 's', '2024-01-01', 0, None, None, [0, 'p']], [10000000001, 's', '2024-01-01', 15, None, 0.0, [1, 'p']]]), ('upsert', [[10000000000, 's', '2024-01-01', 40, None, None, [-2, 'p']], [10000000001, 's', '2024-02-29', 0, None, None, None]])], read_from=1, version=8, api='sql', meta_fields=True, cdc=False, read_to=None)),
    ("global_index_late_partition_move_v6_cow", Scenario(table_type='COPY_ON_WRITE', key_type='BIGINT', partition_type='DATE', ordering_type='INT', keygen='complex', payload='DefaultHoodieRecordPayload', index='GLOBAL_BLOOM', metadata=True, steps=[('insert', [[10000000000, 's', '2024-01-01', 0, None, None, [0, 'p']], [10000000001, 's', '2024-01-01', 15, None, 0.0, [1, 'p']]]), ('upsert', [[10000000000, 's', '2024-01-01', 40, None, None, [-2, 'p']], [10000000001, 's', '2024-02-29', 0, None, None, None]])], read_from=1, version=6, api='dataframe', meta_fields=True, cdc=False, read_to=None)),
    # MERGE INTO a version 8 table merging by commit time (its payload OverwriteWithLatestAvroPayload):
    # Apache Hudi 1.2 writes the MERGE's row even when its ordering value is lower than the stored
    # one's; hudi-sql kept the stored row, as version 6's MERGE does (seed 1140).
    ("merge_into_v8_commit_time_ordering_overwrites", Scenario(table_type='COPY_ON_WRITE', key_type='BIGINT', partition_type='DATE', ordering_type='INT', keygen='complex', payload='OverwriteWithLatestAvroPayload', index='BLOOM', metadata=False, steps=[('insert', [[10000000001, 's', '2024-01-01', 0, None, None, None], [10000000000, 's', '2024-01-01', 1, None, None, None]]), ('upsert', [[10000000000, 's', '2024-01-01', 0, None, None, None]])], read_from=0, version=8, api='sql', meta_fields=True, cdc=False, read_to=None)),
    # Time travel to a commit that was rolled back before any other completed: Apache Hudi answers no
    # row (the table existed and had none); hudi-sql refused it as before the table's first commit
    # (seed 1141). Before any instant the timeline knows of, it still refuses.
    ("time_travel_to_a_rolled_back_first_commit_is_empty", Scenario(table_type='COPY_ON_WRITE', key_type='BIGINT', partition_type='DATE', ordering_type='INT', keygen='non_partitioned', payload=None, index='BLOOM', metadata=False, steps=[('insert', [[10000000000, '2024-01-01', 0, None, None, None]]), ('rollback', []), ('upsert', [[10000000000, '2024-01-01', 0, None, None, None]])], read_from=0, version=8, api='dataframe', meta_fields=True, cdc=False, read_to=None)),
    # MERGE INTO moving a matched row to another partition under a partition-scoped index, with a lower
    # ordering value than the stored row's: Apache Hudi 0.15 writes it as a new record in its new
    # partition (the stored row stays); hudi-sql left the row out as a late update (seed 1142).
    ("merge_into_partition_change_under_a_scoped_index_inserts", Scenario(table_type='COPY_ON_WRITE', key_type='BIGINT', partition_type='DATE', ordering_type='INT', keygen='complex', payload=None, index='SIMPLE', metadata=False, steps=[('insert', [[10000000001, 's', '2024-01-01', 1, None, None, None], [10000000002, 's', '2024-01-01', 22, None, None, None]]), ('upsert', [[10000000001, 's', '2024-01-01', 1, None, None, None], [10000000002, 's', '2025-12-31', 2, None, None, None]])], read_from=0, version=6, api='sql', meta_fields=False, cdc=False, read_to=None)),
]


@pytest.fixture(scope="module")
def db(spark: Any) -> Iterator[Any]:
    """Our SQL session; the generated tables' catalog entries live in their own database."""
    with fresh_database(spark, DATABASE) as session:
        yield session


def _oracle_for(request: pytest.FixtureRequest, scenario: Scenario) -> Oracle:
    """Apache Hudi 0.15 for a version 6 table, 1.x for a later one (each started once per session)."""
    return request.getfixturevalue("oracle" if scenario.version == 6 else "oracle_v1")


@settings(deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(scenario=scenarios())
def test_random_tables_and_operations_agree_with_apache_hudi(spark: Any, db: Any, request: pytest.FixtureRequest,
                                                             tmp_path_factory: pytest.TempPathFactory,
                                                             scenario: Scenario) -> None:
    note(f"scenario = {scenario!r}")
    failures = run_scenario(spark, db, _oracle_for(request, scenario), tmp_path_factory.mktemp("generated"), scenario)
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize("scenario", [s for _, s in REGRESSIONS], ids=[name for name, _ in REGRESSIONS])
def test_found_scenarios_agree_with_apache_hudi(spark: Any, db: Any, request: pytest.FixtureRequest, tmp_path: Path,
                                                scenario: Scenario) -> None:
    failures = run_scenario(spark, db, _oracle_for(request, scenario), tmp_path, scenario)
    assert not failures, "\n".join(failures)
