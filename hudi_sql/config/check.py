"""``CALL check_config``'s reading of the options set on a table or in a session: which are read
here, which are Apache Hudi's but ignored, which are older names, which an Apache Hudi release
dropped, which no release knows, and which values do not parse or contradict each other or the
table.

The facts about Apache Hudi's keys come from its released jars (:mod:`.apache_keys`: the first
and last release declaring each key, and its newer name); what hudi-sql reads comes from the
registry. Contradictions are what resolving the options finds (:class:`~.resolve.Resolved`), and
what a write would refuse against the table's fixed properties (:meth:`~.resolve.WriteConfig.of`).
What a newer Apache Hudi would do differently with the table and these options, where nothing
pins today's behaviour, comes from :mod:`.release_changes`.
"""

from __future__ import annotations

__all__ = ["OptionFinding", "check_options"]

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import partial

from hudi_sql.config import apache_keys
from hudi_sql.config.registry import HudiConfigs, known_option
from hudi_sql.config.release_changes import release_changes
from hudi_sql.config.resolve import SCOPES, Resolved, TableConfig, WriteConfig
from hudi_sql.errors import HudiConfigError, UnsupportedFeatureError, did_you_mean


@dataclass(frozen=True)
class OptionFinding:
    """One option worth a look: where it is set, what is wrong with it, and what to do."""

    key: str
    value: str
    source: str  # "session" | "table"
    #: "ignored" | "renamed" | "dropped by Apache Hudi" | "unknown" | "invalid" | "contradiction" |
    #: "changes on upgrade"
    finding: str
    detail: str


def check_options(sources: Mapping[str, Mapping[str, str]], table_properties: Mapping[str, str] | None = None, *,
                  stored_keys_value_only: bool | None = None) -> tuple[OptionFinding, ...]:
    """The findings for the ``hoodie.*`` options of each source (``{"session": {...}, "table":
    {...}}``), later sources over earlier ones, judged against the table's ``hoodie.properties``
    (and the form of its stored keys, :func:`~.release_changes.release_changes`)."""
    found: list[OptionFinding] = []
    for source, options in sources.items():
        for key, value in sorted(options.items()):
            if key.startswith("hoodie."):
                found += _key_findings(key, str(value), source)
    invalid = {f.key for f in found if f.finding == "invalid"}
    layered = {k: str(v) for options in sources.values() for k, v in options.items()
               if k.startswith("hoodie.") and known_option(k) is not None and k not in invalid}
    found += _contradictions(layered, table_properties)
    if table_properties is not None:
        found += [OptionFinding(change.key, layered.get(change.key, ""), "table", "changes on upgrade", change.detail)
                  for change in release_changes(TableConfig.of(table_properties), layered,
                                                 stored_keys_value_only=stored_keys_value_only)]
    return tuple(found)


def _key_findings(key: str, value: str, source: str) -> list[OptionFinding]:
    option = known_option(key)
    entry = apache_keys.apache_key(key)
    newest = apache_keys.newest_release()
    out = []
    if option is None:
        if entry is None and not apache_keys.is_apache_key(key):
            hint = did_you_mean(key, [*apache_keys.apache_keys()]).strip()
            return [OptionFinding(key, value, source, "unknown",
                                  f"no Apache Hudi release from 0.10 declares it. {hint}".strip())]
        renamed = f"; Apache Hudi reads it as {entry.renamed_to}" if entry is not None and entry.renamed_to else ""
        out.append(OptionFinding(key, value, source, "ignored",
                                 f"an Apache Hudi option hudi-sql does not implement: it has no effect here{renamed}"))
    elif not option.spec.effective:
        out.append(OptionFinding(key, value, source, "ignored",
                                 f"accepted so that Apache Hudi jobs run unchanged; it has no effect here "
                                 f"({option.spec.doc.rstrip('.')})"))
    elif option.key != key:
        out.append(OptionFinding(key, value, source, "renamed",
                                 f"an older name of {option.key}, read as it; set {option.key} instead"))
    else:
        try:
            option.parse_value(value)
        except (HudiConfigError, ValueError) as exc:
            out.append(OptionFinding(key, value, source, "invalid", str(exc)))
    if entry is not None and entry.last_release != newest:
        out.append(OptionFinding(key, value, source, "dropped by Apache Hudi",
                                 f"declared by Apache Hudi {entry.releases}, not by {newest}: an upgrade "
                                 "ignores it" + (f" (use {entry.renamed_to})" if entry.renamed_to else "")))
    return out


def _contradictions(options: Mapping[str, str], table_properties: Mapping[str, str] | None) -> list[OptionFinding]:
    """What resolving the options (each scope on its own, so that every contradiction shows) and
    checking them against the table refuse."""
    configs = HudiConfigs.of(options, validate=False)
    resolved = Resolved(configs)
    checks: list[Callable[[], object]] = [partial(getattr, resolved, scope) for scope in SCOPES]
    if table_properties is not None:
        checks.append(partial(WriteConfig.of, configs, TableConfig.of(table_properties)))
    messages: list[str] = []
    for check in checks:
        try:
            check()
        except (HudiConfigError, UnsupportedFeatureError) as exc:
            if exc.message not in messages:
                messages.append(exc.message)
    return [OptionFinding("(together)", "", "session and table", "contradiction", m) for m in messages]
