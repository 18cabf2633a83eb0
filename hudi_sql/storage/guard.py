"""The one check that a path a task writes or deletes stays inside the table's base path.

Partition paths come from data and marker names from requests to the marker service, so
neither may be trusted as a path: ``../escaped``, ``a/../../x`` or ``/abs`` joined to the base
path would write or delete files outside the table (issue 15, items 3 and 4). Every such path
is built by :class:`~hudi_sql.storage.layout.TableLayout`, which calls :func:`check_partition_path`
and :func:`inside_base`; the commit's deletes check again with :func:`inside_base` right before
deleting, so a value that got past the first check still cannot reach a foreign file.
"""

from __future__ import annotations

__all__ = ["check_partition_path", "inside_base"]

import os

from hudi_sql.errors import HudiConfigError, PathOutsideTableError
from hudi_sql.storage.uri import is_local, qualify


def check_partition_path(partition_path: str) -> str:
    """*partition_path* if it is a relative path of plain segments, else an error naming it.

    A segment may hold any character but ``/`` (Hudi's partition values are free text);
    empty, ``.`` and ``..`` segments and a leading ``/`` are refused: they are not partition
    folders but moves across the tree. With URL-encoded partition paths (Apache Hudi's
    ``partitionpath.urlencode`` write option) such values arrive escaped (``%2F``) and pass.
    """
    if not partition_path:
        return partition_path
    segments = partition_path.split("/")
    if partition_path.startswith("/") or "\x00" in partition_path or any(
            s in ("", ".", "..") for s in segments):
        raise PathOutsideTableError(
            f"Partition path '{partition_path}' leaves the table folder (absolute, empty, '.' or '..' segment).",
            help="fix the partition value, or turn on URL-encoding of partition paths; the table was not changed")
    return partition_path


def inside_base(base_path: str, path: str) -> str:
    """*path*, normalised, if it lies strictly inside *base_path*; else an error naming both.

    Compares normalised absolute paths (no file-system access, so a check costs nothing in a
    task). A symbolic link inside the table pointing out of it is the table owner's choice
    and is not resolved.
    """
    if is_local(base_path) and is_local(path):
        base = os.path.normpath(os.path.abspath(base_path))
        target = os.path.normpath(os.path.abspath(path))
        sep = os.sep
    else:  # URIs: qualify() already refuses '..' segments and drops '.' and empty ones
        try:
            base, target = qualify(base_path), qualify(path)
        except HudiConfigError as error:
            raise PathOutsideTableError(f"Path '{path}' is not a path inside the table '{base_path}': {error}") from None
        sep = "/"
    if target == base or not target.startswith(base.rstrip(sep) + sep):
        raise PathOutsideTableError(f"Path '{path}' is outside the table '{base_path}'; refusing to touch it.")
    return target
