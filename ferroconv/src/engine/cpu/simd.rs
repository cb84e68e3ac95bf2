//! The vector loops of the fast paths, written once with `std::simd` so they vectorize on every
//! target (AVX2 + FMA on x86-64 when the CPU has them, SSE2 otherwise, NEON on aarch64), and the
//! vectorized conversions between image samples and the `f32` working rows.

use std::simd::StdFloat;
use std::simd::prelude::*;

/// Lanes of one working vector.
pub const LANES: usize = 8;
/// Vectors accumulated together: enough independent multiply-adds in flight to hide their latency
/// (8 registers of 8 lanes on AVX2, 16 of 4 on NEON).
const VECTORS: usize = 8;
/// Output samples computed together; working rows are whole multiples of it.
pub const BLOCK: usize = LANES * VECTORS;

type V = Simd<f32, LANES>;

/// 2^23: the `f32` whose unit in the last place is 1.
const MAGIC: f32 = 8_388_608.0;

/// Whether the multiply-adds are fused: on aarch64 always, on x86-64 where the CPU has FMA (the
/// caller picks the compiled copy), elsewhere never (a software `fma` would be slow).
#[inline(always)]
fn madd<const FMA: bool>(a: V, b: V, c: V) -> V {
    if FMA { a.mul_add(b, c) } else { a * b + c }
}

/// The correlation of `rows.len()` working rows with a `rows.len() × cols` block of `taps`
/// (row-major), horizontal taps `step` samples apart (the channel count of interleaved rows):
/// `out[n] = Σ_{i,j} rows[i][n + j·step] · taps[i·cols + j]` for every `n` of `out` (a multiple
/// of [`BLOCK`] long; each row at least `out.len() + (cols - 1)·step`). The 2D path (all `k`
/// rows, `k` columns), the row pass (one row, `k` columns) and the column pass (`k` rows, one
/// column) are this loop. Each sample's terms are summed in the same order wherever it lies.
#[inline(always)]
pub fn correlate<const FMA: bool>(rows: &[&[f32]], taps: &[f32], cols: usize, step: usize, out: &mut [f32]) {
    debug_assert_eq!(taps.len(), rows.len() * cols);
    for (b, block) in out.as_chunks_mut::<BLOCK>().0.iter_mut().enumerate() {
        let x = b * BLOCK;
        let mut acc = [V::splat(0.0); VECTORS];
        for (row, row_taps) in rows.iter().zip(taps.chunks_exact(cols)) {
            for (j, &tap) in row_taps.iter().enumerate() {
                let t = V::splat(tap);
                let at = x + j * step;
                let src: &[f32; BLOCK] = row[at..at + BLOCK].try_into().expect("BLOCK samples");
                for (a, chunk) in acc.iter_mut().zip(src.as_chunks::<LANES>().0) {
                    *a = madd::<FMA>(V::from_array(*chunk), t, *a);
                }
            }
        }
        for (a, chunk) in acc.iter().zip(block.as_chunks_mut::<LANES>().0) {
            *chunk = a.to_array();
        }
    }
}

/// Vectors per output row in [`correlate_pair`]: two rows of them plus two taps and the loaded
/// vector fit AVX2's 16 registers.
const PAIR_VECTORS: usize = 4;
/// Output samples per row that [`correlate_pair`] computes together (a divisor of [`BLOCK`]).
const PAIR_BLOCK: usize = LANES * PAIR_VECTORS;

/// [`correlate`] for two neighbouring output rows at once, `top` from `rows[..k]` and `bottom`
/// from `rows[1..]` (`rows.len()` is `k + 1` for `k` rows of `taps`): each vector of an inner
/// row is loaded once for both, which halves the loads per multiply-add (the loop is bound by
/// loads, many of them across cache lines). Every sample's terms are summed in the order
/// [`correlate`] uses, so the bits are the same.
#[inline(always)]
pub fn correlate_pair<const FMA: bool>(
    rows: &[&[f32]],
    taps: &[f32],
    cols: usize,
    step: usize,
    top: &mut [f32],
    bottom: &mut [f32],
) {
    let k = rows.len() - 1;
    debug_assert_eq!(taps.len(), k * cols);
    let (top, bottom) = (
        top.as_chunks_mut::<PAIR_BLOCK>().0,
        bottom.as_chunks_mut::<PAIR_BLOCK>().0,
    );
    for (b, (top, bottom)) in top.iter_mut().zip(bottom.iter_mut()).enumerate() {
        let x = b * PAIR_BLOCK;
        let load = |p: usize, j: usize| -> [V; PAIR_VECTORS] {
            let at = x + j * step;
            let src: &[f32; PAIR_BLOCK] = rows[p][at..at + PAIR_BLOCK]
                .try_into()
                .expect("PAIR_BLOCK samples");
            std::array::from_fn(|v| V::from_slice(&src[v * LANES..]))
        };
        let mut up = [V::splat(0.0); PAIR_VECTORS];
        let mut down = [V::splat(0.0); PAIR_VECTORS];
        for (j, &tap) in taps[..cols].iter().enumerate() {
            let t = V::splat(tap);
            for (a, v) in up.iter_mut().zip(load(0, j)) {
                *a = madd::<FMA>(v, t, *a);
            }
        }
        for p in 1..k {
            for j in 0..cols {
                let (t_up, t_down) = (V::splat(taps[p * cols + j]), V::splat(taps[(p - 1) * cols + j]));
                for ((u, d), v) in up.iter_mut().zip(down.iter_mut()).zip(load(p, j)) {
                    *u = madd::<FMA>(v, t_up, *u);
                    *d = madd::<FMA>(v, t_down, *d);
                }
            }
        }
        for (j, &tap) in taps[(k - 1) * cols..].iter().enumerate() {
            let t = V::splat(tap);
            for (a, v) in down.iter_mut().zip(load(k, j)) {
                *a = madd::<FMA>(v, t, *a);
            }
        }
        for (a, chunk) in up.iter().zip(top.as_chunks_mut::<LANES>().0) {
            *chunk = a.to_array();
        }
        for (a, chunk) in down.iter().zip(bottom.as_chunks_mut::<LANES>().0) {
            *chunk = a.to_array();
        }
    }
}

