"""The instant-time generator never waits for an instant far ahead of the clock (issue 15, item 1)."""

from __future__ import annotations

import threading
from datetime import datetime, timedelta, timezone

import pytest

from hudi_sql.errors import HudiTimelineError
from hudi_sql.model.instant import (
    FULL_BOOTSTRAP_INSTANT,
    METADATA_BOOTSTRAP_INSTANT,
    InstantTimeGenerator,
    format_instant_time,
    parse_instant_time,
)


def _next_in_thread(after: str, timeout: float = 20.0) -> str | BaseException:
    """Run the generator in a thread, so a generator that sleeps fails the test instead of hanging it."""
    result: list[str | BaseException] = []

    def run() -> None:
        try:
            result.append(InstantTimeGenerator.next(after=after))
        except BaseException as exc:  # noqa: BLE001 - handed to the test
            result.append(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(timeout)
    assert not thread.is_alive(), f"the generator is still waiting for {after} after {timeout} s"
    return result[0]


def test_generator_far_future_instant_raises_naming_it() -> None:
    outcome = _next_in_thread("29991231235959999")
    assert isinstance(outcome, HudiTimelineError)
    assert "29991231235959999" in str(outcome)


def test_generator_instant_slightly_ahead_waits_and_passes_it() -> None:
    ahead = format_instant_time(datetime.now(timezone.utc) + timedelta(milliseconds=300))
    outcome = _next_in_thread(ahead)
    assert isinstance(outcome, str) and outcome > ahead


def test_generator_past_instant_returns_now_after_it() -> None:
    before = format_instant_time(datetime.now(timezone.utc))
    outcome = _next_in_thread("20200101000000000")
    assert isinstance(outcome, str) and outcome >= before


@pytest.mark.parametrize("seconds_ahead", [InstantTimeGenerator.MAX_CLOCK_WAIT_MS / 1000 + 5, 3600])
def test_generator_instant_beyond_max_wait_raises(seconds_ahead: float) -> None:
    ahead = format_instant_time(datetime.now(timezone.utc) + timedelta(seconds=seconds_ahead))
    outcome = _next_in_thread(ahead)
    assert isinstance(outcome, HudiTimelineError) and ahead in str(outcome)


def test_apache_hudis_bootstrap_instants_parse_as_the_epoch() -> None:
    """Services that age instants (archival, clean by hours) meet ``00000000000001`` and
    ``00000000000002`` on bootstrapped tables: year 0000 is the epoch, as in Apache Hudi."""
    epoch = datetime(1970, 1, 1, tzinfo=timezone.utc)
    assert parse_instant_time(METADATA_BOOTSTRAP_INSTANT) == parse_instant_time(FULL_BOOTSTRAP_INSTANT) == epoch
    assert parse_instant_time("20240101000000123") > epoch
