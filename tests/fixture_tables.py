"""Typed handles on the tables Apache Hudi wrote, in ``../shared/fixtures`` (or ``$HUDI_FIXTURES``).

Each archive is unzipped once per test session into a temporary folder. Tests that need the
fixtures call :func:`require_fixtures` (or use a member's :meth:`SampleTable.path`), which
skips with a clear message when the folder is absent, as in a fresh clone.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import zipfile
from enum import Enum
from pathlib import Path

import pytest

_PROJECT_ROOT = Path(__file__).resolve().parent.parent
_cache_dir: Path | None = None


def fixtures_root() -> Path | None:
    """The fixtures folder, or ``None`` when neither ``$HUDI_FIXTURES`` nor ../shared/fixtures exists."""
    env = os.environ.get("HUDI_FIXTURES")
    candidates = [Path(env)] if env else []
    candidates.append(_PROJECT_ROOT.parent / "shared" / "fixtures")
    for candidate in candidates:
        if (candidate / "hudi-tables").is_dir():
            return candidate
    return None


def require_fixtures() -> Path:
    root = fixtures_root()
    if root is None:
        pytest.skip(
            "Apache Hudi fixture tables not found: set HUDI_FIXTURES or place shared/fixtures beside the project"
        )
    return root


def _cache() -> Path:
    global _cache_dir
    if _cache_dir is None:
        _cache_dir = Path(tempfile.mkdtemp(prefix="hudi-fixtures-"))
    return _cache_dir


def cleanup_cache() -> None:
    global _cache_dir
    if _cache_dir is not None:
        shutil.rmtree(_cache_dir, ignore_errors=True)
        _cache_dir = None


class SampleTable(Enum):
    """A table written by Apache Hudi 0.14 (table version 6), next to the SQL that made it."""

    COW_COMPLEXKEYGEN_HIVESTYLE = "sample_table/cow/v6_complexkeygen_hivestyle"
    COW_EMPTY = "sample_table/cow/v6_empty"
    COW_NONPARTITIONED = "sample_table/cow/v6_nonpartitioned"
    COW_SIMPLEKEYGEN_HIVESTYLE_NO_METAFIELDS = "sample_table/cow/v6_simplekeygen_hivestyle_no_metafields"
    COW_SIMPLEKEYGEN_NONHIVESTYLE = "sample_table/cow/v6_simplekeygen_nonhivestyle"
    MOR_PARQUET_EMPTY = "sample_table/mor/parquet/v6_empty"
    MOR_PARQUET_NONPARTITIONED = "sample_table/mor/parquet/v6_nonpartitioned"
    MOR_PARQUET_SIMPLEKEYGEN_NONHIVESTYLE = "sample_table/mor/parquet/v6_simplekeygen_nonhivestyle"
    MOR_AVRO_TRIPS_8I1U = "quickstart_trips_table/mor/avro/v6_trips_8i1u"

    @property
    def table_name(self) -> str:
        return self.value.rsplit("/", 1)[1]

    @property
    def is_cow(self) -> bool:
        return "/cow/" in self.value

    def sql_file(self) -> Path:
        return require_fixtures() / "hudi-tables" / f"{self.value}.sql"

    def path(self) -> Path:
        """The unzipped table's base path (unzipped once per session; skips without fixtures)."""
        archive = require_fixtures() / "hudi-tables" / f"{self.value}.zip"
        target = _cache() / self.value.replace("/", "__")
        if not target.exists():
            target.mkdir(parents=True)
            with zipfile.ZipFile(archive) as zf:
                members = [m for m in zf.namelist() if not m.startswith("__MACOSX/")]
                zf.extractall(target, members)
        return target / self.table_name

    @classmethod
    def cow_tables(cls) -> list[SampleTable]:
        return [t for t in cls if t.is_cow]

    @classmethod
    def mor_tables(cls) -> list[SampleTable]:
        return [t for t in cls if not t.is_cow]


def log_file_fixture(name: str) -> Path:
    """A single real log file folder under ``log-files/`` (``valid_log_avro_data``, ``valid_log_delete``)."""
    return require_fixtures() / "log-files" / name
