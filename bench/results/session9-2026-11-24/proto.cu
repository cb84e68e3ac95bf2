// Prototype of session 9 (device run 7; run 1 timed 20 launches between one event pair and also ran an f32 version): warp-streaming 2D convolution of 8-bit images (rows in registers, no shared memory). Builds only with a copy of shared/peers/peers.cu beside it (kept out of the repository), in target/proto: nvcc -O3 -arch=sm_90 -std=c++17 -o proto proto.cu
#define PEERS_KERNELS_ONLY
#include "peers.cu"
#define CK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { fprintf(stderr, "CUDA error %s at line %d\n", cudaGetErrorString(e_), __LINE__); exit(1); } } while (0)
static inline uint64_t splitmix64(uint64_t& s) { uint64_t z = (s += 0x9E3779B97F4A7C15ull); z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull; z = (z ^ (z >> 27)) * 0x94D049BB133111EBull; return z ^ (z >> 31); }
static inline float urand(uint64_t& s) { return (float)(splitmix64(s) >> 40) * (1.0f / 16777216.0f); }

__device__ __forceinline__ float b2f(uint32_t w, int i) {
    return __uint_as_float(__byte_perm(w, 0x4B000000u, 0x7540 + i)) - 8388608.f;
}

// u8: lane = 8 px (one 8-byte load per row), warp = 256 px; BW warps side by side per block;
// each warp streams HH output rows.
template <int R, int HH, int BW>
__global__ void __launch_bounds__(32 * BW) k_stream_u8(const uint8_t* __restrict__ in, uint8_t* __restrict__ out, int W, int H)
{
    constexpr int K = 2 * R + 1;
    constexpr int NV = 8 + 2 * R;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int x = ((blockIdx.x * BW + warp) * 32 + lane) * 8;
    const int y0 = blockIdx.y * HH;
    const bool xin = x < W;
    const int hx = lane == 0 ? x - 4 : x + 8;
    const bool hok = (lane == 0 || lane == 31) && hx >= 0 && hx + 4 <= W;
    float acc[K][8];
#pragma unroll
    for (int a = 0; a < K; ++a)
#pragma unroll
        for (int p = 0; p < 8; ++p) acc[a][p] = 0.f;
#pragma unroll
    for (int r = 0; r < HH + 2 * R; ++r) {
        const int iy = y0 - R + r;
        uint2 v = make_uint2(0, 0);
        uint32_t h = 0;
        if (iy >= 0 && iy < H) {
            const uint8_t* row = in + (size_t)iy * W;
            if (xin) v = __ldg(reinterpret_cast<const uint2*>(row + x));
            if (hok) h = __ldg(reinterpret_cast<const uint32_t*>(row + hx));
        }
        uint32_t left = __shfl_up_sync(0xffffffffu, v.y, 1);
        uint32_t right = __shfl_down_sync(0xffffffffu, v.x, 1);
        if (lane == 0) left = h;
        if (lane == 31) right = h;
        float f[NV];
#pragma unroll
        for (int i = 0; i < R; ++i) f[i] = b2f(left, 4 - R + i);
#pragma unroll
        for (int i = 0; i < 4; ++i) { f[R + i] = b2f(v.x, i); f[R + 4 + i] = b2f(v.y, i); }
#pragma unroll
        for (int i = 0; i < R; ++i) f[R + 8 + i] = b2f(right, i);
#pragma unroll
        for (int i = 0; i < K; ++i) {  // filter row i feeds output row r - i
            const int o = r - i;
            if (o >= 0 && o < HH) {
#pragma unroll
                for (int j = 0; j < K; ++j) {
                    const float w = c_filt[i * K + j];
#pragma unroll
                    for (int p = 0; p < 8; ++p) acc[o % K][p] = fmaf(w, f[p + j], acc[o % K][p]);
                }
                if (i == K - 1) {
                    const int oy = y0 + o;
                    uint32_t b[8];
#pragma unroll
                    for (int p = 0; p < 8; ++p) {
                        b[p] = __float_as_uint(fmaf(__saturatef(acc[o % K][p] * (1.f / 255.f)), 255.f, 12582912.f));
                        acc[o % K][p] = 0.f;
                    }
                    if (oy < H && xin) {
                        uint2 w2;
                        w2.x = __byte_perm(__byte_perm(b[0], b[1], 0x0040), __byte_perm(b[2], b[3], 0x0040), 0x5410);
                        w2.y = __byte_perm(__byte_perm(b[4], b[5], 0x0040), __byte_perm(b[6], b[7], 0x0040), 0x5410);
                        *reinterpret_cast<uint2*>(out + (size_t)oy * W + x) = w2;
                    }
                }
            }
        }
    }
}

