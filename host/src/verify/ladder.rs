//! The verification ladder: every variant against the `f64` reference over the cross product of
//! sizes, filters, borders and layouts of each [`VerifyPlan`], reporting each case and how far it
//! is as it runs.

use super::check::{self, Comparison};
use super::jobs::{checked_runs, device_images, naive_runs, plan_checked_runs, tolerance_for};
use ferroconv::engine::cpu;
use ferroconv::engine::gpu::variant::InputKind;
use ferroconv::engine::gpu::{Gpu, Problem, Variant};
use ferroconv::plan::Filter2D;
use ferroconv::{Border, DType, Filter, Image, Result};

/// What a verification run covers: the cross product of these.
#[derive(Clone, Debug)]
pub struct VerifyPlan {
    pub sizes: Vec<(usize, usize)>,
    /// Filter shapes `(rows, cols)`.
    pub filters: Vec<(usize, usize)>,
    /// The borders, a constant one's value on the scale of `f32` samples (as
    /// [`Border::CHECKED`]'s 0.75): each image gets it in its own levels ([`in_levels`]).
    pub borders: Vec<Border>,
    /// (channels, sample type) pairs.
    pub layouts: Vec<(usize, DType)>,
}

impl VerifyPlan {
    /// The default verification: every border, channel count and sample type with every filter
    /// size on the small and odd sizes, rectangles on the odd sizes, then the large sizes with
    /// fewer combinations.
    pub fn standard() -> Vec<VerifyPlan> {
        vec![
            VerifyPlan::widest(None, None, None, None, None),
            VerifyPlan::widest(
                Some(vec![(31, 17), (257, 129)]),
                Some(RECTANGLES.to_vec()),
                None,
                None,
                None,
            ),
            VerifyPlan {
                sizes: vec![(1023, 769), (2048, 2048)],
                filters: squares(&[3, 17]),
                borders: Border::CHECKED.to_vec(),
                layouts: vec![(1, DType::F32), (3, DType::U16), (4, DType::U8)],
            },
        ]
    }

    /// One plan over the given sizes, filter sizes, borders, channel counts and sample types,
    /// every (channels, sample type) pair; each `None` takes its widest value (the small and odd
    /// sizes, every filter size, border, channel count and sample type).
    pub fn widest(
        sizes: Option<Vec<(usize, usize)>>,
        filters: Option<Vec<(usize, usize)>>,
        borders: Option<Vec<Border>>,
        channels: Option<Vec<usize>>,
        dtypes: Option<Vec<DType>>,
    ) -> VerifyPlan {
        let channels = channels.unwrap_or_else(|| vec![1, 3, 4]);
        let dtypes = dtypes.unwrap_or_else(|| DType::ALL.to_vec());
        VerifyPlan {
            sizes: sizes.unwrap_or_else(|| vec![(1, 1), (1, 7), (7, 1), (7, 5), (31, 17), (257, 129)]),
            filters: filters.unwrap_or_else(|| squares(&[1, 3, 5, 7, 9, 17, 31])),
            borders: borders.unwrap_or_else(|| Border::CHECKED.to_vec()),
            layouts: channels
                .iter()
                .flat_map(|&c| dtypes.iter().map(move |&d| (c, d)))
                .collect(),
        }
    }
}

/// Rectangles the standard verification checks: thin, tall, even-sided and the widest.
pub const RECTANGLES: [(usize, usize); 5] = [(1, 15), (15, 1), (3, 7), (4, 6), (2, 31)];

/// The square filter shapes of these sides.
pub fn squares(sides: &[usize]) -> Vec<(usize, usize)> {
    sides.iter().map(|&k| (k, k)).collect()
}

/// One checked case of the verification.
#[derive(Clone, Debug)]
pub struct Case {
    pub variant: &'static str,
    pub width: usize,
    pub height: usize,
    pub channels: usize,
    pub dtype: DType,
    pub border: Border,
    /// The filter's `(rows, cols)`.
    pub filter: (usize, usize),
    /// Whether the filter was the random rank-1 one (else a general random filter).
    pub rank1: bool,
    pub check: Comparison,
}

impl std::fmt::Display for Case {
    /// Variant, size, channels, sample type, border, filter size and kind, then the comparison
    /// (first bad position, got, expected, tolerance), in aligned columns.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{:<18} {:>4}x{:<4} c={} {:<3} {:<9} k={:<5}{} {}",
            self.variant,
            self.width,
            self.height,
            self.channels,
            self.dtype.suffix(),
            self.border.describe(),
            format!("{}x{}", self.filter.0, self.filter.1),
            if self.rank1 { " rank-1" } else { "" },
            self.check
        )
    }
}

/// `border` for images of `dtype`: a constant on the scale of `f32` samples taken to the type's
/// levels, rounded (0.75 is 191 for 8-bit samples, 49151 for 16-bit ones); the others as they are.
pub fn in_levels(border: Border, dtype: DType) -> Border {
    match (border, dtype.levels()) {
        (Border::Constant(v), Some(max)) => Border::Constant((f64::from(v) * max).round() as f32),
        (b, _) => b,
    }
}

/// How far a verification is, after each case set (one random image: a size and layout of a
/// plan, with every filter, border and variant).
#[derive(Clone, Debug)]
pub struct Progress {
    /// Case sets done, of `total`.
    pub done: usize,
    pub total: usize,
    /// Cases checked so far, and how many failed.
    pub checks: usize,
    pub failed: usize,
    /// The case set just done: `257x129 c=3 u16`.
    pub what: String,
}

