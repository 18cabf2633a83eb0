"""Instants of the Hudi timeline (table versions 6 and 8, timeline layouts 1 and 2).

An instant is one action on the table at one instant time, in one state. On disk each state
is its own file; the grammar is ``<instant_time>.<action>[.<state>]`` for ``requested`` and
``inflight``, nothing after the action when completed, with one legacy exception: the inflight
state of ``commit`` is ``<instant_time>.inflight``.

Layout 1 (table version 6) keeps the files in ``.hoodie/``. Layout 2 (table version 8, Apache
Hudi 1.x) keeps them in ``.hoodie/timeline/`` and names a *completed* instant by both of its
times, ``<requested>_<completion>.<action>`` (Java ``InstantFileNameGeneratorV2``): the
completion time orders what readers see (incremental queries, file slicing of logs), the
requested time stays the instant's identity (file names, ``_hoodie_commit_time``). A completed
instant carried over from a version 6 timeline by an upgrade may keep the legacy name without
completion time. Layout 2 also adds the ``clustering`` action: a clustering is requested and
inflight as ``clustering`` and completes as a ``replacecommit``, as a compaction completes as a
``commit``.

Instant times are 17 digits, ``yyyyMMddHHmmssSSS`` (UTC here; the table records
``hoodie.table.timeline.timezone=UTC``). The legacy 14-digit form parses too, and so do the
20-digit times of Apache Hudi's metadata table: a data instant followed by a three-digit
suffix naming the metadata table's own operation (``<t>001`` its compaction, ``<t>002`` its
clean, ``00000000000000010`` the initialisation of a partition; :mod:`hudi_sql.metadata.layout`).
Times compare as strings, which is chronological because the width is fixed (a suffixed time
sorts after its data instant and before the next one); for one time, requested < inflight <
completed.
"""

from __future__ import annotations

__all__ = [
    "COMPLETES_AS",
    "FULL_BOOTSTRAP_INSTANT",
    "METADATA_BOOTSTRAP_INSTANT",
    "WRITE_ACTIONS",
    "Action",
    "Instant",
    "InstantTimeGenerator",
    "State",
    "format_instant_time",
    "normalize_instant_time",
    "parse_instant_time",
]

import re
import threading
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from enum import Enum

from hudi_sql.errors import HudiTimelineError


class Action(str, Enum):
    COMMIT = "commit"
    DELTA_COMMIT = "deltacommit"
    REPLACE_COMMIT = "replacecommit"
    COMPACTION = "compaction"
    LOG_COMPACTION = "logcompaction"
    CLEAN = "clean"
    ROLLBACK = "rollback"
    SAVEPOINT = "savepoint"
    RESTORE = "restore"
    INDEXING = "indexing"
    CLUSTERING = "clustering"  # layout 2 only: pending clustering; completes as a replacecommit


#: Actions whose completed instants change what readers see.
#: Apache Hudi's fixed instants of a bootstrap: the metadata-only skeletons, the full-record rewrite.
METADATA_BOOTSTRAP_INSTANT = "00000000000001"
FULL_BOOTSTRAP_INSTANT = "00000000000002"

WRITE_ACTIONS = frozenset({Action.COMMIT, Action.DELTA_COMMIT, Action.REPLACE_COMMIT})


class State(str, Enum):
    REQUESTED = "requested"
    INFLIGHT = "inflight"
    COMPLETED = "completed"

    @property
    def order(self) -> int:
        return {"requested": 0, "inflight": 1, "completed": 2}[self.value]


_ACTIONS = {a.value: a for a in Action}
_TIME = r"(\d{14}|\d{17}|\d{20})"
_NAME = re.compile(rf"^{_TIME}\.([a-z]+)(?:\.(requested|inflight))?$")
_COMPLETED_V2 = re.compile(rf"^{_TIME}_{_TIME}\.([a-z]+)$")

#: Pending actions that complete as another action (their completed file carries that one).
COMPLETES_AS = {"compaction": "commit", "logcompaction": "deltacommit", "clustering": "replacecommit"}


@dataclass(frozen=True, order=False)
class Instant:
    """One state of one action at one instant time."""

    instant_time: str
    action: Action
    state: State = State.COMPLETED
    #: Layout 2 only: when the instant completed. Not part of the identity (equality, hashing),
    #: so an instant built from its time and action finds the one listed on the timeline.
    completion_time: str | None = field(default=None, compare=False)

    @classmethod
    def parse_file_name(cls, name: str, *, layout: int = 1) -> Instant | None:
        """The instant a timeline file name stands for, or ``None`` if it is not an instant file.

        With ``layout=2`` a completed name must carry its completion time
        (``<requested>_<completion>.<action>``) unless it is a legacy name an upgrade kept;
        with ``layout=1`` a name with a completion time is not an instant file.
        """
        if layout == 2:
            completed = _COMPLETED_V2.match(name)
            if completed:
                action = _ACTIONS.get(completed.group(3))
                if action is None or action.value in COMPLETES_AS:
                    return None
                return cls(completed.group(1), action, State.COMPLETED, completed.group(2))
        if name.count(".") == 1 and name.endswith(".inflight") and _NAME.match(name.replace(".inflight", ".commit")):
            return cls(name.split(".")[0], Action.COMMIT, State.INFLIGHT)
        match = _NAME.match(name)
        if not match:
            return None
        action = _ACTIONS.get(match.group(2))
        if action is None:
            return None
        state = State(match.group(3)) if match.group(3) else State.COMPLETED
        if state is State.COMPLETED and action.value in COMPLETES_AS:
            return None  # compaction / clustering complete as a commit / deltacommit / replacecommit
        if action is Action.CLUSTERING and layout != 2:
            return None
        return cls(match.group(1), action, state)

    @property
    def file_name(self) -> str:
        if self.state is State.COMPLETED:
            if self.completion_time is not None:
                return f"{self.instant_time}_{self.completion_time}.{self.action.value}"
            return f"{self.instant_time}.{self.action.value}"
        if self.action is Action.COMMIT and self.state is State.INFLIGHT:
            return f"{self.instant_time}.inflight"
        return f"{self.instant_time}.{self.action.value}.{self.state.value}"

    @property
    def is_completed(self) -> bool:
        return self.state is State.COMPLETED

    def to(self, state: State) -> Instant:
        return Instant(self.instant_time, self.action, state)

    def with_completion_time(self, completion_time: str | None) -> Instant:
        """This instant, completed at *completion_time* (layout 2 file naming)."""
        return Instant(self.instant_time, self.action, self.state, completion_time)

    def sort_key(self) -> tuple[str, int, str]:
        return (self.instant_time, self.state.order, self.action.value)

    def __str__(self) -> str:
        return f"[{self.instant_time}__{self.action.value}__{self.state.value.upper()}]"