// f32: lane = 4 px (float4), warp = 128 px.
template <int R, int HH, int BW>
__global__ void __launch_bounds__(32 * BW) k_stream_f32(const float* __restrict__ in, float* __restrict__ out, int W, int H)
{
    constexpr int K = 2 * R + 1;
    constexpr int NV = 4 + 2 * R;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int x = ((blockIdx.x * BW + warp) * 32 + lane) * 4;
    const int y0 = blockIdx.y * HH;
    const bool xin = x < W;
    const int hx = lane == 0 ? x - 4 : x + 4;
    const bool hok = (lane == 0 || lane == 31) && hx >= 0 && hx + 4 <= W;
    float acc[K][4];
#pragma unroll
    for (int a = 0; a < K; ++a)
#pragma unroll
        for (int p = 0; p < 4; ++p) acc[a][p] = 0.f;
#pragma unroll
    for (int r = 0; r < HH + 2 * R; ++r) {
        const int iy = y0 - R + r;
        float4 v = make_float4(0, 0, 0, 0), h = v;
        if (iy >= 0 && iy < H) {
            const float* row = in + (size_t)iy * W;
            if (xin) v = __ldg(reinterpret_cast<const float4*>(row + x));
            if (hok) h = __ldg(reinterpret_cast<const float4*>(row + hx));
        }
        float c[4] = {v.x, v.y, v.z, v.w};
        float hh[4] = {h.x, h.y, h.z, h.w};
        float f[NV];
#pragma unroll
        for (int i = 0; i < R; ++i) {
            float l = __shfl_up_sync(0xffffffffu, c[4 - R + i], 1);
            f[i] = lane == 0 ? hh[4 - R + i] : l;
            float rr = __shfl_down_sync(0xffffffffu, c[i], 1);
            f[R + 4 + i] = lane == 31 ? hh[i] : rr;
        }
#pragma unroll
        for (int i = 0; i < 4; ++i) f[R + i] = c[i];
#pragma unroll
        for (int i = 0; i < K; ++i) {
            const int o = r - i;
            if (o >= 0 && o < HH) {
#pragma unroll
                for (int j = 0; j < K; ++j) {
                    const float w = c_filt[i * K + j];
#pragma unroll
                    for (int p = 0; p < 4; ++p) acc[o % K][p] = fmaf(w, f[p + j], acc[o % K][p]);
                }
                if (i == K - 1) {
                    const int oy = y0 + o;
                    if (oy < H && xin)
                        *reinterpret_cast<float4*>(out + (size_t)oy * W + x) = make_float4(acc[o % K][0], acc[o % K][1], acc[o % K][2], acc[o % K][3]);
#pragma unroll
                    for (int p = 0; p < 4; ++p) acc[o % K][p] = 0.f;
                }
            }
        }
    }
}

__global__ void k_spin(long long ns) { long long t0 = clock64(); while (clock64() - t0 < ns) {} }

template <class F>
static float time_ms(F launch) {
    for (int i = 0; i < 3; ++i) launch();
    const int reps = 20;
    std::vector<cudaEvent_t> ev(2 * reps);
    for (auto& e : ev) cudaEventCreate(&e);
    k_spin<<<1, 1>>>(2000000);
    for (int i = 0; i < reps; ++i) { cudaEventRecord(ev[2 * i]); launch(); cudaEventRecord(ev[2 * i + 1]); }
    cudaEventSynchronize(ev.back());
    std::vector<float> ts;
    for (int i = 0; i < reps; ++i) { float ms; cudaEventElapsedTime(&ms, ev[2 * i], ev[2 * i + 1]); ts.push_back(ms); }
    for (auto& e : ev) cudaEventDestroy(e);
    std::sort(ts.begin(), ts.end());
    CK(cudaGetLastError());
    return ts[ts.size() / 2];
}

static std::vector<float> filt(int K) {
    std::vector<float> f(K * K); uint64_t s = 7;
    double sum = 0; for (auto& x : f) { x = urand(s) + 0.1f; sum += x; }
    for (auto& x : f) x = (float)(x / sum);
    return f;
}

