#!/usr/bin/env bash
# The Python package's tests (CI runs them after the Rust tests): builds the wheel of
# crates/subgraph-py with maturin in a virtual environment, installs it with numpy, pytest and
# networkx, and runs crates/subgraph-py/tests with pytest.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
venv=${TMPDIR:-/tmp}/subgraph-py-venv
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/pip" install -q 'maturin>=1.5,<2' numpy pytest networkx
wheels=$(mktemp -d)
(cd "$root/crates/subgraph-py" && "$venv/bin/maturin" build --release -o "$wheels")
"$venv/bin/pip" install -q --force-reinstall --no-deps "$wheels"/subgraph-*.whl
# From outside the source tree, so that the installed package is the one imported.
(cd "$wheels" && "$venv/bin/python" -m pytest -q "$root/crates/subgraph-py/tests")
rm -rf "$wheels"
