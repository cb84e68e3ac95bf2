//! The `fma_probe` kernel: measures the GPU's FP32 fused multiply-add rate for the benchmark.

/// The entry point (not a convolution).
pub const ENTRY: &str = "fma_probe";

#[cfg(target_arch = "nvptx64")]
use {crate::device::fma, crate::device::thread::index_1d, kernel_macros::kernel};

#[cfg(target_arch = "nvptx64")]
/// Each thread runs 8 independent FMA chains of `iters` steps (enough independent work to hide
/// the FMA latency) and stores their sum so nothing can be optimized away. The benchmark divides
/// `2 · 8 · iters · threads` flops by the kernel time to get the peak it compares kernels against.
///
/// # Thread mapping
/// One 1D thread per output element; `out` has one `f32` per thread of the grid.
///
/// # Safety
/// `out` holds `gridDim.x · blockDim.x` writable `f32`.
#[kernel]
pub unsafe fn fma_probe(out: *mut f32, iters: u32, seed: f32) {
    let i = index_1d();
    let mut a = [0.0f32; 8];
    for (j, v) in a.iter_mut().enumerate() {
        *v = seed + (i as f32) * 1e-7 + j as f32;
    }
    // 8 steps of 8 chains per trip: 64 FMAs per loop branch, so loop overhead stays under 2%.
    for _ in 0..iters / 8 {
        for _ in 0..8 {
            for v in a.iter_mut() {
                *v = fma(*v, 0.999_9, 1e-4);
            }
        }
    }
    // SAFETY: one element per thread (see above).
    unsafe { *out.add(i as usize) = a.iter().sum() };
}
