#!/usr/bin/env bash
# Configures and builds mapc into ./build (or $MAPC_BUILD_DIR).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${MAPC_BUILD_DIR:-$root/build}"
cmake -S "$root" -B "$build" -G Ninja -DMAPC_WERROR=ON "$@" >/dev/null
ninja -C "$build"
