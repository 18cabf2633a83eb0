"""HFile version 3, as Apache Hudi keeps its metadata table and bootstrap index in it.

Hudi stores sorted key/value records in HFiles in two places: the metadata table's base files
(``.hoodie/metadata/<partition>/*.hfile``, values are Avro ``HoodieMetadataRecord`` payloads)
and the bootstrap index (``.hoodie/.aux/.bootstrap/.partitions/*.hfile`` and
``.fileids/*.hfile``). Hudi 0.15 writes them through HBase's writer, Hudi 1.x through its own;
both read them with their native reader and, in 0.15, with HBase's. This package writes files
all of those read, and reads theirs.

* :mod:`.format` - block magics, trailer, cells, root index and file info encodings;
* :mod:`.block` - the block header, compression and per-chunk checksums;
* :mod:`.checksum` - CRC32C;
* :mod:`.protobuf` - the varint wire format of the trailer and file info;
* :mod:`.writer` - :func:`write_hfile`;
* :mod:`.reader` - :class:`HFileReader`.
"""

from hudi_sql.hfile.format import BlockType, Compression, Trailer
from hudi_sql.hfile.reader import HFileReader
from hudi_sql.hfile.writer import write_hfile

__all__ = ["BlockType", "Compression", "HFileReader", "Trailer", "write_hfile"]
