//! Batches of image files (planned by [`crate::io::inputs`]): runs the pipeline of decoding
//! threads, one convolution engine (the GPU, reusing its device buffers, or the CPU) in strips when the
//! image exceeds the memory budget, and encoding threads; one bad file fails alone.

mod outcome;

pub use outcome::{Done, JSON_SCHEMA, Outcome, Status, Summary, summarize};

use crate::engine::autotune::Tuner;
use crate::engine::fault::{self, Injection, Stage};
use crate::engine::gpu::{DeviceJob, Gpu, Problem, Variant};
use crate::io::files::{self, FileError, RawLayout};
use crate::io::inputs::Item;
use crate::model::image::DType;
use crate::{Border, Filter, Image, Result, engine::cpu, engine::strips, io::interrupt};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle};
use serde::Serialize;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Mutex, mpsc};
use std::time::{Duration, Instant};

/// What to do to every image.
#[derive(Clone, Debug)]
pub struct Settings {
    pub filter: Filter,
    pub border: Border,
    /// Clamp `f32` results to [0, 1].
    pub clamp: bool,
    /// Convert the samples to this type before processing (default: keep the file's).
    pub dtype: Option<DType>,
    /// How to read RAW files.
    pub raw: RawLayout,
    /// The most memory one decoded image may take (`--max-image-mem`).
    pub max_image_bytes: u64,
    /// Device memory one convolution may use, in bytes (`None`: 90% of the GPU's free memory; no
    /// limit on the CPU). Larger images are processed in strips.
    pub max_mem: Option<usize>,
    /// A fault to inject (tests; see [`crate::engine::fault`]).
    pub inject: Option<Injection>,
}

/// Which GPU variant runs.
pub enum Choice {
    /// Always this one.
    Fixed(Variant),
    /// The fastest for each image's problem class, measured once and cached (`--variant auto`).
    Auto(Tuner),
}

/// Where convolutions run.
pub enum Engine<'g> {
    /// The multi-threaded CPU path (`cpu-par`).
    Cpu,
    /// The GPU; device buffers (and their pinned staging memory) are kept and reused while images
    /// keep their shape and variant.
    Gpu {
        gpu: &'g Gpu,
        choice: Choice,
        cached: Option<Box<(Problem, Variant, DeviceJob)>>,
    },
}

/// Times of one image's convolution (ms).
#[derive(Clone, Copy, Debug, Default, Serialize)]
pub struct ComputeTimes {
    /// The whole convolution on the host clock (GPU: including transfers and allocation).
    pub compute_ms: f64,
    /// The variant that ran (a GPU variant's name or `cpu-par`).
    pub variant: &'static str,
    /// GPU kernels only (CUDA events).
    pub kernel_ms: Option<f64>,
    pub h2d_ms: Option<f64>,
    pub d2h_ms: Option<f64>,
}

impl Engine<'_> {
    /// The name of what runs: a GPU variant's name, `auto`, or `cpu-par`.
    pub fn name(&self) -> &'static str {
        match self {
            Engine::Cpu => "cpu-par",
            Engine::Gpu {
                choice: Choice::Fixed(v),
                ..
            } => v.name(),
            Engine::Gpu {
                choice: Choice::Auto(_),
                ..
            } => "auto",
        }
    }

    /// Frees the engine's device buffers (a no-op on the CPU).
    pub fn release(&mut self) {
        if let Engine::Gpu { cached, .. } = self {
            *cached = None;
        }
    }

    /// Convolves `image` (in strips when it exceeds the budget); returns the result, the number of
    /// strips and the times. `fault` makes that stage fail (fault injection).
    pub fn convolve(
        &mut self,
        image: &Image,
        s: &Settings,
        fault: Option<Stage>,
    ) -> Result<(Image, usize, ComputeTimes)> {
        let start = Instant::now();
        fault::strike(fault, Stage::Compute)?;
        let (r, border) = (s.filter.radius(), s.border);
        let problem = Problem::of(image, &s.filter, border, s.clamp);
        let mut times = ComputeTimes::default();
        let (out, strips) = match self {
            Engine::Cpu => {
                times.variant = "cpu-par";
                let plan = strips::plan(&problem, false, s.max_mem.unwrap_or(usize::MAX))?;
                let out = strips::run(image, r, border, &plan, |strip| {
                    cpu::parallel(strip, &s.filter, border, s.clamp)
                })?;
                (out, plan.len())
            }
            Engine::Gpu { gpu, choice, cached } => {
                let variant = match choice {
                    Choice::Fixed(v) => *v,
                    Choice::Auto(tuner) => tuner.choose(gpu, &problem)?.0,
                };
                times.variant = variant.name();
                let budget = match s.max_mem {
                    Some(b) => b,
                    None => gpu.memory()?.0 / 10 * 9,
                };
                let plan = strips::plan(&problem, variant.spec().has_intermediate(), budget)?;
                let kernel = gpu.kernel(variant, image.dtype())?;
                let (mut kernel_ms, mut h2d_ms, mut d2h_ms) = (0.0, 0.0, 0.0);
                let out = strips::run(image, r, border, &plan, |strip| {
                    let strip_problem = Problem::of(strip, &s.filter, border, s.clamp);
                    let reusable = cached
                        .as_ref()
                        .is_some_and(|c| c.1 == variant && same_shape(&c.0, &strip_problem));
                    if !reusable {
                        // Free the old buffers before allocating the new ones.
                        *cached = None;
                        let mut job = gpu.alloc(variant, &strip_problem)?;
                        gpu.pin(&mut job)?;
                        *cached = Some(Box::new((strip_problem.clone(), variant, job)));
                    }
                    let job = &mut cached.as_mut().expect("allocated above").2;
                    fault::strike(fault, Stage::Upload)?;
                    h2d_ms += gpu.upload(job, strip)?;
                    fault::strike(fault, Stage::Launch)?;
                    kernel_ms += gpu.time(|g| g.launch(&kernel, job))?;
                    fault::strike(fault, Stage::Download)?;
                    let (result, ms) = gpu.download(job)?;
                    d2h_ms += ms;
                    Ok(result)
                })?;
                times.kernel_ms = Some(kernel_ms);
                times.h2d_ms = Some(h2d_ms);
                times.d2h_ms = Some(d2h_ms);
                (out, plan.len())
            }
        };
        times.compute_ms = start.elapsed().as_secs_f64() * 1e3;
        Ok((out, strips, times))
    }
}

