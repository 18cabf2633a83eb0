"""The engine's entry points: what a user or Spark calls to write, read and set up a session.

The write client (:mod:`.write_client`) and the operations it orchestrates whole (overwrites,
:mod:`.overwrite`; bootstrap, :mod:`.bootstrap`), the DataFrame functions ``hudi_sql.write`` and
``hudi_sql.read`` (:mod:`.write`, :mod:`.read`), the ``format("hudi")`` data source and its hook
(:mod:`.datasource`, :mod:`.format_hook`) and the embedded session (:mod:`.session`). They sit
above planning, execution, the commit protocol and the table services, and nothing below them
imports them.
"""
