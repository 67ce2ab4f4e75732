// One deliberate defect for each compute-sanitizer tool: scripts/gpu-sanitize.sh runs each tool
// on its defect first, to show the tool reports in this environment before its silence on our
// tests means anything (racecheck, for one, reports nothing in a program that holds a
// dynamic-parallelism launch). `sanitizer_probes TOOL` runs TOOL's defect:
//   memcheck   a write one past the end of a device allocation
//   racecheck  two shared-memory writers to one slot, no barrier
//   initcheck  a copy to the host of device memory nothing wrote
//   synccheck  __syncthreads() reached by part of a block only
#include <cstdio>
#include <cstring>

__global__ void out_of_bounds(int* out, int n) { out[n] = 1; }

__global__ void racy(int* out) {
  __shared__ int s[64];
  s[threadIdx.x % 64] = threadIdx.x;  // 128 threads, two writers per slot
  out[threadIdx.x] = s[(threadIdx.x + 1) % 64];
}

__global__ void divergent_barrier(int* out) {
  if (threadIdx.x < 16) __syncthreads();  // half the block never reaches it
  out[threadIdx.x] = threadIdx.x;
}

int main(int argc, char** argv) {
  const char* tool = argc > 1 ? argv[1] : "";
  int* out = nullptr;
  cudaMalloc(&out, 128 * sizeof(int));
  if (!std::strcmp(tool, "memcheck")) {
    out_of_bounds<<<1, 1>>>(out, 128);
  } else if (!std::strcmp(tool, "racecheck")) {
    racy<<<1, 128>>>(out);
  } else if (!std::strcmp(tool, "initcheck")) {
    int host[128];
    cudaMemcpy(host, out, sizeof host, cudaMemcpyDeviceToHost);
  } else if (!std::strcmp(tool, "synccheck")) {
    divergent_barrier<<<1, 64>>>(out);
  } else {
    std::fprintf(stderr, "usage: sanitizer_probes memcheck|racecheck|initcheck|synccheck\n");
    return 2;
  }
  cudaDeviceSynchronize();
  std::printf("done: %s\n", cudaGetErrorString(cudaGetLastError()));
  return 0;
}
