"""Glob read paths (``load(base + "/*/*")``): which table, and which of its partitions."""

from __future__ import annotations

from pathlib import Path

import pytest

from hudi_sql.errors import HudiConfigError
from hudi_sql.read.glob import has_glob, resolve_glob


def _table(root: Path) -> Path:
    (root / ".hoodie").mkdir(parents=True)
    (root / ".hoodie" / "hoodie.properties").write_text("hoodie.table.name=t\n")
    return root


def test_has_glob_sees_hadoop_glob_characters() -> None:
    assert [has_glob(p) for p in ("/t/*/*", "/t/a?", "/t/[ab]", "/t/{a,b}", "/t/city=sf")] == [
        True, True, True, True, False]


def test_resolve_glob_finds_the_table_above_the_first_glob_component(tmp_path: Path) -> None:
    base = _table(tmp_path / "warehouse" / "trips")
    read = resolve_glob(f"{base}/*/*")
    assert read.base_path == str(base)
    assert read.pattern == ("*", "*")


def test_glob_one_level_per_partition_plus_files_keeps_every_partition(tmp_path: Path) -> None:
    read = resolve_glob(f"{_table(tmp_path / 't')}/*/*")
    assert [read.keeps(p) for p in ("sf", "nyc", "city=la")] == [True, True, True]
    assert not read.keeps("us/sf/2024")  # three levels deep: the glob does not reach it


def test_glob_names_partitions_by_pattern(tmp_path: Path) -> None:
    read = resolve_glob(f"{_table(tmp_path / 't')}/region=us/*/*.parquet")
    assert read.keeps("region=us/city=sf")
    assert not read.keeps("region=eu/city=sf")


def test_glob_over_a_non_partitioned_table_keeps_its_only_partition(tmp_path: Path) -> None:
    assert resolve_glob(f"{_table(tmp_path / 't')}/*").keeps("")


def test_glob_without_a_table_above_it_names_the_path(tmp_path: Path) -> None:
    with pytest.raises(HudiConfigError, match=r"No Hudi table holds the glob path .*/nothing/\*"):
        resolve_glob(f"{tmp_path}/nothing/*")


def test_glob_brace_alternation_is_refused_not_misread(tmp_path: Path) -> None:
    read = resolve_glob(f"{_table(tmp_path / 't')}/{{sf,la}}/*")
    with pytest.raises(HudiConfigError, match="alternation"):
        read.keeps("sf")
