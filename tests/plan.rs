//! The plan API (`ferroconv::plan`) against the `f64` reference: host views with padded rows and
//! regions of larger images, every border, sample type and channel count, on the CPU always and
//! on the GPU where there is one (device images, pitched raw images and the caller's streams
//! included). Outputs are poisoned first and their row padding must come back untouched.
//! Without a GPU the GPU tests say `SKIPPED` on stderr; `CONV_REQUIRE_GPU=1` makes that a failure.

use ferroconv::engine::cpu::reference_parallel;
use ferroconv::model::image::Samples;
use ferroconv::plan::{DeviceImage, Filter2D, ImageView, ImageViewMut, Pixel, RawImage, StreamRef};
use ferroconv::{Border, DType, Error, Filter, Gpu, Image, Variant};
use host_tools::verify::check::{compare, tolerance};
use std::sync::OnceLock;

const SEED: u64 = 11;
/// Samples of padding after each row of a strided view.
const PAD: usize = 5;

/// The first GPU, opened once; `None` (and a loud skip) without one.
fn gpu(test: &str) -> Option<&'static Gpu> {
    static GPU: OnceLock<Result<Gpu, String>> = OnceLock::new();
    match GPU.get_or_init(|| match Gpu::open(0) {
        Ok(gpu) => Ok(gpu),
        Err(Error::NoGpu(why)) => Err(why),
        Err(e) => panic!("a GPU is present but could not be opened: {e}"),
    }) {
        Ok(gpu) => Some(gpu),
        Err(why) => {
            let required = std::env::var_os("CONV_REQUIRE_GPU").is_some_and(|v| !v.is_empty() && v != "0");
            assert!(
                !required,
                "{test}: CONV_REQUIRE_GPU is set but there is no GPU ({why})"
            );
            eprintln!("SKIPPED: {test}: no GPU ({why})");
            None
        }
    }
}

/// A sample that no convolution writes: the output is poisoned with it first.
trait Poison: Pixel {
    const POISON: Self;
    /// Bitwise equality with the poison (a NaN poison equals itself).
    fn is_poison(&self) -> bool {
        self.to_bits_eq(&Self::POISON)
    }
    /// Bitwise equality.
    fn to_bits_eq(&self, other: &Self) -> bool;
    fn samples(s: &Samples) -> &[Self];
    fn wrap(v: Vec<Self>) -> Samples;
}
impl Poison for u8 {
    const POISON: u8 = 0xAB;
    fn to_bits_eq(&self, other: &Self) -> bool {
        self == other
    }
    fn samples(s: &Samples) -> &[u8] {
        let Samples::U8(v) = s else {
            unreachable!("u8 samples")
        };
        v
    }
    fn wrap(v: Vec<u8>) -> Samples {
        Samples::U8(v)
    }
}
impl Poison for u16 {
    const POISON: u16 = 0xABCD;
    fn to_bits_eq(&self, other: &Self) -> bool {
        self == other
    }
    fn samples(s: &Samples) -> &[u16] {
        let Samples::U16(v) = s else {
            unreachable!("u16 samples")
        };
        v
    }
    fn wrap(v: Vec<u16>) -> Samples {
        Samples::U16(v)
    }
}
impl Poison for f32 {
    const POISON: f32 = f32::NAN;
    fn to_bits_eq(&self, other: &Self) -> bool {
        self.to_bits() == other.to_bits()
    }
    fn samples(s: &Samples) -> &[f32] {
        let Samples::F32(v) = s else {
            unreachable!("f32 samples")
        };
        v
    }
    fn wrap(v: Vec<f32>) -> Samples {
        Samples::F32(v)
    }
}

/// How a case hands its images to the plan.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Path {
    /// Packed host slices.
    Packed,
    /// Host rows `PAD` samples longer than the image, the image starting `PAD` samples in.
    Strided,
    /// Packed device images on the legacy default stream.
    Device,
    /// Pitched device memory through the raw entry, on the plan's GPU's own stream.
    RawPitched,
}

