"""Apache Hudi's own option keys, of every release from 0.10 to 1.2, for keys the registry does
not declare.

A job written for Apache Hudi may carry any of Apache Hudi's options (``TBLPROPERTIES``,
``SET``, DataFrame options, ``--conf``), and scripts keep the keys of the release they were first
written for. Refusing one that hudi-sql does not implement would stop a valid job; accepting any
unknown ``hoodie.*`` key would let a typo pass silently. So the registry consults this list: a key
some Apache Hudi release declares is accepted with a warning, once per process and key, saying
what it does here — renamed (an older name of a key the registry implements, read as that key) or
ignored; a key no release knows stays an error.

The list, ``apache_hudi_keys.txt`` next to this module, is a fact file generated from Apache
Hudi's released jars by ``tools/apache_keys/generate.py`` (its header names the releases). Each
line is a key, the first and last release declaring it (``0.10.0..0.13.1``), and ``-> key`` when
the newest of them names it an alternative of that key. A line ending in ``.`` (or ``.*``) is a
family: every key under that prefix is Apache Hudi's.
"""

from __future__ import annotations

__all__ = ["ApacheKey", "apache_key", "apache_keys", "is_apache_key", "newest_release", "renames",
           "warn_not_implemented"]

import functools
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from types import MappingProxyType

_log = logging.getLogger(__name__)

_DATA_FILE = "apache_hudi_keys.txt"

_warned: set[str] = set()


@dataclass(frozen=True)
class ApacheKey:
    """One key as Apache Hudi's releases declare it."""

    key: str
    first_release: str
    last_release: str
    renamed_to: str | None = None

    @property
    def releases(self) -> str:
        """The release range in words: ``0.10.0 to 0.13.1``, or the one release."""
        if self.first_release == self.last_release:
            return self.first_release
        return f"{self.first_release} to {self.last_release}"


@dataclass(frozen=True)
class _KeyFile:
    keys: dict[str, ApacheKey]
    prefixes: tuple[str, ...]
    newest_release: str


@functools.cache
def _load() -> _KeyFile:
    text = resources.files(__package__ or "hudi_sql.config").joinpath(_DATA_FILE).read_text(encoding="utf-8")
    keys: dict[str, ApacheKey] = {}
    prefixes: list[str] = []
    for line in text.splitlines():
        fields = line.split()
        if not fields or fields[0].startswith("#"):
            continue
        name = fields[0].removesuffix("*")
        if name.endswith("."):
            prefixes.append(name)
            continue
        first, _, last = fields[1].partition("..")
        renamed_to = fields[3] if len(fields) > 3 and fields[2] == "->" else None
        keys[name] = ApacheKey(name, first, last or first, renamed_to)
    newest = max((k.last_release for k in keys.values()), key=_release_order, default="")
    return _KeyFile(keys, tuple(prefixes), newest)


def _release_order(release: str) -> tuple[int, ...]:
    return tuple(int(part) for part in release.split(".") if part.isdigit())


@functools.cache
def apache_keys() -> frozenset[str]:
    """Every exact option key an Apache Hudi release declares (the prefix families excluded)."""
    return frozenset(_load().keys)


def newest_release() -> str:
    """The newest Apache Hudi release the key list was generated from."""
    return _load().newest_release


def apache_key(key: str) -> ApacheKey | None:
    """How Apache Hudi's releases declare *key* (None for a family member or an unknown key)."""
    return _load().keys.get(key)


@functools.cache
def renames() -> Mapping[str, str]:
    """Older key -> the key Apache Hudi's newest release that has it reads it as."""
    return MappingProxyType({name: entry.renamed_to for name, entry in _load().keys.items() if entry.renamed_to})


def is_apache_key(key: str) -> bool:
    """Whether an Apache Hudi release declares *key*, exactly or as a member of one of its key families."""
    loaded = _load()
    return key in loaded.keys or key.startswith(loaded.prefixes)


def warn_not_implemented(key: str) -> None:
    """Log, once per process for each key, that an Apache Hudi option has no effect here, naming
    the releases that declare it when the newest one no longer does, and its newer name."""
    if key in _warned:
        return
    _warned.add(key)
    entry = apache_key(key)
    origin = "an Apache Hudi option"
    if entry is not None and entry.last_release != _load().newest_release:
        origin = f"an option of Apache Hudi {entry.releases}"
    renamed = f" (Apache Hudi now names it {entry.renamed_to})" if entry is not None and entry.renamed_to else ""
    _log.warning("%s is %s hudi-sql does not implement; it is ignored%s", key, origin, renamed)
