"""Instant file names of timeline layout 2 (table version 8) next to layout 1 (version 6)."""

from __future__ import annotations

import pytest

from hudi_sql.model.instant import Action, Instant, State
from hudi_sql.model.log_slicing import log_slice_instant
from hudi_sql.model.timeline import Timeline

REQ, DONE = "20250713011315930", "20250713011316231"


def test_parse_file_name_layout2_completed_carries_completion_time() -> None:
    instant = Instant.parse_file_name(f"{REQ}_{DONE}.deltacommit", layout=2)
    assert instant == Instant(REQ, Action.DELTA_COMMIT, State.COMPLETED)
    assert instant is not None and instant.completion_time == DONE
    assert instant.file_name == f"{REQ}_{DONE}.deltacommit"


@pytest.mark.parametrize(("name", "expected"), [
    (f"{REQ}.commit.requested", Instant(REQ, Action.COMMIT, State.REQUESTED)),
    (f"{REQ}.inflight", Instant(REQ, Action.COMMIT, State.INFLIGHT)),
    (f"{REQ}.clustering.inflight", Instant(REQ, Action.CLUSTERING, State.INFLIGHT)),
    (f"{REQ}.commit", Instant(REQ, Action.COMMIT)),  # a legacy name an upgrade kept
])
def test_parse_file_name_layout2_pending_and_legacy_names_parse(name: str, expected: Instant) -> None:
    parsed = Instant.parse_file_name(name, layout=2)
    assert parsed == expected and parsed is not None and parsed.completion_time is None
    assert parsed.file_name == name


@pytest.mark.parametrize("name", [f"{REQ}_{DONE}.commit", f"{REQ}.clustering.requested"])
def test_parse_file_name_layout1_rejects_layout2_names(name: str) -> None:
    assert Instant.parse_file_name(name) is None


@pytest.mark.parametrize("name", [f"{REQ}_{DONE}.compaction", f"{REQ}_{DONE}.clustering", "history",
                                  f"{REQ}_{DONE}.commit.requested"])
def test_parse_file_name_layout2_non_instants_are_none(name: str) -> None:
    assert Instant.parse_file_name(name, layout=2) is None


def test_instant_identity_ignores_completion_time() -> None:
    listed = Instant(REQ, Action.COMMIT, State.COMPLETED, DONE)
    assert listed == Instant(REQ, Action.COMMIT) and hash(listed) == hash(Instant(REQ, Action.COMMIT))
    assert Timeline.of([listed]).find(REQ, Action.COMMIT) is listed


def _timeline(*instants: tuple[str, str, str | None]) -> Timeline:
    out = []
    for requested, action, completion in instants:
        if completion is None:
            out.append(Instant(requested, Action(action), State.INFLIGHT))
        else:
            out.append(Instant(requested, Action(action), State.COMPLETED, completion))
    return Timeline.of(out)


def test_timeline_clustering_completed_as_replacecommit_is_not_pending() -> None:
    timeline = Timeline.of([Instant("001", Action.CLUSTERING, State.REQUESTED),
                            Instant("001", Action.CLUSTERING, State.INFLIGHT),
                            Instant("001", Action.REPLACE_COMMIT, State.COMPLETED, "002")])
    assert list(timeline.pending()) == []
    assert [i.action for i in timeline.completed()] == [Action.REPLACE_COMMIT]


def test_timeline_completed_within_goes_by_completion_time() -> None:
    # 002 was requested after 001 but completed first.
    timeline = _timeline(("001", "commit", "010"), ("002", "commit", "005"), ("003", "commit", None))
    assert [i.instant_time for i in timeline.by_completion_time()] == ["002", "001"]
    assert [i.instant_time for i in timeline.completed_within("005", None)] == ["001"]
    assert timeline.completion_time("001") == "010" and timeline.completion_time("003") is None
    assert timeline.requested_time_at("009") == "002" and timeline.requested_time_at("004") is None


def test_log_slice_instant_follows_completion_time_of_the_log() -> None:
    # base 001; compaction requested at 005 (base file 005 once done); deltacommit 004 completed at 006.
    timeline = _timeline(("001", "commit", "002"), ("004", "deltacommit", "006"), ("003", "deltacommit", "0035"),
                         ("007", "deltacommit", None))
    assert log_slice_instant("003", {"001", "005"}, timeline) == "001"
    assert log_slice_instant("004", {"001", "005"}, timeline) == "005"  # completed after the compaction request
    assert log_slice_instant("007", {"001"}, timeline) is None  # not completed: no slice
    assert log_slice_instant("000", {"001"}, timeline) == "000"  # archived, before any base: log-only
