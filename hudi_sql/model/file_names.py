"""The file-name grammar of data files (table version 6).

Base file: ``<fileId>_<writeToken>_<instantTime>.parquet``, e.g.
``a079bdb3-731c-4894-b855-abfcd6921007-0_0-182-253_20240418173550988.parquet``.

Log file: ``.<fileId>_<baseInstantTime>.log.<version>_<writeToken>``; in v6 the instant is the
base instant of the file slice the log belongs to, not the deltacommit that wrote it.

* ``fileId`` is ``<uuid4>-<n>``: letters, digits and ``-`` only (Java's pattern forbids ``_``
  and ``.``), so splitting on ``_`` is unambiguous.
* ``writeToken`` is ``<taskPartitionId>-<stageId>-<taskAttemptId>``: it identifies one attempt
  at writing the file, so a retried task never collides with the attempt it replaces.
"""

from __future__ import annotations

__all__ = ["BaseFileName", "LogFileName", "new_file_id", "make_write_token", "PARTITION_METADATA_FILE",
           "is_data_file_name"]

import re
import uuid
from dataclasses import dataclass

from hudi_sql.errors import HudiFileFormatError

PARTITION_METADATA_FILE = ".hoodie_partition_metadata"

_BASE = re.compile(r"^([A-Za-z0-9-]+)_(\d+-\d+-\d+)_(\d{14}|\d{17})\.(parquet)$")
_LOG = re.compile(r"^\.([A-Za-z0-9-]+)_(\d{14}|\d{17})\.log\.(\d+)_(\d+-\d+-\d+)$")


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
    file_id: str
    base_instant_time: str
    version: int
    write_token: str

    @classmethod
    def parse(cls, name: str) -> LogFileName:
        parsed = cls.try_parse(name)
        if parsed is None:
            raise HudiFileFormatError(
                f"'{name}' is not a Hudi log file name (.<fileId>_<baseInstant>.log.<version>_<token>)."
            )
        return parsed

    @classmethod
    def try_parse(cls, name: str) -> LogFileName | None:
        match = _LOG.match(name)
        if not match:
            return None
        return cls(match.group(1), match.group(2), int(match.group(3)), match.group(4))

    @property
    def name(self) -> str:
        return f".{self.file_id}_{self.base_instant_time}.log.{self.version}_{self.write_token}"

    def sort_key(self) -> tuple[str, int, str]:
        """Readers order a slice's logs by (base instant, version, write token)."""
        return (self.base_instant_time, self.version, self.write_token)

    def __str__(self) -> str:
        return self.name


def is_data_file_name(name: str) -> bool:
    return _BASE.match(name) is not None or _LOG.match(name) is not None
