"""What every system implements, and the settings a run passes to it."""

from __future__ import annotations

__all__ = ["Context", "Settings", "System", "SystemUnavailable"]

import os
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from bench.checksum import Checksum
from bench.memory import python_peak_mb, reset_peak


class SystemUnavailable(Exception):
    """The system cannot run here (a missing optional package, an index the engine lacks): skipped."""


@dataclass(frozen=True)
class Settings:
    """Knobs shared by all systems of a run (``None``: each system's own default)."""

    master: str = "local[2]"
    driver_memory: str = "2g"
    shuffle_partitions: int | None = None
    parquet_codec: str | None = None
    bucket_num: int | None = None
    bloom_fallback: bool = False  # use the SIMPLE index when the engine has no BLOOM index yet
    extra: dict[str, str] = field(default_factory=dict)  # further hoodie.* options for our systems

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Settings:
        return cls(**data)


@dataclass(frozen=True)
class Context:
    table_dir: Path  # the system's table; it does not exist when the system starts
    state_dir: Path  # scratch space (Spark metastore, temp files), never measured
    settings: Settings


class System(ABC):
    """One way of keeping the telemetry table up to date.

    The worker calls ``open``, ``load`` (the initial days), ``upsert`` once per batch (timed,
    with the table folder listed before and after), ``count`` after each batch (untimed),
    then the ``scans`` (timed reads of the final table) and ``checksum``, and ``close``.
    """

    name: ClassVar[str]
    description: ClassVar[str]

    def __init__(self, context: Context) -> None:
        self.context = context
        self.notes: list[str] = []

    @property
    def path(self) -> Path:
        return self.context.table_dir

    @property
    def settings(self) -> Settings:
        return self.context.settings

    def open(self) -> None:
        """Start what the system needs (a Spark session)."""

    def close(self) -> None:
        """Stop everything ``open`` started."""

    @abstractmethod
    def load(self, files: list[Path]) -> dict[str, Any] | None:
        """Create the table from the initial days; may return what the engine reported."""

    @abstractmethod
    def upsert(self, batch: Path) -> dict[str, Any] | None:
        """Apply one batch (inserts and updates, latest ``event_ts`` wins)."""

    @abstractmethod
    def count(self) -> int:
        """Rows in the table now."""

    @abstractmethod
    def checksum(self) -> Checksum:
        """:mod:`bench.checksum` of the table's rows."""

    def scans(self) -> dict[str, Callable[[], None]]:
        """Named full reads of the final table, each materialising every column."""
        return {}

    def memory(self) -> dict[str, float | None]:
        return {"python_peak_mb": python_peak_mb()}

    def reset_memory_peaks(self) -> None:
        """Forget the peaks so far (the initial load's), so :meth:`memory` reports what follows."""
        reset_peak(os.getpid())

    def describe(self) -> dict[str, Any]:
        """What the system ran with (options, versions), for the results file."""
        return {}
