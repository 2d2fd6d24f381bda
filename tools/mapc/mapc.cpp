//===- mapc.cpp - the mapc driver -----------------------------------------===//
//
// Reads one .map file, checks it, and prints what --emit asks for. Exit
// codes: 0 success, 1 errors in the input, 2 a usage or file error.
//
//===----------------------------------------------------------------------===//
#include "HugePageHeap.h"
#include "MpiRun.h"
#include "ProgramRun.h"
#include "Progress.h"
#include "StatementCycles.h"
#include "Workbench.h"
#include "api/NativeProgram.h"
#include "backend/Butterfly.h"
#include "backend/CppEmitter.h"
#include "backend/LayoutPrinter.h"
#include "backend/NativeEmitter.h"
#include "backend/SvgEmitter.h"
#include "frontend/Parser.h"
#include "frontend/Sema.h"
#include "ir/KTilePrinter.h"
#include "passes/AffinePlanner.h"
#include "passes/DigitCycles.h"
#include "passes/RemapCycles.h"
#include "passes/RemapSpec.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/Signals.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/WithColor.h"

#include <cerrno>
#include <cstring>
#include <functional>
#include <new>

#include <pthread.h>

using namespace mapc;
namespace cl = llvm::cl;

namespace {

enum class Emit {
  None,
  AST,
  KTile,
  Layout,
  Cycles,
  Plan,
  Cpp,
  Header,
  Butterfly,
  Svg,
  Html
};

cl::OptionCategory mapcCategory("mapc options");

cl::opt<std::string> inputFile(cl::Positional, cl::desc("<input .map file>"),
                               cl::Required, cl::cat(mapcCategory));
cl::opt<std::string> outputFile("o", cl::desc("Write output to <file>"),
                                cl::value_desc("file"), cl::init("-"),
                                cl::cat(mapcCategory));
cl::opt<Emit> emit(
    "emit", cl::desc("What to print"), cl::init(Emit::None),
    cl::values(
        clEnumValN(Emit::None, "none", "check the program only (default)"),
        clEnumValN(Emit::AST, "ast", "the syntax tree with line:col"),
        clEnumValN(Emit::KTile, "ktile",
                   "every layout as a canonical k-Tile format"),
        clEnumValN(Emit::Layout, "layout",
                   "the device contents of every "
                   "layout"),
        clEnumValN(Emit::Cycles, "cycles",
                   "radix-2 remaps in cycle notation (003 4.2.2)"),
        clEnumValN(Emit::Plan, "plan",
                   "remap plans: steps, predicted ticks, lower bound"),
        clEnumValN(Emit::Cpp, "cpp",
                   "C++ source: one function per remap statement"),
        clEnumValN(Emit::Header, "header",
                   "the C++ header for --emit=cpp's functions"),
        clEnumValN(Emit::Butterfly, "butterfly",
                   "FFT communication steps on a mesh or "
                   "hypercube (002)"),
        clEnumValN(Emit::Svg, "svg", "every layout drawn as an SVG document"),
        clEnumValN(Emit::Html, "html",
                   "a self-contained HTML workbench: layouts, "
                   "plans, the device after every step")),
    cl::cat(mapcCategory));
enum class Label { Index, Coords };
cl::opt<Label> label("label", cl::desc("What --emit=svg writes in a cell"),
                     cl::init(Label::Index),
                     cl::values(clEnumValN(Label::Index, "index",
                                           "the linear data index "
                                           "(default)"),
                                clEnumValN(Label::Coords, "coords",
                                           "the data coordinates (i0,i1,...)")),
                     cl::cat(mapcCategory));
cl::opt<bool> runProgram("run",
                         cl::desc("Run on the simulated machine, verify "
                                  "every element, report ticks"),
                         cl::cat(mapcCategory));
cl::opt<bool> trace("trace",
                    cl::desc("With --run, print the device after every "
                             "plan step"),
                    cl::cat(mapcCategory));
cl::opt<int> exchangeStart(
    "exchange-start",
    cl::desc("Start Gray-code exchanges in PE dimension <n>, then go down "
             "cyclically (001 fig. 5); default: the highest"),
    cl::value_desc("n"), cl::init(-1), cl::cat(mapcCategory));

std::optional<unsigned> exchangeStartBit() {
  if (exchangeStart < 0)
    return std::nullopt;
  return unsigned(exchangeStart);
}

cl::opt<bool> memoryDigest(
    "memory-digest",
    cl::desc("With --run, end with a digest of the whole machine memory "
             "(to compare with emitted code)"),
    cl::cat(mapcCategory));
cl::opt<std::string>
    headerName("header-name",
               cl::desc("The header --emit=cpp includes (default "
                        "mapc_program.h)"),
               cl::init("mapc_program.h"), cl::cat(mapcCategory));
cl::opt<PlannerKind> planner(
    "planner", cl::desc("Remap planner"), cl::init(PlannerKind::Optimal),
    cl::values(clEnumValN(PlannerKind::Optimal, "optimal",
                          "003 4.4 with 5.6's machine choices (default)"),
               clEnumValN(PlannerKind::Atomic, "atomic",
                          "baseline: atomic bit operations (003 4.3, 5.5)"),
               clEnumValN(PlannerKind::BruteForce, "brute-force",
                          "baseline: send every element (003 6.3.3)")),
    cl::cat(mapcCategory));

/// Where plans run (language.md "Targets"). Each target is a peer: it
/// plans from the same rt::RemapSpec (passes/RemapSpec.h).
enum class Target { Sim, Native, Mpi };
cl::opt<Target> target(
    "target", cl::desc("Where remaps run"), cl::init(Target::Sim),
    cl::values(clEnumValN(Target::Sim, "sim",
                          "the declared machine's simulator (default)"),
               clEnumValN(Target::Native, "native",
                          "the host CPU: one contiguous buffer per layout"),
               clEnumValN(Target::Mpi, "mpi",
                          "MPI ranks, each holding a block of PEs")),
    cl::cat(mapcCategory));

/// --threads. The LLVM library registers an option of that name that the
/// driver does not use; main() removes it and registers this one in its
/// place (two options of one name are a fatal error at registration).
std::unique_ptr<cl::opt<unsigned>> threads;
void registerThreadsOption() {
  if (cl::Option *other = cl::getRegisteredOptions().lookup("threads"))
    other->removeArgument();
  threads = std::make_unique<cl::opt<unsigned>>(
      "threads",
      cl::desc("With --target=native: worker threads for remaps and the "
               "memcpy baseline (default 0: every core)"),
      cl::value_desc("n"), cl::init(0), cl::cat(mapcCategory));
}
cl::opt<std::string> cppNamespace(
    "cpp-namespace",
    cl::desc("With --emit=cpp/header --target=native: the namespace of the "
             "emitted functions (default mapc_program)"),
    cl::init("mapc_program"), cl::cat(mapcCategory));

cl::opt<ProgressMode> progress(
    "progress",
    cl::desc("Show progress of long outputs and plans on stderr (default: "
             "only when stderr is a terminal)"),
    cl::init(ProgressMode::Auto),
    cl::values(
        clEnumValN(ProgressMode::Auto, "auto", "when stderr is a terminal"),
        clEnumValN(ProgressMode::Always, "always", "always, one line per step"),
        clEnumValN(ProgressMode::Never, "never", "never")),
    cl::cat(mapcCategory));

/// --emit=layout announces its output on stderr from this many bytes.
constexpr uint64_t kAnnouncedLayoutBytes = uint64_t(64) << 20;

/// An upper bound on --emit=layout's bytes for `l`: every cell as wide as
/// the largest data index (below the cell count), plus its separator.
uint64_t layoutTextBytes(const Layout &l) {
  uint64_t digits = std::to_string(std::max<int64_t>(l.deviceSize(), 1)).size();
  return uint64_t(l.deviceSize()) * (digits + 1) + 64;
}

} // namespace

