//! The separable filter's row pass: each image row convolved with the row taps, into `f32`.

use crate::device::shared::dynamic_shared_mem;
use crate::device::thread::{
    block_idx_x, block_idx_y, block_idx_z, sync_threads, thread_idx_x, thread_idx_y,
};
use crate::device::{Global, ParamTaps, Sample, fetch_or_zero, fma, is_alpha, param_taps};
use crate::launch::{Geometry, ROW_BLOCK, ROW_SPAN, ROW_STEPS, Taps};
use kernel_macros::kernel;

/// # Tiling
/// A block of [`ROW_BLOCK`](crate::launch::ROW_BLOCK) = 32 × 4 threads covers `ROW_SPAN` =
/// 32 · `ROW_STEPS` output pixels of 4 rows of one channel. Each block row loads its span plus an
/// `r`-pixel apron on both sides (border-resolved) into shared memory, in steps of 32 so the loads
/// are coalesced; after a barrier each thread computes `ROW_STEPS` outputs 32 pixels apart.
///
/// # Thread mapping
/// Block `(bx, by, c)`, thread `(tx, ty)` writes intermediate pixels
/// `(bx·ROW_SPAN + s·32 + tx, by·4 + ty)`, `s < ROW_STEPS`, of channel `c`: every input row, and
/// the output's columns (the valid border narrows them by `2r`).
///
/// # Safety
/// `input` holds `in_width · in_height · channels` samples; `tmp` holds
/// `out_width · in_height · channels` `f32`; `taps` holds the `2r + 1` row taps; launch with
/// `row_shared_bytes(radius)` of dynamic shared memory, grid z = `channels`.
#[kernel(types(u8, u16, f32))]
pub unsafe fn conv_sep_rows<T: Sample>(input: *const T, tmp: *mut f32, g: Geometry, taps: Taps) {
    let taps = param_taps!(taps);
    // SAFETY: the caller follows the launch contract above.
    unsafe { sep_rows(input, tmp, &g, taps) }
}

/// The body of `conv_sep_rows`.
///
/// # Safety
/// As for `conv_sep_rows`.
#[inline(always)]
unsafe fn sep_rows<T: Sample>(input: *const T, tmp: *mut f32, g: &Geometry, taps: ParamTaps) {
    let r = g.radius;
    let tw = ROW_SPAN + 2 * r;
    let (tx, ty, c) = (thread_idx_x(), thread_idx_y(), block_idx_z());
    let tile = dynamic_shared_mem::<f32>().wrapping_add((ty * tw) as usize);
    let src = Global::new(input, g);
    let y = block_idx_y() * ROW_BLOCK.1 + ty;
    let x_base = block_idx_x() * ROW_SPAN;
    let x0 = (x_base + g.offset) as i32 - r as i32;
    if y < g.in_height {
        let mut e = tx;
        while e < tw {
            // SAFETY: e < tw, this block row's share of the shared memory.
            unsafe { *tile.add(e as usize) = fetch_or_zero(g, &src, x0 + e as i32, y as i32) };
            e += ROW_BLOCK.0;
        }
    }
    sync_threads();
    if y >= g.in_height {
        return;
    }
    let alpha = is_alpha(g, c);
    for s in 0..ROW_STEPS {
        let lx = s * ROW_BLOCK.0 + tx;
        let x = x_base + lx;
        if x >= g.out_width {
            break;
        }
        let v = if alpha {
            // SAFETY: lx + r < tw.
            unsafe { *tile.add((lx + r) as usize) }
        } else {
            let mut acc = 0.0f32;
            for j in 0..2 * r + 1 {
                // SAFETY: lx + j < ROW_SPAN + 2r = tw.
                acc = fma(unsafe { *tile.add((lx + j) as usize) }, taps.get(j), acc);
            }
            acc
        };
        let index = (y as usize * g.out_width as usize + x as usize) * g.channels as usize + c as usize;
        // SAFETY: (x, y, c) is inside the intermediate image.
        unsafe { *tmp.add(index) = v };
    }
}