/// Filters `image` with `plan` along `path`; the result, and whether the padding stayed poisoned.
fn run<T: Poison>(plan: &mut Filter2D<'_>, image: &Image, path: Path) -> (Image, bool) {
    let (w, h, c) = (image.width(), image.height(), image.channels());
    let (ow, oh) = plan.output_size(w, h).unwrap();
    let src = T::samples(image.samples());
    let (row, orow) = (w * c, ow * c);
    let mut out = vec![T::POISON; ow * oh * c];
    let mut padding_kept = true;
    match path {
        Path::Packed => plan
            .run(
                &ImageView::new(src, w, h, c).unwrap(),
                &mut ImageViewMut::new(&mut out, ow, oh, c).unwrap(),
            )
            .unwrap(),
        Path::Strided => {
            let mut big = vec![T::POISON; PAD + h * (row + PAD)];
            for y in 0..h {
                big[PAD + y * (row + PAD)..][..row].copy_from_slice(&src[y * row..][..row]);
            }
            let mut big_out = vec![T::POISON; PAD + oh * (orow + PAD)];
            let view = ImageView::with_stride(&big[PAD..], w, h, c, row + PAD).unwrap();
            let mut out_view = ImageViewMut::with_stride(&mut big_out[PAD..], ow, oh, c, orow + PAD).unwrap();
            plan.run(&view, &mut out_view).unwrap();
            for y in 0..oh {
                out[y * orow..][..orow].copy_from_slice(&big_out[PAD + y * (orow + PAD)..][..orow]);
                let pad = &big_out[y * (orow + PAD)..][..PAD];
                padding_kept &= pad.iter().all(|p| p.is_poison());
            }
        }
        Path::Device => {
            let gpu = plan.gpu().expect("a GPU plan");
            let input = DeviceImage::upload(gpu, &ImageView::new(src, w, h, c).unwrap()).unwrap();
            let mut output = DeviceImage::upload(gpu, &ImageView::new(&out, ow, oh, c).unwrap()).unwrap();
            plan.run_device(&input, &mut output, StreamRef::LEGACY).unwrap();
            StreamRef::LEGACY.synchronize(gpu).unwrap();
            output
                .copy_to(&mut ImageViewMut::new(&mut out, ow, oh, c).unwrap())
                .unwrap();
        }
        Path::RawPitched => {
            let gpu = plan.gpu().expect("a GPU plan");
            // Device rows PAD samples longer than the image: one wide device image holds each.
            let mut staged = vec![T::POISON; h * (row + PAD)];
            for y in 0..h {
                staged[y * (row + PAD)..][..row].copy_from_slice(&src[y * row..][..row]);
            }
            // Pitched memory: a one-channel device image of `row + PAD` samples a row.
            let wide = |n: usize, rows: usize, data: &[T]| {
                DeviceImage::upload(gpu, &ImageView::new(data, n, rows, 1).unwrap()).unwrap()
            };
            let input = wide(row + PAD, h, &staged);
            let out_staged = vec![T::POISON; oh * (orow + PAD)];
            let output = wide(orow + PAD, oh, &out_staged);
            let raw = |d: &DeviceImage<'_>, w, h, extra| RawImage {
                pitch: (w * c + extra) * size_of::<T>(),
                width: w,
                height: h,
                channels: c,
                ..d.raw()
            };
            let stream = StreamRef::PER_THREAD;
            // SAFETY: both device images are live allocations of the plan's GPU holding `h`
            // (`oh`) rows at the given pitch, they do not overlap, and the stream is
            // synchronized before they are dropped.
            unsafe { plan.run_raw(raw(&input, w, h, PAD), raw(&output, ow, oh, PAD), stream) }.unwrap();
            stream.synchronize(gpu).unwrap();
            let mut back = vec![T::POISON; oh * (orow + PAD)];
            let n = orow + PAD;
            output
                .copy_to(&mut ImageViewMut::new(&mut back, n, oh, 1).unwrap())
                .unwrap();
            for y in 0..oh {
                out[y * orow..][..orow].copy_from_slice(&back[y * n..][..orow]);
                padding_kept &= back[y * n + orow..][..PAD].iter().all(|p| p.is_poison());
            }
        }
    }
    (Image::new(ow, oh, c, T::wrap(out)).unwrap(), padding_kept)
}

