#!/usr/bin/env bash
# Installs what the test suite needs beyond npm packages: Debian's Chromium for the posthog-js tests.
# (Browsers are never downloaded by npm tools here; playwright-core drives the system one.)
set -euo pipefail
chromium_path="${CHROMIUM_PATH:-/usr/bin/chromium}"
if [ -x "$chromium_path" ]; then exit 0; fi
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
  echo "[test] installing Debian's chromium for the browser SDK tests"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  exit 0
fi
echo "[test] Chromium is missing at $chromium_path: install Debian's 'chromium' package (or set CHROMIUM_PATH)." >&2
exit 1
