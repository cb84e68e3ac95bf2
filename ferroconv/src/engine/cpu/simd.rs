//! The vector loops of the fast paths and the conversions between image samples and the `f32`
//! working rows, in stable Rust: the loops are written once over a [`Vector`] type, AVX2 + FMA
//! intrinsics in the copy compiled for them on x86-64 ([`Avx2`]), elsewhere arrays whose loops
//! the compiler vectorizes ([`Portable`]: SSE2 on x86-64, NEON on aarch64). The conversions are
//! plain loops, vectorized the same way.

/// Lanes of one working vector.
pub(crate) const LANES: usize = 8;
/// Vectors accumulated together: enough independent multiply-adds in flight to hide their latency
/// (8 registers of 8 lanes on AVX2, 16 of 4 on NEON).
const VECTORS: usize = 8;
/// Output samples computed together; working rows are whole multiples of it.
pub(crate) const BLOCK: usize = LANES * VECTORS;

/// The operations the loops need on one working vector of [`LANES`] lanes.
pub(crate) trait Vector: Copy {
    /// Every lane `x`.
    fn splat(x: f32) -> Self;
    /// The lanes from `src`.
    fn load(src: &[f32; LANES]) -> Self;
    /// The lanes into `dst`.
    fn store(self, dst: &mut [f32; LANES]);
    /// `self · b + c` in each lane, fused or not as the type says.
    fn madd(self, b: Self, c: Self) -> Self;
}

/// Plain arrays, each operation a loop over the lanes that the compiler vectorizes for the
/// target's baseline (SSE2 on x86-64, NEON on aarch64); the multiply-adds fused if `FMA` (on
/// aarch64; a software `fma` would be slow elsewhere).
#[derive(Clone, Copy)]
pub(crate) struct Portable<const FMA: bool>([f32; LANES]);

impl<const FMA: bool> Vector for Portable<FMA> {
    #[inline(always)]
    fn splat(x: f32) -> Self {
        Self([x; LANES])
    }
    #[inline(always)]
    fn load(src: &[f32; LANES]) -> Self {
        Self(*src)
    }
    #[inline(always)]
    fn store(self, dst: &mut [f32; LANES]) {
        *dst = self.0;
    }
    #[inline(always)]
    fn madd(self, b: Self, c: Self) -> Self {
        Self(std::array::from_fn(|i| {
            if FMA {
                self.0[i].mul_add(b.0[i], c.0[i])
            } else {
                self.0[i] * b.0[i] + c.0[i]
            }
        }))
    }
}

/// One AVX register; multiply-adds fused. Only used by code that runs where the CPU has AVX2 and
/// FMA: the copy of a band compiled for them, which the caller runs once it has detected them
/// (`band_avx2` in the parent module).
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy)]
pub(crate) struct Avx2(std::arch::x86_64::__m256);

#[cfg(target_arch = "x86_64")]
impl Vector for Avx2 {
    #[inline(always)]
    fn splat(x: f32) -> Self {
        // SAFETY: the CPU has AVX (see the type).
        Self(unsafe { std::arch::x86_64::_mm256_set1_ps(x) })
    }
    #[inline(always)]
    fn load(src: &[f32; LANES]) -> Self {
        // SAFETY: the CPU has AVX (see the type); `src` is 8 readable `f32` (unaligned load).
        Self(unsafe { std::arch::x86_64::_mm256_loadu_ps(src.as_ptr()) })
    }
    #[inline(always)]
    fn store(self, dst: &mut [f32; LANES]) {
        // SAFETY: the CPU has AVX (see the type); `dst` is 8 writable `f32` (unaligned store).
        unsafe { std::arch::x86_64::_mm256_storeu_ps(dst.as_mut_ptr(), self.0) }
    }
    #[inline(always)]
    fn madd(self, b: Self, c: Self) -> Self {
        // SAFETY: the CPU has FMA (see the type).
        Self(unsafe { std::arch::x86_64::_mm256_fmadd_ps(self.0, b.0, c.0) })
    }
}

