"""Storage access for table files: the one place that touches a table's files.

:class:`Storage` takes every path in the form the project writes it (:mod:`hudi_sql.storage.uri`)
and hands the operation to the backend of its scheme: the POSIX file system for plain and
``file:`` paths (:class:`~hudi_sql.storage.local.LocalStore`), pyarrow's S3, GCS, ADLS and HDFS
clients for ``s3a://`` and the others (:class:`~hudi_sql.storage.object_store.ObjectStore`). A
scheme no backend serves is an error naming it: never a local folder called ``s3a:``.

A ``Storage`` carries its :class:`~hudi_sql.storage.settings.StorageSettings` (endpoint and
credentials, resolved once from the Spark session and the operation's options) and pickles
into Spark tasks with them, so executors reach the store exactly as the driver does. Code
running in a task uses the ``Storage`` it was handed, never a fresh ``Storage()``: a fresh one
knows only this process's default (:func:`use_session`, registered by the driver's entry points).
"""

from __future__ import annotations

__all__ = [
    "TEMP_SUFFIX",
    "FileStatus",
    "Storage",
    "default_settings",
    "temp_path",
    "to_local_path",
    "to_uri",
    "use_session",
]

import os
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING, Any

from hudi_sql.errors import StorageError, UnsupportedFeatureError
from hudi_sql.storage.conditional import ConditionalObjects
from hudi_sql.storage.local import TEMP_SUFFIX, LocalStore, temp_path
from hudi_sql.storage.object_store import ObjectStore, backend_scheme
from hudi_sql.storage.settings import StorageSettings
from hudi_sql.storage.status import FileStatus
from hudi_sql.storage.uri import LOCAL_SCHEMES, is_local, join, qualify, scheme_of, split_uri

if TYPE_CHECKING:
    import pyarrow as pa
    import pyarrow.parquet as pq
    from pyspark.sql import SparkSession

#: Where this process's default settings come from. The driver's entry points register their
#: session here (:func:`use_session`, no work done); the settings are resolved only when a table on
#: an object store is reached without settings in hand, so local tables never pay for the lookup
#: (a few py4j calls, tens of milliseconds).
_DEFAULT_SOURCE: Callable[[], StorageSettings] = StorageSettings

#: How pyarrow says a Parquet file at a path does not read; our reads through a stream say it the
#: same way. A named constant, so that the line raising it (which a task's traceback prints) does
#: not itself look like such a message.
_UNREADABLE_PARQUET = "Could not open Parquet input source"


def default_settings() -> StorageSettings:
    """The settings a ``Storage()`` made without any uses in this process, resolved now."""
    return _DEFAULT_SOURCE()


def use_session(spark: SparkSession | None, options: Mapping[str, Any] | None = None) -> None:
    """Make *spark*'s store keys (and *options*') this process's default, looked up when first needed:
    driver-side code that opens a table without a ``Storage`` in hand then reaches the same store
    with the same credentials as the operation around it."""
    global _DEFAULT_SOURCE
    _DEFAULT_SOURCE = partial(StorageSettings.from_spark, spark, dict(options or {}))


def to_local_path(path: str | os.PathLike[str]) -> str:
    """*path* as an absolute local path; an error for an object-store URI (which has none)."""
    text = os.fspath(path)
    if not is_local(text):
        raise StorageError(f"'{text}' is on an object store, not a local path.")
    return qualify(text)


def to_uri(path: str) -> str:
    """*path* as a URI: ``file://`` + the absolute path for local files, object-store URIs as they are."""
    text = qualify(path)
    return "file://" + text if is_local(text) else text


_LOCAL = LocalStore()


