"""Cleaner, archival and restore planning over hand-built timelines and listings (no storage, no Spark)."""

from __future__ import annotations

import random
from datetime import datetime, timezone

import pytest

from hudi_sql.config import HudiConfigs, TableType
from hudi_sql.config.resolve import Resolved
from hudi_sql.config.services import CleanerPolicy
from hudi_sql.errors import HudiConfigError, HudiTimelineError
from hudi_sql.model.avro_metadata import AvroMetadataKind, deserialize, serialize
from hudi_sql.model.instant import Action, Instant, State
from hudi_sql.model.timeline import Timeline
from hudi_sql.services.archive import ArchiveSettings, plan_archive_from
from hudi_sql.services.clean import (
    CleanConfig,
    CleanerPlan,
    CleanInputs,
    earliest_commit_to_retain,
    plan_clean_from,
)
from hudi_sql.services.savepoint import RestorePlan, plan_restore_from
from hudi_sql.storage.fs import FileStatus

ROOT = "/tbl"


def t(i: int) -> str:
    """A 17-digit instant time; i orders them."""
    return f"20240101000000{i:03d}"


def at_hour(hour: int) -> str:
    return f"20240101{hour:02d}0000000"


def base(fid: str, time_: str, partition: str = "p1", token: str = "0-1-1") -> FileStatus:
    name = f"{fid}_{token}_{time_}.parquet"
    return FileStatus(f"{ROOT}/{partition}/{name}", name, 100, False, 0.0)


def log(fid: str, base_time: str, version: int = 1, partition: str = "p1") -> FileStatus:
    name = f".{fid}_{base_time}.log.{version}_0-1-1"
    return FileStatus(f"{ROOT}/{partition}/{name}", name, 10, False, 0.0)


def commit(time_: str, action: Action = Action.COMMIT, *, done: bool = True) -> list[Instant]:
    states = [State.REQUESTED, State.INFLIGHT] + ([State.COMPLETED] if done else [])
    return [Instant(time_, action, s) for s in states]


def timeline(*groups: list[Instant]) -> Timeline:
    return Timeline.of(i for g in groups for i in g)


def names(plan: CleanerPlan | None) -> set[str]:
    assert plan is not None
    return {p.rsplit("/", 1)[1] for p in plan.all_files()}


def settings(policy: CleanerPolicy = CleanerPolicy.KEEP_LATEST_COMMITS, **kw: int) -> CleanConfig:
    return CleanConfig(policy=policy, **kw)


# -- KEEP_LATEST_COMMITS ----------------------------------------------------------------------


def five_commits() -> CleanInputs:
    """A updated by every commit; B written by t1 and t4."""
    return CleanInputs(
        timeline=timeline(*(commit(t(i)) for i in range(1, 6))),
        partitions={
            "p1": tuple(base("A", t(i)) for i in range(1, 6)),
            "p2": (base("B", t(1), "p2"), base("B", t(4), "p2")),
        },
    )


def test_plan_clean_keep_latest_commits_keeps_slices_of_last_n_commits_and_one_before():
    plan = plan_clean_from(five_commits(), settings(commits_retained=2))
    assert plan is not None
    # ECTR = t4: A keeps t5 (latest), t4, and t3 (read by a query as of the commit before ECTR).
    assert plan.earliest_instant_to_retain == Instant(t(4), Action.COMMIT)
    assert plan.last_completed_commit_time == t(5)
    assert names(plan) == {base("A", t(1)).name, base("A", t(2)).name}
    assert set(plan.files_to_delete) == {"p1"}  # B keeps t1: a query as of t3 reads it


def test_plan_clean_keep_latest_commits_too_few_commits_returns_none():
    assert plan_clean_from(five_commits(), settings(commits_retained=5)) is None
    assert plan_clean_from(five_commits(), settings(commits_retained=10)) is None


