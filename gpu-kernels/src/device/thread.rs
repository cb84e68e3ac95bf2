//! The CUDA thread hierarchy as `cuda_std::thread` names it: thread and block indices, block size,
//! a thread's global index, the block barrier, and the global timer.

use core::arch::nvptx;

/// `threadIdx.x`: this thread's column in its block.
#[inline(always)]
pub fn thread_idx_x() -> u32 {
    // SAFETY: reading a special register has no preconditions.
    unsafe { nvptx::_thread_idx_x() }
}

/// `threadIdx.y`: this thread's row in its block.
#[inline(always)]
pub fn thread_idx_y() -> u32 {
    // SAFETY: reading a special register has no preconditions.
    unsafe { nvptx::_thread_idx_y() }
}

/// `(threadIdx.x, threadIdx.y)` read again from the special registers: unlike [`thread_idx_x`], a
/// read the compiler does not merge with earlier ones, so a kernel short of registers re-reads
/// the index after a long loop instead of keeping values derived from it alive through the loop.
#[inline(always)]
pub fn thread_idx_reread() -> (u32, u32) {
    let (x, y): (u32, u32);
    // SAFETY: reads special registers; no memory, no side effects (not `pure`, so not merged).
    unsafe {
        core::arch::asm!("mov.u32 {x}, %tid.x;", "mov.u32 {y}, %tid.y;", x = out(reg32) x, y = out(reg32) y, options(nomem, nostack))
    };
    (x, y)
}

/// `blockIdx.x`: this block's column in the grid.
#[inline(always)]
pub fn block_idx_x() -> u32 {
    // SAFETY: reading a special register has no preconditions.
    unsafe { nvptx::_block_idx_x() }
}

/// `blockIdx.y`: this block's row in the grid.
#[inline(always)]
pub fn block_idx_y() -> u32 {
    // SAFETY: reading a special register has no preconditions.
    unsafe { nvptx::_block_idx_y() }
}

/// `blockIdx.z`: the image channel every convolution kernel's block works on.
#[inline(always)]
pub fn block_idx_z() -> u32 {
    // SAFETY: reading a special register has no preconditions.
    unsafe { nvptx::_block_idx_z() }
}

/// `blockDim.x`: threads per block along x.
#[inline(always)]
pub fn block_dim_x() -> u32 {
    // SAFETY: reading a special register has no preconditions.
    unsafe { nvptx::_block_dim_x() }
}

/// `blockDim.y`: threads per block along y.
#[inline(always)]
pub fn block_dim_y() -> u32 {
    // SAFETY: reading a special register has no preconditions.
    unsafe { nvptx::_block_dim_y() }
}

/// This thread's index in a 1D grid: `blockIdx.x * blockDim.x + threadIdx.x`.
#[inline(always)]
pub fn index_1d() -> u32 {
    block_idx_x() * block_dim_x() + thread_idx_x()
}

/// This thread's `(x, y)` in a 2D grid: `blockIdx * blockDim + threadIdx` on both axes.
#[inline(always)]
pub fn index_2d() -> (u32, u32) {
    (
        block_idx_x() * block_dim_x() + thread_idx_x(),
        block_idx_y() * block_dim_y() + thread_idx_y(),
    )
}

/// `__syncthreads()`: waits until every thread of the block gets here, after which every shared
/// memory write made before it is visible to the whole block. Every thread of the block must reach
/// it (call it only from control flow that is the same for the whole block).
#[inline(always)]
pub fn sync_threads() {
    // SAFETY: callers only call this from control flow that all threads of the block reach.
    unsafe { nvptx::_syncthreads() }
}

/// `__syncwarp()`: waits for every lane of the warp, and orders their shared-memory accesses.
#[inline(always)]
pub fn sync_warp() {
    // SAFETY: callers only call this from control flow that every lane of the warp reaches.
    unsafe { core::arch::asm!("bar.warp.sync 0xffffffff;", options(nostack)) };
}

/// The largest of `v` over the warp's lanes (`redux.sync.max.u32`), the same in every lane. Every
/// lane of the warp must call it together.
#[inline(always)]
pub fn warp_max(v: u32) -> u32 {
    let m: u32;
    // SAFETY: register-only warp reduction; callers call it from control flow every lane reaches.
    unsafe {
        core::arch::asm!("redux.sync.max.u32 {m}, {v}, 0xffffffff;", m = out(reg32) m, v = in(reg32) v, options(nomem, nostack))
    };
    m
}

/// `__shfl_up_sync(0xffffffff, v, 1)`: lane `i`'s `v` from lane `i - 1` (lane 0 gets its own).
/// Every lane of the warp must call it together.
#[inline(always)]
pub fn shfl_up_1(v: u32) -> u32 {
    let d: u32;
    // SAFETY: register-only warp exchange; callers call it from control flow every lane reaches.
    unsafe {
        core::arch::asm!("shfl.sync.up.b32 {d}, {v}, 1, 0, 0xffffffff;", d = out(reg32) d, v = in(reg32) v, options(nomem, nostack))
    };
    d
}

/// `__shfl_down_sync(0xffffffff, v, 1)`: lane `i`'s `v` from lane `i + 1` (lane 31 gets its own).
/// Every lane of the warp must call it together.
#[inline(always)]
pub fn shfl_down_1(v: u32) -> u32 {
    let d: u32;
    // SAFETY: register-only warp exchange; callers call it from control flow every lane reaches.
    unsafe {
        core::arch::asm!("shfl.sync.down.b32 {d}, {v}, 1, 0x1f, 0xffffffff;", d = out(reg32) d, v = in(reg32) v, options(nomem, nostack))
    };
    d
}

/// Nanoseconds since an arbitrary start (`%globaltimer`), the same clock for every thread.
#[inline(always)]
pub fn global_timer() -> u64 {
    let t: u64;
    // SAFETY: reads a special register; no memory, no side effects.
    unsafe { core::arch::asm!("mov.u64 {t}, %globaltimer;", t = out(reg64) t, options(nomem, nostack)) };
    t
}
