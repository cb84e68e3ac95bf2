//! A small device-side API so kernels read like the textbook: indices, barrier, shared tile, taps.

use core::arch::nvptx;

/// `threadIdx.x`.
#[inline(always)]
pub fn thread_x() -> u32 {
    // SAFETY: reading a special register has no preconditions.
    unsafe { nvptx::_thread_idx_x() }
}

/// `threadIdx.y`.
#[inline(always)]
pub fn thread_y() -> u32 {
    // SAFETY: reading a special register has no preconditions.
    unsafe { nvptx::_thread_idx_y() }
}

/// `blockIdx.x`.
#[inline(always)]
pub fn block_x() -> u32 {
    // SAFETY: reading a special register has no preconditions.
    unsafe { nvptx::_block_idx_x() }
}

/// `blockIdx.y`.
#[inline(always)]
pub fn block_y() -> u32 {
    // SAFETY: reading a special register has no preconditions.
    unsafe { nvptx::_block_idx_y() }
}

/// `blockDim.x`.
#[inline(always)]
pub fn block_dim_x() -> u32 {
    // SAFETY: reading a special register has no preconditions.
    unsafe { nvptx::_block_dim_x() }
}

/// `blockDim.y`.
#[inline(always)]
pub fn block_dim_y() -> u32 {
    // SAFETY: reading a special register has no preconditions.
    unsafe { nvptx::_block_dim_y() }
}

/// The global `(x, y)` of this thread: `blockIdx * blockDim + threadIdx` on both axes.
#[inline(always)]
pub fn global_xy() -> (u32, u32) {
    (
        block_x() * block_dim_x() + thread_x(),
        block_y() * block_dim_y() + thread_y(),
    )
}

/// `__syncthreads()`: every thread of the block must reach it.
#[inline(always)]
pub fn sync_threads() {
    // SAFETY: callers only call this from control flow that all threads of the block reach.
    unsafe { nvptx::_syncthreads() }
}

/// The block's dynamic shared memory (`extern __shared__`), sized by the host at launch.
#[inline(always)]
pub fn shared_tile() -> *mut f32 {
    core::intrinsics::gpu::gpu_launch_sized_workgroup_mem::<f32>()
}

/// Fused multiply-add `a * b + c` with one rounding (`fma.rn.f32`).
#[inline(always)]
pub fn fma(a: f32, b: f32, c: f32) -> f32 {
    core::intrinsics::fmaf32(a, b, c)
}

/// Filter taps read straight from a by-value kernel parameter, i.e. from the constant bank.
///
/// Indexing a by-value array parameter with a run-time index makes LLVM copy the whole array to
/// per-thread local memory first. Taking the parameter's address (`mov.b64 %r, kernel_param_N`)
/// and loading through it with `ld.param` keeps every read in the constant bank instead.
/// Build one with [`param_taps!`] inside the kernel body.
#[derive(Clone, Copy)]
pub struct ParamTaps {
    base: u64,
}

impl ParamTaps {
    /// Wraps the `.param`-space address of a taps parameter.
    ///
    /// # Safety
    /// `base` must be the address of a `Taps` kernel parameter of the running kernel.
    #[inline(always)]
    pub unsafe fn from_param_address(base: u64) -> Self {
        Self { base }
    }

    /// Tap number `index` (row-major); `index` must be below `MAX_TAPS`.
    #[inline(always)]
    pub fn get(self, index: u32) -> f32 {
        let value: f32;
        // SAFETY: `base` addresses a Taps parameter of `MAX_TAPS` f32 values (see `from_param_address`)
        // and every caller keeps `index` below `k * k <= MAX_TAPS`.
        unsafe {
            core::arch::asm!(
                "ld.param.f32 {v}, [{a}];",
                v = out(reg32) value,
                a = in(reg64) self.base + 4 * index as u64,
                options(pure, readonly, nostack),
            );
        }
        value
    }
}

/// `param_taps!(kernel_name, N)`: the [`ParamTaps`] of parameter number `N` (counting from 0) of
/// the kernel `kernel_name`. Must be used in that kernel's own body, since PTX names parameters
/// `<kernel>_param_<N>` only there.
macro_rules! param_taps {
    ($kernel:ident, $index:literal) => {{
        let base: u64;
        // SAFETY: only takes the address of a parameter of the enclosing kernel.
        unsafe {
            core::arch::asm!(
                concat!("mov.b64 {b}, ", stringify!($kernel), "_param_", stringify!($index), ";"),
                b = out(reg64) base,
                options(pure, nomem, nostack),
            );
            $crate::device::ParamTaps::from_param_address(base)
        }
    }};
}

/// The zero-border correlation at `(x, y)` read straight from global memory, with taps from `tap`.
/// Shared by the one-thread-per-pixel kernels, which differ only in where the taps live.
///
/// # Safety
/// `input` must point to `width * height` readable `f32`, and `(x, y)` must lie inside the image.
#[inline(always)]
pub unsafe fn correlate_global(
    input: *const f32,
    width: u32,
    height: u32,
    x: u32,
    y: u32,
    radius: u32,
    tap: impl Fn(u32) -> f32,
) -> f32 {
    let k = 2 * radius + 1;
    let mut acc = 0.0f32;
    for i in 0..k {
        // Unsigned wrap-around makes rows above the image huge, so one compare rejects both edges.
        let yy = (y + i).wrapping_sub(radius);
        if yy >= height {
            continue;
        }
        let row = input.wrapping_add(yy as usize * width as usize);
        for j in 0..k {
            let xx = (x + j).wrapping_sub(radius);
            if xx < width {
                // SAFETY: (xx, yy) is inside the image, so the read is in bounds.
                acc = fma(unsafe { *row.add(xx as usize) }, tap(i * k + j), acc);
            }
        }
    }
    acc
}