def test_plan_clean_keep_latest_commits_retained_one_keeps_latest_and_previous():
    plan = plan_clean_from(five_commits(), settings(commits_retained=1))
    # ECTR = t5: A keeps t5 and t4; B's latest (t4) is also its newest slice before t5, so B@t1 goes.
    assert names(plan) == {base("A", t(i)).name for i in (1, 2, 3)} | {base("B", t(1), "p2").name}


def test_earliest_commit_to_retain_stops_before_oldest_pending_write():
    tl = timeline(*(commit(t(i)) for i in (1, 2, 3, 5, 6, 7)), commit(t(4), done=False))
    ectr = earliest_commit_to_retain(tl, settings(commits_retained=2))
    assert ectr == Instant(t(3), Action.COMMIT)  # nth would be t6, but t4 is still pending


def test_plan_clean_pending_write_bounds_retention_and_its_files_are_never_deleted():
    tl = timeline(*(commit(t(i)) for i in (1, 2, 3, 5, 6, 7)), commit(t(4), done=False))
    listing = tuple(base("A", t(i)) for i in (1, 2, 3, 4, 5, 6, 7))
    plan = plan_clean_from(CleanInputs(tl, {"p1": listing}), settings(commits_retained=2))
    # ECTR = t3 -> keep t2 (before ECTR) and everything newer; the pending t4 file is not a slice.
    assert names(plan) == {base("A", t(1)).name}
    no_pending = timeline(*(commit(t(i)) for i in (1, 2, 3, 5, 6, 7)))
    plan2 = plan_clean_from(CleanInputs(no_pending, {"p1": listing}), settings(commits_retained=2))
    # Without the pending instant, ECTR = t6; the t4 leftover is still not the cleaner's to delete.
    assert names(plan2) == {base("A", t(i)).name for i in (1, 2, 3)}


def test_plan_clean_hoodie_clean_max_commits_waits_for_enough_commits():
    inputs = five_commits()
    waiting = CleanInputs(inputs.timeline, inputs.partitions, last_clean_commit_time=t(4))
    assert plan_clean_from(waiting, settings(commits_retained=2, max_commits=2)) is None
    assert plan_clean_from(waiting, settings(commits_retained=2, max_commits=1)) is not None


# -- KEEP_LATEST_BY_HOURS -------------------------------------------------------------------------


def test_plan_clean_keep_latest_by_hours_uses_commits_inside_the_window():
    hours = [at_hour(h) for h in range(6)]
    inputs = CleanInputs(timeline(*(commit(h) for h in hours)), {"p1": tuple(base("A", h) for h in hours)})
    now = datetime(2024, 1, 1, 5, 30, tzinfo=timezone.utc)
    plan = plan_clean_from(inputs, settings(CleanerPolicy.KEEP_LATEST_BY_HOURS, hours_retained=2), now=now)
    assert plan is not None
    assert plan.earliest_instant_to_retain == Instant(at_hour(4), Action.COMMIT)
    # Queries as of 04:00 and 05:00 (inside the window) and as of 03:00 (just before) still work.
    assert names(plan) == {base("A", at_hour(h)).name for h in (0, 1, 2)}


def test_plan_clean_keep_latest_by_hours_no_commit_in_window_returns_none():
    hours = [at_hour(h) for h in range(3)]
    inputs = CleanInputs(timeline(*(commit(h) for h in hours)), {"p1": tuple(base("A", h) for h in hours)})
    now = datetime(2024, 1, 2, 12, 0, tzinfo=timezone.utc)
    assert plan_clean_from(inputs, settings(CleanerPolicy.KEEP_LATEST_BY_HOURS, hours_retained=1), now=now) is None


# -- KEEP_LATEST_FILE_VERSIONS --------------------------------------------------------------------


def test_plan_clean_keep_latest_file_versions_keeps_n_newest_slices_per_group():
    plan = plan_clean_from(five_commits(), settings(CleanerPolicy.KEEP_LATEST_FILE_VERSIONS, file_versions_retained=2))
    assert plan is not None and plan.earliest_instant_to_retain is None
    assert names(plan) == {base("A", t(i)).name for i in (1, 2, 3)}
    plan1 = plan_clean_from(five_commits(), settings(CleanerPolicy.KEEP_LATEST_FILE_VERSIONS, file_versions_retained=1))
    assert names(plan1) == {base("A", t(i)).name for i in (1, 2, 3, 4)} | {base("B", t(1), "p2").name}


