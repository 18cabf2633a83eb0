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
