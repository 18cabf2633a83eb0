"""The layer order of CONTRIBUTING.md, checked on the source: who may import whom.

Every module of ``hudi_sql`` and ``catalog`` belongs to one layer (the longest matching
prefix in :data:`LAYERS`). A module may import modules of its own layer or of lower layers,
never of a higher one, and the import graph has no cycle. Imports inside ``if TYPE_CHECKING:``
count too: a type from a higher layer in a signature is a dependency on that layer.

A second check keeps option keys in one place: a ``hoodie.*`` string literal may appear only
in the registry (``hudi_sql/config``) and the catalog's option scopes, so that a key is
declared, documented and validated once.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("hudi_sql", "catalog")

#: Layers from the bottom up, by folder (a package, or a module at the top of ``hudi_sql``); a
#: module's layer is that of its longest matching prefix. No entry names a module inside a
#: folder: a module that belongs to another layer moves to that layer's folder.
LAYERS: dict[str, int] = {
    "hudi_sql.errors": 0,
    # spec core: pure values and the storage boundary
    "hudi_sql.model": 1,
    "hudi_sql.config": 1,
    "hudi_sql.storage": 2,
    "hudi_sql.log": 2,
    "hudi_sql.hfile": 2,
    "hudi_sql.keygen": 2,
    "hudi_sql.table": 2,
    # the metadata table: its format, its reader and what an instant changes in it
    "hudi_sql.metadata": 2,
    # planning and execution (Spark tasks): the index, the read and write paths (markers
    # included: tasks write them before their files), Spark's side of both, and the metadata
    # table's files and index records
    "hudi_sql.index": 3,
    "hudi_sql.read": 3,
    "hudi_sql.write": 3,
    "hudi_sql.spark": 3,
    "hudi_sql.metadata.writer": 3,
    # commit protocol and the timeline, and keeping the metadata table in step inside it
    "hudi_sql.commit": 4,
    "hudi_sql.metadata.maintenance": 4,
    # table services
    "hudi_sql.services": 5,
    # the engine's entry points (write client, DataFrame functions, data source, session),
    # Structured Streaming, the health report, and the package's own exports
    "hudi_sql.engine": 6,
    "hudi_sql.streaming": 6,
    "hudi_sql.report": 6,
    "hudi_sql": 6,
    # catalog and Hive sync: above the engine, loaded by it only as plugins
    "catalog": 7,
    # the SQL layer
    "hudi_sql.sql": 8,
    # command-line apps and servers
    "hudi_sql.apps": 9,
    "hudi_sql.quickstart": 9,
}

#: Where ``hoodie.*`` literals may live: the option registry and the catalog's option scopes.
OPTION_HOMES = ("hudi_sql/config/", "catalog/hive/config.py")
#: Hudi names that look like option keys but are not options (file and property names).
NOT_OPTION_KEYS = re.compile(r"^hoodie\.(properties|properties\.backup)$")


def _modules() -> dict[str, Path]:
    found: dict[str, Path] = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            parts = path.relative_to(ROOT).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            found[".".join(parts)] = path
    return found


def _layer(module: str) -> int:
    best = max((p for p in LAYERS if module == p or module.startswith(p + ".")), key=len, default=None)
    assert best is not None, f"module {module} is in no layer of LAYERS"
    return LAYERS[best]


def _imports(module: str, path: Path, modules: dict[str, Path]) -> Iterator[tuple[str, int]]:
    """The project modules *module* imports, with the line of each import."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            names = [base] + [f"{base}.{alias.name}" for alias in node.names]
        else:
            continue
        targets = set()
        for name in names:
            # the deepest project module the name refers to
            while name and name not in modules:
                name = name.rpartition(".")[0]
            if name and name != module:
                targets.add(name)
        for target in sorted(targets):
            yield target, node.lineno


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    return {m: {t for t, _ in _imports(m, p, modules)} for m, p in modules.items()}


