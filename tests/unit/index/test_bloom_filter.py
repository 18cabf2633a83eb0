"""Unit tests for hudi_sql.index.bloom_filter, bloom_hash and bloom_footer: Hadoop Murmur, SIMPLE/DYNAMIC_V0 bytes, footer helpers."""

from __future__ import annotations

import base64
import random
import struct
import uuid

import numpy as np
import pytest

from hudi_sql.errors import HudiConfigError, HudiFileFormatError, HudiKeyError, UnsupportedFeatureError
from hudi_sql.index.bloom_filter import BloomFilter, BloomFilterType, DynamicBloomFilter
from hudi_sql.index.bloom_footer import FooterIndex, footer_metadata, read_footer_index
from hudi_sql.index.bloom_hash import hash_positions, hash_positions_many, murmur_hash, murmur_hash_many
from hudi_sql.model.footer_keys import (
    BLOOM_FILTER_KEY,
    BLOOM_FILTER_TYPE_CODE_KEY,
    LEGACY_BLOOM_FILTER_KEY,
    MAX_RECORD_KEY_KEY,
    MIN_RECORD_KEY_KEY,
)

# Hadoop 3.5 MurmurHash.hash(bytes, seed), from the format sheet section 13.5.
HADOOP_VECTORS = [
    ("a", -1838653602, -579949966),
    ("ab", 1525573013, -1822173170),
    ("abc", 1775488903, -2108309701),
    ("abcd", 646393889, 758563494),
    ("abcde", 1594468574, 232266555),
    ("é", -384040333, 1887701134),
    ("€", -1486029997, 1099458982),
]

# Header of a real default DYNAMIC_V0 footer holding 4 keys (format sheet section 13.4).
REAL_4_KEY_HEADER = bytes.fromhex(
    "ffffffff0000001e0100277d3e"  # version, nbHash=30, Murmur, vectorSize=2587966
    "0000ea600000000400000001"  # nr=60000, currentNbRecord=4, rows=1
    "ffffffff0000001e0100277d3e"  # row 0 repeats the standard header
)

DEFAULT_ROW_BYTES = 13 + 323496  # one standard filter at the defaults


