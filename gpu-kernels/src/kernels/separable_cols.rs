//! The separable filter's column pass: the row pass's `f32` result convolved down the columns.

#[cfg(not(target_arch = "nvptx64"))]
use crate::launch::{Geometry, LaunchConfig};

/// The entry-point base name: `conv_separable_cols_<type>` (`f32` in, samples out).
pub const ENTRY: &str = "conv_separable_cols";

/// 32 × 8 threads, each computing [`PER_THREAD`] neighbouring outputs down a column, so a block
/// covers 32 columns of `8 · PER_THREAD` rows.
pub const BLOCK: (u32, u32) = (32, 8);
/// Neighbouring outputs per thread, down its column.
pub const PER_THREAD: u32 = 8;
/// Rows one block produces.
pub const SPAN: u32 = BLOCK.1 * PER_THREAD;

/// Rows of the tile: the span and the taps' reach, rounded up to whole groups of 4 taps, and the
/// 4 rows the last group's window reads past them (the rows past the span's `2r`-row apron are
/// zeros).
pub const fn tile_rows(radius: u32) -> u32 {
    SPAN + 4 * super::separable_rows::tap_groups(radius) + 4
}

/// Shared memory: the taps, zero-padded to whole groups of 4, then the tile, 32 wide.
pub const fn shared_bytes(radius: u32) -> u32 {
    (4 * super::separable_rows::tap_groups(radius) + tile_rows(radius) * BLOCK.0) * 4
}

/// The launch: one block per `BLOCK.0 × SPAN` outputs, one grid plane per channel.
#[cfg(not(target_arch = "nvptx64"))]
pub fn launch_config(g: &Geometry) -> LaunchConfig {
    LaunchConfig::tiles(g, (BLOCK.0, SPAN), BLOCK, shared_bytes(g.radius))
}

/// Global loads per output pixel of this pass: its column span and halo over the span.
#[cfg(not(target_arch = "nvptx64"))]
pub fn loads_per_pixel(r: usize) -> f64 {
    (f64::from(SPAN) + 2.0 * r as f64) / f64::from(SPAN)
}

#[cfg(target_arch = "nvptx64")]
use {
    super::separable_rows::tap_groups,
    crate::device::shared::dynamic_shared_mem,
    crate::device::thread::{block_idx_x, block_idx_y, sync_threads, thread_idx_x, thread_idx_y},
    crate::device::{
        F32x4, Global, Sample, Source, batch_lengths, bf16, combine_image, combine_sample, fma, is_alpha,
        resolve, store_sample, unroll,
    },
    crate::launch::Geometry,
    kernel_macros::kernel,
};

#[cfg(target_arch = "nvptx64")]
/// # Tiling
/// A block of [`BLOCK`] = 32 × 8 threads covers 32 columns of `SPAN` = 64 output rows of one
/// channel. It copies the column taps into shared memory in groups of 4 (zeros after the last)
/// and loads those columns' rows plus an `r`-row apron above and below (border-resolved, then
/// zero rows to whole groups of 4 taps), one 32-wide (coalesced) row per thread row per step.
/// After a barrier each thread computes 8 neighbouring outputs down its column in registers: it
/// keeps a window of 12 rows of its column, and for every group of 4 taps reads 4 new rows and
/// one vector of taps (the same address for the whole warp), then does 32 multiply-adds, so the
/// radius is a run-time loop that stays on the FMA units. Shared-memory reads walk down a column,
/// consecutive threads in consecutive banks. A last partial group takes only its taps.
///
/// # Thread mapping
/// Block `(bx, by, c)`, thread `(tx, ty)` writes output pixels
/// `(bx·32 + tx, by·SPAN + 8·ty + o)`, `o < 8`, of channel `c` when inside the output.
///
/// # Safety
/// `tmp` holds `out_width · in_height · channels` `f32` (the row pass's output); `output` holds
/// `out_width · out_height · channels` samples; `taps` points to the `2r + 1` column taps in
/// global memory; launch with
/// `shared_bytes(radius)` of dynamic shared memory, grid z = `channels` times the images of a
/// batch (`tmp` and `output` then hold that many packed images of those sizes); `g.combine` as
/// [`Geometry::combine`](crate::launch::Geometry::combine) says.
#[kernel(types(u8, u16, f32, f16, bf16))]
pub unsafe fn conv_separable_cols<T: Sample>(tmp: *const f32, output: *mut T, g: Geometry, taps: *const f32) {
    // SAFETY: the caller follows the launch contract above.
    unsafe { separable_cols(tmp, output, &g, taps) }
}

