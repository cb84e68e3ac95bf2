//! The separable filter's column pass: the row pass's `f32` result convolved down the columns.

/// The entry-point base name: `conv_separable_cols_<type>` (`f32` in, samples out).
pub const ENTRY: &str = "conv_separable_cols";

/// 32 × 8 threads, each computing [`STEPS`] outputs 8 rows apart, so a block covers 32 columns of
/// `8 · STEPS` rows.
pub const BLOCK: (u32, u32) = (32, 8);
/// Outputs per thread.
pub const STEPS: u32 = 4;
/// Rows one block produces.
pub const SPAN: u32 = BLOCK.1 * STEPS;

/// Shared memory: the span plus an `r`-row apron above and below, 32 wide.
pub const fn shared_bytes(radius: u32) -> u32 {
    (SPAN + 2 * radius) * BLOCK.0 * 4
}

#[cfg(target_arch = "nvptx64")]
use {
    crate::device::shared::dynamic_shared_mem,
    crate::device::thread::{
        block_idx_x, block_idx_y, block_idx_z, sync_threads, thread_idx_x, thread_idx_y,
    },
    crate::device::{Global, ParamTaps, Sample, Source, fma, is_alpha, param_taps, resolve, store_sample},
    crate::launch::{Geometry, Taps},
    kernel_macros::kernel,
};

#[cfg(target_arch = "nvptx64")]
/// # Tiling
/// A block of [`BLOCK`] = 32 × 8 threads covers 32 columns of
/// `SPAN` = 8 · `STEPS` output rows of one channel. It loads those columns' rows plus an
/// `r`-row apron above and below (border-resolved) into shared memory, one 32-wide (coalesced) row
/// per thread row per step; after a barrier each thread computes `STEPS` outputs 8 rows apart.
/// Shared-memory reads walk down a column, consecutive threads in consecutive banks.
///
/// # Thread mapping
/// Block `(bx, by, c)`, thread `(tx, ty)` writes output pixels
/// `(bx·32 + tx, by·SPAN + s·8 + ty)`, `s < STEPS`, of channel `c` when inside the output.
///
/// # Safety
/// `tmp` holds `out_width · in_height · channels` `f32` (the row pass's output); `output` holds
/// `out_width · out_height · channels` samples; `taps` holds the `2r + 1` column taps; launch with
/// `shared_bytes(radius)` of dynamic shared memory, grid z = `channels`.
#[kernel(types(u8, u16, f32))]
pub unsafe fn conv_separable_cols<T: Sample>(tmp: *const f32, output: *mut T, g: Geometry, taps: Taps) {
    let taps = param_taps!(taps);
    // SAFETY: the caller follows the launch contract above.
    unsafe { separable_cols(tmp, output, &g, taps) }
}

#[cfg(target_arch = "nvptx64")]
/// The body of `conv_separable_cols`.
///
/// # Safety
/// As for `conv_separable_cols`.
#[inline(always)]
unsafe fn separable_cols<T: Sample>(tmp: *const f32, output: *mut T, g: &Geometry, taps: ParamTaps) {
    let tile = dynamic_shared_mem::<f32>();
    let r = g.radius;
    let th = SPAN + 2 * r;
    let (tx, ty, c) = (thread_idx_x(), thread_idx_y(), block_idx_z());
    let src = Global {
        ptr: tmp,
        width: g.out_width,
        channels: g.channels,
        channel: c,
    };
    let x = block_idx_x() * BLOCK.0 + tx;
    let y_base = block_idx_y() * SPAN;
    let y0 = (y_base + g.offset) as i32 - r as i32;
    let mut ly = ty;
    while ly < th {
        let yy = resolve(y0 + ly as i32, g.in_height as i32, g.border);
        let v = if x < g.out_width && (yy as u32) < g.in_height {
            src.fetch(x as i32, yy)
        } else {
            // Outside (or past the output's columns): the constant border's rows, whose row-pass
            // result the host passes as `cval` (the constant times the row taps' sum).
            g.cval
        };
        // SAFETY: ly < th and tx < 32: inside the (SPAN + 2r) × 32 tile.
        unsafe { *tile.add((ly * BLOCK.0 + tx) as usize) = v };
        ly += BLOCK.1;
    }
    sync_threads();
    if x >= g.out_width {
        return;
    }
    let alpha = is_alpha(g, c);
    for s in 0..STEPS {
        let ly = s * BLOCK.1 + ty;
        let y = y_base + ly;
        if y >= g.out_height {
            break;
        }
        let column = tile.wrapping_add(tx as usize);
        let v = if alpha {
            // SAFETY: ly + r < th.
            unsafe { *column.add(((ly + r) * BLOCK.0) as usize) }
        } else {
            let mut acc = 0.0f32;
            for i in 0..2 * r + 1 {
                // SAFETY: ly + i < SPAN + 2r = th.
                acc = fma(
                    unsafe { *column.add(((ly + i) * BLOCK.0) as usize) },
                    taps.get(i),
                    acc,
                );
            }
            acc
        };
        // SAFETY: (x, y, c) is inside the output.
        unsafe { store_sample(output, g, x, y, c, v) };
    }
}
