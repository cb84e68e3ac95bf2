//! `host api-bench`'s batch table: a batch of device images in one call against one call
//! per image, for the automatic choice and each variant that takes batches, then a batch from
//! host memory against plain pageable copies.

use super::{ApiBenchArgs, BORDER, Case, ms, verdict, wall};
use crate::cli::table;
use anyhow::Result;
use ferroconv::plan::{DeviceImage, Filter2D, ImageView, ImageViewMut};
use ferroconv::{DType, Gpu, Image, Variant};

/// The batch table.
pub(super) fn batch(gpu: &Gpu, args: &ApiBenchArgs) -> Result<()> {
    println!(
        "\nBatches: 64 images of one shape, synchronous (queued on the GPU's stream, then one synchronize)"
    );
    let (n, side) = (64, 224);
    let filter = Case::new(side, 3, DType::U8, 5).filter()?;
    let mut samples = Vec::with_capacity(n * side * side * 3);
    for i in 0..n {
        // 8-bit samples: the bytes are the samples.
        samples.extend_from_slice(
            Image::random(side, side, 3, DType::U8, i as u64)?
                .samples()
                .as_bytes(),
        );
    }
    let input = DeviceImage::upload_batch(gpu, n, &ImageView::new(&samples, side, side * n, 3)?)?;
    let mut output = DeviceImage::new_batch(gpu, n, side, side, 3, DType::U8)?;
    let stream = gpu.stream();
    let runs = args.runs.max(100);
    // The same images as 64 separate device images, one call each.
    let singles: Vec<DeviceImage> = samples
        .chunks_exact(side * side * 3)
        .map(|s| Ok(DeviceImage::upload(gpu, &ImageView::new(s, side, side, 3)?)?))
        .collect::<Result<_>>()?;
    let mut outs: Vec<DeviceImage> = (0..n)
        .map(|_| Ok(DeviceImage::new(gpu, side, side, 3, DType::U8)?))
        .collect::<Result<_>>()?;
    let mut rows = Vec::new();
    // The automatic choice, then every variant that filters a batch in one launch.
    let fixed = Variant::ALL.into_iter().filter(|v| {
        v.spec().batched && v.supports(DType::U8, 2) && !v.spec().rank1_only && !v.spec().lines_only
    });
    for variant in std::iter::once(None).chain(fixed.map(Some)) {
        let mut plan = Filter2D::new(gpu, &filter, BORDER)?;
        if let Some(v) = variant {
            plan = plan.with_variant(v)?;
        }
        let one_call = wall(10, runs, || {
            plan.run_device(&input, &mut output, stream)?;
            Ok(stream.synchronize(gpu)?)
        })?;
        let name = plan.variant().map_or("-", |v| v.name());
        let per_image = wall(10, runs / 4, || {
            for (i, o) in singles.iter().zip(outs.iter_mut()) {
                plan.run_device(i, o, stream)?;
            }
            Ok(stream.synchronize(gpu)?)
        })?;
        rows.push(vec![
            format!("{n} x {side}² RGB u8 5x5, device"),
            if variant.is_some() {
                name.to_string()
            } else {
                format!("auto: {name}")
            },
            format!("{:.1}", one_call * 1e3),
            verdict(one_call * 1e3 <= 40.0),
            format!("{:.1}", per_image * 1e3),
        ]);
    }
    table::print(
        &["batch", "variant", "one call us", "<= 40 us", "64 calls us"],
        &rows,
    );
    drop((input, output, singles, outs));
    host_batch(gpu)
}

/// The batch table's host half: 64 × 2048² gray f32 5×5 from host memory in one `run_batch` call (2 GiB
/// each way with the result), against plain pageable copies of the same bytes (the bar of the host-memory table).
fn host_batch(gpu: &Gpu) -> Result<()> {
    let (n, side) = (64, 2048);
    let filter = Case::new(side, 1, DType::F32, 5).filter()?;
    let src: Vec<f32> = (0..n * side * side).map(|i| (i % 251) as f32 / 250.0).collect();
    let mut out = vec![0.0f32; src.len()];
    let (view, h) = (ImageView::new(&src, side, side * n, 1)?, side * n);
    let mut plan = Filter2D::new(gpu, &filter, BORDER)?;
    let plan_ms = wall(1, 3, || {
        Ok(plan.run_batch(n, &view, &mut ImageViewMut::new(&mut out, side, h, 1)?)?)
    })?;
    let name = plan.variant().map_or("-", |v| v.name());
    drop(plan);
    let mut dev = DeviceImage::new(gpu, side, h, 1, DType::F32)?;
    let pageable = wall(1, 3, || {
        dev.copy_from(&view)?;
        Ok(dev.copy_to(&mut ImageViewMut::new(&mut out, side, h, 1)?)?)
    })?;
    println!();
    table::print(
        &[
            "batch",
            "variant",
            "one call ms",
            "pageable in+out ms",
            "<= pageable",
            "per image ms",
        ],
        &[vec![
            format!("{n} x {side}² gray f32 5x5, host"),
            format!("auto: {name}"),
            ms(plan_ms),
            ms(pageable),
            verdict(plan_ms <= pageable),
            ms(plan_ms / n as f64),
        ]],
    );
    Ok(())
}
