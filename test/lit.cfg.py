# lit configuration for mapc's FileCheck tests.
import os
import lit.formats

config.name = "mapc"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".map", ".test"]
config.excludes = ["lit.cfg.py", "lit.site.cfg.py", "Inputs", "unit"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.mapc_obj_root, "test")

# FileCheck, not, count and split-file come from LLVM 19.
path = os.pathsep.join([config.mapc_tools_dir, config.llvm_tools_dir,
                        config.environment.get("PATH", os.environ["PATH"])])
config.environment["PATH"] = path
config.substitutions.append(("%python", config.python_executable))
config.substitutions.append(("%mapc_src", config.mapc_src_root))
# The directory of mapc and mapc-mpi (test/mpi/driver-half.test).
config.substitutions.append(("%mapc_tools", config.mapc_tools_dir))
# Compiling emitted C++ against the runtime (test/run/emitted-cpp.map).
config.substitutions.append(
    ("%compile_emitted",
     "%s %s/test/tools/compile_emitted.py --cxx %s --runtime-include "
     "%s/runtime/include --runtime-lib %s"
     % (config.python_executable, config.mapc_src_root, config.cxx,
        config.mapc_src_root, config.runtime_lib)
     # A sanitized runtime needs the sanitizers at link time too.
     + (" --cxxflag=-fsanitize=address,undefined"
        if config.sanitize.upper() in ("ON", "1", "TRUE", "YES") else "")))

# Compiling --emit=cpp --target=native output: the native target's headers
# and library before the runtime's (test/native/emitted-*.test).
config.substitutions.append(
    ("%compile_native",
     "%s %s/test/tools/compile_emitted.py --cxx %s --runtime-include "
     "%s/runtime/include --cxxflag=-I%s/runtime/native/include "
     "--cxxflag=-pthread --runtime-lib %s --lib %s"
     % (config.python_executable, config.mapc_src_root, config.cxx,
        config.mapc_src_root, config.mapc_src_root, config.native_lib,
        config.runtime_lib)
     + (" --cxxflag=-fsanitize=address,undefined"
        if config.sanitize.upper() in ("ON", "1", "TRUE", "YES") else "")))

# Per-input limit of CPU time for the fuzz drivers (mutate.py; ten times
# as much wall time): they look for hangs, not speed, and a Debug build
# under ASan/UBSan runs the largest pathological input (120000 arrays,
# 593 MiB of --emit=layout, some 6 s of CPU) about ten times slower. CPU
# time, because a loaded machine stretched the wall time of that input
# past 30 s.
sanitized = config.sanitize.upper() in ("ON", "1", "TRUE", "YES")
config.substitutions.append(("%fuzz_timeout", "300" if sanitized else "30"))
# A sanitizer reserves terabytes of shadow memory: no `ulimit -v` under it
# (test/mixed-radix/emit-plan-counted.map).
if sanitized:
    config.available_features.add("sanitized")

# AVX-512 hosts plan the native target's register networks (docs/native.md).
try:
    with open("/proc/cpuinfo") as cpuinfo:
        if " avx512f" in cpuinfo.read():
            config.available_features.add("avx512f")
except OSError:
    pass

# The MPI target (test/mpi): Open MPI's mpirun, allowed to run as root (CI
# containers) and to start more ranks than there are cores; every launch
# under a time-out so that a stuck rank fails the test instead of hanging
# (300 s: test/mpi/random.test's launches take about 30 s each, and ran past
# 120 twice in one day on a host loaded with other builds).
if config.have_mpi.upper() in ("ON", "1", "TRUE", "YES"):
    config.available_features.add("mpi")
    config.environment["OMPI_ALLOW_RUN_AS_ROOT"] = "1"
    config.environment["OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"] = "1"
    config.environment["OMPI_MCA_rmaps_base_oversubscribe"] = "1"
    # Oversubscribed ranks that spin starve each other: yield when idle
    # (three times faster with 4 ranks on 2 cores).
    config.environment["OMPI_MCA_mpi_yield_when_idle"] = "1"
    # Under ASan, Open MPI's components keep allocations past MPI_Finalize,
    # from libraries already unloaded (LeakSanitizer cannot even name them,
    # so suppressions do not match): processes that start MPI run without
    # leak checks; ASan's other checks stay on.
    mpienv = "env ASAN_OPTIONS=detect_leaks=0 " if sanitized else ""
    config.substitutions.append(("%mpienv", mpienv))
    config.substitutions.append(
        ("%mpirun", "%stimeout %d %s --oversubscribe"
         % (mpienv, 600 if sanitized else 300, config.mpiexec)))
    config.substitutions.append(
        ("%mapc_mpi_check",
         os.path.join(config.mapc_obj_root, "test", "mapc-mpi-check")))
    config.substitutions.append(
        ("%mapc_bench_mpi",
         os.path.join(config.mapc_obj_root, "bench", "mapc-bench-mpi")))
    # Emitted MPI code (test/mpi/emitted-cpp.test): mpicxx against MapcMpi.
    config.substitutions.append(
        ("%mpicxx_emitted",
         "%s -std=c++17 -O1 -I%s/runtime/include -I%s/runtime/mpi/include%s"
         % (config.mpicxx, config.mapc_src_root, config.mapc_src_root,
            " -fsanitize=address,undefined" if sanitized else "")))
    config.substitutions.append(
        ("%mapc_mpi_libs", "%s/runtime/mpi/libMapcMpi.a %s"
         % (config.mapc_obj_root, config.runtime_lib)))