def test_the_layer_map_is_a_folder_map() -> None:
    """Every entry of :data:`LAYERS` is a package, or a module at the top of a package root:
    folders are the layers, with no module of one folder placed in another layer."""
    not_folders = [name for name in LAYERS
                   if not (ROOT / name.replace(".", "/")).is_dir() and name.count(".") > 1]
    assert not not_folders, f"layer entries that are modules inside a folder: {not_folders}"


def test_imports_follow_the_layer_order() -> None:
    modules = _modules()
    wrong = []
    for module, path in sorted(modules.items()):
        for target, line in _imports(module, path, modules):
            # a package's __init__ re-exporting its own modules is not a dependency upwards
            if target.startswith(module + "."):
                continue
            if _layer(target) > _layer(module):
                wrong.append(f"{path.relative_to(ROOT)}:{line} {module} (layer {_layer(module)}) "
                             f"imports {target} (layer {_layer(target)})")
    assert not wrong, "imports against the layer order:\n" + "\n".join(wrong)


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = [0]

    def visit(node: str) -> None:
        index[node] = low[node] = counter[0]
        counter[0] += 1
        stack.append(node)
        on_stack.add(node)
        for succ in sorted(graph.get(node, ())):
            # a package importing its own submodules (re-exports) is not a cycle
            if succ.startswith(node + "."):
                continue
            if succ not in index:
                visit(succ)
                low[node] = min(low[node], low[succ])
            elif succ in on_stack:
                low[node] = min(low[node], index[succ])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_import_graph_has_no_cycle() -> None:
    cycles = _cycles(_graph())
    assert not cycles, "import cycles:\n" + "\n".join(" <-> ".join(c) for c in cycles)


