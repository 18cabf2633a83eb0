"""One recommendation of the advisor (:mod:`hudi_sql.report.advise`), as the report and ``CALL
advise`` show it."""

from __future__ import annotations

__all__ = ["Recommendation"]

from dataclasses import dataclass


@dataclass(frozen=True)
class Recommendation:
    """One finding, the figures it rests on, the setting that addresses it and what it changes."""

    finding: str
    evidence: str
    setting: str
    expected_effect: str