template <int R, int HH, int BW>
static void run_u8(int N, const uint8_t* din, uint8_t* dout, const std::vector<uint8_t>& hin) {
    constexpr int K = 2 * R + 1;
    auto f = filt(K);
    CK(cudaMemcpyToSymbol(c_filt, f.data(), K * K * 4));
    dim3 grid((N + 256 * BW - 1) / (256 * BW), (N + HH - 1) / HH);
    CK(cudaMemset(dout, 0xCD, (size_t)N * N));
    k_stream_u8<R, HH, BW><<<grid, 32 * BW>>>(din, dout, N, N);
    CK(cudaDeviceSynchronize());
    std::vector<uint8_t> o((size_t)N * N); CK(cudaMemcpy(o.data(), dout, o.size(), cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int y : {0, 1, N / 2, N - 1}) for (int x = 0; x < N; ++x) {
        double acc = 0;
        for (int i = 0; i < K; ++i) for (int j = 0; j < K; ++j) {
            int yy = y + i - R, xx = x + j - R;
            if (yy >= 0 && yy < N && xx >= 0 && xx < N) acc += f[i * K + j] * (hin[(size_t)yy * N + xx] / 255.0);
        }
        double e = std::min(255.0, std::max(0.0, acc * 255)); int ref = (int)std::nearbyint(e);
        if (std::abs(ref - (int)o[(size_t)y * N + x]) > 1) { if (bad < 3) printf("  bad u8 (%d,%d) got %d want %d\n", x, y, o[(size_t)y*N+x], ref); ++bad; }
    }
    float ms = time_ms([&] { k_stream_u8<R, HH, BW><<<grid, 32 * BW>>>(din, dout, N, N); });
    printf("stream_u8,%d,%d,%d,HH=%d,BW=%d,%.5f,%s\n", N, N, K, HH, BW, ms, bad ? "BAD" : "ok");
}

template <int R, int HH, int BW>
static void run_f32(int N, const float* din, float* dout, const std::vector<float>& hin) {
    constexpr int K = 2 * R + 1;
    auto f = filt(K);
    CK(cudaMemcpyToSymbol(c_filt, f.data(), K * K * 4));
    dim3 grid((N + 128 * BW - 1) / (128 * BW), (N + HH - 1) / HH);
    CK(cudaMemset(dout, 0xCD, (size_t)N * N * 4));
    k_stream_f32<R, HH, BW><<<grid, 32 * BW>>>(din, dout, N, N);
    CK(cudaDeviceSynchronize());
    std::vector<float> o((size_t)N * N); CK(cudaMemcpy(o.data(), dout, o.size() * 4, cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int y : {0, 1, N / 2, N - 1}) for (int x = 0; x < N; ++x) {
        double acc = 0;
        for (int i = 0; i < K; ++i) for (int j = 0; j < K; ++j) {
            int yy = y + i - R, xx = x + j - R;
            if (yy >= 0 && yy < N && xx >= 0 && xx < N) acc += f[i * K + j] * hin[(size_t)yy * N + xx];
        }
        if (!(std::fabs(acc - o[(size_t)y * N + x]) < 1e-4)) { if (bad < 3) printf("  bad f32 (%d,%d) got %g want %g\n", x, y, o[(size_t)y*N+x], acc); ++bad; }
    }
    float ms = time_ms([&] { k_stream_f32<R, HH, BW><<<grid, 32 * BW>>>(din, dout, N, N); });
    float ms4 = 0, ms2 = 0;
    {
        dim3 g4((N + 127) / 128, (N + 31) / 32), g2((N + 127) / 128, (N + 15) / 16);
        ms4 = time_ms([&] { k_fast<R, 4, 4, 8><<<g4, 256>>>(din, dout, N, N); });
        ms2 = time_ms([&] { k_fast<R, 4, 2, 8><<<g2, 256>>>(din, dout, N, N); });
    }
    printf("stream_f32,%d,%d,%d,HH=%d,BW=%d,%.5f,%s,g_fast44 %.5f,g_fast42 %.5f,ratio %.3f\n", N, N, K, HH, BW, ms, bad ? "BAD" : "ok", ms4, ms2, ms / std::min(ms4, ms2));
}

int main() {
    const int NMAX = 8192;
    std::vector<uint8_t> hb((size_t)NMAX * NMAX);
    uint64_t s = 1; for (size_t i = 0; i < hb.size(); ++i) hb[i] = (uint8_t)(splitmix64(s) >> 56);
    uint8_t *bi, *bo;
    CK(cudaMalloc(&bi, hb.size())); CK(cudaMalloc(&bo, hb.size()));
    for (int N : {8192, 2048}) {
        std::vector<uint8_t> sb((size_t)N * N); for (size_t i = 0; i < sb.size(); ++i) sb[i] = hb[i];
        CK(cudaMemcpy(bi, sb.data(), sb.size(), cudaMemcpyHostToDevice));
        float copyms = time_ms([&] { k_copy<<<1024, 256>>>(reinterpret_cast<const float4*>(bi), reinterpret_cast<float4*>(bo), N * N / 16); });
        float copy2 = time_ms([&] { k_copy<<<(N * N / 16 + 255) / 256, 256>>>(reinterpret_cast<const float4*>(bi), reinterpret_cast<float4*>(bo), N * N / 16); });
        printf("copy_u8,%d,%.5f,%.5f\n", N, copyms, copy2);
        run_u8<1, 16, 4>(N, bi, bo, sb); run_u8<1, 24, 4>(N, bi, bo, sb); run_u8<1, 32, 4>(N, bi, bo, sb);
        run_u8<1, 16, 8>(N, bi, bo, sb); run_u8<1, 8, 4>(N, bi, bo, sb); run_u8<1, 16, 2>(N, bi, bo, sb);
        run_u8<2, 16, 4>(N, bi, bo, sb); run_u8<2, 8, 4>(N, bi, bo, sb);
    }
    return 0;
}
