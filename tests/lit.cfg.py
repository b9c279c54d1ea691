# -*- Python -*-  lit configuration of the program test suite (tests/).
#
# Each .mlir file holds a host program and `// RUN:` lines that convert it
# (mlir-to-bef), run it (bef_executor), inspect it (bef-dump, od, bef-to-mlir,
# bef-opt) and check the output with FileCheck. The tools are put on PATH by
# lit_test.sh (from Bazel) or by `scripts/lit.sh` (from a source tree).
import os

import lit.formats

config.name = "bef-programs"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir"]
config.excludes = ["golden", "Inputs"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = lit_config.params.get("exec_root", config.test_source_root)
config.environment["PATH"] = os.environ["PATH"]
# Leak-check and allocator output must not depend on the caller's locale.
config.environment["LC_ALL"] = "C"