/// 2^23: the `f32` whose unit in the last place is 1.
const MAGIC: f32 = 8_388_608.0;

/// The correlation of `rows.len()` working rows with a `rows.len() × cols` block of `taps`
/// (row-major), horizontal taps `step` samples apart (the channel count of interleaved rows):
/// `out[n] = Σ_{i,j} rows[i][n + j·step] · taps[i·cols + j]` for every `n` of `out` (a multiple
/// of [`BLOCK`] long; each row at least `out.len() + (cols - 1)·step`). The 2D path (all `k`
/// rows, `k` columns), the row pass (one row, `k` columns) and the column pass (`k` rows, one
/// column) are this loop. Each sample's terms are summed in the same order wherever it lies.
#[inline(always)]
pub(crate) fn correlate<V: Vector>(rows: &[&[f32]], taps: &[f32], cols: usize, step: usize, out: &mut [f32]) {
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
                    *a = V::load(chunk).madd(t, *a);
                }
            }
        }
        for (a, chunk) in acc.iter().zip(block.as_chunks_mut::<LANES>().0) {
            a.store(chunk);
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
pub(crate) fn correlate_pair<V: Vector>(
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
            std::array::from_fn(|v| V::load(&src.as_chunks::<LANES>().0[v]))
        };
        let mut up = [V::splat(0.0); PAIR_VECTORS];
        let mut down = [V::splat(0.0); PAIR_VECTORS];
        for (j, &tap) in taps[..cols].iter().enumerate() {
            let t = V::splat(tap);
            for (a, v) in up.iter_mut().zip(load(0, j)) {
                *a = v.madd(t, *a);
            }
        }
        for p in 1..k {
            for j in 0..cols {
                let (t_up, t_down) = (V::splat(taps[p * cols + j]), V::splat(taps[(p - 1) * cols + j]));
                for ((u, d), v) in up.iter_mut().zip(down.iter_mut()).zip(load(p, j)) {
                    *u = v.madd(t_up, *u);
                    *d = v.madd(t_down, *d);
                }
            }
        }
        for (j, &tap) in taps[(k - 1) * cols..].iter().enumerate() {
            let t = V::splat(tap);
            for (a, v) in down.iter_mut().zip(load(k, j)) {
                *a = v.madd(t, *a);
            }
        }
        for (a, chunk) in up.iter().zip(top.as_chunks_mut::<LANES>().0) {
            a.store(chunk);
        }
        for (a, chunk) in down.iter().zip(bottom.as_chunks_mut::<LANES>().0) {
            a.store(chunk);
        }
    }
}

use crate::DType;

/// An image sample type the fast paths read and write: converted to `f32` in its own units
/// (levels for integers, so no scaling), and back with rounding (or truncation) and clamping for
/// integers.
pub trait Sample: Copy + Default + Send + Sync + 'static {
    /// The run-time name of this type.
    const DTYPE: DType;
    /// `dst[n] = src[n]` as `f32`, for every `n` of `dst` (`src` as long).
    fn load_row(src: &[Self], dst: &mut [f32]);
    /// `dst[n] = src[n]` as this type: integers clamped to their range and rounded to the
    /// nearest level (halves up), or where `widen` is given `src[n] · widen` truncated toward
    /// zero and wrapped as scipy's C cast (through `i32`; see `Problem::widen`); `f32` clamped to
    /// [0, 1] only if `clamp`.
    fn store_row(src: &[f32], dst: &mut [Self], clamp: bool, widen: Option<f64>);
    /// One sample as `f32`, for the few border pixels of a row.
    fn load(self) -> f32;
}

