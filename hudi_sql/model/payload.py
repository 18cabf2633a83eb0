"""Record payloads: how two records of one key become one, by Apache Hudi's payload class.

A table version 6 table names its merge semantics by a Java class in ``hoodie.properties``
(``hoodie.compaction.payload.class``), and a writer may pass one per write. The built-in
classes differ along a few independent rules, so each is described here as data (a
:class:`PayloadRules`) that the merge sites follow, rather than as code per class:

* **precombine** (two incoming records of a batch, or two log records): the greater ordering
  value wins, ties going to the later record. Every payload here does this; the partial-update
  payload also fills the winner's null fields from the loser.
* **merge with the stored record** (a COW merge, a base row against its log record):

  =====================================  ===============  ================  ============
  payload                                stored wins when  ``is_deleted``    null fields
  =====================================  ===============  ================  ============
  OverwriteWithLatestAvroPayload         never             always deletes    overwrite
  OverwriteNonDefaultsWithLatestAvro...  never             always deletes    keep stored
  DefaultHoodieRecordPayload             stored > incoming  only if it wins   overwrite
  EventTimeAvroPayload                   stored > incoming  always deletes    overwrite
  PartialUpdateAvroPayload               stored > incoming  always deletes    filled from the other
  AWSDmsAvroPayload                      never             always deletes    overwrite
  =====================================  ===============  ================  ============

  ("stored > incoming": by the ordering field; a null stored value loses.) The partial-update
  payload keeps both records in play: the preferred one (by ordering) gives its non-null
  fields, the other fills the rest.
* **delete markers**: ``_hoodie_is_deleted = true`` for all; AWS DMS also ``Op = 'D'``.
* **log deletes against the base row** (MERGE_ON_READ): a delete written to a log delete block
  removes the base row whatever the payload, as Apache Hudi 0.15's reader and compaction do;
  only the version 8 merge mode ``EVENT_TIME_ORDERING`` compares ordering values there.

The rules come from the 0.15 classes in ``org.apache.hudi.common.model``. An unknown class is
a :class:`~hudi_sql.errors.HudiConfigError` naming it and the supported ones: Hudi would run
user code there, which hudi-sql cannot.
"""

from __future__ import annotations

__all__ = [
    "HOODIE_IS_DELETED",
    "PACKAGE",
    "MergeOutcome",
    "Payload",
    "PayloadRules",
    "coalesce_columns",
    "merge_columns",
    "merge_with_stored",
    "parse_payload_class",
]

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum

import pyarrow as pa
import pyarrow.compute as pc

from hudi_sql.errors import HudiConfigError

PACKAGE = "org.apache.hudi.common.model"
HOODIE_IS_DELETED = "_hoodie_is_deleted"


@dataclass(frozen=True)
class PayloadRules:
    """The merge rules of one payload class (see the module table).

    Attributes:
        java_class: the fully qualified Java class name, as written in ``hoodie.properties``.
        ordered_merge: against the stored record, a stored ordering value greater than the
            incoming one keeps (or, with ``fill_nulls``, prefers) the stored record.
        ordered_deletes: an ``is_deleted`` record deletes only when it wins on ordering
            (``DefaultHoodieRecordPayload``); otherwise a delete always applies.
        fill_nulls: null fields of the preferred record take the other record's value
            against the stored record.
        precombine_fills: precombine fills null fields too (``PartialUpdateAvroPayload``).
        delete_column: a column whose value (``delete_value``, any case) marks a delete.
        ordered_log_deletes: a log delete block's delete of a base row is ignored when the base
            row's ordering value is greater. Apache Hudi 0.15 applies such deletes whatever the
            payload (its reader and compaction merge a delete as an empty payload); the version
            8 merge mode ``EVENT_TIME_ORDERING`` compares them.
    """

    java_class: str
    ordered_merge: bool = False
    ordered_deletes: bool = False
    fill_nulls: bool = False
    precombine_fills: bool = False
    delete_column: str | None = None
    delete_value: str | None = None
    ordered_log_deletes: bool = False

    @property
    def delete_marker(self) -> tuple[str, str] | None:
        """(column, value): a record whose column holds the value (any case) is a delete."""
        return (self.delete_column, self.delete_value) if self.delete_column and self.delete_value else None