def test_clean_settings_retention_below_one_is_a_config_error():
    with pytest.raises(HudiConfigError, match="fileversions.retained"):
        CleanConfig.of(HudiConfigs.of({"hoodie.cleaner.fileversions.retained": "0"}))
    with pytest.raises(HudiConfigError, match="commits.retained"):
        CleanConfig.of(HudiConfigs.of({"hoodie.cleaner.commits.retained": 0}))
    parsed = CleanConfig.of(HudiConfigs.of({"hoodie.cleaner.policy": "keep_latest_by_hours"}))
    assert parsed.policy is CleanerPolicy.KEEP_LATEST_BY_HOURS


# -- savepoints ---------------------------------------------------------------------------------


def test_plan_clean_savepointed_files_are_never_deleted():
    inputs = five_commits()
    pinned = CleanInputs(inputs.timeline, inputs.partitions,
                         savepoints={t(2): frozenset({base("A", t(2)).name, base("B", t(1), "p2").name})})
    plan = plan_clean_from(pinned, settings(CleanerPolicy.KEEP_LATEST_FILE_VERSIONS, file_versions_retained=1))
    assert names(plan) == {base("A", t(i)).name for i in (1, 3, 4)}
    assert plan is not None and plan.savepointed_timestamps == (t(2),)
    commits = plan_clean_from(pinned, settings(commits_retained=1))
    assert names(commits) == {base("A", t(i)).name for i in (1, 3)}


def test_plan_clean_savepointed_log_file_keeps_its_whole_slice():
    tl = timeline(*(commit(t(i), Action.DELTA_COMMIT) for i in (1, 2, 3)))
    listing = (base("A", t(1)), log("A", t(1)), base("A", t(2)), base("A", t(3)))
    pinned = CleanInputs(tl, {"p1": listing}, savepoints={t(1): frozenset({log("A", t(1)).name})})
    plan = plan_clean_from(pinned, settings(CleanerPolicy.KEEP_LATEST_FILE_VERSIONS, file_versions_retained=1))
    assert names(plan) == {base("A", t(2)).name}


# -- pending compaction ---------------------------------------------------------------------------


def test_plan_clean_keeps_slices_of_a_pending_compaction():
    # MOR: A has bases t0, t1, t2; a compaction of the t2 slice is pending at t3 and a deltacommit
    # at t4 wrote a log under the pending compaction (base instant t3).
    tl = timeline(*(commit(t(i), Action.DELTA_COMMIT) for i in (0, 1, 2, 4)),
                  [Instant(t(3), Action.COMPACTION, State.REQUESTED)])
    listing = (base("A", t(0)), base("A", t(1)), base("A", t(2)), log("A", t(2)), log("A", t(3)),
               base("B", t(0)), base("B", t(1)))
    inputs = CleanInputs(tl, {"p1": listing}, pending_compactions={("p1", "A"): t(2)})
    plan = plan_clean_from(inputs, settings(CleanerPolicy.KEEP_LATEST_FILE_VERSIONS, file_versions_retained=2))
    # A: the slice the compaction reads (t2, with the log written under t3) counts as one kept
    # version, so only one more (t1) stays; B keeps both.
    assert names(plan) == {base("A", t(0)).name}
    plan1 = plan_clean_from(inputs, settings(CleanerPolicy.KEEP_LATEST_FILE_VERSIONS, file_versions_retained=1))
    assert names(plan1) == {base("A", t(0)).name, base("A", t(1)).name, base("B", t(0)).name}


# -- replaced file groups -----------------------------------------------------------------------------


