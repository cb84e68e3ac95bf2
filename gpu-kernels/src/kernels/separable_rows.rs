//! The separable filter's row pass: each image row convolved with the row taps, into `f32`.

#[cfg(not(target_arch = "nvptx64"))]
use crate::launch::{Geometry, LaunchConfig};

/// The entry-point base name: `conv_separable_rows_<type>` (samples in, `f32` out).
pub const ENTRY: &str = "conv_separable_rows";

/// 32 × 4 threads, each computing [`PER_THREAD`] neighbouring outputs of a row, so a block covers
/// `32 · PER_THREAD` pixels of 4 rows.
pub const BLOCK: (u32, u32) = (32, 4);
/// Neighbouring outputs per thread.
pub const PER_THREAD: u32 = 4;
/// Pixels of a row one block produces.
pub const SPAN: u32 = BLOCK.0 * PER_THREAD;

/// Groups of 4 taps in a pass of radius `radius` (the last one padded with zeros).
pub const fn tap_groups(radius: u32) -> u32 {
    (2 * radius + 1).div_ceil(4)
}

/// Samples of one block row's tile: the span and the taps' reach, rounded up to whole groups of
/// 4 (the samples past the span's `2r`-pixel apron are zeros).
pub const fn row_len(radius: u32) -> u32 {
    SPAN + 4 * tap_groups(radius)
}

/// Shared memory: the taps, zero-padded to whole groups of 4, then each block row's tile.
pub const fn shared_bytes(radius: u32) -> u32 {
    (4 * tap_groups(radius) + BLOCK.1 * row_len(radius)) * 4
}

/// The launch: every input row (the column pass needs the halo rows), [`SPAN`] outputs a
/// block along a row, one grid plane per channel.
#[cfg(not(target_arch = "nvptx64"))]
pub fn launch_config(g: &Geometry) -> LaunchConfig {
    LaunchConfig {
        grid: (
            g.out_width.div_ceil(SPAN),
            g.in_height.div_ceil(BLOCK.1),
            g.channels,
        ),
        block: BLOCK,
        shared_bytes: shared_bytes(g.radius),
    }
}

/// Global loads per output pixel of this pass: its row span and halo over the span.
#[cfg(not(target_arch = "nvptx64"))]
pub fn loads_per_pixel(r: usize) -> f64 {
    (f64::from(SPAN) + 2.0 * r as f64) / f64::from(SPAN)
}

#[cfg(target_arch = "nvptx64")]
use {
    crate::device::shared::dynamic_shared_mem,
    crate::device::thread::{block_idx_x, block_idx_y, sync_threads, thread_idx_x, thread_idx_y},
    crate::device::{F32x4, Global, Sample, batch_lengths, bf16, fetch_or_cval, fma, is_alpha, unroll},
    crate::launch::Geometry,
    kernel_macros::kernel,
};

#[cfg(target_arch = "nvptx64")]
/// # Tiling
/// A block of [`BLOCK`] = 32 × 4 threads covers `SPAN` = 128 output pixels of 4 rows of one
/// channel. It copies the row taps into shared memory in groups of 4 (zeros after the last), and
/// each block row loads its span plus an `r`-pixel apron on both sides (border-resolved, then
/// zeros to whole groups of 4 taps) into shared memory, in steps of 32 so the loads are coalesced.
/// After a barrier each thread computes 4 neighbouring outputs in registers: for every group of 4
/// taps it reads two 16-byte vectors of its row (8 samples, the second kept for the next group)
/// and one vector of taps (the same address for the whole warp), then does 16 multiply-adds, so
/// the radius is a run-time loop that stays on the FMA units rather than on shared-memory reads.
/// A last partial group takes only its taps.
///
/// # Thread mapping
/// Block `(bx, by, c)`, thread `(tx, ty)` writes intermediate pixels
/// `(bx·SPAN + 4·tx + o, by·4 + ty)`, `o < 4`, of channel `c`: every input row, and the output's
/// columns (the valid border narrows them by `2r`).
///
/// # Safety
/// `input` holds `in_width · in_height · channels` samples; `tmp` holds
/// `out_width · in_height · channels` `f32`; `taps` points to the `2r + 1` row taps in global
/// memory (more than the by-value parameter holds: up to 1023); launch with
/// `shared_bytes(radius)` of dynamic shared memory, grid z = `channels` times the images of a
/// batch (`input` and `tmp` then hold that many packed images of those sizes).
#[kernel(types(u8, u16, f32, f16, bf16))]
pub unsafe fn conv_separable_rows<T: Sample>(input: *const T, tmp: *mut f32, g: Geometry, taps: *const f32) {
    // SAFETY: the caller follows the launch contract above.
    unsafe { separable_rows(input, tmp, &g, taps) }
}

