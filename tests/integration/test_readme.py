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


@pytest.fixture(scope="module")
def checkout(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, dict[str, str]]]:
    """One checkout for the module: the walk-through's blocks build on each other, in order."""
    tmp_path = tmp_path_factory.mktemp("readme")
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


#: What a reader sees each block of the walk-through do (by a phrase of the block), beyond running.
EXPECTED = {
    "hudi_sql.write(df": lambda work, output: "21.0" in output  # the update, in the snapshot it shows
    and (work / "lake" / "trips" / ".hoodie" / "hoodie.properties").is_file(),
    "thriftserver --port 10000 --detach": lambda work, output: "thriftserver on port 10000" in output
    and "stopped" in output,  # the server came and went
    "MERGE INTO rides": lambda work, output: "rider-C" in output,  # MERGE inserted the new key
    "CREATE TABLE events": lambda work, output: "data skipping: 1 of 2 file slices skipped" in output,
    "hudi-sql report": lambda work, output: (work / "trips.html").is_file(),
}


@pytest.mark.parametrize("block", code_blocks()[2:], ids=lambda b: f"line{b.line}")
def test_readme_walk_through_runs_as_written(checkout: tuple[Path, dict[str, str]], block: CodeBlock) -> None:
    """From the Python section on, each block in order (one test each), building on the ones before."""
    work, env = checkout
    output = _run(block, work, env)
    for phrase, seen in EXPECTED.items():
        if phrase in block.text:
            assert seen(work, output), f"README block at line {block.line}: not what its text says:\n{output[-3000:]}"


def test_readme_walk_through_is_checked_block_by_block() -> None:
    """Every expectation above names a phrase of some block (a README edit must keep them apart)."""
    texts = [block.text for block in code_blocks()[2:]]
    assert all(any(phrase in text for text in texts) for phrase in EXPECTED)
