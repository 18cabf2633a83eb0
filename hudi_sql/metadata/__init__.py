"""Apache Hudi's metadata table (``.hoodie/metadata``): the index of a table kept as a Hudi table.

Writers record every file they add and remove there, so that readers list a table's files, find
a file's column ranges and its bloom filter, without listing storage or opening footers. The
package has the metadata table's format at the bottom (:mod:`.layout`, :mod:`.index_keys`,
:mod:`.records`, :mod:`.reader`), what a data instant changes in it (:mod:`.changes`), the
files a change writes and what data files put in its index partitions, run in Spark tasks
(:mod:`.writer`), and, in the commit protocol, the step that applies a data instant to it before
the instant completes and its own compaction and clean (:mod:`.maintenance`).
"""
