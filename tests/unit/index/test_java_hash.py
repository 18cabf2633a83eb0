"""Java's String.hashCode, vectorised: the same value for every key shape as the one-by-one fold."""

from __future__ import annotations

import pyarrow as pa

from hudi_sql.index.java_hash import java_string_hash, java_string_hashes

KNOWN = {"": 0, "a": 97, "hello world": 1794106052, "Hudi": 2260594}  # what Java returns


def test_known_java_hash_codes() -> None:
    assert {k: java_string_hash(k) for k in KNOWN} == KNOWN
    assert java_string_hashes(pa.array(list(KNOWN))).tolist() == list(KNOWN.values())


def test_vectorised_equals_fold_for_mixed_lengths_unicode_nulls_and_slices() -> None:
    keys = ["k07", "é日本😀", None, "202401011200_dev7", "x" * 300, "", "id:1,name:Alice", "😀"]
    array = pa.array(["pad", *keys]).slice(1)
    assert java_string_hashes(array).tolist() == [0 if k is None else java_string_hash(k) for k in keys]
