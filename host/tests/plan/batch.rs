//! Batches of images in one call, on the CPU and on the GPU.

use crate::paths::{Path, Poison, run};
use crate::{PAD, SEED, gpu};
use ferroconv::engine::cpu::reference_parallel;
use ferroconv::plan::{DeviceImage, Filter2D, ImageView, ImageViewMut};
use ferroconv::{Border, DType, Filter, Gpu, Image, Variant};
use host_tools::verify::check::{compare, tolerance};

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
pub fn cpu_batches_match_single_images() {
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

pub fn gpu_batches_match_single_images() {
    let test = "plan::gpu_batches_match_single_images";
    let gpu = gpu(test);
    let mut cases = 0;
    for variant in [
        Variant::Blocked4x4,
        Variant::Blocked4x2,
        Variant::TensorU8,
        Variant::TensorF32,
        Variant::WarpRows,
        Variant::TiledOutput16x16,
        Variant::TiledOutput32x32,
        Variant::SeparableFused,
        Variant::Separable,
        Variant::LinesU8,
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
                } else if variant.spec().lines_only {
                    // A row, or a column for the colour images.
                    let shape = if c == 1 { (1, k) } else { (k, 1) };
                    Filter::random(shape, SEED + k as u64).unwrap()
                } else {
                    Filter::random(k, SEED + k as u64).unwrap()
                };
                for border in Border::checked(dtype) {
                    let shape = (w, 23, c);
                    cases += match dtype {
                        DType::U8 => batch_case::<u8>(gpu, variant, shape, &filter, border),
                        DType::U16 => batch_case::<u16>(gpu, variant, shape, &filter, border),
                        DType::F32 => batch_case::<f32>(gpu, variant, shape, &filter, border),
                        DType::F16 | DType::BF16 => unreachable!("the cases run DType::ALL"),
                    };
                }
            }
        }
    }
    assert!(cases > 200, "{test}: only {cases} cases ran");
}
