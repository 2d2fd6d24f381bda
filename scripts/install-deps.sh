#!/usr/bin/env bash
# Installs the Debian packages mapc needs to build and test, when they are
# missing. Safe to run again: it does nothing when everything is present.
set -euo pipefail

packages=(
  build-essential cmake ninja-build ccache python3
  llvm-19-dev llvm-19-tools   # Support/ADT, FileCheck, lit
  libzstd-dev  # LLVMSupport.a links zstd (the static link, CMakeLists.txt)
  antlr4 libantlr4-runtime-dev default-jre-headless
  libgtest-dev
  libopenmpi-dev openmpi-bin  # --target=mpi, its tests and bench (docs/mpi.md)
  clang-19 libclang-rt-19-dev  # libFuzzer target (scripts/fuzz.sh)
  chromium                     # the browser test of --emit=html (test/tools/browser.py)
  libopenblas-dev  # cblas_somatcopy baseline of mapc-bench-native (bench only)
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
