"""Pending clusterings on the timeline, and the writes they reject.

A clustering is a replacecommit whose plan names its input file groups; until it completes,
those groups belong to it. A write that would update or delete records in one of them is
rejected before its instant starts (Hudi's ``SparkRejectUpdateStrategy``, the default), unless
``hoodie.clustering.updates.strategy`` allows it (``SparkAllowUpdateStrategy``). The write
path, the clustering service and the scheduling trigger all read the pending clusterings here.
"""

from __future__ import annotations

__all__ = [
    "ALLOW_UPDATE_STRATEGY",
    "REJECT_UPDATE_STRATEGY",
    "ClusteringUpdateConflictError",
    "check_updates_against_pending_clustering",
    "commits_since_last_clustering",
    "is_clustering_instant",
    "load_clustering_plan",
    "pending_clustering_file_groups",
    "pending_clustering_instants",
]

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

from hudi_sql.config import HudiServiceConfig
from hudi_sql.config.scoped import ClusteringConfig
from hudi_sql.errors import HudiConfigError, HudiError, did_you_mean
from hudi_sql.model.instant import Action, Instant

if TYPE_CHECKING:
    from hudi_sql.model.instant_payloads import ClusteringPlan
    from hudi_sql.model.timeline import Timeline
    from hudi_sql.table.meta_client import TableMetaClient

_STRATEGY_PACKAGE = "org.apache.hudi.client.clustering"
REJECT_UPDATE_STRATEGY = f"{_STRATEGY_PACKAGE}.update.strategy.SparkRejectUpdateStrategy"
ALLOW_UPDATE_STRATEGY = f"{_STRATEGY_PACKAGE}.update.strategy.SparkAllowUpdateStrategy"


class ClusteringUpdateConflictError(HudiError):
    """A write would update or delete records of file groups under pending clustering (reject strategy).

    Hudi's ``HoodieClusteringUpdateException``. Nothing was written: the check runs before the
    write's instant starts.

    Attributes:
        file_groups: (partition, file id) -> pending clustering instant, for every group hit.
    """

    def __init__(self, file_groups: Mapping[tuple[str, str], str]) -> None:
        self.file_groups = dict(sorted(file_groups.items()))
        (partition, file_id), instant = next(iter(self.file_groups.items()))
        more = len(self.file_groups) - 1
        where = f"partition '{partition}'" if partition else "the table"
        super().__init__(
            f"Not allowed to update file group {file_id} in {where}: it is under pending clustering {instant}"
            + (f" ({more} more file group{'s' if more > 1 else ''} too)" if more else "")
            + ". The write was rejected and nothing was written.",
            help=f"run the pending clustering first (hudi_sql.services.clustering.cluster(spark, path, "
                 f"schedule=False), or CALL run_clustering), or set "
                 f"{HudiServiceConfig.CLUSTERING_UPDATES_STRATEGY.key}={ALLOW_UPDATE_STRATEGY}",
        )


def is_clustering_instant(meta: TableMetaClient, instant: Instant) -> bool:
    """Whether a replacecommit is a clustering (see :meth:`TableMetaClient.is_clustering_instant`)."""
    return meta.is_clustering_instant(instant)


def pending_clustering_instants(meta: TableMetaClient) -> Timeline:
    """Pending replacecommits that are clusterings, oldest first (read by the meta client)."""
    return meta.pending_clustering_instants()


def load_clustering_plan(meta: TableMetaClient, instant_time: str) -> ClusteringPlan:
    """The plan of a clustering (read by the meta client)."""
    return meta.clustering_plan(instant_time)


def pending_clustering_file_groups(meta: TableMetaClient) -> dict[tuple[str, str], str]:
    """(partition, file id) -> instant of every file group under a pending clustering."""
    out: dict[tuple[str, str], str] = {}
    for instant in meta.pending_clustering_instants():
        for key in meta.clustering_plan(instant.instant_time).input_file_groups():
            out[key] = instant.instant_time
    return out


def _update_strategy_allows(config: ClusteringConfig) -> bool:
    strategy = config.updates_strategy.strip()
    name = strategy.rsplit(".", 1)[-1]
    if name == "SparkAllowUpdateStrategy":
        return True
    if name == "SparkRejectUpdateStrategy":
        return False
    raise HudiConfigError(
        f"Option '{HudiServiceConfig.CLUSTERING_UPDATES_STRATEGY}' is '{strategy}', "
        "which hudi-sql does not know."
        f"{did_you_mean(name, ('SparkRejectUpdateStrategy', 'SparkAllowUpdateStrategy'))}",
        help=f"use {REJECT_UPDATE_STRATEGY} (the default) or {ALLOW_UPDATE_STRATEGY}")


def check_updates_against_pending_clustering(meta: TableMetaClient, config: ClusteringConfig,
                                             touched: Iterable[tuple[str, str]]) -> None:
    """Reject a write that updates or deletes records of file groups under pending clustering.

    Hudi's ``SparkRejectUpdateStrategy.handleUpdate`` (the default
    ``hoodie.clustering.updates.strategy``); with ``SparkAllowUpdateStrategy`` nothing happens here.

    Args:
        touched: (partition, file id) of every existing file group the write's updates and
            deletes were tagged to (inserts routed to small files do not count: the write path
            keeps groups under pending clustering out of small-file routing).

    Raises:
        ClusteringUpdateConflictError: a touched group is under pending clustering (reject strategy).
        HudiConfigError: the strategy option names an unknown class.
    """
    allow = _update_strategy_allows(config)
    touched = set(touched)
    if allow or not touched:
        return
    pending = pending_clustering_file_groups(meta)
    hits = {key: pending[key] for key in touched if key in pending}
    if hits:
        raise ClusteringUpdateConflictError(hits)


def commits_since_last_clustering(meta: TableMetaClient) -> int:
    """Completed commits, deltacommits and replacecommits after the latest clustering instant (any state).

    Java's ``ClusteringPlanActionExecutor`` counts from the latest replacecommit of any kind;
    this counts from the latest *clustering* one, so an insert_overwrite does not reset it.
    """
    last = None
    for instant in reversed(meta.timeline.latest_states().with_actions(Action.REPLACE_COMMIT,
                                                                        Action.CLUSTERING).instants):
        if meta.is_clustering_instant(instant):
            last = instant.instant_time
            break
    return sum(1 for i in meta.timeline.completed_writes() if last is None or i.instant_time > last)
