"""Options Apache Hudi defines (in any release from 0.10 to 1.2) but hudi-sql does not implement:
accepted with one warning saying what they do here; keys neither knows stay errors with a "did you
mean"; our own keys keep their value checks."""

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
        (f"{RECORD_INDEX} is an Apache Hudi option hudi-sql does not implement; it is ignored "
         "(Apache Hudi now names it hoodie.metadata.global.record.level.index.enable)")
    ]


def test_apache_key_of_older_releases_only_accepted_naming_the_releases_that_had_it(
    fresh_warnings: None, caplog: pytest.LogCaptureFixture
) -> None:
    # Declared from 0.10 to 0.15 and dropped in 1.0: older scripts still carry it.
    key = "hoodie.assume.date.partitioning"
    with caplog.at_level(logging.WARNING):
        assert HudiConfigs.of({key: "false"})[key] == "false"
    assert _not_implemented_warnings(caplog) == [
        f"{key} is an option of Apache Hudi 0.10.0 to 0.15.0 hudi-sql does not implement; it is ignored"
    ]


def test_apache_key_read_by_apache_hudi_sql_without_a_declaration_accepted(fresh_warnings: None) -> None:
    # A string constant of Apache Hudi's SQL layer that its own SQL tests SET, not a ConfigProperty.
    key = "hoodie.payload.combined.schema.validate"
    assert apache_keys.is_apache_key(key)
    assert HudiConfigs.of({key: "true"})[key] == "true"


def test_apache_key_older_name_of_a_key_we_implement_is_read_as_that_key(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    older = "hoodie.parquet.max.file.size.bytes.old"
    monkeypatch.setattr(apache_keys, "renames", lambda: {older: "hoodie.parquet.max.file.size"})
    with caplog.at_level(logging.WARNING):
        configs = HudiConfigs.of({older: "1024"})
    assert configs.raw() == {"hoodie.parquet.max.file.size": "1024"}
    assert f"Option '{older}' is deprecated; use 'hoodie.parquet.max.file.size'." in caplog.messages


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


def test_apache_keys_data_file_sorted_unique_hoodie_keys_with_release_ranges_from_0_10_to_1_2() -> None:
    from importlib import resources

    text = resources.files("hudi_sql.config").joinpath("apache_hudi_keys.txt").read_text()
    lines = text.splitlines()
    header = " ".join(line for line in lines if line.startswith("#"))
    entries = [line.split() for line in lines if line and not line.startswith("#")]
    assert all(release in header for release in ("0.10.0", "0.14.1", "0.15.0", "1.0.2", "1.2.0"))
    assert [e[0] for e in entries] == sorted({e[0] for e in entries})
    assert all(e[0].startswith("hoodie.") for e in entries)
    keys = [e for e in entries if not e[0].endswith(".")]
    assert all(len(e) in (2, 4) and (len(e) == 2 or e[2] == "->") for e in keys)
    assert apache_keys.apache_key(RECORD_INDEX) == apache_keys.ApacheKey(
        RECORD_INDEX, "0.14.0", "1.2.0", "hoodie.metadata.global.record.level.index.enable")
