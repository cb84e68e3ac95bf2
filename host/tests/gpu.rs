//! Per-kernel GPU tests: one test per variant × sample type × border (`blocked_4x4::f32_reflect`,
//! `tiled_output_32x16::u8_valid`, ...), each running the library's verification over a ladder of
//! image and filter sizes against the `f64` CPU reference. `cargo test --test gpu fast` or
//! `cargo test tiled_output` selects one kernel's tests. The binary looks for a GPU when it starts
//! (`harness = false`, the tests run through [`gpu_trials`]): without one every GPU test is
//! reported as ignored, and run with `--ignored` it fails; with one, every case must pass and at
//! least one must have run. With `CONV_REQUIRE_GPU=1` (the GPU runner's workflow sets it) a
//! missing GPU fails every GPU test instead.
//!
//! The tests are generated as cubecl's `testgen!` does: [`testgen!`] expands one module per
//! variant, and [`cases!`] one test per sample type × border inside it, each listed in the
//! module's `COVERED` (which `main` turns into the tests, named `MODULE::TEST`) so that
//! [`the_generated_tests_cover_every_variant_dtype_and_border`] fails when a variant, sample type
//! or border has no tests.

#[path = "gpu/cli.rs"]
mod cli;
mod common;
#[path = "common/gpu_trials.rs"]
mod gpu_trials;
#[path = "gpu/plans.rs"]
mod plans;

use ferroconv::engine::cpu::{Reference, reference_parallel};
use ferroconv::engine::gpu::{Gpu, Variant};
use ferroconv::model::image::Samples;
use ferroconv::{Border, Convolver, DType, Error, Filter, Image};
use host_tools::verify::check;
use host_tools::verify::jobs::{self, Case};
use plans::plans;
use std::sync::{Mutex, PoisonError};

/// Seed of the random images and filters, the same for every test and `host verify`'s default:
/// `host verify --sizes 1x1,1x7,7x1,7x5,31x17,257x129 --filters 1,3,5,7,9,17,31 --borders B
/// --dtypes D --variants V` reruns a test's small-ladder cases exactly.
const SEED: u64 = 7;

/// GPUs not in use by a test. A test takes one (or opens one when none is free) and puts it back
/// when done, so the process opens as many as tests run at the same time (`--test-threads`), each
/// once: one context (the device's primary context, shared) and one module load per GPU, and no
/// two running tests share a module's constant bank or a stream.
static POOL: Mutex<Vec<Gpu>> = Mutex::new(Vec::new());

/// A GPU taken from [`POOL`]; goes back when dropped, also when the test panics.
struct Lease(Option<Gpu>);

impl Lease {
    /// A GPU, current on this thread. The harness ignores (or fails) the GPU tests where it found
    /// no GPU, so any failure to open one here is a test failure: a GPU that is there must work.
    fn take(test: &str) -> Lease {
        let pooled = POOL.lock().unwrap_or_else(PoisonError::into_inner).pop();
        let gpu = match pooled {
            Some(gpu) => gpu,
            None => match Gpu::new() {
                Ok(gpu) => gpu,
                Err(Error::NoGpu(reason)) => panic!("{test}: there is no GPU ({reason})"),
                Err(e) => panic!("{test}: a GPU is present but could not be opened: {e}"),
            },
        };
        gpu.make_current()
            .unwrap_or_else(|e| panic!("{test}: cannot use the GPU on this thread: {e}"));
        Lease(Some(gpu))
    }

    fn gpu(&self) -> &Gpu {
        self.0.as_ref().expect("a lease holds its GPU until dropped")
    }
}

impl Drop for Lease {
    fn drop(&mut self) {
        if let Some(gpu) = self.0.take() {
            POOL.lock().unwrap_or_else(PoisonError::into_inner).push(gpu);
        }
    }
}

/// The body of every generated test: `variant` on `dtype` samples with `border`, over [`plans`].
fn check(test: &str, variant: Variant, dtype: DType, border: Border) {
    let lease = Lease::take(test);
    let what = format!("{test} ({} {} {})", variant.name(), dtype.suffix(), border.name());
    if !variant.supports_dtype(dtype) {
        // A variant without kernels for this sample type must say so, not run something else.
        let refused = lease.gpu().kernel(variant, dtype).err();
        assert!(
            matches!(refused, Some(Error::Unsupported(_))),
            "{what}: expected an Unsupported error, got {refused:?}"
        );
        return;
    }
    let plans = plans(variant, dtype, border);
    let (cases, _valid_skipped) = jobs::verify(&plans, &[variant], SEED, Some(lease.gpu()), |_| {})
        .unwrap_or_else(|e| panic!("{what}: {e}"));
    let ran = cases.iter().filter(|c| c.variant == variant.name()).count();
    assert!(
        ran > 0,
        "{what}: no GPU case ran (the plan is empty for this variant)"
    );
    let failed: Vec<String> = cases
        .iter()
        .filter(|c| !c.check.passed())
        .map(Case::to_string)
        .collect();
    assert!(
        failed.is_empty(),
        "{what}: {} of {} cases failed (seed {SEED}); the first ones:\n{}",
        failed.len(),
        cases.len(),
        failed[..failed.len().min(20)].join("\n")
    );
}

