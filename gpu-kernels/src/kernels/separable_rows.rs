//! The separable filter's row pass: each image row convolved with the row taps, into `f32`.

/// The entry-point base name: `conv_separable_rows_<type>` (samples in, `f32` out).
pub const ENTRY: &str = "conv_separable_rows";

/// 32 × 4 threads, each computing [`STEPS`] outputs 32 pixels apart, so a block covers
/// `32 · STEPS` pixels of 4 rows.
pub const BLOCK: (u32, u32) = (32, 4);
/// Outputs per thread.
pub const STEPS: u32 = 4;
/// Pixels of a row one block produces.
pub const SPAN: u32 = BLOCK.0 * STEPS;

/// Shared memory: each block row's span plus an `r`-pixel apron on each side.
pub const fn shared_bytes(radius: u32) -> u32 {
    BLOCK.1 * (SPAN + 2 * radius) * 4
}

#[cfg(target_arch = "nvptx64")]
use {
    crate::device::shared::dynamic_shared_mem,
    crate::device::thread::{
        block_idx_x, block_idx_y, block_idx_z, sync_threads, thread_idx_x, thread_idx_y,
    },
    crate::device::{Global, ParamTaps, Sample, fetch_or_cval, fma, is_alpha, param_taps},
    crate::launch::{Geometry, Taps},
    kernel_macros::kernel,
};

#[cfg(target_arch = "nvptx64")]
/// # Tiling
/// A block of [`BLOCK`] = 32 × 4 threads covers `SPAN` =
/// 32 · `STEPS` output pixels of 4 rows of one channel. Each block row loads its span plus an
/// `r`-pixel apron on both sides (border-resolved) into shared memory, in steps of 32 so the loads
/// are coalesced; after a barrier each thread computes `STEPS` outputs 32 pixels apart.
///
/// # Thread mapping
/// Block `(bx, by, c)`, thread `(tx, ty)` writes intermediate pixels
/// `(bx·SPAN + s·32 + tx, by·4 + ty)`, `s < STEPS`, of channel `c`: every input row, and
/// the output's columns (the valid border narrows them by `2r`).
///
/// # Safety
/// `input` holds `in_width · in_height · channels` samples; `tmp` holds
/// `out_width · in_height · channels` `f32`; `taps` holds the `2r + 1` row taps; launch with
/// `shared_bytes(radius)` of dynamic shared memory, grid z = `channels`.
#[kernel(types(u8, u16, f32))]
pub unsafe fn conv_separable_rows<T: Sample>(input: *const T, tmp: *mut f32, g: Geometry, taps: Taps) {
    let taps = param_taps!(taps);
    // SAFETY: the caller follows the launch contract above.
    unsafe { separable_rows(input, tmp, &g, taps) }
}

#[cfg(target_arch = "nvptx64")]
/// The body of `conv_separable_rows`.
///
/// # Safety
/// As for `conv_separable_rows`.
#[inline(always)]
unsafe fn separable_rows<T: Sample>(input: *const T, tmp: *mut f32, g: &Geometry, taps: ParamTaps) {
    let r = g.radius;
    let tw = SPAN + 2 * r;
    let (tx, ty, c) = (thread_idx_x(), thread_idx_y(), block_idx_z());
    let tile = dynamic_shared_mem::<f32>().wrapping_add((ty * tw) as usize);
    let src = Global::new(input, g);
    let y = block_idx_y() * BLOCK.1 + ty;
    let x_base = block_idx_x() * SPAN;
    let x0 = (x_base + g.offset) as i32 - r as i32;
    if y < g.in_height {
        let mut e = tx;
        while e < tw {
            // SAFETY: e < tw, this block row's share of the shared memory.
            unsafe { *tile.add(e as usize) = fetch_or_cval(g, &src, x0 + e as i32, y as i32) };
            e += BLOCK.0;
        }
    }
    sync_threads();
    if y >= g.in_height {
        return;
    }
    let alpha = is_alpha(g, c);
    for s in 0..STEPS {
        let lx = s * BLOCK.0 + tx;
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
                // SAFETY: lx + j < SPAN + 2r = tw.
                acc = fma(unsafe { *tile.add((lx + j) as usize) }, taps.get(j), acc);
            }
            acc
        };
        let index = (y as usize * g.out_width as usize + x as usize) * g.channels as usize + c as usize;
        // SAFETY: (x, y, c) is inside the intermediate image.
        unsafe { *tmp.add(index) = v };
    }
}