_FORMAT = "%Y%m%d%H%M%S"


def format_instant_time(moment: datetime) -> str:
    """17-digit instant time of a UTC moment (milliseconds truncated)."""
    utc = moment.astimezone(timezone.utc) if moment.tzinfo else moment
    return utc.strftime(_FORMAT) + f"{utc.microsecond // 1000:03d}"


def parse_instant_time(instant_time: str) -> datetime:
    """The UTC moment of a 14- or 17-digit instant time (a metadata table's 20-digit time is its
    data instant's moment); Apache Hudi's fixed instants of year 0000 (the bootstrap's
    ``00000000000001`` and ``00000000000002``) are the epoch, as there."""
    if not re.fullmatch(r"\d{14}|\d{17}|\d{20}", instant_time):
        raise HudiTimelineError(
            f"'{instant_time}' is not an instant time.", help="use yyyyMMddHHmmssSSS (17 digits) or yyyyMMddHHmmss"
        )
    if instant_time.startswith("0000"):
        return datetime(1970, 1, 1, tzinfo=timezone.utc)
    base = datetime.strptime(instant_time[:14], _FORMAT).replace(tzinfo=timezone.utc)
    millis = int(instant_time[14:17] or 0)
    return base.replace(microsecond=millis * 1000)


_DATETIME_FORMATS = ("%Y-%m-%d %H:%M:%S.%f", "%Y-%m-%d %H:%M:%S", "%Y-%m-%dT%H:%M:%S.%f", "%Y-%m-%dT%H:%M:%S",
                     "%Y-%m-%d")


def normalize_instant_time(value: str) -> str:
    """An instant time from what a user may type for time travel.

    Accepts the instant forms (``20240418172802262``, 14 digits) and date-times
    (``2024-04-18 17:28:02.262``, ``2024-04-18T17:28:02``, ``2024-04-18``), read as UTC as
    the table's timeline time zone says. Hudi pads shorter forms to the end of the second.
    """
    text = value.strip().strip("'\"")
    if re.fullmatch(r"\d{17}", text):
        return text
    if re.fullmatch(r"\d{14}", text):
        return text + "999"
    if re.fullmatch(r"\d{8}", text):
        return text + "235959999"
    for fmt in _DATETIME_FORMATS:
        try:
            moment = datetime.strptime(text.replace("Z", ""), fmt)
        except ValueError:
            continue
        if fmt == "%Y-%m-%d":
            return moment.strftime(_FORMAT[:6]) + "235959999"
        if ".%f" not in fmt:
            return moment.strftime(_FORMAT) + "999"
        return format_instant_time(moment)
    raise HudiTimelineError(
        f"'{value}' is not an instant time or date-time.",
        help="use yyyyMMddHHmmssSSS, or 'yyyy-MM-dd HH:mm:ss[.SSS]'",
    )


class InstantTimeGenerator:
    """New instant times, strictly increasing, and strictly after every time it is told of.

    Java's generator loops until the clock passes the last time *it* generated, so two writes
    in the same millisecond still get distinct, ordered times; it never waits on the timeline.
    This one also waits for a timeline instant a little ahead of the clock (another writer's
    clock a few milliseconds off), but at most :attr:`MAX_CLOCK_WAIT_MS`: an instant further
    ahead (a skewed clock, a hand-made file) is refused with an error naming it instead of
    freezing the write until the wall clock gets there (issue 15, item 1).
    """

    #: The longest wait for the clock to pass an instant of the timeline.
    MAX_CLOCK_WAIT_MS = 2000

    _lock = threading.Lock()
    _last = ""

    @classmethod
    def next(cls, after: str | None = None) -> str:
        """A new time after *after* and after every time generated here.

        Raises:
            HudiTimelineError: *after* is more than :attr:`MAX_CLOCK_WAIT_MS` ahead of the clock.
        """
        with cls._lock:
            floor = max(cls._last, after or "")
            while True:
                now = datetime.now(timezone.utc)
                candidate = format_instant_time(now)
                if candidate > floor:
                    cls._last = candidate
                    return candidate
                ahead_ms = (parse_instant_time(floor) - now).total_seconds() * 1000
                if ahead_ms > cls.MAX_CLOCK_WAIT_MS:
                    raise HudiTimelineError(
                        f"Instant {floor} on the timeline is {ahead_ms / 1000:.0f} s ahead of this clock "
                        f"({candidate}); a new instant must come after it.",
                        help="a writer with a skewed clock or a hand-made file made it: fix the clock, or "
                             "roll that instant back (a failed write is rolled back by the next write)")
                time.sleep(0.001)
