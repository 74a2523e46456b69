# lit configuration for tilec's compiler tests.
import os
import lit.formats
from lit.llvm import llvm_config

config.name = "tilec"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".tile", ".test"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.tilec_obj_root, "test")
config.excludes = ["CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py", "unit",
                   "gpu", "Inputs"]

# --enable-var-scope: a [[VAR]] defined under one CHECK-LABEL is not visible
# under the next, so cases cannot lean on each other.
config.environment["FILECHECK_OPTS"] = "--enable-var-scope --dump-input=fail"

llvm_config.use_default_substitutions()
config.substitutions.append(("%examples", os.path.join(config.tilec_src_root, "examples")))
config.substitutions.append(("%kernels", os.path.join(config.tilec_src_root, "lib", "Kernels")))
config.substitutions.append(("%ptxas", config.ptxas_executable))

tool_dirs = [config.tilec_tools_dir, config.llvm_tools_dir]
llvm_config.add_tool_substitutions(["tile-opt", "tilec", "tile-dsl",
                                    "tilec-precompile", "tilec-bundle",
                                    "FileCheck", "not",
                                    "count", "llvm-nm", "llvm-readelf"],
                                   tool_dirs)
# The compiler library (lib/CAPI) as the build leaves it.
config.substitutions.append(("%libtilec_compiler", os.path.join(
    config.tilec_obj_root, "lib", "libtilec_compiler.so")))
if config.ptxas_executable:
    config.available_features.add("ptxas")
if config.tilec_fuzzer:
    config.available_features.add("fuzzer")
    config.substitutions.append(("%tile-fuzzer", config.tilec_fuzzer))
