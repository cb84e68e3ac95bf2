//! The `magnitude_f32` kernel: the root of the sum of squares of two or three `f32` arrays, as
//! scipy's `gaussian_gradient_magnitude` combines its terms (not a convolution).

/// The entry point.
pub const ENTRY: &str = "magnitude_f32";

/// Threads per block.
pub const BLOCK: u32 = 256;

/// Samples a thread takes a step: one 16-byte vector of each array.
pub const PER_THREAD: u32 = 4;

/// Blocks of a launch over `len` samples: one group of [`PER_THREAD`] samples a thread, at most
/// 2^20 blocks (the threads then step over the rest).
#[cfg(not(target_arch = "nvptx64"))]
pub fn grid(len: u64) -> u32 {
    let groups = len.div_ceil(u64::from(PER_THREAD));
    groups.div_ceil(u64::from(BLOCK)).clamp(1, 1 << 20) as u32
}

#[cfg(target_arch = "nvptx64")]
use {
    crate::device::thread::{block_dim_x, index_1d},
    crate::device::{F32x4, root_of_squares},
    kernel_macros::kernel,
};

#[cfg(target_arch = "nvptx64")]
/// `out[i] = √(a[i]² + b[i]² + c[i]²)` (`c`'s term only where `c` is not null), each square,
/// sum and root rounded to nearest in `f32` in that order (`mul.rn`, `add.rn`, `sqrt.rn`: no
/// fused multiply-add), so the result is numpy's `np.sqrt(a * a + b * b + c * c)` bit for bit.
///
/// # Thread mapping
/// Thread `t` of the grid's `T` takes the groups of [`PER_THREAD`] samples `t`, `t + T`, ...:
/// one 16-byte load of each array and one store a group; a last partial group sample by sample.
///
/// # Safety
/// `a`, `b` (and `c` where not null) hold `len` readable `f32` and `out` `len` writable ones,
/// each 16-byte aligned; `out` may be one of the inputs (each sample is read before it is
/// written, by the same thread) but no other overlap.
#[kernel]
pub unsafe fn magnitude_f32(a: *const f32, b: *const f32, c: *const f32, out: *mut f32, len: u64) {
    let step = u64::from(block_dim_x()) * u64::from(grid_dim_x()) * u64::from(PER_THREAD);
    let mut at = u64::from(index_1d()) * u64::from(PER_THREAD);
    let third = !c.is_null();
    while at < len {
        let i = at as usize;
        if at + u64::from(PER_THREAD) <= len {
            // SAFETY: 4 samples inside every array, 16-byte aligned (the arrays are, and `at` is
            // a multiple of 4).
            let (x, y) = unsafe { (*a.add(i).cast::<F32x4>(), *b.add(i).cast::<F32x4>()) };
            let z = if third {
                // SAFETY: as above; `c` is not null.
                unsafe { *c.add(i).cast::<F32x4>() }
            } else {
                F32x4([0.0; 4])
            };
            let mut v = [0.0f32; 4];
            for (o, v) in v.iter_mut().enumerate() {
                *v = root_of_squares(x.0[o], y.0[o], z.0[o]);
            }
            // SAFETY: as above, in `out`.
            unsafe { *out.add(i).cast::<F32x4>() = F32x4(v) };
        } else {
            for j in i..len as usize {
                // SAFETY: sample j < len of every array.
                unsafe {
                    let z = if third { *c.add(j) } else { 0.0 };
                    *out.add(j) = root_of_squares(*a.add(j), *b.add(j), z);
                }
            }
        }
        at += step;
    }
}

#[cfg(target_arch = "nvptx64")]
/// `gridDim.x`.
#[inline(always)]
fn grid_dim_x() -> u32 {
    let n: u32;
    // SAFETY: reading a special register has no preconditions.
    unsafe { core::arch::asm!("mov.u32 {n}, %nctaid.x;", n = out(reg32) n, options(nostack, nomem, pure)) };
    n
}
