"""Table version 8 log block headers in the slice scan: partial-update blocks are refused, not misread."""

from __future__ import annotations

import json

import pytest

from hudi_sql.errors import UnsupportedFeatureError
from hudi_sql.log.block import BlockType, HeaderKey
from hudi_sql.log.format import encode_avro_data_content, frame_block
from hudi_sql.log.scanner import scan_file_slice_logs

KEY = "_hoodie_record_key"
SCHEMA = json.dumps({"type": "record", "name": "t_record", "namespace": "hoodie.t", "fields": [
    {"name": KEY, "type": ["null", "string"], "default": None},
    {"name": "v", "type": ["null", "string"], "default": None}]})
I1 = "20250101000000001"


def _block(is_partial: str | None) -> bytes:
    header = {HeaderKey.INSTANT_TIME: I1, HeaderKey.SCHEMA: SCHEMA}
    if is_partial is not None:
        header[HeaderKey.IS_PARTIAL] = is_partial
    return frame_block(BlockType.AVRO_DATA, header, encode_avro_data_content(SCHEMA, [{KEY: "a", "v": "x"}]))


def test_scan_file_slice_logs_partial_update_block_raises() -> None:
    with pytest.raises(UnsupportedFeatureError, match="IS_PARTIAL"):
        scan_file_slice_logs([(".f-0_1.log.1_0-1-0", _block("true"))], completed_instants={I1})


@pytest.mark.parametrize("is_partial", [None, "false"])
def test_scan_file_slice_logs_full_record_block_is_kept(is_partial: str | None) -> None:
    result = scan_file_slice_logs([(".f-0_1.log.1_0-1-0", _block(is_partial))], completed_instants={I1})
    assert len(result.blocks) == 1


def test_scan_file_slice_logs_partial_block_of_failed_write_is_skipped_not_refused() -> None:
    result = scan_file_slice_logs([(".f-0_1.log.1_0-1-0", _block("true"))], completed_instants=set())
    assert result.blocks == ()
