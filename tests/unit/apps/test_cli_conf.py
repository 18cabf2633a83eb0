"""``hudi-sql --conf hoodie.*=...`` is validated at start-up, before any Spark session starts,
the way ``SET`` validates: unknown keys and bad values end start-up as usage errors."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from hudi_sql.apps.cli import main
from hudi_sql.apps.conf import split_conf, state_dir_for

#: Stands in for the Spark session: reaching it means validation let the option through (the
#: shell would then fail on it with an AttributeError, never with the usage error expected).
NO_SPARK = object()


def _start(capsys: pytest.CaptureFixture[str], *conf: str) -> tuple[int, str]:
    argv = [arg for item in conf for arg in ("--conf", item)] + ["-e", "SELECT 1"]
    with pytest.raises(SystemExit) as stop:
        main(argv, spark=NO_SPARK)  # type: ignore[arg-type]
    return int(stop.value.code or 0), capsys.readouterr().err


def test_cli_conf_unknown_hoodie_key_fails_startup_with_did_you_mean(capsys: pytest.CaptureFixture[str]) -> None:
    status, err = _start(capsys, "hoodie.datasource.write.recordkey.feild=id")
    assert status == 2
    assert "Unknown option 'hoodie.datasource.write.recordkey.feild'" in err
    assert "Did you mean 'hoodie.datasource.write.recordkey.field'?" in err


def test_cli_conf_bad_value_of_known_key_fails_startup(capsys: pytest.CaptureFixture[str]) -> None:
    status, err = _start(capsys, "hoodie.parquet.max.file.size=big")
    assert status == 2
    assert "hoodie.parquet.max.file.size" in err and "'big'" in err


def test_split_conf_apache_key_accepted_as_session_option() -> None:
    spark_conf, options = split_conf(
        ["hoodie.metadata.record.index.enable=true", "spark.sql.shuffle.partitions=2"],
        argparse.ArgumentParser(prog="hudi-sql"),
    )
    assert options == {"hoodie.metadata.record.index.enable": "true"}
    assert spark_conf == {"spark.sql.shuffle.partitions": "2"}


def test_a_warehouse_keeps_its_catalog_beside_it_for_the_shell_and_the_report(tmp_path: Path) -> None:
    """``hudi-sql report name --warehouse DIR`` looks the name up where ``hudi-sql --warehouse DIR``
    created it: one rule for both."""
    assert state_dir_for(None, str(tmp_path)) == str(tmp_path / ".hudi-sql")
    assert state_dir_for("/elsewhere", str(tmp_path)) == "/elsewhere"
    assert state_dir_for(None, "s3a://bucket/warehouse") is None  # a bucket holds no Derby metastore
    assert state_dir_for(None, None) is None
