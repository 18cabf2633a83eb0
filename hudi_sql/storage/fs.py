"""Storage access for table files: the one place that touches the file system.

hudi-sql runs its tasks on a Spark cluster whose executors share the table's storage with the
driver; here that is a POSIX path (local disk or a shared mount), given as a plain path or a
``file:`` URI. Creating a file is *create-if-absent* where it matters (completed instants),
and every write of metadata is whole-file, so a reader never sees half a commit.
"""

from __future__ import annotations

__all__ = ["TEMP_SUFFIX", "FileStatus", "Storage", "temp_path", "to_local_path", "to_uri"]

import os
import shutil
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from hudi_sql.errors import CommitConflictError


def to_local_path(path: str | os.PathLike[str]) -> str:
    text = os.fspath(path)
    if text.startswith("file://"):
        text = text[len("file://"):]
    elif text.startswith("file:"):
        text = text[len("file:"):]
    return os.path.abspath(text)


def to_uri(path: str) -> str:
    return "file://" + to_local_path(path)


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


@dataclass(frozen=True)
class FileStatus:
    path: str
    name: str
    size: int
    is_dir: bool
    modification_time: float


class Storage:
    """Local / shared-mount storage. Stateless; safe to use in Spark tasks."""

    def exists(self, path: str) -> bool:
        return os.path.exists(to_local_path(path))

    def is_dir(self, path: str) -> bool:
        return os.path.isdir(to_local_path(path))

    def mkdirs(self, path: str) -> None:
        os.makedirs(to_local_path(path), exist_ok=True)

    def list(self, path: str) -> list[FileStatus]:
        base = to_local_path(path)
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
        base = to_local_path(path)
        for root, _dirs, files in os.walk(base):
            for name in files:
                full = os.path.join(root, name)
                try:
                    st = os.stat(full)
                except FileNotFoundError:
                    continue
                yield FileStatus(full, name, st.st_size, False, st.st_mtime)

    def read_bytes(self, path: str) -> bytes:
        with open(to_local_path(path), "rb") as fh:
            return fh.read()

    def write_bytes(self, path: str, data: bytes, *, overwrite: bool = True) -> None:
        """Write a whole file atomically: to a temporary name (:func:`temp_path`), then rename into place.

        With ``overwrite=False`` the final step is a hard link, which fails if the target
        exists: two writers racing for one completed instant cannot both win.
        """
        target = to_local_path(path)
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
        target = to_local_path(path)
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
            os.utime(to_local_path(path), None)
            return True
        except FileNotFoundError:
            return False

    def set_modification_time(self, path: str, seconds: float) -> None:
        """Set *path*'s modification time (seconds since the epoch): version 6 readers take a
        completed instant's completion time from it."""
        os.utime(to_local_path(path), (seconds, seconds))

    def modification_time(self, path: str) -> float | None:
        """Seconds since the epoch of *path*'s last change, ``None`` when it does not exist."""
        try:
            return os.stat(to_local_path(path)).st_mtime
        except FileNotFoundError:
            return None

    def delete(self, path: str) -> bool:
        target = to_local_path(path)
        try:
            os.unlink(target)
        except FileNotFoundError:
            return False
        _drop_checksum(target)
        return True

    def delete_dir(self, path: str) -> None:
        shutil.rmtree(to_local_path(path), ignore_errors=True)

    def size(self, path: str) -> int:
        return os.path.getsize(to_local_path(path))

    def join(self, base: str, *parts: str) -> str:
        return str(Path(to_local_path(base)).joinpath(*[p for p in parts if p]))


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
