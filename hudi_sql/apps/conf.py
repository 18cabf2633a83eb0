"""Command-line settings shared by the shell, ``hudi-sql thriftserver`` and ``hudi-sql report``:
``--conf key=value`` and where a warehouse keeps its catalog."""

from __future__ import annotations

__all__ = ["split_conf", "state_dir_for"]

import argparse
import os
from collections.abc import Sequence

from hudi_sql.config import HudiConfigs
from hudi_sql.errors import HudiConfigError
from hudi_sql.storage.uri import is_local


def state_dir_for(state_dir: str | None, warehouse: str | None) -> str | None:
    """The embedded metastore's folder: ``--state-dir`` when given, else ``<warehouse>/.hudi-sql``
    for a local ``--warehouse`` (each warehouse its own catalog; a bucket holds no Derby
    metastore), else ``None`` (the default state folder)."""
    if state_dir is None and warehouse and is_local(warehouse):
        return os.path.join(warehouse, ".hudi-sql")
    return state_dir


def split_conf(
    items: Sequence[str], parser: argparse.ArgumentParser
) -> tuple[dict[str, str], dict[str, str]]:
    """``--conf key=value`` items as (Spark settings, Hudi session options); a malformed item
    is a usage error.

    Hudi options are validated here, as ``SET`` validates them: an unknown key (with its "did
    you mean") or a value that does not parse ends start-up before any Spark session starts,
    instead of failing the first statement, or the hundredth, of a script.
    """
    spark_conf: dict[str, str] = {}
    options: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            parser.error(f"--conf expects key=value, got '{item}'")
        key = key.strip()
        (options if key.startswith("hoodie.") else spark_conf)[key] = value.strip()
    for key, value in options.items():
        try:
            HudiConfigs.of({key: value})
        except HudiConfigError as e:
            parser.error(f"--conf {key}: {e}")
    return spark_conf, options
