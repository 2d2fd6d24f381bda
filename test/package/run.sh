#!/usr/bin/env bash
# CTest's `package` test: installs the build tree into a fresh prefix, then
# configures, builds and runs examples/consumer against it (find_package,
# mapc_generate, the C++ API). Usage: run.sh BUILD_DIR SOURCE_DIR WORK_DIR
set -euo pipefail
build="$1" src="$2" work="$3"
rm -rf "$work"
mkdir -p "$work"
cmake --install "$build" --prefix "$work/prefix" >"$work/install.log"
launcher=()
if command -v ccache >/dev/null; then
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
cmake -S "$src/examples/consumer" -B "$work/consumer" -G Ninja \
  -DCMAKE_PREFIX_PATH="$work/prefix" -DCMAKE_BUILD_TYPE=Release \
  "${launcher[@]}" >"$work/configure.log"
cmake --build "$work/consumer" >"$work/build.log"
# The package installed what it promises.
for f in bin/mapc include/mapc/mapc.h include/mapc/native/Remap.h \
         include/mapc/runtime/RemapSpec.h lib/cmake/mapc/mapcConfig.cmake \
         lib/cmake/mapc/mapcConfigVersion.cmake lib/cmake/mapc/mapcGenerate.cmake; do
  test -e "$work/prefix/$f" || { echo "package: $f was not installed"; exit 1; }
done
# With MPI, the driver's MPI half is installed beside mapc, and the
# installed mapc finds it (docs/architecture.md, "The MPI half of the
# driver").
if [ -e "$build/tools/mapc/mapc-mpi" ]; then
  test -x "$work/prefix/bin/mapc-mpi" ||
    { echo "package: bin/mapc-mpi was not installed"; exit 1; }
  "$work/prefix/bin/mapc" "$src/test/mpi/structure.map" --target=mpi \
    --emit=plan --ranks=2 >"$work/mpi-plan.txt"
  grep -q "costs: ts=" "$work/mpi-plan.txt" ||
    { echo "package: the installed mapc did not plan --target=mpi"; exit 1; }
fi
"$work/consumer/consumer"
