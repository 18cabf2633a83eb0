"""The expected final table, from the inputs alone: every key's row with the latest ``event_ts``.

Independent of every system under test: it reads the generated Parquet files with pyarrow,
sorts by (key, event_ts descending) and keeps the first row of each key.
"""

from __future__ import annotations

__all__ = ["expected_checksum"]

from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as ds

from bench.checksum import COLUMNS, Checksum, checksum_batches
from bench.workload import KEY, ORDERING


def expected_checksum(files: list[Path]) -> Checksum:
    rows = ds.dataset([str(f) for f in files], format="parquet").to_table(columns=list(COLUMNS))
    rows = rows.sort_by([(KEY, "ascending"), (ORDERING, "descending")]).combine_chunks()
    keys = rows[KEY]
    first = pa.concat_arrays([pa.array([True]), pc.not_equal(keys[1:], keys[:-1]).combine_chunks()])
    return checksum_batches([rows.filter(first)])
