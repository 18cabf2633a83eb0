#!/usr/bin/env bash
# Set up dbt for the tests, cached under ${XDG_CACHE_HOME:-$HOME/.cache}/hudi-sql/dbt and reused:
# * venv/: dbt-core and dbt-spark with PyHive, for the `thrift` method (against hudi-sql's
#   thriftserver); dbt-spark's PyHive extra pins thrift below 0.17, so it lives apart from hudi-sql;
# * session-venv/: dbt-core, dbt-spark (without its `session` extra, which pins PySpark below 4)
#   and hudi-sql's dependencies from pyproject.toml, for the `session` method run by `hudi-sql dbt`
#   (hudi_sql/apps/dbt_session.py); the tests put this repository on its PYTHONPATH, so a cached
#   virtualenv never runs an older checkout. READY records the dependencies it was made for.
#
# Pinned to the 1.9 line: dbt-core 2.x downloads a parser from GitHub at install time, which a
# machine that reaches only the package index cannot do. When pip cannot deliver, this script
# still exits 0 and leaves UNAVAILABLE (the reason) in the cache folder; tests/integration/test_dbt.py
# then skips with that reason.
set -uo pipefail

DBT_SPECS=("dbt-core==1.9.4" "dbt-spark[PyHive]==1.9.2")
SESSION_SPECS=("dbt-core==1.9.4" "dbt-spark==1.9.2")
REPO="$(cd "$(dirname "$0")/../.." && pwd)"
mapfile -t HUDI_DEPS < <(python3 -c 'import sys, tomllib; print("\n".join(tomllib.load(open(sys.argv[1], "rb"))["project"]["dependencies"]))' "$REPO/pyproject.toml")
STAMP="deps: ${SESSION_SPECS[*]} ${HUDI_DEPS[*]}"
DBT_DIR="${HUDI_DBT_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/hudi-sql/dbt}"
VENV="$DBT_DIR/venv"
SESSION_VENV="$DBT_DIR/session-venv"
mkdir -p "$DBT_DIR"

unavailable() {
    echo "dbt unavailable: $1" >&2
    printf '%s\n' "$1" >"$DBT_DIR/UNAVAILABLE"
    rm -f "$DBT_DIR/READY"
    exit 0
}

if [[ -f "$DBT_DIR/READY" && -x "$VENV/bin/dbt" && -x "$SESSION_VENV/bin/dbt" ]] \
        && grep -qxF "$STAMP" "$DBT_DIR/READY"; then
    echo "dbt: cached in $DBT_DIR"
    exit 0
fi
rm -f "$DBT_DIR/UNAVAILABLE"
PYTHON="${PYTHON:-python3}"
[[ -x "$VENV/bin/python" ]] || "$PYTHON" -m venv "$VENV" || unavailable "could not create a virtualenv with $PYTHON"
"$VENV/bin/pip" install -q --upgrade pip >/dev/null 2>&1
"$VENV/bin/pip" install -q "${DBT_SPECS[@]}" >"$DBT_DIR/pip.log" 2>&1 \
    || unavailable "pip could not install ${DBT_SPECS[*]} (see $DBT_DIR/pip.log)"
[[ -x "$SESSION_VENV/bin/python" ]] || "$PYTHON" -m venv "$SESSION_VENV" || unavailable "could not create a virtualenv"
"$SESSION_VENV/bin/pip" install -q --upgrade pip >/dev/null 2>&1
"$SESSION_VENV/bin/pip" install -q "${SESSION_SPECS[@]}" "${HUDI_DEPS[@]}" >"$DBT_DIR/pip-session.log" 2>&1 \
    || unavailable "pip could not install ${SESSION_SPECS[*]} and hudi-sql (see $DBT_DIR/pip-session.log)"
"$VENV/bin/dbt" --version >"$DBT_DIR/READY" 2>&1 || unavailable "dbt does not run (see $DBT_DIR/READY)"
printf '%s\n' "$STAMP" >>"$DBT_DIR/READY"
echo "dbt ready in $DBT_DIR"
