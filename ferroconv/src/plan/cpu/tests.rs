//! [`CpuPlan`] against the textbook sum, on every border and shape.

use super::*;
use rand::{Rng, SeedableRng, rngs::StdRng};

/// The textbook sum over every tap, each sample read through [`Border::source`].
fn naive(src: &[f64], (w, h, c, n): (usize, usize, usize, usize), p: &CpuPlan) -> Vec<f64> {
    let mut out = vec![0.0; src.len()];
    for i in 0..n {
        for y in 0..h {
            for x in 0..w {
                for ch in 0..c {
                    let mut acc = 0.0;
                    for a in 0..p.ky {
                        for b in 0..p.kx {
                            let sy = p.border.source(y as isize + a as isize - p.cy as isize, h);
                            let sx = p.border.source(x as isize + b as isize - p.cx as isize, w);
                            let v = match (sy, sx) {
                                (Some(sy), Some(sx)) => src[((i * h + sy) * w + sx) * c + ch],
                                _ => p.cval,
                            };
                            acc += v * p.taps[a * p.kx + b];
                        }
                    }
                    out[((i * h + y) * w + x) * c + ch] = acc;
                }
            }
        }
    }
    out
}

#[test]
fn matches_the_textbook_sum_on_every_border_and_shape() {
    let mut rng = StdRng::seed_from_u64(7);
    let borders = [
        Border::Zero,
        Border::Replicate,
        Border::Reflect,
        Border::Symmetric,
        Border::Wrap,
        Border::Constant(0.75),
    ];
    // (width, height, channels, images, ky, kx): tiny, odd, longer than the image, and large
    // enough to run on the pool (more than a tile per row).
    let cases = [
        (1, 1, 1, 1, 1, 1),
        (1, 1, 1, 2, 3, 3),
        (5, 3, 1, 1, 7, 1),
        (3, 5, 3, 2, 1, 7),
        (17, 9, 4, 1, 5, 5),
        (37, 11, 1, 3, 1, 31),
        (300, 400, 1, 1, 9, 1),
        (40, 30, 2, 1, 61, 1),
        (33, 21, 3, 2, 3, 1),
        (290, 60, 3, 2, 3, 5),
    ];
    for &(w, h, c, n, ky, kx) in &cases {
        for border in borders {
            let taps: Vec<f64> = (0..ky * kx).map(|_| rng.random_range(-1.0..1.0)).collect();
            let centre = (rng.random_range(0..ky), rng.random_range(0..kx));
            let plan = CpuPlan::new(&taps, (ky, kx), centre, border, 0.75).unwrap();
            let src: Vec<f64> = (0..w * h * c * n).map(|_| rng.random_range(-2.0..2.0)).collect();
            let mut dst = vec![f64::NAN; src.len()];
            plan.run(&src, &mut dst, (w, h, c, n)).unwrap();
            let want = naive(&src, (w, h, c, n), &plan);
            let bound =
                2.0 * (ky * kx) as f64 * f64::EPSILON * taps.iter().map(|t| t.abs()).sum::<f64>() * 2.0;
            for (k, (a, b)) in dst.iter().zip(&want).enumerate() {
                assert!(
                    (a - b).abs() <= bound,
                    "{border:?} {w}x{h}x{c}x{n} {ky}x{kx} at {k}: {a} vs {b}"
                );
            }
            // f32 samples, computed in f32: within f32's bound of the f64 sum of the same
            // (rounded) taps and samples.
            let src32: Vec<f32> = src.iter().map(|&v| v as f32).collect();
            let mut dst32 = vec![f32::NAN; src.len()];
            plan.run(&src32, &mut dst32, (w, h, c, n)).unwrap();
            let exact = CpuPlan::new(
                &plan.taps32.iter().map(|&t| f64::from(t)).collect::<Vec<_>>(),
                (ky, kx),
                centre,
                border,
                f64::from(0.75f32),
            )
            .unwrap();
            let want = naive(
                &src32.iter().map(|&v| f64::from(v)).collect::<Vec<_>>(),
                (w, h, c, n),
                &exact,
            );
            let bound32 = bound / f64::EPSILON * f64::from(f32::EPSILON);
            for (k, (a, b)) in dst32.iter().zip(&want).enumerate() {
                assert!(
                    (f64::from(*a) - b).abs() <= bound32,
                    "f32 {border:?} {w}x{h}x{c}x{n} {ky}x{kx} at {k}: {a} vs {b}"
                );
            }
        }
    }
}

#[test]
fn refuses_what_it_cannot_run() {
    let plan = |taps: &[f64], shape, centre, border| CpuPlan::new(taps, shape, centre, border, 0.0);
    assert!(plan(&[1.0; 4], (2, 3), (0, 0), Border::Wrap).is_err());
    assert!(plan(&[1.0; 3], (1, 3), (0, 3), Border::Wrap).is_err());
    assert!(plan(&[1.0; 3], (1, 3), (0, 1), Border::Valid).is_err());
    assert!(plan(&[f64::NAN; 3], (1, 3), (0, 1), Border::Wrap).is_err());
    let p = plan(&[1.0; 3], (1, 3), (0, 1), Border::Wrap).unwrap();
    let mut dst = vec![0.0; 5];
    assert!(p.run(&[1.0; 6], &mut dst, (3, 2, 1, 1)).is_err());
    assert!(p.run::<f64>(&[], &mut [], (0, 2, 1, 1)).is_err());
}
