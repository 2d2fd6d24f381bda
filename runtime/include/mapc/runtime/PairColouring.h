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
// The graph is padded to a D-regular one. A graph of few pairs carrying
// many elements each (more elements per vertex than pairs, at most 4096
// pairs: an HPF redistribution on 7 PEs) is decomposed by Birkhoff's method:
// a perfect matching of the pairs still carrying elements (Hopcroft-Karp,
// repaired from the last one), used as often as its scarcest pair allows,
// which empties at least one pair. Any other graph goes by Gabow's Euler
// partition (1976): while D is odd one perfect matching is a round; when D
// is even every pair's multiplicity is halved, the odd ones along closed
// trails so that both halves are D/2-regular, and both are coloured. A half
// whose multiplicities are all even is the other half, coloured once and
// used twice; a graph whose pairs form one perfect matching is D rounds of
// it. Either way the rounds number D and the work grows with the pairs,
// not the elements.
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
