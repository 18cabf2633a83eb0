"""Compaction options (Merge-On-Read): when to schedule, what to pick, where to run."""

from __future__ import annotations

__all__ = ["HudiCompactionConfig"]

from hudi_sql.config.registry import ConfigOption, ConfigScope, parse_bool, parse_int


class HudiCompactionConfig(ConfigScope):
    """Merge-On-Read compaction: trigger, strategy, inline or on demand (service scope)."""

    INLINE = ConfigOption("hoodie.compact.inline", parse_bool, False,
              "Schedule and run a compaction right after a deltacommit when the trigger says so.")
    SCHEDULE_INLINE = ConfigOption("hoodie.compact.schedule.inline", parse_bool, False,
                       "Only schedule (not run) compactions after deltacommits when the trigger says so.")
    MAX_DELTA_COMMITS = ConfigOption("hoodie.compact.inline.max.delta.commits", parse_int, 5,
                         "Deltacommits since the last compaction that trigger the next one.")
    MAX_DELTA_SECONDS = ConfigOption("hoodie.compact.inline.max.delta.seconds", parse_int, 3600,
                         "Seconds since the last compaction that trigger the next one (time-based triggers).")
    TRIGGER_STRATEGY = ConfigOption("hoodie.compact.inline.trigger.strategy", lambda v: v.strip().upper(), "NUM_COMMITS",
                        "NUM_COMMITS, TIME_ELAPSED, NUM_OR_TIME or NUM_AND_TIME.",
                        ("NUM_COMMITS", "TIME_ELAPSED", "NUM_OR_TIME", "NUM_AND_TIME"))
    STRATEGY = ConfigOption("hoodie.compaction.strategy", lambda v: v.strip(),
                "org.apache.hudi.table.action.compact.strategy.LogFileSizeBasedCompactionStrategy",
                "Which slices a plan takes: LogFileSizeBasedCompactionStrategy (most log bytes first) or "
                "UnBoundedCompactionStrategy (all).")
    TARGET_IO = ConfigOption("hoodie.compaction.target.io", parse_int, 500 * 1024,
                 "Megabytes of I/O one compaction may plan (log-size strategy).")
    LOGFILE_NUM_THRESHOLD = ConfigOption("hoodie.compaction.logfile.num.threshold", parse_int, 0,
                             "Only slices with at least this many log files are compacted.")
