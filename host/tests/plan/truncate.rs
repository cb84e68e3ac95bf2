//! Truncated integer results ([`Filter2D::with_truncate`], scipy.ndimage's cast) on the CPU and
//! on every GPU variant that takes `u8` or `u16` samples: each level is `v · widen` truncated
//! toward zero and wrapped modulo the type's range (scipy's C cast), `v` the `f64` reference in
//! levels (within the `f32` tolerance where `v · widen` lies that close to a level), and exactly
//! the level where the result is a whole one: a flat image under positive weights summing to 1,
//! and a box filter whose mean is a whole number of levels. RGBA's alpha, copied or filtered,
//! comes back as the same rule says.

use crate::paths::Poison;
use crate::{SEED, gpu};
use ferroconv::engine::cpu::{reference_parallel, separable_form};
use ferroconv::model::filter::{FilterKind, Separable};
use ferroconv::model::image::Samples;
use ferroconv::plan::{Filter2D, ImageView, ImageViewMut};
use ferroconv::{Border, DType, Filter, Gpu, Image, Problem, Variant};
use host_tools::verify::check::tolerance;

/// The widening the library documents (`gpu_kernels::launch::widen`), restated: `1 + 4 · taps ·
/// 2^-24`, at most `1 + 2^-8 / max`, `taps` the filter's `rows · cols` for one 2D sum and
/// `rows + cols` for two 1D passes; and whether the cap is below `taps · 2^-24` (then a whole
/// level's `f32` sum may fall below it by more than the widening: one level less is allowed
/// there; `u16` at every size, `u8` past 257 taps).
fn widen(filter: &Filter, two_pass: bool, max: f64) -> (f64, bool) {
    let (rows, cols) = filter.shape();
    let taps = if two_pass { rows + cols } else { rows * cols };
    let (by_taps, cap) = (4.0 * taps as f64 / 16_777_216.0, 1.0 / (256.0 * max));
    (1.0 + by_taps.min(cap), by_taps / 4.0 > cap)
}

