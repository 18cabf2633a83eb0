"""The index of a write, by ``hoodie.index.type``: imports every implementation, then looks it up.

The protocol (:mod:`hudi_sql.index.base`) knows no implementation; each registers itself with
``@register_index`` when imported. This module is the one place that imports them all, so the
base module sits below its subclasses and the import graph has no cycle.
"""

from __future__ import annotations

__all__ = ["index_for"]

import hudi_sql.index.bloom
import hudi_sql.index.bucket
import hudi_sql.index.simple  # noqa: F401 - implementations register on import
from hudi_sql.config import HudiWriteConfig
from hudi_sql.errors import UnsupportedFeatureError
from hudi_sql.index.base import Index, IndexContext, registered_index, registered_index_types


def index_for(context: IndexContext) -> Index:
    """A new index of the type *context* names.

    Raises:
        UnsupportedFeatureError: no implementation is registered for the type.
    """
    factory = registered_index(context.index_type)
    if factory is None:
        raise UnsupportedFeatureError(
            f"not supported: {HudiWriteConfig.INDEX_TYPE.key}={context.index_type.value}",
            help=f"supported: {', '.join(t.value for t in registered_index_types())}")
    return factory(context)