/// [`verify_with_progress`] without progress reports.
pub fn verify(
    plans: &[VerifyPlan],
    variants: &[Variant],
    seed: u64,
    gpu: Option<&Gpu>,
    report: impl FnMut(&Case),
) -> Result<(Vec<Case>, usize)> {
    verify_with_progress(plans, variants, seed, gpu, report, |_| {})
}

/// Checks the CPU variants and, with `gpu`, every variant in `variants` on random images with two
/// random filters per case (a general one, and a rank-1 one that the separable variant also
/// runs), for every combination in `plans`. GPU outputs are poisoned before each run. `report`
/// sees each case as it finishes, `progress` each case set. Returns the cases, and how many
/// combinations were skipped because the valid border needs an image at least as large as the
/// filter, and a filter that is its square.
pub fn verify_with_progress(
    plans: &[VerifyPlan],
    variants: &[Variant],
    seed: u64,
    gpu: Option<&Gpu>,
    mut report: impl FnMut(&Case),
    mut progress: impl FnMut(&Progress),
) -> Result<(Vec<Case>, usize)> {
    let mut cases = Vec::new();
    let mut skipped = 0;
    let mut n = 0u64;
    let total = plans.iter().map(|p| p.sizes.len() * p.layouts.len()).sum();
    for plan in plans {
        for &(width, height) in &plan.sizes {
            for &(channels, dtype) in &plan.layouts {
                n += 1;
                let image = Image::random(width, height, channels, dtype, seed.wrapping_add(n))?;
                // Every other f32 layout also checks clamping (integers always clamp).
                let clamp = dtype == DType::F32 && n.is_multiple_of(2);
                let kernels = match gpu {
                    Some(g) => variants
                        .iter()
                        .filter(|v| v.supports_dtype(dtype))
                        .map(|&v| g.kernel(v, dtype))
                        .collect::<Result<Vec<_>>>()?,
                    None => Vec::new(),
                };
                for &shape in &plan.filters {
                    let key = if shape.0 == shape.1 {
                        shape.0 as u64
                    } else {
                        (shape.0 * 32 + shape.1) as u64
                    };
                    let fseed = seed.wrapping_mul(1_000_003).wrapping_add(n * 64 + key);
                    let rank1 = Filter::random_rank1(shape, fseed ^ 0x5eed)?;
                    // Past 127 × 127 a filter is rank 1: no general one.
                    let mut filters = vec![(rank1, true)];
                    if shape.0.max(shape.1) <= ferroconv::model::filter::MAX_GENERAL_SIZE {
                        let general = if dtype == DType::F32 {
                            Filter::random(shape, fseed)?
                        } else {
                            Filter::random_normalized(shape, fseed)?
                        };
                        filters.insert(0, (general, false));
                    }
                    for border in plan.borders.iter().map(|&b| in_levels(b, dtype)) {
                        // The valid border: an image smaller than the filter, or a filter that
                        // is not its square (refused; see `Filter::output_size`).
                        if filters[0].0.output_size(border, width, height).is_err() {
                            skipped += 1;
                            continue;
                        }
                        for (filter, is_rank1) in filters.iter().map(|(f, r)| (f, *r)) {
                            let expected = cpu::reference_parallel(&image, filter, border)?;
                            let mut record = |variant: &'static str, check: Comparison| {
                                let case = Case {
                                    variant,
                                    width,
                                    height,
                                    channels,
                                    dtype,
                                    border,
                                    filter: shape,
                                    rank1: is_rank1,
                                    check,
                                };
                                report(&case);
                                cases.push(case);
                            };
                            let tol = tolerance_for(None, &image, filter);
                            let seq = cpu::sequential(&image, filter, border, clamp)?;
                            record("cpu-seq", check::compare(&seq, &expected, tol, clamp));
                            let par = cpu::parallel(&image, filter, border, clamp)?;
                            record("cpu-par", check::compare(&par, &expected, tol, clamp));
                            if naive_runs(filter) {
                                let naive = cpu::naive_sequential(&image, filter, border, clamp)?;
                                record("cpu-naive", check::compare(&naive, &expected, tol, clamp));
                            }
                            let Some(gpu) = gpu else { continue };
                            let problem = Problem::of(&image, filter, border, clamp);
                            for kernel in &kernels {
                                let v = kernel.variant();
                                let line = !v.spec().lines_only || filter.is_line();
                                if (v.needs_rank1() && !is_rank1)
                                    || !line
                                    || !v.supports(dtype, filter.radius())
                                {
                                    continue;
                                }
                                let tol = tolerance_for(Some(v), &image, filter);
                                let check = if v.spec().input == InputKind::Texture {
                                    // The texture variant has no plan (see `texture_row`).
                                    let mut dev = gpu.alloc(v, &problem)?;
                                    gpu.upload(&mut dev, &image)?;
                                    checked_runs(gpu, kernel, &mut dev, dtype, &expected, tol, clamp)?
                                } else {
                                    let mut plan = Filter2D::new(gpu, filter, border)?
                                        .with_clamp(clamp)
                                        .with_variant(v)?;
                                    let out = plan.output_size(width, height)?;
                                    let (src, mut dst) = device_images(gpu, &image, out)?;
                                    plan_checked_runs(gpu, &mut plan, &src, &mut dst, &expected, tol, clamp)?
                                        .0
                                };
                                record(v.name(), check);
                            }
                        }
                    }
                }
                progress(&Progress {
                    done: n as usize,
                    total,
                    checks: cases.len(),
                    failed: cases.iter().filter(|c| !c.check.passed()).count(),
                    what: format!("{width}x{height} c={channels} {}", dtype.suffix()),
                });
            }
        }
    }
    Ok((cases, skipped))
}
