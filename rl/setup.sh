#!/usr/bin/env bash
# Creates rl/.venv, the trainer's environment, from requirements.txt. Idempotent: a stamp holds the
# sha256 of requirements.txt, and nothing is done while it matches. torch==2.13.0 is installed first, on
# its own, so that pip takes the machine's local CPU build where one is offered. On failure: one line on
# stderr (with the log's path) and a non-zero exit.
set -uo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
venv="$here/.venv"
stamp="$venv/.requirements.sha256"
want="$(sha256sum "$here/requirements.txt" | cut -d' ' -f1)"

if [[ -f "$stamp" && "$(cat "$stamp")" == "$want" && -x "$venv/bin/python" ]]; then
  echo "rl/.venv is up to date"
  exit 0
fi

log="$(mktemp "${TMPDIR:-/tmp}/rl-setup.XXXXXX.log")"
fail() {
  echo "rl setup: $1 (log: $log)" >&2
  exit 1
}

python="${PYTHON:-python3}"
"$python" -c 'import sys; sys.exit(sys.version_info < (3, 10))' >>"$log" 2>&1 ||
  fail "$python is missing or older than 3.10"
echo "rl setup: installing the trainer's environment in $venv (log: $log)"
rm -f "$stamp"
"$python" -m venv "$venv" >>"$log" 2>&1 || fail "$python -m venv $venv failed"
"$venv/bin/python" -m pip install --upgrade pip >>"$log" 2>&1 || fail "could not upgrade pip"
"$venv/bin/python" -m pip install torch==2.13.0 >>"$log" 2>&1 || fail "pip could not install torch==2.13.0"
"$venv/bin/python" -m pip install -r "$here/requirements.txt" >>"$log" 2>&1 || fail "pip could not install requirements.txt"
"$venv/bin/python" -c 'import torch, transformers, peft, gguf, sentencepiece, yaml, pytest' >>"$log" 2>&1 ||
  fail "the installed packages do not import"
echo "$want" >"$stamp"
echo "rl/.venv is ready ($("$venv/bin/python" -c 'import torch; print("torch", torch.__version__)'))"
