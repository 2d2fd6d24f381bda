#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test (unit + lit) through
# CTest. This is what CI runs.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh"
build="${MAPC_BUILD_DIR:-$root/build}"
cd "$build"
ctest --output-on-failure
