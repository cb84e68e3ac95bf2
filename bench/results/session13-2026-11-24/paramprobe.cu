// Launch cost against kernel-parameter size: the same trivial kernel (one block writes a word)
// with 16 B, 100 B, 196 B, 324 B and 1156 B of by-value taps, launched back to back behind a
// GPU-side wait, each launch between its own event pair (as host bench and peers.cu time), median.
#include <cstdio>
#include <vector>
#include <algorithm>
template <int N> struct Taps { float v[N]; };
template <int N> __global__ void k(float* out, Taps<N> t) { if (threadIdx.x == 0) out[blockIdx.x] = t.v[N - 1]; }
__global__ void k_conv_like(float* out, int a, int b) { if (threadIdx.x == 0) out[blockIdx.x] = a + b; }
__global__ void spin(long long ns) { long long t0 = clock64(); while (clock64() - t0 < ns) {} }
template <class F> float med(F launch) {
  for (int i = 0; i < 5; ++i) launch();
  const int reps = 50; std::vector<cudaEvent_t> ev(2 * reps); for (auto& e : ev) cudaEventCreate(&e);
  spin<<<1, 1>>>(3000000);
  for (int i = 0; i < reps; ++i) { cudaEventRecord(ev[2 * i]); launch(); cudaEventRecord(ev[2 * i + 1]); }
  cudaEventSynchronize(ev.back());
  std::vector<float> t; for (int i = 0; i < reps; ++i) { float ms; cudaEventElapsedTime(&ms, ev[2 * i], ev[2 * i + 1]); t.push_back(ms * 1000); }
  for (auto& e : ev) cudaEventDestroy(e);
  std::sort(t.begin(), t.end()); return t[reps / 2];
}
int main() {
  float* d; cudaMalloc(&d, 1 << 20);
  for (int grid : {1, 512}) {
    printf("grid %d: small params %.2f us", grid, med([&] { k_conv_like<<<grid, 256>>>(d, 1, 2); }));
    printf(" | taps 16 B %.2f", med([&] { k<4><<<grid, 256>>>(d, Taps<4>{}); }));
    printf(" | 100 B %.2f", med([&] { k<25><<<grid, 256>>>(d, Taps<25>{}); }));
    printf(" | 196 B %.2f", med([&] { k<49><<<grid, 256>>>(d, Taps<49>{}); }));
    printf(" | 324 B %.2f", med([&] { k<81><<<grid, 256>>>(d, Taps<81>{}); }));
    printf(" | 1156 B %.2f", med([&] { k<289><<<grid, 256>>>(d, Taps<289>{}); }));
    printf(" | 3844 B %.2f\n", med([&] { k<961><<<grid, 256>>>(d, Taps<961>{}); }));
  }
  return 0;
}
