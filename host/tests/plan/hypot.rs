//! [`Filter2D::run_raw_hypot`]: a rank-1 filter's `f32` result `v` stored as `√(c² + v²)`, `c`
//! another image's sample at the same place. Against the plan's own plain result, combined here
//! with numpy's arithmetic (`f32` squares, sum and root, each rounded to nearest), so every
//! sample is equal, not within a bound: both variants that take it, gray and RGB, borders that
//! read inside and past the image, a batch, odd sizes, the output apart (poisoned with NaN) and
//! the other image itself; then the requests it declines, which leave the output untouched.

use crate::{SEED, gpu};
use ferroconv::model::image::Samples;
use ferroconv::plan::{DeviceImage, Filter2D, ImageView, ImageViewMut, StreamRef};
use ferroconv::{Border, DType, Filter, Image, Variant};

/// The samples of an `f32` image.
fn f32s(image: &Image) -> &[f32] {
    match image.samples() {
        Samples::F32(v) => v,
        other => panic!("{:?} samples", other.dtype()),
    }
}

/// `image` (a batch of `images` stacked) on the GPU.
fn upload(gpu: &ferroconv::Gpu, images: usize, image: &Image) -> DeviceImage {
    let view = ImageView::new(f32s(image), image.width(), image.height(), image.channels()).unwrap();
    DeviceImage::upload_batch(gpu, images, &view).unwrap()
}

fn download(image: &DeviceImage) -> Vec<f32> {
    let r = image.raw();
    let mut out = vec![0.0f32; r.width * r.height * r.channels * r.images];
    let view = &mut ImageViewMut::new(&mut out, r.width, r.height * r.images, r.channels).unwrap();
    image.copy_to(view).unwrap();
    out
}

/// A separable 9 × 9 filter: a derivative-like column (signs mixed) by a smoothing row.
fn filter() -> Filter {
    let ky = [-0.05, -0.2, -0.4, -0.3, 0.0, 0.3, 0.4, 0.2, 0.05];
    let kx = [0.05, 0.1, 0.2, 0.3, 0.25, 0.3, 0.2, 0.1, 0.05];
    Filter::separable(&ky, &kx).unwrap()
}

/// Every sample equal to `sqrt(c*c + v*v)` rounded step by step in `f32`, `v` the plan's plain
/// result, into a separate output and into `c`'s image.
pub fn gpu_hypot_stores_the_root_of_both_squares() {
    let gpu = gpu("plan::gpu_hypot_stores_the_root_of_both_squares");
    let mut cases = 0;
    for variant in [Variant::Separable, Variant::SeparableFused] {
        for border in [Border::Symmetric, Border::Constant(0.25), Border::Valid] {
            let mut plan = Filter2D::new(gpu, &filter(), border)
                .unwrap()
                .with_variant(variant)
                .unwrap();
            for (w, h, c, images) in [
                (1, 1, 1, 1),
                (37, 29, 1, 1),
                (64, 48, 1, 2),
                (301, 67, 3, 1),
                (256, 130, 1, 1),
            ] {
                let Ok((ow, oh)) = plan.output_size(w, h) else {
                    continue;
                };
                let seed = SEED + (w * h * c) as u64;
                let src = upload(
                    gpu,
                    images,
                    &Image::random(w, images * h, c, DType::F32, seed).unwrap(),
                );
                let other = Image::random(ow, images * oh, c, DType::F32, seed + 1).unwrap();
                let mut plain = DeviceImage::new_batch(gpu, images, ow, oh, c, DType::F32).unwrap();
                plan.run_device(&src, &mut plain, StreamRef::LEGACY).unwrap();
                let v = download(&plain);
                let cs = f32s(&other);
                let want: Vec<f32> = cs.iter().zip(&v).map(|(c, v)| (c * c + v * v).sqrt()).collect();
                let nan = Image::new(ow, images * oh, c, Samples::F32(vec![f32::NAN; cs.len()])).unwrap();
                let with = upload(gpu, images, &other);
                let apart = upload(gpu, images, &nan);
                for (dst, into) in [(&apart, "apart"), (&with, "into the other image")] {
                    // SAFETY: every image lives on this GPU until the synchronous copy below,
                    // which follows the legacy stream's kernels; `with` has the output's shape.
                    let done = unsafe {
                        plan.run_raw_hypot(src.raw(), with.raw().ptr, dst.raw(), StreamRef::LEGACY)
                    };
                    let what = format!(
                        "{variant:?} {} {w}x{h}x{c}, {images} images, {into}",
                        border.name()
                    );
                    assert!(done.unwrap(), "{what}: declined");
                    let got = download(dst);
                    for (i, (g, e)) in got.iter().zip(&want).enumerate() {
                        assert_eq!(g.to_bits(), e.to_bits(), "{what}: sample {i}: {g} against {e}");
                    }
                    cases += 1;
                }
            }
        }
    }
    assert_eq!(cases, 56);
}