/// Every border, channel count and a ladder of sizes for sample type `T` along `path`.
fn ladder<T: Poison>(test: &str, plan_for: &dyn Fn(&Filter, Border) -> Filter2D<'static>, path: Path) {
    let mut cases = 0;
    for border in Border::CHECKED {
        for k in [1, 3, 5, 9, 17] {
            let filter = Filter::random(k, SEED + k as u64).unwrap();
            let mut plan = plan_for(&filter, border);
            for (w, h) in [(1, 1), (7, 5), (31, 17), (257, 129)] {
                if border.output_size(w, h, k / 2).is_err() {
                    continue;
                }
                for c in [1, 3, 4] {
                    let image = Image::random(w, h, c, T::DTYPE, SEED + (w * c) as u64).unwrap();
                    let (got, padding_kept) = run::<T>(&mut plan, &image, path);
                    let expected = reference_parallel(&image, &filter, border).unwrap();
                    let result = compare(&got, &expected, tolerance(&image, &filter, None), false);
                    let what = format!(
                        "{test}: {path:?} {w}x{h}x{c} {} k={k} {} ({:?})",
                        T::DTYPE.suffix(),
                        border.name(),
                        plan.variant()
                    );
                    assert!(result.passed(), "{what}: {result}");
                    assert!(padding_kept, "{what}: the row padding was written");
                    cases += 1;
                }
            }
        }
    }
    assert!(cases >= 282, "{test}: only {cases} cases ran");
}

fn cpu_plan(filter: &Filter, border: Border) -> Filter2D<'static> {
    Filter2D::cpu(filter, border)
}

macro_rules! ladders {
    ($($name:ident: $t:ty, $path:ident, $gpu:expr;)*) => {$(
        #[test]
        fn $name() {
            let test = concat!("plan::", stringify!($name));
            if $gpu {
                let Some(gpu) = gpu(test) else { return };
                ladder::<$t>(test, &|f, b| Filter2D::new(gpu, f, b).unwrap(), Path::$path);
            } else {
                ladder::<$t>(test, &cpu_plan, Path::$path);
            }
        }
    )*};
}

ladders! {
    cpu_u8_packed: u8, Packed, false;
    cpu_f32_strided: f32, Strided, false;
    cpu_u16_strided: u16, Strided, false;
    gpu_u8_packed: u8, Packed, true;
    gpu_u16_strided: u16, Strided, true;
    gpu_f32_strided: f32, Strided, true;
    gpu_u8_device: u8, Device, true;
    gpu_f32_device: f32, Device, true;
    gpu_u8_raw_pitched: u8, RawPitched, true;
    gpu_f32_raw_pitched: f32, RawPitched, true;
}

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
    };
    Image::new(image.width(), image.height(), 1, samples).unwrap()
}

/// RGBA with its alpha filtered ([`Filter2D::with_filter_alpha`], the Python package's rule):
/// `plan` (filter `filter`, border `border`) on a random RGBA image of `T` samples, the output
/// poisoned first, gives each of the four channels the reference of that channel alone; `Err`
/// is the plan's refusal.
fn alpha_case<T: Poison>(
    plan: &mut Filter2D<'_>,
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
    plan: &mut Filter2D<'_>,
    filter: &Filter,
    border: Border,
    dtype: DType,
    size: (usize, usize),
) -> Result<(), String> {
    match dtype {
        DType::U8 => alpha_case::<u8>(plan, filter, border, size),
        DType::U16 => alpha_case::<u16>(plan, filter, border, size),
        DType::F32 => alpha_case::<f32>(plan, filter, border, size),
    }
}

