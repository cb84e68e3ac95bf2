//! The separable filter's column pass: the row pass's `f32` result convolved down the columns.

use crate::device::shared::dynamic_shared_mem;
use crate::device::thread::{
    block_idx_x, block_idx_y, block_idx_z, sync_threads, thread_idx_x, thread_idx_y,
};
use crate::device::{Global, ParamTaps, Sample, Source, fma, is_alpha, param_taps, resolve, store_sample};
use crate::launch::{COL_BLOCK, COL_SPAN, COL_STEPS, Geometry, Taps};
use kernel_macros::kernel;

/// # Tiling
/// A block of [`COL_BLOCK`](crate::launch::COL_BLOCK) = 32 × 8 threads covers 32 columns of
/// `COL_SPAN` = 8 · `COL_STEPS` output rows of one channel. It loads those columns' rows plus an
/// `r`-row apron above and below (border-resolved) into shared memory, one 32-wide (coalesced) row
/// per thread row per step; after a barrier each thread computes `COL_STEPS` outputs 8 rows apart.
/// Shared-memory reads walk down a column, consecutive threads in consecutive banks.
///
/// # Thread mapping
/// Block `(bx, by, c)`, thread `(tx, ty)` writes output pixels
/// `(bx·32 + tx, by·COL_SPAN + s·8 + ty)`, `s < COL_STEPS`, of channel `c` when inside the output.
///
/// # Safety
/// `tmp` holds `out_width · in_height · channels` `f32` (the row pass's output); `output` holds
/// `out_width · out_height · channels` samples; `taps` holds the `2r + 1` column taps; launch with
/// `col_shared_bytes(radius)` of dynamic shared memory, grid z = `channels`.
#[kernel(types(u8, u16, f32))]
pub unsafe fn conv_sep_cols<T: Sample>(tmp: *const f32, output: *mut T, g: Geometry, taps: Taps) {
    let taps = param_taps!(taps);
    // SAFETY: the caller follows the launch contract above.
    unsafe { sep_cols(tmp, output, &g, taps) }
}

/// The body of `conv_sep_cols`.
///
/// # Safety
/// As for `conv_sep_cols`.
#[inline(always)]
unsafe fn sep_cols<T: Sample>(tmp: *const f32, output: *mut T, g: &Geometry, taps: ParamTaps) {
    let tile = dynamic_shared_mem::<f32>();
    let r = g.radius;
    let th = COL_SPAN + 2 * r;
    let (tx, ty, c) = (thread_idx_x(), thread_idx_y(), block_idx_z());
    let src = Global {
        ptr: tmp,
        width: g.out_width,
        channels: g.channels,
        channel: c,
    };
    let x = block_idx_x() * COL_BLOCK.0 + tx;
    let y_base = block_idx_y() * COL_SPAN;
    let y0 = (y_base + g.offset) as i32 - r as i32;
    let mut ly = ty;
    while ly < th {
        let yy = resolve(y0 + ly as i32, g.in_height as i32, g.border);
        let v = if x < g.out_width && (yy as u32) < g.in_height {
            src.fetch(x as i32, yy)
        } else {
            0.0
        };
        // SAFETY: ly < th and tx < 32: inside the (COL_SPAN + 2r) × 32 tile.
        unsafe { *tile.add((ly * COL_BLOCK.0 + tx) as usize) = v };
        ly += COL_BLOCK.1;
    }
    sync_threads();
    if x >= g.out_width {
        return;
    }
    let alpha = is_alpha(g, c);
    for s in 0..COL_STEPS {
        let ly = s * COL_BLOCK.1 + ty;
        let y = y_base + ly;
        if y >= g.out_height {
            break;
        }
        let column = tile.wrapping_add(tx as usize);
        let v = if alpha {
            // SAFETY: ly + r < th.
            unsafe { *column.add(((ly + r) * COL_BLOCK.0) as usize) }
        } else {
            let mut acc = 0.0f32;
            for i in 0..2 * r + 1 {
                // SAFETY: ly + i < COL_SPAN + 2r = th.
                acc = fma(
                    unsafe { *column.add(((ly + i) * COL_BLOCK.0) as usize) },
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