/// The border a test names: `Constant` with [`Border::CHECKED_CVAL`].
macro_rules! border {
    (Constant) => {
        Border::Constant(Border::CHECKED_CVAL)
    };
    ($border:ident) => {
        Border::$border
    };
}

/// One generated test: its name (`MODULE::TEST`), variant, sample type and border.
type Generated = (&'static str, Variant, DType, Border);

/// One test per sample type × border for the variant `$variant`: the module's `COVERED` list.
macro_rules! cases {
    ($module:ident, $variant:expr; $($test:ident: $dtype:ident $border:ident),* $(,)?) => {
        /// Every test of this module: (module::test, variant, sample type, border).
        pub const COVERED: &[Generated] = &[$((
            concat!(stringify!($module), "::", stringify!($test)),
            $variant,
            DType::$dtype,
            border!($border),
        )),*];
    };
}

/// One module per variant (named after it, `-` as `_`), with a test per sample type × border.
macro_rules! testgen {
    ($($module:ident => $variant:expr),* $(,)?) => {
        $(
            mod $module {
                use super::*;
                cases!($module, $variant;
                    u8_zero: U8 Zero, u8_replicate: U8 Replicate, u8_reflect: U8 Reflect,
                    u8_symmetric: U8 Symmetric, u8_wrap: U8 Wrap, u8_constant: U8 Constant,
                    u8_valid: U8 Valid,
                    u16_zero: U16 Zero, u16_replicate: U16 Replicate, u16_reflect: U16 Reflect,
                    u16_symmetric: U16 Symmetric, u16_wrap: U16 Wrap, u16_constant: U16 Constant,
                    u16_valid: U16 Valid,
                    f32_zero: F32 Zero, f32_replicate: F32 Replicate, f32_reflect: F32 Reflect,
                    f32_symmetric: F32 Symmetric, f32_wrap: F32 Wrap, f32_constant: F32 Constant,
                    f32_valid: F32 Valid,
                    f16_zero: F16 Zero, f16_replicate: F16 Replicate, f16_reflect: F16 Reflect,
                    f16_symmetric: F16 Symmetric, f16_wrap: F16 Wrap, f16_constant: F16 Constant,
                    f16_valid: F16 Valid,
                    bf16_zero: BF16 Zero, bf16_replicate: BF16 Replicate, bf16_reflect: BF16 Reflect,
                    bf16_symmetric: BF16 Symmetric, bf16_wrap: BF16 Wrap, bf16_constant: BF16 Constant,
                    bf16_valid: BF16 Valid,
                );
            }
        )*

        /// The tests generated, one list per variant module.
        const GENERATED: &[&[Generated]] = &[$($module::COVERED),*];
    };
}

/// The tests: the generated ones, [`tensor_f32_splits_tiles_of_any_magnitude`] and the CLI's GPU
/// rows ([`cli`]) need a GPU, the coverage check does not.
fn main() {
    let mut harness = gpu_trials::Harness::new();
    for &(test, variant, dtype, border) in GENERATED.iter().copied().flatten() {
        harness.gpu(test, move || check(test, variant, dtype, border));
    }
    harness.gpu(
        "tensor_f32_splits_tiles_of_any_magnitude",
        tensor_f32_splits_tiles_of_any_magnitude,
    );
    harness.gpu(
        "cli::main_job_gpu_rows_pass_for_every_option",
        cli::main_job_gpu_rows_pass_for_every_option,
    );
    harness.gpu(
        "cli::verify_passes_on_a_small_ladder_on_the_gpu",
        cli::verify_passes_on_a_small_ladder_on_the_gpu,
    );
    harness.cpu(
        "the_generated_tests_cover_every_variant_dtype_and_border",
        the_generated_tests_cover_every_variant_dtype_and_border,
    );
    harness.run()
}

testgen! {
    naive => Variant::Naive,
    constant => Variant::Constant,
    readonly => Variant::Readonly,
    texture => Variant::Texture,
    tiled => Variant::Tiled,
    tiled_output_16x16 => Variant::TiledOutput16x16,
    tiled_output_32x16 => Variant::TiledOutput32x16,
    tiled_output_32x32 => Variant::TiledOutput32x32,
    tiled_cache => Variant::TiledCache,
    separable => Variant::Separable,
    separable_fused => Variant::SeparableFused,
    blocked_4x4 => Variant::Blocked4x4,
    blocked_4x2 => Variant::Blocked4x2,
    blocked_rect => Variant::BlockedRect,
    tensor_u8 => Variant::TensorU8,
    tensor_f32 => Variant::TensorF32,
    tensor_f32_blocks => Variant::TensorF32Blocks,
    tensor_f16 => Variant::TensorF16,
    warp_rows => Variant::WarpRows,
    lines_u8 => Variant::LinesU8,
}

/// A sample's factor, by its index.
type Factor = Box<dyn Fn(usize) -> f32>;

/// `tensor-f32` splits a tile unscaled only where its largest magnitude is in [2^-3, 2^15), and
/// rescales it otherwise: images of tiny values (down to 2^-40 and just under 2^-3) and of huge
/// ones (2^20, 2^100) meet the `f32` tolerance as the unit image does, in gray, RGB and RGBA
/// (whose blocks split every channel of a tile, each at its own scale: so also an image whose
/// channels differ by up to 2^130); so does `tensor-f32-blocks` at 45 × 45, also on an image of
/// 2^-30 on the left and 2^20 on the right.
fn tensor_f32_splits_tiles_of_any_magnitude() {
    let test = "gpu::tensor_f32_splits_tiles_of_any_magnitude";
    let _lease = Lease::take(test);
    // `tensor-f32-blocks` splits each block's tile at the scale of the largest magnitudes its
    // tiles met so far: an image whose left half is tiny and right half huge has tiles that meet
    // both, after the blocks to their left saw only the tiny ones.
    for (variant, k) in [(Variant::TensorF32, 17), (Variant::TensorF32Blocks, 45)] {
        let convolver = Convolver::new()
            .unwrap_or_else(|e| panic!("{test}: {e}"))
            .with_variant(variant);
        let filter = Filter::random(k, SEED).unwrap();
        for channels in [1, 3, 4] {
            let unit = Image::random(300, 200, channels, DType::F32, SEED).unwrap();
            let Samples::F32(values) = unit.samples() else {
                unreachable!("an f32 image")
            };
            let per_channel = [2f32.powi(-30), 1.0, 2f32.powi(100), 0.5];
            let halves = move |i: usize| {
                if (i / channels) % 300 < 150 {
                    2f32.powi(-30)
                } else {
                    2f32.powi(20)
                }
            };
            let mut factors: Vec<(String, Factor)> =
                [2f32.powi(-40), 2f32.powi(-4), 1.0, 2f32.powi(20), 2f32.powi(100)]
                    .map(|f| {
                        (
                            format!("{f:e}"),
                            Box::new(move |_| f) as Box<dyn Fn(usize) -> f32>,
                        )
                    })
                    .into();
            if channels > 1 {
                factors.push((
                    format!("per channel {per_channel:?}"),
                    Box::new(move |i| per_channel[i % channels]),
                ));
            }
            factors.push(("2^-30 left, 2^20 right".into(), Box::new(halves)));
            for (what, factor) in &factors {
                let scaled = values.iter().enumerate().map(|(i, v)| v * factor(i)).collect();
                let image = Image::new(300, 200, channels, Samples::F32(scaled)).unwrap();
                let got = convolver
                    .convolve(&image, &filter, Border::Reflect)
                    .unwrap_or_else(|e| panic!("{test}: {e}"));
                let expected = reference_parallel(&image, &filter, Border::Reflect).unwrap();
                // Channel by channel, each against the tolerance of its own largest magnitude.
                for c in 0..channels {
                    let [image, got] = [&image, &got].map(|i| channel(i, c));
                    let expected = Reference {
                        channels: 1,
                        values: expected
                            .values
                            .iter()
                            .skip(c)
                            .step_by(channels)
                            .copied()
                            .collect(),
                        ..expected
                    };
                    let result =
                        check::compare(&got, &expected, check::tolerance(&image, &filter, None), false);
                    assert!(
                        result.passed(),
                        "{test}: {} {k}x{k}, {channels} channels, channel {c}, values times {what}: {result}",
                        variant.name()
                    );
                }
            }
        }
    }
}

/// Channel `c` of an `f32` image, as a gray image.
fn channel(image: &Image, c: usize) -> Image {
    let Samples::F32(values) = image.samples() else {
        unreachable!("an f32 image")
    };
    let samples = values.iter().skip(c).step_by(image.channels()).copied().collect();
    Image::new(image.width(), image.height(), 1, Samples::F32(samples)).unwrap()
}

fn the_generated_tests_cover_every_variant_dtype_and_border() {
    let generated: Vec<_> = GENERATED.iter().flat_map(|m| m.iter().copied()).collect();
    for &(test, variant, _, _) in &generated {
        assert_eq!(
            test.split("::").next().unwrap_or_default(),
            variant.name().replace('-', "_"),
            "the module of {} should be named after it",
            variant.name()
        );
    }
    let mut names: Vec<&str> = generated.iter().map(|&(test, ..)| test).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), generated.len(), "two generated tests share a name");
    let mut missing = Vec::new();
    for variant in Variant::ALL {
        for dtype in DType::EVERY {
            for border in Border::CHECKED {
                let n = generated
                    .iter()
                    .filter(|&&(_, v, d, b)| (v, d, b) == (variant, dtype, border))
                    .count();
                assert!(n <= 1, "{} {dtype:?} {border:?} has {n} tests", variant.name());
                if n == 0 {
                    missing.push(format!("{} {} {}", variant.name(), dtype.suffix(), border.name()));
                }
            }
        }
    }
    assert!(missing.is_empty(), "no GPU test for: {}", missing.join(", "));
    assert_eq!(
        generated.len(),
        Variant::ALL.len() * DType::EVERY.len() * Border::CHECKED.len(),
        "tests for variants, sample types or borders the library does not list"
    );
}
