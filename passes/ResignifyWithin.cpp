//===- ResignifyWithin.cpp - re-signification within device dims ----------===//
#include "passes/ResignifyWithin.h"

#include <algorithm>
#include <cmath>
#include <optional>

using namespace mapc;
using rt::GeneralStepKind;

namespace {

using Digits = std::vector<unsigned>; ///< k-Tile dims, least significant first

/// Unaligned segments gathered at most; aligned digits tried as a subset.
constexpr size_t kMaxSegments = 3, kMaxMovable = 10;

/// Whether `t` is a digit map over one data dim with a memory and a PE
/// device dim, each as long as the product of its digits: plain data digits
/// (of either sense), then constant digits (empty dims holding one value).
bool plainFrame(const rt::TileMap &t) {
  if (t.data.size() != 1 || t.device.size() != 2 || t.m.size() != 2 ||
      t.groups.empty() || t.groups.size() > 2)
    return false;
  const rt::SpaceDim &a = t.data[0];
  if (a.len != a.tlen || a.off || a.toff)
    return false;
  const unsigned data = t.groups[0];
  if (t.kdims.size() != data + (t.groups.size() > 1 ? t.groups[1] : 0))
    return false;
  int64_t n = 1;
  for (unsigned l = 0; l < t.kdims.size(); ++l) {
    const rt::KDim &k = t.kdims[l];
    if (l < data ? !k.isPlain()
                 : k.k != k.tk || k.otk || k.enc != rt::Encoding::Binary ||
                       k.sense != rt::Sense::Plus || k.ok < 0 || k.ok >= k.k)
      return false;
    if (l < data)
      n = rt::satMul(n, k.k);
  }
  if (n != a.len)
    return false;
  for (size_t i = 0; i < 2; ++i) {
    int64_t len = 1;
    for (unsigned l : t.m[i])
      len = rt::satMul(len, t.kdims[l].tk);
    const rt::SpaceDim &d = t.device[i];
    if (d.len != d.tlen || d.off || d.toff || len != d.len)
      return false;
  }
  return true;
}

/// place[l]: the product of the bases of data digits below l; place[n]:
/// the size.
std::vector<int64_t> placesOf(const rt::TileMap &t) {
  std::vector<int64_t> p = {1};
  for (unsigned l = 0; l < t.groups[0]; ++l)
    p.push_back(p.back() * t.kdims[l].tk);
  return p;
}

/// `t` with each digit cut at the places of `other`'s cuts inside it that
/// divide into it as a chain (a compact digit of 16 cut at 8 into 8 and 2):
/// the same layout, factorised finer (003 6.1.3, fig. 6.1). The pieces of a
/// reversed digit are reversed: b - 1 - (h c + l) = (b/c - 1 - h) c +
/// (c - 1 - l).
rt::TileMap refinedBy(const rt::TileMap &t, const rt::TileMap &other) {
  const std::vector<int64_t> theirs = placesOf(other);
  rt::TileMap r = t;
  r.kdims.clear();
  std::vector<Digits> pieces(t.kdims.size());
  int64_t place = 1;
  for (unsigned l = 0; l < t.groups[0]; ++l) {
    const int64_t hi = place * t.kdims[l].tk;
    int64_t at = place;
    for (int64_t c : theirs)
      if (c > at && c < hi && c % at == 0 && hi % c == 0) {
        pieces[l].push_back(unsigned(r.kdims.size()));
        r.kdims.push_back(rt::KDim::plain(c / at));
        r.kdims.back().sense = t.kdims[l].sense;
        at = c;
      }
    pieces[l].push_back(unsigned(r.kdims.size()));
    r.kdims.push_back(rt::KDim::plain(hi / at));
    r.kdims.back().sense = t.kdims[l].sense;
    place = hi;
  }
  r.groups[0] = unsigned(r.kdims.size());
  for (unsigned l = t.groups[0]; l < t.kdims.size(); ++l) {
    pieces[l].push_back(unsigned(r.kdims.size()));
    r.kdims.push_back(t.kdims[l]); // a constant digit
  }
  for (auto &dim : r.m) {
    Digits out;
    for (unsigned l : dim)
      out.insert(out.end(), pieces[l].begin(), pieces[l].end());
    dim = out;
  }
  return r;
}

/// An index part between two places where both maps cut the index: the
/// source's digits [s0, s1), the destination's [d0, d1).
struct Segment {
  unsigned s0, s1, d0, d1;
  bool aligned; ///< the two factorisations refine each other
  /// The sense of an unaligned segment's run in the gathered layout: a run
  /// of digits all reversed holds n - 1 - a, however a is factorised, so it
  /// re-reads as reversed digits too; a run of mixed senses is gathered
  /// plain and the halves reverse its digits.
  rt::Sense sense = rt::Sense::Plus;
};

/// Minus when every digit of [lo, hi) of `t` is reversed.
rt::Sense runSense(const rt::TileMap &t, unsigned lo, unsigned hi) {
  for (unsigned l = lo; l < hi; ++l)
    if (t.kdims[l].sense != rt::Sense::Minus)
      return rt::Sense::Plus;
  return rt::Sense::Minus;
}

std::vector<Segment> segmentsOf(const rt::TileMap &src,
                                const rt::TileMap &dst) {
  const std::vector<int64_t> ps = placesOf(src), pd = placesOf(dst);
  std::vector<Segment> out;
  unsigned s = 0, d = 0;
  while (s + 1 < ps.size() && d + 1 < pd.size()) {
    // From the common cut at ps[s] == pd[d] to the next one.
    unsigned s1 = s + 1, d1 = d + 1;
    while (ps[s1] != pd[d1]) {
      if (ps[s1] < pd[d1])
        ++s1;
      else
        ++d1;
    }
    std::vector<int64_t> cuts(ps.begin() + s, ps.begin() + s1 + 1);
    cuts.insert(cuts.end(), pd.begin() + d, pd.begin() + d1 + 1);
    std::sort(cuts.begin(), cuts.end());
    bool aligned = true;
    for (size_t i = 1; i < cuts.size(); ++i)
      aligned &= cuts[i] % cuts[i - 1] == 0;
    rt::Sense sense = runSense(src, s, s1);
    if (sense == rt::Sense::Plus && !aligned)
      sense = runSense(dst, d, d1);
    out.push_back({s, s1, d, d1, aligned, sense});
    s = s1;
    d = d1;
  }
  return out;
}

/// `t` with these memory and PE digits, each device dim as long as their
/// product.
rt::TileMap framed(const rt::TileMap &t, const Digits &mem, const Digits &pe) {
  rt::TileMap r = t;
  r.m = {mem, pe};
  for (size_t i = 0; i < 2; ++i) {
    int64_t n = 1;
    for (unsigned l : r.m[i])
      n = rt::satMul(n, r.kdims[l].tk);
    r.device[i] = rt::SpaceDim::plain(n);
  }
  return r;
}

int64_t sizeOf(const rt::TileMap &t, const Digits &ds) {
  int64_t n = 1;
  for (unsigned l : ds)
    n = rt::satMul(n, t.kdims[l].tk);
  return n;
}

/// Device dim `dim` of the gathered layout: the source's digits of that
/// dim, less the gathered segments' digits and the aligned digits moved
/// out, each segment hosted here as one run in data order where its lowest
/// digit here was (else on top), and the aligned digits moved in on top.
Digits gatheredDim(const rt::TileMap &src, const std::vector<Segment> &segs,
                   const std::vector<int> &segOf,
                   const std::vector<int> &hostOf, const Digits &movedIn,
                   const Digits &movedOut, int dim) {
  Digits out;
  std::vector<bool> placed(segs.size(), false);
  auto emitRun = [&](int j) {
    for (unsigned l = segs[size_t(j)].s0; l < segs[size_t(j)].s1; ++l)
      out.push_back(l);
    placed[size_t(j)] = true;
  };
  for (unsigned l : src.m[size_t(dim)]) {
    const int j = segOf[l];
    if (j >= 0) {
      if (hostOf[size_t(j)] == dim && !placed[size_t(j)])
        emitRun(j);
      continue;
    }
    if (std::find(movedOut.begin(), movedOut.end(), l) == movedOut.end())
      out.push_back(l);
  }
  for (size_t j = 0; j < segs.size(); ++j)
    if (!segs[j].aligned && hostOf[j] == dim && !placed[j])
      emitRun(int(j));
  out.insert(out.end(), movedIn.begin(), movedIn.end());
  return out;
}

/// The gathered layout re-read with the destination's digits in every
/// unaligned segment: the same cells (constant digits kept).
rt::TileMap reread(const rt::TileMap &gathered, const rt::TileMap &dst,
                   const std::vector<Segment> &segs,
                   const std::vector<int> &segOf) {
  rt::TileMap r = gathered;
  r.kdims.clear();
  std::vector<unsigned> newIndex(gathered.kdims.size());
  std::vector<Digits> runs(segs.size());
  for (size_t j = 0; j < segs.size(); ++j) {
    const Segment &s = segs[j];
    if (s.aligned) {
      for (unsigned l = s.s0; l < s.s1; ++l) {
        newIndex[l] = unsigned(r.kdims.size());
        r.kdims.push_back(gathered.kdims[l]);
      }
      continue;
    }
    for (unsigned l = s.d0; l < s.d1; ++l) {
      runs[j].push_back(unsigned(r.kdims.size()));
      r.kdims.push_back(dst.kdims[l]);
      r.kdims.back().sense = s.sense;
    }
  }
  r.groups[0] = unsigned(r.kdims.size());
  for (unsigned l = gathered.groups[0]; l < gathered.kdims.size(); ++l) {
    newIndex[l] = unsigned(r.kdims.size());
    r.kdims.push_back(gathered.kdims[l]);
  }
  for (auto &dim : r.m) {
    Digits out;
    for (unsigned l : dim) {
      const int j = segOf[l];
      if (j < 0)
        out.push_back(newIndex[l]);
      else if (l == segs[size_t(j)].s0)
        out.insert(out.end(), runs[size_t(j)].begin(), runs[size_t(j)].end());
    }
    dim = out;
  }
  return r;
}

std::string basesOf(const rt::TileMap &t, unsigned lo, unsigned hi) {
  std::string s;
  for (unsigned l = hi; l-- > lo;)
    s += (s.empty() ? "" : " x ") + std::to_string(t.kdims[l].tk);
  return s;
}

/// Whether the last step of `steps` copies the scratch region back.
bool endsWithCopyBack(const std::vector<rt::GeneralStep> &steps) {
  size_t n = steps.size();
  return n > 1 && steps[n - 1].kind == GeneralStepKind::Local &&
         !steps[n - 1].inPlace && steps[n - 1].to == steps[n - 2].to;
}

/// The general planner's steps for `req`, without a final copy back (the
/// combined plan decides whether it needs one), each why led by `role` and
/// cut before the list of prices.
std::optional<std::vector<rt::GeneralStep>>
halfPlan(const GeneralPlanRequest &req, const std::string &role) {
  auto planned = planGeneralRemap(req);
  auto *plan = std::get_if<rt::GeneralPlan>(&planned);
  if (!plan)
    return std::nullopt;
  std::vector<rt::GeneralStep> steps = std::move(plan->steps);
  if (endsWithCopyBack(steps))
    steps.pop_back();
  for (rt::GeneralStep &s : steps) {
    size_t cut = s.why.find("; priced ");
    if (cut != std::string::npos)
      s.why.resize(cut);
    s.why = role + ": " + s.why;
  }
  return steps;
}

/// Whether `a` and `b` are the same steps (the same methods to the same
/// layouts).
bool sameSteps(const std::vector<rt::GeneralStep> &a,
               const std::vector<rt::GeneralStep> &b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                    [](const rt::GeneralStep &x, const rt::GeneralStep &y) {
                      return x.kind == y.kind && x.inPlace == y.inPlace &&
                             x.to == y.to;
                    });
}