impl Sample for f32 {
    const DTYPE: DType = DType::F32;
    #[inline(always)]
    fn load_row(src: &[f32], dst: &mut [f32]) {
        dst.copy_from_slice(src);
    }
    #[inline(always)]
    fn store_row(src: &[f32], dst: &mut [f32], clamp: bool, _widen: Option<f64>) {
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
pub(crate) fn store_fence() {
    std::sync::atomic::fence(std::sync::atomic::Ordering::SeqCst);
}

/// The integer sample types: plain loops over the row, which the compiler vectorizes.
macro_rules! integer_sample {
    ($t:ty, $d:expr) => {
        impl Sample for $t {
            const DTYPE: DType = $d;
            #[inline(always)]
            fn load_row(src: &[$t], dst: &mut [f32]) {
                for (d, &s) in dst.iter_mut().zip(src) {
                    *d = f32::from(s);
                }
            }
            #[inline(always)]
            fn store_row(src: &[f32], dst: &mut [$t], _clamp: bool, widen: Option<f64>) {
                const MAX: f32 = <$t>::MAX as f32;
                if let Some(widen) = widen {
                    for (d, &s) in dst.iter_mut().zip(src) {
                        // scipy's C cast: toward zero into an `i32` (saturating, NaN 0), then
                        // the low bits (wrapped). The product in `f64`, whose one rounding (53
                        // bits) is far below a level.
                        *d = (f64::from(s) * widen) as i32 as $t;
                    }
                    return;
                }
                for (d, &s) in dst.iter_mut().zip(src) {
                    // max then min (not clamp): NaN becomes 0.
                    let v = s.max(0.0).min(MAX);
                    // An integer below 2^23 plus 2^23 has that integer as its mantissa bits: an
                    // exact conversion that vectorizes everywhere (a saturating cast does not).
                    let level = (v + 0.5).floor() + MAGIC;
                    *d = (level.to_bits() - MAGIC.to_bits()) as $t;
                }
            }
            #[inline(always)]
            fn load(self) -> f32 {
                f32::from(self)
            }
        }
    };
}

integer_sample!(u8, DType::U8);
integer_sample!(u16, DType::U16);

/// The half floats: computed in `f32`, stored rounded to the nearest (ties to even), as the
/// kernels store them.
macro_rules! half_sample {
    ($t:ty, $d:expr) => {
        impl Sample for $t {
            const DTYPE: DType = $d;
            #[inline(always)]
            fn load_row(src: &[$t], dst: &mut [f32]) {
                for (d, &s) in dst.iter_mut().zip(src) {
                    *d = s.to_f32();
                }
            }
            #[inline(always)]
            fn store_row(src: &[f32], dst: &mut [$t], clamp: bool, _widen: Option<f64>) {
                for (d, &s) in dst.iter_mut().zip(src) {
                    *d = <$t>::from_f32(if clamp { s.clamp(0.0, 1.0) } else { s });
                }
            }
            #[inline(always)]
            fn load(self) -> f32 {
                self.to_f32()
            }
        }
    };
}

half_sample!(half::f16, DType::F16);
half_sample!(half::bf16, DType::BF16);

#[cfg(test)]
mod tests {
    use super::*;

    /// `n` reproducible samples in [-1, 1).
    fn samples(n: usize, seed: u32) -> Vec<f32> {
        let mut x = seed;
        (0..n)
            .map(|_| {
                x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
                (x >> 8) as f32 / (1 << 23) as f32 - 1.0
            })
            .collect()
    }

    /// The loops agree with a plain sum, fused or not (the portable vectors, here compiled for the
    /// target's baseline: the fallback of CPUs without AVX2), the two-row loop gives the one-row
    /// loop's bits, and on a CPU with AVX2 and FMA their intrinsics give the fused bits.
    #[test]
    fn correlation_loops_match_a_plain_sum() {
        let (k, step) = (5, 3);
        let n = 2 * BLOCK;
        let rows: Vec<Vec<f32>> = (0..=k as u32).map(|i| samples(n + (k - 1) * step, i)).collect();
        let taps = samples(k * k, 99);
        let refs: Vec<&[f32]> = rows.iter().map(Vec::as_slice).collect();
        let mut plain = vec![0.0; n];
        let (mut fused, mut unfused) = (vec![0.0; n], vec![0.0; n]);
        correlate::<Portable<true>>(&refs[..k], &taps, k, step, &mut fused);
        correlate::<Portable<false>>(&refs[..k], &taps, k, step, &mut unfused);
        for (x, want) in plain.iter_mut().enumerate() {
            *want = (0..k)
                .flat_map(|i| (0..k).map(move |j| (i, j)))
                .map(|(i, j)| rows[i][x + j * step] * taps[i * k + j])
                .sum();
        }
        for ((&f, &u), &p) in fused.iter().zip(&unfused).zip(&plain) {
            assert!((f - p).abs() < 1e-5 && (u - p).abs() < 1e-5, "{f} {u} {p}");
        }
        let (mut top, mut bottom) = (vec![0.0; n], vec![0.0; n]);
        correlate_pair::<Portable<true>>(&refs, &taps, k, step, &mut top, &mut bottom);
        let mut second = vec![0.0; n];
        correlate::<Portable<true>>(&refs[1..], &taps, k, step, &mut second);
        assert_eq!((&top, &bottom), (&fused, &second));

        #[cfg(target_arch = "x86_64")]
        if std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("fma") {
            #[target_feature(enable = "avx2,fma")]
            fn both(
                rows: &[&[f32]],
                taps: &[f32],
                k: usize,
                step: usize,
                top: &mut [f32],
                bottom: &mut [f32],
            ) {
                correlate_pair::<Avx2>(rows, taps, k, step, top, bottom);
            }
            let (mut avx_top, mut avx_bottom) = (vec![0.0; n], vec![0.0; n]);
            // SAFETY: the CPU has AVX2 and FMA, checked just above.
            unsafe { both(&refs, &taps, k, step, &mut avx_top, &mut avx_bottom) };
            assert_eq!((avx_top, avx_bottom), (top, bottom));
        }
    }

    /// Integer rows round halves up, clamp to the type's range and turn NaN into 0.
    #[test]
    fn integer_rows_round_and_clamp() {
        let src = [-3.0, 0.49, 0.5, 1.5, 254.5, 255.0, 300.0, f32::NAN, 7.0];
        let mut bytes = [0u8; 9];
        u8::store_row(&src, &mut bytes, false, None);
        assert_eq!(bytes, [0, 0, 1, 2, 255, 255, 255, 0, 7]);
        let mut words = [0u16; 9];
        u16::store_row(&src, &mut words, false, None);
        assert_eq!(words, [0, 0, 1, 2, 255, 255, 300, 0, 7]);
        let mut back = [0.0; 9];
        u8::load_row(&bytes, &mut back);
        assert_eq!(back, [0.0, 0.0, 1.0, 2.0, 255.0, 255.0, 255.0, 0.0, 7.0]);
    }

    /// Truncating integer rows cast the widened value as scipy's C cast does: toward zero, NaN
    /// to 0, out-of-range values wrapped through `i32` (saturating); a value just inside a
    /// level (the `f32` rounding of a whole one) gives that level, on either side of zero.
    #[test]
    fn integer_rows_truncate_and_wrap() {
        let widen = Some(1.0 + 4.0 * 9.0 / 16_777_216.0);
        let inside = |v: f32| f32::from_bits(v.to_bits() - 1);
        let src = [
            -3.0,
            0.99,
            1.0,
            1.5,
            inside(7.0),
            254.99,
            255.0,
            300.0,
            f32::NAN,
            6.9,
            -2.5,
            inside(-7.0),
            1e10,
        ];
        let mut bytes = [0u8; 13];
        u8::store_row(&src, &mut bytes, false, widen);
        assert_eq!(bytes, [253, 0, 1, 1, 7, 254, 255, 44, 0, 6, 254, 249, 255]);
        let mut words = [0u16; 13];
        u16::store_row(&src, &mut words, false, widen);
        assert_eq!(
            words,
            [65533, 0, 1, 1, 7, 254, 255, 300, 0, 6, 65534, 65529, 65535]
        );
    }
}
