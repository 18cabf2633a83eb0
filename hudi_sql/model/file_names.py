"""The file-name grammar of data files (table version 6).

Base file: ``<fileId>_<writeToken>_<instantTime>.parquet``, e.g.
``a079bdb3-731c-4894-b855-abfcd6921007-0_0-182-253_20240418173550988.parquet``; the metadata
table's base files are HFiles, ``files-0000-0_0-5-4_00000000000000010.hfile``.

Log file: ``.<fileId>_<baseInstantTime>.log.<version>_<writeToken>``; in v6 the instant is the
base instant of the file slice the log belongs to, not the deltacommit that wrote it.

CDC log file: a log file name plus ``.cdc``, named by the commit whose base file it describes
(``.<fileId>_<commitTime>.log.1_<writeToken>.cdc``): the changes that commit made to the group.

* ``fileId`` is ``<uuid4>-<n>``: letters, digits and ``-`` only (Java's pattern forbids ``_``
  and ``.``), so splitting on ``_`` is unambiguous.
* ``writeToken`` is ``<taskPartitionId>-<stageId>-<taskAttemptId>``: it identifies one attempt
  at writing the file, so a retried task never collides with the attempt it replaces.
"""

from __future__ import annotations

__all__ = [
    "CDC_LOG_SUFFIX",
    "PARTITION_METADATA_FILE",
    "BaseFileName",
    "LogFileName",
    "is_data_file_name",
    "make_write_token",
    "new_file_id",
    "parse_cdc_log_name",
]

import re
import uuid
from dataclasses import dataclass

from hudi_sql.errors import HudiFileFormatError

PARTITION_METADATA_FILE = ".hoodie_partition_metadata"
CDC_LOG_SUFFIX = ".cdc"

#: 14 or 17 digits; 20 in the metadata table, whose own operations suffix a data instant.
_TIME = r"(\d{14}|\d{17}|\d{20})"
_BASE = re.compile(rf"^([A-Za-z0-9-]+)_(\d+-\d+-\d+)_{_TIME}\.(parquet|hfile)$")
_LOG = re.compile(rf"^\.([A-Za-z0-9-]+)_{_TIME}\.log\.(\d+)_(\d+-\d+-\d+)$")


def new_file_id(counter: int = 0) -> str:
    """A new file group id, ``<uuid4>-<counter>`` as Java's ``createNewFileId``."""
    return f"{uuid.uuid4()}-{counter}"


def make_write_token(task_partition_id: int, stage_id: int, task_attempt_id: int) -> str:
    return f"{task_partition_id}-{stage_id}-{task_attempt_id}"


@dataclass(frozen=True)
class BaseFileName:
    file_id: str
    write_token: str
    instant_time: str
    extension: str = "parquet"

    @classmethod
    def parse(cls, name: str) -> BaseFileName:
        match = _BASE.match(name)
        if not match:
            raise HudiFileFormatError(f"'{name}' is not a Hudi base file name (<fileId>_<token>_<instant>.parquet).")
        return cls(match.group(1), match.group(2), match.group(3), match.group(4))

    @classmethod
    def try_parse(cls, name: str) -> BaseFileName | None:
        match = _BASE.match(name)
        return cls(match.group(1), match.group(2), match.group(3), match.group(4)) if match else None

    @property
    def name(self) -> str:
        return f"{self.file_id}_{self.write_token}_{self.instant_time}.{self.extension}"

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True)
class LogFileName:
    """The name of a log file: ``.<fileId>_<baseInstant>.log.<version>_<writeToken>``.

    In table version 6 the instant is the *base instant of the file slice* (the base file's
    instant), not the deltacommit that wrote the log; that one is only in the block headers.
    Versions start at 1 and a writer always rolls over to ``max(version) + 1``.

    Sorting follows readers (Java ``HoodieLogFile``, hudi-rs): base instant, then version,
    then write token compared as a string; the file id only breaks remaining ties.

    Attributes:
        file_id: the file group id (a UUID plus ``-<n>``); contains no ``_``.
        base_instant: the base instant of the file slice.
        version: the log version, from 1.
        write_token: ``<taskPartitionId>-<stageId>-<taskAttemptId>``.
    """

    file_id: str
    base_instant: str
    version: int
    write_token: str

    @classmethod
    def parse(cls, name: str) -> LogFileName:
        """Parses a log file name (a path is reduced to its last component) as hudi-rs does.

        Raises:
            HudiFileFormatError: when *name* is not a log file name.
        """
        base = name.rsplit("/", 1)[-1]
        stripped = base.removeprefix(".")
        file_id, sep, rest = stripped.partition("_")
        middle, sep2, token = rest.rpartition("_")
        parts = middle.split(".")
        if not (sep and sep2 and file_id and token and len(parts) == 3 and parts[1] == "log"):
            raise HudiFileFormatError(
                f"'{name}' is not a log file name",
                help="expected .<fileId>_<baseInstant>.log.<version>_<writeToken>",
            )
        instant, _, version = parts
        if not instant or not (version.isascii() and version.isdigit()):
            raise HudiFileFormatError(
                f"'{name}' is not a log file name: bad instant '{instant}' or version '{version}'",
                help="expected .<fileId>_<baseInstant>.log.<version>_<writeToken>",
            )
        return cls(file_id, instant, int(version), token)

    @classmethod
    def try_parse(cls, name: str) -> LogFileName | None:
        """The parsed name, or None when *name* is not a log file name (stray files are skipped)."""
        return cls.parse(name) if _LOG.match(name.rsplit("/", 1)[-1]) else None

    @property
    def name(self) -> str:
        """The file name, with its leading dot."""
        return f".{self.file_id}_{self.base_instant}.log.{self.version}_{self.write_token}"

    @property
    def sort_key(self) -> tuple[str, int, str, str]:
        """Reader order: (base instant, version, write token, file id)."""
        return (self.base_instant, self.version, self.write_token, self.file_id)

    @property
    def cdc_name(self) -> str:
        """The name of the CDC log file with this log file's parts."""
        return self.name + CDC_LOG_SUFFIX

    def next_version(self, write_token: str) -> LogFileName:
        """The name a writer rolls over to: the next version, with its own write token."""
        return LogFileName(self.file_id, self.base_instant, self.version + 1, write_token)

    def __lt__(self, other: LogFileName) -> bool:
        return self.sort_key < other.sort_key

    def __le__(self, other: LogFileName) -> bool:
        return self.sort_key <= other.sort_key

    def __gt__(self, other: LogFileName) -> bool:
        return self.sort_key > other.sort_key

    def __ge__(self, other: LogFileName) -> bool:
        return self.sort_key >= other.sort_key

    def __str__(self) -> str:
        return self.name


def parse_cdc_log_name(name: str) -> LogFileName | None:
    """The log-file parts of a CDC log file name, or None when *name* is not one."""
    base = name.rsplit("/", 1)[-1]
    if not base.endswith(CDC_LOG_SUFFIX):
        return None
    return LogFileName.try_parse(base.removesuffix(CDC_LOG_SUFFIX))


def is_data_file_name(name: str) -> bool:
    return _BASE.match(name) is not None or _LOG.match(name) is not None
