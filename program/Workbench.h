//===- Workbench.h - the data of --emit=html's page -----------------------===//
//
// Fills backend/HtmlEmitter.h's WorkbenchPage from a checked program: its
// layouts (SvgEmitter's drawings, or heat maps of large devices), and for
// every statement its --emit=cycles text, its --emit=plan text and the
// device after every plan step, read from the same --run --trace the
// driver prints (ProgramRun.cpp, GeneralRun.cpp, NetworkRun.cpp), so the
// page shows exactly the rows --trace prints.
//
//===----------------------------------------------------------------------===//
#ifndef MAPC_TOOLS_WORKBENCH_H
#define MAPC_TOOLS_WORKBENCH_H

#include "backend/HtmlEmitter.h"
#include "ir/Diagnostics.h"
#include "ir/Program.h"
#include "passes/RemapPlanner.h"

#include "llvm/Support/SourceMgr.h"

#include <optional>

namespace mapc {

struct WorkbenchRequest {
  const Program *program = nullptr;
  const llvm::SourceMgr *srcMgr = nullptr;
  std::string fileName;
  PlannerKind planner = PlannerKind::Optimal;
  std::optional<unsigned> exchangeStart;
};

/// Plans, runs and traces the program and fills `page`. Reports what cannot
/// be planned through `diags` and returns false then. `allVerified` tells
/// whether every statement's run was verified.
bool buildWorkbench(const WorkbenchRequest &req, Diagnostics &diags,
                    WorkbenchPage &page, bool &allVerified);

} // namespace mapc

#endif