def replaced_table() -> CleanInputs:
    """t1 writes A (p1) and B (p2); t2 updates A; t3 insert_overwrite of p1 (A -> C); t4 updates B."""
    tl = timeline(commit(t(1)), commit(t(2)), commit(t(3), Action.REPLACE_COMMIT), commit(t(4)))
    return CleanInputs(
        timeline=tl,
        partitions={"p1": (base("A", t(1)), base("A", t(2)), base("C", t(3))),
                    "p2": (base("B", t(1), "p2"), base("B", t(4), "p2"))},
        replaced_file_ids={t(3): {"p1": ("A",)}},
    )


def test_plan_clean_replaced_group_deleted_whole_once_replacecommit_is_before_ectr():
    plan = plan_clean_from(replaced_table(), settings(commits_retained=1))  # ECTR = t4 > t3
    assert names(plan) == {base("A", t(1)).name, base("A", t(2)).name}
    assert plan is not None and plan.partitions_to_delete == ()


def test_plan_clean_replaced_group_kept_while_replacecommit_is_in_the_window():
    assert plan_clean_from(replaced_table(), settings(commits_retained=2)) is None  # ECTR = t3


def test_plan_clean_file_versions_deletes_replaced_groups_at_once_except_savepointed():
    inputs = replaced_table()
    plan = plan_clean_from(inputs, settings(CleanerPolicy.KEEP_LATEST_FILE_VERSIONS, file_versions_retained=3))
    assert names(plan) == {base("A", t(1)).name, base("A", t(2)).name}
    pinned = CleanInputs(inputs.timeline, inputs.partitions, inputs.replaced_file_ids,
                         savepoints={t(2): frozenset({base("A", t(2)).name})})
    plan2 = plan_clean_from(pinned, settings(CleanerPolicy.KEEP_LATEST_FILE_VERSIONS, file_versions_retained=3))
    assert names(plan2) == {base("A", t(1)).name}


def test_plan_clean_partition_with_every_group_replaced_is_deleted():
    # t3 is delete_partition of p2: B replaced, nothing written.
    tl = timeline(commit(t(1)), commit(t(2)), commit(t(3), Action.REPLACE_COMMIT), commit(t(4)))
    inputs = CleanInputs(
        tl, {"p1": (base("A", t(1)), base("A", t(2)), base("A", t(4))), "p2": (base("B", t(1), "p2"),)},
        replaced_file_ids={t(3): {"p2": ("B",)}})
    plan = plan_clean_from(inputs, settings(commits_retained=1))
    assert plan is not None
    assert plan.partitions_to_delete == ("p2",)
    assert names(plan) == {base("B", t(1), "p2").name, base("A", t(1)).name}


def test_plan_clean_partition_holding_a_savepointed_file_is_not_deleted():
    tl = timeline(commit(t(1)), commit(t(2)), commit(t(3), Action.REPLACE_COMMIT), commit(t(4)))
    inputs = CleanInputs(
        tl, {"p1": (base("A", t(1)), base("A", t(2)), base("A", t(4))),
             "p2": (base("B", t(1), "p2"), base("B", t(2), "p2"))},
        replaced_file_ids={t(3): {"p2": ("B",)}}, savepoints={t(1): frozenset({base("B", t(1), "p2").name})})
    plan = plan_clean_from(inputs, settings(commits_retained=1))
    assert plan is not None and plan.partitions_to_delete == ()
    assert names(plan) == {base("B", t(2), "p2").name, base("A", t(1)).name}


# -- the latest slice is never deleted ----------------------------------------------------------------


