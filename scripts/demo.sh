#!/usr/bin/env bash
# Installs what is missing, builds, and runs a real example end to end.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh"
build="${MAPC_BUILD_DIR:-$root/build}"
echo "== examples/hpf-distribute.map --emit=ktile"
"$build/tools/mapc/mapc" "$root/examples/hpf-distribute.map" --emit=ktile
echo "== examples/rotations.map --emit=layout"
"$build/tools/mapc/mapc" "$root/examples/rotations.map" --emit=layout
echo "== examples/transpose.map --emit=plan"
"$build/tools/mapc/mapc" "$root/examples/transpose.map" --emit=plan
echo "== examples/transpose.map --run (simulated MasPar, every element checked)"
"$build/tools/mapc/mapc" "$root/examples/transpose.map" --run
echo "== examples/gray-cube.map --emit=plan (001's exchanges on a 6-cube)"
"$build/tools/mapc/mapc" "$root/examples/gray-cube.map" --emit=plan
echo "== examples/gray-cube.map --run (simulated hypercube, every element checked)"
"$build/tools/mapc/mapc" "$root/examples/gray-cube.map" --run
echo "== examples/redistribute.map --run (HPF on a 3 x 5 grid, 003 ch. 6)"
"$build/tools/mapc/mapc" "$root/examples/redistribute.map" --run
echo "== examples/redistribute.map --run --target=native (the host CPU, timed against memcpy)"
"$build/tools/mapc/mapc" "$root/examples/redistribute.map" --run --target=native
