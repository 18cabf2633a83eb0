"""Options Apache Hudi defines but hudi-sql does not implement: accepted with one warning;
keys neither knows stay errors with a "did you mean"; our own keys keep their value checks."""

from __future__ import annotations

import logging

import pytest

from hudi_sql.config import HudiConfigs, apache_keys
from hudi_sql.errors import HudiConfigError

RECORD_INDEX = "hoodie.metadata.record.index.enable"


@pytest.fixture
def fresh_warnings(monkeypatch: pytest.MonkeyPatch) -> None:
    """The warn-once memory is per process; each test starts with none warned."""
    monkeypatch.setattr(apache_keys, "_warned", set())


def _not_implemented_warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if "does not implement" in r.getMessage()]


def test_apache_key_record_index_used_twice_accepted_with_one_warning(
    fresh_warnings: None, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING):
        first = HudiConfigs.of({RECORD_INDEX: "true"})
        second = HudiConfigs.of({RECORD_INDEX: True, "hoodie.datasource.write.recordkey.field": "id"})
    assert first.raw() == {RECORD_INDEX: "true"}
    assert second[RECORD_INDEX] == "true"
    assert _not_implemented_warnings(caplog) == [
        f"{RECORD_INDEX} is an Apache Hudi option hudi-sql does not implement; it is ignored"
    ]


def test_apache_key_of_our_registry_not_warned(fresh_warnings: None, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING):
        HudiConfigs.of({"hoodie.metadata.enable": "false"})
    assert _not_implemented_warnings(caplog) == []


def test_apache_key_family_prefix_streamer_key_accepted(fresh_warnings: None) -> None:
    key = "hoodie.streamer.source.kafka.topic"
    assert apache_keys.is_apache_key(key)
    assert HudiConfigs.of({key: "events"})[key] == "events"


def test_apache_key_typo_still_fails_with_did_you_mean() -> None:
    typo = "hoodie.datasource.write.recordkey.feild"
    assert not apache_keys.is_apache_key(typo)
    with pytest.raises(
        HudiConfigError, match=f"Unknown option '{typo}'. Did you mean 'hoodie.datasource.write.recordkey.field'"
    ):
        HudiConfigs.of({typo: "id"})


def test_apache_key_typo_of_unimplemented_key_suggests_apache_key() -> None:
    with pytest.raises(HudiConfigError, match=f"Did you mean '{RECORD_INDEX}'"):
        HudiConfigs.of({"hoodie.metadata.record.index.enabled": "true"})


def test_apache_key_not_validated_by_registry_is_kept_raw_unparsed(fresh_warnings: None) -> None:
    # We do not know Apache Hudi's type of an option we do not implement, so any value passes.
    key = "hoodie.metadata.record.index.max.filegroup.count"
    assert HudiConfigs.of({key: "many"})[key] == "many"


def test_registry_key_we_implement_still_validates_value() -> None:
    with pytest.raises(HudiConfigError, match="hoodie.parquet.max.file.size.*does not parse"):
        HudiConfigs.of({"hoodie.parquet.max.file.size": "big"})


def test_apache_keys_data_file_sorted_unique_hoodie_keys_with_source_header() -> None:
    from importlib import resources

    text = resources.files("hudi_sql.config").joinpath("apache_hudi_keys.txt").read_text()
    lines = text.splitlines()
    header = [line for line in lines if line.startswith("#")]
    entries = [line for line in lines if line and not line.startswith("#")]
    assert any("0.15.0" in line for line in header) and any("1.0" in line for line in header)
    assert entries == sorted(set(entries))
    assert all(entry.startswith("hoodie.") for entry in entries)
    assert RECORD_INDEX in apache_keys.apache_keys()
