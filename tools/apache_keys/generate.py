"""Regenerate ``hudi_sql/config/apache_hudi_keys.txt``: every ``hoodie.*`` option key any Apache
Hudi release from 0.10 to 1.2 declares, read from the released jars.

Apache Hudi declares each option as a ``ConfigProperty`` constant (a static field of a Java
config class, or a field of a Scala object such as ``DataSourceWriteOptions``); its key and its
alternatives (older names) are the keys Hudi accepts. ``ListConfigKeys.java`` loads every class of
a jar and prints those keys. Some keys scripts set are read by Apache Hudi's code without being
declared that way (``hoodie.payload.combined.schema.validate``, a Scala ``val`` of its SQL
layer): every ``hoodie.*`` string constant in the class files of Apache Hudi's packages counts too. For each release in ``RELEASES`` the jars are fetched from Maven
Central with ``mvn`` (a Spark bundle where one is published, else the modules that declare
options) into a cache; modules that cannot be loaded that way contribute the key prefixes listed
in ``prefixes.txt``.

Each line of the output is a key, the first and last release that declares it, and, when the
newest release that knows it lists it as an alternative of another key, ``-> that key``: what a
script written for an older release meant by it. Scripts carry keys of every release, so a key
any release declares is accepted (``hudi_sql/config/apache_keys.py``).

Usage::

    bash tools/oracle/setup.sh     # the oracle's PySpark 3.5: its jars complete the class path
    python tools/apache_keys/generate.py

Needs a JDK (``javac``, ``java``), ``mvn`` and the network to Maven Central.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
PROJECT = HERE.parents[1]
OUTPUT = PROJECT / "hudi_sql" / "config" / "apache_hudi_keys.txt"
CACHE = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "hudi-sql"
ORACLE = Path(os.environ.get("HUDI_ORACLE_DIR") or CACHE / "oracle")
JARS = CACHE / "apache_keys"
KEY_PREFIX = "hoodie."
# A string constant that is an option key: hoodie. and dotted lower-case words.
KEY_CONSTANT = re.compile(r"^hoodie\.[a-z0-9_.-]*[a-z0-9]$")
# Apache Hudi's own packages (its shaded dependencies under org/apache/hudi/org|com are not).
HUDI_PACKAGES = ("org/apache/hudi/", "org/apache/spark/sql/hudi/")
SHADED = ("org/apache/hudi/org/", "org/apache/hudi/com/")

# Every release from 0.10 to 1.2, oldest first (the order ranges are read in).
RELEASES = (
    "0.10.0", "0.10.1", "0.11.0", "0.11.1", "0.12.0", "0.12.1", "0.12.2", "0.12.3", "0.13.0", "0.13.1",
    "0.14.0", "0.14.1", "0.15.0", "1.0.0", "1.0.1", "1.0.2", "1.1.0", "1.1.1", "1.2.0",
)
# A Spark bundle holds the common, client, Spark, Hive-sync and Hadoop modules in one jar; the
# first one Maven Central serves for a release is taken.
BUNDLES = (
    "hudi-spark3.5-bundle_2.12", "hudi-spark3.4-bundle_2.12", "hudi-spark3.3-bundle_2.12",
    "hudi-spark3.2-bundle_2.12", "hudi-spark3.1-bundle_2.12", "hudi-spark3-bundle_2.12", "hudi-spark-bundle_2.12",
)
# Without a bundle, the modules that declare options, each fetched where it exists.
MODULES = (
    "hudi-common", "hudi-client-common", "hudi-spark-client", "hudi-spark-common_2.12", "hudi-spark_2.12",
    "hudi-hive-sync", "hudi-sync-common", "hudi-hadoop-mr",
)
# Outside every bundle: the AWS module (DynamoDB lock, Glue sync, CloudWatch).
ALWAYS = ("hudi-aws",)


@dataclass
class KeyReleases:
    """Where one key is declared: its release range and what the newest release renames it to."""

    first: str
    last: str
    renamed_to: str | None = None

    def line(self, key: str) -> str:
        span = self.first if self.first == self.last else f"{self.first}..{self.last}"
        return f"{key} {span}" + (f" -> {self.renamed_to}" if self.renamed_to else "")


def _mvn_copy(artifact: str, release: str, into: Path) -> Path | None:
    """The jar of ``org.apache.hudi:artifact:release`` in *into*, fetched once; None if not served."""
    jar = into / f"{artifact}-{release}.jar"
    if jar.exists():
        return jar
    into.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(
        ["mvn", "-q", "-B", "-U", "dependency:copy", f"-Dartifact=org.apache.hudi:{artifact}:{release}",
         f"-DoutputDirectory={into}", "-Dtransitive=false"],
        capture_output=True, text=True, check=False,
    )
    return jar if done.returncode == 0 and jar.exists() else None


def release_jars(release: str) -> list[Path]:
    """The jars of *release* to list keys from: a Spark bundle, else its option-declaring modules."""
    into = JARS / release
    jars: list[Path] = []
    for bundle in BUNDLES:
        if jar := _mvn_copy(bundle, release, into):
            jars.append(jar)
            break
    else:
        jars.extend(jar for module in MODULES if (jar := _mvn_copy(module, release, into)))
    jars.extend(jar for module in ALWAYS if (jar := _mvn_copy(module, release, into)))
    return jars


def _spark_jars() -> str:
    found = sorted(ORACLE.glob("venv/lib/python3*/site-packages/pyspark/jars"))
    if not found:
        sys.exit(f"no PySpark jars under {ORACLE}/venv: run tools/oracle/setup.sh first")
    return str(found[0] / "*")


def _list_keys(jar: Path, class_path: list[Path], classes: Path) -> dict[str, str | None]:
    """Each key *jar* declares, mapped to the key it is an alternative of (None for a key itself)."""
    path = os.pathsep.join([str(classes), *map(str, class_path), _spark_jars()])
    done = subprocess.run(["java", "-cp", path, "ListConfigKeys", str(jar)], capture_output=True, text=True, check=True)
    skipped = sum(1 for line in done.stderr.splitlines() if line.startswith("skipped "))
    if skipped:
        print(f"{jar.name}: {skipped} classes could not be loaded", file=sys.stderr)
    keys: dict[str, str | None] = {}
    for line in done.stdout.splitlines():
        name, _, current = line.partition("\t")
        if name.startswith(KEY_PREFIX):
            keys[name] = current or keys.get(name)
    return keys


def _class_strings(data: bytes) -> set[str]:
    """The string constants of one class file (its constant pool's CONSTANT_String entries)."""
    count = struct.unpack(">H", data[8:10])[0]
    at, index = 10, 1
    utf8: dict[int, bytes] = {}
    strings: list[int] = []
    while index < count:
        tag = data[at]
        if tag == 1:  # Utf8: length, bytes
            length = struct.unpack(">H", data[at + 1:at + 3])[0]
            utf8[index] = data[at + 3:at + 3 + length]
            at += 3 + length
        elif tag in (7, 8, 16, 19, 20):  # Class, String, MethodType, Module, Package: one index
            if tag == 8:
                strings.append(struct.unpack(">H", data[at + 1:at + 3])[0])
            at += 3
        elif tag in (3, 4, 9, 10, 11, 12, 17, 18):  # four bytes
            at += 5
        elif tag in (5, 6):  # Long, Double: eight bytes, two pool slots
            at += 9
            index += 1
        elif tag == 15:  # MethodHandle
            at += 4
        else:
            raise ValueError(f"unknown constant pool tag {tag}")
        index += 1
    return {utf8[i].decode("utf-8", "replace") for i in strings if i in utf8}


def _key_constants(jar: Path) -> set[str]:
    """Every ``hoodie.*`` key-shaped string constant of Apache Hudi's classes in *jar*."""
    found: set[str] = set()
    with zipfile.ZipFile(jar) as archive:
        for name in archive.namelist():
            if name.endswith(".class") and name.startswith(HUDI_PACKAGES) and not name.startswith(SHADED):
                found |= {text for text in _class_strings(archive.read(name)) if KEY_CONSTANT.match(text)}
    return found


def _prefixes() -> list[str]:
    lines = (HERE / "prefixes.txt").read_text().splitlines()
    return [line.split()[0] for line in lines if line.strip() and not line.startswith("#")]


def collect(releases: tuple[str, ...]) -> tuple[dict[str, KeyReleases], list[str]]:
    """Every key of *releases* with its range, and the releases whose jars were listed."""
    found: dict[str, KeyReleases] = {}
    listed: list[str] = []
    with tempfile.TemporaryDirectory() as classes:
        subprocess.run(["javac", "-d", classes, str(HERE / "ListConfigKeys.java")], check=True)
        for release in releases:
            jars = release_jars(release)
            if not jars:
                print(f"{release}: no jar served, skipped", file=sys.stderr)
                continue
            keys: dict[str, str | None] = {}
            for jar in jars:
                for key, current in _list_keys(jar, jars, Path(classes)).items():
                    keys[key] = current or keys.get(key)
            if not keys:
                print(f"{release}: no class of {', '.join(j.name for j in jars)} could be loaded, skipped",
                      file=sys.stderr)
                continue
            listed.append(release)
            for jar in jars:
                for constant in _key_constants(jar):
                    keys.setdefault(constant, None)
            for key, current in keys.items():
                entry = found.setdefault(key, KeyReleases(first=release, last=release))
                entry.last = release
                # The newest release's word on a rename wins; a key that became a key of its own again
                # (no longer an alternative) is not renamed.
                entry.renamed_to = current if current != key else None
            print(f"{release}: {len(keys)} keys from {', '.join(j.name for j in jars)}", file=sys.stderr)
    return found, listed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--output", type=Path, default=OUTPUT)
    parser.add_argument("--release", action="append", help="only these releases (default: all of RELEASES)")
    args = parser.parse_args(argv)
    for tool in ("java", "javac", "mvn"):
        if shutil.which(tool) is None:
            sys.exit(f"{tool} is not on PATH")
    found, listed = collect(tuple(args.release or RELEASES))
    prefixes = _prefixes()
    header = [
        "# Every hoodie.* option key an Apache Hudi release declares (ConfigProperty keys and their",
        "# alternatives): the key, the first and last release that has it, and '-> key' when the newest",
        "# release that has it names it an alternative of that key. A line ending in '.' is a prefix:",
        "# every key under it is Apache Hudi's (modules outside the jars listed, tools/apache_keys/prefixes.txt).",
        "# Generated by tools/apache_keys/generate.py from the jars of releases " + ", ".join(listed) + ".",
    ]
    lines = [entry.line(key) for key, entry in found.items()] + prefixes
    args.output.write_text("\n".join([*header, *sorted(lines)]) + "\n")
    print(f"{args.output}: {len(found)} keys of {len(listed)} releases, {len(prefixes)} prefixes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