/// An image sample type the fast paths read and write: converted to `f32` in its own units
/// (levels for integers, so no scaling), and back with rounding and clamping for integers.
pub trait Sample: Copy + Default + Send + Sync + 'static {
    /// `dst[n] = src[n]` as `f32`, for every `n` of `dst` (`src` as long).
    fn load_row(src: &[Self], dst: &mut [f32]);
    /// `dst[n] = src[n]` as this type: integers clamped to their range and rounded to the
    /// nearest level (halves up); `f32` clamped to [0, 1] only if `clamp`.
    fn store_row(src: &[f32], dst: &mut [Self], clamp: bool);
    /// One sample as `f32`, for the few border pixels of a row.
    fn load(self) -> f32;
}

impl Sample for f32 {
    #[inline(always)]
    fn load_row(src: &[f32], dst: &mut [f32]) {
        dst.copy_from_slice(src);
    }
    #[inline(always)]
    fn store_row(src: &[f32], dst: &mut [f32], clamp: bool) {
        if clamp {
            for (d, &s) in dst.iter_mut().zip(src) {
                *d = s.clamp(0.0, 1.0);
            }
        } else {
            stream_copy(src, dst);
        }
    }
    #[inline(always)]
    fn load(self) -> f32 {
        self
    }
}

/// `dst` = `src`, on x86-64 with non-temporal stores: the output is written once and never read
/// back here, so streaming it past the caches spares reading each destination line first (a
/// third of the memory traffic of an `f32` call). [`store_fence`] must follow before the rows
/// are read by another thread.
#[inline(always)]
fn stream_copy(src: &[f32], dst: &mut [f32]) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_loadu_ps, _mm_stream_ps};
        let head = dst.as_ptr().align_offset(16).min(dst.len());
        let (dst_head, dst_rest) = dst.split_at_mut(head);
        let (src_head, src_rest) = src.split_at(head);
        dst_head.copy_from_slice(src_head);
        let (dst_body, dst_tail) = dst_rest.as_chunks_mut::<4>();
        let (src_body, src_tail) = src_rest.as_chunks::<4>();
        for (d, s) in dst_body.iter_mut().zip(src_body) {
            // SAFETY: `d` is 16 bytes, 16-byte aligned (the head above reached the alignment and
            // every chunk is 16 bytes); `s` is 16 readable bytes (unaligned load).
            unsafe { _mm_stream_ps(d.as_mut_ptr(), _mm_loadu_ps(s.as_ptr())) };
        }
        dst_tail.copy_from_slice(&src_tail[..dst_tail.len()]);
    }
    #[cfg(not(target_arch = "x86_64"))]
    dst.copy_from_slice(src);
}

/// Orders the non-temporal stores of [`stream_copy`] before whatever follows: on x86-64 they
/// are not ordered by the release stores that hand a band's rows back to the caller, but they
/// are by a sequentially consistent fence (`mfence`).
#[inline(always)]
pub fn store_fence() {
    std::sync::atomic::fence(std::sync::atomic::Ordering::SeqCst);
}

/// The integer sample types, `LANES` at a time through `i32` lanes.
macro_rules! integer_sample {
    ($t:ty) => {
        impl Sample for $t {
            #[inline(always)]
            fn load_row(src: &[$t], dst: &mut [f32]) {
                let src = &src[..dst.len()];
                let (d, dt) = dst.as_chunks_mut::<LANES>();
                let (s, st) = src.as_chunks::<LANES>();
                for (d, s) in d.iter_mut().zip(s) {
                    *d = Simd::<$t, LANES>::from_array(*s).cast::<f32>().to_array();
                }
                for (d, &s) in dt.iter_mut().zip(st) {
                    *d = f32::from(s);
                }
            }
            #[inline(always)]
            fn store_row(src: &[f32], dst: &mut [$t], _clamp: bool) {
                const MAX: f32 = <$t>::MAX as f32;
                let src = &src[..dst.len()];
                let (d, dt) = dst.as_chunks_mut::<LANES>();
                let (s, st) = src.as_chunks::<LANES>();
                for (d, s) in d.iter_mut().zip(s) {
                    // max then min (not clamp): NaN becomes 0, as the scalar `as` does below.
                    let v = V::from_array(*s)
                        .simd_max(V::splat(0.0))
                        .simd_min(V::splat(MAX));
                    // An integer below 2^23 plus 2^23 has that integer as its mantissa bits: an
                    // exact conversion that vectorizes everywhere (a saturating cast does not).
                    let level = (v + V::splat(0.5)).floor() + V::splat(MAGIC);
                    *d = (level.to_bits() - Simd::splat(MAGIC.to_bits()))
                        .cast::<$t>()
                        .to_array();
                }
                for (d, &s) in dt.iter_mut().zip(st) {
                    *d = (s.clamp(0.0, MAX) + 0.5) as $t;
                }
            }
            #[inline(always)]
            fn load(self) -> f32 {
                f32::from(self)
            }
        }
    };
}

integer_sample!(u8);
integer_sample!(u16);
