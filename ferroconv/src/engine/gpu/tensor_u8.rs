//! The `tensor-u8` kernel's taps argument: the filter as fixed-point integers split into signed 8-bit
//! digits, laid out as the B fragments of its MMAs (see `gpu-kernels`' `kernels/tensor_u8.rs`).

use gpu_kernels::kernels::tensor_u8 as kernel;

/// Largest fixed-point tap: with |digit| <= 128, samples <= 255 and at most 81 taps a digit's sum
/// stays below 2^22, which the kernel's float trick needs; 2^22 keeps 23 significant bits.
const TAP_LIMIT: f64 = (1u32 << 22) as f64;

/// The power of two the taps are scaled by: the largest that keeps every tap within
/// [`TAP_LIMIT`] (1 for an all-zero filter).
fn scale(taps: &[f32]) -> f64 {
    let largest = taps.iter().fold(0.0f64, |m, &t| m.max(f64::from(t).abs()));
    if largest == 0.0 {
        return 1.0;
    }
    2f64.powi(TAP_LIMIT.log2() as i32 - largest.log2().ceil() as i32)
}

/// `t` as [`kernel::DIGITS`] balanced base-256 digits, least significant first: each in
/// [-128, 127], with `t = Σ digit_i · 256^i`.
fn digits(t: i64) -> [i8; kernel::DIGITS as usize] {
    let mut rest = t;
    let mut out = [0i8; kernel::DIGITS as usize];
    for d in &mut out {
        *d = rest as u8 as i8;
        rest = (rest - i64::from(*d)) >> 8;
    }
    debug_assert_eq!(rest, 0, "tap {t} needs more than {} digits", kernel::DIGITS);
    out
}

/// The taps argument of the `tensor-u8` kernel for the `k × k` filter `taps` (row-major) of radius
/// `radius`: [`words(radius)`](kernel::words) words, the B-fragment word of every lane for
/// every pair of filter rows, digit and half of K, then the bits of the `f32` factor that turns
/// the kernel's integer sum into a value in [0, 1].
pub(crate) fn fragments(taps: &[f32], radius: usize) -> Vec<u32> {
    let k = 2 * radius + 1;
    assert_eq!(taps.len(), k * k, "a {k}x{k} filter");
    let s = scale(taps);
    let fixed: Vec<[i8; kernel::DIGITS as usize]> = taps
        .iter()
        .map(|&t| digits((f64::from(t) * s).round() as i64))
        .collect();
    // Per digit, that digit of every tap (row-major), as the byte the kernel multiplies.
    let planes: Vec<Vec<u8>> = (0..kernel::DIGITS as usize)
        .map(|d| fixed.iter().map(|t| t[d] as u8).collect())
        .collect();
    let mut words = Vec::with_capacity(kernel::words(radius as u32) as usize);
    for pair in 0..kernel::pairs(radius as u32) as usize {
        for plane in &planes {
            for half in 0..2 {
                for lane in 0..32 {
                    let (n, t) = (lane / 4, lane % 4);
                    let row = 2 * pair + half;
                    let word = (0..4).fold(0u32, |w, q| {
                        // K index 16·half + 4t + q meets output column n at tap column j.
                        let j = (4 * t + q) as isize - n as isize - kernel::WINDOW_LEAD as isize
                            + radius as isize;
                        let byte = if row < k && (0..k as isize).contains(&j) {
                            plane[row * k + j as usize]
                        } else {
                            0
                        };
                        w | u32::from(byte) << (8 * q)
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
    use rand::rngs::StdRng;
    use rand::{Rng, SeedableRng};

    /// The kernel's arithmetic on the CPU for one window of 8 × 16 outputs: A from an input tile of
    /// bytes, B from the fragments, one m16n8k32 product per pair and digit summed exactly in
    /// `i64`, digits combined as the kernel does.
    fn emulate(tile: &[u8], stride: usize, radius: usize, words: &[u32], x: usize) -> [[f32; 8]; 16] {
        let pairs = kernel::pairs(radius as u32) as usize;
        let scale = f32::from_bits(*words.last().unwrap());
        let byte = |w: u32, q: usize| (w >> (8 * q)) as u8 as i8;
        let mut out = [[0.0f32; 8]; 16];
        for (m, row_out) in out.iter_mut().enumerate() {
            for (n, value) in row_out.iter_mut().enumerate() {
                let mut v = 0.0f32;
                for digit in (0..kernel::DIGITS as usize).rev() {
                    let mut sum = 0i64;
                    for pair in 0..pairs {
                        for kk in 0..32 {
                            let (half, col) = (kk / 16, kk % 16);
                            let a = tile[(m + 2 * pair + half) * stride + x + col];
                            // B's element (kk, n) is in the word of lane 4n + t, t = col / 4.
                            let lane = 4 * n + col / 4;
                            let w = words[((pair * kernel::DIGITS as usize + digit) * 2 + half) * 32 + lane];
                            sum += i64::from(a) * i64::from(byte(w, col % 4));
                        }
                    }
                    v = v.mul_add(256.0, sum as f32);
                }
                *value = v * scale;
            }
        }
        out
    }

    #[test]
    fn digits_rebuild_every_tap() {
        for t in [
            0, 1, -1, 127, 128, -128, -129, 255, 256, 65_535, -65_536, 4_194_304, -4_194_304, 3_000_001,
        ] {
            let d = digits(t);
            let back: i64 = d.iter().rev().fold(0, |acc, &x| acc * 256 + i64::from(x));
            assert_eq!(back, t, "{t}: {d:?}");
        }
    }

    #[test]
    fn the_scale_keeps_the_largest_tap_within_24_bits() {
        for largest in [1.0f32, 0.3, 1e-6, 2.5e5, -7.0] {
            let s = scale(&[largest, largest / 3.0]);
            let t = f64::from(largest).abs() * s;
            assert!(t <= TAP_LIMIT && t > TAP_LIMIT / 2.0, "{largest}: {t}");
        }
        assert_eq!(scale(&[0.0; 9]), 1.0);
    }

    /// The emulated kernel equals the direct correlation on random bytes and filters of every
    /// radius, to f32 accuracy, at every output of the window.
    #[test]
    fn the_fragments_compute_the_correlation() {
        let mut rng = StdRng::seed_from_u64(0x1234_5678);
        let stride = kernel::STRIDE as usize;
        for radius in 0..=4usize {
            let k = 2 * radius + 1;
            let taps: Vec<f32> = (0..k * k).map(|_| rng.random_range(-1.0f32..1.0)).collect();
            let words = fragments(&taps, radius);
            assert_eq!(words.len(), kernel::words(radius as u32) as usize);
            let tile: Vec<u8> = (0..stride * 32).map(|_| rng.random()).collect();
            for x in [0, 8, 64] {
                let got = emulate(&tile, stride, radius, &words, x);
                for (m, row) in got.iter().enumerate() {
                    for (n, &g) in row.iter().enumerate() {
                        // Output (x + n, m) reads tile columns x + n + HALO - r .. and rows m ...
                        let mut want = 0.0f64;
                        for i in 0..k {
                            for j in 0..k {
                                let a = tile
                                    [(m + i) * stride + x + n + kernel::WINDOW_LEAD as usize - radius + j];
                                want += f64::from(a) * f64::from(taps[i * k + j]);
                            }
                        }
                        want /= 255.0;
                        let bound = 1e-6 * (1.0 + want.abs()) * k as f64;
                        assert!(
                            (f64::from(g) - want).abs() <= bound,
                            "r={radius} x={x} ({n}, {m}): got {g}, expected {want}, tolerance {bound}"
                        );
                    }
                }
            }
        }
    }
}
