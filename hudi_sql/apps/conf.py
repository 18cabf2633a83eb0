"""``--conf key=value`` handling shared by the shell and ``hudi-sql thriftserver``."""

from __future__ import annotations

__all__ = ["split_conf"]

import argparse
from collections.abc import Sequence


def split_conf(
    items: Sequence[str], parser: argparse.ArgumentParser
) -> tuple[dict[str, str], dict[str, str]]:
    """``--conf key=value`` items as (Spark settings, Hudi session options); a malformed item
    is a usage error."""
    spark_conf: dict[str, str] = {}
    options: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            parser.error(f"--conf expects key=value, got '{item}'")
        key = key.strip()
        (options if key.startswith("hoodie.") else spark_conf)[key] = value.strip()
    return spark_conf, options
