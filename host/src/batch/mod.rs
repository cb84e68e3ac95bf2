//! Batches of image files (planned by [`inputs`]): runs the pipeline of decoding
//! threads, the convolution engines (one per GPU, each reusing its device buffers, or the CPU) in
//! strips when the image exceeds the memory budget or there are several GPUs, and encoding
//! threads; one bad file fails alone.

pub mod inputs;
mod outcome;
pub mod shard;
pub mod stream;

pub use crate::engine::runner::{Choice, ComputeTimes, Convolved, Counts, Engine, Settings};
pub use outcome::{Done, JSON_SCHEMA, Outcome, Status, Summary, summarize};

use crate::engine::fault::Stage;
use crate::engine::recycle;
use ferroconv::io::files::{self, FileError, shown};
use ferroconv::{Image, Result, io::interrupt};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle};
use inputs::Item;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError, mpsc};
use std::time::{Duration, Instant};

/// An image on its way from a decoder to an encoder.
struct Decoded {
    index: usize,
    /// The image's pages (one but for a multi-page TIFF); after the convolution, the results.
    image: std::result::Result<Vec<Image>, String>,
    /// The input's metadata, for its result.
    metadata: files::Metadata,
    decode_ms: f64,
}

fn ms_since(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1e3
}

/// One input's pages as the engines take them, and its metadata.
type DecodedPages = (Vec<Image>, files::Metadata);

/// Decodes (and converts) one input's pages, with its metadata: to `f32` counts for results in
/// counts. A constant border the type filtered cannot hold (the file's, or `--dtype`'s; for
/// counts the file's, whose levels they are) fails the input.
fn decode(item: &Item, s: &Settings) -> std::result::Result<DecodedPages, String> {
    let options = files::ReadOptions {
        max_bytes: s.max_image_bytes,
        keep_orientation: s.keep_orientation,
        page: s.page,
    };
    // A result of one page: a multi-page TIFF is refused before any page is decoded.
    let one_page = files::Format::of(&item.output) != Some(files::Format::Tiff);
    let read = if one_page {
        files::read_with_metadata(&item.input, &s.raw, &options).map(|(page, m)| (vec![page], m))
    } else {
        files::read_pages(&item.input, &s.raw, &options)
    };
    let (pages, mut metadata) = read.map_err(|e| match e {
        FileError::MultiPage { pages, .. } => format!(
            "{}: a multi-page TIFF of {pages} pages, and {} holds one page: give a .tif result, or --page N \
             (0-based) for page N",
            shown(&item.input),
            shown(&item.output)
        ),
        e => e.to_string(),
    })?;
    if s.dtype.is_some_and(|d| pages.iter().any(|p| p.dtype() != d)) {
        // Converted samples keep no maxval of the file's.
        metadata.pnm_maxval = None;
    }
    for page in &pages {
        s.border
            .check(s.dtype.unwrap_or(page.dtype()))
            .map_err(|e| format!("{}: {e}", shown(&item.input)))?;
    }
    if s.counts.is_some() && s.encoding.int16 && pages.iter().any(|p| p.dtype() == ferroconv::DType::F32) {
        return Err(format!(
            "{}: has f32 samples, and 16-bit signed results take 8- and 16-bit images: use --out-dtype f32",
            shown(&item.input)
        ));
    }
    let pages = pages
        .into_iter()
        .map(|image| match (s.counts, s.dtype) {
            (Some(_), _) => files::to_counts(image),
            (None, Some(d)) => files::convert(image, d),
            (None, None) => image,
        })
        .collect();
    Ok((pages, metadata))
}

/// The progress bar's look: bar, images done of all, images per second (one decimal), ETA.
pub fn progress_style() -> ProgressStyle {
    ProgressStyle::with_template("{bar:40} {pos}/{len} images  {rate}  ETA {eta}")
        .expect("a valid template")
        .with_key("rate", |state: &ProgressState, w: &mut dyn std::fmt::Write| {
            let _ = write!(w, "{:.1}/s", state.per_sec());
        })
}

