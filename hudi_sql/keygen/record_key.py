"""What a record key is made of, decided once per write by the key generator.

Hudi's key generators differ in their partition paths, but their record keys come in only two
forms (``KeyGenUtils.getRecordKey``):

* **simple**: the value of the one key field as a string; a null or empty value is invalid
  (Hudi fails the write: "recordKey value ... cannot be null or empty");
* **composite**: ``f1:v1,f2:v2`` with the field names as configured, ``__null__`` for a null
  part and ``__empty__`` for an empty one; invalid when every part is null or empty.

Which form a key generator uses (and so whether ``hoodie.write.complex.keygen.new.encoding``
turns a one-field ComplexKeyGenerator key into the simple form) is decided in one place,
:meth:`~hudi_sql.keygen.KeyGenerator.record_key_spec`. The resulting :class:`RecordKeySpec` is
a small frozen value that both renderers take: the Spark expressions of
:meth:`~hudi_sql.keygen.KeyGenerator.record_key` (incoming records, index lookups) and the
Arrow function :func:`~hudi_sql.keygen.arrow_key.arrow_record_keys` (stored rows of a table
without meta fields, recomputed inside a merge handle). A parity test proves the two equal for
every key generator and every key type.
"""

from __future__ import annotations

__all__ = ["EMPTY_RECORDKEY_PLACEHOLDER", "NULL_RECORDKEY_PLACEHOLDER", "RecordKeySpec"]

from dataclasses import dataclass

NULL_RECORDKEY_PLACEHOLDER = "__null__"
"""A null part of a composite record key (``KeyGenUtils.NULL_RECORDKEY_PLACEHOLDER``)."""

EMPTY_RECORDKEY_PLACEHOLDER = "__empty__"
"""An empty part of a composite record key (``KeyGenUtils.EMPTY_RECORDKEY_PLACEHOLDER``)."""


@dataclass(frozen=True)
class RecordKeySpec:
    """The record key fields and the form they are joined in; picklable, shipped to tasks.

    Attributes:
        fields: the record key field paths as configured (``a.b`` is field ``b`` of struct ``a``);
            none for a table whose keys are generated (:mod:`hudi_sql.keygen.auto_key`): its keys
            exist only in ``_hoodie_record_key`` and are never recomputed.
        composite: ``f1:v1,...`` (True) or the bare value of the single field (False).
    """

    fields: tuple[str, ...]
    composite: bool

    @property
    def generated(self) -> bool:
        """Keys are generated, not rendered from fields."""
        return not self.fields

    def __post_init__(self) -> None:
        if self.generated:
            return
        if not self.composite and len(self.fields) != 1:
            raise ValueError(f"a simple record key has one field, not {len(self.fields)}: {self.fields}")
