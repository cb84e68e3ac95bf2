//! The `tensor-f32` kernel's taps argument: the filter scaled by a power of two and split into FP16
//! high and low parts, laid out as the B fragments of its MMAs (see `gpu-kernels`'
//! `kernels/tensor_f32.rs`).

use gpu_kernels::kernels::tensor_f32 as kernel;
use half::f16;

/// `v` as FP16 high and low parts, each rounded to nearest: `v ≈ hi + lo` to 22 significant bits
/// wherever `|v| < 2^15` (the kernel's `split_f16x2` on the host).
pub fn split(v: f32) -> (f16, f16) {
    let hi = f16::from_f32(v);
    (hi, f16::from_f32(v - hi.to_f32()))
}

/// The power of two that puts the largest tap magnitude in [2^14, 2^15) (1 for an all-zero filter),
/// as the kernel scales its tiles.
fn scale(taps: &[f32]) -> f32 {
    let largest = taps.iter().fold(0.0f32, |m, &t| m.max(t.abs()));
    if largest == 0.0 {
        return 1.0;
    }
    2f32.powi(14 - largest.log2().floor() as i32)
}

/// The taps argument of the `tensor-f32` kernel for the `k × k` filter `taps` (row-major) of
/// radius `radius`: [`words(radius)`](kernel::words) words. For each pair of filter rows
/// (`2p`, `2p + 1`; the last pair has row `2r` alone), chunk `c` and lane `(g, t)`, the words
/// `[b0, b1]` of the high parts then of the low parts: `b0` holds the taps that input columns
/// `8c + 2t, +1` of the window meet at output column `g` on filter row `2p`, `b1` on row `2p + 1`.
/// Then the bits of the `f32` factor that undoes the scale.
pub fn fragments(taps: &[f32], radius: usize) -> Vec<u32> {
    let k = 2 * radius + 1;
    assert_eq!(taps.len(), k * k, "a {k}x{k} filter");
    let s = scale(taps);
    let chunks = kernel::chunks(radius as u32) as usize;
    // The window's first input column is `shift` columns before the first output's first tap.
    let shift = (kernel::lead(radius as u32) as usize - radius) as isize;
    // The scaled tap that window column `col` meets at output column `n` on filter row `row`.
    let tap = |row: usize, col: usize, n: usize| -> (f16, f16) {
        let j = col as isize - n as isize - shift;
        if row < k && (0..k as isize).contains(&j) {
            split(taps[row * k + j as usize] * s)
        } else {
            (f16::ZERO, f16::ZERO)
        }
    };
    let pack = |a: f16, b: f16| u32::from(a.to_bits()) | u32::from(b.to_bits()) << 16;
    let mut words = Vec::with_capacity(kernel::words(radius as u32) as usize);
    for pair in 0..=radius {
        for chunk in 0..chunks {
            for lane in 0..32 {
                let (n, t) = (lane / 4, lane % 4);
                let col = 8 * chunk + 2 * t;
                let [(h00, l00), (h01, l01), (h10, l10), (h11, l11)] = [
                    tap(2 * pair, col, n),
                    tap(2 * pair, col + 1, n),
                    tap(2 * pair + 1, col, n),
                    tap(2 * pair + 1, col + 1, n),
                ];
                words.extend([pack(h00, h01), pack(h10, h11), pack(l00, l01), pack(l10, l11)]);
            }
        }
    }
    words.push((1.0 / s).to_bits());
    words
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::rngs::StdRng;
    use rand::{Rng, SeedableRng};

    /// The half of `word` that holds element `e` (0: low).
    fn half_of(word: u32, e: usize) -> f64 {
        f64::from(f16::from_bits((word >> (16 * e)) as u16).to_f32())
    }

    /// The kernel's arithmetic on the CPU for one window of 16 × 8 outputs whose first input
    /// column is tile column `x`: the tile split as the kernel splits it, B from the fragments,
    /// the three products per chunk and pair of filter rows summed exactly (in `f64`), the scale
    /// undone. Output row `m` reads tile rows `m ..`.
    fn emulate(tile: &[f32], stride: usize, radius: usize, words: &[u32], x: usize) -> [[f64; 8]; 16] {
        let chunks = kernel::chunks(radius as u32) as usize;
        let unscale = f64::from(f32::from_bits(*words.last().unwrap()));
        let mut out = [[0.0f64; 8]; 16];
        for (m, row_out) in out.iter_mut().enumerate() {
            for (n, value) in row_out.iter_mut().enumerate() {
                let mut sum = 0.0f64;
                for pair in 0..=radius {
                    for chunk in 0..chunks {
                        for kk in 0..16 {
                            let (half, col) = (kk / 8, kk % 8);
                            let row = 2 * pair + half;
                            if row > 2 * radius {
                                continue;
                            }
                            let (ah, al) = split(tile[(m + row) * stride + x + 8 * chunk + col]);
                            // B's element (kk, n) is in lane 4n + col / 2, word `half` (+ 2: low).
                            let at = ((pair * chunks + chunk) * 32 + 4 * n + col / 2) * 4 + half;
                            let (bh, bl) = (half_of(words[at], col % 2), half_of(words[at + 2], col % 2));
                            let (ah, al) = (f64::from(ah.to_f32()), f64::from(al.to_f32()));
                            sum += ah * bh + ah * bl + al * bh;
                        }
                    }
                }
                *value = sum * unscale;
            }
        }
        out
    }

    #[test]
    fn the_split_keeps_22_bits() {
        for v in [1.0f32, -3.071_592_7, 16_383.999, 0.000_123_4, 1e-7, -2.5e4] {
            let (hi, lo) = split(v);
            let back = f64::from(hi.to_f32()) + f64::from(lo.to_f32());
            assert!(
                (back - f64::from(v)).abs() <= f64::from(v).abs() * 2f64.powi(-22) + 2f64.powi(-25),
                "{v}: {back}"
            );
        }
    }

    /// The emulated kernel equals the direct correlation on random samples and filters of every
    /// radius, within 2^-20 of `Σ|w| · max|x|`, at every output of the window.
    #[test]
    fn the_fragments_compute_the_correlation() {
        let mut rng = StdRng::seed_from_u64(0x9E37_79B9);
        let mut next = move || rng.random_range(-1.0f32..1.0);
        let stride = 200;
        for radius in 0..=15usize {
            let k = 2 * radius + 1;
            let taps: Vec<f32> = (0..k * k).map(|_| next() * 3.0).collect();
            let words = fragments(&taps, radius);
            assert_eq!(words.len(), kernel::words(radius as u32) as usize);
            // Samples already scaled into [-2^14, 2^14], as the kernel's tile is.
            let tile: Vec<f32> = (0..stride * (16 + 2 * radius))
                .map(|_| next() * 16_384.0)
                .collect();
            let shift = kernel::lead(radius as u32) as usize - radius;
            let abs_sum: f64 = taps.iter().map(|&t| f64::from(t).abs()).sum();
            for x in [0, 8, 64] {
                let got = emulate(&tile, stride, radius, &words, x);
                for (m, row) in got.iter().enumerate() {
                    for (n, &g) in row.iter().enumerate() {
                        let mut want = 0.0f64;
                        for i in 0..k {
                            for j in 0..k {
                                let a = tile[(m + i) * stride + x + n + shift + j];
                                want += f64::from(a) * f64::from(taps[i * k + j]);
                            }
                        }
                        let bound = abs_sum * 16_384.0 * 2f64.powi(-20);
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
