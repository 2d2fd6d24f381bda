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

# Per-input timeout for the fuzz drivers: they look for hangs, not speed,
# and a Debug build under ASan/UBSan runs the largest pathological input
# (120000 arrays, 250 MB of --emit=layout) about ten times slower.
sanitized = config.sanitize.upper() in ("ON", "1", "TRUE", "YES")
config.substitutions.append(("%fuzz_timeout", "300" if sanitized else "30"))
