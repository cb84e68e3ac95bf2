//! The arithmetic and output side shared by the kernels: FMA, correlation over a window, and
//! storing samples and patches of samples.

use super::border::resolve;
use super::sample::{Sample, Store};
use super::source::Source;
use super::taps::ParamTaps;
use super::thread::{block_idx_z, index_2d, thread_idx_x, thread_idx_y};
use super::unroll::unroll;
use crate::launch::{Geometry, border};

/// Fused multiply-add `a * b + c` with one rounding (`fma.rn.f32`).
#[inline(always)]
pub fn fma(a: f32, b: f32, c: f32) -> f32 {
    core::intrinsics::fmaf32(a, b, c)
}

/// `v`, computed here: an empty `asm` block the compiler may neither move nor drop, so the
/// instructions that produce `v` stay ahead of it instead of being sunk into a later branch.
#[inline(always)]
pub fn computed_here(mut v: f32) -> f32 {
    // SAFETY: an empty instruction sequence; it only claims to read and write `v`'s register.
    unsafe { core::arch::asm!("// {v}", v = inout(reg32) v, options(nomem, nostack)) };
    v
}

/// Whether this block's channel is the alpha channel of an RGBA image, copied rather than
/// filtered (see [`Geometry::filter_alpha`]).
#[inline(always)]
pub fn is_alpha(g: &Geometry, channel: u32) -> bool {
    g.channels == 4 && channel == 3 && g.filter_alpha == 0
}

/// The address of output sample `(x, y)` of this block's channel.
#[inline(always)]
pub fn out_index(g: &Geometry, x: u32, y: u32, channel: u32) -> usize {
    (y as usize * g.out_width as usize + x as usize) * g.channels as usize + channel as usize
}

/// The correlation at output pixel `(x, y)` reading every tap from `src`, borders per `g`.
/// Shared by the one-thread-per-sample kernels, which differ only in where input and taps live.
#[inline(always)]
pub fn correlate(g: &Geometry, src: &impl Source, x: u32, y: u32, tap: impl Fn(u32) -> f32) -> f32 {
    let (r, k) = (g.radius as i32, 2 * g.radius + 1);
    let x0 = (x + g.offset) as i32 - r;
    let y0 = (y + g.offset) as i32 - r;
    let mut acc = 0.0f32;
    for i in 0..k {
        let yy = resolve(y0 + i as i32, g.in_height as i32, g.border);
        for j in 0..k {
            let xx = resolve(x0 + j as i32, g.in_width as i32, g.border);
            // Outside reads the constant (the constant border; none is outside under NONE).
            let v = if (xx >= 0 && yy >= 0) || g.border == border::NONE {
                src.fetch(xx, yy)
            } else {
                g.cval
            };
            acc = fma(v, tap(i * k + j), acc);
        }
    }
    acc
}

/// The correlation over the `k × k` window of a shared-memory tile whose top-left element is
/// `window`, rows `stride` apart.
///
/// # Safety
/// The whole window lies inside the block's shared tile, written before the last barrier.
#[inline(always)]
pub unsafe fn correlate_tile(window: *const f32, stride: u32, k: u32, taps: ParamTaps) -> f32 {
    let mut acc = 0.0f32;
    for i in 0..k {
        let row = window.wrapping_add((i * stride) as usize);
        for j in 0..k {
            // SAFETY: inside the window (caller's contract).
            acc = fma(unsafe { *row.add(j as usize) }, taps.get(i * k + j), acc);
        }
    }
    acc
}

/// Writes output sample `(x, y, c)`: clamped and rounded (or truncated) for the output type, as
/// `g` says, except RGBA's alpha, which is stored as read (its level survives truncation too).
///
/// # Safety
/// `(x, y, c)` is inside the output `g` describes.
#[inline(always)]
pub unsafe fn store_sample<T: Sample>(output: *mut T, g: &Geometry, x: u32, y: u32, c: u32, v: f32) {
    let mode = Store::of(g, g.clamp != 0 && !is_alpha(g, c));
    // SAFETY: forwarded from the caller.
    unsafe { *output.add(out_index(g, x, y, c)) = T::store(v, mode) };
}

