//===- random5_dump.cpp - random #5's exchange as the runtime sees it -----===//
//
// Offline helper of random5_rounds.py (not built by CMake): prints random
// #5's exchange shape (findDigitExchange: sendDigit, destPe) and the
// simulator's plain and clustered ticks for every round of function 6.1's
// order (MasPar::routerCost), so that the study's Python model can be
// checked against the runtime. `random5_dump price` instead reads rounds
// from stdin, one a line (648 destinations, PE 0 first, -1 for a PE that
// does not send in that round), and prints the simulator's plain and
// clustered ticks of each. Build it by hand from a build
// tree:
//   g++ -std=c++17 -I. -Iruntime/include -Itest/unit $(llvm-config-19
//     --cxxflags) bench/studies/random5_dump.cpp build/passes/libMapcPasses.a
//     build/ir/libMapcIR.a build/runtime/libMapcRuntime.a
//     $(llvm-config-19 --ldflags --libs support) -o /tmp/random5_dump
//
//===----------------------------------------------------------------------===//
#include "DigitTile.h"
#include "mapc/runtime/DigitExchange.h"
#include "mapc/runtime/MasPar.h"

#include <cstdio>

using namespace mapc;

namespace {

int priceRounds() {
  const rt::MasPar m = rt::MasPar::pricing(32, 32, 16);
  for (;;) {
    rt::Mask active(m.peCount(), 0);
    rt::Plural dest(m.peCount(), 0);
    for (unsigned p = 0; p < 648; ++p) {
      long long q;
      if (std::scanf("%lld", &q) != 1)
        return p == 0 ? 0 : 1;
      active[p] = q >= 0;
      dest[p] = q >= 0 ? uint64_t(q) : 0;
    }
    std::printf("plain %lld clustered %lld\n",
                (long long)m.routerCost(8, dest, active, false),
                (long long)m.routerCost(8, dest, active, true));
  }
}

} // namespace

int main(int argc, char **argv) {
  if (argc > 1 && std::string(argv[1]) == "price")
    return priceRounds();
  // The layouts of ClusterTrafficTest's randomFiveExchange.
  const std::vector<int64_t> bases = {5, 3, 6, 3, 3, 2, 6, 6};
  const KTile from = test::digitTile(bases, {0, 1, 2}, {3, 4, 5, 6, 7});
  const KTile to = test::digitTile(bases, {6, 4, 0}, {5, 2, 3, 7, 1});
  rt::DigitExchangeShape d;
  std::string why;
  if (!rt::findDigitExchange(from, to, rt::sourcesOf(from, to), d, &why)) {
    std::fprintf(stderr, "no exchange: %s\n", why.c_str());
    return 1;
  }
  const rt::MasPar m = rt::MasPar::pricing(32, 32, 16);
  for (int64_t p = 0; p < d.pes; ++p) {
    std::printf("pe %lld cluster %u send %lld dest", (long long)p,
                m.clusterOfPe(unsigned(p)), (long long)d.sendDigit[size_t(p)]);
    for (int64_t y = 0; y < d.base; ++y)
      std::printf(" %lld", (long long)d.destPe[size_t(p * d.base + y)]);
    std::printf("\n");
  }
  rt::Mask active(m.peCount(), 0);
  std::fill(active.begin(), active.begin() + d.pes, 1);
  for (int64_t k = 0; k < d.base; ++k) {
    rt::Plural dest(m.peCount(), 0);
    for (int64_t p = 0; p < d.pes; ++p)
      dest[size_t(p)] = uint64_t(
          d.destPe[size_t(p * d.base + (d.sendDigit[size_t(p)] + k) % d.base)]);
    std::printf("round %lld plain %lld clustered %lld\n", (long long)k,
                (long long)m.routerCost(8, dest, active, false),
                (long long)m.routerCost(8, dest, active, true));
  }
}