def test_cycle_finder_reports_a_cycle() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def _docstrings(tree: ast.Module) -> set[int]:
    """The ids of docstring nodes: prose may name a key, code may not spell one."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(id(first.value))
    return found


def _option_literals(path: Path) -> Iterator[tuple[int, str]]:
    tree = ast.parse(path.read_text(), str(path))
    docstrings = _docstrings(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            for key in re.findall(r"(?<![\w.])hoodie\.[a-z][a-z0-9_.]*[a-z0-9_]", node.value):
                if not NOT_OPTION_KEYS.match(key):
                    yield node.lineno, key


def test_option_keys_live_only_in_the_registry() -> None:
    stray = []
    for path in sorted(_modules().values()):
        rel = path.relative_to(ROOT).as_posix()
        if rel.startswith(OPTION_HOMES):
            continue
        stray += [f"{rel}:{line} {key}" for line, key in _option_literals(path)]
    assert not stray, f"{len(stray)} hoodie.* literals outside the registry:\n" + "\n".join(stray)


def _option_member(node: ast.expr) -> bool:
    """``HudiWriteConfig.OPERATION`` or ``HudiWriteConfig.OPERATION.key``: a registered option."""
    if isinstance(node, ast.Attribute) and node.attr == "key":
        node = node.value
    return (isinstance(node, ast.Attribute) and node.attr.isupper() and isinstance(node.value, ast.Name)
            and node.value.id.endswith("Config"))


def _option_value_reads(tree: ast.AST) -> Iterator[ast.expr]:
    """Reads of an option's value: ``configs.get(Scope.OPTION)``, ``props.get(Scope.OPTION.key)``,
    ``props[Scope.OPTION.key]``. (Whether an option is given — ``is_set``, ``in`` — and assembling
    option maps for another layer are not reads.)"""
    for node in ast.walk(tree):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get"
                and node.args and _option_member(node.args[0])) or isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load) and _option_member(node.slice):
            yield node


def test_option_values_are_read_only_where_options_are_resolved() -> None:
    """Options are resolved once into typed configs (``hudi_sql.config.resolve``: the write, read,
    service, index, SQL insert and table configs; ``hudi_sql.config.keygen``) and those are handed
    down; the rest of the code reads typed fields, never an option key."""
    stray = []
    for path in sorted(_modules().values()):
        rel = path.relative_to(ROOT).as_posix()
        if rel.startswith(OPTION_HOMES):
            continue
        source = path.read_text()
        stray += [f"{rel}:{node.lineno}: {ast.get_source_segment(source, node)}"
                  for node in _option_value_reads(ast.parse(source, str(path)))]
    assert not stray, "option values read outside the config layer (take the typed config):\n" + "\n".join(stray)


def test_the_option_read_check_sees_each_form_of_read() -> None:
    tree = ast.parse("a = configs.get(HudiWriteConfig.OPERATION)\nb = props.get(HudiTableConfig.NAME.key, 'x')\n"
                     "c = props[HudiTableConfig.TYPE.key]\nif configs.is_set(HudiWriteConfig.OPERATION): pass\n"
                     "out[HudiWriteConfig.OPERATION.key] = 'upsert'\nd = row.get('name')\n")
    assert [ast.unparse(n) for n in _option_value_reads(tree)] == [
        "configs.get(HudiWriteConfig.OPERATION)", "props.get(HudiTableConfig.NAME.key, 'x')",
        "props[HudiTableConfig.TYPE.key]"]


@pytest.mark.parametrize("package", PACKAGES)
def test_no_module_is_over_the_size_limit(package: str) -> None:
    big = [f"{p.relative_to(ROOT)}: {n} lines" for p in (ROOT / package).rglob("*.py")
           if (n := len(p.read_text().splitlines())) > 600]
    assert not big, "modules over 600 lines (split them by concern):\n" + "\n".join(big)


def test_no_leftover_files_in_the_packages() -> None:
    leftovers = [str(p.relative_to(ROOT)) for package in PACKAGES for p in (ROOT / package).rglob("*")
                 if p.is_file() and p.suffix in {".orig", ".rej", ".bak", ".swp"}]
    assert not leftovers, f"leftover files: {leftovers}"


#: Calls that reach a file system directly. Table files go through ``hudi_sql.storage`` (the one
#: interface with a backend per scheme), so a table on S3 is never read or written as a local path.
DIRECT_FILE_ACCESS = re.compile(
    r"\bos\.(walk|stat|listdir|scandir|unlink|remove|makedirs|replace|rename|link|utime)\(|\bshutil\.|"
    r"\bpa\.OSFile\(|\bpa\.memory_map\(|(?<![\w.])open\(|\bos\.path\.(exists|isdir|isfile|getsize|getmtime)\(")

#: Modules that touch local files on purpose, and why.
LOCAL_FILE_MODULES = {
    "hudi_sql/storage/": "the storage interface itself",
    "hudi_sql/engine/bootstrap.py": "bootstrap lists a local source folder (refused for object stores)",
    "hudi_sql/table/bootstrap_index.py": "records a local source file's status as Hadoop's local file system does",
    "hudi_sql/hfile/reader.py": "HFileReader.open(path) reads a local file for tools; tables pass bytes",
    "hudi_sql/apps/hiveserver2/daemon.py": "a background server's log and pid files in the local state folder",
}


def test_table_files_are_reached_only_through_the_storage_interface() -> None:
    stray = []
    for path in sorted(_modules().values()):
        rel = path.relative_to(ROOT).as_posix()
        if rel.startswith(tuple(LOCAL_FILE_MODULES)):
            continue
        for number, line in enumerate(path.read_text().splitlines(), 1):
            code = line.split("#", 1)[0]
            if DIRECT_FILE_ACCESS.search(code) and "def open(" not in code:
                stray.append(f"{rel}:{number}: {line.strip()}")
    assert not stray, "direct file-system calls outside hudi_sql.storage:\n" + "\n".join(stray)


#: Modules that turn trees into text: sqlglot generators extended for our nodes.
SQL_RENDERERS = ("hudi_sql/sql/dialect.py", "catalog/dialects.py")
#: How a statement starts; an f-string starting so builds SQL unless it only names a statement in a message.
STATEMENT_START = re.compile(
    r"^(SELECT|INSERT|CREATE|ALTER|DROP|SET|MERGE|UPDATE|DELETE|SHOW|DESCRIBE|USE|CALL|REFRESH|MSCK|TRUNCATE|WITH"
    r"|CACHE|UNCACHE|ANALYZE|EXPLAIN) ")
#: Where an f-string names a statement for a message: the ``where`` label of an operation, the
#: ``kind`` / ``what`` argument of a statement's errors, and the ``help`` of an error.
MESSAGE_NAMES = frozenset({"where", "where_", "kind", "what", "help", "match"})
_LOGGING = frozenset({"debug", "info", "warning", "error", "exception"})


def _message_nodes(tree: ast.Module) -> set[int]:
    """The ids of every node inside a message: raised errors, error constructors, log calls,
    message keywords and labels assigned to a message name."""
    found: set[int] = set()
    for node in ast.walk(tree):
        in_message = isinstance(node, ast.Raise)
        if isinstance(node, ast.Call):
            called = getattr(node.func, "attr", None) or getattr(node.func, "id", None) or ""
            in_message = called in _LOGGING or called.endswith(("Error", "Exception"))
        if isinstance(node, ast.keyword):
            in_message = node.arg in MESSAGE_NAMES
        if isinstance(node, ast.Assign):
            in_message = all(isinstance(t, ast.Name) and t.id in MESSAGE_NAMES for t in node.targets)
        if in_message:
            found.update(id(sub) for sub in ast.walk(node))
    return found


def test_sql_is_built_as_trees_never_as_formatted_text() -> None:
    """Statements are sqlglot trees rendered by a generator, so every identifier and value is
    quoted by construction (style: "SQL built as trees"); f-strings may only name a statement
    in a message."""
    stray = []
    for path in sorted(_modules().values()):
        rel = path.relative_to(ROOT).as_posix()
        if rel in SQL_RENDERERS:
            continue
        source = path.read_text()
        tree = ast.parse(source, str(path))
        messages = _message_nodes(tree)
        for node in ast.walk(tree):
            if not isinstance(node, ast.JoinedStr) or id(node) in messages or not node.values:
                continue
            first = node.values[0]
            if isinstance(first, ast.Constant) and isinstance(first.value, str) and STATEMENT_START.match(first.value):
                stray.append(f"{rel}:{node.lineno}: {ast.get_source_segment(source, node)}")
    assert not stray, "SQL built by formatting text (build a sqlglot tree):\n" + "\n".join(stray)


def test_the_sql_text_check_sees_a_formatted_statement() -> None:
    tree = ast.parse('def f(t):\n    where = f"UPDATE {t}"\n    return spark.sql(f"DROP TABLE {t}")\n')
    messages = _message_nodes(tree)
    formatted = [n for n in ast.walk(tree) if isinstance(n, ast.JoinedStr) and id(n) not in messages]
    assert [ast.unparse(n) for n in formatted] == ["f'DROP TABLE {t}'"]


def _function_level_project_imports(tree: ast.Module) -> Iterator[ast.stmt]:
    for function in ast.walk(tree):
        if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for node in ast.walk(function):
                relative_or_ours = isinstance(node, ast.ImportFrom) and (
                    node.level or (node.module or "").split(".")[0] in PACKAGES)
                ours = isinstance(node, ast.Import) and any(a.name.split(".")[0] in PACKAGES for a in node.names)
                if relative_or_ours or ours:
                    yield node


def test_project_modules_are_imported_at_module_level() -> None:
    """An import inside a function hides a dependency from the reader and from the layer check's
    eye on import time; the few left say why on the line above (a package still initialising)."""
    stray = []
    for path in sorted(_modules().values()):
        lines = path.read_text().splitlines()
        for node in _function_level_project_imports(ast.parse("\n".join(lines), str(path))):
            if not lines[node.lineno - 2].strip().startswith("#"):
                stray.append(f"{path.relative_to(ROOT)}:{node.lineno}: {lines[node.lineno - 1].strip()}")
    assert not stray, "function-level project imports without a comment saying why:\n" + "\n".join(stray)