/// Whether `steps`, run from `req`'s source, leave the data in the
/// destination's region (the source's, unless a copy).
bool endsInDestination(const GeneralPlanRequest &req,
                       const std::vector<rt::GeneralStep> &steps) {
  if (steps.empty())
    return !req.copy;
  rt::GeneralPlan plan;
  plan.copy = req.copy;
  plan.steps = steps;
  const rt::Regions regions{{1}, {2}, {3}}; // distinct bases
  uint64_t read = 0, write = 0;
  rt::stepRegions(plan, steps.size() - 1, regions, read, write);
  return write == regions.dst.base;
}

/// Set while the halves are planned: a half aligns by construction and
/// must not search for routes of its own (a guard against a digit the
/// aligned planner's refinement refuses).
thread_local bool searching = false;

} // namespace

std::vector<WithinDimRoute>
mapc::withinDimRoutes(const GeneralPlanRequest &req) {
  if (!plainFrame(req.src) || !plainFrame(req.dst) ||
      req.src.dataSize() != req.dst.dataSize())
    return {};
  // Both cut where the other's cuts refine them, until neither changes.
  rt::TileMap src = req.src, dst = req.dst;
  for (size_t before = 0; before != src.kdims.size() + dst.kdims.size();) {
    before = src.kdims.size() + dst.kdims.size();
    src = refinedBy(src, dst);
    dst = refinedBy(dst, src);
  }
  const std::vector<Segment> segs = segmentsOf(src, dst);
  std::vector<int> segOf(src.kdims.size(), -1);
  std::vector<size_t> unaligned;
  Digits movable; // digits of aligned segments
  for (size_t j = 0; j < segs.size(); ++j) {
    if (segs[j].aligned) {
      for (unsigned l = segs[j].s0; l < segs[j].s1; ++l)
        movable.push_back(l);
      continue;
    }
    unaligned.push_back(j);
    for (unsigned l = segs[j].s0; l < segs[j].s1; ++l)
      segOf[l] = int(j);
  }
  if (unaligned.empty() || unaligned.size() > kMaxSegments)
    return {};
  // The gathered layout's digits: each unaligned run in its segment's sense.
  rt::TileMap runs = src;
  for (size_t j : unaligned)
    for (unsigned l = segs[j].s0; l < segs[j].s1; ++l)
      runs.kdims[l].sense = segs[j].sense;
  const int64_t maxSlots =
      std::max({req.maxSlots, rt::slotsOf(req.src), rt::slotsOf(req.dst)});
  const int64_t maxPes = int64_t(req.shape.peCount());
  const double srcPes = std::log(double(rt::pesOf(src)));
  // A gathered layout on fewer than half the PEs would serialise the plan.
  const int64_t minPes = std::min(rt::pesOf(src), rt::pesOf(dst));
  std::vector<WithinDimRoute> routes;
  for (unsigned mask = 0; mask < (1u << unaligned.size()); ++mask) {
    std::vector<int> hostOf(segs.size(), -1);
    for (size_t u = 0; u < unaligned.size(); ++u)
      hostOf[unaligned[u]] = (mask >> u) & 1;
    // Aligned digits moved to the other dim: every subset of a few, the
    // layout that fits with the PE count nearest the source's.
    const size_t nm = std::min(movable.size(), kMaxMovable);
    std::optional<rt::TileMap> best;
    double bestScore = 0;
    for (uint32_t sub = 0; sub < (1u << nm); ++sub) {
      Digits toMem, toPe;
      for (size_t i = 0; i < nm; ++i)
        if ((sub >> i) & 1) {
          unsigned l = movable[i];
          bool inMem =
              std::find(src.m[0].begin(), src.m[0].end(), l) != src.m[0].end();
          (inMem ? toPe : toMem).push_back(l);
        }
      const Digits mem = gatheredDim(src, segs, segOf, hostOf, toMem, toPe, 0);
      const Digits pe = gatheredDim(src, segs, segOf, hostOf, toPe, toMem, 1);
      const int64_t slots = sizeOf(src, mem), pes = sizeOf(src, pe);
      if (slots > maxSlots || pes > maxPes || 2 * pes < minPes)
        continue;
      const double score = std::abs(std::log(double(pes)) - srcPes) +
                           1e-3 * double(toMem.size() + toPe.size());
      if (!best || score < bestScore) {
        best = framed(runs, mem, pe);
        bestScore = score;
      }
    }
    if (!best)
      continue;
    std::string why;
    for (size_t u = 0; u < unaligned.size(); ++u) {
      const Segment &s = segs[unaligned[u]];
      why += std::string(why.empty() ? "" : "; ") + "index digits " +
             basesOf(src, s.s0, s.s1) + " gathered in " +
             (hostOf[unaligned[u]] ? "the PE number" : "memory") +
             ", re-read as " + basesOf(dst, s.d0, s.d1) +
             (s.sense == rt::Sense::Minus ? ", all reversed" : "");
    }
    routes.push_back({*best, reread(*best, dst, segs, segOf), why});
  }
  return routes;
}

