"""The floor: pyarrow rewrites exactly the files a Copy-On-Write upsert must rewrite, and no more.

One Parquet file per day partition (``<root>/<yyyy-mm-dd>/<uuid>.parquet``). A batch writes
its new day as a new file; for a day that already exists, the partition's file is read, the
rows whose keys the batch carries are replaced by the batch's rows, and the result is written
as a new file that replaces the old one. It knows where every key lives without an index and
trusts the workload's promise that updates carry a later ``event_ts``; no timeline, no
metadata, no Spark. The codec is Hudi's default (gzip) unless the run sets one, so that its
bytes are the bytes our COW writer must produce at least.
"""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as ds
import pyarrow.parquet as pq

from bench.checksum import COLUMNS, Checksum, checksum_batches
from bench.systems.base import System
from bench.workload import KEY, PARTITION

if TYPE_CHECKING:
    from collections.abc import Callable

_HUDI_DEFAULT_CODEC = "gzip"


class PyArrowFloor(System):
    name = "pyarrow_floor"
    description = "pyarrow: rewrite only the files holding updated keys (the COW floor)"

    @property
    def codec(self) -> str:
        return self.settings.parquet_codec or _HUDI_DEFAULT_CODEC

    def _write_day(self, day: str, rows: pa.Table) -> None:
        folder = self.path / day
        old = sorted(folder.glob("*.parquet")) if folder.exists() else []
        if old:
            existing = ds.dataset([str(p) for p in old], format="parquet").to_table()
            kept = existing.filter(pc.invert(pc.is_in(existing[KEY], value_set=rows[KEY])))
            rows = pa.concat_tables([kept, rows.select(kept.column_names).cast(kept.schema)])
        folder.mkdir(parents=True, exist_ok=True)
        pq.write_table(rows, folder / f"{uuid.uuid4()}.parquet", compression=self.codec)
        for path in old:
            path.unlink()

    def _apply(self, table: pa.Table) -> int:
        days = pc.unique(table[PARTITION]).to_pylist()
        for day in days:
            self._write_day(day, table.filter(pc.equal(table[PARTITION], day)))
        return len(days)

    def load(self, files: list[Path]) -> dict[str, Any] | None:
        for file in files:
            self._apply(pq.read_table(file))
        return None

    def upsert(self, batch: Path) -> dict[str, Any] | None:
        return {"partitions": self._apply(pq.read_table(batch))}

    def _dataset(self) -> ds.Dataset:
        return ds.dataset(str(self.path), format="parquet")

    def count(self) -> int:
        return int(self._dataset().count_rows())

    def checksum(self) -> Checksum:
        return checksum_batches(self._dataset().to_batches(columns=list(COLUMNS)))

    def scans(self) -> dict[str, Callable[[], None]]:
        return {"snapshot": lambda: self._dataset().to_table()}

    def describe(self) -> dict[str, Any]:
        return {"pyarrow": pa.__version__, "codec": self.codec}


SYSTEM = PyArrowFloor
