"""The README's code blocks, for CI and the test that runs them as written.

``python3 tools/readme.py command N`` prints the N-th command of the README's first block (the
set-up and the test command of its first lines), without its trailing comment, so ``.ci/run``
runs exactly what a newcomer runs. :func:`code_blocks` gives every fenced block with its
language, for ``tests/integration/test_readme.py``.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"
_FENCE = re.compile(r"^```(\w*)\n(.*?)^```\s*$", re.MULTILINE | re.DOTALL)
_TRAILING_COMMENT = re.compile(r"\s+#\s.*$")


@dataclass(frozen=True)
class CodeBlock:
    language: str
    text: str
    line: int  #: the README line of its opening fence

    def commands(self) -> list[str]:
        """Its lines as commands: continuation lines joined, trailing ``# comments`` dropped."""
        joined = self.text.replace("\\\n", " ")
        return [_TRAILING_COMMENT.sub("", line).strip() for line in joined.splitlines() if line.strip()]


def code_blocks(text: str | None = None) -> list[CodeBlock]:
    source = README.read_text(encoding="utf-8") if text is None else text
    return [CodeBlock(m.group(1), m.group(2), source.count("\n", 0, m.start()) + 1) for m in _FENCE.finditer(source)]


def main(argv: list[str]) -> int:
    if len(argv) != 2 or argv[0] != "command" or not argv[1].isdigit():
        print("usage: python3 tools/readme.py command N", file=sys.stderr)
        return 2
    print(code_blocks()[0].commands()[int(argv[1]) - 1])
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
