"""Encoding and decoding one Avro log block both ways: column-wise, and record by record.

    python -m bench.avro_blocks [--rows 200000]

Generates ``--rows`` rows of the bench's workload (one day of ``bench.generate``, nothing
written to disk), adds the five meta columns as a MOR append does, and times
:func:`hudi_sql.log.format.encode_avro_data_content` on the Arrow table (column-wise) and on
its rows as dicts (``fastavro``), then the reader's two decoders on the result. Checks that
both ways give the same bytes and the same rows. A diagnostic, one run on one machine.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import Any

import pyarrow as pa

from bench.generate import day_rows
from bench.workload import SCALES

_META = ("_hoodie_commit_time", "_hoodie_commit_seqno", "_hoodie_record_key", "_hoodie_partition_path",
         "_hoodie_file_name")


def _rows(rows: int) -> pa.Table:
    day = day_rows(SCALES["small"].with_overrides(rows_per_day=rows), 0)
    meta = {name: pa.array([f"{name[8:]}-{i}" for i in range(day.num_rows)]) for name in _META}
    table = pa.table({**meta, **{name: day.column(name) for name in day.column_names}})
    utc = [pa.field(f.name, pa.timestamp("us", tz="UTC") if pa.types.is_timestamp(f.type) else f.type)
           for f in table.schema]
    return table.cast(pa.schema(utc))


def _timed(action: Callable[[], Any]) -> tuple[Any, float]:
    start = time.perf_counter()
    result = action()
    return result, time.perf_counter() - start


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="python -m bench.avro_blocks", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--rows", type=int, default=200_000)
    args = p.parse_args(argv)

    from pyspark.sql.pandas.types import from_arrow_schema

    from hudi_sql.log.avro_arrow import avro_records_to_arrow
    from hudi_sql.log.format import encode_avro_data_content
    from hudi_sql.log.reader import _decode_avro_columns, _decode_avro_records
    from hudi_sql.spark.schema import avro_schema_json

    table = _rows(args.rows)
    data = table.drop_columns(list(_META))
    schema = avro_schema_json(from_arrow_schema(data.schema), "drones", with_meta_fields=True)
    by_column, encode_columns_s = _timed(lambda: encode_avro_data_content(schema, table))
    by_record, encode_records_s = _timed(lambda: encode_avro_data_content(schema, table.to_pylist()))
    decoded_columns, decode_columns_s = _timed(lambda: _decode_avro_columns(by_column, schema))
    decoded_records, decode_records_s = _timed(
        lambda: avro_records_to_arrow(_decode_avro_records(by_column, schema, "bench block"), schema))
    assert by_column == by_record, "the two encoders differ"
    assert decoded_columns is not None and decoded_columns.equals(decoded_records), "the two decoders differ"
    print(f"{table.num_rows:,} rows x {table.num_columns} columns, block content {len(by_column) / 2**20:.1f} MB")
    print("| step | column-wise s | record by record s | ratio |")
    print("| --- | --- | --- | --- |")
    for step, columns, records in (("encode", encode_columns_s, encode_records_s),
                                   ("decode", decode_columns_s, decode_records_s)):
        print(f"| {step} | {columns:.2f} | {records:.2f} | {records / columns:.1f}× |")


if __name__ == "__main__":
    main()
