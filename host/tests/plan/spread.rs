//! One image over several GPU engines (`Engine::convolve_spread`), and a batch over several plans
//! (`plan::spread::run_batch`): strips read in place and written into one output give the
//! one-engine result bit for bit.

use crate::{SEED, gpu};
use ferroconv::engine::strips;
use ferroconv::model::image::Samples;
use ferroconv::plan::{Filter2D, Pixel, spread};
use ferroconv::{Border, DType, Filter, Gpu, Image, Problem, Variant};
use host_tools::engine::runner::{Choice, Engine, Settings};

/// Two and three engines (on the first GPU, each with its own plan and stream), with strips from
/// the fewest (one per engine) to many (a small memory budget), equal the whole image on one
/// engine for every border, sample type, an odd size and RGB, through a one-pass and a
/// two-pass variant; the poisoned output of the first run is overwritten by the second.
pub fn gpu_spread_strips_match_one_engine() {
    let gpu = gpu("gpu_spread_strips_match_one_engine");
    let mut cases = 0;
    for dtype in [DType::U8, DType::U16, DType::F32] {
        for border in Border::checked(dtype) {
            for (variant, k) in [(Variant::Blocked4x4, 7), (Variant::Separable, 9)] {
                let filter = match variant {
                    Variant::Separable => Filter::random_rank1(k, SEED + k as u64).unwrap(),
                    _ => Filter::random(k, SEED + k as u64).unwrap(),
                };
                for (w, h, c) in [(253, 301, 1), (97, 61, 3)] {
                    let image = Image::random(w, h, c, dtype, SEED + w as u64).unwrap();
                    let mut s = Settings::in_memory(filter.clone(), border);
                    let mut one = [Engine::gpu(gpu, Choice::Fixed(variant))];
                    let (whole, _, _) = Engine::convolve_spread(&mut one, &image, &s, None).unwrap();
                    // A quarter of what the whole image needs: four or more strips (where one
                    // row of output fits in it).
                    let problem = Problem::of(&image, &filter, border, false);
                    let two_pass = variant == Variant::Separable;
                    let quarter = strips::device_bytes(&problem, two_pass).unwrap() / 4;
                    let small = strips::plan(&problem, two_pass, quarter)
                        .is_ok()
                        .then_some(quarter);
                    for (engines, budget) in [(2, None), (3, None), (2, small)] {
                        s.max_mem = budget;
                        let mut spread: Vec<Engine<'_>> = (0..engines)
                            .map(|_| Engine::gpu(gpu, Choice::Fixed(variant)))
                            .collect();
                        let (got, strips, _) =
                            Engine::convolve_spread(&mut spread, &image, &s, None).unwrap();
                        let what = format!(
                            "{} {} {w}x{h}x{c} {} over {engines} engines, {strips} strips",
                            variant.name(),
                            dtype.suffix(),
                            border.name()
                        );
                        assert!(strips >= engines, "{what}");
                        assert!(budget.is_none() || strips >= 4, "{what}");
                        assert!(got == whole, "{what}: {}", differences(&got, &whole));
                        cases += 1;
                    }
                }
            }
        }
    }
    assert!(cases >= 150, "only {cases} cases ran");
}

/// Where two images of one shape differ: how many samples, and the first few (x, y, c, a, b).
fn differences(a: &Image, b: &Image) -> String {
    let (w, ch) = (a.width(), a.channels());
    let mut first = Vec::new();
    let mut count = 0;
    for y in 0..a.height() {
        for x in 0..w {
            for c in 0..ch {
                let (u, v) = (a.value(x, y, c), b.value(x, y, c));
                if u.to_bits() != v.to_bits() {
                    count += 1;
                    if first.len() < 6 {
                        first.push(format!("({x}, {y}, {c}) {u} vs {v}"));
                    }
                }
            }
        }
    }
    format!("{count} samples differ from one engine's: {}", first.join(", "))
}

/// A batch spread over plans on the first GPU (two and three of them, each with its own stream
/// and buffers) and over one plan per visible GPU: one image in strips and runs of whole images,
/// every border, 8-bit and `f32`, general and rank-1 filters (the automatic variant, which the
/// first plan chooses for all), equal to one plan bit for bit; the outputs poisoned.
pub fn gpu_spread_batches_match_one_plan() {
    let gpu = gpu("gpu_spread_batches_match_one_plan");
    let count = ferroconv::engine::gpu::device_count().unwrap();
    let every: Vec<Gpu> = (0..count).map(|d| Gpu::open(d).unwrap()).collect();
    let mut cases = 0;
    for dtype in [DType::U8, DType::F32] {
        for border in Border::checked(dtype) {
            // 31 x 31: `tensor-f32` for f32 (its tiles scale where their values are far from 1).
            let filters = [
                Filter::random(7, SEED),
                Filter::random_rank1(9, SEED),
                Filter::random(31, SEED),
            ];
            for filter in filters.map(Result::unwrap) {
                for (w, h, c, images) in [(301, 257, 1, 1), (97, 200, 3, 1), (64, 64, 4, 5)] {
                    let stacked = Image::random(w, h * images, c, dtype, SEED + w as u64).unwrap();
                    let mut one = Filter2D::new(gpu, &filter, border).unwrap();
                    let whole = run(std::slice::from_mut(&mut one), &stacked, images);
                    let sets: [Vec<&Gpu>; 3] = [vec![gpu; 2], vec![gpu; 3], every.iter().collect()];
                    for set in sets {
                        let mut plans: Vec<Filter2D> = set
                            .iter()
                            .map(|g| Filter2D::new(g, &filter, border).unwrap())
                            .collect();
                        let got = run(&mut plans, &stacked, images);
                        let what = format!(
                            "{} {w}x{h}x{c} x{images} {} over {} plans ({:?})",
                            dtype.suffix(),
                            border.name(),
                            set.len(),
                            one.variant()
                        );
                        assert!(got == whole, "{what}: {}", differences(&got, &whole));
                        cases += 1;
                    }
                }
            }
        }
    }
    assert!(cases >= 180, "only {cases} cases ran");
}

/// `images` stacked images through `spread::run_batch` on `plans` (one plan: its own
/// `run_batch`), into a poisoned output.
fn run(plans: &mut [Filter2D], stacked: &Image, images: usize) -> Image {
    match stacked.dtype() {
        DType::U8 => run_typed::<u8>(plans, stacked, images),
        DType::U16 => run_typed::<u16>(plans, stacked, images),
        _ => run_typed::<f32>(plans, stacked, images),
    }
}

fn run_typed<T: Pixel>(plans: &mut [Filter2D], stacked: &Image, images: usize) -> Image {
    let (w, h, c) = (stacked.width(), stacked.height() / images, stacked.channels());
    let (ow, oh) = plans[0].output_size(w, h).unwrap();
    let mut samples = Samples::zeroed(stacked.dtype(), ow * oh * images * c);
    samples.as_bytes_mut().fill(0xA5);
    let mut out = Image::new(ow, oh * images, c, samples).unwrap();
    let mut dst = out.view_mut::<T>().unwrap();
    spread::run_batch(plans, images, &stacked.view::<T>().unwrap(), &mut dst).unwrap();
    out
}
