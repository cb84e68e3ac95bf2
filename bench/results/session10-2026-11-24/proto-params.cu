// Session 10 prototype (device run 1): does a large parameter block (taps by value, as the Rust kernels take them) cost launch time? Build in target/proto10 beside a copy of shared/peers/peers.cu: nvcc -O3 -arch=sm_90 -std=c++17 -o p10 proto-params.cu
#define PEERS_KERNELS_ONLY
#include "peers.cu"
#include <algorithm>
#include <vector>
#define CK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { fprintf(stderr, "CUDA error %s at line %d\n", cudaGetErrorString(e_), __LINE__); exit(1); } } while (0)
static inline uint64_t splitmix64(uint64_t& s) { uint64_t z = (s += 0x9E3779B97F4A7C15ull); z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull; z = (z ^ (z >> 27)) * 0x94D049BB133111EBull; return z ^ (z >> 31); }
struct Taps { float t[81]; int pad[20]; };
template <int R, int PX, int PY, int BY>
__global__ void __launch_bounds__(32 * BY) k_fast_p(const float* __restrict__ in, float* __restrict__ out, int W, int H, const Taps taps)
{
    constexpr int K = 2 * R + 1; constexpr int RA = (R + 3) & ~3;
    constexpr int TW = 32 * PX, TH = BY * PY; constexpr int SW = TW + 2 * RA, SH = TH + 2 * R;
    constexpr int SW4 = SW / 4, N4 = SH * SW4; constexpr int NT = 32 * BY, NB = (N4 + NT - 1) / NT; constexpr int NV = PX + 2 * RA;
    __shared__ float4 s4[N4]; const float* s = reinterpret_cast<const float*>(s4);
    const int tid = threadIdx.y * 32 + threadIdx.x; const int x0 = blockIdx.x * TW, y0 = blockIdx.y * TH;
    const int W4 = W / 4; const int gx4_0 = (x0 - RA) / 4; const float4* in4 = reinterpret_cast<const float4*>(in);
#pragma unroll
    for (int b = 0; b < NB; ++b) { const int idx = tid + b * NT;
        if (N4 % NT == 0 || idx < N4) { const int sy = idx / SW4, sx4 = idx - sy * SW4; const int gy = y0 - R + sy, gx4 = gx4_0 + sx4;
            float4 v = make_float4(0.f, 0.f, 0.f, 0.f); if (gy >= 0 && gy < H && gx4 >= 0 && gx4 < W4) v = __ldg(in4 + gy * W4 + gx4); s4[idx] = v; } }
    __syncthreads();
    const int cx = threadIdx.x * PX, cy = threadIdx.y * PY; float acc[PY][PX];
#pragma unroll
    for (int oy = 0; oy < PY; ++oy)
#pragma unroll
        for (int p = 0; p < PX; ++p) acc[oy][p] = 0.f;
#pragma unroll
    for (int r = 0; r < PY + 2 * R; ++r) { float v[NV]; const float4* srow = reinterpret_cast<const float4*>(s + (cy + r) * SW + cx);
#pragma unroll
        for (int q = 0; q < NV / 4; ++q) { const float4 t = srow[q]; v[4*q]=t.x; v[4*q+1]=t.y; v[4*q+2]=t.z; v[4*q+3]=t.w; }
#pragma unroll
        for (int oy = 0; oy < PY; ++oy) { const int i = r - oy; if (i >= 0 && i < K) {
#pragma unroll
            for (int j = 0; j < K; ++j) { const float w = taps.t[i * K + j];
#pragma unroll
                for (int p = 0; p < PX; ++p) acc[oy][p] = fmaf(w, v[p + j + RA - R], acc[oy][p]); } } } }
#pragma unroll
    for (int oy = 0; oy < PY; ++oy) { const int gy = y0 + cy + oy; if (gy < H) { float4* orow = reinterpret_cast<float4*>(out + gy * W);
#pragma unroll
        for (int q = 0; q < PX / 4; ++q) { const int gx = x0 + cx + 4 * q; if (gx < W) orow[gx / 4] = make_float4(acc[oy][4*q], acc[oy][4*q+1], acc[oy][4*q+2], acc[oy][4*q+3]); } } }
}
__global__ void k_spin(long long ns) { long long t0 = clock64(); while (clock64() - t0 < ns) {} }
__global__ void k_empty(const Taps t, float* o) { if (t.t[0] == 12345.f) o[0] = 1; }
__global__ void k_empty_small(float* o, int W) { if (W == 12345) o[0] = 1; }
template <class F> static float time_ms(F launch) {
    for (int i = 0; i < 3; ++i) launch();
    const int reps = 30; std::vector<cudaEvent_t> ev(2 * reps); for (auto& e : ev) cudaEventCreate(&e);
    k_spin<<<1, 1>>>(2000000);
    for (int i = 0; i < reps; ++i) { cudaEventRecord(ev[2 * i]); launch(); cudaEventRecord(ev[2 * i + 1]); }
    cudaEventSynchronize(ev.back()); std::vector<float> ts;
    for (int i = 0; i < reps; ++i) { float ms; cudaEventElapsedTime(&ms, ev[2 * i], ev[2 * i + 1]); ts.push_back(ms); }
    for (auto& e : ev) cudaEventDestroy(e); std::sort(ts.begin(), ts.end()); CK(cudaGetLastError()); return ts[ts.size() / 2];
}
template <int R> static void run(int N, const float* din, float* dout, float* dout2) {
    constexpr int K = 2 * R + 1; Taps t{}; for (int i = 0; i < K * K; ++i) t.t[i] = 1.0f / (K * K) + 0.001f * i;
    CK(cudaMemcpyToSymbol(c_filt, t.t, K * K * 4));
    dim3 g4((N + 127) / 128, (N + 31) / 32), g2((N + 127) / 128, (N + 15) / 16);
    k_fast<R, 4, 4, 8><<<g4, dim3(32, 8)>>>(din, dout, N, N); k_fast_p<R, 4, 4, 8><<<g4, dim3(32, 8)>>>(din, dout2, N, N, t);
    CK(cudaDeviceSynchronize()); std::vector<float> a((size_t)N * N), b(a.size());
    CK(cudaMemcpy(a.data(), dout, a.size() * 4, cudaMemcpyDeviceToHost)); CK(cudaMemcpy(b.data(), dout2, b.size() * 4, cudaMemcpyDeviceToHost));
    double md = 0; for (size_t i = 0; i < a.size(); ++i) md = std::max(md, (double)std::fabs(a[i] - b[i]));
    for (int round = 0; round < 2; ++round) {
        float a44 = time_ms([&] { k_fast<R, 4, 4, 8><<<g4, dim3(32, 8)>>>(din, dout, N, N); });
        float p44 = time_ms([&] { k_fast_p<R, 4, 4, 8><<<g4, dim3(32, 8)>>>(din, dout, N, N, t); });
        float a42 = time_ms([&] { k_fast<R, 4, 2, 8><<<g2, dim3(32, 8)>>>(din, dout, N, N); });
        float p42 = time_ms([&] { k_fast_p<R, 4, 2, 8><<<g2, dim3(32, 8)>>>(din, dout, N, N, t); });
        printf("N=%d k=%d g44 %.5f p44 %.5f (%.3f) g42 %.5f p42 %.5f (%.3f) maxdiff %.2g\n", N, K, a44, p44, p44 / a44, a42, p42, p42 / a42, md);
    }
}
int main() {
    const int NMAX = 2048; std::vector<float> h((size_t)NMAX * NMAX); uint64_t s = 1;
    for (auto& x : h) x = (float)(splitmix64(s) >> 40) * (1.0f / 16777216.0f);
    float *bi, *bo, *bo2; CK(cudaMalloc(&bi, h.size() * 4)); CK(cudaMalloc(&bo, h.size() * 4)); CK(cudaMalloc(&bo2, h.size() * 4));
    CK(cudaMemcpy(bi, h.data(), h.size() * 4, cudaMemcpyHostToDevice));
    Taps t{};
    for (int round = 0; round < 2; ++round) {
        float e1 = time_ms([&] { k_empty<<<1024, 256>>>(t, bo); });
        float e2 = time_ms([&] { k_empty_small<<<1024, 256>>>(bo, 7); });
        printf("empty: big params %.5f small %.5f\n", e1, e2);
    }
    for (int N : {1024, 2048}) { run<2>(N, bi, bo, bo2); run<3>(N, bi, bo, bo2); run<4>(N, bi, bo, bo2); }
    return 0;
}
