"""Which bootstrap mode each source partition gets, by Apache Hudi's selector classes."""

from __future__ import annotations

from pathlib import Path

import pytest

from hudi_sql.config import BootstrapMode
from hudi_sql.config.resolve import Resolved
from hudi_sql.config.scoped import BootstrapConfig
from hudi_sql.engine.bootstrap import hive_style_partitioning, partition_modes, source_partitions
from hudi_sql.errors import HudiConfigError, UnsupportedFeatureError
from hudi_sql.storage.fs import Storage

SELECTORS = "org.apache.hudi.client.bootstrap.selector."
PARTITIONS = ["dt=2024-01-01", "dt=2024-01-02", "dt=2024-02-01"]


def test_the_full_record_and_metadata_only_selectors_give_every_partition_their_mode() -> None:
    configs = BootstrapConfig()
    assert set(partition_modes(PARTITIONS, SELECTORS + "FullRecordBootstrapModeSelector", configs).values()) == {
        BootstrapMode.FULL_RECORD}
    assert set(partition_modes(PARTITIONS, "MetadataOnlyBootstrapModeSelector", configs).values()) == {
        BootstrapMode.METADATA_ONLY}


def test_the_regex_selector_gives_matching_partitions_the_regex_mode_and_the_rest_the_other() -> None:
    configs = Resolved.of({"hoodie.bootstrap.mode.selector.regex": "dt=2024-01-.*",
                           "hoodie.bootstrap.mode.selector.regex.mode": "full_record"}).bootstrap
    assert partition_modes(PARTITIONS, SELECTORS + "BootstrapRegexModeSelector", configs) == {
        "dt=2024-01-01": BootstrapMode.FULL_RECORD, "dt=2024-01-02": BootstrapMode.FULL_RECORD,
        "dt=2024-02-01": BootstrapMode.METADATA_ONLY}
    by_default = partition_modes(PARTITIONS, SELECTORS + "BootstrapRegexModeSelector", BootstrapConfig())
    assert set(by_default.values()) == {BootstrapMode.METADATA_ONLY}, "regex .* and mode METADATA_ONLY by default"


def test_unknown_selectors_and_bad_regexes_are_refused_by_name() -> None:
    with pytest.raises(UnsupportedFeatureError, match="com.example.MySelector"):
        partition_modes(PARTITIONS, "com.example.MySelector", BootstrapConfig())
    with pytest.raises(HudiConfigError, match="not a regular expression"):
        partition_modes(PARTITIONS, "BootstrapRegexModeSelector",
                        Resolved.of({"hoodie.bootstrap.mode.selector.regex": "dt=("}).bootstrap)


def test_source_partitions_are_the_folders_holding_parquet_files(tmp_path: Path) -> None:
    for folder in ("dt=1/h=0", "dt=1/h=1", "dt=2/h=0"):
        (tmp_path / folder).mkdir(parents=True)
        (tmp_path / folder / "part-0.parquet").write_bytes(b"PAR1")
    (tmp_path / "_SUCCESS").write_bytes(b"")
    (tmp_path / "dt=2/h=0/.part-0.parquet.crc").write_bytes(b"")
    (tmp_path / "_temporary/0").mkdir(parents=True)
    (tmp_path / "_temporary/0/part-9.parquet").write_bytes(b"PAR1")
    assert source_partitions(Storage(), str(tmp_path)) == ["dt=1/h=0", "dt=1/h=1", "dt=2/h=0"]
    (tmp_path / "empty").mkdir()
    with pytest.raises(HudiConfigError, match="holds no Parquet files"):
        source_partitions(Storage(), str(tmp_path / "empty"))


def test_a_base_path_holding_other_files_is_refused_before_anything_is_read(tmp_path: Path) -> None:
    """A failed bootstrap removes its base path whole: it may only be a new or empty folder."""
    from hudi_sql.config import TableType
    from hudi_sql.engine.bootstrap import BootstrapRequest, run_bootstrap

    source, base = tmp_path / "source" / "dt=1", tmp_path / "base"
    source.mkdir(parents=True)
    (source / "part-0.parquet").write_bytes(b"PAR1")
    base.mkdir()
    (base / "notes.txt").write_text("mine")
    request = BootstrapRequest("t", TableType.COPY_ON_WRITE, str(tmp_path / "source"), str(base), "id",
                               selector_class=SELECTORS + "FullRecordBootstrapModeSelector")
    with pytest.raises(HudiConfigError, match="holds files and no Hudi table"):
        run_bootstrap(None, request)  # type: ignore[arg-type]  # refused before Spark is needed
    assert (base / "notes.txt").read_text() == "mine"


def test_hive_style_partitioning_is_recorded_when_skeletons_sit_in_field_value_folders() -> None:
    assert hive_style_partitioning(["dt=2024-01-01", "dt=2024-01-02"], "dt", {}) is True
    assert hive_style_partitioning(["y=2024/m=01"], "y,m", {}) is True
    assert hive_style_partitioning(["2024-01-01"], "dt", {}) is False, "plain folders: keys compute them as they are"
    assert hive_style_partitioning(["m=01/y=2024"], "y,m", {}) is False, "fields out of order"
    assert hive_style_partitioning(["dt=2024-01-01"], "dt", {"hoodie.datasource.write.hive_style_partitioning":
                                                              "false"}) is None, "the options' choice stands"
    assert hive_style_partitioning([], "dt", {}) is None, "full-record only: the writer's default"
