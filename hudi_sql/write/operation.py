"""Write operations: :class:`~hudi_sql.config.operation.WriteOperationType`, re-exported here.

The enum lives in the config layer (the ``operation`` option parses to it); this name stays so
that the write layer's callers keep one import path for what a write does.
"""

from __future__ import annotations

__all__ = ["WriteOperationType"]

from hudi_sql.config.operation import WriteOperationType
