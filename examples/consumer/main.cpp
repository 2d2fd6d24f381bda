// Uses an installed mapc three ways, and checks every element:
//  1. the functions mapc_generate emitted from image.map (typed pointers);
//  2. the C++ API on .map text compiled at run time (plan once, execute
//     many);
//  3. the C++ API on two layouts built in code as k-Tile index maps.
// Prints "consumer: ok" and exits 0, or says what was wrong and exits 1.
#include "image.h"
#include "image_sim.h"

#include "mapc/mapc.h"

#include <cstdint>
#include <cstdio>
#include <vector>

namespace {

int failures = 0;

void expect(bool ok, const char *what) {
  if (!ok) {
    std::printf("consumer: FAILED: %s\n", what);
    ++failures;
  }
}

/// Rows: element (i0, i1) of a 300 x 200 image at i0 + 300 * i1; columns:
/// at i1 + 200 * i0.
void emittedFunctions() {
  std::vector<float> rows(image::remap_Image_1_source_cells),
      cols(image::remap_Image_1_dest_cells);
  for (int i1 = 0; i1 < 200; ++i1)
    for (int i0 = 0; i0 < 300; ++i0)
      rows[size_t(i0 + 300 * i1)] = float(i0 * 1000 + i1);
  image::remap_Image_1(rows.data(), cols.data());
  bool good = true;
  for (int i1 = 0; i1 < 200; ++i1)
    for (int i0 = 0; i0 < 300; ++i0)
      good &= cols[size_t(i1 + 200 * i0)] == float(i0 * 1000 + i1);
  expect(good, "the emitted transpose");

  // The HPF statement, in place, checked through its layouts' index maps.
  const mapc::rt::RemapSpec &spec = image::redistribute_Counts_2_spec();
  std::vector<std::uint16_t> buf(image::redistribute_Counts_2_inplace_cells),
      scratch(buf.size());
  for (int64_t a = 0; a < spec.source.size(); ++a)
    if (int64_t d = spec.source.dataAt(a); d >= 0)
      buf[size_t(a)] = std::uint16_t(d * 7 + 1);
  image::redistribute_Counts_2_inplace(buf.data(), scratch.data());
  good = true;
  for (int64_t a = 0; a < spec.dest.size(); ++a)
    if (int64_t d = spec.dest.dataAt(a); d >= 0)
      good &= buf[size_t(a)] == std::uint16_t(d * 7 + 1);
  expect(good, "the emitted block -> cyclic(3) on 7 PEs, in place");
}

/// Checks `remap` on data from its own index maps.
bool moves(const mapc::native::NativeRemap &remap) {
  const mapc::rt::RemapSpec &spec = remap.spec();
  std::vector<double> src(size_t(spec.source.size()), -1.0),
      dst(size_t(spec.dest.size()), -1.0);
  for (int64_t a = 0; a < spec.source.size(); ++a)
    if (int64_t d = spec.source.dataAt(a); d >= 0)
      src[size_t(a)] = double(d) + 0.5;
  for (int run = 0; run < 3; ++run) // plan once, execute many
    remap.execute(src.data(), dst.data());
  bool good = true;
  for (int64_t a = 0; a < spec.dest.size(); ++a) {
    int64_t d = spec.dest.dataAt(a);
    good &= dst[size_t(a)] == (d >= 0 ? double(d) + 0.5 : -1.0);
  }
  return good;
}

void compiledAtRunTime() {
  const char *text = "processors P(5);\n"
                     "array A(12, 9) : f64;\n"
                     "distribute A(block, *) onto P;\n"
                     "redistribute A(cyclic, *) onto P;\n";
  auto program = mapc::api::compile(text, "runtime.map");
  if (!program) {
    expect(false, program.error().c_str());
    return;
  }
  expect(program->statements().size() == 1 &&
             program->statements()[0].label == "redistribute A: A -> A@4:14",
         "the statement list");
  auto remap = program->planNative(0);
  if (!remap) {
    expect(false, remap.error().c_str());
    return;
  }
  expect(moves(*remap), "the run-time compiled redistribution");

  // Errors come back as values, located, never as aborts.
  auto bad = mapc::api::compile("array A(4);\ndistribute B(block) onto Q;\n",
                                "bad.map");
  expect(!bad && bad.error().find("bad.map:2:") != std::string::npos,
         "a located error for a bad program");
}

/// A k-Tile dim of length n with nothing else set.
mapc::rt::KDim plain(int64_t n) { return mapc::rt::KDim::plain(n); }

void builtInCode() {
  // A 6 x 4 array: row-major (dim 0 fastest), then column-major.
  mapc::rt::TileMap rows;
  rows.data = {mapc::rt::SpaceDim::plain(6), mapc::rt::SpaceDim::plain(4)};
  rows.kdims = {plain(6), plain(4)};
  rows.groups = {1, 1};
  rows.m = {{0, 1}};
  rows.device = {mapc::rt::SpaceDim::plain(24)};
  mapc::rt::TileMap cols = rows;
  cols.m = {{1, 0}};
  auto from = mapc::api::checkedLayout(rows);
  auto to = mapc::api::checkedLayout(cols);
  if (!from || !to) {
    expect(false, (from.error() + to.error()).c_str());
    return;
  }
  auto remap = mapc::api::planNative(*from, *to, sizeof(double));
  expect(remap && moves(*remap), "layouts built in code");

  mapc::rt::TileMap broken = rows;
  broken.device = {mapc::rt::SpaceDim::plain(5)};
  auto refused = mapc::api::checkedLayout(broken);
  expect(!refused && !refused.error().empty(),
         "a broken k-Tile format is refused");
}

} // namespace

int main() {
  // The simulator's functions are there too (not run: the native ones are
  // the point here).
  expect(mapc_program::remapCount() == 2, "the simulator's remap table");
  emittedFunctions();
  compiledAtRunTime();
  builtInCode();
  if (failures)
    return 1;
  std::printf("consumer: ok\n");
  return 0;
}
