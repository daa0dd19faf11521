#!/usr/bin/env bash
# The Python package's tests (CI runs them after the Rust tests): `pip install .[test]` from the
# repository root (maturin builds the wheel of crates/subgraph-py through pyproject.toml) in a
# virtual environment, then pytest over crates/subgraph-py/tests.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
venv=${TMPDIR:-/tmp}/subgraph-py-venv
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/pip" install -q "$root[test]"
# From outside the source tree, so that the installed package is the one imported.
(cd "$venv" && "$venv/bin/python" -m pytest -q -p no:cacheprovider "$root/crates/subgraph-py/tests")
