//! `host scale`: the GPU stage (copy in, kernel, copy out; images already in host memory, no
//! file I/O) on 1, 2, ... GPUs, for a batch of images and for one large image in strips over the
//! GPUs: throughput, the speed-up over one GPU, the share of the case's ceiling reached (its
//! page-locked copies on every GPU at once, or an all-core memcpy of its bytes, whichever is
//! slower), and whether the results are bit-identical.

use super::names;
use super::values::{parse_count, parse_variant};
use anyhow::{Context as _, Result, bail};
use ferroconv::engine::gpu::{Gpu, Variant};
use ferroconv::{Border, DType, Filter, Image};
use host_tools::batch::shard::fnv1a;
use host_tools::engine::runner::{Choice, ComputeTimes, Engine, Settings};
use host_tools::engine::{recycle, trace};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

#[derive(clap::Args, Debug)]
pub struct ScaleArgs {
    /// GPU counts to compare, comma-separated: each uses the first N visible GPUs.
    #[arg(long, value_delimiter = ',', default_value = "1,2", value_parser = parse_count)]
    pub gpus: Vec<usize>,
    /// Side of each image of the batch.
    #[arg(long, default_value_t = 4096, value_parser = parse_count)]
    pub size: usize,
    /// Images in the batch (four distinct random images, cycled).
    #[arg(long, default_value_t = 200, value_parser = parse_count)]
    pub images: usize,
    /// Side of the one large image (0: no large image).
    #[arg(long, default_value_t = 32768, value_parser = parse_count)]
    pub big: usize,
    /// Filter side (a random general filter).
    #[arg(long, default_value_t = 17, value_parser = parse_count)]
    pub mask: usize,
    /// Sample type of the images.
    #[arg(long, value_parser = names::dtype(), default_value = "f32")]
    pub dtype: DType,
    /// The variant every GPU runs.
    #[arg(long, value_parser = parse_variant, default_value = "blocked-4x4")]
    pub variant: Variant,
    /// Plans per GPU in the batch, each with its own stream, staging and thread: with 2, one
    /// image's copy out overlaps the next one's copy in and kernel.
    #[arg(long, default_value_t = 2, value_parser = parse_count)]
    pub streams: usize,
    /// Write a Chrome trace (Perfetto, chrome://tracing) of every GPU's copies and kernels and
    /// the host threads to this file.
    #[arg(long)]
    pub trace: Option<std::path::PathBuf>,
}

/// One measured case.
struct Row {
    case: &'static str,
    gpus: usize,
    seconds: f64,
    megapixels: f64,
    /// The busiest GPU's copy-in, kernel and copy-out time per image, ms.
    stages: (f64, f64, f64),
    /// FNV-1a of the result's bytes (the large image only).
    hash: Option<u64>,
    /// The case's ceiling in seconds: its page-locked copies on every GPU at once, or an all-core
    /// memcpy of its bytes in and out, whichever takes longer ([`ceiling`]).
    ceiling: f64,
}

