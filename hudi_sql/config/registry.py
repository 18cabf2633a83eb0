"""The typed registry of Hudi option keys.

Each option is declared once, as a :class:`ConfigOption` member of a :class:`ConfigScope`
subclass; the member is the exact ``hoodie.*`` key (``HudiWriteConfig.RECORD_KEY_FIELDS ==
"hoodie.datasource.write.recordkey.field"``) and is typed by its value
(``ConfigOption[tuple[str, ...]]``), so ``HudiConfigs.get(member)`` is typed too. The member
carries its :class:`ConfigKey`: the parser for its type, its default, its doc, its allowed
values and deprecated aliases. Scopes are not ``Enum`` classes because an enum member cannot
carry its own value type; they iterate over their members like one.

:class:`HudiConfigs` is the immutable container a write, read or service is given. Its
typed getter raises :class:`~hudi_sql.errors.HudiConfigError` naming the key when a value
does not parse; it never falls back silently to the default. Unknown ``hoodie.*`` keys are
rejected with a "did you mean" hint, because a mistyped option that is silently ignored is
the most expensive kind of bug in a nightly pipeline.
"""

from __future__ import annotations

__all__ = [
    "NO_VALUES",
    "ConfigEnum",
    "ConfigKey",
    "ConfigOption",
    "ConfigScope",
    "HudiConfigs",
    "all_config_enums",
    "canonical_key",
    "import_plugin_modules",
    "known_option",
    "parse_bool",
    "parse_float",
    "parse_int",
    "parse_list",
    "parse_str",
]

import logging
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Generic, TypeVar, cast, overload

from hudi_sql.config import apache_keys
from hudi_sql.errors import HudiConfigError, did_you_mean

_log = logging.getLogger(__name__)

T = TypeVar("T")
V_co = TypeVar("V_co", covariant=True)


E = TypeVar("E", bound=Enum)


def parse_enum_name(enum: type[E], value: str, what: str) -> E:
    """The member of *enum* named *value* (any case), or a ``ValueError`` listing the names.

    The one parser of the options whose values are Hudi enum names (cleaner policy, index
    type, concurrency mode, failed-writes policy).
    """
    try:
        return enum[value.strip().upper()]
    except KeyError:
        raise ValueError(f"'{value}' is not {what} ({', '.join(m.name for m in enum)})") from None


def parse_str(value: str) -> str:
    return value


def parse_bool(value: str) -> bool:
    lowered = value.strip().lower()
    if lowered == "true":
        return True
    if lowered == "false":
        return False
    raise ValueError(f"'{value}' is not true or false")


def parse_int(value: str) -> int:
    return int(value.strip())


def parse_float(value: str) -> float:
    return float(value.strip())


#: The default of a list option that is empty (typed, so that the option is ``tuple[str, ...]``).
NO_VALUES: tuple[str, ...] = ()


def parse_list(value: str) -> tuple[str, ...]:
    return tuple(part.strip() for part in value.split(",") if part.strip())


@dataclass(frozen=True)
class ConfigKey:
    """What the registry knows about one option key.

    Attributes:
        key: the exact option key, e.g. ``hoodie.datasource.write.operation``.
        parse: turns the string form into the typed value; raises ``ValueError`` if it cannot.
        default: the typed default, or ``None`` when the option has none.
        doc: what the option does, for users (docs are generated from it).
        choices: the allowed values (compared case-insensitively), if the set is closed.
        aliases: older keys that mean the same; using one logs a deprecation warning once.
        effective: ``False`` for keys accepted so that Apache Hudi jobs carry over unchanged,
            but that change nothing here (the doc says why).
        minimum: the smallest allowed value of a numeric option (a size of ``-1`` or a count
            of ``-5`` parses, but would write five files or keep nothing).
    """

    key: str
    parse: Callable[[str], Any]
    default: Any
    doc: str
    choices: tuple[str, ...] = ()
    aliases: tuple[str, ...] = ()
    effective: bool = True
    minimum: float | None = None

    def parse_value(self, raw: object) -> Any:
        text = raw if isinstance(raw, str) else _to_option_string(raw)
        try:
            value = self.parse(text)
        except (ValueError, TypeError) as exc:
            raise HudiConfigError(f"Option '{self.key}' has a value that does not parse: {text!r} ({exc}).") from None
        if self.choices and str(value).upper() not in {c.upper() for c in self.choices}:
            raise HudiConfigError(
                f"Option '{self.key}' does not allow {text!r}."
                f"{did_you_mean(text.upper(), self.choices)}",
                help=f"allowed values: {', '.join(self.choices)}",
            )
        if self.minimum is not None and isinstance(value, (int, float)) and value < self.minimum:
            raise HudiConfigError(f"Option '{self.key}' must be at least {self.minimum:g}, not {text!r}.")
        return value


def _to_option_string(raw: object) -> str:
    if isinstance(raw, bool):
        return "true" if raw else "false"
    return str(raw)


_SCOPES: list[type[ConfigScope]] = []


