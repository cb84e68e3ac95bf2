//! The `tensor-f32` kernel's taps argument: the filter scaled by a power of two and split into FP16
//! high and low parts, laid out as the B fragments of its MMAs (see `gpu-kernels`'
//! `kernels/tensor_f32.rs`); and the blocks `tensor-f32-blocks` splits a larger filter into.

use gpu_kernels::kernels::tensor_f32 as kernel;
use gpu_kernels::launch::{Geometry, MAX_RADIUS};
use half::f16;

/// `v` as FP16 high and low parts, each rounded to nearest: `v ≈ hi + lo` to 22 significant bits
/// wherever `|v| < 2^15` (the kernel's `split_f16x2` on the host).
pub(crate) fn split(v: f32) -> (f16, f16) {
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
/// radius `radius`: [`block_words(radius)`](kernel::block_words) words. For each pair of filter
/// rows (`2p`, `2p + 1`; the last pair has row `2r` alone), chunk `c` and lane `(g, t)`, the
/// words `[b0, b1]` of the high parts then of the low parts: `b0` holds the taps that input
/// columns `8c + 2t, +1` of the window meet at output column `g` on filter row `2p`, `b1` on row
/// `2p + 1`. Then the bits of the `f32` factor that undoes the scale, the shift (0, 0) and a word
/// of padding.
pub(crate) fn fragments(taps: &[f32], radius: usize) -> Vec<u32> {
    fragments_rect(taps, 2 * radius + 1, radius, scale(taps), (0, 0))
}

/// Columns a filter of the kernel of radius `radius` may have, where the window's chunks reach:
/// `2r + 1`, and up to 3 more at the right (zeros in the square filter), which a block uses to
/// start its tile on a multiple of 4 columns.
pub(crate) fn max_columns(radius: usize) -> usize {
    let r = radius as u32;
    (8 * kernel::chunks(r) - 7 - (kernel::lead(r) - r)) as usize
}

/// [`fragments`] for a filter of at most `2r + 1` rows and [`max_columns(r)`](max_columns)
/// columns (row-major, `cols` a row; column `j` is met where the square's column `j` is), its
/// taps scaled by `s`, its centre shifted by `centre` (across, down) from the output pixel's.
fn fragments_rect(taps: &[f32], cols: usize, radius: usize, s: f32, centre: (i32, i32)) -> Vec<u32> {
    let k = 2 * radius + 1;
    let rows = taps.len() / cols;
    assert!(
        rows * cols == taps.len() && rows <= k && cols <= max_columns(radius),
        "a {rows}x{cols} block for radius {radius}"
    );
    let chunks = kernel::chunks(radius as u32) as usize;
    // The window's first input column is `shift` columns before the first output's first tap.
    let shift = (kernel::lead(radius as u32) as usize - radius) as isize;
    // The scaled tap that window column `col` meets at output column `n` on filter row `row`.
    let tap = |row: usize, col: usize, n: usize| -> (f16, f16) {
        let j = col as isize - n as isize - shift;
        if row < rows && (0..cols as isize).contains(&j) {
            split(taps[row * cols + j as usize] * s)
        } else {
            (f16::ZERO, f16::ZERO)
        }
    };
    let pack = |a: f16, b: f16| u32::from(a.to_bits()) | u32::from(b.to_bits()) << 16;
    let mut words = Vec::with_capacity(kernel::block_words(radius as u32) as usize);
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
    words.extend([(1.0 / s).to_bits(), centre.0 as u32, centre.1 as u32, 0]);
    words
}

/// A filter larger than the kernel's radius as the `tensor-f32` kernel's blocks of taps: the
/// blocks' radius, how many there are ([`Geometry::blocks`](gpu_kernels::launch::Geometry::blocks))
/// and their [`block_words(radius)`](kernel::block_words) words each.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Blocks {
    pub(crate) radius: u32,
    pub(crate) count: u32,
    pub(crate) words: Vec<u32>,
}

/// A block's taps before they become fragments: `rows × cols`, row-major, tap `(i, j)` meeting
/// the input `(i - radius, j - radius)` from the block's centre, which lies `shift` from the
/// output pixel's.
struct BlockTaps {
    shift: (i32, i32),
    cols: usize,
    taps: Vec<f32>,
}

/// Relative cost of one block of radius `radius` over an image, in units of the part every
/// block pays (loading and splitting its tile): the MMAs grow with the pairs of filter rows times
/// the chunks. Fitted to the `tensor-f32` times at 17 × 17 and 31 × 31 on an 8192² image
/// (BENCHMARKS.md; 0.44 and 1.05 ms, H100).
fn block_cost(radius: usize) -> f64 {
    let r = radius as u32;
    1.0 + 0.0054 * (radius as f64 + 0.5) * f64::from(kernel::chunks(r)) * 16.0
}