/// Copies RGBA's alpha (channel 3) of the output tile `tile` pixels wide and high at `origin` from
/// the input, for a block of `block` threads: one output row per warp step, one pixel per lane.
///
/// # Safety
/// `input` and `output` point to the images `g` describes, which have 4 channels.
#[inline(always)]
pub unsafe fn copy_alpha_tile<T: Sample>(
    input: *const T,
    output: *mut T,
    g: &Geometry,
    origin: (u32, u32),
    tile: (u32, u32),
    block: (u32, u32),
) {
    let (ox, oy) = origin;
    let mut y = oy + thread_idx_y();
    while y < (oy + tile.1).min(g.out_height) {
        let mut x = ox + thread_idx_x();
        while x < (ox + tile.0).min(g.out_width) {
            let at = ((y + g.offset) as usize * g.in_width as usize + (x + g.offset) as usize) * 4 + 3;
            // SAFETY: (x + offset, y + offset) is inside the input; alpha is stored as read.
            unsafe { store_sample(output, g, x, y, 3, T::load(input.add(at))) };
            x += block.0;
        }
        y += block.1;
    }
}

/// The one-thread-per-output-sample kernel body: thread `(x, y)` of block plane `z` writes output
/// sample `(x, y, z)`: the correlation, or for RGBA's alpha the input sample it is centred on.
///
/// # Safety
/// `output` points to `out_width · out_height · channels` samples; `src` covers the input.
#[inline(always)]
pub unsafe fn per_sample<T: Sample>(
    g: &Geometry,
    src: &impl Source,
    output: *mut T,
    tap: impl Fn(u32) -> f32,
) {
    let (x, y) = index_2d();
    let c = block_idx_z();
    if x >= g.out_width || y >= g.out_height {
        return;
    }
    let v = if is_alpha(g, c) {
        src.fetch((x + g.offset) as i32, (y + g.offset) as i32)
    } else {
        correlate(g, src, x, y, tap)
    };
    // SAFETY: (x, y, c) is inside the output.
    unsafe { store_sample(output, g, x, y, c, v) };
}

/// Writes a thread's 4 × PY patch of outputs (PY ≤ 4) with top-left `(x, y)` in channel `c`: one vector
/// store per row where the 4 samples are aligned and inside a single-channel output, else sample by
/// sample, skipping samples outside the output. RGBA's alpha is stored as it is.
///
/// # Safety
/// `output` points to the output `g` describes and `(x, y)` is inside it.
#[inline(always)]
pub unsafe fn store_patch<T: Sample, const PY: usize>(
    output: *mut T,
    g: &Geometry,
    x: u32,
    y: u32,
    c: u32,
    acc: &[[f32; 4]; PY],
) {
    let mode = Store::of(g, g.clamp != 0 && !is_alpha(g, c));
    let vector_store = g.channels == 1 && g.out_width.is_multiple_of(4) && x + 3 < g.out_width;
    unroll!(OY < PY; [0, 1, 2, 3, 4, 5, 6, 7] {
        let yy = y + OY as u32;
        if yy < g.out_height {
            if vector_store {
                // SAFETY: 4 pixels of one channel inside the output, 4-aligned (x and the row
                // width are multiples of 4).
                unsafe { T::store4(output.add(out_index(g, x, yy, c)), acc[OY], mode) };
            } else {
                unroll!(OX < 4; [0, 1, 2, 3] {
                    let xx = x + OX as u32;
                    if xx < g.out_width {
                        // SAFETY: (xx, yy, c) is inside the output.
                        unsafe { *output.add(out_index(g, xx, yy, c)) = T::store(acc[OY][OX], mode) };
                    }
                });
            }
        }
    });
}
