"""Post-commit actions: what runs after a commit besides the table services (Hive sync, ...).

The engine sits below the catalog (CONTRIBUTING.md, "Layers"), yet a write must keep a Hive
metastore in step with the table when ``hoodie.datasource.hive_sync.enable`` (or
``hoodie.datasource.meta.sync.enable``) is on, as Apache Hudi's writer does. This registry is
the seam: a package above the engine registers a named :class:`PostCommitAction` together with
the boolean options that switch it on, and the write client runs every registered action whose
option is set, after compaction, clustering, clean and archival (Hudi's order), each inside the
client's "the commit stands, log and go on" guard.

Registration happens when the registering module is imported. The modules in
:data:`PLUGIN_POST_COMMIT_MODULES` are imported on first use, the same way the option registry
loads the catalog's option scopes (:data:`hudi_sql.config.registry.PLUGIN_CONFIG_MODULES`), so
the engine never imports the catalog by name in code and works without it.
"""

from __future__ import annotations

__all__ = [
    "PLUGIN_POST_COMMIT_MODULES",
    "PostCommitAction",
    "post_commit_actions",
    "register_post_commit_action",
]

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from hudi_sql.config.registry import ConfigOption, HudiConfigs, import_plugin_modules

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

#: Modules outside the engine that register post-commit actions (the catalog's Hive sync).
PLUGIN_POST_COMMIT_MODULES = ("catalog.hive.sync",)


@dataclass(frozen=True)
class PostCommitAction:
    """One named action run after each commit when any of its *enabled_by* options is true.

    Attributes:
        name: what the logs call it (``"Hive sync"``).
        enabled_by: boolean options, any of which switches the action on; all unset or false
            means the action is not run at all.
        run: ``run(base_path, configs, spark)``: the table's base path, the write's options,
            and the session that wrote (``None`` outside Spark).
    """

    name: str
    enabled_by: tuple[ConfigOption[bool], ...]
    run: Callable[[str, HudiConfigs, SparkSession | None], Any]

    def is_enabled(self, configs: HudiConfigs) -> bool:
        return any(configs.get(option) for option in self.enabled_by)


_ACTIONS: dict[str, PostCommitAction] = {}
_plugins_loaded = False


def register_post_commit_action(action: PostCommitAction) -> None:
    """Add *action* (or replace the one of the same name: re-importing a module is harmless)."""
    _ACTIONS[action.name] = action


def _load_plugins() -> None:
    global _plugins_loaded
    if _plugins_loaded:
        return
    _plugins_loaded = True
    import_plugin_modules(PLUGIN_POST_COMMIT_MODULES, "post-commit")


def post_commit_actions() -> tuple[PostCommitAction, ...]:
    """Every registered action, in registration order (enabled or not: the caller checks, inside
    its own failure guard, because reading an option may fail on a bad value)."""
    _load_plugins()
    return tuple(_ACTIONS.values())