/// Extra cost of a tile whose rows do not start on a multiple of 4 columns (loaded sample by
/// sample), in the same units.
const UNALIGNED_COST: f64 = 0.3;

/// Splits the `k × k` filter `taps` (odd `k`, larger than the kernel's 31) into the blocks the
/// `tensor-f32` kernel loops over, for images of `g`'s channels whose output pixel is centred
/// `g.offset` pixels into the input: of the radii that loop
/// ([`BLOCKS_MIN_RADIUS`](kernel::BLOCKS_MIN_RADIUS) up; for RGBA whose alpha is filtered, past
/// [`COLOUR_MAX_RADIUS`](kernel::COLOUR_MAX_RADIUS), where each channel is a block's own and
/// alpha is not copied), the one that costs least by
/// [`block_cost`], each block as tall as that radius allows and as wide as allows it to start its
/// tile on a multiple of 4 columns where it can (gray images, whose tiles load 16-byte vectors);
/// blocks of zeros are left out. Every block's taps are scaled alike (by the filter's largest).
pub(crate) fn blocks(taps: &[f32], k: usize, g: &Geometry) -> Blocks {
    let (radius, split) = choose(taps, k, g);
    let s = scale(taps);
    let words = split
        .iter()
        .flat_map(|b| fragments_rect(&b.taps.taps, b.taps.cols, radius, s, b.taps.shift))
        .collect();
    Blocks {
        radius: radius as u32,
        count: split.len() as u32,
        words,
    }
}

/// The radius and the number of the blocks [`blocks`] cuts the filter into, without their
/// fragments.
pub(crate) fn block_count(taps: &[f32], k: usize, g: &Geometry) -> (usize, usize) {
    let (radius, split) = choose(taps, k, g);
    (radius, split.len())
}

/// `tensor-f32-blocks`'s global loads per output pixel for a dense gray filter of radius `r`:
/// each block's tile.
pub(crate) fn loads_per_pixel_blocks(r: usize) -> f64 {
    let k = 2 * r + 1;
    let gray = Geometry {
        channels: 1,
        ..Geometry::default()
    };
    let (radius, count) = block_count(&vec![1.0; k * k], k, &gray);
    count as f64 * kernel::loads_per_pixel(radius)
}

/// The radius [`blocks`] takes and its blocks.
fn choose(taps: &[f32], k: usize, g: &Geometry) -> (usize, Vec<Split>) {
    assert_eq!(taps.len(), k * k, "a {k}x{k} filter");
    let first = if g.channels == 4 && g.filter_alpha != 0 {
        kernel::COLOUR_MAX_RADIUS + 1
    } else {
        kernel::BLOCKS_MIN_RADIUS
    };
    (first as usize..=MAX_RADIUS as usize)
        .map(|radius| (radius, split_blocks(taps, k, radius, g.channels == 1, g.offset)))
        .min_by(|(ra, a), (rb, b)| {
            let cost = |r: usize, split: &[Split]| {
                let unaligned = split.iter().filter(|b| b.unaligned).count() as f64;
                split.len() as f64 * block_cost(r) + unaligned * UNALIGNED_COST
            };
            cost(*ra, a).total_cmp(&cost(*rb, b))
        })
        .expect("radii to choose from")
}

/// A block of [`split_blocks`], and whether its tile's rows start off a multiple of 4 columns.
struct Split {
    taps: BlockTaps,
    unaligned: bool,
}