/// Where the user's errors go: stderr, except on the ranks past the first
/// under mpirun, where every rank reads the same input and would print the
/// same diagnostics once each (their exit codes stay the same).
llvm::raw_ostream &mapc::userErrs() {
  static const bool quiet = [] {
    for (const char *var : {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK"})
      if (const char *rank = std::getenv(var))
        return llvm::StringRef(rank) != "0";
    return false;
  }();
  return quiet ? llvm::nulls() : llvm::errs();
}

llvm::raw_ostream &mapc::driverError() {
  return llvm::WithColor::error(userErrs(), "mapc");
}

namespace {

/// Opens -o (or stdout); reports and returns null when it cannot.
std::unique_ptr<llvm::ToolOutputFile> openOutput() {
  std::error_code ec;
  auto out = std::make_unique<llvm::ToolOutputFile>(outputFile, ec,
                                                    llvm::sys::fs::OF_Text);
  if (!ec)
    return out;
  driverError() << "cannot write '" << outputFile << "': " << ec.message()
                << "\n";
  return nullptr;
}

/// Keeps the output if everything reached it; a write that failed (a full
/// disk, /dev/full) is a file error, exit 2, not LLVM's fatal IO error.
int finish(llvm::ToolOutputFile &out, int rc = 0) {
  out.os().flush();
  if (std::error_code ec = out.os().error()) {
    out.os().clear_error();
    driverError() << "cannot write '" << outputFile << "': " << ec.message()
                  << "\n";
    return 2;
  }
  out.keep();
  return rc;
}

/// Does -o name the input file? Compared by file identity (device and
/// inode, through links and other spellings of the path), not by name:
/// opening -o truncates it, and a failed run would then delete it.
bool outputNamesInput() {
  if (outputFile == "-" || inputFile == "-")
    return false;
  bool same = false;
  return !llvm::sys::fs::equivalent(inputFile, outputFile, same) && same;
}

/// --emit=layout refuses devices larger than this many cells: the text
/// would run to gigabytes.
constexpr int64_t kMaxPrintedCells = int64_t(1) << 28;

void printVersion(llvm::raw_ostream &os) {
  os << "mapc 0.1.0 (k-Tile front end; LLVM " << LLVM_VERSION_STRING << ")\n";
}

} // namespace

/// Reads `path` (or stdin for "-") up to `limit` bytes. `wholeSize` is the
/// file's size when it is a regular file longer than that, else 0.
static llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>>
readBounded(const std::string &path, uint64_t limit, uint64_t &wholeSize) {
  namespace fs = llvm::sys::fs;
  fs::file_t file = fs::getStdinHandle();
  bool isStdin = path == "-";
  if (!isStdin) {
    llvm::Expected<fs::file_t> opened = fs::openNativeFileForRead(path);
    if (!opened)
      return llvm::errorToErrorCode(opened.takeError());
    file = *opened;
  }
  std::string data;
  std::error_code ec;
  while (data.size() < limit) {
    char chunk[1 << 16];
    size_t want = size_t(std::min<uint64_t>(sizeof chunk, limit - data.size()));
    llvm::Expected<size_t> got =
        fs::readNativeFile(file, llvm::MutableArrayRef<char>(chunk, want));
    if (!got) {
      ec = llvm::errorToErrorCode(got.takeError());
      break;
    }
    if (*got == 0)
      break;
    data.append(chunk, *got);
  }
  wholeSize = 0;
  if (!isStdin) {
    fs::file_status st;
    if (data.size() >= limit && !fs::status(file, st) &&
        st.type() == fs::file_type::regular_file)
      wholeSize = st.getSize();
    fs::closeFile(file);
  }
  if (ec)
    return ec;
  return llvm::MemoryBuffer::getMemBufferCopy(data, isStdin ? "<stdin>" : path);
}

static int compile();
static int compileSource(llvm::SourceMgr &srcMgr, unsigned bufferId,
                         Diagnostics &diags, uint64_t wholeSize);

/// Runs `body` on a thread with a stack of 1 GiB, or the largest of 256,
/// 64 and 16 MiB that the process may reserve; false (errno set) if none.
template <typename F> static bool runOnLargeStack(F &&body) {
  auto start = [](void *arg) -> void * {
    (*static_cast<F *>(arg))();
    return nullptr;
  };
  for (size_t mib : {1024, 256, 64, 16}) {
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, mib << 20);
    pthread_t thread;
    const int err = pthread_create(&thread, &attr, start, &body);
    pthread_attr_destroy(&attr);
    if (err == 0) {
      pthread_join(thread, nullptr);
      return true;
    }
    errno = err;
  }
  return false;
}
/// main's argv, for mapc-mpi (MpiDriver::commandLine).
static std::vector<const char *> commandLine;

/// Options that mean nothing on the target chosen: usage errors (exit 2).
static int checkNativeUsage() {
  auto usage = [](const std::string &msg) {
    driverError() << msg << "\n";
    return 2;
  };
  if (const std::string mpi = givenMpiOption();
      !mpi.empty() && target != Target::Mpi)
    return usage("--" + mpi + " applies to --target=mpi (docs/mpi.md); add " +
                 "--target=mpi or drop it");
  if (headerName.getNumOccurrences() && emit != Emit::Cpp &&
      emit != Emit::Header)
    return usage("--header-name names the header that --emit=cpp includes "
                 "and --emit=header guards; give it with one of those");
  if (target != Target::Native) {
    if (threads->getNumOccurrences())
      return usage("--threads applies to --target=native; the simulators "
                   "run one thread");
    if (cppNamespace.getNumOccurrences())
      return usage("--cpp-namespace applies to --target=native; the "
                   "simulator's emitted code uses namespace mapc_program");
    return 0;
  }
  if (!isEmittableNamespace(cppNamespace))
    return usage("--cpp-namespace='" + cppNamespace +
                 "' is not a C++ namespace name; give identifiers joined by "
                 "'::', e.g. image::remaps");
  if (emit == Emit::Butterfly)
    return usage("--emit=butterfly describes FFT steps on a simulated mesh "
                 "or hypercube; drop --target=native");
  if (emit == Emit::Html)
    return usage("--emit=html steps through a simulated plan; a native "
                 "remap runs as one step: drop --target=native");
  if (trace)
    return usage("--trace shows a simulated plan step by step; a native "
                 "remap runs as one step: drop --target=native to trace "
                 "the simulator, or use --emit=layout for the layouts");
  if (memoryDigest)
    return usage("--memory-digest digests a simulated machine's memory; "
                 "drop --target=native");
  if (planner.getNumOccurrences())
    return usage("--planner chooses a simulator's planner; the native "
                 "target plans its own kernels (--emit=plan shows them)");
  if (exchangeStart.getNumOccurrences())
    return usage("--exchange-start orders a simulator's exchanges; drop "
                 "--target=native");
  return 0;
}

/// --run, --emit=plan, --emit=cpp and --emit=header on the host CPU
/// (language.md "Targets"; docs/native.md).
static int compileNative(const Program &program, llvm::SourceMgr &srcMgr,
                         Diagnostics &diags, llvm::ToolOutputFile &out) {
  if (emit == Emit::Cpp || emit == Emit::Header) {
    std::vector<NativeEmitted> remaps;
    unsigned number = 0;
    for (const Statement &st : program.statements) {
      ++number;
      if (st.from < 0 || st.to < 0)
        continue;
      auto lc = srcMgr.getLineAndColumn(st.loc);
      NativeEmitted r;
      r.spec = remapSpecOf(program, st);
      r.function = statementFunction(st, number);
      r.description = r.spec.label + " (" + inputFile + ":" +
                      std::to_string(lc.first) + ":" +
                      std::to_string(lc.second) + ")";
      const ArrayInfo *arr = program.findArray(st.array);
      r.elementType = arr ? arr->type : ElemType::U8;
      remaps.push_back(std::move(r));
    }
    NativeEmitOptions opts;
    opts.headerName = headerName;
    opts.nameSpace = cppNamespace;
    if (emit == Emit::Cpp)
      emitNativeSource(remaps, opts, out.os());
    else
      emitNativeHeader(remaps, opts, out.os());
    return finish(out);
  }
  api::NativeRunOptions options;
  options.threads = *threads;
  std::vector<NativeStatement> planned;
  if (!planNativeProgram(program, options, diags, planned)) {
    diags.printSummary();
    return 1;
  }
  if (emit == Emit::Plan) {
    for (const NativeStatement &ns : planned) {
      out.os() << ns.spec.label << ": native, bytes=" << ns.remap->bytesMoved()
               << "\n";
      std::string described = ns.remap->describe();
      llvm::StringRef rest(described);
      while (!rest.empty()) {
        auto [line, tail] = rest.split('\n');
        out.os() << "  " << line << "\n";
        rest = tail;
      }
    }
    return finish(out);
  }
  bool good = true;
  runNativeProgram(program, planned, options, [&](const api::NativeResult &r) {
    out.os() << nativeResultLine(r) << "\n";
    out.os().flush();
    good &= r.verified;
  });
  return finish(out, good ? 0 : 1);
}

/// Whether `arg` is `--NAME=VALUE` (or `-NAME=VALUE`); its VALUE in `value`.
static bool valueGiven(llvm::StringRef arg, llvm::StringRef name,
                       llvm::StringRef &value) {
  value = arg.ltrim('-');
  return arg != value && value.consume_front(name) && value.consume_front("=");
}

/// A value of one of mapc's named-value options (--emit=, --target=, ...)
/// that is not one of them: said with the values, before LLVM's parser
/// says "Cannot find option named 'foo'!" on its own stream. False if one
/// was reported.
template <class Opt> static bool checkEnumValue(llvm::StringRef arg, Opt &opt) {
  llvm::StringRef name = opt.ArgStr;
  llvm::StringRef rest;
  if (!valueGiven(arg, name, rest))
    return true;
  auto &parser = opt.getParser();
  std::string values;
  for (unsigned i = 0; i < parser.getNumOptions(); ++i) {
    if (parser.getOption(i) == rest)
      return true;
    values += (i ? ", " : "") + std::string(parser.getOption(i));
  }
  driverError() << "--" << name << "=" << rest << ": '" << rest
                << "' is not one of its values; use " << values << "\n";
  return false;
}

/// The same for a number option given `--NAME=VALUE` whose value is not a
/// whole number (or, for the MPI cost model's `seconds`, MpiRun.cpp, not a
/// number), which LLVM's parser reports as "'abc' value invalid for integer
/// argument!" (or "floating point argument!") on its own stream.
static bool checkNumberValue(llvm::StringRef arg, llvm::StringRef name,
                             bool seconds = false) {
  llvm::StringRef rest;
  if (!valueGiven(arg, name, rest))
    return true;
  long long whole;
  double real;
  if (seconds ? !rest.getAsDouble(real) : !rest.getAsInteger(0, whole))
    return true;
  driverError() << "--" << name << "=" << rest << ": '" << rest << "' is not "
                << (seconds ? "a number of seconds" : "a whole number")
                << "; give one, as in --" << name << (seconds ? "=2e-6" : "=2")
                << "\n";
  return false;
}

static bool checkOptionValues(int argc, char **argv) {
  for (int i = 1; i < argc; ++i) {
    llvm::StringRef arg(argv[i]);
    if (arg == "--")
      break;
    if (!checkEnumValue(arg, emit) || !checkEnumValue(arg, label) ||
        !checkEnumValue(arg, planner) || !checkEnumValue(arg, target) ||
        !checkEnumValue(arg, progress))
      return false;
    // mapc's number options (mapc.cpp, MpiRun.cpp).
    for (llvm::StringRef name :
         {"exchange-start", "threads", "mpi-radix", "ranks"})
      if (!checkNumberValue(arg, name))
        return false;
    for (llvm::StringRef name :
         {"mpi-ts", "mpi-tw", "mpi-to", "mpi-tc", "mpi-tq"})
      if (!checkNumberValue(arg, name, /*seconds=*/true))
        return false;
  }
  return true;
}

/// The command-line parser's messages, said as mapc's other usage errors
/// are: `mapc: error: ...` with what to do. (A value the option's parser
/// rejects is reported on LLVM's own stream: checkOptionValues says the
/// named values' first.)
static void printUsageErrors(llvm::StringRef text) {
  llvm::SmallVector<llvm::StringRef, 4> lines;
  text.split(lines, '\n', -1, /*KeepEmpty=*/false);
  static const llvm::Regex unknown(
      "^mapc: Unknown command line argument '([^']*)'");
  static const llvm::Regex didYouMean("^mapc: Did you mean '(.*)'\\?$");
  for (llvm::StringRef line : lines) {
    llvm::SmallVector<llvm::StringRef, 4> m;
    if (unknown.match(line, &m)) {
      driverError() << "unknown option '" << m[1]
                    << "'; mapc --help lists the options\n";
    } else if (didYouMean.match(line, &m)) {
      llvm::WithColor::note(userErrs(), "mapc")
          << "did you mean '" << m[1] << "'?\n";
    } else if (line.contains("Not enough positional command line arguments")) {
      driverError()
          << "no input file; run mapc FILE.map [options] (mapc --help "
             "lists the options)\n";
    } else if (line.contains("Too many positional arguments")) {
      driverError() << "more than one input file; mapc reads one .map file a "
                       "run\n";
    } else if (line.starts_with("Must specify at least") ||
               line.starts_with("Can specify at most")) {
      continue; // LLVM's second line of the two above
    } else {
      userErrs() << line << "\n";
    }
  }
}

int main(int argc, char **argv) {
  // Before any thread: a plan's first touches of memory fault 2 MiB at a
  // time (HugePageHeap.h; whole runs of the largest plans of
  // bench/MixedRadix.cpp 1.2-2.4x faster on the reference machine).
  useHugePageHeap();
  commandLine.assign(argv, argv + argc);
  llvm::InitLLVM init(argc, argv);
  // InitLLVM's new-handler aborts with a stack dump when memory runs out;
  // without it `new` throws std::bad_alloc, which compile() reports at the
  // statement it was planning or running.
  std::set_new_handler(nullptr);
  // A closed pipe on stdout or stderr (`mapc F --run 2>&1 | head -1`):
  // output that cannot be written exits 2, as the other output errors do;
  // LLVM's own handler exits 74 (EX_IOERR).
  llvm::sys::SetOneShotPipeSignalFunction(+[] { std::_Exit(2); });
  registerThreadsOption();
  cl::HideUnrelatedOptions({&mapcCategory, &mpiOptionCategory()});
  cl::SetVersionPrinter(printVersion);
  if (!checkOptionValues(argc, argv))
    return 2;
  std::string usageErrors;
  llvm::raw_string_ostream usageOut(usageErrors);
  bool parsed = cl::ParseCommandLineOptions(
      argc, argv,
      "mapc: a compiler for data-mapping directives\n\n"
      "  mapc FILE.map --emit=layout   print where every element lives\n"
      "  mapc FILE.map --emit=ktile    print canonical k-Tile formats\n\n"
      "Exit codes: 0 success, 1 errors in the input, 2 usage or file "
      "errors.\n",
      &usageOut);
  if (!parsed) {
    printUsageErrors(usageErrors);
    return 2;
  }
  Progress::setMode(progress);
  // Sema follows align, layout and transform chains recursively; a chain
  // is at most as long as the 2 MiB input allows (about 70,000 links), and
  // a thread with a 1 GiB stack (reserved, touched only as deep as used)
  // follows the longest one where the default 8 MiB stack overflowed.
  // Under an address-space limit (ulimit -v) the 1 GiB may not be had:
  // smaller stacks are tried, down to 16 MiB, where llvm::thread ended the
  // run with a fatal error (then only the deepest chains overflow sooner).
  int rc = 0;
  if (!runOnLargeStack([&] { rc = compile(); })) {
    const int why = errno; // before driverError(), whose colour test may set it
    driverError() << "cannot start a thread with a stack of 16 MiB or more: "
                  << std::strerror(why)
                  << "; raise the address-space limit (ulimit -v)\n";
    return 2;
  }
  return rc;
}

/// Everything main does after the command line: read, check, emit or run.
static int compile() {

  if (exchangeStart.getNumOccurrences() && exchangeStart < 0) {
    driverError() << "--exchange-start=" << exchangeStart.getValue()
                  << " is negative; give a PE dimension from 0 up\n";
    return 2;
  }
  if (emit.getNumOccurrences() > 1) {
    driverError() << "--emit is given " << emit.getNumOccurrences()
                  << " times; give one output per run\n";
    return 2;
  }
  if (trace && !runProgram) {
    driverError() << "--trace needs --run\n";
    return 2;
  }
  if (memoryDigest && !runProgram) {
    driverError() << "--memory-digest needs --run\n";
    return 2;
  }
  if (label.getNumOccurrences() && emit != Emit::Svg) {
    driverError() << "--label needs --emit=svg\n";
    return 2;
  }
  if (runProgram && emit != Emit::None) {
    driverError()
        << "--run cannot be combined with --emit; run them separately\n";
    return 2;
  }

  if (target == Target::Mpi && (trace || memoryDigest || emit == Emit::Html)) {
    driverError()
        << (emit == Emit::Html ? "--emit=html"
            : trace            ? "--trace"
                               : "--memory-digest")
        << " is for the simulators; --target=mpi has --run, --emit=plan, "
           "--emit=cpp and --emit=header (docs/mpi.md)\n";
    return 2;
  }
  if (int rc = checkNativeUsage())
    return rc;

  if (outputNamesInput()) {
    driverError() << "-o '" << outputFile << "' is the input file '"
                  << inputFile << "'; write the output to another file\n";
    return 2;
  }

  // The size cap holds while reading: /dev/zero or an endless pipe stop at
  // one byte past it.
  uint64_t wholeSize = 0;
  auto fileOrErr = readBounded(inputFile, kMaxSourceBytes + 1, wholeSize);
  if (std::error_code ec = fileOrErr.getError()) {
    driverError() << "cannot read '" << inputFile << "': " << ec.message()
                  << "\n";
    return 2;
  }
  llvm::SourceMgr srcMgr;
  unsigned bufferId =
      srcMgr.AddNewSourceBuffer(std::move(*fileOrErr), llvm::SMLoc());
  Diagnostics diags(srcMgr, userErrs());
  // `new` throws when memory runs out (main): the statement in progress is
  // named, and the partial output file removed as the stack unwinds.
  try {
    return compileSource(srcMgr, bufferId, diags, wholeSize);
  } catch (const std::bad_alloc &) {
    const Statement *st = statementInProgress();
    llvm::StringRef text = srcMgr.getMemoryBuffer(bufferId)->getBuffer();
    diags.error(st ? st->loc : llvm::SMLoc::getFromPointer(text.begin()),
                st ? "out of memory in this statement: planning or running "
                     "it needs more memory than mapc may use"
                   : "out of memory while reading the program",
                "raise the memory limit (ulimit -v) or run a smaller "
                "instance; --emit=plan prices a statement without the "
                "simulated machine's memory");
    diags.printSummary();
    return 1;
  }
}

/// compile() past reading the file: parse, check, emit or run.
static int compileSource(llvm::SourceMgr &srcMgr, unsigned bufferId,
                         Diagnostics &diags, uint64_t wholeSize) {
  if (llvm::StringRef text = srcMgr.getMemoryBuffer(bufferId)->getBuffer();
      text.size() > kMaxSourceBytes) {
    diags.error(llvm::SMLoc::getFromPointer(text.begin()),
                (wholeSize ? "the file is " + std::to_string(wholeSize)
                           : std::string("the input is more than ") +
                                 std::to_string(kMaxSourceBytes)) +
                    " bytes; mapc reads at most " +
                    std::to_string(kMaxSourceBytes),
                "split the program into smaller files");
    diags.printSummary();
    return 1;
  }

  ast::Program ast = parseMap(bufferId, diags);
  if (emit == Emit::AST && !diags.hadError()) {
    auto out = openOutput();
    if (!out)
      return 2;
    printAST(ast, srcMgr, out->os());
    return finish(*out);
  }
  Program program = analyze(ast, diags);
  if (diags.hadError()) {
    diags.printSummary();
    return 1;
  }

  if (target == Target::Mpi && (runProgram || emit == Emit::Plan ||
                                emit == Emit::Cpp || emit == Emit::Header)) {
    MpiDriver driver{
        inputFile,
        headerName,
        &srcMgr,
        openOutput,
        [](llvm::ToolOutputFile &out, int rc) { return finish(out, rc); },
        commandLine};
    return runMpiTarget(program,
                        runProgram           ? MpiMode::Run
                        : emit == Emit::Plan ? MpiMode::Plan
                        : emit == Emit::Cpp  ? MpiMode::Cpp
                                             : MpiMode::Header,
                        driver);
  }

  auto output = openOutput();
  if (!output)
    return 2;
  llvm::ToolOutputFile &out = *output;
  if (target == Target::Native && (runProgram || emit == Emit::Plan ||
                                   emit == Emit::Cpp || emit == Emit::Header))
    return compileNative(program, srcMgr, diags, out);
  if (emit == Emit::Plan || emit == Emit::Cpp || emit == Emit::Header ||
      runProgram) {
    ProgramPlans plans;
    const char *what = runProgram           ? "--run"
                       : emit == Emit::Plan ? "--emit=plan"
                       : emit == Emit::Cpp  ? "--emit=cpp"
                                            : "--emit=header";
    if (!planProgram(program, planner, what, diags, plans,
                     exchangeStartBit())) {
      diags.printSummary();
      return 1;
    }
    if (emit == Emit::Cpp || emit == Emit::Header) {
      std::vector<EmittedRemap> remaps;
      std::function<EmittedRemap(const StatementPlan &)> emitted =
          [&](const StatementPlan &sp) {
            auto lc = srcMgr.getLineAndColumn(sp.statement->loc);
            EmittedRemap r;
            r.function = sp.function;
            // A stage's label starts with its indent in --emit=plan.
            r.label = llvm::StringRef(sp.label).ltrim().str();
            r.description = r.label + " (" + inputFile + ":" +
                            std::to_string(lc.first) + ":" +
                            std::to_string(lc.second) + ")";
            r.plan = sp.plan;
            r.general = sp.general;
            r.srcBase = sp.srcBase;
            r.dstBase = sp.dstBase;
            r.array = sp.statement->array;
            r.target = sp.statement->kind == Statement::Copy
                           ? sp.statement->target
                           : sp.statement->array;
            r.dataSet = plans.arrayDataSet.at(r.array);
            r.lowerBound = lowerBoundOf(sp);
            for (const StatementPlan &stage : sp.stages)
              r.stages.push_back(emitted(stage));
            return r;
          };
      for (const StatementPlan &sp : plans.statements)
        remaps.push_back(emitted(sp));
      EmitOptions opts;
      opts.headerName = headerName;
      opts.peWidth = plans.shape.width;
      opts.peHeight = plans.shape.height;
      opts.clusterSize = plans.shape.clusterSize;
      opts.memoryBytes = plans.memoryBytes;
      opts.scratchBase = plans.scratchBase;
      opts.onNetwork = plans.onNetwork;
      opts.network = plans.network;
      if (emit == Emit::Cpp)
        emitSource(remaps, opts, out.os());
      else
        emitHeader(remaps, opts, out.os());
      return finish(out);
    }
    if (emit == Emit::Plan) {
      printPlans(plans, out.os());
      return finish(out);
    }
    bool good = runPlans(plans, trace, memoryDigest, out.os());
    return finish(out, good ? 0 : 1);
  }
  if (emit == Emit::Svg) {
    SvgOptions opts;
    opts.coordLabels = label == Label::Coords;
    if (!emitSvg(program, opts, diags, out.os())) {
      diags.printSummary();
      return 1;
    }
    return finish(out);
  }
  if (emit == Emit::Html) {
    WorkbenchRequest req;
    req.program = &program;
    req.srcMgr = &srcMgr;
    req.fileName = inputFile;
    req.planner = planner;
    req.exchangeStart = exchangeStartBit();
    WorkbenchPage page;
    bool verified = true;
    if (!buildWorkbench(req, diags, page, verified)) {
      diags.printSummary();
      return 1;
    }
    emitHtml(page, out.os());
    return finish(out, verified ? 0 : 1);
  }
  if (emit == Emit::Butterfly) {
    ButterflyOutcome r = emitButterfly(program, diags, out.os());
    if (r == ButterflyOutcome::NoNetwork) {
      driverError()
          << "--emit=butterfly needs a mesh or hypercube machine, not "
          << program.machine.kindName() << "; declare one, e.g. "
          << "machine mesh(pes = [16, 16, 16], memory = 1);\n";
      return 2;
    }
    if (r == ButterflyOutcome::Errors) {
      diags.printSummary();
      return 1;
    }
    return finish(out);
  }
  if (emit == Emit::Cycles) {
    // Every statement that moves data: remap, redistribute, realign, copy.
    for (const Statement &st : program.statements) {
      if (st.from < 0 || st.to < 0)
        continue;
      std::string why, hint;
      std::string text =
          statementCycles(program, st, exchangeStartBit(), why, &hint);
      if (!why.empty()) {
        diags.error(st.loc, "cannot write this remap in cycle notation: " + why,
                    hint);
        continue;
      }
      out.os() << "remap " << st.array << ": " << program.layouts[st.from].name
               << " -> " << program.layouts[st.to].name << ":";
      if (!text.empty())
        out.os() << " " << text;
      out.os() << "\n";
    }
    if (diags.hadError()) {
      diags.printSummary();
      return 1;
    }
  }
  // --emit=layout: refuse devices too large to print before writing
  // anything, and announce large outputs (2^28 cells are about 5 GB).
  uint64_t layoutBytes = 0, layoutCells = 0;
  if (emit == Emit::Layout) {
    for (unsigned i = 0; i < program.numStaticLayouts; ++i) {
      const Layout &l = program.layouts[i];
      if (l.deviceSize() > kMaxPrintedCells) {
        diags.error(l.loc,
                    "layout '" + l.name + "' has " +
                        std::to_string(l.deviceSize()) +
                        " device cells, too many to print",
                    "--emit=layout prints at most 2^28 cells per layout; "
                    "use --emit=ktile for large layouts");
        diags.printSummary();
        return 1;
      }
      layoutBytes += layoutTextBytes(l);
      layoutCells += uint64_t(l.deviceSize());
    }
    if (layoutBytes >= kAnnouncedLayoutBytes)
      llvm::WithColor::note(llvm::errs(), "mapc")
          << "--emit=layout writes " << layoutCells << " cells of "
          << program.numStaticLayouts
          << (program.numStaticLayouts == 1 ? " layout" : " layouts")
          << ", up to " << (layoutBytes >> 20) << " MiB of text\n";
  }
  std::optional<Progress> layoutProgress;
  if (emit == Emit::Layout)
    layoutProgress.emplace("--emit=layout", layoutCells, outputFile == "-");
  uint64_t cellsBefore = 0;
  for (unsigned i = 0; i < program.numStaticLayouts; ++i) {
    const Layout &l = program.layouts[i];
    if (emit == Emit::KTile) {
      if (l.tile)
        printKTileLayout(l.name, l.array, *l.tile, out.os());
      else
        printDigitMapLayout(l.name, l.array, *l.digits, out.os());
    } else if (emit == Emit::Layout) {
      std::string detail = "layout " + l.name;
      printDeviceContents(l, out.os(), [&](int64_t cells) {
        layoutProgress->update(cellsBefore + uint64_t(cells), detail);
      });
      cellsBefore += uint64_t(l.deviceSize());
    }
  }
  return finish(out);
}
