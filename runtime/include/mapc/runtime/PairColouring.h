//===- PairColouring.h - edge colouring of bipartite multigraphs ----------===//
//
// An exchange step's sends form a bipartite multigraph: sender PE to
// receiver PE, one edge per element. Its rounds are a proper edge colouring
// with as many colours as the busiest PE's degree D (König's theorem). When
// many elements travel between the same two PEs (an HPF redistribution on
// 7 PEs sends about N / 49 elements per pair), colouring element by element
// repeats the same work; here the graph is given by its pairs and their
// multiplicities, and the colouring is a list of matchings, each repeated
// some number of times.
//
// The method is Gabow's Euler partition (1976): pad the graph to a D-regular
// one; while D is odd take one perfect matching (Hopcroft-Karp on the
// pairs) as a round; when D is even split every pair's multiplicity in half,
// the odd ones along closed trails so that each half is D/2-regular, and
// colour both halves. A half whose multiplicities are all even is the other
// half, coloured once and repeated; a graph whose pairs form one perfect
// matching is D rounds of it. The work is about O(E log D) for E pairs.
//
//===----------------------------------------------------------------------===//
#ifndef MAPC_RUNTIME_PAIRCOLOURING_H
#define MAPC_RUNTIME_PAIRCOLOURING_H

#include <cstdint>
#include <vector>

namespace mapc::rt {

/// `count` parallel edges between left vertex `left` and right vertex
/// `right`.
struct PairCount {
  uint32_t left, right;
  uint64_t count;
};

/// A matching of pairs (indices into the colourer's input), used as `times`
/// rounds in a row.
struct PairRound {
  std::vector<uint32_t> pairs;
  uint64_t times = 1;
};

/// Colours the multigraph `pairs` (left vertices below `leftVertices`,
/// right ones below `rightVertices`): rounds in which no vertex has two
/// edges, whose `times` add up to the largest degree, and in which every
/// pair appears `count` times in all. Pairs of count 0 are ignored.
std::vector<PairRound> colourPairs(const std::vector<PairCount> &pairs,
                                   unsigned leftVertices,
                                   unsigned rightVertices);

} // namespace mapc::rt

#endif
