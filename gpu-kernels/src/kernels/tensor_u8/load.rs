//! The `tensor-u8` kernel's load phase: a block's input tile split into one plane of bytes per
//! channel in shared memory.

use super::planes::deinterleave;
use super::{BLOCK, COLUMNS, MAX_RADIUS, STRIDE, rows};
use crate::device::shared::dynamic_shared_mem;
use crate::device::{Bytes16, resolve, unroll};
use crate::launch::Geometry;

/// Loads the block's input tile, column 0 at input column `x0` and row 0 at input row `y0`, of a
/// `C`-channel image of `bytes` for radius `R`, into the planes of the dynamic shared memory
/// (channel c's plane at byte c · [`STRIDE`] · `rows(R)`); thread `first` of the block takes its
/// share. The ways it loads are [`conv_tensor_u8`](super::conv_tensor_u8)'s `# Tiling`.
///
/// # Safety
/// [`conv_tensor_u8`](super::conv_tensor_u8)'s launch contract; `bytes` is its input.
#[inline(always)]
pub(super) unsafe fn load_tile<const R: usize, const C: usize>(
    g: &Geometry,
    bytes: *const u8,
    (x0, y0): (i32, i32),
    first: u32,
) {
    /// Runs of 16 pixels a thread loads before storing any (the most any radius needs), so their
    /// latencies overlap.
    const BATCH: usize = ((COLUMNS / 16) * rows(MAX_RADIUS)).div_ceil(BLOCK.0 * BLOCK.1) as usize;
    const { assert!(BATCH <= 3, "the batch's unrolled copies below") };
    let rows = rows(R as u32);
    let plane = STRIDE * rows;
    let shared = dynamic_shared_mem::<u8>();
    let threads = BLOCK.0 * BLOCK.1;
    // The constant border's byte (the host picks this kernel only where the constant is a whole
    // level; 0 for the other borders).
    let cval = (g.cval * 255.0 + 0.5) as u8;
    // Stores tile pixel (col, row) in the planes: the bytes the border rule reads, or the
    // constant outside the image (the constant border, or (border NONE) a position no output
    // uses).
    let load_pixel = |col: u32, row: u32| {
        let xx = resolve(x0 + col as i32, g.in_width as i32, g.border);
        let yy = resolve(y0 + row as i32, g.in_height as i32, g.border);
        let inside = (xx as u32) < g.in_width && (yy as u32) < g.in_height;
        let at = if inside {
            (yy as usize * g.in_width as usize + xx as usize) * C
        } else {
            0
        };
        unroll!(CH < C; [0, 1, 2, 3] {
            // SAFETY: (xx, yy) is inside the image where read; (col, row) inside the tile.
            unsafe {
                *shared.add((CH as u32 * plane + row * STRIDE + col) as usize) =
                    if inside { *bytes.add(at + CH) } else { cval }
            };
        });
    };
    if (g.in_width * C as u32).is_multiple_of(16) && (x0 * C as i32) % 16 == 0 {
        // Runs of 16 pixels (C vectors) of the tile.
        let per_row = COLUMNS / 16;
        let total = per_row * rows;
        // Whether run e of the tile lies wholly inside the image (always, in a tile inside).
        let whole =
            x0 >= 0 && y0 >= 0 && x0 as u32 + COLUMNS <= g.in_width && y0 as u32 + rows <= g.in_height;
        let inside = |e: u32| -> bool {
            let (gx, gy) = (x0 + 16 * (e % per_row) as i32, y0 + (e / per_row) as i32);
            whole || (gx >= 0 && gy >= 0 && gx as u32 + 16 <= g.in_width && (gy as u32) < g.in_height)
        };
        if !whole {
            // Runs beyond the image's edges first, pixel by pixel with the border resolved: only
            // the pixels within R of the image, the only ones a stored output reads. The others
            // (a tile's columns and rows past the image's, in images whose size is not a
            // multiple of the tile's) feed only outputs that are never stored, and keep what the
            // shared memory held.
            let (reach_x, reach_y) = ((g.in_width + R as u32) as i32, (g.in_height + R as u32) as i32);
            let mut e = first;
            while e < total {
                let (gx, gy) = (x0 + 16 * (e % per_row) as i32, y0 + (e / per_row) as i32);
                if !inside(e) && gy >= -(R as i32) && gy < reach_y {
                    for p in 0..16 {
                        if gx + p >= -(R as i32) && gx + p < reach_x {
                            load_pixel(16 * (e % per_row) + p as u32, e / per_row);
                        }
                    }
                }
                e += threads;
            }
        }
        // Sized for 4 channels, so the unrolled copies past C (which vanish) index inside it.
        let mut batch = [[[0u32; 4]; 4]; 3];
        unroll!(B < BATCH; [0, 1, 2] {
            let e = first + B as u32 * threads;
            if e < total && inside(e) {
                let pixel = (y0 + (e / per_row) as i32) as usize * g.in_width as usize
                    + (x0 + 16 * (e % per_row) as i32) as usize;
                unroll!(V < C; [0, 1, 2, 3] {
                    // SAFETY: 16 bytes inside the image (the run is), 16-aligned (the run's first
                    // byte and the row's are multiples of 16; the host's buffers are 256-byte
                    // aligned).
                    batch[B][V] = unsafe { Bytes16::load_global(bytes.add(pixel * C + 16 * V)) }.0;
                });
            }
        });
        unroll!(B < BATCH; [0, 1, 2] {
            let e = first + B as u32 * threads;
            if e < total && inside(e) {
                let planes = deinterleave::<C>(batch[B]);
                let at = (e / per_row) * STRIDE + 16 * (e % per_row);
                unroll!(CH < C; [0, 1, 2, 3] {
                    // SAFETY: inside plane CH (row < rows, 16 columns of the run < stride),
                    // 16-aligned (plane, stride and run multiples of 16).
                    unsafe { *shared.add((CH as u32 * plane + at) as usize).cast::<Bytes16>() = Bytes16(planes[CH]) };
                });
            }
        });
    } else {
        let mut e = first;
        while e < COLUMNS * rows {
            load_pixel(e % COLUMNS, e / COLUMNS);
            e += threads;
        }
    }
}