/// The CPU plan filters RGBA's alpha when asked: every border, sample type, and sizes from 1 × 1.
#[test]
fn cpu_filters_rgba_alpha_when_asked() {
    for border in Border::CHECKED {
        for k in [1, 3, 5, 17] {
            let filter = Filter::random(k, SEED + k as u64).unwrap();
            let mut plan = Filter2D::cpu(&filter, border).with_filter_alpha(true);
            for size in [(1, 1), (7, 5), (130, 67)] {
                if border.output_size(size.0, size.1, k / 2).is_err() {
                    continue;
                }
                for dtype in DType::ALL {
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
#[test]
fn gpu_variants_filter_rgba_alpha_when_asked() {
    let test = "plan::gpu_variants_filter_rgba_alpha_when_asked";
    let Some(gpu) = gpu(test) else { return };
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
                } else {
                    Filter::random(k, SEED)
                }
                .unwrap();
                for border in [Border::Symmetric, Border::Constant(Border::CHECKED_CVAL)] {
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

/// Larger images take several staging slots each way (8 MB slots): 2500 × 1700 RGBA f32 is
/// 68 MB, so the ring wraps twice in and out; the fixed variants each run it.
#[test]
fn gpu_host_path_wraps_the_staging_ring() {
    let test = "plan::gpu_host_path_wraps_the_staging_ring";
    let Some(gpu) = gpu(test) else { return };
    let image = Image::random(2500, 1700, 4, DType::F32, SEED).unwrap();
    let filter = Filter::random(5, SEED).unwrap();
    let expected = reference_parallel(&image, &filter, Border::Reflect).unwrap();
    for variant in [None, Some(Variant::Blocked4x4), Some(Variant::TensorF32)] {
        let mut plan = Filter2D::new(gpu, &filter, Border::Reflect).unwrap();
        if let Some(v) = variant {
            plan = plan.with_variant(v).unwrap();
        }
        for path in [Path::Packed, Path::Strided] {
            let (got, padding_kept) = run::<f32>(&mut plan, &image, path);
            let result = compare(&got, &expected, tolerance(&image, &filter, None), false);
            assert!(
                result.passed() && padding_kept,
                "{test}: {variant:?} {path:?}: {result}"
            );
        }
    }
}

/// A plan keeps its choice per shape, follows a change of shape, and a shape its output does not
/// match is refused with a message, not a panic.
#[test]
fn plans_follow_shapes_and_refuse_mismatches() {
    let filter = Filter::random(3, SEED).unwrap();
    let mut plan = Filter2D::cpu(&filter, Border::Valid);
    assert_eq!(plan.output_size(10, 8).unwrap(), (8, 6));
    let src = vec![1u8; 10 * 8];
    let mut dst = vec![0u8; 10 * 8];
    let err = plan
        .run(
            &ImageView::new(&src, 10, 8, 1).unwrap(),
            &mut ImageViewMut::new(&mut dst, 10, 8, 1).unwrap(),
        )
        .unwrap_err();
    assert!(err.to_string().contains("8x6x1"), "{err}");
    assert!(
        ImageView::new(&src, 10, 9, 1).is_err(),
        "a view longer than its slice"
    );
    assert!(
        ImageView::with_stride(&src, 10, 8, 1, 9).is_err(),
        "a stride shorter than a row"
    );
    assert!(ImageView::new(&src, 10, 8, 2).is_err(), "two channels");
    assert!(
        Filter2D::cpu(&filter, Border::Zero)
            .with_variant(Variant::Texture)
            .is_err()
    );
    fn send<T: Send>(_: &T) {}
    send(&plan);
}

/// One batch of `n` images through `variant` in one call: each image's result equals, bit for
/// bit, the same plan on that image alone, and the reference within tolerance.
fn batch_case<T: Poison>(
    gpu: &'static Gpu,
    variant: Variant,
    (w, h, c): (usize, usize, usize),
    filter: &Filter,
    border: Border,
) -> usize {
    let n = 5;
    let mut plan = Filter2D::new(gpu, filter, border)
        .unwrap()
        .with_variant(variant)
        .unwrap();
    let Ok((ow, oh)) = plan.output_size(w, h) else {
        return 0;
    };
    let images: Vec<Image> = (0..n)
        .map(|i| Image::random(w, h, c, T::DTYPE, SEED + i as u64).unwrap())
        .collect();
    let all: Vec<T> = images
        .iter()
        .flat_map(|i| T::samples(i.samples()).iter().copied())
        .collect();
    let input = DeviceImage::upload_batch(gpu, n, &ImageView::new(&all, w, h * n, c).unwrap()).unwrap();
    let poison = vec![T::POISON; ow * oh * c * n];
    let mut output =
        DeviceImage::upload_batch(gpu, n, &ImageView::new(&poison, ow, oh * n, c).unwrap()).unwrap();
    plan.run_device(&input, &mut output, gpu.stream()).unwrap();
    gpu.stream().synchronize(gpu).unwrap();
    let mut batch = poison.clone();
    output
        .copy_to(&mut ImageViewMut::new(&mut batch, ow, oh * n, c).unwrap())
        .unwrap();
    let what = format!(
        "{} {w}x{h}x{c} {} k={} {}",
        variant.name(),
        T::DTYPE.suffix(),
        filter.size(),
        border.name()
    );
    // The same batch from host memory, in one call.
    let mut host_batch = poison.clone();
    plan.run_batch(
        n,
        &ImageView::new(&all, w, h * n, c).unwrap(),
        &mut ImageViewMut::new(&mut host_batch, ow, oh * n, c).unwrap(),
    )
    .unwrap();
    assert!(
        host_batch.iter().zip(&batch).all(|(a, b)| a.to_bits_eq(b)),
        "{what}: the batch from host memory differs from the device batch"
    );
    for (i, image) in images.iter().enumerate() {
        let (single, _) = run::<T>(&mut plan, image, Path::Packed);
        let got = &batch[i * ow * oh * c..][..ow * oh * c];
        assert!(
            got.iter()
                .zip(T::samples(single.samples()))
                .all(|(a, b)| a.to_bits_eq(b)),
            "{what}: image {i} of the batch differs from the image alone"
        );
        let expected = reference_parallel(image, filter, border).unwrap();
        let result = compare(&single, &expected, tolerance(image, filter, None), false);
        assert!(result.passed(), "{what}: image {i}: {result}");
    }
    1
}

/// The CPU plan filters a batch from host memory image by image, strided views included, with
/// each image's result the image's alone; a batch whose views do not split evenly is refused.
#[test]
fn cpu_batches_match_single_images() {
    let n = 3;
    for (w, h, c, k) in [(37, 23, 3, 5), (16, 9, 1, 3), (5, 4, 4, 9)] {
        let filter = Filter::random(k, SEED + k as u64).unwrap();
        for border in Border::CHECKED {
            let mut plan = Filter2D::cpu(&filter, border);
            let Ok((ow, oh)) = plan.output_size(w, h) else {
                continue;
            };
            let images: Vec<Image> = (0..n)
                .map(|i| Image::random(w, h, c, DType::F32, SEED + i as u64).unwrap())
                .collect();
            // Rows PAD samples longer than the images, in and out.
            let (row, orow) = (w * c + PAD, ow * c + PAD);
            let mut all = vec![f32::NAN; h * n * row];
            for (i, image) in images.iter().enumerate() {
                for (y, src) in f32::samples(image.samples()).chunks_exact(w * c).enumerate() {
                    all[(i * h + y) * row..][..w * c].copy_from_slice(src);
                }
            }
            let mut out = vec![f32::NAN; oh * n * orow];
            plan.run_batch(
                n,
                &ImageView::with_stride(&all, w, h * n, c, row).unwrap(),
                &mut ImageViewMut::with_stride(&mut out, ow, oh * n, c, orow).unwrap(),
            )
            .unwrap();
            for (i, image) in images.iter().enumerate() {
                let (single, _) = run::<f32>(&mut plan, image, Path::Packed);
                for (y, want) in f32::samples(single.samples()).chunks_exact(ow * c).enumerate() {
                    let got = &out[(i * oh + y) * orow..][..ow * c];
                    assert!(
                        got.iter().zip(want).all(|(a, b)| a.to_bits() == b.to_bits()),
                        "{w}x{h}x{c} k={k} {}: image {i} row {y} of the batch differs",
                        border.name()
                    );
                }
            }
        }
    }
    let mut plan = Filter2D::cpu(&Filter::random(3, SEED).unwrap(), Border::Zero);
    let (src, mut dst) = (vec![0.0f32; 50], vec![0.0f32; 50]);
    let uneven = plan.run_batch(
        2,
        &ImageView::new(&src, 10, 5, 1).unwrap(),
        &mut ImageViewMut::new(&mut dst, 10, 5, 1).unwrap(),
    );
    assert!(uneven.is_err(), "5 rows split into 2 images");
}

#[test]
fn gpu_batches_match_single_images() {
    let test = "plan::gpu_batches_match_single_images";
    let Some(gpu) = gpu(test) else { return };
    let mut cases = 0;
    for variant in [
        Variant::Blocked4x4,
        Variant::Blocked4x2,
        Variant::TensorU8,
        Variant::TensorF32,
        Variant::WarpRows,
        Variant::TiledOutput(0),
        Variant::TiledOutput(2),
        Variant::SeparableFused,
        Variant::Separable,
    ] {
        let rank1 = variant.spec().rank1_only;
        for dtype in [DType::U8, DType::U16, DType::F32] {
            for (w, c, k) in [
                (37, 1, 5),
                (64, 1, 3),
                (64, 3, 3),
                (37, 3, 5),
                (64, 4, 3),
                (19, 4, 9),
            ] {
                if !variant.supports(dtype, k / 2) {
                    continue;
                }
                let filter = if rank1 {
                    Filter::builtin(ferroconv::model::filter::FilterKind::Gaussian, k, None).unwrap()
                } else {
                    Filter::random(k, SEED + k as u64).unwrap()
                };
                for border in Border::CHECKED {
                    let shape = (w, 23, c);
                    cases += match dtype {
                        DType::U8 => batch_case::<u8>(gpu, variant, shape, &filter, border),
                        DType::U16 => batch_case::<u16>(gpu, variant, shape, &filter, border),
                        DType::F32 => batch_case::<f32>(gpu, variant, shape, &filter, border),
                    };
                }
            }
        }
    }
    assert!(cases > 200, "{test}: only {cases} cases ran");
}
