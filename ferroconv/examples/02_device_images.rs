//! Example 2: images that stay on the GPU, filtered on a stream without waiting: upload once,
//! queue several filters, download once. `cargo run --release -p ferroconv --example
//! 02_device_images`; says so and stops where there is no GPU.

use ferroconv::model::filter::FilterKind;
use ferroconv::plan::{DeviceImage, Filter2D, ImageView, ImageViewMut};
use ferroconv::{Border, DType, Error, Filter, Gpu};

pub fn main() -> Result<(), Error> {
    let gpu = match Gpu::open(0) {
        Ok(gpu) => gpu,
        Err(Error::NoGpu(why)) => {
            println!("no GPU ({why}): nothing to show");
            return Ok(());
        }
        Err(e) => return Err(e),
    };
    let (w, h) = (4096, 4096);
    let image: Vec<f32> = (0..w * h).map(|i| (i % 4099) as f32 / 4099.0).collect();
    let input = DeviceImage::upload(&gpu, &ImageView::new(&image, w, h, 1)?)?;
    let mut smooth = DeviceImage::new(&gpu, w, h, 1, DType::F32)?;
    let mut edges = DeviceImage::new(&gpu, w, h, 1, DType::F32)?;

    let mut blur = Filter2D::new(
        &gpu,
        &Filter::builtin(FilterKind::Gaussian, 7, None)?,
        Border::Reflect,
    )?;
    let mut sobel = Filter2D::new(
        &gpu,
        &Filter::builtin(FilterKind::SobelX, 3, None)?,
        Border::Reflect,
    )?;
    // Both queued on the GPU's own stream (any stream of the GPU's primary context works, e.g.
    // one from PyTorch through `StreamRef::from_raw`); the calls return at once.
    let stream = gpu.stream();
    blur.run_device(&input, &mut smooth, stream)?;
    sobel.run_device(&smooth, &mut edges, stream)?;
    stream.synchronize(&gpu)?;

    let mut result = vec![0f32; w * h];
    edges.copy_to(&mut ImageViewMut::new(&mut result, w, h, 1)?)?;
    println!(
        "blur then Sobel x of {w}x{h} f32 on {}: {:?}",
        gpu.info().name,
        blur.variant()
    );
    Ok(())
}
