"""Table-service options: cleaning, archival and clustering (Apache Hudi 0.14 keys and defaults).

Keys and defaults follow Hudi's ``HoodieCleanConfig``, ``HoodieArchivalConfig`` and
``HoodieClusteringConfig``. Cleaning and archival run here (:mod:`hudi_sql.services.clean`,
:mod:`hudi_sql.services.archive`); the clustering keys are declared so that jobs carrying
them validate, and so that the clustering service reads them from one place.
"""

from __future__ import annotations

__all__ = ["CleanerPolicy", "HudiServiceConfig"]

from enum import Enum

from hudi_sql.config.registry import (
    NO_VALUES,
    ConfigOption,
    ConfigScope,
    parse_bool,
    parse_enum_name,
    parse_int,
    parse_list,
    parse_str,
)


class CleanerPolicy(str, Enum):
    """Which file slices the cleaner may delete (Hudi's ``HoodieCleaningPolicy``)."""

    KEEP_LATEST_COMMITS = "KEEP_LATEST_COMMITS"
    """Keep every slice a query as of any of the last N completed commits reads."""
    KEEP_LATEST_FILE_VERSIONS = "KEEP_LATEST_FILE_VERSIONS"
    """Keep the N newest slices of every file group."""
    KEEP_LATEST_BY_HOURS = "KEEP_LATEST_BY_HOURS"
    """Keep every slice a query as of any commit of the last H hours reads."""

    def __str__(self) -> str:
        return self.value

    @classmethod
    def parse(cls, value: str) -> CleanerPolicy:
        return parse_enum_name(cls, value, "a cleaner policy")


_MB = 1024 * 1024