#[cfg(target_arch = "nvptx64")]
/// The body of `conv_separable_rows`.
///
/// # Safety
/// As for `conv_separable_rows`.
#[inline(always)]
unsafe fn separable_rows<T: Sample>(input: *const T, tmp: *mut f32, g: &Geometry, taps: *const f32) {
    let r = g.radius;
    let (k, groups) = (2 * r + 1, tap_groups(r));
    let tw = row_len(r);
    let lengths = (
        g.in_width as usize * g.in_height as usize * g.channels as usize,
        g.out_width as usize * g.in_height as usize * g.channels as usize,
    );
    // SAFETY: the launch contract: grid z holds `channels` planes of each image of the batch.
    let (input, tmp, c) = unsafe { batch_lengths(input, tmp, g.channels, lengths) };
    let (tx, ty) = (thread_idx_x(), thread_idx_y());
    let shared = dynamic_shared_mem::<f32>();
    let tap_groups = dynamic_shared_mem::<F32x4>();
    let first = ty * BLOCK.0 + tx;
    let mut e = first;
    while e < 4 * groups {
        // SAFETY: e < 4 · groups, the taps' share of the shared memory; tap e < k of the
        // launch's taps.
        unsafe { *shared.add(e as usize) = if e < k { *taps.add(e as usize) } else { 0.0 } };
        e += BLOCK.0 * BLOCK.1;
    }
    let tile = shared.wrapping_add((4 * groups + ty * tw) as usize);
    let src = Global {
        channel: c,
        ..Global::new(input, g)
    };
    let y = block_idx_y() * BLOCK.1 + ty;
    let x_base = block_idx_x() * SPAN;
    let x0 = (x_base + g.offset) as i32 - r as i32;
    if y < g.in_height {
        let mut e = tx;
        while e < tw {
            let v = if e < SPAN + 2 * r {
                fetch_or_cval(g, &src, x0 + e as i32, y as i32)
            } else {
                0.0
            };
            // SAFETY: e < tw, this block row's share of the shared memory.
            unsafe { *tile.add(e as usize) = v };
            e += BLOCK.0;
        }
    }
    sync_threads();
    if y >= g.in_height {
        return;
    }
    let lx = PER_THREAD * tx;
    let mut acc = [0.0f32; PER_THREAD as usize];
    if is_alpha(g, c) {
        unroll!(O < 4; [0, 1, 2, 3] {
            // SAFETY: lx + O + r < SPAN + 2r <= tw.
            acc[O] = unsafe { *tile.add((lx + O as u32 + r) as usize) };
        });
    } else {
        // Vector `tx + q` of the row holds samples 4·tx + 4q .. + 4: the window of group q.
        let row = tile.cast::<F32x4>().wrapping_add(tx as usize);
        // SAFETY: 16-byte aligned (the taps and tw are whole vectors) and inside the tile.
        let mut low = unsafe { *row };
        // Group q's window and taps; `taken` of its taps (a last partial group's samples past
        // k may be anything, so they are left out rather than multiplied by zero).
        let mut group = |q: u32, taken: usize, low: F32x4| {
            // SAFETY: tx + q + 1 <= 31 + groups = tw / 4 - 1: inside the row.
            let high = unsafe { *row.add(q as usize + 1) };
            // SAFETY: q < groups, inside the taps.
            let t = unsafe { *tap_groups.add(q as usize) }.0;
            let w = [
                low.0[0], low.0[1], low.0[2], low.0[3], high.0[0], high.0[1], high.0[2],
            ];
            unroll!(M < taken; [0, 1, 2, 3] {
                unroll!(O < 4; [0, 1, 2, 3] {
                    acc[O] = fma(w[O + M], t[M], acc[O]);
                });
            });
            high
        };
        for q in 0..k / 4 {
            low = group(q, 4, low);
        }
        if k % 4 != 0 {
            group(k / 4, (k % 4) as usize, low);
        }
    }
    let row_out = (y as usize * g.out_width as usize) * g.channels as usize + c as usize;
    unroll!(O < 4; [0, 1, 2, 3] {
        let x = x_base + lx + O as u32;
        if x < g.out_width {
            // SAFETY: (x, y, c) is inside the intermediate image.
            unsafe { *tmp.add(row_out + x as usize * g.channels as usize) = acc[O] };
        }
    });
}
