"""Errors of Spark tasks translated into the HudiError hierarchy, from the texts PySpark gives."""

from __future__ import annotations

from hudi_sql.errors import HudiFileFormatError, HudiKeyError
from hudi_sql.spark.task_errors import translate_task_error, translated_task_errors

PYTHON_WORKER = """An exception was thrown from the Python worker:
Traceback (most recent call last):
  File "/x/hudi_sql/log/scanner.py", line 170, in _decode
    raise HudiFileFormatError(
hudi_sql.errors.HudiFileFormatError: log file /t/a/.f1_001.log.1_0-1-0, AVRO_DATA block at offset 0 of instant 002 does not decode: boom
Help: restore the file from a copy

"""
JVM = """An error occurred while calling o321.collectToPython.
: org.apache.spark.SparkException: [FAILED_READ_FILE.NO_HINT] Encountered error while reading file file:///t/a/f1_0-1-0_001.parquet.  SQLSTATE: KD001
\tat org.apache.spark.sql.errors.QueryExecutionErrors$.cannotReadFilesError(QueryExecutionErrors.scala:856)
Caused by: java.lang.RuntimeException: file:/t/a/f1_0-1-0_001.parquet is not a Parquet file. Expected magic number at tail
\tat org.apache.parquet.hadoop.ParquetFileReader.readFooter(ParquetFileReader.java:565)
"""


def test_translate_task_error_our_error_in_python_worker_same_class_and_message() -> None:
    error = translate_task_error(RuntimeError(PYTHON_WORKER))
    assert type(error) is HudiFileFormatError
    assert str(error).startswith("log file /t/a/.f1_001.log.1_0-1-0, AVRO_DATA block at offset 0 of instant 002")
    assert error.help == "restore the file from a copy"


def test_translate_task_error_spark_failed_read_names_file_and_cause() -> None:
    error = translate_task_error(RuntimeError(JVM))
    assert isinstance(error, HudiFileFormatError)
    assert "file:///t/a/f1_0-1-0_001.parquet" in str(error) and "not a Parquet file" in str(error)


def test_translate_task_error_pyarrow_open_failure_names_file() -> None:
    error = translate_task_error(RuntimeError(
        "pyarrow.lib.ArrowInvalid: Could not open Parquet input source '/t/a/f1_0-1-0_001.parquet': "
        "Parquet magic bytes not found in footer."))
    assert isinstance(error, HudiFileFormatError) and "/t/a/f1_0-1-0_001.parquet" in str(error)


def test_translate_task_error_unknown_failure_left_alone() -> None:
    assert translate_task_error(RuntimeError("Job aborted: executor lost")) is None


def test_translated_task_errors_reraises_translation_with_original_as_cause() -> None:
    original = RuntimeError("Traceback...\nhudi_sql.errors.HudiKeyError: Ordering value is null for record k1\n")
    try:
        with translated_task_errors():
            raise original
    except HudiKeyError as exc:
        assert exc.__cause__ is original and str(exc) == "Ordering value is null for record k1"
    else:
        raise AssertionError("not translated")
