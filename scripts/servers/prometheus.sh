#!/usr/bin/env bash
# The Prometheus server (Debian's `prometheus`, 2.42) for the test that has it
# scrape platbench's live endpoint and runs PromQL (cmd/platbench/cli,
# TestPrometheusScrapesRun). The test starts a Prometheus of its own with a
# configuration naming the run's address, so start and stop do nothing;
# env prints PLATBENCH_PROMETHEUS_BIN.
# Usage: prometheus.sh install|start|stop|env
set -euo pipefail
case "${1:-}" in
install)
  command -v prometheus >/dev/null && exit 0
  command -v apt-get >/dev/null || { echo "prometheus.sh: prometheus missing and no apt-get (fix: install Prometheus 2.x)" >&2; exit 1; }
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo=sudo
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends prometheus >&2
  # The package may start its own service on :9090; the test does not use it.
  if command -v systemctl >/dev/null && systemctl is-active --quiet prometheus 2>/dev/null; then $sudo systemctl stop prometheus || true; fi
  ;;
start | stop) ;;
env) if command -v prometheus >/dev/null; then echo "export PLATBENCH_PROMETHEUS_BIN=$(command -v prometheus)"; fi ;;
*) echo "usage: $0 install|start|stop|env" >&2; exit 2 ;;
esac