@pytest.mark.parametrize("seed", range(30))
def test_plan_clean_random_tables_never_delete_a_latest_slice(seed: int):
    rng = random.Random(seed)
    count = rng.randint(2, 12)
    times = [t(i) for i in range(1, count + 1)]
    pending = set(rng.sample(times[1:], k=rng.randint(0, 2))) if count > 3 else set()
    tl = timeline(*(commit(x, done=x not in pending) for x in times))
    listing = []
    for fid in ("A", "B", "C"):
        written = sorted(rng.sample(times, k=rng.randint(1, count)))
        listing.extend(base(fid, x) for x in written)
    pinned = {times[0]: frozenset(rng.sample([s.name for s in listing], k=1))}
    inputs = CleanInputs(tl, {"p1": tuple(listing)}, savepoints=pinned)
    policy = rng.choice(list(CleanerPolicy))
    s = settings(policy, commits_retained=rng.randint(1, 4), file_versions_retained=rng.randint(1, 3),
                 hours_retained=1)
    plan = plan_clean_from(inputs, s, now=datetime(2024, 1, 1, 0, 30, tzinfo=timezone.utc))
    doomed = names(plan) if plan else set()
    committed = [x for x in times if x not in pending]
    for fid in ("A", "B", "C"):
        slices = [st for st in listing if st.name.startswith(fid) and st.name.rsplit("_", 1)[1][:-8] in committed]
        if slices:
            latest = max(slices, key=lambda st: st.name.rsplit("_", 1)[1])
            assert latest.name not in doomed
    assert not doomed & set(next(iter(pinned.values())))
    assert not {st.name for st in listing if st.name.rsplit("_", 1)[1][:-8] in pending} & doomed


# -- the plan on disk ----------------------------------------------------------------------------


def test_cleaner_plan_to_avro_round_trips_through_hudi_schema():
    plan = plan_clean_from(five_commits(), settings(commits_retained=2))
    assert plan is not None
    record = deserialize(serialize(AvroMetadataKind.CLEANER_PLAN, plan.to_avro()), AvroMetadataKind.CLEANER_PLAN)
    assert record["version"] == 2
    assert record["policy"] == "KEEP_LATEST_COMMITS"
    assert record["earliestInstantToRetain"] == {"timestamp": t(4), "action": "commit", "state": "COMPLETED"}
    assert record["filePathsToBeDeletedPerPartition"]["p1"][0]["filePath"].startswith("file:///tbl/p1/")
    assert record["filesToBeDeletedPerPartition"] == {}
    back = CleanerPlan.from_avro(record)
    assert back == plan


# -- archival planning ---------------------------------------------------------------------------


def archive_settings(low: int, high: int, **clean: int) -> ArchiveSettings:
    return ArchiveSettings(min_commits=low, max_commits=high, clean=CleanConfig(**clean))


def archived_commit_times(tl: Timeline, s: ArchiveSettings, **kw: object) -> list[str]:
    return plan_archive_from(tl, s, **kw).archived_times(Action.COMMIT, Action.DELTA_COMMIT, Action.REPLACE_COMMIT)


def test_plan_archive_archives_down_to_min_commits_with_every_state_file():
    tl = timeline(*(commit(t(i)) for i in range(1, 8)))
    plan = plan_archive_from(tl, archive_settings(3, 5))
    assert plan.archived_times() == [t(1), t(2), t(3), t(4)]
    assert len(plan.instants) == 12  # requested, inflight and completed of each
    assert plan_archive_from(timeline(*(commit(t(i)) for i in range(1, 6))), archive_settings(3, 5)).is_empty


def test_plan_archive_stops_at_first_savepoint_and_oldest_pending_instant():
    commits = [commit(t(i)) for i in range(1, 9)]
    with_savepoint = timeline(*commits, [Instant(t(3), Action.SAVEPOINT, State.INFLIGHT),
                                         Instant(t(3), Action.SAVEPOINT)])
    assert archived_commit_times(with_savepoint, archive_settings(2, 4)) == [t(1), t(2)]
    with_pending = timeline(*(commit(t(i), done=i != 4) for i in range(1, 9)))
    # Java keeps the completed commit just before the oldest pending one too.
    assert archived_commit_times(with_pending, archive_settings(2, 4)) == [t(1), t(2)]


def test_plan_archive_keeps_what_the_cleaner_retains():
    tl = timeline(*(commit(t(i)) for i in range(1, 9)))
    # The cleaner retains 4 commits (ECTR = t5): min grows to 3 after t5 + 2 = 5, max to 7.
    plan = plan_archive_from(tl, archive_settings(2, 4, commits_retained=4))
    assert (plan.min_commits, plan.max_commits) == (5, 7)
    assert plan.archived_times() == [t(1), t(2), t(3)]


