//! One image over several GPU engines (`Engine::convolve_spread`): strips read in place and
//! written into one output give the one-engine result bit for bit.

use crate::{SEED, gpu};
use ferroconv::engine::strips;
use ferroconv::{Border, DType, Filter, Image, Problem, Variant};
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
