//! RGBA with its alpha filtered, on the CPU and on every GPU variant.

use crate::paths::Poison;
use crate::{SEED, gpu};
use ferroconv::engine::cpu::reference_parallel;
use ferroconv::model::image::Samples;
use ferroconv::plan::{Filter2D, ImageView, ImageViewMut};
use ferroconv::{Border, DType, Filter, Image, Variant};
use host_tools::verify::check::{compare, tolerance};

/// Channel `c` of `image` as a gray image.
fn plane(image: &Image, c: usize) -> Image {
    fn pick<T: Copy>(v: &[T], c: usize, ch: usize) -> Vec<T> {
        v.iter().skip(c).step_by(ch).copied().collect()
    }
    let ch = image.channels();
    let samples = match image.samples() {
        Samples::U8(v) => Samples::U8(pick(v, c, ch)),
        Samples::U16(v) => Samples::U16(pick(v, c, ch)),
        Samples::F32(v) => Samples::F32(pick(v, c, ch)),
        Samples::F16(v) => Samples::F16(pick(v, c, ch)),
        Samples::BF16(v) => Samples::BF16(pick(v, c, ch)),
    };
    Image::new(image.width(), image.height(), 1, samples).unwrap()
}

/// RGBA with its alpha filtered ([`Filter2D::with_filter_alpha`], the Python package's rule):
/// `plan` (filter `filter`, border `border`) on a random RGBA image of `T` samples, the output
/// poisoned first, gives each of the four channels the reference of that channel alone; `Err`
/// is the plan's refusal.
fn alpha_case<T: Poison>(
    plan: &mut Filter2D,
    filter: &Filter,
    border: Border,
    (w, h): (usize, usize),
) -> Result<(), String> {
    let image = Image::random(w, h, 4, T::DTYPE, SEED + w as u64).unwrap();
    let (ow, oh) = plan.output_size(w, h).unwrap();
    let mut out = vec![T::POISON; ow * oh * 4];
    plan.run(
        &ImageView::new(T::samples(image.samples()), w, h, 4).unwrap(),
        &mut ImageViewMut::new(&mut out, ow, oh, 4).unwrap(),
    )
    .map_err(|e| e.to_string())?;
    let got = Image::new(ow, oh, 4, T::wrap(out)).unwrap();
    let rank1 = plan
        .variant()
        .filter(|v| v.needs_rank1())
        .and_then(|_| filter.rank1());
    for c in 0..4 {
        let input = plane(&image, c);
        let expected = reference_parallel(&input, filter, border).unwrap();
        let result = compare(
            &plane(&got, c),
            &expected,
            tolerance(&input, filter, rank1.as_ref()),
            false,
        );
        let what = format!(
            "{w}x{h} RGBA {} {} channel {c} ({:?})",
            T::DTYPE.suffix(),
            border.name(),
            plan.variant()
        );
        assert!(result.passed(), "{what}: {result}");
    }
    Ok(())
}

/// [`alpha_case`] at every sample type.
fn alpha_any(
    plan: &mut Filter2D,
    filter: &Filter,
    border: Border,
    dtype: DType,
    size: (usize, usize),
) -> Result<(), String> {
    match dtype {
        DType::U8 => alpha_case::<u8>(plan, filter, border, size),
        DType::U16 => alpha_case::<u16>(plan, filter, border, size),
        DType::F32 => alpha_case::<f32>(plan, filter, border, size),
        DType::F16 | DType::BF16 => unreachable!("the cases run DType::ALL"),
    }
}

/// The CPU plan filters RGBA's alpha when asked: every border, sample type, and sizes from 1 × 1.
pub fn cpu_filters_rgba_alpha_when_asked() {
    for dtype in DType::ALL {
        // The constant border in each type's own levels.
        for border in Border::checked(dtype) {
            for k in [1, 3, 5, 17] {
                let filter = Filter::random(k, SEED + k as u64).unwrap();
                let mut plan = Filter2D::cpu(&filter, border).with_filter_alpha(true);
                for size in [(1, 1), (7, 5), (130, 67)] {
                    if border.output_size(size.0, size.1, k / 2).is_err() {
                        continue;
                    }
                    alpha_any(&mut plan, &filter, border, dtype, size)
                        .unwrap_or_else(|e| panic!("cpu k={k} {size:?}: {e}"));
                }
            }
        }
    }
}

/// Every variant a plan runs filters RGBA's alpha when asked, on every sample type it has, at
/// radii on both sides of the interleaved entries' limit (4) and of `tensor-f32`'s colour
/// blocks (12), on a small odd image and one whose rows take the interleaved and word paths;
/// `auto` too. The kernels that stage only the colour channels (`tensor-u8`, `tensor-f32` up
/// to 25 × 25) refuse, in one line.
pub fn gpu_variants_filter_rgba_alpha_when_asked() {
    let test = "plan::gpu_variants_filter_rgba_alpha_when_asked";
    let gpu = gpu(test);
    let mut ran = 0;
    for variant in Variant::ALL.into_iter().map(Some).chain([None]) {
        if variant.is_some_and(|v| v.name() == "texture") {
            continue;
        }
        for k in [3, 5, 9, 11, 27, 45] {
            for dtype in DType::ALL {
                // `auto` has no GPU variant for general filters past 31 × 31 on integers.
                let none = variant.map_or(k > 31 && dtype != DType::F32, |v| !v.supports(dtype, k / 2));
                if none {
                    continue;
                }
                let rank1 = variant.is_some_and(|v| v.needs_rank1());
                let filter = if rank1 {
                    Filter::random_rank1(k, SEED)
                } else if variant.is_some_and(|v| v.spec().lines_only) {
                    Filter::random((1, k), SEED)
                } else {
                    Filter::random(k, SEED)
                }
                .unwrap();
                for border in [Border::Symmetric, Border::Constant(Border::checked_cval(dtype))] {
                    let mut plan = Filter2D::new(gpu, &filter, border)
                        .unwrap()
                        .with_filter_alpha(true);
                    if let Some(v) = variant {
                        plan.set_variant(v).unwrap();
                    }
                    let copies = matches!(variant, Some(Variant::TensorU8))
                        || (variant == Some(Variant::TensorF32) && k <= 25);
                    for size in [(7, 5), (130, 67)] {
                        let what = format!(
                            "{} k={k} {} {size:?}",
                            variant.map_or("auto", |v| v.name()),
                            dtype.suffix()
                        );
                        match alpha_any(&mut plan, &filter, border, dtype, size) {
                            Ok(()) => {
                                assert!(!copies, "{test}: {what} ran, it should refuse");
                                ran += 1;
                            }
                            Err(e) => {
                                assert!(copies, "{test}: {what}: {e}");
                                assert!(
                                    e.contains("copies RGBA's alpha") && !e.contains('\n'),
                                    "{test}: {what}: {e}"
                                );
                            }
                        }
                    }
                }
            }
        }
    }
    assert!(ran >= 300, "{test}: only {ran} cases ran");
}
