//! Roots of sums of squares rounded as numpy rounds them, and the combined store of
//! [`Geometry::combine`]: a filter's result `v` stored as `√(c² + v²)`.

use super::conv::out_index;
use super::sample::{F32x4, Sample};
use super::unroll::unroll;
use crate::launch::Geometry;

/// `√(x² + y² + z²)`, each square, sum and root rounded to nearest in that order (`mul.rn`,
/// `add.rn`, `sqrt.rn`: no fused multiply-add), numpy's `np.sqrt(x * x + y * y + z * z)` bit for
/// bit. With `z` 0 it is `√(x² + y²)` exactly: a sum of squares is never -0, so adding `+0`
/// changes nothing.
#[inline(always)]
pub fn root_of_squares(x: f32, y: f32, z: f32) -> f32 {
    let r: f32;
    // SAFETY: arithmetic on registers only.
    unsafe {
        core::arch::asm!(
            "{{",
            ".reg .f32 s, t;",
            "mul.rn.f32 s, {x}, {x};",
            "mul.rn.f32 t, {y}, {y};",
            "add.rn.f32 s, s, t;",
            "mul.rn.f32 t, {z}, {z};",
            "add.rn.f32 s, s, t;",
            "sqrt.rn.f32 {r}, s;",
            "}}",
            r = out(reg32) r,
            x = in(reg32) x,
            y = in(reg32) y,
            z = in(reg32) z,
            options(nostack, nomem, pure),
        );
    }
    r
}

/// The image [`Geometry::combine`] names, at the image of the batch whose output starts at
/// `output` (`base` the launch's first output), or None: where it is 0, and for every sample
/// type but `f32` (a compile-time test, so those entries keep no trace of it).
#[inline(always)]
pub fn combine_image<T: Sample>(g: &Geometry, base: *const T, output: *const T) -> Option<*const f32> {
    if core::mem::size_of::<T>() != 4 || T::INTEGER {
        return None;
    }
    let address = (u64::from(g.combine[1]) << 32) | u64::from(g.combine[0]);
    if address == 0 {
        return None;
    }
    let image = (output as usize - base as usize) / core::mem::size_of::<T>();
    Some((address as *const f32).wrapping_add(image))
}

/// `v` combined with sample `(x, y, c)` of `image` (see [`Geometry::combine`]).
///
/// # Safety
/// `image` is [`combine_image`]'s, and `(x, y, c)` is inside the output.
#[inline(always)]
pub unsafe fn combine_sample(image: *const f32, g: &Geometry, x: u32, y: u32, c: u32, v: f32) -> f32 {
    // SAFETY: forwarded from the caller: the image has the output's layout.
    root_of_squares(unsafe { *image.add(out_index(g, x, y, c)) }, v, 0.0)
}

/// Each result of a patch of 4 × `PY` outputs at `(x, y)` of channel `c` combined with `image`
/// where inside the output (as [`store_patch`](super::store_patch) stores them): a 16-byte load
/// a row where that stores one.
///
/// # Safety
/// `image` is [`combine_image`]'s for this block's image.
#[inline(always)]
pub unsafe fn combine_patch<const PY: usize>(
    image: *const f32,
    g: &Geometry,
    (x, y, c): (u32, u32, u32),
    acc: &mut [[f32; 4]; PY],
) {
    let vector = g.channels == 1 && g.out_width.is_multiple_of(4) && x + 3 < g.out_width;
    unroll!(OY < PY; [0, 1, 2, 3, 4, 5, 6, 7] {
        let yy = y + OY as u32;
        if yy < g.out_height {
            if vector {
                // SAFETY: 4 samples of one row inside the output, 16-byte aligned (the image
                // is, x and the row width are multiples of 4).
                let cs = unsafe { *image.add(out_index(g, x, yy, c)).cast::<F32x4>() }.0;
                unroll!(OX < 4; [0, 1, 2, 3] {
                    acc[OY][OX] = root_of_squares(cs[OX], acc[OY][OX], 0.0);
                });
            } else {
                unroll!(OX < 4; [0, 1, 2, 3] {
                    if x + (OX as u32) < g.out_width {
                        // SAFETY: (x + OX, yy, c) is inside the output.
                        acc[OY][OX] = unsafe { combine_sample(image, g, x + OX as u32, yy, c, acc[OY][OX]) };
                    }
                });
            }
        }
    });
}
