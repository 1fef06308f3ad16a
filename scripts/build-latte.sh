#!/usr/bin/env bash
# Builds latte (the Rust CQL benchmark tool) once into a cache outside the repo.
# A 13-19 minute build on 2 cores: not part of CI. Idempotent.
set -euo pipefail
LATTE_VERSION="${LATTE_VERSION:-0.29.0}"
ROOT="${LATTE_ROOT:-$HOME/.cache/platbench/latte}"
BIN="$ROOT/bin/latte"
if [[ -x "$BIN" ]] && "$BIN" --version 2>/dev/null | grep -q "$LATTE_VERSION"; then
  echo "$BIN"
  exit 0
fi
command -v cargo >/dev/null || { echo "build-latte: cargo not found (fix: install Rust via rustup)" >&2; exit 1; }
mkdir -p "$ROOT"
nice -n 19 cargo install latte-cli --version "$LATTE_VERSION" --locked --root "$ROOT" >&2 \
  || nice -n 19 cargo install latte-cli --version "$LATTE_VERSION" --root "$ROOT" >&2
echo "$BIN"
