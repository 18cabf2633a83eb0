"""Local and shared-mount storage: the POSIX backend of :class:`~hudi_sql.storage.fs.Storage`.

Creating a file is *create-if-absent* where it matters (completed instants), and every write
of metadata is whole-file (a temporary name, then a rename), so a reader never sees half a commit.
"""

from __future__ import annotations

__all__ = ["TEMP_SUFFIX", "LocalStore", "temp_path"]

import os
import shutil
import uuid
from collections.abc import Iterator

import pyarrow as pa

from hudi_sql.errors import CommitConflictError
from hudi_sql.storage.status import FileStatus
from hudi_sql.storage.uri import qualify

#: How every temporary file of :meth:`Storage.write_bytes` ends.
TEMP_SUFFIX = ".hudi-sql.tmp"


def temp_path(target: str) -> str:
    """Where :meth:`Storage.write_bytes` stages *target* before renaming it into place.

    Beside the target (a rename inside one folder is atomic on POSIX), under a name no Hudi
    reader parses: ``.hudi-sql-<pid>-<random>.hudi-sql.tmp`` holds neither ``_`` nor ``.log.``
    nor a base-file extension, so Apache Hudi's log-file pattern and the Rust reader's skip it.
    Naming it after the target (``.<log file name>.<pid>.tmp``) made other readers list a
    half-written file as a log file while a MOR write ran (issue 15, item 5).
    """
    return os.path.join(os.path.dirname(target), f".hudi-sql-{os.getpid()}-{uuid.uuid4().hex[:12]}{TEMP_SUFFIX}")


class LocalStore:
    """Local / shared-mount storage. Stateless; safe to use in Spark tasks."""

    def exists(self, path: str) -> bool:
        return os.path.exists(qualify(path))

    def is_dir(self, path: str) -> bool:
        return os.path.isdir(qualify(path))

    def mkdirs(self, path: str) -> None:
        os.makedirs(qualify(path), exist_ok=True)

    def list(self, path: str) -> list[FileStatus]:
        base = qualify(path)
        out: list[FileStatus] = []
        try:
            entries = list(os.scandir(base))
        except FileNotFoundError:
            return out
        for entry in entries:
            try:
                st = entry.stat()
            except FileNotFoundError:
                continue  # deleted while listing
            out.append(FileStatus(entry.path, entry.name, st.st_size, entry.is_dir(), st.st_mtime))
        return out

    def walk_files(self, path: str) -> Iterator[FileStatus]:
        base = qualify(path)
        for root, _dirs, files in os.walk(base):
            for name in files:
                full = os.path.join(root, name)
                try:
                    st = os.stat(full)
                except FileNotFoundError:
                    continue
                yield FileStatus(full, name, st.st_size, False, st.st_mtime)

    def walk_folders(self, path: str, *, skip_top: frozenset[str] = frozenset()) -> Iterator[tuple[str, list[str]]]:
        """(folder relative to *path*, ``/``-separated, ``""`` for *path* itself; its file names) for
        every folder below *path*, top-level folders named in *skip_top* and all below them left out."""
        root = qualify(path)
        for current, dirs, files in os.walk(root):
            rel = os.path.relpath(current, root).replace(os.sep, "/")
            if rel == ".":
                dirs[:] = [d for d in dirs if d not in skip_top]
                rel = ""
            yield rel, files

    def read_bytes(self, path: str) -> bytes:
        with open(qualify(path), "rb") as fh:
            return fh.read()

    def write_bytes(self, path: str, data: bytes, *, overwrite: bool = True) -> None:
        """Write a whole file atomically: to a temporary name (:func:`temp_path`), then rename into place.

        With ``overwrite=False`` the final step is a hard link, which fails if the target
        exists: two writers racing for one completed instant cannot both win.
        """
        target = qualify(path)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        tmp = temp_path(target)
        try:
            with open(tmp, "wb") as fh:
                fh.write(data)
                fh.flush()
                os.fsync(fh.fileno())
        except BaseException:
            _unlink_quietly(tmp)
            raise
        if overwrite:
            os.replace(tmp, target)
            _drop_checksum(target)
            return
        try:
            os.link(tmp, target)
        except FileExistsError:
            raise CommitConflictError(f"'{target}' already exists; another writer created it first.") from None
        finally:
            os.unlink(tmp)

    def create_empty(self, path: str) -> None:
        self.write_bytes(path, b"")

    def create_exclusive(self, path: str, data: bytes) -> bool:
        """Create *path* holding *data* only if it does not exist (``O_EXCL``); ``False`` if it did.

        The lock file of the file-system lock provider: of several processes racing, exactly
        one creates it.
        """
        target = qualify(path)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        try:
            fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        except FileExistsError:
            return False
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        return True

    def touch(self, path: str) -> bool:
        """Set an existing *path*'s modification time to now (heartbeats); ``False`` if it is gone."""
        try:
            os.utime(qualify(path), None)
            return True
        except FileNotFoundError:
            return False

    def set_modification_time(self, path: str, seconds: float) -> None:
        """Set *path*'s modification time (seconds since the epoch): version 6 readers take a
        completed instant's completion time from it."""
        os.utime(qualify(path), (seconds, seconds))

    def modification_time(self, path: str) -> float | None:
        """Seconds since the epoch of *path*'s last change, ``None`` when it does not exist."""
        try:
            return os.stat(qualify(path)).st_mtime
        except FileNotFoundError:
            return None

    def delete(self, path: str) -> bool:
        target = qualify(path)
        try:
            os.unlink(target)
        except FileNotFoundError:
            return False
        _drop_checksum(target)
        return True

    def delete_dir(self, path: str) -> None:
        shutil.rmtree(qualify(path), ignore_errors=True)

    def size(self, path: str) -> int:
        return os.path.getsize(qualify(path))

    def open_input(self, path: str) -> pa.NativeFile:
        return pa.OSFile(qualify(path), "rb")

    def open_output(self, path: str) -> pa.NativeFile:
        """A file written in place (data files: a reader trusts only those a commit names)."""
        target = qualify(path)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        return pa.OSFile(target, "wb")

    def check_container(self, path: str) -> None:
        """A local path needs no bucket; its folder is made on the first write."""


def _unlink_quietly(path: str) -> None:
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass


def _drop_checksum(target: str) -> None:
    """Remove Hadoop's checksum file of *target* (``.<name>.crc``), which its content no longer matches.

    Apache Hudi on a local file system writes through Hadoop's checksummed file system, which
    keeps a ``.crc`` beside each file and refuses to read a file that disagrees with it
    (``ChecksumException``). A file we rewrite (``hoodie.properties``) or delete must not leave
    the old checksum behind; without one, Hadoop reads the file unchecked, as for any file
    written by another tool.
    """
    try:
        os.unlink(os.path.join(os.path.dirname(target), f".{os.path.basename(target)}.crc"))
    except FileNotFoundError:
        pass
