//===- Execute.h - running plans on the simulated MasPar
//-------------------===//
#ifndef MAPC_RUNTIME_EXECUTE_H
#define MAPC_RUNTIME_EXECUTE_H

#include "mapc/runtime/MasPar.h"
#include "mapc/runtime/Plan.h"

#include <functional>

namespace mapc::rt {

/// What the planner needs to know of the machine.
struct MachineShape {
  unsigned width = 32, height = 32; ///< PE grid (iproc = x + width * y)
  unsigned clusterSize = 16;
  unsigned peCount() const { return width * height; }
};

/// Where an array lives: the same byte offset in every PE.
struct Region {
  uint64_t base = 0;
};

/// The memory a plan works in. `scratch` (as large as the destination)
/// is used only by in-place brute-force steps (003 6.3.3).
struct Regions {
  Region src, dst, scratch;
};

/// Called after each step (step index, layout now held) so that --trace
/// can print the device.
using StepObserver = std::function<void(unsigned step, const BitLayout &now)>;

/// Carries out `plan` on `machine`. In-place plans work in `dst`; copy
/// plans read `src` in the first step and work in `dst` after that.
/// Returns false (with a reason) if a step's precondition fails.
bool executePlan(MasPar &machine, const Plan &plan, Regions regions,
                 const StepObserver &observer = {}, std::string *why = nullptr);

/// Ticks a step will cost, computed from its structure alone. Exact when
/// no bit is disabled; an upper bound otherwise (a slot in which only some
/// PEs hold data is priced as if all did).
int64_t predictStepTicks(const Step &step, const BitLayout &before,
                         unsigned elemBytes, bool copyFirst,
                         const MachineShape &shape, const CostModel &cost);

/// Whether a p-bit exchange step (001) goes over the xnet rather than the
/// router on this machine: whichever the cost model prices lower.
bool exchangeUsesXnet(const Exchange &e, unsigned mBits, unsigned pBits,
                      unsigned elemBytes, const MachineShape &shape,
                      const CostModel &cost);

/// 003 5.8.1 / fig. 5.4's lower bound for remapping `src` to `dst`: every
/// element that changes address read and written once, at the widest
/// transfer its identity low m-bits allow (indirect when a cycle mixes m-
/// and p-bits); every element that changes PE sent once, in transfers as
/// wide as the m-bits that stay in memory allow, with one connection per
/// pair of clusters that talk, clusters being `shape`'s grid blocks
/// (clusterOf in MasPar.h). See docs/cost-model.md.
int64_t lowerBound(const BitLayout &src, const BitLayout &dst,
                   unsigned elemBytes, bool copy, const MachineShape &shape,
                   const CostModel &cost);

} // namespace mapc::rt

#endif
