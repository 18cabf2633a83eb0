"""``CALL procedure(...)``: a registry of Hudi's Spark SQL procedures.

Each procedure is declared once with :func:`procedure`: its name (as Hudi spells it), its
arguments (typed, required or with a default, in positional order) and its output columns,
next to the function that runs it. ``CALL`` binds named (``table => 't'``) or positional
arguments, checks them, runs the function and returns its rows as a DataFrame with the
declared columns. ``CALL help()`` lists every procedure, ``CALL help(cmd => 'name')`` shows
one.

Procedures live one module per area (:data:`MODULES`); a later capability adds its module to
that list (or imports its own module) and its procedures join the same registry.
"""

from __future__ import annotations

__all__ = ["MODULES", "Arg", "Procedure", "ProcedureContext", "bind_args", "lookup", "procedure", "registry"]

import importlib
import importlib.util
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from hudi_sql.config import HudiConfigs
from hudi_sql.config.resolve import Resolved
from hudi_sql.errors import HudiSqlError, did_you_mean
from hudi_sql.sql import statements as st
from hudi_sql.sql.planner import write_options
from hudi_sql.table.meta_client import TableMetaClient

if TYPE_CHECKING:
    from hudi_sql.sql.operations.context import OperationContext
    from hudi_sql.sql.planner import HudiTableFacts

#: Modules holding procedures, imported on the first CALL.
MODULES = [
    "hudi_sql.sql.procedures.help",
    "hudi_sql.sql.procedures.commits",
    "hudi_sql.sql.procedures.commit_stats",
    "hudi_sql.sql.procedures.table_maintenance",
    "hudi_sql.sql.procedures.timeline",
    "hudi_sql.sql.procedures.files",
    "hudi_sql.sql.procedures.table",
    "hudi_sql.sql.procedures.compaction",
    "hudi_sql.sql.procedures.clean",
    "hudi_sql.sql.procedures.log_files",
    "hudi_sql.sql.procedures.bootstrap",
    "hudi_sql.sql.procedures.services",
    "hudi_sql.sql.procedures.report",
    "hudi_sql.sql.procedures.table_health",
    "hudi_sql.sql.procedures.metadata_table",
]

_TYPES: dict[str, Callable[[Any], Any]] = {
    "string": str,
    "int": int,
    "long": int,
    "double": float,
    "boolean": bool,
}


@dataclass(frozen=True)
class Arg:
    """One procedure argument: ``type`` is ``string``, ``int``, ``long``, ``double`` or ``boolean``."""

    name: str
    type: str = "string"
    required: bool = False
    default: st.CallValue = None


RowFunction = Callable[["ProcedureContext", dict[str, Any]], Sequence[tuple[Any, ...]]]


@dataclass(frozen=True)
class Procedure:
    name: str
    args: tuple[Arg, ...]
    output: str  # Spark DDL of the result columns
    run: RowFunction
    description: str = ""

    def output_fields(self) -> list[tuple[str, str]]:
        from pyspark.sql.types import _parse_datatype_string

        schema = _parse_datatype_string(self.output)
        return [(f.name, f.dataType.typeName()) for f in schema.fields]


_REGISTRY: dict[str, Procedure] = {}
_loaded = False


def procedure(
    name: str, *, args: Sequence[Arg], output: str, description: str
) -> Callable[[RowFunction], RowFunction]:
    """Register the decorated function as procedure *name*."""

    def register(run: RowFunction) -> RowFunction:
        if name in _REGISTRY:
            raise ValueError(f"procedure '{name}' is registered twice")
        _REGISTRY[name] = Procedure(name, tuple(args), output, run, description)
        return run

    return register


def registry() -> Mapping[str, Procedure]:
    """Every procedure, by name (modules imported on first use)."""
    global _loaded
    if not _loaded:
        for module in MODULES:
            if importlib.util.find_spec(module) is not None:
                importlib.import_module(module)
        _loaded = True
    return _REGISTRY