pub fn run(args: &ScaleArgs) -> Result<()> {
    let visible = ferroconv::engine::gpu::device_count().context("host scale needs GPUs")?;
    if let Some(&n) = args.gpus.iter().find(|&&n| n == 0 || n > visible) {
        bail!("--gpus {n}: between 1 and the {visible} visible GPU(s)");
    }
    let filter = Filter::random(args.mask, 7)?;
    let settings = Settings::in_memory(filter, Border::Zero);
    let batch: Vec<Image> = (0..4)
        .map(|seed| Image::random(args.size, args.size, 1, args.dtype, seed))
        .collect::<ferroconv::Result<_>>()?;
    let big = (args.big > 0)
        .then(|| Image::random(args.big, args.big, 1, args.dtype, 99))
        .transpose()?;
    println!(
        "GPU stage (copy in, kernel, copy out; images in host memory): {} {}, {}x{} filter, zero border; {} visible GPU(s)",
        args.variant.name(),
        args.dtype.suffix(),
        args.mask,
        args.mask,
        visible
    );
    if args.trace.is_some() {
        trace::start();
    }
    let memcpy = memcpy_gbps();
    println!("host all-core memcpy: {memcpy:.1} GB/s");
    let image_bytes = |side: usize| side * side * args.dtype.size();
    let mut rows = Vec::new();
    for &n in &args.gpus {
        let gpus = super::gpu::open_all(&(0..n).collect::<Vec<_>>())?;
        let mut engines: Vec<Engine> = gpus
            .iter()
            .map(|gpu| Engine::gpu(gpu, Choice::Fixed(args.variant)))
            .collect();
        if args.images > 0 {
            let mut streams: Vec<Engine> = (0..args.streams)
                .flat_map(|_| gpus.iter())
                .map(|gpu| Engine::gpu(gpu, Choice::Fixed(args.variant)))
                .collect();
            let mut row = time_batch(&mut streams, n, &batch, args.images, &settings)?;
            let per_gpu = args.images.div_ceil(n) as f64;
            let total = args.images * image_bytes(args.size);
            row.ceiling = ceiling(&gpus, (image_bytes(args.size), per_gpu), total, memcpy)?;
            rows.push(row);
        }
        if let Some(big) = &big {
            // Once to allocate and pin every GPU's strip buffers, then timed.
            Engine::convolve_spread(&mut engines, big, &settings, None)?;
            let start = Instant::now();
            let (out, _, times) = Engine::convolve_spread(&mut engines, big, &settings, None)?;
            rows.push(Row {
                case: "one large image",
                gpus: n,
                seconds: start.elapsed().as_secs_f64(),
                megapixels: (big.width() * big.height()) as f64 / 1e6,
                stages: stages(&times),
                hash: Some(fnv1a(out.samples().as_bytes())),
                ceiling: ceiling(
                    &gpus,
                    (image_bytes(args.big).div_ceil(n), 1.0),
                    image_bytes(args.big),
                    memcpy,
                )?,
            });
        }
    }
    print_table(&rows, args);
    if let Some(path) = &args.trace {
        trace::finish(path)?;
        println!("trace: {}", path.display());
    }
    Ok(())
}

