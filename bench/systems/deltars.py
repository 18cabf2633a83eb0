"""The delta-rs peer: a Delta table partitioned by day, upserted with ``DeltaTable.merge``.

Needs the optional ``deltalake`` package (``pip install 'hudi-sql[bench]'``); without it the
system is reported as skipped.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow.dataset as ds
import pyarrow.parquet as pq

from bench.checksum import COLUMNS, Checksum, checksum_batches
from bench.systems.base import System, SystemUnavailable
from bench.workload import KEY, ORDERING, PARTITION

try:
    import deltalake
    from deltalake import DeltaTable, WriterProperties, write_deltalake
except ImportError as exc:  # an optional extra
    raise SystemUnavailable(f"deltalake is not installed ({exc}); pip install 'hudi-sql[bench]'") from exc

if TYPE_CHECKING:
    from collections.abc import Callable


class DeltaRs(System):
    name = "deltars"
    description = "delta-rs DeltaTable.merge (partitioned by day), latest event_ts wins"

    def _writer_properties(self) -> WriterProperties | None:
        codec = self.settings.parquet_codec
        return WriterProperties(compression=codec.upper()) if codec else None

    def load(self, files: list[Path]) -> dict[str, Any] | None:
        reader = ds.dataset([str(f) for f in files], format="parquet").scanner().to_reader()
        write_deltalake(
            str(self.path),
            reader,
            partition_by=[PARTITION],
            mode="overwrite",
            writer_properties=self._writer_properties(),
        )
        return None

    def upsert(self, batch: Path) -> dict[str, Any] | None:
        source = pq.read_table(batch)
        metrics = (
            DeltaTable(str(self.path))
            .merge(
                source,
                predicate=f"t.{KEY} = s.{KEY} AND t.{PARTITION} = s.{PARTITION}",
                source_alias="s",
                target_alias="t",
                writer_properties=self._writer_properties(),
            )
            .when_matched_update_all(predicate=f"s.{ORDERING} > t.{ORDERING}")
            .when_not_matched_insert_all()
            .execute()
        )
        return {k: v for k, v in metrics.items() if isinstance(v, int | float | str)}

    def _dataset(self) -> ds.Dataset:
        return DeltaTable(str(self.path)).to_pyarrow_dataset()

    def count(self) -> int:
        return int(self._dataset().count_rows())

    def checksum(self) -> Checksum:
        return checksum_batches(self._dataset().to_batches(columns=list(COLUMNS)))

    def scans(self) -> dict[str, Callable[[], None]]:
        return {"snapshot": lambda: DeltaTable(str(self.path)).to_pyarrow_table()}

    def describe(self) -> dict[str, Any]:
        return {"deltalake": deltalake.__version__}


SYSTEM = DeltaRs
