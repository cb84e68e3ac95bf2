//! Example 3: a batch of same-shaped images with one plan, in one call from host memory (one
//! launch on a GPU where the variant takes batches), checked against image-by-image calls.
//! `cargo run --release -p ferroconv --example 03_batch`; runs on the CPU where there is no GPU.

use ferroconv::plan::{Filter2D, ImageView, ImageViewMut};
use ferroconv::{Border, Error, Filter};

pub fn main() -> Result<(), Error> {
    let (n, w, h) = (16, 224, 224);
    // A batch laid out as N × H × W × C, as ML frameworks keep images: one view n·h rows tall.
    let batch: Vec<u8> = (0..n * w * h * 3).map(|i| (i % 253) as u8).collect();
    let mut out = vec![0u8; batch.len()];
    // A 5 × 5 filter of taps in [-1, 1), not symmetric, so a misplaced tap shows.
    let filter = Filter::new(5, (0..25).map(|i| ((i * 7) % 25) as f32 / 12.5 - 1.0).collect())?;
    let mut plan = Filter2D::auto(&filter, Border::Reflect)?;
    plan.run_batch(
        n,
        &ImageView::new(&batch, w, h * n, 3)?,
        &mut ImageViewMut::new(&mut out, w, h * n, 3)?,
    )?;
    // The same images one call each give the same bytes with the same variant (a plan chooses
    // per shape, and a batch is tuned as one image n times as tall: pin the batch's choice).
    if let Some(variant) = plan.variant() {
        plan.set_variant(variant)?;
    }
    let image = w * h * 3;
    let mut one = vec![0u8; image];
    for (src, want) in batch.chunks_exact(image).zip(out.chunks_exact(image)) {
        plan.run(
            &ImageView::new(src, w, h, 3)?,
            &mut ImageViewMut::new(&mut one, w, h, 3)?,
        )?;
        if one != want {
            return Err(Error::Mismatch(
                "a batched image differs from the same image alone".into(),
            ));
        }
    }
    println!("{n} images of {w}x{h} RGB filtered in one call, each as alone");
    Ok(())
}
