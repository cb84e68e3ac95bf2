//! Border handling: where a coordinate outside the image reads from, per border mode.

use super::source::Source;
use crate::launch::{Geometry, border};

/// Maps coordinate `i` on an axis of `n` pixels into the image by the border `mode`; -1 means
/// "outside, reads as the constant" (the constant border). [`border::NONE`] returns `i` unchanged.
#[inline(always)]
pub fn resolve(i: i32, n: i32, mode: u32) -> i32 {
    if (i as u32) < (n as u32) || mode == border::NONE {
        return i;
    }
    match mode {
        border::REPLICATE => {
            if i < 0 {
                0
            } else {
                n - 1
            }
        }
        border::REFLECT => {
            if n == 1 {
                return 0;
            }
            let period = 2 * (n - 1);
            let m = i.rem_euclid(period);
            if m >= n { period - m } else { m }
        }
        border::SYMMETRIC => symmetric(i, n),
        border::WRAP => i.rem_euclid(n),
        _ => -1,
    }
}

/// [`resolve`]'s symmetric border, out of line: inlined into each of the many places `resolve`
/// is, it took register-limited entries past their limits.
#[inline(never)]
fn symmetric(i: i32, n: i32) -> i32 {
    let period = 2 * n;
    let m = i.rem_euclid(period);
    if m >= n { period - 1 - m } else { m }
}

/// Whether every position outside the image reads as [`Geometry::cval`] under `g`'s border: the
/// constant border, and [`border::NONE`] (whose outside positions no output uses; its `cval` is
/// 0). A tile loader can then fill what lies outside with the constant, a branch the whole block
/// takes alike, instead of resolving each pixel.
#[inline(always)]
pub fn outside_is_constant(g: &Geometry) -> bool {
    g.border == border::CONSTANT || g.border == border::NONE
}

/// The input value at `(x, y)` after border resolution, or [`Geometry::cval`] where the result is
/// outside the image (the constant border; with [`border::NONE`], positions no output uses, which
/// must not be read).
#[inline(always)]
pub fn fetch_or_cval(g: &Geometry, src: &impl Source, x: i32, y: i32) -> f32 {
    let (xx, yy) = (
        resolve(x, g.in_width as i32, g.border),
        resolve(y, g.in_height as i32, g.border),
    );
    if (xx as u32) < g.in_width && (yy as u32) < g.in_height {
        src.fetch(xx, yy)
    } else {
        g.cval
    }
}
