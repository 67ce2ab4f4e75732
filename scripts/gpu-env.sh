# Sourced by the GPU-machine scripts, from the repository root: unpacks the carried .debs of
# .deps/debs/ (CLI11, nlohmann-json) for CMake and points the tests at .deps/matrices/.
mkdir -p /tmp/deps
for f in .deps/debs/*.deb; do dpkg -x "$f" /tmp/deps; done
export CMAKE_PREFIX_PATH=/tmp/deps/usr${CMAKE_PREFIX_PATH:+:$CMAKE_PREFIX_PATH}
export SPMVKIT_MATRICES=$PWD/.deps/matrices

# gpu_build DIR "EXTRA_CMAKE_ARGS" [TARGET ...]: configure and build for Hopper into DIR (all
# targets when none is named), the log in $GPU_BUILD_LOG (default /tmp/DIR.log); on failure
# prints the errors and returns 1.
gpu_build() {
  local dir=$1 extra=$2 t0 log
  shift 2
  t0=$(date +%s)
  log=${GPU_BUILD_LOG:-/tmp/$dir.log}
  # shellcheck disable=SC2086  # extra holds several arguments
  { cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DSPMVKIT_CUDA=ON \
      -DSPMVKIT_CUDA_ARCHS=90 $extra &&
    cmake --build "$dir" -j "$(nproc)" ${1:+--target "$@"}; } > "$log" 2>&1 ||
    { grep -E 'error|FAILED' "$log" | head -30; return 1; }
  echo "build $dir: $(( $(date +%s) - t0 ))s"
}