#[cfg(target_arch = "nvptx64")]
/// The body of `conv_separable_cols`.
///
/// # Safety
/// As for `conv_separable_cols`.
#[inline(always)]
unsafe fn separable_cols<T: Sample>(tmp: *const f32, output: *mut T, g: &Geometry, taps: *const f32) {
    let r = g.radius;
    let (k, groups) = (2 * r + 1, tap_groups(r));
    let th = tile_rows(r);
    let lengths = (
        g.out_width as usize * g.in_height as usize * g.channels as usize,
        g.out_width as usize * g.out_height as usize * g.channels as usize,
    );
    let base = output;
    // SAFETY: the launch contract: grid z holds `channels` planes of each image of the batch.
    let (tmp, output, c) = unsafe { batch_lengths(tmp, output, g.channels, lengths) };
    let (tx, ty) = (thread_idx_x(), thread_idx_y());
    let shared = dynamic_shared_mem::<f32>();
    let tap_groups = dynamic_shared_mem::<F32x4>();
    let mut e = ty * BLOCK.0 + tx;
    while e < 4 * groups {
        // SAFETY: e < 4 · groups, the taps' share of the shared memory; tap e < k of the
        // launch's taps.
        unsafe { *shared.add(e as usize) = if e < k { *taps.add(e as usize) } else { 0.0 } };
        e += BLOCK.0 * BLOCK.1;
    }
    let tile = shared.wrapping_add(4 * groups as usize);
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
        let v = if ly >= SPAN + 2 * r || x >= g.out_width {
            // Past the apron, or past the output's columns: read by no stored output.
            0.0
        } else {
            let yy = resolve(y0 + ly as i32, g.in_height as i32, g.border);
            if (yy as u32) < g.in_height {
                src.fetch(x as i32, yy)
            } else {
                // Outside: the constant border's rows, whose row-pass result the host passes as
                // `cval` (the constant times the row taps' sum).
                g.cval
            }
        };
        // SAFETY: ly < th and tx < 32: inside the th × 32 tile.
        unsafe { *tile.add((ly * BLOCK.0 + tx) as usize) = v };
        ly += BLOCK.1;
    }
    sync_threads();
    if x >= g.out_width {
        return;
    }
    let first = PER_THREAD * ty;
    let column = tile.wrapping_add(tx as usize);
    // SAFETY: row `first + i` of the column, i < th - first: inside the tile.
    let at = |i: u32| unsafe { *column.add(((first + i) * BLOCK.0) as usize) };
    let mut acc = [0.0f32; PER_THREAD as usize];
    if is_alpha(g, c) {
        unroll!(O < 8; [0, 1, 2, 3, 4, 5, 6, 7] {
            acc[O] = at(O as u32 + r);
        });
    } else {
        // Rows first + 4q .. + 12 of the column: group q's window (8 outputs, 4 taps).
        let mut window = [0.0f32; 12];
        unroll!(I < 8; [0, 1, 2, 3, 4, 5, 6, 7] {
            window[I] = at(I as u32);
        });
        // `taken` of group q's taps (a last partial group's rows past k may be anything, so
        // they are left out rather than multiplied by zero); rows first + 4q + 8 .. + 12 are
        // read (inside: first + 4·groups + 11 < th).
        let mut group = |q: u32, taken: usize, window: &mut [f32; 12]| {
            unroll!(I < 4; [0, 1, 2, 3] {
                window[8 + I] = at(4 * q + 8 + I as u32);
            });
            // SAFETY: q < groups, inside the taps.
            let t = unsafe { *tap_groups.add(q as usize) }.0;
            unroll!(M < taken; [0, 1, 2, 3] {
                unroll!(O < 8; [0, 1, 2, 3, 4, 5, 6, 7] {
                    acc[O] = fma(window[O + M], t[M], acc[O]);
                });
            });
            unroll!(I < 8; [0, 1, 2, 3, 4, 5, 6, 7] {
                window[I] = window[I + 4];
            });
        };
        for q in 0..k / 4 {
            group(q, 4, &mut window);
        }
        if k % 4 != 0 {
            group(k / 4, (k % 4) as usize, &mut window);
        }
    }
    if let Some(image) = combine_image(g, base, output) {
        unroll!(O < 8; [0, 1, 2, 3, 4, 5, 6, 7] {
            let y = y_base + first + O as u32;
            if y < g.out_height {
                // SAFETY: (x, y, c) is inside the output; the launch contract
                // (`Geometry::combine`).
                acc[O] = unsafe { combine_sample(image, g, x, y, c, acc[O]) };
            }
        });
    }
    unroll!(O < 8; [0, 1, 2, 3, 4, 5, 6, 7] {
        let y = y_base + first + O as u32;
        if y < g.out_height {
            // SAFETY: (x, y, c) is inside the output.
            unsafe { store_sample(output, g, x, y, c, acc[O]) };
        }
    });
}
