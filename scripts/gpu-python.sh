#!/usr/bin/env bash
# On the GPU machine: builds the Python module for Hopper and runs python/tests (the CPU tests,
# then the same with CuPy arrays on the GPU, and the README and examples/ scripts on the GPU).
# Needs .deps/debs (see README, "On the GPU machine") and python3 with numpy, scipy, pytest,
# pybind11 and cupy. Logs under $OUT (default /tmp/out).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/gpu-env.sh
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version --format=csr,noheader | tee "$OUT/gpu.txt"
python3 -c "import sys, numpy, scipy, pytest, pybind11, cupy; print(sys.version.split()[0], \
'numpy', numpy.__version__, 'scipy', scipy.__version__, 'cupy', cupy.__version__)" \
  | tee "$OUT/python.txt"
GPU_BUILD_LOG=$OUT/build-python.log gpu_build build-python "-DSPMVKIT_TESTS=OFF" spmvkit_python
# test_pip_install reuses this build; pip's --no-build-isolation needs setuptools and wheel.
if python3 -c "import pip, setuptools, wheel" 2>/dev/null; then
  export SPMVKIT_BUILD_DIR=$PWD/build-python
else
  echo "pip, setuptools or wheel missing: test_pip_install skips" | tee -a "$OUT/python.txt"
fi
status=0
PYTHONPATH=$PWD/build-python/python SPMVKIT_SOURCE_DIR=$PWD \
  python3 -m pytest -rs -p no:cacheprovider --junitxml="$OUT/python-tests.xml" python/tests \
  2>&1 | tee "$OUT/python-tests.log" || status=$?
PYTHONPATH=$PWD/build-python/python python3 examples/python_solve.py 300 --backend cuda \
  2>&1 | tee "$OUT/python-example.log" || status=1
exit "$status"
