//! The magnitude kernel ([`Magnitude`]) against numpy's arithmetic written here: `f32` squares,
//! sum and root, each rounded to nearest, so every sample is equal, not within a bound. Lengths
//! that are and are not whole vectors, two and three terms, the output one of the terms or
//! apart (poisoned with NaN), and the requests it refuses.

use crate::{SEED, gpu};
use ferroconv::model::image::DType;
use ferroconv::plan::{DeviceImage, ImageView, ImageViewMut, Magnitude, StreamRef};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// The `(width, height)` of a device image of `len` samples: rows of 2048 where they divide
/// it, else one row (at most 262144 samples).
fn sides(len: usize) -> (usize, usize) {
    if len.is_multiple_of(2048) {
        (2048, len / 2048)
    } else {
        (len, 1)
    }
}

/// `data` on the GPU.
fn upload(gpu: &ferroconv::Gpu, data: &[f32]) -> DeviceImage {
    let (w, h) = sides(data.len());
    DeviceImage::upload(gpu, &ImageView::new(data, w, h, 1).unwrap()).unwrap()
}

fn download(image: &DeviceImage, len: usize) -> Vec<f32> {
    let (w, h) = sides(len);
    let mut out = vec![0.0f32; len];
    image
        .copy_to(&mut ImageViewMut::new(&mut out, w, h, 1).unwrap())
        .unwrap();
    out
}

/// Every sample equal to `sqrt(a*a + b*b (+ c*c))` rounded step by step in `f32`, into a
/// separate output and into the first term.
pub fn gpu_magnitude_rounds_as_numpy() {
    let gpu = gpu("plan::gpu_magnitude_rounds_as_numpy");
    let kernel = Magnitude::new(gpu).unwrap();
    let mut rng = StdRng::seed_from_u64(SEED);
    let mut cases = 0;
    for len in [1, 3, 4, 5, 1023, 4096, 100_003, 1 << 21] {
        for count in [2, 3] {
            let terms: Vec<Vec<f32>> = (0..count)
                .map(|_| (0..len).map(|_| rng.random_range(-1e3f32..1e3)).collect())
                .collect();
            let want: Vec<f32> = (0..len)
                .map(|i| {
                    let mut s = terms[0][i] * terms[0][i] + terms[1][i] * terms[1][i];
                    if count == 3 {
                        s += terms[2][i] * terms[2][i];
                    }
                    s.sqrt()
                })
                .collect();
            let on_gpu: Vec<DeviceImage> = terms.iter().map(|t| upload(gpu, t)).collect();
            let ptrs: Vec<u64> = on_gpu.iter().map(|d| d.raw().ptr).collect();
            let apart = upload(gpu, &vec![f32::NAN; len]);
            for (out, into) in [(apart.raw().ptr, "apart"), (ptrs[0], "into the first term")] {
                // SAFETY: every array holds `len` f32 on this GPU, alive until the copy below
                // (synchronous, after the legacy stream's kernel) has read the result.
                unsafe { kernel.run_raw(&ptrs, out, len, StreamRef::LEGACY) }.unwrap();
                let image = if out == ptrs[0] { &on_gpu[0] } else { &apart };
                let got = download(image, len);
                for i in 0..len {
                    assert_eq!(
                        got[i].to_bits(),
                        want[i].to_bits(),
                        "{count} terms of {len}, {into}: sample {i}: {} against {}",
                        got[i],
                        want[i]
                    );
                }
                cases += 1;
            }
        }
    }
    assert_eq!(cases, 32);
}

/// One or four terms, unaligned addresses and an output overlapping a term it is not: errors,
/// no launch.
pub fn gpu_magnitude_refuses_bad_requests() {
    let gpu = gpu("plan::gpu_magnitude_refuses_bad_requests");
    let kernel = Magnitude::new(gpu).unwrap();
    let a = DeviceImage::new(gpu, 64, 1, 1, DType::F32).unwrap();
    let b = DeviceImage::new(gpu, 64, 1, 1, DType::F32).unwrap();
    let (pa, pb) = (a.raw().ptr, b.raw().ptr);
    let run = |terms: &[u64], out: u64, len: usize| {
        // SAFETY: every request below is refused before a launch.
        unsafe { kernel.run_raw(terms, out, len, StreamRef::LEGACY) }
    };
    assert!(run(&[pa], pa, 64).is_err(), "one term");
    assert!(run(&[pa, pb, pa, pb], pa, 64).is_err(), "four terms");
    assert!(run(&[pa + 4, pb], pb, 60).is_err(), "an unaligned term");
    assert!(run(&[pa, pb], pb + 16, 32).is_err(), "an output inside a term");
    run(&[pa, pb], pb, 0).unwrap();
}
