"""SQL operations: one module per command family, each a handler per statement kind over an
:class:`~.context.OperationContext` (Spark, the catalog, the session's options, table
resolution); :mod:`.dispatch` picks the handler by statement type.

* :mod:`.create_table`, :mod:`.alter_table` (DROP, RENAME, SET TBLPROPERTIES, ADD COLUMNS),
  :mod:`.partitions` (DROP PARTITION, TRUNCATE, SHOW PARTITIONS), :mod:`.describe`;
* :mod:`.insert`, :mod:`.update_delete`, :mod:`.merge_into`, with :mod:`.writes` (commits and
  their rollback on failure);
* :mod:`.query` (queries and statements Spark runs), :mod:`.explain`, :mod:`.call`,
  :mod:`.session_options` (SET / RESET);
* :mod:`.binding` binds table references to snapshot views; :mod:`.spark_fallback` holds the
  one rule "a table that is not a Hudi table is Spark's".
"""
