//===- TestSeed.h - seeds of the property tests, and other seeds ----------===//
//
// A property test draws its cases from a fixed seed, so that every run
// checks the same cases. MAPC_TEST_SEED=n replaces each seed read through
// testSeed by one mixed from n and the fixed seed (so a test's generators
// still draw apart), to check other cases: a coverage count or a property
// that holds for one seed only shows up there. The seed taken is printed,
// and the same n draws the same cases again, as does the printed seed
// written in the test. Coverage counts are met by drawing more cases
// (keepDrawing), so that only a property that is wrong, or coverage far
// below what the fixed seed shows, fails under another seed.
//
//===----------------------------------------------------------------------===//
#ifndef MAPC_TEST_UNIT_TESTSEED_H
#define MAPC_TEST_UNIT_TESTSEED_H

#include "gtest/gtest.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>

namespace mapc::test {

/// `fixed`, or with MAPC_TEST_SEED set, a seed drawn from it and `fixed`.
inline uint64_t testSeed(uint64_t fixed) {
  const char *env = std::getenv("MAPC_TEST_SEED");
  if (!env || !*env)
    return fixed;
  char *end = nullptr;
  const uint64_t n = std::strtoull(env, &end, 0);
  if (*end) {
    ADD_FAILURE() << "MAPC_TEST_SEED=" << env << " is not a number";
    return fixed;
  }
  // splitmix64's finaliser: nearby n and fixed seeds give unrelated seeds.
  uint64_t z = fixed + (n + 1) * 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  z ^= z >> 31;
  const ::testing::TestInfo *info =
      ::testing::UnitTest::GetInstance()->current_test_info();
  std::printf("MAPC_TEST_SEED=%s: %s.%s draws seed %llu for %llu\n", env,
              info ? info->test_suite_name() : "?", info ? info->name() : "?",
              (unsigned long long)z, (unsigned long long)fixed);
  return z;
}

/// A property test's loop condition: draw `runs` cases, then on until the
/// test's coverage targets are `covered`, at most 3 x `runs` in all, after
/// which the test's check of them fails. The fixed seeds meet their targets
/// within `runs` cases and so draw exactly those; another seed may fall
/// short by chance and draw more, not fail.
inline bool keepDrawing(unsigned drawn, unsigned runs, bool covered) {
  return drawn < runs || (!covered && drawn < 3 * runs);
}

} // namespace mapc::test

#endif // MAPC_TEST_UNIT_TESTSEED_H
