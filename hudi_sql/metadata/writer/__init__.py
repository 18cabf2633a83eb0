"""The metadata table's writing side, run in Spark tasks like the data table's write handles:
the bytes of its files (:mod:`.file_writer`), what a data file contributes to the index
partitions (:mod:`.file_stats`, :mod:`.index_records`) and running that work per file group
(:mod:`.metadata_exec`)."""
