//! The plan API (`ferroconv::plan`) against the `f64` reference: host views with padded rows and
//! regions of larger images, every border, sample type and channel count, on the CPU always and
//! on the GPU where there is one (device images, pitched raw images and the caller's streams
//! included). Outputs are poisoned first and their row padding must come back untouched.
//! The binary looks for a GPU when it starts (`harness = false`, the tests run through
//! [`gpu_trials`]): without one the GPU tests are reported as ignored, and run with `--ignored`
//! they fail; `CONV_REQUIRE_GPU=1` makes a missing GPU fail them instead.
//!
//! [`paths`]: the poisoned outputs and the ways a plan takes its images; [`alpha`]: RGBA with its
//! alpha filtered; [`batch`]: batches of images in one call; [`truncate`]: integer results
//! truncated (scipy's cast); [`float64`]: the float64 plan; [`spread`]: one image over several
//! engines; [`offset`]: device images that start off the kernels' 16-byte vectors; [`owned`]:
//! plans and device images that own their GPU; [`magnitude`]: the root of summed squares;
//! [`hypot`]: a filter's result stored as the root of its square and another's.

mod alpha;
mod batch;
mod float64;
#[path = "../common/gpu_trials.rs"]
mod gpu_trials;
mod hypot;
mod magnitude;
mod offset;
mod owned;
mod paths;
mod spread;
mod truncate;

use ferroconv::engine::cpu::reference_parallel;
use ferroconv::plan::{Filter2D, ImageView, ImageViewMut};
use ferroconv::{Border, DType, Error, Filter, Gpu, Image, Variant};
use host_tools::verify::check::{compare, tolerance};
use paths::{Path, Poison, run};
use std::sync::OnceLock;

const SEED: u64 = 11;
/// Samples of padding after each row of a strided view.
const PAD: usize = 5;

/// The first GPU, opened once. The harness ignores (or fails) the GPU tests where it found no
/// GPU, so a GPU test that finds none here fails, as does one where the GPU cannot be opened.
fn gpu(test: &str) -> &'static Gpu {
    static GPU: OnceLock<Result<Gpu, String>> = OnceLock::new();
    match GPU.get_or_init(|| match Gpu::open(0) {
        Ok(gpu) => Ok(gpu),
        Err(Error::NoGpu(why)) => Err(format!("there is no GPU ({why})")),
        Err(e) => Err(format!("a GPU is present but could not be opened: {e}")),
    }) {
        Ok(gpu) => gpu,
        Err(why) => panic!("{test}: {why}"),
    }
}

/// Every border, channel count and a ladder of sizes for sample type `T` along `path`.
fn ladder<T: Poison>(test: &str, plan_for: &dyn Fn(&Filter, Border) -> Filter2D, path: Path) {
    let mut cases = 0;
    for border in Border::checked(T::DTYPE) {
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

fn cpu_plan(filter: &Filter, border: Border) -> Filter2D {
    Filter2D::cpu(filter, border)
}

macro_rules! ladders {
    ($($name:ident: $t:ty, $path:ident, $gpu:expr;)*) => {
        /// Every ladder: its test's name, whether it needs a GPU, and its body.
        const LADDERS: &[(&str, bool, fn())] = &[$((stringify!($name), $gpu, || {
            let test = concat!("plan::", stringify!($name));
            if $gpu {
                let gpu = gpu(test);
                ladder::<$t>(test, &|f, b| Filter2D::new(gpu, f, b).unwrap(), Path::$path);
            } else {
                ladder::<$t>(test, &cpu_plan, Path::$path);
            }
        })),*];
    };
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

/// Larger images take several staging slots each way (8 MB slots): 2500 × 1700 RGBA f32 is
/// 68 MB, so the ring wraps twice in and out; the fixed variants each run it.
fn gpu_host_path_wraps_the_staging_ring() {
    let test = "plan::gpu_host_path_wraps_the_staging_ring";
    let gpu = gpu(test);
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

/// The tests, under the names they had as `#[test]` functions.
fn main() {
    let mut harness = gpu_trials::Harness::new();
    for &(name, needs_gpu, body) in LADDERS {
        if needs_gpu {
            harness.gpu(name, body);
        } else {
            harness.cpu(name, body);
        }
    }
    harness.cpu(
        "cpu_filters_rgba_alpha_when_asked",
        alpha::cpu_filters_rgba_alpha_when_asked,
    );
    harness.gpu(
        "gpu_variants_filter_rgba_alpha_when_asked",
        alpha::gpu_variants_filter_rgba_alpha_when_asked,
    );
    harness.gpu(
        "gpu_host_path_wraps_the_staging_ring",
        gpu_host_path_wraps_the_staging_ring,
    );
    harness.cpu(
        "plans_follow_shapes_and_refuse_mismatches",
        plans_follow_shapes_and_refuse_mismatches,
    );
    harness.cpu(
        "cpu_plans_truncate_integer_results",
        truncate::cpu_plans_truncate_integer_results,
    );
    harness.gpu(
        "gpu_variants_truncate_integer_results",
        truncate::gpu_variants_truncate_integer_results,
    );
    harness.cpu(
        "cpu_batches_match_single_images",
        batch::cpu_batches_match_single_images,
    );
    harness.gpu(
        "gpu_batches_match_single_images",
        batch::gpu_batches_match_single_images,
    );
    harness.gpu(
        "gpu_float64_plans_match_the_reference",
        float64::gpu_float64_plans_match_the_reference,
    );
    harness.gpu(
        "gpu_float64_plans_refuse_bad_requests",
        float64::gpu_float64_plans_refuse_bad_requests,
    );
    harness.gpu(
        "gpu_magnitude_rounds_as_numpy",
        magnitude::gpu_magnitude_rounds_as_numpy,
    );
    harness.gpu(
        "gpu_magnitude_refuses_bad_requests",
        magnitude::gpu_magnitude_refuses_bad_requests,
    );
    harness.gpu(
        "gpu_hypot_stores_the_root_of_both_squares",
        hypot::gpu_hypot_stores_the_root_of_both_squares,
    );
    harness.gpu(
        "gpu_hypot_declines_what_it_cannot_combine",
        hypot::gpu_hypot_declines_what_it_cannot_combine,
    );
    harness.gpu(
        "gpu_u8_images_off_vector_alignment",
        offset::gpu_u8_images_off_vector_alignment,
    );
    harness.gpu(
        "gpu_f32_images_off_vector_alignment",
        offset::gpu_f32_images_off_vector_alignment,
    );
    harness.gpu(
        "gpu_plans_and_images_own_their_gpu",
        owned::gpu_plans_and_images_own_their_gpu,
    );
    harness.gpu(
        "gpu_async_copies_queue_on_the_callers_stream",
        owned::gpu_async_copies_queue_on_the_callers_stream,
    );
    harness.gpu(
        "gpu_spread_strips_match_one_engine",
        spread::gpu_spread_strips_match_one_engine,
    );
    harness.gpu(
        "gpu_spread_batches_match_one_plan",
        spread::gpu_spread_batches_match_one_plan,
    );
    harness.run()
}