/// Where a case runs: a plan (CPU, a GPU variant, or the GPU's automatic choice), or the
/// `texture` variant, which a plan cannot run, on a job of its own.
#[derive(Clone, Copy)]
enum Engine {
    Cpu,
    Gpu(&'static Gpu, Option<Variant>),
    Texture(&'static Gpu),
}

impl Engine {
    fn name(self) -> String {
        match self {
            Engine::Cpu => "cpu".into(),
            Engine::Gpu(_, v) => v.map_or("auto", |v| v.name()).into(),
            Engine::Texture(_) => "texture".into(),
        }
    }

    /// Whether the engine runs `filter` on `dtype` samples (with RGBA's alpha filtered if
    /// `filter_alpha`).
    fn runs(self, filter: &Filter, dtype: DType, filter_alpha: bool) -> bool {
        let variant = match self {
            Engine::Cpu => return true,
            Engine::Gpu(_, None) => return filter.size() <= 31,
            Engine::Gpu(_, Some(v)) => v,
            Engine::Texture(_) => Variant::Texture,
        };
        variant.supports(dtype, filter.radius())
            && (!variant.needs_rank1() || filter.rank1().is_some())
            && (!variant.spec().lines_only || filter.is_line())
            && !(filter_alpha && matches!(variant, Variant::TensorU8 | Variant::Texture))
    }

    /// `image` filtered with `filter` and `border`, integers truncated: the result's levels and
    /// the factors of the two 1D passes it was computed in (`None`: one 2D sum).
    fn run(
        self,
        image: &Image,
        filter: &Filter,
        border: Border,
        filter_alpha: bool,
    ) -> (Vec<f64>, Option<Separable>) {
        let what = || format!("{} {}", self.name(), image.dtype().suffix());
        match self {
            Engine::Cpu => {
                let mut plan = Filter2D::cpu(filter, border)
                    .with_truncate(true)
                    .with_filter_alpha(filter_alpha);
                assert!(plan.truncates());
                (levels_of(&mut plan, image), separable_form(filter))
            }
            Engine::Gpu(gpu, variant) => {
                let mut plan = Filter2D::new(gpu, filter, border)
                    .unwrap()
                    .with_truncate(true)
                    .with_filter_alpha(filter_alpha);
                if let Some(v) = variant {
                    plan.set_variant(v).unwrap();
                }
                let levels = levels_of(&mut plan, image);
                let ran = plan
                    .variant()
                    .unwrap_or_else(|| panic!("{}: no variant ran", what()));
                (levels, ran.needs_rank1().then(|| filter.rank1()).flatten())
            }
            Engine::Texture(gpu) => {
                gpu.make_current().unwrap();
                let problem = Problem {
                    truncate: true,
                    ..Problem::of(image, filter, border, false)
                };
                let kernel = gpu.kernel(Variant::Texture, image.dtype()).unwrap();
                let mut job = gpu.alloc(Variant::Texture, &problem).unwrap();
                gpu.upload(&mut job, image).unwrap();
                gpu.time(|g| g.launch(&kernel, &mut job)).unwrap();
                let (out, _) = gpu.download(&mut job).unwrap();
                let max = image.dtype().levels().unwrap();
                (
                    (0..out.samples().len())
                        .map(|i| out.samples().value(i) * max)
                        .collect(),
                    None,
                )
            }
        }
    }
}

/// `plan` on `image` (packed host slices, the output poisoned first): the result's levels.
fn levels_of(plan: &mut Filter2D, image: &Image) -> Vec<f64> {
    fn run<T: Poison + Into<f64>>(plan: &mut Filter2D, image: &Image) -> Vec<f64> {
        let (w, h, c) = (image.width(), image.height(), image.channels());
        let (ow, oh) = plan.output_size(w, h).unwrap();
        let mut out = vec![T::POISON; ow * oh * c];
        plan.run(
            &ImageView::new(T::samples(image.samples()), w, h, c).unwrap(),
            &mut ImageViewMut::new(&mut out, ow, oh, c).unwrap(),
        )
        .unwrap_or_else(|e| panic!("{:?}: {e}", plan.variant()));
        out.into_iter().map(Into::into).collect()
    }
    match image.dtype() {
        DType::U8 => run::<u8>(plan, image),
        DType::U16 => run::<u16>(plan, image),
        DType::F32 | DType::F16 | DType::BF16 => unreachable!("integer images only"),
    }
}

/// The `f64` reference of `image` (values, level / max): RGBA's alpha copied, or filtered like
/// the other channels (each channel's reference as a gray image) where `filter_alpha`.
fn reference(image: &Image, filter: &Filter, border: Border, filter_alpha: bool) -> Vec<f64> {
    let ch = image.channels();
    if !(filter_alpha && ch == 4) {
        return reference_parallel(image, filter, border).unwrap().values;
    }
    let planes: Vec<Vec<f64>> = (0..ch)
        .map(|c| {
            let plane = match image.samples() {
                Samples::U8(v) => Samples::U8(v.iter().skip(c).step_by(ch).copied().collect()),
                Samples::U16(v) => Samples::U16(v.iter().skip(c).step_by(ch).copied().collect()),
                _ => unreachable!("integer images only"),
            };
            let plane = Image::new(image.width(), image.height(), 1, plane).unwrap();
            reference_parallel(&plane, filter, border).unwrap().values
        })
        .collect();
    (0..planes[0].len() * ch)
        .map(|i| planes[i % ch][i / ch])
        .collect()
}

/// Checks a truncated result against the reference: every level one of `(v ∓ d) · widen`
/// truncated toward zero, wrapped modulo the type's range (scipy's C cast), `v` the reference in
/// levels and `d` the `f32` tolerance in levels.
fn check_random(engine: Engine, image: &Image, filter: &Filter, border: Border, filter_alpha: bool) {
    let max = image.dtype().levels().unwrap();
    let (got, passes) = engine.run(image, filter, border, filter_alpha);
    let (widen, _) = widen(filter, passes.is_some(), max);
    let expected = reference(image, filter, border, filter_alpha);
    let d = tolerance(image, filter, passes.as_ref()) * max;
    let level = |v: f64| (v * widen).trunc() as i64;
    let range = max as i64 + 1;
    let bad: Vec<(usize, f64, f64)> = (0..got.len())
        .filter(|&i| {
            let v = expected[i] * max;
            !(level(v - d)..=level(v + d)).any(|k| k.rem_euclid(range) as f64 == got[i])
        })
        .map(|i| (i, got[i], expected[i] * max))
        .collect();
    assert!(
        bad.is_empty(),
        "{} {} {}x{}x{} k={:?} {} alpha filtered {filter_alpha}: {} of {} levels off (widen {widen}, \
         tolerance {d} levels); first (index, got, reference in levels): {:?}",
        engine.name(),
        image.dtype().suffix(),
        image.width(),
        image.height(),
        image.channels(),
        filter.shape(),
        border.name(),
        bad.len(),
        got.len(),
        &bad[..bad.len().min(5)]
    );
}

/// Checks that every output sample of channel `c` is exactly `want(c)` (RGBA's alpha copied, or
/// filtered where `filter_alpha`), or one level less where the widening's cap is below the sum's error.
fn check_exact(
    engine: Engine,
    (image, filter_alpha): (&Image, bool),
    filter: &Filter,
    border: Border,
    want: &dyn Fn(usize) -> f64,
) {
    let ch = image.channels();
    let (got, passes) = engine.run(image, filter, border, filter_alpha);
    let max = image.dtype().levels().unwrap();
    let (_, capped) = widen(filter, passes.is_some(), max);
    let below = if capped { 1.0 } else { 0.0 };
    let bad: Vec<(usize, f64)> = got
        .iter()
        .enumerate()
        .filter(|&(i, &g)| !(want(i % ch) - below..=want(i % ch)).contains(&g))
        .map(|(i, &g)| (i, g))
        .collect();
    assert!(
        bad.is_empty(),
        "{} {} {}x{}x{} k={:?} {}: {} of {} levels are not the whole level {:?}; first (index, got): {:?}",
        engine.name(),
        image.dtype().suffix(),
        image.width(),
        image.height(),
        ch,
        filter.shape(),
        border.name(),
        bad.len(),
        got.len(),
        (0..ch).map(want).collect::<Vec<_>>(),
        &bad[..bad.len().min(5)]
    );
}

/// An image of `dtype` whose channel `c` holds `level(c)` everywhere.
fn flat(dtype: DType, (w, h, ch): (usize, usize, usize), level: &dyn Fn(usize) -> f64) -> Image {
    let n = w * h * ch;
    let samples = match dtype {
        DType::U8 => Samples::U8((0..n).map(|i| level(i % ch) as u8).collect()),
        DType::U16 => Samples::U16((0..n).map(|i| level(i % ch) as u16).collect()),
        DType::F32 | DType::F16 | DType::BF16 => unreachable!("integer images only"),
    };
    Image::new(w, h, ch, samples).unwrap()
}

/// A `k`-periodic image (`w` and `h` multiples of `k`) whose `k × k` tile in each channel sums
/// to a whole multiple of `k²` levels: under the wrap border every window of a `k × k` box holds
/// one whole tile, so every output is that multiple. Returns the image and each channel's mean.
fn periodic(dtype: DType, (w, h, ch): (usize, usize, usize), k: usize, seed: u64) -> (Image, Vec<f64>) {
    let max = dtype.levels().unwrap() as u64;
    let kk = (k * k) as u64;
    let mut x = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
    let mut next = move || {
        x = x
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        x >> 33
    };
    let tiles: Vec<Vec<u64>> = (0..ch)
        .map(|_| {
            let mut tile: Vec<u64> = (0..kk).map(|_| kk + next() % (max - 2 * kk)).collect();
            tile[0] -= tile.iter().sum::<u64>() % kk;
            tile
        })
        .collect();
    let means = tiles
        .iter()
        .map(|t| (t.iter().sum::<u64>() / kk) as f64)
        .collect();
    let at = |i: usize| {
        let (p, c) = (i / ch, i % ch);
        tiles[c][((p / w) % k) * k + (p % w) % k]
    };
    let samples = match dtype {
        DType::U8 => Samples::U8((0..w * h * ch).map(|i| at(i) as u8).collect()),
        DType::U16 => Samples::U16((0..w * h * ch).map(|i| at(i) as u16).collect()),
        DType::F32 | DType::F16 | DType::BF16 => unreachable!("integer images only"),
    };
    (Image::new(w, h, ch, samples).unwrap(), means)
}

/// A filter of positive taps summing to 1 (as `f32`s, within their rounding): rank-1 for the
/// variants that need one, else a general one.
fn positive(shape: (usize, usize), rank1: bool, seed: u64) -> Filter {
    if rank1 {
        return Filter::random_rank1(shape, seed).unwrap();
    }
    let (rows, cols) = shape;
    let taps: Vec<f64> = (0..rows * cols)
        .map(|i| 0.05 + ((i as u64 * 2_654_435_761 + seed) % 1000) as f64 / 1000.0)
        .collect();
    let sum: f64 = taps.iter().sum();
    Filter::rect(rows, cols, taps.iter().map(|t| (t / sum) as f32).collect()).unwrap()
}

/// Every check on `engine` for `dtype`, over the filter sizes `sizes` and image sizes `images`;
/// returns how many cases ran.
fn all_checks(engine: Engine, dtype: DType, sizes: &[(usize, usize)], images: &[(usize, usize)]) -> usize {
    let max = dtype.levels().unwrap();
    let rank1 = matches!(engine, Engine::Gpu(_, Some(v)) if v.needs_rank1());
    let mut cases = 0;
    for &shape in sizes {
        let seed = SEED + (shape.0 * 131 + shape.1) as u64;
        // Random images, random weights (some negative: clamping too).
        let filter = if rank1 {
            Filter::random_rank1(shape, seed)
        } else {
            Filter::random_normalized(shape, seed)
        }
        .unwrap();
        for border in [
            Border::Reflect,
            Border::Constant(Border::checked_cval(dtype)),
            Border::Valid,
        ] {
            for &(w, h) in images {
                for ch in [1, 3, 4] {
                    for filter_alpha in [false, true] {
                        if (filter_alpha && ch != 4)
                            || !engine.runs(&filter, dtype, filter_alpha)
                            || filter.output_size(border, w, h).is_err()
                        {
                            continue;
                        }
                        let image = Image::random(w, h, ch, dtype, seed + (w * ch) as u64).unwrap();
                        check_random(engine, &image, &filter, border, filter_alpha);
                        cases += 1;
                    }
                }
            }
        }
        // Flat images: each channel its own whole level, among them 0, 1 and the largest.
        let filter = positive(shape, rank1, seed);
        let levels = [1.0, 7.0, (max / 3.0).floor(), max - 1.0, max, 0.0];
        for (n, border) in [Border::Replicate, Border::Symmetric].into_iter().enumerate() {
            for &(w, h) in images {
                for ch in [1, 4] {
                    if !engine.runs(&filter, dtype, false) {
                        continue;
                    }
                    let level = |c: usize| levels[(c + n + w) % levels.len()];
                    let image = flat(dtype, (w, h, ch), &level);
                    check_exact(engine, (&image, false), &filter, border, &level);
                    cases += 1;
                }
            }
        }
    }
    // A box whose mean is a whole number of levels (wrap border, periodic tiles), RGBA's alpha
    // filtered too.
    for k in [3, 5, 7] {
        let boxed = Filter::builtin(FilterKind::Box, k, None).unwrap();
        for ch in [1, 3, 4] {
            if !engine.runs(&boxed, dtype, ch == 4) {
                continue;
            }
            let (image, means) = periodic(dtype, (32 * k, 6 * k, ch), k, SEED + k as u64);
            check_exact(engine, (&image, ch == 4), &boxed, Border::Wrap, &|c| means[c]);
            cases += 1;
        }
    }
    cases
}

/// The CPU plan truncates `u8` and `u16` results: general filters (one 2D sum), rank-1 ones
/// (two passes), rectangles, sizes from 1 × 1, every border, and sizes where the widening is
/// capped (`u16` at every size, `u8` past 16 taps).
pub fn cpu_plans_truncate_integer_results() {
    let sizes = [(1, 1), (3, 3), (5, 5), (9, 9), (3, 7), (17, 17)];
    let images = [(1, 1), (7, 5), (130, 67)];
    let mut cases = 0;
    for dtype in [DType::U8, DType::U16] {
        cases += all_checks(Engine::Cpu, dtype, &sizes, &images);
        // Every border, on one size.
        let filter = Filter::random_normalized(5, SEED).unwrap();
        for border in Border::checked(dtype) {
            let image = Image::random(31, 17, 3, dtype, SEED).unwrap();
            check_random(Engine::Cpu, &image, &filter, border, false);
            cases += 1;
        }
        // Rank-1 filters run in two passes, and the largest general ones, where the cap binds.
        for (shape, rank1) in [((33, 33), true), ((1, 301), true), ((95, 95), false)] {
            let filter = positive(shape, rank1, SEED);
            let image = Image::random(140, 120, 1, dtype, SEED).unwrap();
            check_random(Engine::Cpu, &image, &filter, Border::Reflect, false);
            let level = |_| dtype.levels().unwrap() - 2.0;
            let image = flat(dtype, (140, 120, 4), &level);
            check_exact(Engine::Cpu, (&image, false), &filter, Border::Wrap, &level);
            cases += 2;
        }
    }
    assert!(cases >= 500, "only {cases} cases ran");
}

/// Every GPU variant that takes `u8` or `u16` samples truncates their results as the CPU does,
/// `auto` included and `texture` (on a job, which a plan cannot run): images of odd sizes and
/// ones whose rows take the vector, word and tensor-core paths (widths multiples of 16), gray,
/// RGB and RGBA.
pub fn gpu_variants_truncate_integer_results() {
    let test = "plan::gpu_variants_truncate_integer_results";
    let gpu = gpu(test);
    let sizes = [(3, 3), (5, 5), (9, 9), (3, 7), (1, 9), (9, 1)];
    let images = [(7, 5), (130, 67), (528, 40)];
    let mut engines: Vec<Engine> = Variant::ALL
        .into_iter()
        .filter(|&v| v != Variant::Texture)
        .map(|v| Engine::Gpu(gpu, Some(v)))
        .collect();
    engines.extend([Engine::Gpu(gpu, None), Engine::Texture(gpu)]);
    for engine in engines {
        for dtype in [DType::U8, DType::U16] {
            let cases = all_checks(engine, dtype, &sizes, &images);
            let takes = match engine {
                Engine::Gpu(_, Some(v)) => v.supports_dtype(dtype),
                _ => true,
            };
            assert!(
                !takes || cases > 0,
                "{test}: no case ran on {} {}",
                engine.name(),
                dtype.suffix()
            );
        }
    }
}
