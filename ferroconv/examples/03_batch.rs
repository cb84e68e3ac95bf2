//! Example 3: a batch of same-shaped images with one plan: host images from a loop, each call
//! reusing the plan's buffers. `cargo run --release -p ferroconv --example 03_batch`; runs on
//! the CPU where there is no GPU.

use ferroconv::plan::{Filter2D, ImageView, ImageViewMut};
use ferroconv::{Border, Filter};

pub fn main() -> Result<(), ferroconv::Error> {
    let (n, w, h) = (16, 224, 224);
    // A batch laid out as N × H × W × C, as ML frameworks keep images.
    let batch: Vec<u8> = (0..n * w * h * 3).map(|i| (i % 253) as u8).collect();
    let mut out = vec![0u8; batch.len()];
    let filter = Filter::random(5, 1)?;
    let mut plan = Filter2D::auto(&filter, Border::Reflect)?;
    let image = w * h * 3;
    for (src, dst) in batch.chunks_exact(image).zip(out.chunks_exact_mut(image)) {
        plan.run(
            &ImageView::new(src, w, h, 3)?,
            &mut ImageViewMut::new(dst, w, h, 3)?,
        )?;
    }
    println!("{n} images of {w}x{h} RGB filtered");
    Ok(())
}