class ConfigOption(str, Generic[V_co]):
    """One option key, typed by the value it parses to (``ConfigOption[int]``, ...).

    It *is* its key (a ``str``), so it works wherever a key string does (option dicts, ``==``);
    its type parameter is what :meth:`HudiConfigs.get` returns for it. An option whose default
    is ``None`` is typed ``ConfigOption[X | None]``: unset, it reads as ``None``.
    """

    spec: ConfigKey
    name: str
    scope: type[ConfigScope]

    def __new__(
        cls,
        key: str,
        parse: Callable[[str], V_co],
        default: V_co,
        doc: str,
        choices: tuple[str, ...] = (),
        aliases: tuple[str, ...] = (),
        effective: bool = True,
        *,
        minimum: float | None = None,
    ) -> ConfigOption[V_co]:
        obj = str.__new__(cls, key)
        obj.spec = ConfigKey(key, parse, default, doc, tuple(choices), tuple(aliases), effective, minimum)
        obj.name = key
        return obj

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name
        if isinstance(owner, _ScopeMeta):
            self.scope = cast("type[ConfigScope]", owner)

    def __str__(self) -> str:
        return self.key

    def __repr__(self) -> str:
        scope = getattr(self, "scope", None)
        return f"<{scope.__name__ if scope else 'ConfigOption'}.{self.name}: {self.key!r}>"

    def __reduce__(self) -> tuple[Callable[[str], ConfigOption[Any]], tuple[str]]:
        # Pickled by key: the unpickled member is the registered one, with its parser.
        return _option_by_key, (self.key,)

    @property
    def key(self) -> str:
        return str.__str__(self)

    @property
    def value(self) -> str:
        return self.key

    @property
    def default(self) -> V_co:
        return self.spec.default  # type: ignore[no-any-return]

    def parse_value(self, raw: object) -> V_co:
        return self.spec.parse_value(raw)  # type: ignore[no-any-return]


def _option_by_key(key: str) -> ConfigOption[Any]:
    member = _known_keys().get(key)
    if member is None:
        raise HudiConfigError(f"Unknown option '{key}'.")
    return member


class _ScopeMeta(type):
    """Makes an option scope iterable over its members, in declaration order, like an enum."""

    _members: tuple[ConfigOption[Any], ...]

    def __iter__(cls) -> Iterator[ConfigOption[Any]]:
        return iter(cls._members)

    def __len__(cls) -> int:
        return len(cls._members)

    def __contains__(cls, item: object) -> bool:
        return any(item == m for m in cls._members)


class ConfigScope(metaclass=_ScopeMeta):
    """Base of the per-scope option classes; each member is a :class:`ConfigOption`.

    A member may also be written as a plain tuple ``(key, parse, default, doc, ...)`` (the
    older enum form); it is turned into a :class:`ConfigOption` when the class is created,
    but only the ``ConfigOption(...)`` form is typed for mypy.
    """

    _members: tuple[ConfigOption[Any], ...] = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        members: list[ConfigOption[Any]] = []
        for attr, value in list(vars(cls).items()):
            if attr.startswith("_"):
                continue
            if isinstance(value, tuple) and attr.isupper() and value and isinstance(value[0], str):
                value = ConfigOption(*value)
                setattr(cls, attr, value)
                value.__set_name__(cls, attr)
            if isinstance(value, ConfigOption):
                members.append(value)
        cls._members = tuple(members)
        _SCOPES.append(cls)


#: The scope base under its earlier name: scopes were ``str`` enums before options were typed.
ConfigEnum = ConfigScope


def all_config_enums() -> list[type[ConfigScope]]:
    """Every registered option scope (importing :mod:`hudi_sql.config` fills the list)."""
    _load_plugins()
    return list(_SCOPES)


#: Modules outside the engine that declare option scopes (the catalog's Hive sync keys). They
#: are imported on first validation, so the engine does not depend on them at import time.
PLUGIN_CONFIG_MODULES = ("catalog.hive.config",)
_plugins_loaded = False


def _load_plugins() -> None:
    global _plugins_loaded
    if _plugins_loaded:
        return
    _plugins_loaded = True
    import_plugin_modules(PLUGIN_CONFIG_MODULES, "option")


def import_plugin_modules(modules: Iterable[str], kind: str) -> None:
    """Import the modules above the engine that register with it (option scopes, post-commit
    actions); one that is not installed is skipped, so the engine runs without the catalog."""
    import importlib

    for module in modules:
        try:
            importlib.import_module(module)
        except ImportError:  # pragma: no cover - the catalog package is part of the distribution
            _log.debug("%s plugin %s not available", kind, module)


def canonical_key(key: str) -> str:
    """*key* as the registry (or Apache Hudi) spells it, matched regardless of case: Spark hands
    a Python data source its options lower-cased (``...streaming.startoffset``)."""
    known = _known_keys()
    if key in known:
        return key
    spelled = {k.lower(): k for k in (*known, *apache_keys.apache_keys())}
    return spelled.get(key.lower(), key)


def known_option(key: str) -> ConfigOption[Any] | None:
    """The option the registry reads *key* as (itself, or the key an older name stands for), else None."""
    return _known_keys().get(canonical_key(key))


