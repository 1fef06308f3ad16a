#!/usr/bin/env bash
# Headless Chromium for the HTML report's browser test (report/browser_test.go
# via test/browser). Not a server: start and stop are no-ops.
# Usage: chromium.sh install|start|stop|env
set -euo pipefail
bin=${PLATBENCH_CHROMIUM:-/usr/bin/chromium}
case "${1:?usage: chromium.sh install|start|stop|env}" in
  install)
    if [ -x "$bin" ] && command -v chromedriver >/dev/null 2>&1; then exit 0; fi
    if ! command -v apt-get >/dev/null 2>&1; then
      echo "chromium.sh: apt-get not found; install Chromium and chromedriver yourself and set PLATBENCH_CHROMIUM" >&2
      exit 1
    fi
    sudo=""; [ "$(id -u)" -eq 0 ] || sudo=sudo
    DEBIAN_FRONTEND=noninteractive $sudo apt-get -o DPkg::Lock::Timeout=900 install -y --no-install-recommends chromium chromium-driver fonts-dejavu-core >&2 \
      || { echo "chromium.sh: apt-get install chromium failed (run 'apt-get update' first)" >&2; exit 1; }
    ;;
  start|stop) ;;
  env)
    if [ -x "$bin" ]; then echo "export PLATBENCH_CHROMIUM=$bin"; fi
    ;;
  *) echo "chromium.sh: unknown action $1 (use install|start|stop|env)" >&2; exit 2 ;;
esac
