#!/usr/bin/env bash
# fio (Debian package, 3.33 on bookworm): the disk probe's accuracy reference
# for scripts/bench-disk.sh. Nothing to start: install only.
set -euo pipefail
case "${1:-}" in
  install)
    if ! command -v fio >/dev/null; then
      DEBIAN_FRONTEND=noninteractive apt-get install -y fio >/dev/null
    fi
    ;;
  start | stop) ;;
  env) echo "export PLATBENCH_FIO=$(command -v fio || echo /usr/bin/fio)" ;;
  *) echo "usage: $0 install|start|stop|env" >&2; exit 2 ;;
esac
