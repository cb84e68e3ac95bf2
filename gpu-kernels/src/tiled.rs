//! The `tiled` kernel: the textbook's first tiled strategy, blocks the size of the input tile.

use crate::device::{block_x, block_y};
use crate::device::{fma, shared_tile, sync_threads, thread_x, thread_y};
use crate::launch::{TILED_IN, Taps, tiled_out};

/// Zero-border 2D correlation through a shared-memory input tile, filter in the constant bank.
///
/// # Tiling
/// A block covers an input tile of `TILED_IN × TILED_IN` pixels: an output tile of
/// `TILED_IN - 2r` squared pixels plus an `r`-pixel halo on each side. Each thread loads exactly one
/// input pixel (0 for ghost cells outside the image) into shared memory; after a barrier, the
/// threads of the inner `(TILED_IN - 2r)²` square each compute one output pixel from shared memory
/// alone. Global loads per output pixel drop from `k²` to about `(TILED_IN / (TILED_IN - 2r))²`.
///
/// # Thread mapping
/// Block `(bx, by)`, thread `(tx, ty)` loads input pixel
/// `(bx·out + tx - r, by·out + ty - r)` where `out = TILED_IN - 2r`, and, if it is an inner thread
/// and that pixel is inside the image, writes the output pixel at the same position.
///
/// # Safety
/// Launch with block `TILED_IN × TILED_IN` and `TILED_SHARED_BYTES` of dynamic shared memory;
/// `input` and `output` point to `width * height` `f32` on the device, not overlapping;
/// `radius <= MAX_RADIUS` and `taps` holds the `(2 * radius + 1)²` taps row-major.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn conv_tiled(
    input: *const f32,
    output: *mut f32,
    width: u32,
    height: u32,
    radius: u32,
    _taps: Taps,
) {
    let taps = param_taps!(conv_tiled, 5);
    let tile = shared_tile();
    let out_side = tiled_out(radius);
    let (tx, ty) = (thread_x(), thread_y());
    // Wrapping arithmetic: a column left of the image becomes huge and fails `< width`.
    let col = (block_x() * out_side + tx).wrapping_sub(radius);
    let row = (block_y() * out_side + ty).wrapping_sub(radius);
    let inside = col < width && row < height;

    let value = if inside {
        // SAFETY: (col, row) is inside the image.
        unsafe { *input.add(row as usize * width as usize + col as usize) }
    } else {
        0.0
    };
    // SAFETY: the block has TILED_IN² threads and TILED_IN² f32 of shared memory.
    unsafe { *tile.add((ty * TILED_IN + tx) as usize) = value };
    sync_threads();

    let (ox, oy) = (tx.wrapping_sub(radius), ty.wrapping_sub(radius));
    if ox < out_side && oy < out_side && inside {
        let k = 2 * radius + 1;
        let mut acc = 0.0f32;
        for i in 0..k {
            let tile_row = tile.wrapping_add(((oy + i) * TILED_IN + ox) as usize);
            for j in 0..k {
                // SAFETY: oy + i and ox + j are below out_side + 2r = TILED_IN.
                acc = fma(unsafe { *tile_row.add(j as usize) }, taps.get(i * k + j), acc);
            }
        }
        // SAFETY: (col, row) is inside the image.
        unsafe { *output.add(row as usize * width as usize + col as usize) = acc };
    }
}
