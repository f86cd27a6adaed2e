# lit configuration of the llmc test suite.
import os

import lit.formats
from lit.llvm import llvm_config

config.name = "llmc"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.excludes = {"Inputs", "CMakeLists.txt", "README.md", "lit.cfg.py", "lit.site.cfg.py"}
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.llmc_obj_root, "test")

llvm_config.use_default_substitutions()
llvm_config.with_environment("PATH", config.llmc_tools_dir, append_path=True)
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)

config.substitutions.append(("%configs", os.path.join(config.llmc_src_root, "configs")))
config.substitutions.append(("%llmc_src_root", config.llmc_src_root))
config.substitutions.append(("%llmc_obj_root", config.llmc_obj_root))
config.substitutions.append(("%python", config.python_executable))

# Real model files live outside the repository (../shared/models beside the
# clone); tests that need them say `REQUIRES: shared-models` and are reported
# UNSUPPORTED when a user's clone does not have them.
shared_models = os.environ.get(
    "LLMC_SHARED_MODELS",
    os.path.join(os.path.dirname(config.llmc_src_root), "shared", "models"))
config.substitutions.append(("%shared_models", shared_models))
if os.path.isdir(os.path.join(shared_models, "stories260K")):
    config.available_features.add("shared-models")
else:
    lit_config.note("shared models not found at %s: tests that need them are "
                    "UNSUPPORTED" % shared_models)

# Data in llmc's download cache (the real default model, reference venv, quantizer-made files).
import sys
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
from lit_cache_features import add_cache_features
from lit_cpu_features import add_cpu_features
add_cpu_features(config)
add_cache_features(config, lit_config)

# Numeric tests run lowered IR with mlir-runner and compare with numpy
# (test/lib/llmc_numeric.py). Debian's python3 has numpy (python3-numpy);
# the interpreter first on PATH may not.
numpy_python = "/usr/bin/python3"
import subprocess
if subprocess.call([numpy_python, "-c", "import numpy"],
                   stderr=subprocess.DEVNULL) == 0:
    config.available_features.add("numpy")
else:
    lit_config.note("numpy not importable by %s: numeric tests are "
                    "UNSUPPORTED (apt-get install python3-numpy)" % numpy_python)
config.substitutions.append(("%numpy_python", numpy_python))
config.environment["PYTHONPATH"] = os.path.join(config.test_source_root, "lib")
config.environment["LLMC_LLVM_LIB_DIR"] = os.path.join(
    os.path.dirname(config.llvm_tools_dir), "lib")
config.excludes.add("lib")
# Programs linking an artifact's static library add what its manifest's
# "link_libraries" names: libmvec when loops call glibc's vector math
# functions, libm, and libomp for multi-threaded kernels.
config.substitutions.append((
    "%artifact_link_flags",
    "-L{0} -Wl,-rpath,{0} -lomp -lmvec -lm".format(config.environment["LLMC_LLVM_LIB_DIR"])))

tools = ["llmc", "llmc-opt"]
for optional_tool in ("llmc-runtime-test", "llmc-run"):
    if os.path.exists(os.path.join(config.llmc_tools_dir, optional_tool)):
        tools.append(optional_tool)

# Tests that build C programs against the runtime (mock artifacts, the
# examples) use the host C compiler and the runtime's static library; in a
# sanitizer build (CMake's LLMC_SANITIZE, scripts/sanitize.sh) with the
# runtime's -fsanitize flags, so that they link the sanitizers' runtimes.
config.substitutions.append(("%cc", ("cc " + config.llmc_sanitize_flags).strip()))
if config.llmc_sanitize_flags:
    # Tests that measure glibc malloc's own behaviour say `UNSUPPORTED: sanitizers`.
    config.available_features.add("sanitizers")
config.substitutions.append(("%llmc_runtime_include",
                             os.path.join(config.llmc_src_root, "runtime", "include")))
config.substitutions.append(("%llmc_runtime_lib",
                             os.path.join(config.llmc_obj_root, "runtime", "libllmc_runtime.a") +
                             " -lpcre2-8"))  # the tokenizers' regex engine

# CUDA: most CUDA tests run everywhere (PTX checks, the runtime against
# runtime/Inputs/fake_libcuda.c); those that need this machine's driver or
# GPU declare it. "cuda-driver": libcuda.so.1 loads; "cuda-gpu": cuInit
# succeeds and reports a device; "nvcc": the CUDA compiler.
import ctypes
import shutil


def _cuda_features():
    """(features, "sm_XY" of device 0 or None)."""
    features = set()
    try:
        lib = ctypes.CDLL("libcuda.so.1")
    except OSError:
        return features, None
    features.add("cuda-driver")
    count, major, minor = ctypes.c_int(0), ctypes.c_int(0), ctypes.c_int(0)
    if lib.cuInit(0) != 0 or lib.cuDeviceGetCount(ctypes.byref(count)) != 0 \
            or count.value == 0:
        return features, None
    # CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR/MINOR = 75/76, device 0.
    if lib.cuDeviceGetAttribute(ctypes.byref(major), 75, 0) != 0 or \
            lib.cuDeviceGetAttribute(ctypes.byref(minor), 76, 0) != 0:
        return features, None
    features.add("cuda-gpu")
    return features, "sm_%d%d" % (major.value, minor.value)


_features, _sm = _cuda_features()
config.available_features.update(_features)
# The GPU's own architecture, for tests that build a cubin for it.
config.substitutions.append(("%cuda_sm", _sm or "sm_none"))
config.cuda_sm = _sm or "sm_none"
_nvcc = shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
if os.access(_nvcc, os.X_OK):
    config.available_features.add("nvcc")
config.substitutions.append(("%nvcc", _nvcc))
# The toolkit llmc was configured to build kernels with (CMake's
# LLMC_CUDA_TOOLKIT_DIR; lit does not pass the environment's override on).
config.substitutions.append(("%cuda_toolkit", config.llmc_cuda_toolkit_dir))

llvm_config.add_tool_substitutions(tools, [config.llmc_tools_dir])