std::vector<PricedPlan>
mapc::withinDimResignifiedPlans(const GeneralPlanRequest &req) {
  if (searching)
    return {};
  searching = true;
  std::vector<PricedPlan> plans;
  int64_t copyBackTicks = -1;
  for (const WithinDimRoute &route : withinDimRoutes(req)) {
    GeneralPlanRequest there = req, back = req;
    there.dst = route.gathered;
    const std::string toGathered =
        "003 6.3.2, to the gathered layout (" + route.why + ")";
    std::vector<std::vector<rt::GeneralStep>> firsts;
    if (auto a = halfPlan(there, toGathered))
      firsts.push_back(std::move(*a));
    // In place, the first half may as well end in the scratch region (the
    // second half then goes back out of place): planned as a copy whose
    // first step out of place writes the destination, it does.
    if (!req.copy && !req.noScratch && !firsts.empty() && !firsts[0].empty() &&
        endsInDestination(req, firsts[0])) {
      there.copy = true;
      there.firstToDestination = true;
      if (auto a = halfPlan(there, toGathered))
        firsts.push_back(std::move(*a));
    }
    back.src = route.reread;
    for (const std::vector<rt::GeneralStep> &first : firsts) {
      // The second half reads where the first left the data: from a
      // region other than the destination's it is planned as a copy, so
      // that it ends in the destination's without a copy back. A copy's
      // steps out of place end in the destination however many there are
      // (General.h), so its second half may be either.
      std::vector<bool> copies = {!endsInDestination(req, first)};
      if (req.copy)
        copies = {false, true};
      std::optional<std::vector<rt::GeneralStep>> last;
      for (bool copy : copies) {
        back.copy = copy;
        auto b = halfPlan(back, "003 6.3.2, from the re-read layout");
        if (!b || (last && sameSteps(*last, *b)))
          continue;
        last = b;
        std::vector<rt::GeneralStep> steps = first;
        steps.insert(steps.end(), b->begin(), b->end());
        if (steps.empty())
          continue;
        if (auto p =
                pricedPlanOf(req, std::move(steps), "003 6.3.2", copyBackTicks))
          plans.push_back(std::move(*p));
      }
    }
  }
  searching = false;
  return plans;
}
