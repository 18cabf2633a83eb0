"""Object stores and HDFS through ``pyarrow.fs``: S3 and S3-compatible stores, GCS, ADLS, HDFS.

One backend class over pyarrow's file systems, each built from the URI's authority and the
:class:`~hudi_sql.storage.settings.StorageSettings` (Hadoop's key names):

==================  ==========================  ==========================================
scheme              pyarrow file system         keys read
==================  ==========================  ==========================================
s3, s3a, s3n        ``S3FileSystem``            ``fs.s3a.endpoint``, ``.access.key``,
                                                ``.secret.key``, ``.session.token``,
                                                ``.path.style.access``, ``.endpoint.region``,
                                                ``.connection.ssl.enabled`` (per bucket too)
gs                  ``GcsFileSystem``           ``fs.gs.storage.root.url``, ``fs.gs.project.id``
abfs, abfss         ``AzureFileSystem``         ``fs.azure.account.key.<account host>``
hdfs                ``HadoopFileSystem``        the URI's host and port (libhdfs, CLASSPATH)
==================  ==========================  ==========================================

What an object store lacks, the backend says plainly rather than imitates: there is no atomic
rename, so a whole-file write is one PUT (an object appears whole or not at all); there is no
settable modification time. Create-if-absent is a conditional PUT (``If-None-Match: *``,
:mod:`hudi_sql.storage.conditional`) on S3, GCS and Azure, so of two writers creating one object
exactly one succeeds; on HDFS it is a check then a write, safe under the table lock.
"""

from __future__ import annotations

__all__ = ["TRACE_ENV", "ObjectStore", "backend_scheme"]

import os
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from hudi_sql.errors import CommitConflictError, StorageError
from hudi_sql.storage.conditional import CONDITIONAL_FAMILIES, ConditionalObjects, conditional_available
from hudi_sql.storage.status import FileStatus
from hudi_sql.storage.uri import split_uri

if TYPE_CHECKING:
    import pyarrow as pa
    from pyarrow import fs as pafs

    from hudi_sql.storage.settings import StorageSettings

#: URI scheme → the family of pyarrow file system serving it.
_FAMILIES = {"s3": "s3", "s3a": "s3", "s3n": "s3", "gs": "gcs", "gcs": "gcs",
             "abfs": "azure", "abfss": "azure", "hdfs": "hdfs", "viewfs": "hdfs"}


def backend_scheme(scheme: str) -> str | None:
    """The backend family serving *scheme* (``s3``, ``gcs``, ``azure``, ``hdfs``), ``None`` for none."""
    return _FAMILIES.get(scheme)


def _s3(bucket: str, settings: StorageSettings) -> pafs.FileSystem:
    from pyarrow import fs as pafs

    access = settings.s3_access(bucket)
    kwargs: dict[str, Any] = {"allow_bucket_creation": False, "allow_bucket_deletion": False}
    if access.endpoint:
        scheme, _, host = access.endpoint.partition("://")
        kwargs["endpoint_override"], kwargs["scheme"] = host, scheme
    if access.region:
        kwargs["region"] = access.region
    if access.access_key and access.secret_key:
        kwargs["access_key"], kwargs["secret_key"] = access.access_key, access.secret_key
        if access.session_token:
            kwargs["session_token"] = access.session_token
    if access.path_style:
        kwargs["force_virtual_addressing"] = False
    return pafs.S3FileSystem(**kwargs)


def _gcs(settings: StorageSettings) -> pafs.FileSystem:
    from pyarrow import fs as pafs

    kwargs: dict[str, Any] = {}
    root = settings.get("fs.gs.storage.root.url")
    if root:
        scheme, _, host = root.partition("://")
        kwargs["endpoint_override"], kwargs["scheme"] = host.rstrip("/"), scheme or "https"
    if settings.get("fs.gs.project.id"):
        kwargs["project_id"] = settings.get("fs.gs.project.id")
    return pafs.GcsFileSystem(**kwargs)


def _azure(authority: str, settings: StorageSettings) -> pafs.FileSystem:
    from pyarrow import fs as pafs

    _container, _, host = authority.partition("@")
    account = host.split(".", 1)[0]
    if not account:
        raise StorageError(f"'{authority}' names no storage account (abfss://container@account.dfs.core.windows.net/…).")
    account_key = settings.get(f"fs.azure.account.key.{host}")
    return pafs.AzureFileSystem(account_name=account, account_key=account_key) if account_key \
        else pafs.AzureFileSystem(account_name=account)


def _hdfs(authority: str) -> pafs.FileSystem:
    from pyarrow import fs as pafs

    host, _, port = authority.partition(":")
    try:
        return pafs.HadoopFileSystem(host, int(port or 8020))
    except OSError as error:
        raise StorageError(
            f"Cannot reach HDFS at '{authority}': {error}",
            help="HDFS needs Hadoop's native client: set ARROW_LIBHDFS_DIR (or HADOOP_HOME) and CLASSPATH "
                 "(`hadoop classpath --glob`) in the driver's and executors' environment") from error


