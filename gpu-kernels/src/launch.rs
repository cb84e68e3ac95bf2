//! Launch geometry and kernel-parameter layout shared by the kernels and the host.

/// Largest filter radius any kernel accepts (filter size `2 * MAX_RADIUS + 1` = 31).
pub const MAX_RADIUS: u32 = 15;
/// Largest filter side length.
pub const MAX_FILTER_SIZE: u32 = 2 * MAX_RADIUS + 1;
/// Number of taps the by-value filter parameter holds.
pub const MAX_TAPS: usize = (MAX_FILTER_SIZE * MAX_FILTER_SIZE) as usize;

/// Block shape of the one-thread-per-output-pixel kernels (`naive`, `constant`): 32 threads along a
/// row so a warp reads 128 contiguous bytes, 8 rows per block (256 threads).
pub const PIXEL_BLOCK: (u32, u32) = (32, 8);

/// Side of the square input tile (and thread block) of the `tiled` kernel: 32 × 32 = 1024 threads.
/// Each block produces an output tile of `TILED_IN - 2r` squared pixels.
pub const TILED_IN: u32 = 32;

/// Side of the output tile the `tiled` kernel computes for a given radius.
pub const fn tiled_out(radius: u32) -> u32 {
    TILED_IN - 2 * radius
}

/// Dynamic shared memory, in bytes, the `tiled` kernel needs: one `f32` per thread of the block.
pub const TILED_SHARED_BYTES: u32 = TILED_IN * TILED_IN * 4;

/// The filter taps passed by value as a kernel parameter. Kernel parameters live in the GPU's
/// constant bank, so every thread of a warp reading the same tap is one broadcast, which is what
/// CUDA's `__constant__` memory gives. The first `k * k` entries hold the `k × k` filter row-major.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Taps(pub [f32; MAX_TAPS]);

/// Entry-point names as they appear in the PTX.
pub mod names {
    /// Filter and input both read from global memory.
    pub const NAIVE: &str = "conv_naive";
    /// Filter in the constant bank, input from global memory.
    pub const CONSTANT: &str = "conv_constant";
    /// Input tile (output tile + halo) in shared memory, filter in the constant bank.
    pub const TILED: &str = "conv_tiled";
    /// Every kernel, in the order the host lists them.
    pub const ALL: [&str; 3] = [NAIVE, CONSTANT, TILED];
}