/// Whether two problems (same filter, border and clamping within a batch) have the same buffers.
fn same_shape(a: &Problem, b: &Problem) -> bool {
    (a.width, a.height, a.channels, a.dtype) == (b.width, b.height, b.channels, b.dtype)
}

/// An image on its way from a decoder to an encoder.
struct Decoded {
    index: usize,
    image: std::result::Result<Image, String>,
    decode_ms: f64,
}

fn ms_since(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1e3
}

/// Decodes (and converts) one input.
fn decode(item: &Item, s: &Settings) -> std::result::Result<Image, String> {
    let image = files::read_with_limit(&item.input, &s.raw, s.max_image_bytes).map_err(|e| e.to_string())?;
    Ok(match s.dtype {
        Some(d) => files::convert(image, d),
        None => image,
    })
}

/// The progress bar's look: bar, images done of all, images per second (one decimal), ETA.
pub fn progress_style() -> ProgressStyle {
    ProgressStyle::with_template("{bar:40} {pos}/{len} images  {rate}  ETA {eta}")
        .expect("a valid template")
        .with_key("rate", |state: &ProgressState, w: &mut dyn std::fmt::Write| {
            let _ = write!(w, "{:.1}/s", state.per_sec());
        })
}

/// Processes every item: `threads` decoding and as many encoding threads run while `engine`
/// convolves on this thread. `progress` counts finished images; it starts hidden and is drawn on
/// stderr after a second if `show_progress`. `report` sees each image's outcome (written, failed
/// or discarded) as soon as it is final. A device fault (a failed launch or copy, or an injected
/// one) stops the batch cleanly: the failing image fails, results already computed are still
/// written, and the images not yet convolved are reported as not processed (without a call to
/// `report`). A signal ([`crate::io::interrupt`]) stops it too: no new image is decoded or
/// convolved, the results being written are discarded (no partial or temporary file is left),
/// and the rest are not processed. Returns one outcome per item, in order.
pub fn run(
    items: &[Item],
    settings: &Settings,
    engine: &mut Engine<'_>,
    threads: usize,
    progress: &ProgressBar,
    show_progress: bool,
    report: &(dyn Fn(&Outcome) + Sync),
) -> Vec<Outcome> {
    let threads = threads.max(1);
    let next = AtomicUsize::new(0);
    let stopped_by_fault = AtomicBool::new(false);
    // One image waits in each queue: with the images being decoded, convolved and encoded, that
    // bounds the memory in use for big images while keeping every stage busy.
    let (decoded_tx, decoded_rx) = mpsc::sync_channel::<Decoded>(1);
    let (computed_tx, computed_rx) = mpsc::sync_channel::<(Decoded, Computed)>(1);
    let computed_rx = Mutex::new(computed_rx);
    let (done_tx, done_rx) = mpsc::channel::<(usize, Outcome)>();
    let (stop_tx, stop_rx) = mpsc::channel::<()>();
    let finish = |index: usize, status: Status, done: Option<Done>, error: Option<String>| {
        let item = &items[index];
        let outcome = Outcome {
            input: item.input.clone(),
            output: item.output.clone(),
            status,
            done,
            error,
        };
        progress.suspend(|| report(&outcome));
        progress.inc(1);
        outcome
    };
    std::thread::scope(|scope| {
        scope.spawn(move || {
            if show_progress && stop_rx.recv_timeout(Duration::from_secs(1)).is_err() {
                progress.set_draw_target(ProgressDrawTarget::stderr());
                progress.enable_steady_tick(Duration::from_millis(200));
            }
        });
        for _ in 0..threads {
            let decoded_tx = decoded_tx.clone();
            let next = &next;
            scope.spawn(move || {
                while !interrupt::requested() {
                    let index = next.fetch_add(1, Ordering::Relaxed);
                    let Some(item) = items.get(index) else { break };
                    let t = Instant::now();
                    let image = decode(item, settings);
                    let decoded = Decoded {
                        index,
                        image,
                        decode_ms: ms_since(t),
                    };
                    if decoded_tx.send(decoded).is_err() {
                        break;
                    }
                }
            });
        }
        drop(decoded_tx);
        for _ in 0..threads {
            let (computed_rx, done_tx) = (&computed_rx, done_tx.clone());
            scope.spawn(move || {
                loop {
                    let next = computed_rx.lock().expect("no encoder panics").recv();
                    let Ok((decoded, computed)) = next else { break };
                    let item = &items[decoded.index];
                    let outcome = match decoded.image {
                        Ok(image) => {
                            let t = Instant::now();
                            match files::write(&image, &item.output) {
                                Ok(()) => {
                                    let done = done_facts(&image, &computed, decoded.decode_ms, t);
                                    finish(decoded.index, Status::Written, Some(done), None)
                                }
                                Err(FileError::Interrupted { signal, .. }) => {
                                    let why = format!(
                                        "{}: discarded while being written: interrupted by {signal}",
                                        item.input.display()
                                    );
                                    finish(decoded.index, Status::Discarded, None, Some(why))
                                }
                                Err(e) => finish(decoded.index, Status::Failed, None, Some(e.to_string())),
                            }
                        }
                        Err(e) => finish(decoded.index, Status::Failed, None, Some(e)),
                    };
                    let _ = done_tx.send((decoded.index, outcome));
                }
            });
        }
        drop(done_tx);
        for mut decoded in decoded_rx {
            if interrupt::requested() {
                break;
            }
            let mut computed = Computed::default();
            let mut stop = false;
            if let Ok(image) = &decoded.image {
                computed.input_bytes = image.byte_len();
                let fault = settings.inject.and_then(|i| i.at(decoded.index + 1));
                decoded.image = match engine.convolve(image, settings, fault) {
                    Ok((out, strips, times)) => {
                        (computed.strips, computed.times) = (strips, times);
                        Ok(out)
                    }
                    Err(e) => {
                        stop = e.is_device_fault();
                        let error = FileError::Image {
                            path: items[decoded.index].input.clone(),
                            source: e,
                        };
                        Err(if stop {
                            format!("{error}; the batch stops here")
                        } else {
                            error.to_string()
                        })
                    }
                };
            }
            if stop {
                stopped_by_fault.store(true, Ordering::Relaxed);
            }
            // An image convolved when the signal came is not handed to an encoder.
            if interrupt::requested() || computed_tx.send((decoded, computed)).is_err() || stop {
                break;
            }
        }
        drop(computed_tx);
        let _ = stop_tx.send(());
    });
    let mut outcomes: Vec<Option<Outcome>> = vec![None; items.len()];
    for (i, o) in done_rx {
        outcomes[i] = Some(o);
    }
    let why_not = if stopped_by_fault.load(Ordering::Relaxed) {
        "the batch stopped at a device fault".to_string()
    } else {
        match interrupt::signal() {
            Some(s) => format!("interrupted by {}", interrupt::name(s)),
            None => "the batch stopped".to_string(),
        }
    };
    outcomes
        .into_iter()
        .zip(items)
        .map(|(o, item)| {
            o.unwrap_or_else(|| Outcome {
                input: item.input.clone(),
                output: item.output.clone(),
                status: Status::NotProcessed,
                done: None,
                error: Some(format!("{}: not processed: {why_not}", item.input.display())),
            })
        })
        .collect()
}

/// What the engine reports about one image.
#[derive(Default)]
struct Computed {
    input_bytes: usize,
    strips: usize,
    times: ComputeTimes,
}

/// The facts of a written `result`.
fn done_facts(result: &Image, c: &Computed, decode_ms: f64, encode: Instant) -> Done {
    let seconds = c.times.kernel_ms.unwrap_or(c.times.compute_ms) / 1e3;
    Done {
        width: result.width(),
        height: result.height(),
        channels: result.channels(),
        dtype: result.dtype().suffix(),
        strips: c.strips,
        decode_ms,
        compute: c.times,
        encode_ms: ms_since(encode),
        gb_per_s: (c.input_bytes + result.byte_len()) as f64 / seconds / 1e9,
    }
}
