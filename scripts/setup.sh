#!/usr/bin/env bash
# Install what the server and its tests need on a fresh Debian/Ubuntu machine, idempotently:
# Chromium from the distribution (never Playwright's browser download), a virtualenv in
# .venv with the project and its dev extras. Re-running it is cheap.
set -euo pipefail
cd "$(dirname "$0")/.."

SUDO=""
if [ "$(id -u)" != "0" ] && command -v sudo >/dev/null 2>&1; then SUDO="sudo"; fi

have_browser() {
  if [ -n "${CHROME_PATH:-}" ] && [ -x "${CHROME_PATH}" ]; then return 0; fi
  [ -x /usr/bin/chromium ] || command -v google-chrome >/dev/null 2>&1
}

if ! have_browser; then
  if command -v apt-get >/dev/null 2>&1; then
    echo "setup: installing Chromium from the distribution (apt-get install chromium)"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null
  else
    echo "setup: no Chromium found and no apt-get; install Chromium or set CHROME_PATH" >&2
    exit 1
  fi
fi

# Headful tests (the user's Chrome has a window): a virtual screen, and xdotool to play the person.
if ! command -v Xvfb >/dev/null 2>&1 || ! command -v xdotool >/dev/null 2>&1 || ! command -v xwd >/dev/null 2>&1; then
  if command -v apt-get >/dev/null 2>&1; then
    echo "setup: installing xvfb, xdotool, x11-apps, imagemagick for the headful tests"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq xvfb xdotool x11-apps imagemagick >/dev/null
  else
    echo "setup: no Xvfb/xdotool and no apt-get; the headful tests will fail" >&2
  fi
fi

PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
.venv/bin/python -m pip install -q --disable-pip-version-check -U pip >/dev/null
.venv/bin/python -m pip install -q --disable-pip-version-check -e ".[dev]"
# The token budgets of what the model reads are in o200k tokens (tests/mcp_server/server/test_tools_list_schema.py): with the
# tokenizer (npm, 2 s) plain `pytest` checks them exactly; without Node or the registry, best effort.
if [ ! -d bench/peers/node_modules/gpt-tokenizer ]; then
  if command -v npm >/dev/null 2>&1; then
    npm install --prefix bench/peers --no-audit --no-fund --silent gpt-tokenizer >/dev/null 2>&1 \
      || echo "setup: gpt-tokenizer not installed (npm failed); token budgets will be estimated" >&2
  else
    echo "setup: no npm; token budgets will be estimated (install Node.js for exact counts)" >&2
  fi
fi
echo "setup: ready ($(.venv/bin/python --version), $(${CHROME_PATH:-/usr/bin/chromium} --version 2>/dev/null || echo 'browser via PATH'))"