class Payload(Enum):
    """The built-in payload classes hudi-sql runs, by their merge rules."""

    OVERWRITE_WITH_LATEST = PayloadRules(f"{PACKAGE}.OverwriteWithLatestAvroPayload")
    OVERWRITE_NON_DEFAULTS = PayloadRules(f"{PACKAGE}.OverwriteNonDefaultsWithLatestAvroPayload", fill_nulls=True)
    DEFAULT = PayloadRules(f"{PACKAGE}.DefaultHoodieRecordPayload", ordered_merge=True, ordered_deletes=True)
    EVENT_TIME = PayloadRules(f"{PACKAGE}.EventTimeAvroPayload", ordered_merge=True)
    PARTIAL_UPDATE = PayloadRules(f"{PACKAGE}.PartialUpdateAvroPayload", ordered_merge=True, fill_nulls=True,
                                  precombine_fills=True)
    AWS_DMS = PayloadRules(f"{PACKAGE}.AWSDmsAvroPayload", delete_column="Op", delete_value="D")
    EVENT_TIME_ORDERING = PayloadRules("", ordered_merge=True, ordered_deletes=True, ordered_log_deletes=True)
    """Not a payload class: the rules of table version 8's merge mode ``EVENT_TIME_ORDERING``."""

    @property
    def rules(self) -> PayloadRules:
        rules: PayloadRules = self.value
        return rules

    @property
    def java_class(self) -> str:
        return self.rules.java_class

    @classmethod
    def unnamed(cls, *, ordered: bool) -> Payload:
        """The payload of a write or table that names none: event-time merging when records carry
        an ordering value, else the latest record wins."""
        return cls.DEFAULT if ordered else cls.OVERWRITE_WITH_LATEST

    @classmethod
    def of(cls, class_name: str | None, *, default: Payload | None = None) -> Payload:
        """The payload named by its Java class (*default* when none is named).

        Raises:
            HudiConfigError: an unknown class, named with the supported ones.
        """
        name = (class_name or "").strip()
        if not name:
            if default is None:
                raise HudiConfigError("No payload class is set.", help=f"use one of {_supported()}")
            return default
        for member in cls:
            if member.java_class and member.java_class == name:
                return member
        raise HudiConfigError(
            f"Payload class '{name}' is not supported: hudi-sql runs only Apache Hudi's built-in payloads, "
            f"not custom record merging code.",
            help=f"use one of {_supported()}",
        )


def merge_columns(names: Sequence[str]) -> list[str]:
    """The columns a field-by-field merge touches: the data columns, not Hudi's meta and routing
    columns (``_hoodie_*``), except the ``_hoodie_is_deleted`` data column."""
    return [n for n in names if not n.startswith("_hoodie_") or n == HOODIE_IS_DELETED]


def _supported() -> str:
    return ", ".join(p.java_class for p in Payload if p.java_class)


def parse_payload_class(value: str) -> Payload:
    """The option parser of payload class options: a supported class, or an error listing them."""
    return Payload.of(value)


# --- merging with the stored record, on Arrow columns ------------------------------------------

@dataclass(frozen=True)
class MergeOutcome:
    """The result of merging incoming records with the stored rows they match, row by row.

    Attributes:
        deleted: the stored row is deleted.
        replaced: the stored row is replaced by the row of ``rows`` at the same position.
            Neither flag set: the stored row stays as it was.
        rows: the incoming table with its data columns merged (valid where ``replaced``).
    """

    deleted: pa.BooleanArray
    replaced: pa.BooleanArray
    rows: pa.Table


def _ordering_pair(stored: pa.Table, incoming: pa.Table, ordering_field: str | None
                   ) -> tuple[pa.Array, pa.Array] | None:
    if not ordering_field or ordering_field not in stored.column_names or ordering_field not in incoming.column_names:
        return None
    old = stored.column(ordering_field).combine_chunks()
    new = incoming.column(ordering_field).combine_chunks()
    if new.type != old.type:
        new = new.cast(old.type)
    return old, new


def merge_with_stored(payload: Payload, stored: pa.Table, incoming: pa.Table, is_delete: pa.Array,
                      ordering_field: str | None, columns: Sequence[str]) -> MergeOutcome:
    """Merge *incoming* into *stored*, aligned row by row (row i of each has the same key).

    Args:
        payload: the table's payload.
        stored: the stored rows (a base file's, or already merged).
        incoming: the incoming record for each stored row.
        is_delete: per row, whether the incoming record is a delete.
        ordering_field: the ordering (precombine) field, if any.
        columns: the data columns merged field by field (``fill_nulls``); other columns of
            *incoming* are left as they are.
    """
    rules = payload.rules
    n = stored.num_rows
    is_delete = is_delete.fill_null(False) if is_delete.null_count else is_delete
    prefer_incoming = pa.array([True] * n, pa.bool_())
    pair = _ordering_pair(stored, incoming, ordering_field) if rules.ordered_merge else None
    if pair is not None:
        old, new = pair
        stored_newer = pc.greater(old, new).fill_null(False)  # a null stored value loses
        prefer_incoming = pc.invert(stored_newer)
    deleted = pc.and_(prefer_incoming, is_delete) if rules.ordered_deletes else is_delete
    if rules.fill_nulls:
        replaced = pc.invert(deleted)
        rows = coalesce_columns(incoming, stored, prefer_incoming, columns)
    else:
        replaced = pc.and_(prefer_incoming, pc.invert(deleted))
        rows = incoming
    return MergeOutcome(deleted, replaced, rows)


def coalesce_columns(first: pa.Table, second: pa.Table, first_preferred: pa.Array,
                     columns: Sequence[str]) -> pa.Table:
    """*first* with each of *columns* merged with *second*: per row, the preferred record's
    value, or the other's where that is null."""
    out = first
    for name in columns:
        if name not in second.column_names:
            continue
        target = second.schema.field(name).type
        a = first.column(name).combine_chunks() if name in first.column_names else pa.nulls(first.num_rows, target)
        b = second.column(name).combine_chunks()
        if a.type != target:
            a = a.cast(target)
        primary = pc.if_else(first_preferred, a, b)
        secondary = pc.if_else(first_preferred, b, a)
        merged = pc.if_else(pc.is_valid(primary), primary, secondary)
        if name in out.column_names:
            out = out.set_column(out.schema.get_field_index(name), pa.field(name, target), merged)
        else:
            out = out.append_column(pa.field(name, target), merged)
    return out
