#!/usr/bin/env bash
# One command from a fresh clone to lesson 1 in JupyterLab:
#     bash lessons/start.sh            (extra arguments go to `jupyter lab`, e.g. --no-browser)
#     bash lessons/start.sh --setup-only   (create .venv and install, but do not start Lab)
# Creates .venv in the repository (once), installs the project with its notebook extra,
# applies the same JupyterLab settings as Binder (no news pop-up), then opens lesson 1.
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON="${PYTHON:-python3}"
if ! "$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 10))' 2>/dev/null; then
    echo "autograd_lab needs Python 3.10 or newer; set PYTHON=/path/to/python3.x" >&2
    exit 1
fi
if [ ! -x .venv/bin/python ]; then
    echo "Creating .venv with $("$PYTHON" --version) ..."
    "$PYTHON" -m venv .venv
fi
echo "Installing autograd_lab with the notebook extra into .venv ..."
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q -e ".[notebook]"

# App-level settings inside .venv only; the user's own JupyterLab settings are untouched.
settings=".venv/share/jupyter/lab/settings"
mkdir -p "$settings"
cp binder/overrides.json "$settings/overrides.json"

if [ "${1:-}" = "--setup-only" ]; then
    echo "Ready. Start with: .venv/bin/jupyter lab lessons/01_variables_and_derivatives.ipynb"
    exit 0
fi
# Jupyter refuses to run as root unless told (containers often run as root).
as_root=()
if [ "$(id -u)" = 0 ]; then as_root=(--allow-root); fi
exec .venv/bin/jupyter lab lessons/01_variables_and_derivatives.ipynb "${as_root[@]}" "$@"
