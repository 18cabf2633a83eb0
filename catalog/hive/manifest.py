"""Symlink manifests: the latest base files of each partition, for engines without Hudi's code.

Delta Lake's manifest approach, which Apache Hudi does not offer: a Hive table stored as
``org.apache.hadoop.hive.ql.io.SymlinkTextInputFormat`` with ``ParquetHiveSerDe`` lists no
folder; it reads text files ("manifests") whose lines are the paths of the Parquet files to
read. Trino, Presto, Athena, Redshift Spectrum and StarRocks read such tables; writing one
manifest per partition that names exactly the base files of the latest file slices gives them
the snapshot of a Copy-On-Write table (and the read-optimized view of a Merge-On-Read table)
without old file versions.

Layout, inside the table's meta folder so that no Hudi reader and no Parquet folder listing
ever takes a manifest for data::

    <base>/.hoodie/.aux/manifest/<partition path>/manifest     (partitioned)
    <base>/.hoodie/.aux/manifest/manifest                      (not partitioned)

The Hive table's ``LOCATION`` is the manifest root and each Hive partition's location its
folder below it. Manifests are rewritten after every commit and table service that changes
the file set (hive sync runs after them: :mod:`hudi_sql.write.post_commit`), each atomically
(a hidden temporary file renamed into place, :meth:`~hudi_sql.storage.fs.Storage.write_bytes`),
and only when their text changes; manifests of partitions that no longer hold files are deleted.
The file set is the read planner's read-optimized one (:func:`~hudi_sql.read.plan.plan_read`),
so it equals what ``hoodie.datasource.query.type=read_optimized`` reads.
"""

from __future__ import annotations

__all__ = [
    "MANIFEST_FILE",
    "MANIFEST_FOLDER",
    "SYMLINK_INPUT_FORMAT",
    "SYMLINK_OUTPUT_FORMAT",
    "latest_base_files",
    "manifest_location",
    "manifest_root",
    "write_manifests",
]

import posixpath
from collections.abc import Mapping
from typing import TYPE_CHECKING

from hudi_sql.config import QueryType
from hudi_sql.config.scoped import ReadConfig
from hudi_sql.errors import UnsupportedFeatureError
from hudi_sql.read.plan import plan_read
from hudi_sql.storage.fs import to_uri
from hudi_sql.storage.uri import relative_to

if TYPE_CHECKING:
    from hudi_sql.table.meta_client import TableMetaClient

SYMLINK_INPUT_FORMAT = "org.apache.hadoop.hive.ql.io.SymlinkTextInputFormat"
SYMLINK_OUTPUT_FORMAT = "org.apache.hadoop.hive.ql.io.HiveIgnoreKeyTextOutputFormat"
MANIFEST_FOLDER = ".hoodie/.aux/manifest"
MANIFEST_FILE = "manifest"


def manifest_root(base_path: str) -> str:
    """The folder a manifest table's ``LOCATION`` points at."""
    return f"{base_path.rstrip('/')}/{MANIFEST_FOLDER}"


def manifest_location(base_path: str, partition_path: str) -> str:
    """The folder holding the manifest of *partition_path* (the root for ``""``)."""
    root = manifest_root(base_path)
    return f"{root}/{partition_path}" if partition_path else root


def latest_base_files(meta: TableMetaClient) -> dict[str, list[str]]:
    """Partition path -> the base files of its latest file slices (read-optimized view), sorted."""
    plan = plan_read(meta, ReadConfig(query_type=QueryType.READ_OPTIMIZED))
    if plan.bootstrap_slices:
        # A skeleton holds meta columns only and its source file lacks them: neither can stand
        # in a manifest, and leaving the group out would hide its rows.
        raise UnsupportedFeatureError(
            f"Cannot list '{meta.table_name}' in manifests: {len(plan.bootstrap_slices)} file group(s) are "
            f"metadata-only bootstrap skeletons, e.g. '{plan.bootstrap_slices[0].skeleton_path}', whose rows "
            "only a Hudi reader stitches from their source files.",
            help="sync it in the datasource form (the default), or bootstrap with full records")
    by_partition: dict[str, list[str]] = {}
    for path in plan.native_files:
        partition = posixpath.dirname(relative_to(meta.base_path, path))
        by_partition.setdefault("" if partition == "." else partition, []).append(to_uri(path))
    return {p: sorted(files) for p, files in by_partition.items()}


def write_manifests(meta: TableMetaClient, files: Mapping[str, list[str]] | None = None) -> dict[str, list[str]]:
    """Bring every manifest of the table in line with its latest base files; returns what they list.

    A partition whose manifest already lists exactly these files is left alone; a manifest of a
    partition without base files any more is deleted.
    """
    storage = meta.storage
    wanted = dict(latest_base_files(meta) if files is None else files)
    for partition, paths in wanted.items():
        target = f"{manifest_location(meta.base_path, partition)}/{MANIFEST_FILE}"
        text = "".join(f"{p}\n" for p in paths).encode()
        if storage.exists(target) and storage.read_bytes(target) == text:
            continue
        storage.write_bytes(target, text)
    root = manifest_root(meta.base_path)
    if storage.exists(root):
        for status in list(storage.walk_files(root)):
            if status.name != MANIFEST_FILE:
                continue
            partition = posixpath.dirname(relative_to(root, status.path)) or "."
            if ("" if partition == "." else partition) not in wanted:
                storage.delete(status.path)
    return wanted
