"""Structured Streaming options: the Hudi sink's checkpoint, retries and compaction, and the
Hudi source's first offset (Apache Hudi's keys and defaults)."""

from __future__ import annotations

__all__ = ["HudiStreamingConfig", "parse_start_offset"]

from hudi_sql.config.registry import ConfigOption, ConfigScope, parse_bool, parse_int, parse_str


def parse_start_offset(value: str) -> str:
    """``earliest``, ``latest`` or an instant time (yyyyMMddHHmmss[SSS])."""
    text = value.strip()
    if text.lower() in ("earliest", "latest"):
        return text.lower()
    if not text.isdigit() or len(text) not in (14, 17):
        raise ValueError(f"'{value}' is not earliest, latest or an instant time (yyyyMMddHHmmssSSS)")
    return text


class HudiStreamingConfig(ConfigScope):
    """``writeStream.format("hudi")`` and ``readStream.format("hudi")`` (streaming scope)."""

    CHECKPOINT_IDENTIFIER = ConfigOption(
        "hoodie.datasource.write.streaming.checkpoint.identifier", parse_str, "default_single_writer",
        "Names this stream's entry in the batch-id checkpoint each commit records; streams writing one "
        "table each need their own.")
    RETRY_COUNT = ConfigOption("hoodie.datasource.write.streaming.retry.count", parse_int, 3,
                               "Times a failed micro-batch write is tried again.", minimum=0)
    RETRY_INTERVAL_MS = ConfigOption("hoodie.datasource.write.streaming.retry.interval.ms", parse_int, 2000,
                                     "Milliseconds between tries of a failed micro-batch (doubling).", minimum=0)
    IGNORE_FAILED_BATCH = ConfigOption(
        "hoodie.datasource.write.streaming.ignore.failed.batch", parse_bool, False,
        "Go on with the next micro-batch when one fails every try (its rows are lost); default: the query fails.")
    DISABLE_COMPACTION = ConfigOption(
        "hoodie.datasource.write.streaming.disable.compaction", parse_bool, False,
        "Merge-On-Read streams: no compaction by the sink (run it elsewhere).")
    ASYNC_COMPACTION = ConfigOption(
        "hoodie.datasource.compaction.async.enable", parse_bool, True,
        "Merge-On-Read streams compact when hoodie.compact.inline.max.delta.commits deltacommits have "
        "accumulated; hudi-sql runs that compaction between micro-batches, not beside them.")
    START_OFFSET = ConfigOption(
        "hoodie.datasource.streaming.startOffset", parse_start_offset, "earliest",
        "Where a new streaming read starts: earliest (every commit), latest (commits after the start) or an "
        "instant time (commits after it). A restarted query resumes from its checkpoint instead.")
