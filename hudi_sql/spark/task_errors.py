"""Errors raised inside Spark tasks, translated on the driver into the :class:`HudiError` hierarchy.

A task that fails reaches the driver as a Py4J error (``Py4JJavaError``) or PySpark's
``PythonException``, whose text holds the worker's traceback or the JVM's stack trace: the
culprit is somewhere inside. Two kinds are recognised:

* one of our own errors raised in a Python task (``hudi_sql.errors.HudiFileFormatError: log
  file ...``): raised again on the driver as the same class with the same message;
* a data file that does not read (Spark's ``FAILED_READ_FILE`` naming it, pyarrow's ``Could not
  open Parquet input source '<path>'``): a :class:`HudiFileFormatError` naming the file.

Anything else is left as it is (``None``): a translation must never hide an error it does not
understand. The original error stays attached as ``__cause__``.
"""

from __future__ import annotations

__all__ = ["translate_task_error", "translated_task_errors"]

import re
from collections.abc import Iterator
from contextlib import contextmanager

import hudi_sql.errors
from hudi_sql.errors import HudiError, HudiFileFormatError

# "hudi_sql.errors.HudiFileFormatError: <message>" up to the end of the traceback's last line
# group: a blank line, a JVM frame ("\tat ..."), or the end of the text.
_OURS = re.compile(r"hudi_sql\.errors\.(\w+): (.*?)(?=\n\s*\n|\n\tat |\n\s+at [\w$.]+\(|\nJVM stacktrace:|\Z)",
                   re.DOTALL)
_SPARK_FILE = re.compile(r"Encountered error while reading file (\S+?)\.?(?:\s|$)")
_ARROW_FILE = re.compile(r"(?:Could not open Parquet input source|Failed to open local file) '([^']+)'[:,]?\s*([^\n]*)")
_CAUSE = re.compile(r"(?:Caused by: )?([\w.$]+(?:Exception|Error)): ([^\n]+)")


def _text(error: BaseException) -> str:
    """The error's text: a ``Py4JJavaError``'s holds the Java exception and its stack trace
    (causes and the worker's traceback included), a ``PythonException``'s the worker's traceback."""
    return str(error)


def translate_task_error(error: BaseException) -> HudiError | None:
    """The :class:`HudiError` a failed Spark job stands for, or ``None`` when it names no culprit."""
    if isinstance(error, HudiError):
        return error
    text = _text(error)
    ours = _OURS.findall(text)
    if ours:
        name, message = ours[-1]  # the innermost: the task's own exception
        kind = getattr(hudi_sql.errors, name, None)
        if isinstance(kind, type) and issubclass(kind, HudiError):
            message, _, help_ = message.strip().partition("\nHelp: ")
            try:
                return kind(message, help=help_.strip() or None)
            except TypeError:  # a subclass with its own constructor
                return HudiError(message, help=help_.strip() or None)
    arrow = _ARROW_FILE.search(text)
    if arrow:
        return HudiFileFormatError(f"Data file {arrow.group(1)} does not read: {arrow.group(2).strip()}",
                                   help=_DAMAGED_HELP)
    spark = _SPARK_FILE.search(text)
    if spark:
        path = spark.group(1)
        causes = [c for c in _CAUSE.findall(text) if "SparkException" not in c[0]]
        cause = f": {causes[-1][0].rsplit('.', 1)[-1]}: {causes[-1][1].strip()}" if causes else ""
        return HudiFileFormatError(f"Data file {path} does not read{cause}", help=_DAMAGED_HELP)
    return None


_DAMAGED_HELP = ("the file is damaged or not a parquet file; restore it from a copy, or roll back the "
                 "commit that wrote it (its instant time is the last part of a base file's name)")


@contextmanager
def translated_task_errors() -> Iterator[None]:
    """Run Spark actions; a failure naming a culprit is raised again as a :class:`HudiError`."""
    try:
        yield
    except HudiError:
        raise
    except Exception as exc:
        translated = translate_task_error(exc)
        if translated is None:
            raise
        raise translated from exc
