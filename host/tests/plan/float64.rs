//! The float64 plan ([`Float64Plan`]) against an `f64` reference written here: random images and
//! taps, odd and tiny sizes, 1, 3 and 4 channels, batches, every same-size border, off-centre
//! filters from 1×1 to 127×127 and long lines, the output poisoned with NaN.

use crate::{SEED, gpu};
use ferroconv::Border;
use ferroconv::plan::Float64Plan;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// The correlation of one image at `(x, y)`, channel `c`, in `f64`, positions outside resolved
/// by [`Border::source`] (or `cval`).
#[allow(clippy::too_many_arguments)]
fn reference(
    image: &[f64],
    (w, h, ch): (usize, usize, usize),
    taps: &[f64],
    (ky, kx, cy, cx): (usize, usize, usize, usize),
    border: Border,
    cval: f64,
    (x, y, c): (usize, usize, usize),
) -> f64 {
    let mut sum = 0.0;
    for i in 0..ky {
        for j in 0..kx {
            let (yy, xx) = (
                y as isize + i as isize - cy as isize,
                x as isize + j as isize - cx as isize,
            );
            let v = match (border.source(xx, w), border.source(yy, h)) {
                (Some(sx), Some(sy)) => image[(sy * w + sx) * ch + c],
                _ => cval,
            };
            sum += taps[i * kx + j] * v;
        }
    }
    sum
}

/// Every border and channel count over a ladder of sizes and filter shapes: each result within
/// `2n·2⁻⁵³·Σ|w|·max|x|` (plus a denormal's worth) of the reference, `n` the filter's taps.
pub fn gpu_float64_plans_match_the_reference() {
    let gpu = gpu("plan::gpu_float64_plans_match_the_reference");
    let mut rng = StdRng::seed_from_u64(SEED);
    let shapes = [
        (1, 1),
        (3, 5),
        (5, 5),
        (1, 31),
        (31, 1),
        (17, 17),
        (2, 8),
        (127, 3),
        (1, 127),
    ];
    let sizes = [(1, 1, 1), (7, 5, 2), (37, 23, 1), (130, 67, 1), (33, 65, 3)];
    let borders = Border::ALL.into_iter().filter(|&b| b != Border::Valid);
    let mut cases = 0;
    for (ky, kx) in shapes {
        let taps: Vec<f64> = (0..ky * kx).map(|_| rng.random_range(-1.0..1.0)).collect();
        let (cy, cx) = (rng.random_range(0..ky), rng.random_range(0..kx));
        let bound = 2.0 * (ky * kx) as f64 * f64::EPSILON / 2.0 * taps.iter().map(|t| t.abs()).sum::<f64>();
        for border in borders.clone() {
            let cval = if matches!(border, Border::Constant(_)) {
                0.3125
            } else {
                0.0
            };
            let plan = Float64Plan::new(gpu, &taps, (ky, kx), (cy, cx), border, cval).unwrap();
            for c in [1, 3, 4] {
                for (w, h, n) in sizes {
                    let image: Vec<f64> = (0..w * h * c * n).map(|_| rng.random_range(-2.0..2.0)).collect();
                    let mut out = vec![f64::NAN; image.len()];
                    plan.run(&image, &mut out, (w, h, c, n)).unwrap();
                    let what = format!("{ky}x{kx} at ({cy}, {cx}) {} {n}x{w}x{h}x{c}", border.name());
                    let tol = bound * 2.0 + 1e-300;
                    for i in 0..n {
                        let one = &image[i * w * h * c..][..w * h * c];
                        for (s, got) in out[i * w * h * c..][..w * h * c].iter().enumerate() {
                            let (x, y, ch) = ((s / c) % w, s / c / w, s % c);
                            let want =
                                reference(one, (w, h, c), &taps, (ky, kx, cy, cx), border, cval, (x, y, ch));
                            assert!(
                                (got - want).abs() <= tol,
                                "{what}: image {i} ({x}, {y}, {ch}): {got} against {want}"
                            );
                        }
                    }
                    cases += 1;
                }
            }
        }
    }
    assert!(cases >= 800, "only {cases} cases ran");
}

/// Filters and calls the float64 plan refuses, each with an error (no launch).
pub fn gpu_float64_plans_refuse_bad_requests() {
    let gpu = gpu("plan::gpu_float64_plans_refuse_bad_requests");
    let taps = [1.0; 9];
    assert!(
        Float64Plan::new(gpu, &taps, (3, 3), (3, 0), Border::Wrap, 0.0).is_err(),
        "centre outside"
    );
    assert!(
        Float64Plan::new(gpu, &taps, (3, 2), (0, 0), Border::Wrap, 0.0).is_err(),
        "taps of another shape"
    );
    assert!(
        Float64Plan::new(gpu, &[1.0; 128], (1, 128), (0, 0), Border::Wrap, 0.0).is_err(),
        "a side of 128"
    );
    assert!(
        Float64Plan::new(gpu, &taps, (3, 3), (1, 1), Border::Valid, 0.0).is_err(),
        "valid border"
    );
    assert!(
        Float64Plan::new(gpu, &[f64::NAN; 9], (3, 3), (1, 1), Border::Wrap, 0.0).is_err(),
        "NaN taps"
    );
    let plan = Float64Plan::new(gpu, &taps, (3, 3), (1, 1), Border::Wrap, 0.0).unwrap();
    assert_eq!(plan.taps().unwrap(), taps, "the taps as given");
    let (src, mut dst) = (vec![0.0; 12], vec![0.0; 12]);
    assert!(plan.run(&src, &mut dst, (4, 3, 5, 1)).is_err(), "5 channels");
    assert!(
        plan.run(&src, &mut dst, (4, 4, 1, 1)).is_err(),
        "a shape the buffers do not hold"
    );
    assert!(plan.run(&src, &mut dst, (0, 3, 1, 1)).is_err(), "an empty image");
    plan.run(&src, &mut dst, (4, 3, 1, 1)).unwrap();
}
