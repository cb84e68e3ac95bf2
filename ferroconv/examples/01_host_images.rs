//! Example 1: filter images in host memory with a plan built once: the caller's `Vec`s in and
//! out, a region of a larger image through a row stride. `cargo run --release -p ferroconv
//! --example 01_host_images`; runs on the CPU where there is no GPU.

use ferroconv::model::filter::FilterKind;
use ferroconv::plan::{Filter2D, ImageView, ImageViewMut};
use ferroconv::{Border, Filter};

pub fn main() -> Result<(), ferroconv::Error> {
    let (w, h) = (1920, 1080);
    // An RGB frame, 8 bits a sample, interleaved (what image decoders and cameras give).
    let frame: Vec<u8> = (0..w * h * 3).map(|i| (i * 7 % 251) as u8).collect();
    let mut blurred = vec![0u8; w * h * 3];

    // Built once: the GPU's kernels, the variant for the shape and the buffers are kept.
    let gaussian = Filter::builtin(FilterKind::Gaussian, 5, None)?;
    let mut blur = Filter2D::auto(&gaussian, Border::Reflect)?;
    for _ in 0..10 {
        blur.run(
            &ImageView::new(&frame, w, h, 3)?,
            &mut ImageViewMut::new(&mut blurred, w, h, 3)?,
        )?;
    }
    println!(
        "blurred {w}x{h} RGB on {} ({})",
        blur.gpu()
            .map_or("the CPU".to_string(), |g| g.info().name.clone()),
        blur.variant().map_or("cpu", |v| v.name())
    );

    // A 256x256 region at (100, 50), filtered where it lies: the views keep the frame's stride
    // (in samples), and the result goes into the middle of an output frame.
    let stride = w * 3;
    let at = 50 * stride + 100 * 3;
    let region = ImageView::with_stride(&frame[at..], 256, 256, 3, stride)?;
    let mut sharpened = vec![0u8; w * h * 3];
    let mut into = ImageViewMut::with_stride(&mut sharpened[at..], 256, 256, 3, stride)?;
    let sharpen = Filter::builtin(FilterKind::Sharpen, 3, None)?;
    Filter2D::auto(&sharpen, Border::Replicate)?.run(&region, &mut into)?;
    assert!(
        sharpened[..at].iter().all(|&v| v == 0),
        "nothing outside the region is written"
    );
    Ok(())
}
