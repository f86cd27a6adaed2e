#!/usr/bin/env bash
# Installs the Debian packages llmc needs (idempotent; silent when all present).
set -euo pipefail

packages=(
  cmake ninja-build ccache lld g++ python3 python3-numpy python3-venv python3-pip pkg-config
  llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools
  libomp-22-dev libpcre2-dev libicu72
  clang-22 libclang-rt-22-dev  # scripts/fuzz.sh: libFuzzer with ASan + UBSan
)

# The CUDA target needs NVIDIA's toolkit (ptxas for cubins, libdevice for
# math functions; not a Debian package); llmc looks for it at
# LLMC_CUDA_TOOLKIT_DIR (CMake), /usr/local/cuda by default. Building and the
# CPU target do not need it, so this only warns.
if [ ! -x /usr/local/cuda/bin/ptxas ]; then
  echo "setup: warning: no CUDA toolkit at /usr/local/cuda (ptxas, nvvm/libdevice):" \
    "llmc's CUDA target and its tests need one (NVIDIA's cuda-toolkit packages)" >&2
fi

missing=()
for pkg in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$pkg")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "setup: installing ${missing[*]}"
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