/// Processes every item: `threads` decoding and as many encoding threads run while the engines
/// convolve on this thread (several GPU engines share each image: see
/// [`Engine::convolve_spread`]). `progress` counts finished images; it starts hidden and is drawn on
/// stderr after a second if `show_progress`. `report` sees each image's outcome (written, failed
/// or discarded) as soon as it is final. A device fault (a failed launch or copy, or an injected
/// one) stops the batch cleanly: the failing image fails, results already computed are still
/// written, and the images not yet convolved are reported as not processed (without a call to
/// `report`). A signal ([`ferroconv::io::interrupt`]) stops it too: no new image is decoded or
/// convolved, the results being written are discarded (no partial or temporary file is left),
/// and the rest are not processed. Returns one outcome per item, in order.
pub fn run(
    items: &[Item],
    settings: &Settings,
    engines: &mut [Engine<'_>],
    threads: usize,
    progress: &ProgressBar,
    show_progress: bool,
    report: &(dyn Fn(&Outcome) + Sync),
) -> Vec<Outcome> {
    let threads = threads.max(1);
    // Big binary PGM and PPM files are streamed in strips on this thread, first; the others
    // are decoded whole.
    let (streamed, whole): (Vec<usize>, Vec<usize>) = (0..items.len())
        .partition(|&i| stream::rows_of(&items[i], settings, stream::min_bytes(settings)).is_some());
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
    // Convolves one decoded image with `convolve`, hands it to the encoders; false when
    // the batch must stop (a device fault, a signal, or no encoder left).
    let compute = |mut decoded: Decoded,
                   convolve: &mut dyn FnMut(&Image, Option<Stage>) -> Result<Convolved>,
                   computed_tx: &mpsc::SyncSender<(Decoded, Computed)>|
     -> bool {
        let input = &items[decoded.index].input;
        let (computed, stop) = convolve_pages(&mut decoded, input, settings, convolve);
        if stop {
            stopped_by_fault.store(true, Ordering::Relaxed);
        }
        // An image convolved when the signal came is not handed to an encoder.
        !(interrupt::requested() || computed_tx.send((decoded, computed)).is_err() || stop)
    };
    // The decoded images' receiver, shared by the compute threads; taken (dropped) when the batch
    // stops, so the decoders' sends fail and they end.
    let decoded_rx = Mutex::new(Some(decoded_rx));
    let next_decoded = || {
        let rx = decoded_rx.lock().unwrap_or_else(PoisonError::into_inner);
        rx.as_ref().and_then(|rx| rx.recv().ok())
    };
    let close = || drop(decoded_rx.lock().unwrap_or_else(PoisonError::into_inner).take());
    std::thread::scope(|scope| {
        scope.spawn(move || {
            if show_progress && stop_rx.recv_timeout(Duration::from_secs(1)).is_err() {
                progress.set_draw_target(ProgressDrawTarget::stderr());
                progress.enable_steady_tick(Duration::from_millis(200));
            }
        });
        for _ in 0..threads {
            let decoded_tx = decoded_tx.clone();
            let (next, whole) = (&next, &whole);
            scope.spawn(move || {
                while !interrupt::requested() {
                    let Some(&index) = whole.get(next.fetch_add(1, Ordering::Relaxed)) else {
                        break;
                    };
                    let item = &items[index];
                    let t = Instant::now();
                    let (image, metadata) = match decode(item, settings) {
                        Ok((image, metadata)) => (Ok(image), metadata),
                        Err(e) => (Err(e), files::Metadata::default()),
                    };
                    let decoded = Decoded {
                        index,
                        image,
                        metadata,
                        decode_ms: ms_since(t),
                    };
                    if decoded_tx.send(decoded).is_err() {
                        break;
                    }
                }
            });
        }
        drop(decoded_tx);
        // The GPU engines fill results given back by the encoders (`recycle`).
        let recycling = engines.iter().any(|e| matches!(e, Engine::Gpu { .. }));
        for _ in 0..threads {
            let (computed_rx, done_tx) = (&computed_rx, done_tx.clone());
            scope.spawn(move || {
                loop {
                    let next = computed_rx.lock().expect("no encoder panics").recv();
                    let Ok((decoded, computed)) = next else { break };
                    let item = &items[decoded.index];
                    let (status, done, error) = write_result(&decoded, &computed, item, settings);
                    let outcome = finish(decoded.index, status, done, error);
                    let _ = done_tx.send((decoded.index, outcome));
                    if let (true, Ok(pages)) = (recycling, decoded.image) {
                        pages.into_iter().for_each(recycle::give_back);
                    }
                }
            });
        }
        let fault = stream::run_each(&streamed, items, settings, engines, |index, r| {
            let _ = done_tx.send((index, finish(index, r.status, r.done, r.error)));
        });
        stopped_by_fault.fetch_or(fault, Ordering::Relaxed);
        drop(done_tx);
        if stopped_by_fault.load(Ordering::Relaxed) {
            close();
        } else if engines.len() > 1 && whole.len() > 1 {
            // Several engines (GPUs) and several images: each engine convolves whole images on its
            // own thread, taking the next decoded one when it is free. The first to stop (no image
            // left, a device fault, a signal) closes the queue, which ends the decoders and the
            // others. (The CLI makes several engines only of GPUs; tests use CPU engines too.)
            let workers: Vec<_> = engines
                .iter_mut()
                .map(|engine| {
                    let (computed_tx, compute) = (computed_tx.clone(), &compute);
                    let (next_decoded, close, stopped_by_fault) = (&next_decoded, &close, &stopped_by_fault);
                    scope.spawn(move || {
                        if let Engine::Gpu { gpu, .. } = engine
                            && let Err(e) = gpu.make_current()
                        {
                            // A GPU that cannot be used is a device fault: the batch stops.
                            progress.suspend(|| eprintln!("error: GPU {}: {e}", gpu.info().ordinal));
                            stopped_by_fault.store(true, Ordering::Relaxed);
                        } else {
                            while !interrupt::requested() && !stopped_by_fault.load(Ordering::Relaxed) {
                                let Some(decoded) = next_decoded() else { break };
                                let mut convolve =
                                    |image: &Image, fault| engine.convolve(image, settings, fault);
                                if !compute(decoded, &mut convolve, &computed_tx) {
                                    break;
                                }
                            }
                        }
                        close();
                    })
                })
                .collect();
            for worker in workers {
                if let Err(panic) = worker.join() {
                    std::panic::resume_unwind(panic);
                }
            }
        } else {
            // One engine (a GPU or the CPU), or one image: its strips are spread over the GPUs.
            let mut convolve =
                |image: &Image, fault| Engine::convolve_spread(engines, image, settings, fault);
            while let Some(decoded) = next_decoded() {
                if interrupt::requested() || !compute(decoded, &mut convolve, &computed_tx) {
                    break;
                }
            }
            close();
        }
        drop(computed_tx);
        let _ = stop_tx.send(());
    });
    outcomes_by_item(items, done_rx, stopped_by_fault.load(Ordering::Relaxed))
}

/// What the engine reports about one image.
#[derive(Default)]
struct Computed {
    input_bytes: usize,
    strips: usize,
    times: ComputeTimes,
}

/// The facts of a written result of `pages` (the first page's size and layout, and every
/// page's size).
fn done_facts(pages: &[Image], c: &Computed, decode_ms: f64, encode: Instant) -> Done {
    let seconds = c.times.kernel_ms.unwrap_or(c.times.compute_ms) / 1e3;
    let first = &pages[0];
    let output_bytes: usize = pages.iter().map(Image::byte_len).sum();
    Done {
        width: first.width(),
        height: first.height(),
        channels: first.channels(),
        dtype: first.dtype().suffix(),
        pages: pages.len(),
        page_sizes: pages.iter().map(|p| [p.width(), p.height()]).collect(),
        strips: c.strips,
        decode_ms,
        compute: c.times,
        encode_ms: ms_since(encode),
        gb_per_s: (c.input_bytes + output_bytes) as f64 / seconds / 1e9,
    }
}

/// Convolves `decoded`'s pages with `convolve`, page by page (the times and strips add up, the
/// variant is the first page's); a failure becomes the image's error, naming `input`. Returns
/// what the engine reported, and whether the batch must stop (a device fault).
fn convolve_pages(
    decoded: &mut Decoded,
    input: &Path,
    settings: &Settings,
    convolve: &mut dyn FnMut(&Image, Option<Stage>) -> Result<Convolved>,
) -> (Computed, bool) {
    let mut computed = Computed::default();
    let mut stop = false;
    if let Ok(pages) = &decoded.image {
        computed.input_bytes = pages.iter().map(Image::byte_len).sum();
        let fault = settings.inject.and_then(|i| i.at(decoded.index + 1));
        // Page by page; the times and strips add up, the variant is the first page's.
        let mut results: Vec<Image> = Vec::with_capacity(pages.len());
        let convolved = pages.iter().try_for_each(|page| {
            let (mut out, strips, times) = convolve(page, fault)?;
            if let Some(counts) = settings.counts {
                counts.apply(&mut out);
            }
            computed.strips += strips;
            computed.times = if results.is_empty() {
                times
            } else {
                computed.times.add(&times)
            };
            results.push(out);
            Ok::<(), ferroconv::Error>(())
        });
        decoded.image = match convolved {
            Ok(()) => Ok(results),
            Err(e) => {
                stop = e.is_device_fault();
                let error = FileError::Image {
                    path: input.to_path_buf(),
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
    (computed, stop)
}

/// Writes `decoded`'s results to `item`'s output (or reports why there are none): the image's
/// status, its facts when written, and the error otherwise.
fn write_result(
    decoded: &Decoded,
    computed: &Computed,
    item: &Item,
    settings: &Settings,
) -> (Status, Option<Done>, Option<String>) {
    match &decoded.image {
        Ok(pages) => {
            let t = Instant::now();
            match files::write_pages(pages, &item.output, &settings.encoding, &decoded.metadata) {
                Ok(()) => {
                    let done = done_facts(pages, computed, decoded.decode_ms, t);
                    (Status::Written, Some(done), None)
                }
                Err(FileError::Interrupted { signal, .. }) => {
                    let why = format!(
                        "{}: discarded while being written: interrupted by {signal}",
                        shown(&item.input)
                    );
                    (Status::Discarded, None, Some(why))
                }
                Err(e) => (Status::Failed, None, Some(e.to_string())),
            }
        }
        Err(e) => (Status::Failed, None, Some(e.clone())),
    }
}

/// The outcomes `done` reported, in the items' order; an item without one was not processed
/// (because of a device fault where `stopped_by_fault`, else a signal, or the batch's stop).
fn outcomes_by_item(
    items: &[Item],
    done: mpsc::Receiver<(usize, Outcome)>,
    stopped_by_fault: bool,
) -> Vec<Outcome> {
    let mut outcomes: Vec<Option<Outcome>> = vec![None; items.len()];
    for (i, o) in done {
        outcomes[i] = Some(o);
    }
    let why_not = if stopped_by_fault {
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
                error: Some(format!("{}: not processed: {why_not}", shown(&item.input))),
            })
        })
        .collect()
}
