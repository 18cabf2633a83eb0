"""How our Parquet files are compressed: the codec a table asks for, at parquet-java's level.

pyarrow's gzip runs zlib at level 9, which on our data is 3.5x slower than level 6 and yields
no smaller files. parquet-java (and so Apache Hudi) compresses gzip pages through Hadoop's
``ZlibCompressor`` at zlib's default level, 6; writing at that level gives the same kind of
files as Hudi, at the cost Hudi pays. Other codecs keep pyarrow's defaults.
"""

from __future__ import annotations

__all__ = ["codec_options"]

from typing import Any

_LEVELS = {"gzip": 6}  # zlib's Z_DEFAULT_COMPRESSION, as Hadoop's ZlibCompressor uses it


def codec_options(codec: str) -> dict[str, Any]:
    """``compression`` / ``compression_level`` keyword arguments for pyarrow's Parquet writers."""
    name = codec.lower()
    if name in ("uncompressed", "none"):
        return {"compression": "none"}
    return {"compression": name, "compression_level": _LEVELS.get(name)}
