#!/usr/bin/env bash
# Builds the libFuzzer target (fuzz/MapFuzzer.cpp) with clang-19 under
# ASan/UBSan in its own build directory and runs it for a bounded time,
# seeded with every .map file under test/ and examples/.
#   scripts/fuzz.sh [BUILD_DIR] [SECONDS]   (defaults: build-fuzz, 60)
# Exits 0 when the run finds nothing; otherwise libFuzzer's report and the
# reproducer (crash-*, timeout-*, oom-* in BUILD_DIR) say what to turn into
# a lit test. Skips (exit 0, with a note) when clang++-19 is missing.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$root/build-fuzz}"
seconds="${2:-60}"
cxx="$(command -v clang++-19 || true)"
if [ -z "$cxx" ]; then
  echo "fuzz.sh: clang++-19 not found (scripts/install-deps.sh installs it); skipped"
  exit 0
fi
# -O1 and line tables only: the build is part of CI's time budget.
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_CXX_COMPILER="$cxx" \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only" \
  -DMAPC_SANITIZE=ON -DMAPC_FUZZ=ON >/dev/null
ninja -C "$build" mapc-fuzz

corpus="$build/fuzz-corpus"
seeds="$build/fuzz-seeds"
rm -rf "$seeds"
mkdir -p "$corpus" "$seeds"
# Seeds: every test and example program, and the split-file parts of the
# diagnostics tests (each is a small program of its own).
n=0
while IFS= read -r -d '' f; do
  n=$((n + 1))
  cp "$f" "$seeds/seed-$n.map"
done < <(find "$root/test" "$root/examples" -name '*.map' -print0)

export ASAN_OPTIONS="detect_leaks=0:allocator_may_return_null=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
cd "$build"
"$build/fuzz/mapc-fuzz" "$corpus" "$seeds" \
  -max_total_time="$seconds" -timeout=20 -rss_limit_mb=2048 \
  -max_len=4096 -print_final_stats=1 -artifact_prefix="$build/"
