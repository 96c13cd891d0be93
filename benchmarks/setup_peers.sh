#!/usr/bin/env bash
# Builds the side virtualenvs that hold the peers the benchmarks compare against:
#   .venvs/chainer  Chainer 7.8.1 (needs NumPy < 2, so it cannot share our environment)
#   .venvs/torch    PyTorch, CPU build
# Each is optional: a benchmark prints "not installed" for a peer whose venv is missing.
# Usage: bash benchmarks/setup_peers.sh [chainer] [torch]   (default: both)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
want=("$@"); [ ${#want[@]} -gt 0 ] || want=(chainer torch)
py="${PYTHON:-python3}"
for peer in "${want[@]}"; do
  venv="$root/.venvs/$peer"
  if [ -x "$venv/bin/python" ] && "$venv/bin/python" -c "import $peer" 2>/dev/null; then
    echo "$peer: ready in $venv"; continue
  fi
  "$py" -m venv "$venv"
  case "$peer" in
    chainer)
      "$venv/bin/pip" install -q "numpy<2" "setuptools<70" wheel
      "$venv/bin/pip" install -q --no-build-isolation chainer==7.8.1 ;;
    torch)
      # 2.13.0 is the CPU build this machine kind keeps on disk; a newer one would pull CUDA.
      "$venv/bin/pip" install -q numpy "torch==2.13.0" ;;
    *) echo "unknown peer: $peer" >&2; exit 2 ;;
  esac
  echo "$peer: installed in $venv"
done