def _known_keys() -> dict[str, ConfigOption[Any]]:
    _load_plugins()
    known: dict[str, ConfigOption[Any]] = {}
    for enum in _SCOPES:
        for member in enum:
            known[member.key] = member
            for alias in member.spec.aliases:
                known[alias] = member
    # An older name Apache Hudi still reads as one of our keys (its ConfigProperty alternatives, in
    # any release since 0.10) is that key here too, with the same deprecation warning.
    for older, current in apache_keys.renames().items():
        if older not in known and current in known:
            known[older] = known[current]
    return known


_warned_aliases: set[str] = set()

# Key prefixes we accept without declaring each key: Spark and Hadoop settings that travel
# in the same option maps, and families of Hudi keys that only tune JVM internals.
_PASS_THROUGH_PREFIXES = ("spark.", "hadoop.", "path", "as.of.instant")


@dataclass(frozen=True)
class HudiConfigs(Mapping[str, str]):
    """An immutable set of option strings with typed, validating access.

    Later layers win when built with :meth:`layered` (defaults < table properties < session
    options < statement options), which is the precedence Hudi's Spark SQL uses.
    """

    _values: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def of(cls, options: Mapping[str, object] | None = None, *, validate: bool = True) -> HudiConfigs:
        """Build from user options, normalising deprecated aliases and value types to strings."""
        values: dict[str, str] = {}
        known = _known_keys()
        for raw_key, raw_value in (options or {}).items():
            key = str(raw_key).strip()
            if raw_value is None:
                continue
            member = known.get(key)
            if member is not None and key != member.key:
                if key not in _warned_aliases:
                    _warned_aliases.add(key)
                    _log.warning("Option '%s' is deprecated; use '%s'.", key, member.key)
                key = member.key
            elif member is None and validate:
                _check_unknown(key, known)
            values[key] = _to_option_string(raw_value)
            if member is not None and validate:
                # Every given value is checked now (type, choices, range), naming key and value,
                # so a bad one fails the operation before it touches the table, not later in a
                # post-commit service that would only log it.
                member.parse_value(values[key])
        return cls(values)

    @classmethod
    def layered(cls, *layers: Mapping[str, object] | None) -> HudiConfigs:
        merged: dict[str, str] = {}
        for layer in layers:
            if layer:
                merged.update(cls.of(layer, validate=False)._values)
        return cls(merged)

    def with_options(self, options: Mapping[str, object]) -> HudiConfigs:
        return HudiConfigs({**self._values, **HudiConfigs.of(options)._values})

    # A ConfigOption is a str too; the first overload wins for it, so the overlap is harmless.
    # Mapping.get types every value as str; a registered option reads as its typed value on
    # purpose (that is what the registry is for), hence the deliberate override.
    @overload  # type: ignore[override]
    def get(self, key: ConfigOption[T], /) -> T: ...  # type: ignore[overload-overlap]
    @overload
    def get(self, key: str, /) -> str | None: ...
    @overload
    def get(self, key: str, default: str, /) -> str: ...
    @overload
    def get(self, key: str, default: T, /) -> str | T: ...

    def get(self, key: ConfigOption[Any] | str, default: object = None, /) -> Any:
        """The typed value of a registered option (its default if unset), or a raw string."""
        if isinstance(key, ConfigOption):
            raw = self._values.get(key.key)
            if raw is None:
                return key.spec.default
            return key.spec.parse_value(raw)
        return self._values.get(key, default)

    def is_set(self, key: ConfigOption[Any] | str) -> bool:
        return str(key) in self._values

    def require(self, key: ConfigOption[T | None]) -> T:
        value = self.get(key)
        if value is None or value == "" or value == ():
            raise HudiConfigError(f"Option '{key.key}' is required here but not set.", help=key.spec.doc)
        return value

    def raw(self) -> dict[str, str]:
        return dict(self._values)

    def __getitem__(self, key: str) -> str:
        return self._values[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)


def _check_unknown(key: str, known: Mapping[str, ConfigOption[Any]]) -> None:
    if not key.startswith("hoodie.") or key.startswith(_PASS_THROUGH_PREFIXES):
        return
    if apache_keys.is_apache_key(key):
        # Valid for Apache Hudi, so a job written for it runs unchanged: kept, not implemented.
        apache_keys.warn_not_implemented(key)
        return
    raise HudiConfigError(
        f"Unknown option '{key}'.{did_you_mean(key, [*known, *apache_keys.apache_keys()])}",
        help="see docs/configuration.md for every option hudi-sql understands",
    )


def describe(enums: Iterable[type[ConfigScope]] | None = None) -> str:
    """Markdown reference of every option (the source of docs/configuration.md)."""
    lines = ["| key | default | description |", "| --- | --- | --- |"]
    for enum in enums or _SCOPES:
        for member in enum:
            spec = member.spec
            default = "" if spec.default is None else _to_option_string(
                ",".join(spec.default) if isinstance(spec.default, tuple) else spec.default
            )
            note = "" if spec.effective else " (accepted for compatibility, no effect)"
            lines.append(f"| `{spec.key}` | `{default}` | {spec.doc}{note} |")
    return "\n".join(lines)
