"""The active timeline: an immutable, sorted view of the instants in ``.hoodie/`` (layout 1)
or ``.hoodie/timeline/`` (layout 2, table version 8).

Instants sort by requested time in both layouts; on layout 2 completed instants also carry a
completion time, which :meth:`Timeline.completed_within` and :meth:`Timeline.completion_time`
expose for readers that go by completion time (incremental queries, log file slicing).

A :class:`Timeline` never touches storage; :class:`~hudi_sql.table.meta_client.TableMetaClient`
lists the files and builds one. Every filter returns a new timeline, so planners can hold
one as a value and be tested without a file system.
"""

from __future__ import annotations

__all__ = ["Timeline"]

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cached_property

from hudi_sql.model.instant import COMPLETES_AS, WRITE_ACTIONS, Action, Instant, State


@dataclass(frozen=True)
class Timeline:
    """Instants sorted by (time, state). Each instant time appears once per state."""

    instants: tuple[Instant, ...]

    @classmethod
    def of(cls, instants: Iterable[Instant]) -> Timeline:
        return cls(tuple(sorted(set(instants), key=Instant.sort_key)))

    def _subset(self, instants: Iterable[Instant]) -> Timeline:
        """A filter of this timeline: already sorted and unique, so not sorted again."""
        return Timeline(tuple(instants))

    def __iter__(self) -> Iterator[Instant]:
        return iter(self.instants)

    def __len__(self) -> int:
        return len(self.instants)

    # -- states -------------------------------------------------------------------------

    def latest_states(self) -> Timeline:
        """One instant per (time, action): its furthest state (completed beats inflight beats requested)."""
        return self._latest_states

    # A timeline is immutable, so derived timelines are computed once: file views ask for them
    # once per file, which on a table with thousands of instants made listing quadratic.
    @cached_property
    def _latest_states(self) -> Timeline:
        best: dict[tuple[str, Action], Instant] = {}
        for instant in self.instants:
            action = instant.action
            key = (instant.instant_time, action)
            if key not in best or instant.state.order > best[key].state.order:
                best[key] = instant
        # A compaction (logcompaction, clustering) completes as a commit (deltacommit,
        # replacecommit) of the same time.
        completed_times = {(i.instant_time, i.action) for i in best.values() if i.is_completed}
        for (time_, action), instant in list(best.items()):
            done_as = COMPLETES_AS.get(action.value)
            if done_as is not None and (time_, Action(done_as)) in completed_times:
                del best[(time_, action)]
        return Timeline.of(best.values())

    def completed(self) -> Timeline:
        return self._completed

    @cached_property
    def _completed(self) -> Timeline:
        states = self.latest_states()
        return states._subset(i for i in states if i.is_completed)

    def pending(self) -> Timeline:
        states = self.latest_states()
        return states._subset(i for i in states if not i.is_completed)

    # -- actions ------------------------------------------------------------------------

    def with_actions(self, *actions: Action) -> Timeline:
        wanted = set(actions)
        return self._subset(i for i in self.instants if i.action in wanted)

    def write_timeline(self) -> Timeline:
        """commit, deltacommit, replacecommit and compaction instants (what file views use)."""
        return self._write_timeline

    @cached_property
    def _write_timeline(self) -> Timeline:
        return self.with_actions(*WRITE_ACTIONS, Action.COMPACTION, Action.LOG_COMPACTION)

    def completed_writes(self) -> Timeline:
        """Completed commit / deltacommit / replacecommit instants: what readers see."""
        return self.completed().with_actions(*WRITE_ACTIONS)

    def savepoint_times(self) -> tuple[str, ...]:
        """Times of the completed savepoints, oldest first (each one pins the commit of its time)."""
        return tuple(i.instant_time for i in self.completed().with_actions(Action.SAVEPOINT))

    def pending_writes(self) -> Timeline:
        return self.pending().with_actions(*WRITE_ACTIONS)

    def pending_compactions(self) -> Timeline:
        return self.pending().with_actions(Action.COMPACTION)

    # -- completion times (timeline layout 2) ----------------------------------------------

    @property
    def has_completion_times(self) -> bool:
        """Whether completed instants carry completion times (a layout 2 timeline)."""
        return any(i.completion_time is not None for i in self.instants)

    def completion_time(self, instant_time: str) -> str | None:
        """When the completed instant requested at *instant_time* completed (None: pending, or layout 1).

        A legacy completed instant (kept by an upgrade, no completion time in its name) counts as
        completed at its requested time, as Java's completion-time view assumes.
        """
        for instant in self.instants:
            if instant.instant_time == instant_time and instant.is_completed:
                return instant.completion_time or instant.instant_time
        return None

    def by_completion_time(self) -> Timeline:
        """The completed instants ordered by completion time (what layout 2 readers see in turn).

        Timelines are sorted by requested time; this keeps that type and returns the instants in
        a tuple sorted by completion time instead, for incremental planning.
        """
        done = [i for i in self.completed().instants]
        return Timeline(tuple(sorted(done, key=lambda i: (i.completion_time or i.instant_time, i.instant_time))))

    def requested_time_at(self, completion_time: str, *, inclusive: bool = True) -> str | None:
        """The greatest requested time of the completed writes that completed at or before
        (*inclusive*) or strictly before *completion_time* (None: none had).

        Turns a layout 2 reader's completion-time bound into the ``_hoodie_commit_time``
        (requested time) bound its rows carry; exact while writes complete in the order they
        were requested (one writer at a time)."""
        done = [i.instant_time for i in self.completed_writes()
                if (i.completion_time or i.instant_time) < completion_time
                or (inclusive and (i.completion_time or i.instant_time) == completion_time)]
        return max(done, default=None)

    def completed_within(self, begin_exclusive: str | None, end_inclusive: str | None) -> Timeline:
        """Completed instants whose completion time lies in (begin, end], by completion time (layout 2)."""
        return Timeline(tuple(
            i for i in self.by_completion_time()
            if (begin_exclusive is None or (i.completion_time or i.instant_time) > begin_exclusive)
            and (end_inclusive is None or (i.completion_time or i.instant_time) <= end_inclusive)
        ))

    # -- time ----------------------------------------------------------------------------

    def up_to(self, instant_time: str) -> Timeline:
        """Instants at or before *instant_time* (inclusive)."""
        return self._subset(i for i in self.instants if i.instant_time <= instant_time)

    def between(self, begin_exclusive: str | None, end_inclusive: str | None) -> Timeline:
        return self._subset(
            i for i in self.instants
            if (begin_exclusive is None or i.instant_time > begin_exclusive)
            and (end_inclusive is None or i.instant_time <= end_inclusive)
        )

    @property
    def first(self) -> Instant | None:
        return self.instants[0] if self.instants else None

    @property
    def last(self) -> Instant | None:
        return self.instants[-1] if self.instants else None

    def times(self) -> list[str]:
        return [i.instant_time for i in self.instants]

    def contains_time(self, instant_time: str) -> bool:
        return any(i.instant_time == instant_time for i in self.instants)

    def is_before_start(self, instant_time: str) -> bool:
        """Java's rule: a file older than the first active instant counts as committed (archived)."""
        first = self.first
        return first is not None and instant_time < first.instant_time

    def latest_time(self) -> str | None:
        """The greatest instant time of any state and action, completion times included (new
        instants must exceed it: on layout 2 a new instant is also requested after every
        completion, so a range of requested times stays a range of completion times)."""
        times = [t for i in self.instants for t in (i.instant_time, i.completion_time) if t is not None]
        return max(times, default=None)

    def find(self, instant_time: str, action: Action | None = None, state: State | None = None) -> Instant | None:
        for instant in reversed(self.instants):
            if instant.instant_time == instant_time and (action is None or instant.action is action) and (
                state is None or instant.state is state
            ):
                return instant
        return None
