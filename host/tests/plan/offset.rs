//! Device images that start off the kernels' 16-byte vectors (a torch or CuPy view a few samples
//! into its allocation): every variant a plan runs, through the raw entry, gives the bytes it
//! gives on aligned images, and writes nothing outside the output.

use crate::gpu;
use crate::paths::Poison;
use ferroconv::engine::gpu::variant::InputKind;
use ferroconv::plan::{DeviceImage, Filter2D, ImageView, ImageViewMut, RawImage, StreamRef};
use ferroconv::{Border, Error, Filter, Image, Variant};

/// Samples before the input's and the output's first sample in their allocations.
const OFFSETS: [(usize, usize); 3] = [(1, 2), (3, 1), (2, 0)];

/// Runs `plan` on `image` placed `offset` samples into a device allocation, into an output
/// `out_offset` samples into another (the rest poisoned); the result, and whether the samples
/// around it stayed poisoned.
fn run_off<T: Poison>(
    plan: &mut Filter2D,
    image: &Image,
    (offset, out_offset): (usize, usize),
) -> Result<(Vec<T>, bool), Error> {
    let gpu = &plan.gpu().expect("a GPU plan").clone();
    let (w, h, c) = (image.width(), image.height(), image.channels());
    let (ow, oh) = plan.output_size(w, h)?;
    let (n, on) = (w * h * c, ow * oh * c);
    let mut staged = vec![T::POISON; offset + n + 16];
    staged[offset..][..n].copy_from_slice(T::samples(image.samples()));
    let wide =
        |data: &[T]| DeviceImage::upload(gpu, &ImageView::new(data, data.len(), 1, 1).unwrap()).unwrap();
    let input = wide(&staged);
    let output = wide(&vec![T::POISON; out_offset + on + 16]);
    let raw = |d: &DeviceImage, at: usize, w: usize, h: usize| RawImage {
        ptr: d.raw().ptr + (at * size_of::<T>()) as u64,
        pitch: w * c * size_of::<T>(),
        width: w,
        height: h,
        channels: c,
        ..d.raw()
    };
    // SAFETY: both device images are live allocations of the plan's GPU holding the images at
    // these offsets, they do not overlap, and the stream is synchronized before they drop.
    unsafe {
        plan.run_raw(
            raw(&input, offset, w, h),
            raw(&output, out_offset, ow, oh),
            StreamRef::LEGACY,
        )
    }?;
    StreamRef::LEGACY.synchronize(gpu)?;
    let mut back = vec![T::POISON; out_offset + on + 16];
    let len = back.len();
    output.copy_to(&mut ImageViewMut::new(&mut back, len, 1, 1).unwrap())?;
    let kept = back[..out_offset]
        .iter()
        .chain(&back[out_offset + on..])
        .all(Poison::is_poison);
    Ok((back[out_offset..][..on].to_vec(), kept))
}

/// Every variant but `texture` on gray and RGB images whose rows are whole 16-byte vectors, with
/// a general 5 × 5, a column, a row and a rank-1 9 × 9 filter.
fn offsets_match_aligned<T: Poison>(test: &str) {
    let gpu = gpu(test);
    let filters = [
        Filter::random(5, 3).unwrap(),
        Filter::random((9, 1), 4).unwrap(),
        Filter::random((1, 9), 5).unwrap(),
        Filter::random_rank1(9, 6).unwrap(),
    ];
    let mut cases = 0;
    for variant in Variant::ALL
        .into_iter()
        .filter(|v| v.spec().input != InputKind::Texture)
    {
        for filter in filters
            .iter()
            .filter(|f| !variant.needs_rank1() || f.rank1().is_some())
        {
            for (w, h, c) in [(64, 40, 1), (528, 268, 1), (48, 20, 3)] {
                let image = Image::random(w, h, c, T::DTYPE, 9).unwrap();
                let mut plan = Filter2D::new(gpu, filter, Border::Reflect)
                    .unwrap()
                    .with_variant(variant)
                    .unwrap();
                let aligned = match run_off::<T>(&mut plan, &image, (0, 0)) {
                    Ok((out, _)) => out,
                    Err(Error::Unsupported(_)) => continue,
                    Err(e) => panic!("{test}: {} on aligned images: {e}", variant.name()),
                };
                for offsets in OFFSETS {
                    let what = format!(
                        "{test}: {} {w}x{h}x{c} {:?} offsets {offsets:?}",
                        variant.name(),
                        filter.shape()
                    );
                    let (out, kept) =
                        run_off::<T>(&mut plan, &image, offsets).unwrap_or_else(|e| panic!("{what}: {e}"));
                    assert!(
                        out.iter().zip(&aligned).all(|(a, b)| a.to_bits_eq(b)),
                        "{what}: differs from the aligned run"
                    );
                    assert!(kept, "{what}: wrote outside the output");
                    cases += 1;
                }
            }
        }
    }
    assert!(cases >= 100, "{test}: only {cases} cases ran");
}

pub fn gpu_u8_images_off_vector_alignment() {
    offsets_match_aligned::<u8>("plan::gpu_u8_images_off_vector_alignment");
}

pub fn gpu_f32_images_off_vector_alignment() {
    offsets_match_aligned::<f32>("plan::gpu_f32_images_off_vector_alignment");
}
