"""One owner of the timeline: only ``hudi_sql/commit/instant_files.py`` writes or deletes instant files.

The check reads the source (no Spark, no import of the modules): in every function of
``hudi_sql`` and ``catalog`` it looks for a file write or delete (``write_bytes``, ``delete``,
``delete_dir``, ``os.unlink``, ...) in the same function as a ``.hoodie/`` instant path
(``instant_path(...)``, ``instant_file_path(...)``), or one whose target is built from the ``.hoodie/`` folder itself
(``meta_path``). Such a function changes the timeline behind the writer's back, outside its
transaction and lock. (Creating the folder and ``hoodie.properties`` with a new table is not a
timeline change.)
"""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
WRITER = ROOT / "hudi_sql" / "commit" / "instant_files.py"

#: Calls that create, replace or remove files.
WRITE_CALLS = frozenset({"write_bytes", "create_empty", "delete", "delete_dir", "unlink", "remove", "rename",
                         "replace", "rmtree", "link"})
#: Name an instant file (layout 1; either layout): any write or delete in the same function is suspect.
INSTANT_PATHS = frozenset({"instant_path", "instant_file_path"})
#: The ``.hoodie/`` folder: suspect when a write or delete targets a path built from it.
META_PATH = "meta_path"


def _called_name(node: ast.Call) -> str | None:
    func = node.func
    if isinstance(func, ast.Attribute):
        return func.attr
    if isinstance(func, ast.Name):
        return func.id
    return None


class _Scopes(ast.NodeVisitor):
    """Per innermost function: the file-changing calls and the timeline paths it names."""

    def __init__(self) -> None:
        self.found: list[tuple[str, int, str]] = []
        self._stack: list[tuple[str, set[str], list[tuple[int, str]]]] = []

    def _scope(self, name: str, node: ast.AST) -> None:
        self._stack.append((name, set(), []))
        self.generic_visit(node)
        scope, paths, writes = self._stack.pop()
        if paths and writes:
            line, call = writes[0]
            self.found.append((scope, line, f"{call}() next to {', '.join(sorted(paths))}"))

    def visit_Module(self, node: ast.Module) -> None:
        self._scope("<module>", node)

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        self._scope(node.name, node)

    def visit_AsyncFunctionDef(self, node: ast.AsyncFunctionDef) -> None:
        self._scope(node.name, node)

    def visit_Lambda(self, node: ast.Lambda) -> None:
        self._scope("<lambda>", node)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if node.attr in INSTANT_PATHS:
            self._stack[-1][1].add(node.attr)
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        name = _called_name(node)
        if name in WRITE_CALLS:
            self._stack[-1][2].append((node.lineno, name))
            targets = [*node.args, *(k.value for k in node.keywords)]
            if any(isinstance(n, ast.Attribute) and n.attr == META_PATH for t in targets for n in ast.walk(t)):
                self._stack[-1][1].add(META_PATH)
        self.generic_visit(node)


def timeline_changes(source: str) -> list[tuple[str, int, str]]:
    """(function, line, what) of every function that writes or deletes next to a timeline path."""
    scopes = _Scopes()
    scopes.visit(ast.parse(source))
    return scopes.found


def _sources() -> list[Path]:
    return sorted(p for package in ("hudi_sql", "catalog") for p in (ROOT / package).rglob("*.py"))


def test_timeline_changes_only_in_the_timeline_writer() -> None:
    stray = [f"{path.relative_to(ROOT)}:{line} {scope}: {what}"
             for path in _sources() if path != WRITER
             for scope, line, what in timeline_changes(path.read_text())]
    assert not stray, ("instant files written or deleted outside hudi_sql/commit/instant_files.py "
                       "(publish through an InstantFileWriter (a TimelineWriter) inside `with writer.transaction(...)`):\n" + "\n".join(stray))


def test_timeline_changes_scan_covers_the_sources() -> None:
    names = {p.relative_to(ROOT).as_posix() for p in _sources()}
    assert {"hudi_sql/services/clean.py", "hudi_sql/commit/rollback.py", "hudi_sql/services/archive.py",
            "hudi_sql/commit/transaction.py", "hudi_sql/services/savepoint.py"} <= names


def test_timeline_changes_finds_the_writers_own_writes() -> None:
    # The writer is the one place allowed to do it, so the detector must see it there.
    scopes = {scope for scope, _, _ in timeline_changes(WRITER.read_text())}
    assert {"_write", "delete"} <= scopes


def test_timeline_changes_flags_a_service_writing_an_instant_file() -> None:
    # What clean.py, savepoint.py and archive.py did before the timeline writer existed.
    source = textwrap.dedent('''
        def run_clean(meta, instant):
            storage, layout = meta.storage, meta.layout
            storage.write_bytes(layout.instant_path(instant), b"", overwrite=False)

        def delete_savepoint(meta, instant):
            path = meta.layout.instant_path(instant)
            if meta.storage.delete(path):
                print(path)

        def sneaky(meta, name):
            os.unlink(os.path.join(meta.layout.meta_path, name))

        def init(storage, layout):
            storage.mkdirs(layout.meta_path)
            storage.write_bytes(layout.properties_path, b"")

        def reads_only(meta, instant):
            return meta.storage.read_bytes(meta.layout.instant_path(instant))

        def deletes_data_only(meta, path):
            meta.storage.delete(path)
    ''')
    found = timeline_changes(source)
    assert [(scope, what) for scope, _, what in found] == [
        ("run_clean", "write_bytes() next to instant_path"),
        ("delete_savepoint", "delete() next to instant_path"),
        ("sneaky", "unlink() next to meta_path"),
    ]


def test_timeline_changes_checks_nested_functions_on_their_own() -> None:
    source = textwrap.dedent('''
        def outer(meta, instant):
            path = meta.layout.instant_path(instant)

            def inner(storage, data_file):
                storage.delete(data_file)
            return path, inner
    ''')
    assert timeline_changes(source) == []
