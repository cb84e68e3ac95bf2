//! The `tensor` kernel's taps argument: the filter scaled by a power of two and split into high and
//! low half-precision parts, laid out as the B fragments of its MMAs (see `gpu-kernels`'
//! `kernels/tensor.rs`).

use gpu_kernels::launch::{TENSOR_WINDOW_LEAD, tensor_words};

/// Largest scaled tap: far below `f16`'s largest (65504), and large enough that the low part of
/// every tap within 2^-14 of the largest is a normal `f16` (full 11-bit precision).
const TAP_LIMIT: f64 = 4096.0;

/// The power of two the taps are scaled by: the largest that keeps every tap within
/// [`TAP_LIMIT`] (1 for an all-zero filter).
fn scale(taps: &[f32]) -> f64 {
    let largest = taps.iter().fold(0.0f64, |m, &t| m.max(f64::from(t).abs()));
    if largest == 0.0 {
        return 1.0;
    }
    2f64.powi(TAP_LIMIT.log2() as i32 - largest.log2().ceil() as i32)
}

/// `x` rounded to the nearest `f16` (ties to even): its bits and its value. `|x|` must be below
/// 65520 (no overflow to infinity); values below `f16`'s smallest normal round to subnormals.
fn to_f16(x: f64) -> (u16, f64) {
    let sign = if x.is_sign_negative() { 0x8000u16 } else { 0 };
    let a = x.abs();
    if a == 0.0 {
        return (sign, 0.0);
    }
    assert!(a < 65_520.0, "{x} overflows f16");
    // 2^e <= a < 2^(e + 1), at least the smallest normal's exponent (subnormals share it).
    let e = ((((a.to_bits() >> 52) & 0x7ff) as i32) - 1023).max(-14);
    let ulp = 2f64.powi(e - 10);
    let mut m = (a / ulp).round_ties_even() as u32;
    let mut e = e;
    if m == 2048 {
        m = 1024;
        e += 1;
    }
    let value = f64::from(m) * 2f64.powi(e - 10);
    let bits = if m < 1024 {
        m as u16
    } else {
        (((e + 15) as u16) << 10) | (m - 1024) as u16
    };
    (sign | bits, if sign != 0 { -value } else { value })
}

