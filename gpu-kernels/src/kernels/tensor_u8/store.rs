//! The `tensor-u8` kernel's store phase: each warp's outputs staged in its own area of shared
//! memory, then written as 16-byte vectors where the output's rows are whole vectors.

use super::{HALO, OUT_STRIDE, STRIDE, rows};
use crate::device::shared::dynamic_shared_mem;
use crate::device::thread::{sync_warp, thread_idx_x};
use crate::device::{Bytes16, Sample, Store, byte_perm, out_index, unroll};
use crate::launch::Geometry;

/// Stores a colour warp's outputs (`C` = 3, 4 channels) at `(x, y)`, the warp's 64 × 16 outputs at
/// `(wx, wy)` of the tile, 16 × 16 pixels (two windows, every channel) at a time: `window(at)` is
/// the lane's 4 outputs of the window whose A fragment word is `at` (`base` that of window 0 in
/// plane 0), staged interleaved at byte `staging_at` of the shared memory and written as 16-byte
/// vectors where the output's rows are whole vectors, else sample by sample, RGBA's alpha taken
/// from its plane.
///
/// # Safety
/// [`conv_tensor_u8`](super::conv_tensor_u8)'s launch contract; `output` is its output and
/// `staging_at` the warp's staging area.
#[inline(always)]
pub(super) unsafe fn store_colour<const R: usize, const C: usize>(
    window: impl Fn(u32) -> [f32; 4],
    output: *mut u8,
    g: &Geometry,
    (x, y): (u32, u32),
    (wx, wy): (u32, u32),
    (base, staging_at): (u32, u32),
) {
    // Channels filtered (RGBA's alpha is copied).
    let colours = if C == 4 { 3 } else { C as u32 };
    let tx = thread_idx_x();
    let (lane_g, lane_t) = (tx / 4, tx % 4);
    let plane = STRIDE * rows(R as u32);
    let shared = dynamic_shared_mem::<u8>();
    let words = shared.cast::<u32>().cast_const();
    // SAFETY: inside the dynamic shared memory (`shared_bytes`).
    let staging = unsafe { shared.add(staging_at as usize) };
    for half in 0..4u32 {
        // Every channel of windows 2 · half and 2 · half + 1: 16 × 16 pixels, staged interleaved.
        for c in 0..colours {
            for h in 0..2u32 {
                let values = window(c * plane / 4 + base + 2 * (2 * half + h));
                unroll!(E < 4; [0, 1, 2, 3] {
                    let (row, col) = (lane_g + 8 * (E as u32 / 2), 8 * h + 2 * lane_t + E as u32 % 2);
                    let at = staging_at + row * OUT_STRIDE + col * C as u32 + c;
                    // SAFETY: inside this warp's staging area (row < 16, byte < 16 · C <= 64).
                    unsafe { *shared.add(at as usize) = u8::store(values[E], Store::of(g, true)) };
                });
            }
        }
        sync_warp();
        // Column and row of the staged pixels' alpha in the tile (output pixel (x, y) reads input
        // pixel (x + offset, y + offset), tile position (x - ox + HALO, y - oy + R)).
        let alpha_at = 3 * plane + (R as u32 + wy) * STRIDE + HALO + wx + 16 * half;
        let x = x + 16 * half;
        if (g.out_width * C as u32).is_multiple_of(16) {
            // C vectors per row of 16 pixels; lane tx stores vectors tx and tx + 32.
            unroll!(I < 2; [0, 1] {
                let e = tx + 32 * I as u32;
                let (row, q) = (e / C as u32, e % C as u32);
                let sample = x * C as u32 + 16 * q;
                if e < 16 * C as u32 && y + row < g.out_height && sample < g.out_width * C as u32 {
                    // SAFETY: 16 bytes of the staging area, 16-aligned; of the output: inside
                    // (checked: the row's samples are whole vectors) and 16-aligned.
                    unsafe {
                        let mut v = *staging.add((row * OUT_STRIDE + 16 * q) as usize).cast::<Bytes16>();
                        if C == 4 {
                            // Pixels 4q .. 4q + 3: their alpha, one word of plane 3.
                            let alpha = *words.add(((alpha_at + row * STRIDE + 4 * q) / 4) as usize);
                            v.0 = [0, 1, 2, 3].map(|i| byte_perm(v.0[i], alpha, 0x0210 | (4 + i as u32) << 12));
                        }
                        let at = (y + row) as usize * (g.out_width as usize * C) + sample as usize;
                        v.store_global(output.add(at));
                    }
                }
            });
        } else {
            let mut e = tx;
            while e < 16 * 16 * C as u32 {
                let (row, s) = (e / (16 * C as u32), e % (16 * C as u32));
                let (col, c) = (s / C as u32, s % C as u32);
                if x + col < g.out_width && y + row < g.out_height {
                    // SAFETY: inside the staging area or plane 3, and the output (checked).
                    unsafe {
                        let v = if C == 4 && c == 3 {
                            *shared.add((alpha_at + row * STRIDE + col) as usize)
                        } else {
                            *staging.add((row * OUT_STRIDE + s) as usize)
                        };
                        *output.add(out_index(g, x + col, y + row, c)) = v;
                    }
                }
                e += 32;
            }
        }
        sync_warp();
    }
}

/// Stores a gray warp's 64 × 16 staged outputs at `(x, y)`: as 16-byte vectors where the
/// output's rows are whole vectors, else byte by byte (at constant address steps where all are
/// inside the output).
///
/// # Safety
/// `staging` holds the 16 rows, [`OUT_STRIDE`] apart, 16-aligned; `output` is the output of
/// a one-channel geometry `g`.
#[inline(always)]
pub(super) unsafe fn store_gray(staging: *const u8, output: *mut u8, g: &Geometry, (x, y): (u32, u32)) {
    let tx = thread_idx_x();
    if g.out_width.is_multiple_of(16) && x + 64 <= g.out_width {
        unroll!(I < 2; [0, 1] {
            let e = tx + 32 * I as u32;
            let (row, q) = (e / 4, e % 4);
            if y + row < g.out_height {
                // SAFETY: 16 bytes of the staging area, 16-aligned (stride and base multiples of
                // 16), and of the output: inside (checked) and 16-aligned (x and the width are
                // multiples of 16).
                unsafe {
                    let v = *staging.add((row * OUT_STRIDE + 16 * q) as usize).cast::<Bytes16>();
                    v.store_global(output.add(out_index(g, x + 16 * q, y + row, 0)));
                }
            }
        });
    } else if x + 64 <= g.out_width && y + 16 <= g.out_height {
        // All inside: lane `tx` stores columns tx and tx + 32 of each row, at addresses that
        // advance by constants.
        let mut at = out_index(g, x + tx, y, 0);
        unroll!(ROW < 16; [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15] {
            unroll!(H < 2; [0, 1] {
                // SAFETY: inside the staging area (row < 16, column < 64) and the output (checked).
                unsafe { *output.add(at + H * 32) = *staging.add(ROW * OUT_STRIDE as usize + tx as usize + 32 * H) };
            });
            at += g.out_width as usize;
        });
    } else {
        let mut e = tx;
        while e < 16 * 64 {
            let (row, col) = (e / 64, e % 64);
            if x + col < g.out_width && y + row < g.out_height {
                // SAFETY: inside the staging area and the output.
                unsafe {
                    *output.add(out_index(g, x + col, y + row, 0)) =
                        *staging.add((row * OUT_STRIDE + col) as usize)
                };
            }
            e += 32;
        }
    }
}
