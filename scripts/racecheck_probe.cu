// A shared-memory race on purpose: scripts/gpu-sanitize.sh runs racecheck on it first, to show
// that the tool reports races in this environment (it reports nothing in a program that holds
// a dynamic-parallelism launch). WITH_DP adds one.
#include <cstdio>
__global__ void racy(int* out) {
  __shared__ int s[64];
  s[threadIdx.x % 64] = threadIdx.x;  // 128 threads, two writers per slot, no barrier
  out[threadIdx.x] = s[(threadIdx.x + 1) % 64];
}
#ifdef WITH_DP
__global__ void child(int* out) { out[0] = 1; }
__global__ void parent(int* out) { if (threadIdx.x == 0) child<<<1, 1>>>(out); }
#endif
int main() {
  int* out;
  cudaMalloc(&out, 128 * sizeof(int));
  racy<<<1, 128>>>(out);
#ifdef WITH_DP
  parent<<<1, 32>>>(out);
#endif
  cudaDeviceSynchronize();
  printf("done: %s\n", cudaGetErrorString(cudaGetLastError()));
  return 0;
}
