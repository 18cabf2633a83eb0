"""The spec core stays free of Spark: nothing ``model/`` or ``config/`` imports reaches pyspark.

CONTRIBUTING.md ("Layers"): ``model/`` and ``config/`` are pure values, readable and testable
without a JVM or the PySpark wheel, and usable by tools that only read Hudi's formats. The check
is on the source, not on ``sys.modules``: importing ``hudi_sql.model`` runs the top package's
``__init__`` (the public API, which does need Spark), so a runtime check could not tell a
spec-core dependency from that. Instead every project module the spec core imports, directly
or through other project modules (``if TYPE_CHECKING:`` blocks and function-level imports
included), is scanned for an import of ``pyspark``.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SPEC_CORE = ("hudi_sql/model", "hudi_sql/config")


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _project_modules() -> dict[str, Path]:
    return {_module_name(p): p for package in ("hudi_sql", "catalog") for p in (ROOT / package).rglob("*.py")}


def _imported_names(module: str, path: Path) -> list[str]:
    """Every dotted name *module* imports (relative imports resolved)."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    names: list[str] = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            names += [base] + [f"{base}.{alias.name}" for alias in node.names]
    return names


def _pyspark_paths(roots: list[str], modules: dict[str, Path]) -> list[str]:
    """For each module reachable from *roots* that imports pyspark: the import chain to it."""
    found = []
    chain: dict[str, str | None] = {root: None for root in roots}
    queue = list(roots)
    while queue:
        module = queue.pop()
        names = _imported_names(module, modules[module])
        if any(n == "pyspark" or n.startswith("pyspark.") for n in names):
            steps, at = [], module
            while at is not None:
                steps.append(at)
                at = chain[at]
            found.append(" <- ".join(steps))
        for name in names:
            while name and name not in modules:
                name = name.rpartition(".")[0]
            # the top package's __init__ is the public API, not a dependency of the spec core
            if name and name != "hudi_sql" and name not in chain:
                chain[name] = module
                queue.append(name)
    return sorted(found)


def test_spec_core_never_imports_pyspark() -> None:
    modules = _project_modules()
    roots = sorted(m for m, p in modules.items() if p.relative_to(ROOT).as_posix().startswith(SPEC_CORE))
    assert len(roots) > 10, f"the spec core was not found under {ROOT}"
    offenders = _pyspark_paths(roots, modules)
    assert not offenders, "the spec core reaches pyspark (move Spark code to hudi_sql/spark):\n" + "\n".join(offenders)


def test_purity_check_reports_a_spark_module() -> None:
    # The Spark-typed schema conversions import pyspark; the check must see that, directly and
    # through a module that imports them.
    modules = _project_modules()
    assert _pyspark_paths(["hudi_sql.spark.schema"], modules) == ["hudi_sql.spark.schema"]
    assert "hudi_sql.spark.schema <- hudi_sql.spark.schema_compat" in _pyspark_paths(
        ["hudi_sql.spark.schema_compat"], modules)