/// The batch, `images` long, on `engines` (on `n` GPUs): each engine takes the next image when
/// free, on its own thread (as `host -i` does), and hands each result to a thread that gives its
/// memory back for the next results ([`recycle`], as `host -i`'s encoders do).
fn time_batch(
    engines: &mut [Engine<'_>],
    n: usize,
    batch: &[Image],
    images: usize,
    s: &Settings,
) -> Result<Row> {
    let next = AtomicUsize::new(0);
    let (results, dropped) = std::sync::mpsc::channel::<Image>();
    let dropper = std::thread::spawn(move || dropped.into_iter().for_each(recycle::give_back));
    // Each GPU once first, to allocate and pin its buffers.
    let work = |engine: &mut Engine<'_>, warm: bool| -> ferroconv::Result<(f64, f64, f64)> {
        if let Engine::Gpu { gpu, .. } = engine {
            gpu.make_current()?;
        }
        if warm {
            engine.convolve(&batch[0], s, None)?;
            return Ok((0.0, 0.0, 0.0));
        }
        let mut sum = (0.0, 0.0, 0.0);
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            if i >= images {
                return Ok(sum);
            }
            let (out, _, t) = engine.convolve(&batch[i % batch.len()], s, None)?;
            // Unbounded: the dropper keeps up (or the results wait for it in memory).
            let _ = results.send(out);
            let (h2d, kernel, d2h) = stages(&t);
            sum = (sum.0 + h2d, sum.1 + kernel, sum.2 + d2h);
        }
    };
    let run_all = |engines: &mut [Engine<'_>], warm: bool| -> ferroconv::Result<Vec<(f64, f64, f64)>> {
        std::thread::scope(|scope| {
            let handles: Vec<_> = engines
                .iter_mut()
                .map(|engine| {
                    let work = &work;
                    scope.spawn(move || work(engine, warm))
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
                .collect()
        })
    };
    run_all(engines, true)?;
    let start = Instant::now();
    let sums = run_all(engines, false)?;
    let seconds = start.elapsed().as_secs_f64();
    drop(results);
    dropper.join().unwrap_or_else(|p| std::panic::resume_unwind(p));
    // Engine `e` runs on GPU `e mod n`: each GPU's sums, then the busiest GPU's.
    let mut per_gpu = vec![(0.0f64, 0.0f64, 0.0f64); n];
    for (e, s) in sums.iter().enumerate() {
        let g = &mut per_gpu[e % n];
        *g = (g.0 + s.0, g.1 + s.1, g.2 + s.2);
    }
    let busiest = per_gpu.iter().fold((0.0f64, 0.0f64, 0.0f64), |m, s| {
        (m.0.max(s.0), m.1.max(s.1), m.2.max(s.2))
    });
    let per_image = images.div_ceil(n) as f64;
    Ok(Row {
        case: "batch",
        gpus: n,
        seconds,
        megapixels: (images * batch[0].width() * batch[0].height()) as f64 / 1e6,
        stages: (
            busiest.0 / per_image,
            busiest.1 / per_image,
            busiest.2 / per_image,
        ),
        hash: None,
        ceiling: f64::NAN,
    })
}

/// The ceiling of a case in seconds: each GPU copying `share` bytes in and out `times` times
/// from page-locked memory, every GPU at once (the slowest GPU's time), or the host copying the
/// case's `total` bytes in and out on all cores at `memcpy` GB/s, whichever is longer.
fn ceiling(gpus: &[Gpu], (share, times): (usize, f64), total: usize, memcpy: f64) -> Result<f64> {
    let copies = std::thread::scope(|scope| {
        let handles: Vec<_> = gpus
            .iter()
            .map(|gpu| scope.spawn(move || gpu.pinned_copy_ms(share, 5)))
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect::<ferroconv::Result<Vec<_>>>()
    })?;
    let pinned = copies.iter().map(|(i, o)| i + o).fold(0.0, f64::max) * times / 1e3;
    Ok(pinned.max(2.0 * total as f64 / (memcpy * 1e9)))
}

/// The host's all-core copy rate in GB/s (bytes copied, each read once and written once): 1 GiB
/// between two buffers already faulted in, on every core, the median of five.
fn memcpy_gbps() -> f64 {
    use rayon::prelude::*;
    const BYTES: usize = 1 << 30;
    let src = vec![1u8; BYTES];
    let mut dst = vec![2u8; BYTES];
    let mut times: Vec<f64> = (0..5)
        .map(|_| {
            let start = Instant::now();
            dst.par_chunks_mut(1 << 20)
                .zip(src.par_chunks(1 << 20))
                .for_each(|(d, s)| d.copy_from_slice(s));
            start.elapsed().as_secs_f64()
        })
        .collect();
    times.sort_by(f64::total_cmp);
    BYTES as f64 / times[2] / 1e9
}

/// Copy-in, kernel and copy-out ms of a convolution.
fn stages(t: &ComputeTimes) -> (f64, f64, f64) {
    (
        t.h2d_ms.unwrap_or(0.0),
        t.kernel_ms.unwrap_or(0.0),
        t.d2h_ms.unwrap_or(0.0),
    )
}

fn print_table(rows: &[Row], args: &ScaleArgs) {
    println!(
        "| case | GPUs | seconds | megapixels/s | vs 1 GPU | ceiling s | of ceiling | copy in / kernel / copy out ms (busiest GPU, per image) | per image / (ceiling + kernel) | result |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|");
    for row in rows {
        let one = rows.iter().find(|r| r.case == row.case && r.gpus == 1);
        let speedup = one.map_or("-".to_string(), |o| format!("{:.2}x", o.seconds / row.seconds));
        let result = match (row.hash, one.and_then(|o| o.hash)) {
            (Some(h), Some(o)) if row.gpus > 1 => if h == o {
                "identical to 1 GPU"
            } else {
                "DIFFERS from 1 GPU"
            }
            .to_string(),
            (Some(h), _) => format!("fnv1a {h:016x}"),
            _ => "-".to_string(),
        };
        let case = match row.case {
            "batch" => format!("batch of {} {}x{}", args.images, args.size, args.size),
            _ => format!("one {}x{}", args.big, args.big),
        };
        // A GPU's images in the batch (one strip set for the large image).
        let images = if row.case == "batch" {
            args.images.div_ceil(row.gpus)
        } else {
            1
        } as f64;
        let ceiling_and_kernel = row.ceiling / images + row.stages.1 / 1e3;
        println!(
            "| {case} | {} | {:.3} | {:.0} | {speedup} | {:.3} | {:.0}% | {:.2} / {:.2} / {:.2} | {:.2}x | {result} |",
            row.gpus,
            row.seconds,
            row.megapixels / row.seconds,
            row.ceiling,
            100.0 * row.ceiling / row.seconds,
            row.stages.0,
            row.stages.1,
            row.stages.2,
            row.seconds / images / ceiling_and_kernel
        );
    }
}
