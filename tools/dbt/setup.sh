#!/usr/bin/env bash
# Set up dbt for the tests: dbt-core and dbt-spark (PyHive, the `thrift` method) in a virtualenv of
# their own, cached under ${XDG_CACHE_HOME:-$HOME/.cache}/hudi-sql/dbt and reused on the next run.
#
# Pinned to the 1.9 line: dbt-core 2.x downloads a parser from GitHub at install time, which a
# machine that reaches only the package index cannot do. When pip cannot deliver, this script
# still exits 0 and leaves UNAVAILABLE (the reason) in the cache folder; tests/integration/test_dbt.py
# then skips with that reason.
set -uo pipefail

DBT_SPECS=("dbt-core==1.9.4" "dbt-spark[PyHive]==1.9.2")
DBT_DIR="${HUDI_DBT_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/hudi-sql/dbt}"
VENV="$DBT_DIR/venv"
mkdir -p "$DBT_DIR"

unavailable() {
    echo "dbt unavailable: $1" >&2
    printf '%s\n' "$1" >"$DBT_DIR/UNAVAILABLE"
    rm -f "$DBT_DIR/READY"
    exit 0
}

if [[ -f "$DBT_DIR/READY" && -x "$VENV/bin/dbt" ]]; then
    echo "dbt: cached in $DBT_DIR"
    exit 0
fi
rm -f "$DBT_DIR/UNAVAILABLE"
PYTHON="${PYTHON:-python3}"
[[ -x "$VENV/bin/python" ]] || "$PYTHON" -m venv "$VENV" || unavailable "could not create a virtualenv with $PYTHON"
"$VENV/bin/pip" install -q --upgrade pip >/dev/null 2>&1
"$VENV/bin/pip" install -q "${DBT_SPECS[@]}" >"$DBT_DIR/pip.log" 2>&1 \
    || unavailable "pip could not install ${DBT_SPECS[*]} (see $DBT_DIR/pip.log)"
"$VENV/bin/dbt" --version >"$DBT_DIR/READY" 2>&1 || unavailable "dbt does not run (see $DBT_DIR/READY)"
echo "dbt ready in $DBT_DIR"
