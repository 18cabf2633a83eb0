"""Command-line apps over the SQL layer: the ``hudi-sql`` entry point (:mod:`.cli`), the SQL
shell (:mod:`.shell`) and the HiveServer2 endpoint (:mod:`.hiveserver2`). Nothing below
this package imports it."""
