"""Partition value extractors: a Hudi partition path -> the Hive partition values.

Hive sync names the extractor by its Java class
(``hoodie.datasource.hive_sync.partition_extractor_class``); the registry below maps those
names (both the ``org.apache.hudi.hive`` and the Hudi 1.x
``org.apache.hudi.sync.common.model.partextractor`` packages) to Python implementations that
behave exactly like the Java ones, including ``String.split`` dropping trailing empty strings:

=========================================  ===================================  ======================
extractor                                  ``partition_path``                   values
=========================================  ===================================  ======================
``MultiPartKeysValueExtractor``            ``2024/01/x`` or ``y=2024/m=01``     ``[2024, 01, x]``
``SinglePartPartitionValueExtractor``      ``202210/01/20``                     ``[202210-01-20]``
``SlashEncodedDayPartitionValueExtractor`` ``2024/1/5``                         ``[2024-01-05]``
``SlashEncodedHourPartitionValueExtractor````2024/1/5/7``                       ``[2024-01-05-07]``
``HiveStylePartitionValueExtractor``       ``dt=2024-01-05``                    ``[2024-01-05]``
``NonPartitionedExtractor``                anything                             ``[]``
=========================================  ===================================  ======================

The module also holds Hive's partition-name escaping (``FileUtils.escapePathName`` /
``unescapePathName``), used to read ``SHOW PARTITIONS`` output and to URL-decode values.
"""

from __future__ import annotations

__all__ = [
    "PartitionValueExtractor",
    "escape_path_name",
    "extractor_for",
    "extractor_names",
    "java_split",
    "parse_partition_name",
    "register_extractor",
    "unescape_path_name",
]

import re
from collections.abc import Callable
from typing import Protocol

from catalog.hive.config import HiveSyncConfig
from hudi_sql.errors import HudiConfigError, did_you_mean

_PACKAGES = ("org.apache.hudi.hive.", "org.apache.hudi.sync.common.model.partextractor.",
             "org.apache.hudi.sync.common.")


class PartitionValueExtractor(Protocol):
    """Turns a relative partition path into the values of the Hive partition columns."""

    def extract(self, partition_path: str) -> list[str]: ...


_REGISTRY: dict[str, Callable[[], PartitionValueExtractor]] = {}


def register_extractor(
    simple_name: str,
) -> Callable[[Callable[[], PartitionValueExtractor]], Callable[[], PartitionValueExtractor]]:
    """Register an extractor under its Java simple name in every package Hudi used for it."""

    def wrap(factory: Callable[[], PartitionValueExtractor]) -> Callable[[], PartitionValueExtractor]:
        _REGISTRY[simple_name] = factory
        for package in _PACKAGES:
            _REGISTRY[package + simple_name] = factory
        return factory

    return wrap


def extractor_names() -> list[str]:
    return sorted(name for name in _REGISTRY if "." in name)


def extractor_for(class_name: str) -> PartitionValueExtractor:
    """The extractor registered as *class_name* (a Hudi class name, or its simple name).

    Raises:
        HudiConfigError: no extractor has that name.
    """
    factory = _REGISTRY.get(class_name.strip())
    if factory is None:
        raise HudiConfigError(
            f"Unknown partition value extractor '{class_name}'.{did_you_mean(class_name, _REGISTRY)}",
            help=f"set {HiveSyncConfig.PARTITION_EXTRACTOR_CLASS.key} to one of: "
            + ", ".join(sorted(n for n in _REGISTRY if "." not in n)),
        )
    return factory()


def java_split(text: str, sep: str) -> list[str]:
    """Java's ``String.split`` on a literal separator: trailing empty strings are dropped."""
    parts = text.split(sep)
    if text == "":
        return [""]
    while parts and parts[-1] == "":
        parts.pop()
    return parts


def _value_of(part: str) -> str:
    """``key=value`` -> ``value`` (as the Slash* extractors do); a bare part stays."""
    return java_split(part, "=")[1] if "=" in part else part


