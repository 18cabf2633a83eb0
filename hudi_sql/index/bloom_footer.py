"""A base file's bloom index footer: the filter and key range Hudi stores in parquet key-value metadata.

Apache Hudi writes, into the footer of every base parquet file with meta fields populated, a
bloom filter of the file's record keys (:data:`~hudi_sql.model.footer_keys.BLOOM_FILTER_KEY`),
its type code for dynamic filters, and the smallest and largest key. Java's bloom index prunes
files by the ``[min, max]`` range, tests the filter, then confirms candidates by reading the
file; :func:`footer_metadata` writes exactly what Java's ``HoodieBloomFilterWriteSupport`` does
and :func:`read_footer_index` reads it back as Java's ``readBloomFilterFromMetadata`` does.

Split from :mod:`hudi_sql.index.bloom_filter`, which owns the filter values, their bytes and the
footer key names.
"""

from __future__ import annotations

__all__ = ["FooterIndex", "footer_metadata", "read_footer_index"]

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy.typing as npt

from hudi_sql.errors import HudiFileFormatError
from hudi_sql.index.bloom_filter import (
    DEFAULT_FPP,
    DEFAULT_MAX_ENTRIES,
    DEFAULT_NUM_ENTRIES,
    BloomFilter,
    BloomFilterType,
    DynamicBloomFilter,
)
from hudi_sql.index.bloom_hash import encode_key
from hudi_sql.model.footer_keys import (
    BLOOM_FILTER_KEY,
    BLOOM_FILTER_TYPE_CODE_KEY,
    LEGACY_BLOOM_FILTER_KEY,
    MAX_RECORD_KEY_KEY,
    MIN_RECORD_KEY_KEY,
)


def footer_metadata(
    keys: Sequence[str] | npt.NDArray[Any],
    *,
    num_entries: int = DEFAULT_NUM_ENTRIES,
    fpp: float = DEFAULT_FPP,
    max_entries: int = DEFAULT_MAX_ENTRIES,
    filter_type: BloomFilterType | str = BloomFilterType.DYNAMIC_V0,
) -> dict[bytes, bytes]:
    """The Hudi key-value metadata for a base parquet file holding *keys*.

    Follows Java's ``HoodieBloomFilterWriteSupport.finalizeMetadata``: the bloom filter always,
    the type code only for DYNAMIC types (a reader without it assumes SIMPLE), min/max only when
    keys were added. A file without rows (a delete that emptied its file group) so still has its
    (empty) bloom filter, which the metadata table's ``bloom_filters`` partition records as Java's.

    Min and max use Python ``str`` order (by code point). That equals Java's order on the Spark
    write path (``UTF8String``, unsigned UTF-8 bytes) and on the Avro path (``String.compareTo``,
    UTF-16 code units) unless keys contain characters outside the Basic Multilingual Plane,
    where UTF-16 surrogates sort below U+E000..U+FFFF.

    Args:
        keys: The file's ``_hoodie_record_key`` values, in the order the rows are written (the
            order decides the rows of a dynamic filter past ``num_entries`` keys).
        num_entries: ``hoodie.index.bloom.num_entries``.
        fpp: ``hoodie.index.bloom.fpp``.
        max_entries: ``hoodie.bloom.index.filter.dynamic.max.entries`` (DYNAMIC_V0 only).
        filter_type: ``hoodie.bloom.index.filter.type``.

    Returns:
        Footer key to value, both UTF-8 bytes.

    Raises:
        HudiConfigError: A sizing option or the filter type is invalid.
        HudiKeyError: A key is empty.
    """
    kind = BloomFilterType.parse(filter_type)
    bloom: BloomFilter
    if kind is BloomFilterType.DYNAMIC_V0:
        bloom = DynamicBloomFilter(num_entries=num_entries, fpp=fpp, max_entries=max_entries)
    else:
        bloom = BloomFilter(num_entries=num_entries, fpp=fpp)
    bloom.add_all(keys)
    metadata = {BLOOM_FILTER_KEY.encode(): bloom.serialize().encode("ascii")}
    if kind is BloomFilterType.DYNAMIC_V0:
        metadata[BLOOM_FILTER_TYPE_CODE_KEY.encode()] = kind.value.encode()
    if len(keys):
        metadata[MIN_RECORD_KEY_KEY.encode()] = encode_key(str(min(keys)))  # str(): numpy arrays give np.str_
        metadata[MAX_RECORD_KEY_KEY.encode()] = encode_key(str(max(keys)))
    return metadata


@dataclass(frozen=True)
class FooterIndex:
    """What a base file's footer offers the bloom index: its key range and bloom filter.

    Attributes:
        min_key: ``hoodie_min_record_key``, or ``None`` when absent (a filter with no keys).
        max_key: ``hoodie_max_record_key``, or ``None`` when absent.
        bloom_filter: The parsed filter, or ``None`` when the footer has only a key range.
    """

    min_key: str | None
    max_key: str | None
    bloom_filter: BloomFilter | None


def read_footer_index(metadata: Mapping[bytes, bytes] | None) -> FooterIndex | None:
    """The bloom filter and key range from parquet key-value metadata (``ParquetFile.metadata.metadata``).

    Reads ``org.apache.hudi.bloomfilter``, falling back to the legacy ``com.uber.hoodie.bloomfilter``,
    and its type code (absent means SIMPLE), as Java's ``readBloomFilterFromMetadata`` does.

    Args:
        metadata: The footer key-value metadata; ``None`` (no metadata) is allowed.

    Returns:
        ``None`` when the footer has neither a bloom filter nor a key range (for example tables
        with ``hoodie.populate.meta.fields=false``), else a :class:`FooterIndex`.

    Raises:
        HudiFileFormatError: A value is not UTF-8, the filter does not parse, or only one of
            min/max is present.
        UnsupportedFeatureError: The filter is in the legacy Jenkins format.
    """
    if not metadata:
        return None
    text = _footer_value(metadata, BLOOM_FILTER_KEY)
    if text is None:
        text = _footer_value(metadata, LEGACY_BLOOM_FILTER_KEY)
    min_key = _footer_value(metadata, MIN_RECORD_KEY_KEY)
    max_key = _footer_value(metadata, MAX_RECORD_KEY_KEY)
    if (min_key is None) != (max_key is None):
        raise HudiFileFormatError(
            f"footer has only one of {MIN_RECORD_KEY_KEY} / {MAX_RECORD_KEY_KEY}",
            help="Hudi writes both or neither; the file footer is damaged",
        )
    if text is None and min_key is None:
        return None
    bloom = None
    if text is not None:
        bloom = BloomFilter.deserialize(text, _footer_value(metadata, BLOOM_FILTER_TYPE_CODE_KEY))
    return FooterIndex(min_key=min_key, max_key=max_key, bloom_filter=bloom)


def _footer_value(metadata: Mapping[bytes, bytes], key: str) -> str | None:
    raw = metadata.get(key.encode())
    if raw is None:
        return None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise HudiFileFormatError(f"footer value of '{key}' is not UTF-8") from None