class ProcedureContext:
    """What a procedure may use: the operation context (Spark, catalog, session options) and
    table lookup."""

    def __init__(self, runner: OperationContext, procedure_name: str) -> None:
        self.runner = runner
        self.name = procedure_name

    @property
    def spark(self) -> Any:
        return self.runner.spark

    def table_location(self, args: Mapping[str, Any]) -> str:
        """The base path named by the ``table`` argument (a catalog table) or ``path``."""
        table, path = args.get("table"), args.get("path")
        if table and path:
            raise HudiSqlError(f"CALL {self.name}: give 'table' or 'path', not both.")
        if path:
            return str(path)
        if not table:
            raise HudiSqlError(
                f"CALL {self.name}: argument 'table' (or 'path') is required.",
                help=f"CALL {self.name}(table => 'my_table')",
            )
        return self.facts(str(table)).location

    def table_name(self, table: str) -> st.TableName:
        """The ``table`` argument (``t``, ``db.t``, ``spark_catalog.db.t``) as a table name."""
        parts = [p.strip().strip("`") for p in table.split(".")]
        if parts and parts[0].lower() == "spark_catalog":
            parts = parts[1:]
        if not 1 <= len(parts) <= 2 or not all(parts):
            raise HudiSqlError(
                f"CALL {self.name}: '{table}' is not a table name.",
                help="name the table as 'table' or 'database.table', or pass path => '...'",
            )
        return st.TableName(parts[0] if len(parts) == 2 else None, parts[-1])

    def facts(self, table: str) -> HudiTableFacts:
        _, facts = self.runner.hudi_table(self.table_name(table), what=f"CALL {self.name}")
        return facts

    def meta(self, args: Mapping[str, Any]) -> TableMetaClient:
        return TableMetaClient.load(self.table_location(args))

    def write_configs(self, args: Mapping[str, Any], extra: Mapping[str, str] | None = None) -> HudiConfigs:
        """The table's write options (session and table properties layered) plus *extra*."""
        base: dict[str, str] = {}
        if args.get("table"):
            base = write_options(self.facts(str(args["table"])), self.runner.options)
        else:
            base = {k: v for k, v in self.runner.options.items() if k.startswith("hoodie.")}
        return HudiConfigs.of({**base, **(extra or {})})

    def resolve(self, args: Mapping[str, Any], extra: Mapping[str, str] | None = None) -> Resolved:
        """The procedure's options (:meth:`write_configs`) resolved once, for the services it runs."""
        return Resolved(self.write_configs(args, extra))


def parse_options(text: str | None, where: str) -> dict[str, str]:
    """Hudi's ``options => 'k1=v1,k2=v2'`` argument."""
    options: dict[str, str] = {}
    for part in (text or "").split(","):
        if not part.strip():
            continue
        key, sep, value = part.partition("=")
        if not sep:
            raise HudiSqlError(
                f"{where}: option '{part.strip()}' is not key=value.",
                help="options => 'key1=value1,key2=value2' (Hudi option keys)",
            )
        options[key.strip()] = value.strip()
    return options


def _coerce(proc: Procedure, arg: Arg, value: st.CallValue) -> Any:
    if value is None:
        return None
    kind = arg.type
    ok = {
        "string": isinstance(value, str),
        "int": isinstance(value, int) and not isinstance(value, bool),
        "long": isinstance(value, int) and not isinstance(value, bool),
        "double": isinstance(value, (int, float)) and not isinstance(value, bool),
        "boolean": isinstance(value, bool),
    }[kind]
    if not ok and kind in ("int", "long") and isinstance(value, str) and value.strip().lstrip("-").isdigit():
        return int(value)
    if not ok and kind == "boolean" and isinstance(value, str) and value.lower() in ("true", "false"):
        return value.lower() == "true"
    if not ok and kind == "string" and isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    if not ok:
        raise HudiSqlError(f"CALL {proc.name}: argument '{arg.name}' must be {kind}, got {value!r}.")
    return _TYPES[kind](value)


def bind_args(proc: Procedure, call_args: Sequence[st.CallArg]) -> dict[str, Any]:
    """Named or positional CALL arguments -> a value (or default) for every declared argument."""
    names = [a.name for a in proc.args]
    given: dict[str, st.CallValue] = {}
    for position, arg in enumerate(call_args):
        if arg.name is None:
            if position >= len(proc.args):
                raise HudiSqlError(
                    f"CALL {proc.name}: too many arguments ({len(call_args)}); it takes "
                    f"{len(proc.args)} ({', '.join(names)})."
                )
            given[proc.args[position].name] = arg.value
            continue
        match = next((a.name for a in proc.args if a.name.lower() == arg.name.lower()), None)
        if match is None:
            raise HudiSqlError(
                f"CALL {proc.name}: unknown argument '{arg.name}'.{did_you_mean(arg.name, names)}",
                help=f"arguments are {', '.join(names) or '(none)'}; CALL help(cmd => '{proc.name}')",
            )
        given[match] = arg.value
    bound: dict[str, Any] = {}
    for arg in proc.args:
        if arg.name in given and given[arg.name] is not None:
            bound[arg.name] = _coerce(proc, arg, given[arg.name])
        elif arg.required:
            raise HudiSqlError(
                f"CALL {proc.name}: argument '{arg.name}' is required.",
                help=f"CALL {proc.name}({arg.name} => ...)",
            )
        else:
            bound[arg.name] = arg.default
    return bound


def lookup(name: str) -> Procedure:
    procedures = registry()
    short = name.rsplit(".", 1)[-1].lower()
    found = procedures.get(short)
    if found is None:
        raise HudiSqlError(
            f"Unknown procedure '{name}'.{did_you_mean(short, list(procedures))}",
            help="CALL help() lists the procedures",
        )
    return found