def _uuids(count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    return [str(uuid.UUID(int=rng.getrandbits(128), version=4)) for _ in range(count)]


def _random_keys(count: int, seed: int) -> list[str]:
    """Keys of lengths 1-40 mixing ASCII, 2-, 3- and 4-byte UTF-8 characters."""
    rng = random.Random(seed)
    alphabet = "abcdefghijklmnopqrstuvwxyz0123456789:,_-éüßçΩЖ€中文字😀𝄞"
    return ["".join(rng.choice(alphabet) for _ in range(rng.randint(1, 40))) for _ in range(count)]


def _header(filter_: BloomFilter) -> tuple[int, ...]:
    """(version, nbHash, hashType, vectorSize[, nr, current, rows]) from the serialized bytes."""
    data = base64.b64decode(filter_.serialize())
    if filter_.type_code is BloomFilterType.DYNAMIC_V0:
        return struct.unpack(">iibiiii", data[:25])
    return struct.unpack(">iibi", data[:13])


def _row_bytes(filter_: DynamicBloomFilter) -> list[bytes]:
    data = base64.b64decode(filter_.serialize())[25:]
    size = len(data) // filter_.num_rows
    return [data[i * size : (i + 1) * size] for i in range(filter_.num_rows)]


# -- Murmur ------------------------------------------------------------------------------------


@pytest.mark.parametrize(("key", "seed0", "seed12345"), HADOOP_VECTORS)
def test_murmur_hash_hadoop_vectors_match(key: str, seed0: int, seed12345: int) -> None:
    assert murmur_hash(key.encode("utf-8"), 0) == seed0
    assert murmur_hash(key.encode("utf-8"), 12345) == seed12345


def test_murmur_hash_many_hadoop_vectors_match() -> None:
    keys = [k.encode("utf-8") for k, _, _ in HADOOP_VECTORS]
    assert murmur_hash_many(keys, 0).tolist() == [v for _, v, _ in HADOOP_VECTORS]
    assert murmur_hash_many(keys, 12345).tolist() == [v for _, _, v in HADOOP_VECTORS]


def test_murmur_hash_three_byte_tail_uses_hadoop_order() -> None:
    # The canonical MurmurHash2 tail differs here (tail 'ice'); this is the key that exposed it.
    data = b"id:1,name:Alice"
    assert murmur_hash_many([data], 7).tolist() == [murmur_hash(data, 7)]
    assert -(2**31) <= murmur_hash(data, 0) < 2**31


@pytest.mark.parametrize("seed", [0, 1, 12345, -1, -(2**31), 2**31 - 1])
def test_murmur_hash_many_random_keys_agree_with_scalar(seed: int) -> None:
    keys = [k.encode("utf-8") for k in _random_keys(500, seed=seed & 0xFFFF)]
    assert {len(k) % 4 for k in keys} == {0, 1, 2, 3}
    assert murmur_hash_many(keys, seed).tolist() == [murmur_hash(k, seed) for k in keys]


def test_hash_positions_many_random_keys_agree_with_scalar() -> None:
    keys = [k.encode("utf-8") for k in _random_keys(300, seed=3)] + [b"\xff", b"\x80\x81\x82"]
    many = hash_positions_many(keys, 30, 2587966)
    assert many.shape == (len(keys), 30)
    assert [row.tolist() for row in many] == [hash_positions(k, 30, 2587966) for k in keys]


def test_hash_positions_chained_seeds_follow_hadoop() -> None:
    key = b"abc"
    h1 = murmur_hash(key, 0)
    h2 = murmur_hash(key, h1)
    assert hash_positions(key, 2, 1000) == [abs(h1) % 1000, abs(h2) % 1000]
    assert all(0 <= p < 2587966 for p in hash_positions(key, 30, 2587966))


def test_hash_positions_empty_key_raises() -> None:
    with pytest.raises(HudiKeyError):
        hash_positions(b"", 30, 2587966)
    with pytest.raises(HudiKeyError):
        hash_positions_many([b"a", b""], 30, 2587966)


# -- sizing and layout ---------------------------------------------------------------------------


def test_bloom_filter_defaults_vector_size_and_nb_hash() -> None:
    for filter_ in (BloomFilter(), DynamicBloomFilter()):
        assert (filter_.vector_size, filter_.nb_hash) == (2587966, 30)
    assert DynamicBloomFilter().num_entries == 60000
    assert DynamicBloomFilter().max_entries == 100000


def test_dynamic_bloom_filter_four_keys_header_matches_real_file() -> None:
    filter_ = DynamicBloomFilter()
    filter_.add_all(_uuids(4, seed=1))
    text = filter_.serialize()
    assert len(text) == 431380
    assert base64.b64decode(text)[: len(REAL_4_KEY_HEADER)] == REAL_4_KEY_HEADER


def test_bloom_filter_simple_serialize_bits_are_lsb_first() -> None:
    filter_ = BloomFilter(num_entries=10, fpp=0.01)
    filter_.add("abc")
    data = base64.b64decode(filter_.serialize())
    assert _header(filter_) == (-1, filter_.nb_hash, 1, filter_.vector_size)
    assert len(data) == 13 + (filter_.vector_size + 7) // 8
    positions = set(hash_positions(b"abc", filter_.nb_hash, filter_.vector_size))
    set_bits = {i for i in range(filter_.vector_size) if data[13 + i // 8] & (1 << (i % 8))}
    assert set_bits == positions


def test_bloom_filter_invalid_sizing_raises_config_error() -> None:
    with pytest.raises(HudiConfigError):
        BloomFilter(num_entries=0)
    with pytest.raises(HudiConfigError):
        BloomFilter(fpp=0.0)
    with pytest.raises(HudiConfigError):
        BloomFilter(fpp=1.0)
    with pytest.raises(HudiConfigError):
        BloomFilter(num_entries=2**31, fpp=1e-9)
    with pytest.raises(HudiConfigError):
        DynamicBloomFilter(max_entries=-1)


# -- membership -----------------------------------------------------------------------------------


@pytest.mark.parametrize("cls", [BloomFilter, DynamicBloomFilter])
def test_bloom_filter_added_keys_all_positive(cls: type[BloomFilter]) -> None:
    keys = _random_keys(2000, seed=11) + _uuids(2000, seed=12) + [str(i) for i in range(1, 2000)]
    filter_ = cls()
    filter_.add_all(keys)
    assert filter_.might_contain_all(keys).all()
    assert all(filter_.might_contain(k) for k in keys[:200])


def test_bloom_filter_add_and_add_all_serialize_identically() -> None:
    keys = _random_keys(300, seed=5)
    one, many = DynamicBloomFilter(), DynamicBloomFilter()
    for key in keys:
        one.add(key)
    many.add_all(keys)
    assert one.serialize() == many.serialize()


def test_bloom_filter_might_contain_all_scalar_agree() -> None:
    filter_ = BloomFilter(num_entries=200, fpp=0.05)
    filter_.add_all(_uuids(200, seed=6))
    probes = _random_keys(2000, seed=7)
    assert filter_.might_contain_all(probes).tolist() == [filter_.might_contain(k) for k in probes]


def test_bloom_filter_measured_false_positive_rate_below_twice_fpp() -> None:
    filter_ = BloomFilter(num_entries=5000, fpp=0.01)
    filter_.add_all(_uuids(5000, seed=21))
    probes = _uuids(20000, seed=22)
    rate = float(filter_.might_contain_all(probes).mean())
    assert rate < 0.02


def test_bloom_filter_empty_batch_returns_empty_array() -> None:
    filter_ = BloomFilter(num_entries=10, fpp=0.01)
    filter_.add_all([])
    result = filter_.might_contain_all([])
    assert result.dtype == np.bool_ and result.shape == (0,)


def test_bloom_filter_empty_or_non_string_key_raises_key_error() -> None:
    filter_ = BloomFilter(num_entries=10, fpp=0.01)
    with pytest.raises(HudiKeyError):
        filter_.add("")
    with pytest.raises(HudiKeyError):
        filter_.add_all(["a", ""])
    with pytest.raises(HudiKeyError):
        filter_.add_all(["a", None])  # type: ignore[list-item]


def test_bloom_filter_lone_surrogate_hashes_like_java_question_mark() -> None:
    filter_ = BloomFilter(num_entries=10, fpp=0.01)
    filter_.add("a\ud800")
    assert filter_.might_contain("a?")
    assert filter_.might_contain_all(["a?"]).tolist() == [True]


def test_bloom_filter_numpy_string_array_accepted() -> None:
    keys = np.array(_uuids(100, seed=8))
    filter_ = DynamicBloomFilter()
    filter_.add_all(keys)
    assert filter_.might_contain_all(keys).all()


# -- dynamic rows ---------------------------------------------------------------------------------


def test_dynamic_bloom_filter_61000_keys_two_rows() -> None:
    keys = [f"key{i}" for i in range(61000)]
    filter_ = DynamicBloomFilter()
    filter_.add_all(keys)
    assert _header(filter_)[4:] == (60000, 1000, 2)
    assert (filter_.num_rows, filter_.current_count) == (2, 1000)
    assert len(base64.b64decode(filter_.serialize())) == 25 + 2 * DEFAULT_ROW_BYTES
    rows = [BloomFilter.deserialize(base64.b64encode(r).decode()) for r in _row_bytes(filter_)]
    assert rows[0].might_contain_all(keys[:60000]).all()
    assert rows[1].might_contain_all(keys[60000:]).all()
    assert filter_.might_contain_all(keys).all()


def test_dynamic_bloom_filter_100000_keys_header_matches_hadoop() -> None:
    filter_ = DynamicBloomFilter()
    filter_.add_all(_uuids(100000, seed=9))
    assert _header(filter_) == (-1, 30, 1, 2587966, 60000, 40000, 2)


def test_dynamic_bloom_filter_past_max_entries_goes_round_robin_from_row_zero() -> None:
    filter_ = DynamicBloomFilter(num_entries=2, fpp=1e-9, max_entries=4)
    keys = [f"k{i}" for i in range(9)]
    filter_.add_all(keys[:4])
    assert (filter_.num_rows, filter_.current_count) == (2, 2)
    landed = []
    for key in keys[4:]:
        before = _row_bytes(filter_)
        filter_.add(key)
        after = _row_bytes(filter_)
        changed = [i for i in range(2) if before[i] != after[i]]
        landed.append(changed[0] if changed else None)
    # Reaching the bound sends a key to row 0 without advancing the index: 0, 0, 1, 0, 1.
    assert landed == [0, 0, 1, 0, 1]
    assert (filter_.num_rows, filter_.current_count) == (2, 7)
    batch = DynamicBloomFilter(num_entries=2, fpp=1e-9, max_entries=4)
    batch.add_all(keys)
    assert batch.serialize() == filter_.serialize()


def test_dynamic_bloom_filter_add_all_across_rows_matches_single_adds() -> None:
    keys = _random_keys(70, seed=13)
    one = DynamicBloomFilter(num_entries=10, fpp=0.01, max_entries=35)
    for key in keys:
        one.add(key)
    many = DynamicBloomFilter(num_entries=10, fpp=0.01, max_entries=35)
    many.add_all(keys)
    assert many.num_rows == 4
    assert one.serialize() == many.serialize()


# -- deserialize ----------------------------------------------------------------------------------


def test_bloom_filter_round_trip_simple_identical() -> None:
    filter_ = BloomFilter(num_entries=1000, fpp=0.001)
    keys = _random_keys(500, seed=14)
    filter_.add_all(keys)
    text = filter_.serialize()
    back = BloomFilter.deserialize(text, None)
    assert type(back) is BloomFilter
    assert back.serialize() == text
    assert back.might_contain_all(keys).all()


def test_bloom_filter_round_trip_dynamic_identical() -> None:
    filter_ = DynamicBloomFilter(num_entries=100, fpp=0.01, max_entries=1000)
    keys = _uuids(250, seed=15)
    filter_.add_all(keys)
    text = filter_.serialize()
    back = DynamicBloomFilter.deserialize(text, "DYNAMIC_V0")
    assert isinstance(back, DynamicBloomFilter)
    assert (back.num_rows, back.current_count, back.num_entries, back.max_entries) == (3, 50, 100, 0)
    assert back.serialize() == text
    assert back.might_contain_all(keys).all()


def test_bloom_filter_deserialize_padding_bits_ignored_like_java() -> None:
    filter_ = BloomFilter()  # 2587966 bits: the last byte has 2 padding bits
    assert filter_.vector_size % 8 == 6
    data = bytearray(base64.b64decode(filter_.serialize()))
    data[-1] |= 0xFF << (filter_.vector_size % 8) & 0xFF
    back = BloomFilter.deserialize(base64.b64encode(bytes(data)).decode())
    assert back.serialize() == filter_.serialize()


def test_bloom_filter_deserialize_dynamic_without_type_code_raises() -> None:
    text = DynamicBloomFilter(num_entries=10, fpp=0.01).serialize()
    with pytest.raises(HudiFileFormatError, match="DYNAMIC_V0"):
        BloomFilter.deserialize(text, None)
    with pytest.raises(HudiFileFormatError):
        BloomFilter.deserialize(text, "")


def test_bloom_filter_deserialize_simple_as_dynamic_class_raises() -> None:
    text = BloomFilter(num_entries=10, fpp=0.01).serialize()
    with pytest.raises(HudiFileFormatError):
        DynamicBloomFilter.deserialize(text, None)


def test_bloom_filter_deserialize_unknown_type_code_raises() -> None:
    text = BloomFilter(num_entries=10, fpp=0.01).serialize()
    with pytest.raises(HudiFileFormatError, match="DYNAMIC_V1"):
        BloomFilter.deserialize(text, "DYNAMIC_V1")


def test_bloom_filter_deserialize_bad_base64_or_truncated_raises() -> None:
    text = BloomFilter(num_entries=10, fpp=0.01).serialize()
    with pytest.raises(HudiFileFormatError):
        BloomFilter.deserialize("not base64!")
    truncated = base64.b64encode(base64.b64decode(text)[:-1]).decode()
    with pytest.raises(HudiFileFormatError, match="end early"):
        BloomFilter.deserialize(truncated)


def test_bloom_filter_deserialize_legacy_or_jenkins_raises_unsupported() -> None:
    data = bytearray(base64.b64decode(BloomFilter(num_entries=10, fpp=0.01).serialize()))
    jenkins = bytes(data[:8]) + b"\x00" + bytes(data[9:])
    with pytest.raises(UnsupportedFeatureError):
        BloomFilter.deserialize(base64.b64encode(jenkins).decode())
    legacy = struct.pack(">i", 7) + bytes(data[4:])
    with pytest.raises(UnsupportedFeatureError):
        BloomFilter.deserialize(base64.b64encode(legacy).decode())


# -- footer ---------------------------------------------------------------------------------------


def test_footer_metadata_no_keys_an_empty_filter_and_no_range() -> None:
    for keys in ([], np.array([], dtype=object)):
        footer = footer_metadata(keys)
        assert sorted(footer) == sorted([BLOOM_FILTER_KEY.encode(), BLOOM_FILTER_TYPE_CODE_KEY.encode()])
        index = read_footer_index(footer)
        assert index is not None and index.min_key is None and index.bloom_filter is not None
        assert not index.bloom_filter.might_contain("k")


def test_footer_metadata_dynamic_has_type_code_and_range() -> None:
    keys = ["id:2,name:Bob", "id:1,name:Alice", "id:3,name:Carol"]
    metadata = footer_metadata(keys)
    assert set(metadata) == {
        BLOOM_FILTER_KEY.encode(),
        BLOOM_FILTER_TYPE_CODE_KEY.encode(),
        MIN_RECORD_KEY_KEY.encode(),
        MAX_RECORD_KEY_KEY.encode(),
    }
    assert metadata[BLOOM_FILTER_TYPE_CODE_KEY.encode()] == b"DYNAMIC_V0"
    assert metadata[MIN_RECORD_KEY_KEY.encode()] == b"id:1,name:Alice"
    assert metadata[MAX_RECORD_KEY_KEY.encode()] == b"id:3,name:Carol"


def test_footer_metadata_simple_has_no_type_code() -> None:
    metadata = footer_metadata(["b", "a"], num_entries=10, fpp=0.01, filter_type="simple")
    assert BLOOM_FILTER_TYPE_CODE_KEY.encode() not in metadata
    index = read_footer_index(metadata)
    assert index is not None and type(index.bloom_filter) is BloomFilter
    assert (index.min_key, index.max_key) == ("a", "b")


def test_footer_metadata_unknown_filter_type_raises() -> None:
    with pytest.raises(HudiConfigError):
        footer_metadata(["a"], filter_type="BLOOMIER")


def test_read_footer_index_round_trip_from_footer_metadata() -> None:
    keys = np.array(_uuids(50, seed=16) + ["ü-key"])
    index = read_footer_index(footer_metadata(keys))
    assert index is not None and index.bloom_filter is not None
    assert index.bloom_filter.type_code is BloomFilterType.DYNAMIC_V0
    assert (index.min_key, index.max_key) == (min(keys.tolist()), max(keys.tolist()))
    assert index.bloom_filter.might_contain_all(keys).all()


def test_read_footer_index_no_hudi_keys_none() -> None:
    assert read_footer_index(None) is None
    assert read_footer_index({}) is None
    assert read_footer_index({b"writer.model.name": b"avro"}) is None


def test_read_footer_index_legacy_key_read() -> None:
    text = BloomFilter(num_entries=10, fpp=0.01).serialize()
    index = read_footer_index({LEGACY_BLOOM_FILTER_KEY.encode(): text.encode()})
    assert index is not None and (index.min_key, index.max_key) == (None, None)
    assert index.bloom_filter is not None and index.bloom_filter.serialize() == text


def test_read_footer_index_range_without_bloom_kept() -> None:
    index = read_footer_index({MIN_RECORD_KEY_KEY.encode(): b"1", MAX_RECORD_KEY_KEY.encode(): b"3"})
    assert index == FooterIndex(min_key="1", max_key="3", bloom_filter=None)


def test_read_footer_index_only_min_raises() -> None:
    with pytest.raises(HudiFileFormatError):
        read_footer_index({MIN_RECORD_KEY_KEY.encode(): b"1"})


def test_read_footer_index_non_utf8_value_raises() -> None:
    with pytest.raises(HudiFileFormatError):
        read_footer_index({MIN_RECORD_KEY_KEY.encode(): b"\xff", MAX_RECORD_KEY_KEY.encode(): b"3"})
