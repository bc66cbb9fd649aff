#!/usr/bin/env bash
# Creates infra/s3/.venv with the pinned S3-compatible test server (moto's, requirements.txt), which
# the run store's S3 tests and benches start on loopback. Idempotent: a stamp holds the sha256 of
# requirements.txt, and nothing is done while it matches; two set-ups at once (two test runs) take turns
# where flock exists. On failure: one line on stderr (with the log's path) and a non-zero exit.
set -uo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
venv="$here/.venv"
stamp="$venv/.requirements.sha256"
want="$(sha256sum "$here/requirements.txt" | cut -d' ' -f1)"

if command -v flock >/dev/null; then
  exec 9>"$here/.venv.lock"
  flock 9
fi

if [[ -f "$stamp" && "$(cat "$stamp")" == "$want" && -x "$venv/bin/moto_server" ]]; then
  echo "infra/s3/.venv is up to date"
  exit 0
fi

log="$(mktemp "${TMPDIR:-/tmp}/s3-setup.XXXXXX.log")"
fail() {
  echo "s3 setup: $1 (log: $log)" >&2
  exit 1
}

python="${PYTHON:-python3}"
"$python" -c 'import sys; sys.exit(sys.version_info < (3, 9))' >>"$log" 2>&1 ||
  fail "$python is missing or older than 3.9"
echo "s3 setup: installing the S3 test server in $venv (log: $log)"
rm -f "$stamp"
# --clear: what an earlier requirements.txt installed goes.
"$python" -m venv --clear "$venv" >>"$log" 2>&1 || fail "$python -m venv $venv failed"
# --no-compile: the server imports a small part of what is installed, and Python compiles that part on first use.
"$venv/bin/python" -m pip install --disable-pip-version-check --no-compile -r "$here/requirements.txt" >>"$log" 2>&1 ||
  fail "pip could not install requirements.txt"
"$venv/bin/python" -c 'import moto.server' >>"$log" 2>&1 || fail "the installed server does not import"
echo "$want" >"$stamp"
echo "infra/s3/.venv is ready (moto $("$venv/bin/python" -c 'import moto; print(moto.__version__)'))"