@dataclass(frozen=True)
class Storage:
    """Every file operation on table paths, by scheme. Picklable into Spark tasks."""

    #: ``None``: this process's default (:func:`default_settings`), looked up on first use.
    _settings: StorageSettings | None = None
    _stores: dict[tuple[str, str], ObjectStore] = field(default_factory=dict, compare=False, repr=False)

    @classmethod
    def for_session(cls, spark: SparkSession | None, options: Mapping[str, Any] | None = None,
                    path: str | None = None) -> Storage:
        """The storage of an operation in *spark* with *options* on the table at *path*; the session
        also becomes this process's default (:func:`use_session`). A local *path* needs no store
        keys, so none are looked up."""
        use_session(spark, options)
        if path is not None and is_local(path):
            return cls(StorageSettings())
        return cls(StorageSettings.from_spark(spark, dict(options or {})))

    @classmethod
    def for_options(cls, options: Mapping[str, Any]) -> Storage:
        """The storage of an operation that has only its options (a read planned in a Python worker,
        with no session to ask): the object-store keys among them (``spark.hadoop.fs.s3a.*``, which
        hudi-sql's sessions add from their configuration), then what the store's own client finds
        (``AWS_*``, instance credentials)."""
        return cls(StorageSettings.of(options))

    @classmethod
    def for_path(cls, path: str) -> Storage:
        """The storage of the table at *path*, with this process's default settings when it is remote."""
        return cls(StorageSettings() if is_local(path) else default_settings())

    @property
    def settings(self) -> StorageSettings:
        """The store keys this storage uses (and carries into Spark tasks)."""
        if self._settings is None:
            object.__setattr__(self, "_settings", default_settings())
        assert self._settings is not None
        return self._settings

    def __getstate__(self) -> dict[str, Any]:
        # A table's storage (TableMetaClient.storage) has its settings resolved; one still on the
        # process default leaves it to the task's process, where it is empty (environment only).
        return {"settings": self._settings}

    def __setstate__(self, state: dict[str, Any]) -> None:
        object.__setattr__(self, "_settings", state["settings"])
        object.__setattr__(self, "_stores", {})

    def backend(self, path: str) -> LocalStore | ObjectStore:
        """The backend serving *path*; a :class:`StorageError` naming the scheme when none does."""
        scheme = scheme_of(path)
        if scheme in LOCAL_SCHEMES:
            return _LOCAL
        if backend_scheme(scheme) is None:
            raise StorageError(
                f"No storage backend serves '{scheme}://' (in '{path}').",
                help="hudi-sql keeps tables on local paths (file:), s3://, s3a://, gs://, abfs(s):// and hdfs://")
        _, authority, _ = split_uri(path)
        store = self._stores.get((scheme, authority))
        if store is None:
            store = self._stores.setdefault((scheme, authority), ObjectStore(scheme, authority, self.settings))
        return store

    def check_reachable(self, path: str) -> None:
        """Fail, naming *path*, unless its bucket exists and the credentials may list it; called before a
        write puts anything there."""
        self.backend(path).check_container(path)

    def exists(self, path: str) -> bool:
        return self.backend(path).exists(path)

    def is_dir(self, path: str) -> bool:
        return self.backend(path).is_dir(path)

    def mkdirs(self, path: str) -> None:
        self.backend(path).mkdirs(path)

    def list(self, path: str) -> list[FileStatus]:
        return self.backend(path).list(path)

    def walk_files(self, path: str) -> Iterator[FileStatus]:
        return self.backend(path).walk_files(path)

    def walk_folders(self, path: str, *, skip_top: frozenset[str] = frozenset()) -> Iterator[tuple[str, list[str]]]:
        """(relative folder, its file names) for every folder below *path*, skipping the top-level
        folders in *skip_top* (a table's ``.hoodie``) without walking them."""
        return self.backend(path).walk_folders(path, skip_top=skip_top)

    def read_bytes(self, path: str) -> bytes:
        return self.backend(path).read_bytes(path)

    def open_input(self, path: str) -> pa.NativeFile:
        """A random-access file for readers that seek (Parquet footers, HFile blocks)."""
        return self.backend(path).open_input(path)

    def read_parquet(self, path: str, *, columns: list[str] | None = None, schema: pa.Schema | None = None
                     ) -> pa.Table:
        """The rows of the Parquet file *path*. A file that does not read fails as pyarrow's own path
        reads do (``Could not open Parquet input source '<path>': …``), so the error names the file
        wherever it surfaces (:mod:`hudi_sql.spark.task_errors`)."""
        import pyarrow.parquet as pq

        with self._parquet_errors(path), self.open_input(path) as source:
            return pq.read_table(source, columns=columns, schema=schema)

    def parquet_metadata(self, path: str) -> pq.FileMetaData:
        """The footer of the Parquet file *path* (errors as :meth:`read_parquet`)."""
        import pyarrow.parquet as pq

        with self._parquet_errors(path), self.open_input(path) as source:
            return pq.read_metadata(source)

    @contextmanager
    def _parquet_errors(self, path: str) -> Iterator[None]:
        import pyarrow as pa

        try:
            yield
        except (FileNotFoundError, StorageError):
            raise
        except (pa.ArrowException, OSError) as error:
            raise pa.ArrowInvalid(f"{_UNREADABLE_PARQUET} '{path}': {error}") from error

    def open_output(self, path: str) -> pa.NativeFile:
        """A stream written in place: for data files, which no reader trusts until a commit names them."""
        return self.backend(path).open_output(path)

    def write_bytes(self, path: str, data: bytes, *, overwrite: bool = True) -> None:
        """Write a whole file, seen whole or not at all. With ``overwrite=False`` a second writer of
        the same path fails with :class:`~hudi_sql.errors.CommitConflictError`."""
        self.backend(path).write_bytes(path, data, overwrite=overwrite)

    def create_empty(self, path: str) -> None:
        self.write_bytes(path, b"")

    def create_exclusive(self, path: str, data: bytes) -> bool:
        """Create *path* holding *data* only if it does not exist; ``False`` if it did."""
        return self.backend(path).create_exclusive(path, data)

    def conditional(self, path: str) -> ConditionalObjects:
        """Compare-and-swap on single objects of *path*'s store (S3, GCS, Azure): what a lease in one
        object needs (:mod:`hudi_sql.commit.storage_lock`). An :class:`UnsupportedFeatureError`
        naming the store where there is none: local disks and HDFS, or an install without obstore."""
        backend = self.backend(path)
        conditional = backend.conditional if isinstance(backend, ObjectStore) else None
        if conditional is None:
            where = "a local file system" if isinstance(backend, LocalStore) else f"'{scheme_of(path)}://'"
            raise UnsupportedFeatureError(
                f"'{path}' is on {where}, which offers no conditional writes here.",
                help="conditional writes (If-None-Match / If-Match) are made on s3://, s3a://, gs:// and abfs(s):// "
                     "with the package obstore installed")
        return conditional

    def touch(self, path: str) -> bool:
        """Make *path*'s modification time now (heartbeats); ``False`` if it is gone."""
        return self.backend(path).touch(path)

    def set_modification_time(self, path: str, seconds: float) -> None:
        """Set *path*'s modification time where the store allows it (version 6 readers take a completed
        instant's completion time from it); an object's time is its last write's, which stands."""
        backend = self.backend(path)
        if isinstance(backend, LocalStore):
            backend.set_modification_time(path, seconds)

    def modification_time(self, path: str) -> float | None:
        return self.backend(path).modification_time(path)

    def delete(self, path: str) -> bool:
        return self.backend(path).delete(path)

    def delete_dir(self, path: str) -> None:
        self.backend(path).delete_dir(path)

    def size(self, path: str) -> int:
        return self.backend(path).size(path)

    def join(self, base: str, *parts: str) -> str:
        return join(qualify(base), *parts)