def test_plan_archive_keeps_replacecommits_until_the_cleaner_passed_them():
    tl = timeline(commit(t(1)), commit(t(2), Action.REPLACE_COMMIT), *(commit(t(i)) for i in range(3, 9)))
    assert archived_commit_times(tl, archive_settings(2, 4)) == [t(1)]  # never cleaned: stop at t2
    cleaned = timeline(commit(t(1)), commit(t(2), Action.REPLACE_COMMIT), *(commit(t(i)) for i in range(3, 9)),
                       [Instant(t(9), Action.CLEAN, s) for s in State])
    # The last clean retained from t5: the groups t2 replaced are gone, so t2 may be archived.
    assert archived_commit_times(cleaned, archive_settings(2, 4), last_clean=(t(9), t(5))) == [
        t(i) for i in range(1, 7)]
    # A clean that retained from t2 (the replacecommit itself) did not delete them yet.
    assert archived_commit_times(cleaned, archive_settings(2, 4), last_clean=(t(9), t(2))) == [t(1)]


def test_plan_archive_takes_cleans_older_than_the_first_kept_commit():
    tl = timeline(*(commit(t(i)) for i in (1, 2, 4, 5, 6, 7)), [Instant(t(3), Action.CLEAN, s) for s in State])
    plan = plan_archive_from(tl, archive_settings(2, 4))
    assert plan.archived_times(Action.CLEAN) == [t(3)]
    assert {i.instant_time for i in plan.instants} == {t(1), t(2), t(3), t(4), t(5)}


def test_plan_archive_mor_keeps_deltacommits_the_compaction_trigger_counts():
    tl = timeline(*(commit(t(i), Action.DELTA_COMMIT) for i in range(1, 9)))
    s = ArchiveSettings(min_commits=2, max_commits=4, table_type=TableType.MERGE_ON_READ,
                        compaction_max_delta_commits=5)
    assert archived_commit_times(tl, s) == [t(1), t(2), t(3)]  # t4..t8: the last five deltacommits


def test_archive_settings_min_must_be_below_max():
    with pytest.raises(HudiConfigError, match="keep.min.commits"):
        ArchiveSettings.of(Resolved.of({"hoodie.keep.min.commits": 5, "hoodie.keep.max.commits": 5}))


# -- restore planning ---------------------------------------------------------------------------


def test_plan_restore_rolls_back_every_later_write_newest_first():
    tl = timeline(*(commit(t(i)) for i in range(1, 5)), commit(t(5), Action.REPLACE_COMMIT), commit(t(6), done=False),
                  [Instant(t(2), Action.SAVEPOINT, State.INFLIGHT), Instant(t(2), Action.SAVEPOINT)],
                  [Instant(t(7), Action.CLEAN, s) for s in State])
    plan = plan_restore_from(tl, t(2))
    assert [(i.instant_time, i.action, i.state) for i in plan.instants_to_rollback] == [
        (t(6), Action.COMMIT, State.INFLIGHT), (t(5), Action.REPLACE_COMMIT, State.COMPLETED),
        (t(4), Action.COMMIT, State.COMPLETED), (t(3), Action.COMMIT, State.COMPLETED)]
    record = deserialize(serialize(AvroMetadataKind.RESTORE_PLAN, plan.to_avro()), AvroMetadataKind.RESTORE_PLAN)
    assert record == {"instantsToRollback": [{"commitTime": t(6), "action": "commit"},
                                             {"commitTime": t(5), "action": "replacecommit"},
                                             {"commitTime": t(4), "action": "commit"},
                                             {"commitTime": t(3), "action": "commit"}],
                      "version": 2, "savepointToRestoreTimestamp": t(2)}
    assert isinstance(plan, RestorePlan)


def test_plan_restore_without_savepoint_is_an_error():
    with pytest.raises(HudiTimelineError, match="No savepoint"):
        plan_restore_from(timeline(commit(t(1)), commit(t(2))), t(1))