/// Another variant, 8-bit samples, RGBA with its alpha copied, an unaligned or overlapping
/// image: `Ok(false)`, and the output as it was.
pub fn gpu_hypot_declines_what_it_cannot_combine() {
    let gpu = gpu("plan::gpu_hypot_declines_what_it_cannot_combine");
    let (w, h) = (64, 32);
    let image = |c, dtype| Image::random(w, h, c, dtype, SEED).unwrap();
    let declined = |plan: &mut Filter2D, src: &DeviceImage, with: u64, dst: &DeviceImage, what: &str| {
        let before = download_any(dst);
        // SAFETY: every request here is declined before a launch; the images live on this GPU.
        let done = unsafe { plan.run_raw_hypot(src.raw(), with, dst.raw(), StreamRef::LEGACY) };
        assert!(!done.unwrap(), "{what}: combined");
        assert_eq!(download_any(dst), before, "{what}: the output changed");
    };
    let gray = upload(gpu, 1, &image(1, DType::F32));
    let other = upload(gpu, 1, &image(1, DType::F32));
    let out = upload(gpu, 1, &image(1, DType::F32));
    let mut blocked = Filter2D::new(gpu, &filter(), Border::Symmetric)
        .unwrap()
        .with_variant(Variant::Blocked4x4)
        .unwrap();
    declined(&mut blocked, &gray, other.raw().ptr, &out, "blocked-4x4");
    let mut fused = Filter2D::new(gpu, &filter(), Border::Symmetric)
        .unwrap()
        .with_variant(Variant::SeparableFused)
        .unwrap();
    declined(&mut fused, &gray, other.raw().ptr + 4, &out, "an unaligned image");
    declined(
        &mut fused,
        &gray,
        other.raw().ptr,
        &gray,
        "the output over the input",
    );
    let u8s = |c| {
        let Samples::U8(i) = image(c, DType::U8).into_samples() else {
            panic!("not 8-bit samples")
        };
        DeviceImage::upload(gpu, &ImageView::new(&i, w, h, c).unwrap()).unwrap()
    };
    let (a, b) = (u8s(1), u8s(1));
    declined(&mut fused, &a, other.raw().ptr, &b, "8-bit samples");
    let rgba = upload(gpu, 1, &image(4, DType::F32));
    let rgba_out = upload(gpu, 1, &image(4, DType::F32));
    let wide = upload(gpu, 1, &image(4, DType::F32));
    declined(
        &mut fused,
        &rgba,
        wide.raw().ptr,
        &rgba_out,
        "RGBA with its alpha copied",
    );
}

/// A device image's bytes.
fn download_any(image: &DeviceImage) -> Vec<u8> {
    let r = image.raw();
    let mut out = vec![0u8; r.row_bytes() * r.height];
    if r.dtype == DType::U8 {
        let view = &mut ImageViewMut::new(&mut out, r.width, r.height, r.channels).unwrap();
        image.copy_to(view).unwrap();
        return out;
    }
    download(image).iter().flat_map(|v| v.to_le_bytes()).collect()
}
