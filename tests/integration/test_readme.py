"""The README, run as a newcomer runs it: each code block, in order, exactly as written.

The first block (set-up and the test command) is what ``.ci/run`` runs, taken from the README by
``tools/readme.py``; these tests run the others, from a folder holding the repository's
``.venv``, ``sql_examples`` and ``tools`` (so the README's relative paths resolve as in a
checkout) with ``$HUDI_SQL_HOME`` in a temporary folder: ``bash`` blocks with ``bash -e``,
``python`` blocks with the README's ``.venv/bin/python``, ``sql`` blocks with ``hudi-sql -f``.
The servers the README starts in the background (SeaweedFS, the thriftserver) are stopped by
the README's own commands; if a block fails first, by their process ids here.
"""

from __future__ import annotations

import os
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pyspark
import pytest

from tools.readme import CodeBlock, code_blocks

pytestmark = [pytest.mark.processes]

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def checkout(tmp_path: Path) -> Iterator[tuple[Path, dict[str, str]]]:
    work = tmp_path / "checkout"
    work.mkdir()
    for name in (".venv", "sql_examples", "tools"):
        (work / name).symlink_to(REPO / name)
    home = tmp_path / "home"
    # Spark's jars by their real path, as in the checkout: the JVM class archive matches its class path.
    spark_home = str(Path(pyspark.__file__).resolve().parent)
    env = {**os.environ, "HUDI_SQL_HOME": str(home), "SPARK_LOCAL_IP": "127.0.0.1", "SPARK_HOME": spark_home}
    try:
        yield work, env
    finally:
        for pid_file in (home / "thriftserver-10000.pid", home / "s3" / "weed.pid"):
            if pid_file.is_file():
                try:
                    os.killpg(int(pid_file.read_text()), signal.SIGKILL)
                except (ProcessLookupError, ValueError):
                    pass


def _run(block: CodeBlock, work: Path, env: dict[str, str]) -> str:
    """Run *block* as the README's reader would; its output, or a failure naming its README line."""
    if block.language == "bash":
        command = ["bash", "-e", "-o", "pipefail", "-c", block.text]
    elif block.language == "python":
        script = work / f"readme_{block.line}.py"
        script.write_text(block.text)
        command = [".venv/bin/python", script.name]
    elif block.language == "sql":
        script = work / f"readme_{block.line}.sql"
        script.write_text(block.text)
        command = [".venv/bin/hudi-sql", "-f", script.name]
    else:
        pytest.fail(f"README line {block.line}: a ```{block.language} block, which no reader can run as written")
    done = subprocess.run(command, check=False, cwd=work, env=env, capture_output=True, text=True, timeout=900)
    output = done.stdout + done.stderr
    assert done.returncode == 0, f"README block at line {block.line} failed ({done.returncode}):\n{output[-4000:]}"
    return output


def test_readme_s3_block_runs_as_written(checkout: tuple[Path, dict[str, str]]) -> None:
    from tools.s3.seaweedfs import unavailable_reason

    reason = unavailable_reason()
    if reason:
        pytest.skip(reason)
    work, env = checkout
    s3 = code_blocks()[1]
    assert "s3a://lake/quickstart" in s3.text
    output = _run(s3, work, env)
    assert "s3a://lake/quickstart" in output and "S3 server in" in output


def test_readme_walk_through_runs_as_written(checkout: tuple[Path, dict[str, str]]) -> None:
    """From the Python section on: every block, in order, each building on the ones before."""
    work, env = checkout
    outputs = {block.line: _run(block, work, env) for block in code_blocks()[2:]}
    text = "\n".join(outputs.values())
    assert (work / "lake" / "trips" / ".hoodie" / "hoodie.properties").is_file()
    assert "21.0" in text  # the Python section's update, in its snapshot
    assert "thriftserver on port 10000" in text and "stopped" in text  # the SQL section's server came and went
    assert "rider-C" in text  # MERGE inserted the new key
    assert "data skipping: 1 of 2 file slices skipped" in text  # EXPLAIN of the metadata table section, as its comment says
    assert (work / "trips.html").is_file()  # the health report