class HudiServiceConfig(ConfigScope):
    # -- clean (HoodieCleanConfig) -------------------------------------------------------
    CLEAN_AUTOMATIC = ConfigOption("hoodie.clean.automatic", parse_bool, True,
                       "Clean after every commit (the write path runs the cleaner when the trigger is met).")
    CLEAN_ASYNC = ConfigOption("hoodie.clean.async", parse_bool, False,
                   "Run the cleaner concurrently with writing; hudi-sql always cleans inline after the commit.",
                   (), (), False)
    CLEANER_POLICY = ConfigOption("hoodie.cleaner.policy", CleanerPolicy.parse, CleanerPolicy.KEEP_LATEST_COMMITS,
                      "KEEP_LATEST_COMMITS, KEEP_LATEST_FILE_VERSIONS or KEEP_LATEST_BY_HOURS.",
                      tuple(p.value for p in CleanerPolicy))
    CLEANER_COMMITS_RETAINED = ConfigOption("hoodie.cleaner.commits.retained", parse_int, 10,
                                "KEEP_LATEST_COMMITS: queries as of any of the last N commits keep working.",
                                minimum=1)
    CLEANER_FILE_VERSIONS_RETAINED = ConfigOption("hoodie.cleaner.fileversions.retained", parse_int, 3,
                                      "KEEP_LATEST_FILE_VERSIONS: slices kept per file group.", minimum=1)
    CLEANER_HOURS_RETAINED = ConfigOption("hoodie.cleaner.hours.retained", parse_int, 24,
                              "KEEP_LATEST_BY_HOURS: queries as of any commit of the last N hours keep working.",
                              minimum=1)
    CLEAN_MAX_COMMITS = ConfigOption("hoodie.clean.max.commits", parse_int, 1,
                         "Commits since the last clean before a new clean is planned.")
    CLEAN_TRIGGER_STRATEGY = ConfigOption("hoodie.clean.trigger.strategy", parse_str, "NUM_COMMITS",
                              "When to plan a clean; only NUM_COMMITS exists.", ("NUM_COMMITS",))
    CLEANER_PARALLELISM = ConfigOption("hoodie.cleaner.parallelism", parse_int, 200,
                           "Most Spark tasks deleting files in one clean.")
    CLEANER_INCREMENTAL_MODE = ConfigOption("hoodie.cleaner.incremental.mode", parse_bool, True,
                                "Scan only partitions written since the last clean; hudi-sql always scans all.",
                                (), (), False)
    # -- archival (HoodieArchivalConfig) -------------------------------------------------
    ARCHIVE_AUTOMATIC = ConfigOption("hoodie.archive.automatic", parse_bool, True,
                         "Archive old instants after every commit.")
    ARCHIVE_MAX_COMMITS = ConfigOption("hoodie.keep.max.commits", parse_int, 30,
                           "Archive when more completed commits than this are on the active timeline.")
    ARCHIVE_MIN_COMMITS = ConfigOption("hoodie.keep.min.commits", parse_int, 20,
                           "Completed commits left on the active timeline after archiving.")
    ARCHIVE_BATCH_SIZE = ConfigOption("hoodie.commits.archival.batch", parse_int, 10,
                          "Instants per data block of an archive file.")
    # -- clustering (HoodieClusteringConfig) ---------------------------------------------
    CLUSTERING_INLINE = ConfigOption("hoodie.clustering.inline", parse_bool, False,
                         "Cluster after the commit that reaches the trigger.")
    CLUSTERING_INLINE_MAX_COMMITS = ConfigOption("hoodie.clustering.inline.max.commits", parse_int, 4,
                                     "Commits since the last clustering before inline clustering runs.")
    CLUSTERING_SORT_COLUMNS = ConfigOption("hoodie.clustering.plan.strategy.sort.columns", parse_list, NO_VALUES,
                               "Columns clustering sorts the rewritten files by.")
    CLUSTERING_TARGET_FILE_MAX_BYTES = ConfigOption("hoodie.clustering.plan.strategy.target.file.max.bytes", parse_int,
                                        1024 * _MB, "Largest file clustering writes.")
    CLUSTERING_SMALL_FILE_LIMIT = ConfigOption("hoodie.clustering.plan.strategy.small.file.limit", parse_int, 300 * _MB,
                                   "Base files smaller than this are clustering candidates.")
    CLUSTERING_UPDATES_STRATEGY = ConfigOption(
        "hoodie.clustering.updates.strategy", parse_str,
        "org.apache.hudi.client.clustering.update.strategy.SparkRejectUpdateStrategy",
        "What a write does to file groups under pending clustering (reject by default).")
    CLUSTERING_MAX_BYTES_PER_GROUP = ConfigOption("hoodie.clustering.plan.strategy.max.bytes.per.group", parse_int,
                                      2 * 1024 * _MB, "Most input bytes in one clustering group (one task).")
    CLUSTERING_MAX_NUM_GROUPS = ConfigOption("hoodie.clustering.plan.strategy.max.num.groups", parse_int, 30,
                                 "Most clustering groups in one plan.")
    CLUSTERING_SINGLE_GROUP = ConfigOption("hoodie.clustering.plan.strategy.single.group.clustering.enabled", parse_bool, True,
                               "Plan a group of a single file slice (always done when sorting).")
    CLUSTERING_PLAN_STRATEGY_CLASS = ConfigOption(
        "hoodie.clustering.plan.strategy.class", parse_str,
        "org.apache.hudi.client.clustering.plan.strategy.SparkSizeBasedClusteringPlanStrategy",
        "How slices are grouped; size-based only.")
    CLUSTERING_EXECUTION_STRATEGY_CLASS = ConfigOption(
        "hoodie.clustering.execution.strategy.class", parse_str,
        "org.apache.hudi.client.clustering.run.strategy.SparkSortAndSizeExecutionStrategy",
        "How groups are rewritten; sort-and-size.")
    CLUSTERING_PRESERVE_COMMIT_METADATA = ConfigOption("hoodie.clustering.preserve.commit.metadata", parse_bool, True,
                                           "Rewritten rows keep _hoodie_commit_time and _hoodie_commit_seqno.")
    CLUSTERING_PARTITION_SELECTED = ConfigOption(
        "hoodie.clustering.plan.strategy.partition.selected", parse_list, NO_VALUES,
        "Partition paths a clustering plan is limited to (comma-separated); empty: every partition.")
    CLUSTERING_PARTITION_REGEX = ConfigOption(
        "hoodie.clustering.plan.strategy.partition.regex.pattern", parse_str, "",
        "A regular expression the whole partition path must match to be clustered (when no partition "
        "is selected by name); empty: every partition.")