/// The taps argument of the `tensor` kernel for the `k × k` filter `taps` (row-major) of radius
/// `radius`: [`tensor_words(radius)`](tensor_words) words, the B-fragment word of every lane for
/// every filter row, part (high, low) and half of K, then the bits of the `f32` factor that turns
/// the kernel's sum into a value in [0, 1].
pub fn fragments(taps: &[f32], radius: usize) -> Vec<u32> {
    let k = 2 * radius + 1;
    assert_eq!(taps.len(), k * k, "a {k}x{k} filter");
    let s = scale(taps);
    // Per tap: the f16 bits of its high and its low part.
    let parts: Vec<[u16; 2]> = taps
        .iter()
        .map(|&t| {
            let scaled = f64::from(t) * s;
            let (hi, hi_value) = to_f16(scaled);
            [hi, to_f16(scaled - hi_value).0]
        })
        .collect();
    let mut words = Vec::with_capacity(tensor_words(radius as u32) as usize);
    for row in 0..k {
        for part in 0..2 {
            for half in 0..2 {
                for lane in 0..32 {
                    let (n, t) = (lane / 4, lane % 4);
                    let word = (0..2).fold(0u32, |w, q| {
                        // K index 8·half + 2t + q meets output column n at tap column j.
                        let kk = 8 * half + 2 * t + q;
                        let j = kk as isize - n as isize - TENSOR_WINDOW_LEAD as isize + radius as isize;
                        let bits = if (0..k as isize).contains(&j) {
                            parts[row * k + j as usize][part]
                        } else {
                            0
                        };
                        w | u32::from(bits) << (16 * q)
                    });
                    words.push(word);
                }
            }
        }
    }
    words.push(((1.0 / (s * 255.0)) as f32).to_bits());
    words
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The value of `f16` bits.
    fn f16_value(bits: u16) -> f64 {
        let (e, m) = (i32::from((bits >> 10) & 0x1f), f64::from(bits & 0x3ff));
        let v = if e == 0 {
            m * 2f64.powi(-24)
        } else {
            (1024.0 + m) * 2f64.powi(e - 25)
        };
        if bits & 0x8000 != 0 { -v } else { v }
    }

    /// The kernel's arithmetic on the CPU for one window of 8 × 16 outputs: A from a tile of
    /// levels, B from the fragments, one m16n8k16 product per filter row and part, summed in
    /// `f64` (the tensor cores sum in `f32`), scaled as the kernel does.
    fn emulate(tile: &[u8], stride: usize, radius: usize, words: &[u32], x: usize) -> [[f64; 8]; 16] {
        let k = 2 * radius + 1;
        let scale = f64::from(f32::from_bits(*words.last().unwrap()));
        let mut out = [[0.0f64; 8]; 16];
        for (m, row_out) in out.iter_mut().enumerate() {
            for (n, value) in row_out.iter_mut().enumerate() {
                let mut sum = 0.0f64;
                for row in 0..k {
                    for part in 0..2 {
                        for kk in 0..16 {
                            let a = f64::from(tile[(m + row) * stride + x + kk]);
                            // B's element (kk, n) is in the word of lane 4n + t, t = (kk % 8) / 2.
                            let (half, lane) = (kk / 8, 4 * n + (kk % 8) / 2);
                            let w = words[((row * 2 + part) * 2 + half) * 32 + lane];
                            sum += a * f16_value((w >> (16 * (kk % 2))) as u16);
                        }
                    }
                }
                *value = sum * scale;
            }
        }
        out
    }

    #[test]
    fn f16_rounding_matches_the_format() {
        assert_eq!(to_f16(1.0), (0x3c00, 1.0));
        assert_eq!(to_f16(-2.0), (0xc000, -2.0));
        assert_eq!(to_f16(65504.0), (0x7bff, 65504.0));
        assert_eq!(to_f16(2f64.powi(-24)), (0x0001, 2f64.powi(-24)));
        assert_eq!(to_f16(2f64.powi(-14)), (0x0400, 2f64.powi(-14)));
        // 1 + 2^-11 is a tie: to even (1.0); 1 + 3·2^-11 rounds up to 1 + 2^-9.
        assert_eq!(to_f16(1.0 + 2f64.powi(-11)).0, 0x3c00);
        assert_eq!(to_f16(1.0 + 3.0 * 2f64.powi(-11)).0, 0x3c02);
        // Rounding up across a power of two.
        assert_eq!(to_f16(2047.9), (0x6800, 2048.0));
        for bits in [0x0001u16, 0x03ff, 0x0400, 0x3555, 0x7bff, 0x8001, 0xbc00] {
            assert_eq!(to_f16(f16_value(bits)).0, bits, "{bits:#x}");
        }
    }

    #[test]
    fn the_scale_keeps_the_largest_tap_within_the_limit() {
        for largest in [1.0f32, 0.3, 1e-6, 2.5e5, -7.0] {
            let s = scale(&[largest, largest / 3.0]);
            let t = f64::from(largest).abs() * s;
            assert!(t <= TAP_LIMIT && t > TAP_LIMIT / 2.0, "{largest}: {t}");
        }
        assert_eq!(scale(&[0.0; 9]), 1.0);
    }

    /// The emulated kernel equals the direct correlation on random levels and filters of every
    /// radius, to the 22 bits of the split taps (the `f32` kernels' tolerance is 2k² `f32` ulps),
    /// at every output of the window.
    #[test]
    fn the_fragments_compute_the_correlation() {
        let mut seed = 0x1234_5678u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let stride = 160;
        for radius in 0..=4usize {
            let k = 2 * radius + 1;
            let taps: Vec<f32> = (0..k * k).map(|_| (next() % 2001) as f32 / 1000.0 - 1.0).collect();
            let words = fragments(&taps, radius);
            assert_eq!(words.len(), tensor_words(radius as u32) as usize);
            let tile: Vec<u8> = (0..stride * 32).map(|_| next() as u8).collect();
            for x in [0, 8, 64] {
                let got = emulate(&tile, stride, radius, &words, x);
                for (m, row) in got.iter().enumerate() {
                    for (n, &g) in row.iter().enumerate() {
                        // Output (x + n, m) reads tile columns x + n + LEAD - r .. and rows m ...
                        let mut want = 0.0f64;
                        let mut size = 0.0f64;
                        for i in 0..k {
                            for j in 0..k {
                                let a = tile[(m + i) * stride + x + n + TENSOR_WINDOW_LEAD as usize - radius + j];
                                want += f64::from(a) * f64::from(taps[i * k + j]);
                                size += f64::from(a) * f64::from(taps[i * k + j]).abs();
                            }
                        }
                        want /= 255.0;
                        // The two parts hold 22 significant bits of every tap.
                        let bound = 2f64.powi(-22) * size / 255.0 + 1e-12;
                        assert!(
                            (g - want).abs() <= bound,
                            "r={radius} x={x} ({n}, {m}): got {g}, expected {want}, tolerance {bound}"
                        );
                    }
                }
            }
        }
    }
}