#: Diagnosis: a file every LIST this process (and each of its Spark tasks) sends is appended to, one
#: line each (``LIST <uri>`` or ``LIST-RECURSIVE <uri>``): which prefixes a write lists
#: (``bench/object_store.py`` checks that a write with the metadata table lists no partition).
TRACE_ENV = "HUDI_SQL_STORAGE_TRACE"


def _trace_listing(uri: str, recursive: bool) -> None:
    trace = os.environ.get(TRACE_ENV)
    if trace:
        with open(trace, "a", encoding="utf-8") as sink:  # one short line: appends of processes interleave whole
            sink.write(f"{'LIST-RECURSIVE' if recursive else 'LIST'} {uri}\n")


@dataclass
class ObjectStore:
    """One bucket / container / name node: the operations :class:`~hudi_sql.storage.fs.Storage` needs."""

    scheme: str
    authority: str
    settings: StorageSettings
    _fs: Any = field(default=None, repr=False)
    _conditional: ConditionalObjects | None = field(default=None, repr=False)

    def __getstate__(self) -> dict[str, Any]:  # the clients are rebuilt in each process
        return {"scheme": self.scheme, "authority": self.authority, "settings": self.settings, "_fs": None,
                "_conditional": None}

    @property
    def conditional(self) -> ConditionalObjects | None:
        """Conditional writes on this bucket, ``None`` where the store (HDFS) or the install has none."""
        family = _FAMILIES[self.scheme]
        if family not in CONDITIONAL_FAMILIES or not conditional_available():
            return None
        if self._conditional is None:
            self._conditional = ConditionalObjects(family, self.authority, self.settings)
        return self._conditional

    @property
    def fs(self) -> pafs.FileSystem:
        if self._fs is None:
            family = _FAMILIES[self.scheme]
            try:
                if family == "s3":
                    self._fs = _s3(self.authority, self.settings)
                elif family == "gcs":
                    self._fs = _gcs(self.settings)
                elif family == "azure":
                    self._fs = _azure(self.authority, self.settings)
                else:
                    self._fs = _hdfs(self.authority)
            except (ImportError, AttributeError) as error:
                raise StorageError(f"pyarrow here has no {family} file system for '{self.scheme}://': {error}",
                                   help="install a pyarrow wheel built with it: pip install -U pyarrow") from error
        return self._fs

    # -- paths --------------------------------------------------------------------------------

    def key(self, uri: str) -> str:
        """The store's own name of *uri*: ``bucket/key`` for S3 and GCS, ``container/key`` for ADLS, ``/key`` for HDFS."""
        _scheme, authority, key = split_uri(uri)
        family = _FAMILIES[self.scheme]
        if family == "hdfs":
            return "/" + key
        if family == "azure":
            authority = authority.partition("@")[0]
        return f"{authority}/{key}".rstrip("/")

    def uri(self, key: str) -> str:
        family = _FAMILIES[self.scheme]
        if family == "hdfs":
            return f"{self.scheme}://{self.authority}{key}"
        _bucket, _, rest = key.partition("/")
        return f"{self.scheme}://{self.authority}" + (f"/{rest}" if rest else "")

    def _failed(self, action: str, uri: str, error: Exception) -> StorageError:
        text = str(error)
        hint = None
        if "ACCESS_DENIED" in text or "InvalidAccessKeyId" in text or "SignatureDoesNotMatch" in text or "403" in text:
            hint = ("check the credentials: fs.s3a.access.key / fs.s3a.secret.key (spark.hadoop.… on the session) "
                    "or AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY")
        elif "NoSuchBucket" in text or "does not exist" in text.lower() and "bucket" in text.lower():
            hint = f"create the bucket '{self.authority}' first; hudi-sql never creates buckets"
        return StorageError(f"Cannot {action} '{uri}': {text.strip().splitlines()[0] if text.strip() else error!r}",
                            help=hint)

    # -- the operations -----------------------------------------------------------------------

    def check_container(self, uri: str) -> None:
        """Fail unless the bucket / container exists and the credentials may list it."""
        from pyarrow import fs as pafs

        container = self.key(uri).split("/", 1)[0] if _FAMILIES[self.scheme] != "hdfs" else "/"
        try:
            info = self.fs.get_file_info(container)
            if info.type == pafs.FileType.NotFound:
                raise StorageError(f"The bucket '{self.authority}' of '{uri}' does not exist.",
                                   help=f"create the bucket '{self.authority}' first; hudi-sql never creates buckets")
            _trace_listing(uri, False)
            self.fs.get_file_info(pafs.FileSelector(self.key(uri), allow_not_found=True))
        except StorageError:
            raise
        except OSError as error:
            raise self._failed("reach", uri, error) from error

    def info(self, uri: str) -> pafs.FileInfo:
        try:
            return self.fs.get_file_info(self.key(uri))
        except OSError as error:
            raise self._failed("look up", uri, error) from error

    def exists(self, uri: str) -> bool:
        from pyarrow import fs as pafs

        return self.info(uri).type != pafs.FileType.NotFound

    def is_dir(self, uri: str) -> bool:
        from pyarrow import fs as pafs

        return self.info(uri).type == pafs.FileType.Directory

    def mkdirs(self, uri: str) -> None:
        try:
            self.fs.create_dir(self.key(uri), recursive=True)
        except OSError as error:
            raise self._failed("create the folder", uri, error) from error

    def _status(self, info: pafs.FileInfo) -> FileStatus:
        from pyarrow import fs as pafs

        mtime = info.mtime.timestamp() if info.mtime is not None else 0.0
        is_dir = info.type == pafs.FileType.Directory
        return FileStatus(self.uri(info.path), info.base_name, 0 if is_dir else int(info.size or 0), is_dir, mtime)

    def list(self, uri: str, *, recursive: bool = False) -> list[FileStatus]:
        from pyarrow import fs as pafs

        _trace_listing(uri, recursive)
        try:
            found = self.fs.get_file_info(pafs.FileSelector(self.key(uri), allow_not_found=True, recursive=recursive))
        except OSError as error:
            raise self._failed("list", uri, error) from error
        return [self._status(info) for info in found]

    def walk_files(self, uri: str) -> Iterator[FileStatus]:
        return iter([s for s in self.list(uri, recursive=True) if not s.is_dir])

    def walk_folders(self, uri: str, *, skip_top: frozenset[str] = frozenset()) -> Iterator[tuple[str, list[str]]]:
        """As :meth:`LocalStore.walk_folders`, from one recursive listing of the prefix (a folder
        holding no object but folders is not reported)."""
        prefix = uri.rstrip("/") + "/"
        by_folder: dict[str, list[str]] = {}
        for status in self.walk_files(uri):
            rel = status.path[len(prefix):] if status.path.startswith(prefix) else status.name
            folder = rel.rsplit("/", 1)[0] if "/" in rel else ""
            if folder.split("/", 1)[0] in skip_top:
                continue
            by_folder.setdefault(folder, []).append(status.name)
        return iter(sorted(by_folder.items()))

    def read_bytes(self, uri: str) -> bytes:
        with self.open_input(uri) as source:
            return source.read()

    def open_input(self, uri: str) -> pa.NativeFile:
        try:
            return self.fs.open_input_file(self.key(uri))
        except FileNotFoundError:
            raise
        except OSError as error:
            if not self.exists(uri):
                raise FileNotFoundError(uri) from error
            raise self._failed("open", uri, error) from error

    def open_output(self, uri: str) -> pa.NativeFile:
        """A stream that becomes the object *uri* when closed (one PUT, or a multipart upload)."""
        try:
            return self.fs.open_output_stream(self.key(uri))
        except OSError as error:
            raise self._failed("write", uri, error) from error

    def write_bytes(self, uri: str, data: bytes, *, overwrite: bool = True) -> None:
        if not overwrite and not self.create_exclusive(uri, data):
            raise CommitConflictError(f"'{uri}' already exists; another writer created it first.")
        if overwrite:
            with self.open_output(uri) as stream:
                stream.write(data)

    def create_exclusive(self, uri: str, data: bytes) -> bool:
        """Create *uri* only if absent: one conditional PUT where the store takes one, else a
        check then a PUT (HDFS)."""
        conditional = self.conditional
        if conditional is not None:
            return conditional.create(uri, data) is not None
        if self.exists(uri):
            return False
        with self.open_output(uri) as stream:
            stream.write(data)
        return True

    def touch(self, uri: str) -> bool:
        """An object's time changes only by writing it again: rewrite it, ``False`` if it is gone."""
        try:
            data = self.read_bytes(uri)
        except FileNotFoundError:
            return False
        self.write_bytes(uri, data)
        return True

    def modification_time(self, uri: str) -> float | None:
        info = self.info(uri)
        if info.mtime is None:
            from pyarrow import fs as pafs

            return None if info.type == pafs.FileType.NotFound else time.time()
        return info.mtime.timestamp()

    def delete(self, uri: str) -> bool:
        """``False`` when there was nothing to delete. One call: Arrow's S3, GCS and Azure file
        systems look the object up themselves and raise ``FileNotFoundError`` when it is missing
        (a lookup of ours first made each delete two requests); a store that reports a missing
        object some other way is asked whether it exists only when the delete failed."""
        try:
            self.fs.delete_file(self.key(uri))
        except FileNotFoundError:
            return False
        except OSError as error:
            if not self.exists(uri):
                return False
            raise self._failed("delete", uri, error) from error
        return True

    def delete_dir(self, uri: str) -> None:
        try:
            self.fs.delete_dir(self.key(uri))
        except FileNotFoundError:
            pass
        except OSError as error:
            if self.exists(uri):
                raise self._failed("delete the folder", uri, error) from error

    def size(self, uri: str) -> int:
        from pyarrow import fs as pafs

        info = self.info(uri)
        if info.type == pafs.FileType.NotFound:
            raise FileNotFoundError(uri)
        return int(info.size or 0)
