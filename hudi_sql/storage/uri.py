"""Table paths as the project writes them: a local absolute path, or an object-store URI.

A table lives either on a POSIX path (local disk or a shared mount; given plain or as a
``file:`` URI) or on a store named by its URI scheme (``s3a://bucket/t``, ``gs://…``,
``abfss://container@account.dfs.core.windows.net/…``, ``hdfs://namenode:port/…``). Everything
that composes paths goes through here, because the ``os.path`` functions silently turn a URI
into a local path (``abspath('s3a://b/t')`` is ``$PWD/s3a:/b/t``): the bug that made
``s3a://bucket/t`` a local folder named ``s3a:``.

Canonical forms (:func:`qualify`): local paths absolute with no trailing slash; URIs with their
scheme lower-cased, no empty, ``.`` or trailing segments, and ``..`` refused, since an object
store has no parent links to resolve.
"""

from __future__ import annotations

__all__ = [
    "LOCAL_SCHEMES",
    "is_local",
    "join",
    "name_of",
    "parent_of",
    "qualify",
    "relative_to",
    "scheme_of",
    "split_uri",
]

import os
import posixpath
import re

from hudi_sql.errors import HudiConfigError

#: Schemes that mean the local file system.
LOCAL_SCHEMES = frozenset({"", "file"})

#: ``scheme://`` with a scheme as RFC 3986 allows; a Windows drive (``C:\\``) has no ``//``.
_URI = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*)://(.*)$", re.DOTALL)


def scheme_of(path: str) -> str:
    """The lower-cased URI scheme of *path* (``s3a``), ``file`` for ``file:`` paths, ``""`` for plain paths."""
    text = os.fspath(path)
    match = _URI.match(text)
    if match:
        return match.group(1).lower()
    return "file" if text.startswith("file:") else ""


def is_local(path: str) -> bool:
    return scheme_of(path) in LOCAL_SCHEMES


def split_uri(path: str) -> tuple[str, str, str]:
    """(scheme, authority, key) of an object-store URI: ``s3a://b/t/x`` is ``("s3a", "b", "t/x")``."""
    match = _URI.match(os.fspath(path))
    if not match:
        raise HudiConfigError(f"'{path}' is not a URI with a scheme.")
    authority, _, key = match.group(2).partition("/")
    return match.group(1).lower(), authority, key


def qualify(path: str | os.PathLike[str]) -> str:
    """The canonical form of *path* (see the module docstring)."""
    text = os.fspath(path)
    scheme = scheme_of(text)
    if scheme in LOCAL_SCHEMES:
        if text.startswith("file://"):
            text = text[len("file://"):]
        elif text.startswith("file:"):
            text = text[len("file:"):]
        return os.path.abspath(text)
    scheme, authority, key = split_uri(text)
    if not authority:
        raise HudiConfigError(f"'{text}' names no bucket or host after '{scheme}://'.")
    segments = [s for s in key.split("/") if s not in ("", ".")]
    if ".." in segments:
        raise HudiConfigError(f"'{text}' holds a '..' segment; object-store paths are written out in full.")
    return f"{scheme}://{authority}" + ("/" + "/".join(segments) if segments else "")


def join(base: str, *parts: str) -> str:
    """*base* with *parts* appended (empty parts skipped), in *base*'s form."""
    rest = [p.strip("/") if not is_local(base) else p for p in parts if p]
    if is_local(base):
        return os.path.join(base, *rest)
    return "/".join([base.rstrip("/"), *[p for p in rest if p]])


def parent_of(path: str) -> str:
    if is_local(path):
        return os.path.dirname(path)
    scheme, authority, key = split_uri(path)
    head = posixpath.dirname(key.rstrip("/"))
    return f"{scheme}://{authority}" + (f"/{head}" if head else "")


def name_of(path: str) -> str:
    return posixpath.basename(path.rstrip("/")) if not is_local(path) else os.path.basename(path)


def relative_to(base: str, path: str) -> str:
    """*path* relative to *base* (``/``-separated), both qualified first."""
    base, path = qualify(base), qualify(path)
    if is_local(base):
        return os.path.relpath(path, base).replace(os.sep, "/")
    if path == base:
        return "."
    prefix = base.rstrip("/") + "/"
    if not path.startswith(prefix):
        raise HudiConfigError(f"'{path}' does not lie under '{base}'.")
    return path[len(prefix):]
