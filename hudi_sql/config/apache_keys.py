"""Apache Hudi's own option keys, for keys the registry does not declare.

A job written for Apache Hudi may carry any of Apache Hudi's options (``TBLPROPERTIES``,
``SET``, DataFrame options, ``--conf``). Refusing one that hudi-sql does not implement would
stop a valid job; accepting any unknown ``hoodie.*`` key would let a typo pass silently. So the
registry consults this list: a key Apache Hudi declares is accepted (kept in the options, so it
travels on like Apache Hudi would carry it) with a warning, once per process and key, that it
has no effect here; a key neither knows stays an error.

The list, ``apache_hudi_keys.txt`` next to this module, is a fact file generated from Apache
Hudi's released jars by ``tools/apache_keys/generate.py`` (its header names the versions). A
line ending in ``.`` (or ``.*``) is a family: every key under that prefix is Apache Hudi's.
"""

from __future__ import annotations

__all__ = ["apache_keys", "is_apache_key", "warn_not_implemented"]

import functools
import logging
from importlib import resources

_log = logging.getLogger(__name__)

_DATA_FILE = "apache_hudi_keys.txt"

_warned: set[str] = set()


@functools.cache
def _load() -> tuple[frozenset[str], tuple[str, ...]]:
    """(exact keys, key prefixes) of the data file."""
    text = resources.files(__package__ or "hudi_sql.config").joinpath(_DATA_FILE).read_text(encoding="utf-8")
    keys: set[str] = set()
    prefixes: list[str] = []
    for line in text.splitlines():
        entry = line.strip()
        if not entry or entry.startswith("#"):
            continue
        entry = entry.removesuffix("*")
        if entry.endswith("."):
            prefixes.append(entry)
        else:
            keys.add(entry)
    return frozenset(keys), tuple(prefixes)


def apache_keys() -> frozenset[str]:
    """Every exact option key Apache Hudi declares (the prefix families excluded)."""
    return _load()[0]


def is_apache_key(key: str) -> bool:
    """Whether Apache Hudi declares *key*, exactly or as a member of one of its key families."""
    keys, prefixes = _load()
    return key in keys or key.startswith(prefixes)


def warn_not_implemented(key: str) -> None:
    """Log, once per process for each key, that an Apache Hudi option has no effect here."""
    if key in _warned:
        return
    _warned.add(key)
    _log.warning("%s is an Apache Hudi option hudi-sql does not implement; it is ignored", key)
