"""``python -m hudi_sql.config``: print the option reference (docs/configuration.md) from the registry."""

from __future__ import annotations

import hudi_sql.config.compaction
import hudi_sql.config.services  # noqa: F401
from hudi_sql.config.registry import all_config_enums, describe

HEADER = """# Configuration reference

Generated from the option registry by `python -m hudi_sql.config > docs/configuration.md`;
a test fails when this file is out of date. Keys are Apache Hudi's own; an unknown `hoodie.*`
key is an error with a "did you mean".
"""


def render() -> str:
    parts = [HEADER]
    for enum in sorted(all_config_enums(), key=lambda e: e.__name__):
        parts.append(f"\n## {enum.__name__}\n\n{(enum.__doc__ or '').strip()}\n\n{describe([enum])}\n")
    return "".join(parts)


if __name__ == "__main__":
    print(render(), end="")