/// The non-zero blocks of radius `radius` of the `k × k` filter `taps`: rows and columns split
/// into as few equal runs as the kernel's `2r + 1` rows and columns allow; where `align` (gray
/// images), a block whose tile would start `m` columns past a multiple of 4 is moved `m` columns
/// right in its square (its centre as far left) where the chunks have room ([`max_columns`]).
fn split_blocks(taps: &[f32], k: usize, radius: usize, align: bool, offset: u32) -> Vec<Split> {
    let side = 2 * radius + 1;
    let big = (k / 2) as i64;
    let runs = |n: usize| -> Vec<(usize, usize)> {
        let len = k.div_ceil(n);
        (0..n)
            .map(|b| (b * len, (len).min(k.saturating_sub(b * len))))
            .collect()
    };
    let count = k.div_ceil(side);
    let (rows, cols) = (runs(count), runs(count));
    let mut out = Vec::new();
    for &(r0, h) in rows.iter().filter(|r| r.1 > 0) {
        for &(c0, w) in cols.iter().filter(|c| c.1 > 0) {
            // The tile's first column is `offset + shift_x - lead`, lead a multiple of 4.
            let phase = |m: i64| (i64::from(offset) + c0 as i64 - m + radius as i64 - big).rem_euclid(4);
            let m = phase(0) as usize;
            let fits = align && w + m <= max_columns(radius);
            let m = if fits { m } else { 0 };
            let cols = w + m;
            let mut block = vec![0.0f32; h * cols];
            for i in 0..h {
                let from = (r0 + i) * k + c0;
                block[i * cols + m..i * cols + cols].copy_from_slice(&taps[from..from + w]);
            }
            if block.iter().all(|&t| t == 0.0) {
                continue;
            }
            out.push(Split {
                taps: BlockTaps {
                    shift: (
                        (c0 as i64 - m as i64 + radius as i64 - big) as i32,
                        (r0 as i64 + radius as i64 - big) as i32,
                    ),
                    cols,
                    taps: block,
                },
                unaligned: align && phase(m as i64) != 0,
            });
        }
    }
    if out.is_empty() {
        // An all-zero filter: one block of zeros, so the output is written.
        out.push(Split {
            taps: BlockTaps {
                shift: (0, 0),
                cols: 1,
                taps: vec![0.0],
            },
            unaligned: false,
        });
    }
    out
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
        let unscale = f64::from(f32::from_bits(words[words.len() - 4]));
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

    /// Every radius's blocks put every tap of the filter back where it was, once, and leave out
    /// only zeros; each fits its kernel, and the tiles the aligned ones read start on a multiple
    /// of 4 columns.
    #[test]
    fn the_blocks_add_up_to_the_filter() {
        let mut rng = StdRng::seed_from_u64(7);
        for k in [33usize, 47, 63, 127] {
            let big = (k / 2) as i64;
            // Zero rows at the top and a zero band of columns, which whole blocks may fall in.
            let taps: Vec<f32> = (0..k * k)
                .map(|n| {
                    if n / k < 20 || (n % k) < 30 {
                        0.0
                    } else {
                        rng.random_range(-1.0f32..1.0)
                    }
                })
                .collect();
            for radius in 8..=15usize {
                for (align, offset) in [(true, 0u32), (true, big as u32), (false, 0), (false, 5)] {
                    let split = split_blocks(&taps, k, radius, align, offset);
                    let mut back = vec![0.0f32; k * k];
                    for b in &split {
                        let t = &b.taps;
                        assert!(t.taps.len() / t.cols <= 2 * radius + 1 && t.cols <= max_columns(radius));
                        let lead = i64::from(kernel::lead(radius as u32));
                        if align && !b.unaligned {
                            assert_eq!((i64::from(offset) + i64::from(t.shift.0) - lead).rem_euclid(4), 0);
                        }
                        for (n, &v) in t.taps.iter().enumerate() {
                            let (i, j) = ((n / t.cols) as i64, (n % t.cols) as i64);
                            let row = i64::from(t.shift.1) - radius as i64 + big + i;
                            let col = i64::from(t.shift.0) - radius as i64 + big + j;
                            if v != 0.0 {
                                assert!((0..k as i64).contains(&row) && (0..k as i64).contains(&col));
                                back[row as usize * k + col as usize] += v;
                            }
                        }
                    }
                    assert_eq!(back, taps, "k={k} r={radius} align={align} offset={offset}");
                    assert!(
                        split.len() < k.div_ceil(2 * radius + 1).pow(2),
                        "zero blocks left out"
                    );
                }
            }
            let gray = Geometry {
                channels: 1,
                ..Geometry::default()
            };
            let b = blocks(&taps, k, &gray);
            let per_block = kernel::block_words(b.radius) as usize;
            assert_eq!(b.words.len(), b.count as usize * per_block);
            assert_eq!(per_block % 4, 0, "16-byte aligned blocks");
        }
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
    /// radius, square and as wide as the chunks allow, within 2^-20 of `Σ|w| · max|x|`, at every
    /// output of the window.
    #[test]
    fn the_fragments_compute_the_correlation() {
        let mut rng = StdRng::seed_from_u64(0x9E37_79B9);
        let mut next = move || rng.random_range(-1.0f32..1.0);
        let stride = 200;
        for (radius, cols) in (0..=15usize).flat_map(|r| [(r, 2 * r + 1), (r, max_columns(r))]) {
            let k = 2 * radius + 1;
            let taps: Vec<f32> = (0..k * cols).map(|_| next() * 3.0).collect();
            let words = fragments_rect(&taps, cols, radius, scale(&taps), (0, 0));
            assert_eq!(words.len(), kernel::block_words(radius as u32) as usize);
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
                            for j in 0..cols {
                                let a = tile[(m + i) * stride + x + n + shift + j];
                                want += f64::from(a) * f64::from(taps[i * cols + j]);
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
