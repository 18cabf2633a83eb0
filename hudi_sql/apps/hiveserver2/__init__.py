"""The query endpoint: a HiveServer2 (Beeline, PyHive, JDBC) over hudi-sql's SQL layer.

* :func:`start_thriftserver` / :class:`RunningServer` - the server (:mod:`.server`, with
  :mod:`.wire`, :mod:`.metadata` and :mod:`.sasl`);
* ``hudi-sql thriftserver`` - the command that runs it (:mod:`.cli`).

How hive sync's ``<t>_ro`` / ``<t>_rt`` names map to a Hudi table and query type is a naming
rule of the SQL layer's reads (:mod:`hudi_sql.config.hive_naming`), not of the server.
"""

from __future__ import annotations

__all__ = ["RunningServer", "start_thriftserver"]

from hudi_sql.apps.hiveserver2.server import RunningServer, start_thriftserver