@register_extractor("MultiPartKeysValueExtractor")
class MultiPartKeysValueExtractor:
    """Each ``/``-separated part is one value; ``key=value`` parts keep the value."""

    def extract(self, partition_path: str) -> list[str]:
        if partition_path == "":
            return []
        values = []
        for part in java_split(partition_path, "/"):
            if "=" in part:
                split = java_split(part, "=")
                if len(split) != 2:
                    raise HudiConfigError(f"Partition field ({part}) not in expected format.",
                                          help="a hive-style part is key=value with exactly one '='")
                values.append(split[1])
            else:
                values.append(part)
        return values


@register_extractor("SinglePartPartitionValueExtractor")
class SinglePartPartitionValueExtractor:
    """The whole path is one value, with ``/`` replaced by ``-``."""

    def extract(self, partition_path: str) -> list[str]:
        return [partition_path.replace("/", "-")]


def _int_part(part: str, partition_path: str, form: str) -> int:
    try:
        return int(_value_of(part))
    except (ValueError, IndexError):
        raise HudiConfigError(f"Partition path {partition_path} is not in the form {form}.") from None


@register_extractor("SlashEncodedDayPartitionValueExtractor")
class SlashEncodedDayPartitionValueExtractor:
    """``yyyy/mm/dd`` (parts may be ``key=value``) -> ``yyyy-MM-dd``."""

    def extract(self, partition_path: str) -> list[str]:
        splits = java_split(partition_path, "/")
        if len(splits) != 3:
            raise HudiConfigError(f"Partition path {partition_path} is not in the form yyyy/mm/dd.")
        y, m, d = (_int_part(p, partition_path, "yyyy/mm/dd") for p in splits)
        return [f"{y:04d}-{m:02d}-{d:02d}"]


@register_extractor("SlashEncodedHourPartitionValueExtractor")
class SlashEncodedHourPartitionValueExtractor:
    """``yyyy/mm/dd/hh`` -> ``yyyy-MM-dd-HH``."""

    def extract(self, partition_path: str) -> list[str]:
        splits = java_split(partition_path, "/")
        if len(splits) != 4:
            raise HudiConfigError(f"Partition path {partition_path} is not in the form yyyy/mm/dd/hh.")
        y, m, d, h = (_int_part(p, partition_path, "yyyy/mm/dd/hh") for p in splits)
        return [f"{y:04d}-{m:02d}-{d:02d}-{h:02d}"]


@register_extractor("HiveStylePartitionValueExtractor")
class HiveStylePartitionValueExtractor:
    """``key=value`` (one level) -> ``value``."""

    def extract(self, partition_path: str) -> list[str]:
        splits = java_split(partition_path, "=")
        if len(splits) != 2:
            raise HudiConfigError(
                f"Partition path {partition_path} is not in the form partition_key=partition_value."
            )
        return [splits[1]]


@register_extractor("NonPartitionedExtractor")
class NonPartitionedExtractor:
    """A non-partitioned table has no partition values."""

    def extract(self, partition_path: str) -> list[str]:
        return []


# --------------------------------------------------------------------------------------------
# Hive partition names

# Hive's FileUtils.charToEscape (non-Windows): control characters and "#%'*/:=?\{[]^ plus DEL.
_ESCAPED = frozenset([chr(c) for c in range(1, 0x20)] + list("\"#%'*/:=?\\\u007f{[]^"))
_HEX = re.compile(r"%([0-9A-Fa-f]{2})")


def escape_path_name(value: str) -> str:
    """Hive's ``FileUtils.escapePathName``: escaped characters become ``%XX``."""
    if value == "":
        return "__HIVE_DEFAULT_PARTITION__"
    return "".join(f"%{ord(ch):02X}" if ch in _ESCAPED else ch for ch in value)


def unescape_path_name(value: str) -> str:
    """Hive's ``FileUtils.unescapePathName`` (also Hudi's ``PartitionPathEncodeUtils``)."""
    return _HEX.sub(lambda m: chr(int(m.group(1), 16)), value)


def parse_partition_name(name: str) -> list[str]:
    """``k1=v1/k2=v2`` as ``SHOW PARTITIONS`` prints it -> the unescaped values ``[v1, v2]``."""
    values = []
    for part in name.split("/"):
        _key, _sep, value = part.partition("=")
        values.append(unescape_path_name(value))
    return values
