# Sourced by the GPU-machine scripts, from the repository root: unpacks the carried .debs of
# .deps/debs/ (CLI11, nlohmann-json) for CMake and points the tests at .deps/matrices/.
mkdir -p /tmp/deps
for f in .deps/debs/*.deb; do dpkg -x "$f" /tmp/deps; done
export CMAKE_PREFIX_PATH=/tmp/deps/usr${CMAKE_PREFIX_PATH:+:$CMAKE_PREFIX_PATH}
export SPMVKIT_MATRICES=$PWD/.deps/matrices
