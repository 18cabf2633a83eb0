"""``format("hudi")`` in every Spark 4 session whose Python has hudi-sql installed.

Spark 4 looks, once per session, for installed top-level modules named ``pyspark_*`` that
define ``DefaultSource`` (a :class:`pyspark.sql.datasource.DataSource`) and registers each under
its ``name()`` (``pyspark/sql/worker/lookup_data_sources.py``). This module is hudi-sql's: its
``DefaultSource`` is :class:`hudi_sql.engine.datasource.HudiDataSource`, which reads Hudi tables
by path with Apache Hudi's read options and refuses writes with a pointer to ``hudi_sql.write``.

Spark finds it with :func:`pkgutil.iter_modules`, which sees modules on ``sys.path`` (a wheel
install) but not those served by an editable install's import hook; see ``docs/engines.md``.
It is imported by that lookup in every session, so it imports nothing heavy.
"""

from hudi_sql.engine.datasource import HudiDataSource as DefaultSource

__all__ = ["DefaultSource"]
