"""Paths from data never leave the table folder (issue 15, item 3)."""

from __future__ import annotations

from pathlib import Path

import pytest

from hudi_sql.errors import PathOutsideTableError
from hudi_sql.storage.guard import check_partition_path, inside_base
from hudi_sql.storage.layout import TableLayout

ESCAPES = ["../escaped", "a/../../x", "/abs", "..", "a/./b", "a//b", "./a"]


@pytest.mark.parametrize("value", ESCAPES)
def test_check_partition_path_escaping_value_raises_naming_it(value: str) -> None:
    with pytest.raises(PathOutsideTableError, match=f"'{value}'"):
        check_partition_path(value)


@pytest.mark.parametrize("value", ["", "x", "2024/01/02", "p=a b", "dt=2024-01-01/h=..5", "%2E%2E", "a..b"])
def test_check_partition_path_plain_value_passes(value: str) -> None:
    assert check_partition_path(value) == value


@pytest.mark.parametrize("value", ESCAPES)
def test_layout_partition_dir_escaping_value_raises(tmp_path: Path, value: str) -> None:
    layout = TableLayout.of(str(tmp_path / "t"))
    with pytest.raises(PathOutsideTableError):
        layout.file_path(value, "f.parquet")


@pytest.mark.parametrize("name", ["../victim.parquet", "a/../../victim.parquet", "/etc/passwd", ".."])
def test_layout_file_path_escaping_name_raises(tmp_path: Path, name: str) -> None:
    layout = TableLayout.of(str(tmp_path / "t"))
    with pytest.raises(PathOutsideTableError):
        layout.file_path("", name)


def test_layout_file_path_relative_stat_path_stays_inside(tmp_path: Path) -> None:
    layout = TableLayout.of(str(tmp_path / "t"))
    assert layout.file_path("", "p/x.parquet") == str(tmp_path / "t" / "p" / "x.parquet")
    assert layout.file_path("p", "x.parquet") == str(tmp_path / "t" / "p" / "x.parquet")


@pytest.mark.parametrize("path", ["{b}", "{b}/../other", "{b}x/y", "/"])
def test_inside_base_outside_path_raises(tmp_path: Path, path: str) -> None:
    base = str(tmp_path / "t")
    with pytest.raises(PathOutsideTableError):
        inside_base(base, path.format(b=base))
