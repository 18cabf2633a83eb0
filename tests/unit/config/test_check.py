"""``CALL check_config``'s findings: each kind of option worth a look is named, a clean set of
options gives none."""

from __future__ import annotations

from hudi_sql.config.check import check_options

TABLE = {"hoodie.table.name": "t", "hoodie.table.recordkey.fields": "uuid"}


def _findings(session: dict[str, str], table: dict[str, str] | None = None) -> dict[str, str]:
    return {f"{f.finding}:{f.key}": f.detail for f in check_options({"session": session, "table": table or {}}, TABLE)}


def test_options_hudi_sql_reads_as_given_give_no_finding() -> None:
    assert _findings({"hoodie.cleaner.commits.retained": "3", "hoodie.index.type": "BLOOM"},
                     {"hoodie.datasource.write.recordkey.field": "uuid"}) == {}


def test_an_apache_option_hudi_sql_does_not_implement_is_named_ignored() -> None:
    found = _findings({"hoodie.payload.combined.schema.validate": "true"})
    assert list(found) == ["ignored:hoodie.payload.combined.schema.validate"]
    assert "no effect here" in found["ignored:hoodie.payload.combined.schema.validate"]


def test_an_older_name_is_named_with_the_key_it_is_read_as() -> None:
    found = _findings({"hoodie.deltastreamer.keygen.timebased.timestamp.type": "EPOCHMILLISECONDS"})
    assert "set hoodie.keygen.timebased.timestamp.type instead" in found[
        "renamed:hoodie.deltastreamer.keygen.timebased.timestamp.type"]


def test_a_key_an_apache_release_dropped_says_an_upgrade_ignores_it() -> None:
    found = _findings({"hoodie.clustering.preserve.commit.metadata": "true"})
    assert "declared by Apache Hudi 0.10.0 to 0.13.1" in found[
        "dropped by Apache Hudi:hoodie.clustering.preserve.commit.metadata"]


def test_unknown_keys_invalid_values_and_contradictions_are_each_named() -> None:
    found = _findings({"hoodie.cleaner.commits.retaind": "3", "hoodie.index.type": "BLOOMX",
                       "hoodie.datasource.write.recordkey.field": "id"},
                      {"hoodie.metadata.enable": "false", "hoodie.metadata.index.column.stats.enable": "true"})
    assert "Did you mean 'hoodie.cleaner.commits.retained'?" in found["unknown:hoodie.cleaner.commits.retaind"]
    assert "'BLOOMX' is not an index type" in found["invalid:hoodie.index.type"]
    contradictions = [f.detail for f in check_options({"session": {"hoodie.datasource.write.recordkey.field": "id"},
                                                       "table": {"hoodie.metadata.enable": "false",
                                                                 "hoodie.metadata.index.column.stats.enable": "true"}},
                                                      TABLE) if f.finding == "contradiction"]
    assert len(contradictions) == 2, "each contradiction shows, not only the first"
    assert any("needs the metadata table" in d for d in contradictions)
    assert any("has record key uuid" in d for d in contradictions)


V6_WITH_ORDERING = {**TABLE, "hoodie.table.precombine.field": "ts", "hoodie.table.type": "COPY_ON_WRITE"}


def _upgrade_changes(table: dict[str, str], session: dict[str, str] | None = None) -> dict[str, str]:
    return {f.key: f.detail for f in check_options({"session": session or {}}, table) if f.finding == "changes on upgrade"}


def test_insert_into_on_a_version_6_table_with_an_ordering_field_changes_from_upsert_to_insert() -> None:
    changes = _upgrade_changes(V6_WITH_ORDERING)
    assert "1.0 and later run it as an insert" in changes["hoodie.spark.sql.insert.into.operation"]
    pinned = _upgrade_changes(V6_WITH_ORDERING, {"hoodie.spark.sql.insert.into.operation": "upsert"})
    assert "hoodie.spark.sql.insert.into.operation" not in pinned, "an explicit operation keeps its behaviour"
    assert "hoodie.spark.sql.insert.into.operation" not in _upgrade_changes({**V6_WITH_ORDERING,
                                                                            "hoodie.table.version": "8"})


def test_the_merge_mode_an_upgrade_records_is_named_with_what_it_changes() -> None:
    cow = _upgrade_changes(V6_WITH_ORDERING)["hoodie.record.merge.mode"]
    assert "COMMIT_TIME_ORDERING" in cow and "arrived last" in cow
    mor = _upgrade_changes({**V6_WITH_ORDERING, "hoodie.table.type": "MERGE_ON_READ"})["hoodie.record.merge.mode"]
    assert "EVENT_TIME_ORDERING" in mor and "no longer replaces it" in mor
    event_time = {**V6_WITH_ORDERING, "hoodie.compaction.payload.class":
                  "org.apache.hudi.common.model.DefaultHoodieRecordPayload"}
    assert "hoodie.record.merge.mode" not in _upgrade_changes(event_time), "event time before and after"


def test_incremental_begin_time_is_named_for_version_8_tables_and_version_6_incremental_readers() -> None:
    v8 = _upgrade_changes({**TABLE, "hoodie.table.version": "8"})
    assert "inclusive in Apache Hudi 1.0 and as exclusive in 1.1" in v8["hoodie.datasource.read.begin.instanttime"]
    assert "hoodie.datasource.read.begin.instanttime" not in _upgrade_changes(TABLE)
    v6_reader = _upgrade_changes(TABLE, {"hoodie.datasource.query.type": "incremental"})
    assert "requested instant times" in v6_reader["hoodie.datasource.read.begin.instanttime"]


def test_a_single_field_complex_key_stored_as_bare_values_names_the_encoding_apache_hudi_1_1_changes() -> None:
    complex_key = {**TABLE, "hoodie.table.keygenerator.class": "org.apache.hudi.keygen.ComplexKeyGenerator"}
    detail = _upgrade_changes(complex_key)["hoodie.write.complex.keygen.new.encoding"]
    assert "version 6 writes by default bare values" in detail and "uuid:1 unless" in detail
    prefixed = [f for f in check_options({}, complex_key, stored_keys_value_only=False)
                if f.finding == "changes on upgrade"]
    assert prefixed == [], "keys stored as uuid:1 are what Apache Hudi 1.1+ writes"
    assert "hoodie.write.complex.keygen.new.encoding" not in _upgrade_changes(
        {**complex_key, "hoodie.table.version": "8"}), "version 8 writes uuid:1 by default"
    two_fields = {**complex_key, "hoodie.table.recordkey.fields": "uuid,region"}
    assert "hoodie.write.complex.keygen.new.encoding" not in _upgrade_changes(two_fields)


def test_a_table_without_an_ordering_field_or_single_field_complex_key_has_nothing_an_upgrade_changes() -> None:
    assert _upgrade_changes(TABLE) == {}


def test_the_older_record_index_key_is_named_with_apache_hudis_newer_name() -> None:
    found = _findings({"hoodie.metadata.record.index.enable": "true"})
    assert "hoodie.metadata.global.record.level.index.enable" in found["ignored:hoodie.metadata.record.index.enable"]


def test_an_option_accepted_for_apache_jobs_but_without_effect_is_named_ignored() -> None:
    found = _findings({"hoodie.upsert.shuffle.parallelism": "200"})
    assert "has no effect here" in found["ignored:hoodie.upsert.shuffle.parallelism"]
