//! Big binary PGM and PPM files streamed through the engines in strips of rows: a reader thread
//! reads each strip (its rows and the filter's halo, rows past the edges made by the border), this
//! thread convolves it (over every GPU where there are several), a writer thread appends its
//! output rows to the result; one strip waits between each two. So the memory in use is a few
//! strips, not the image, and reading, filtering and writing overlap. Every output row comes
//! out as the whole image gives it: the variant is the one chosen for the whole image.

use super::inputs::Item;
use super::{ComputeTimes, Done, Engine, Settings, Status, ms_since};
use crate::engine::fault::Stage;
use crate::engine::recycle;
use ferroconv::engine::strips::{self, Strip};
use ferroconv::io::files::{FileError, Format, PnmRows, PnmWriter, shown};
use ferroconv::io::interrupt;
use ferroconv::model::image::Samples;
use ferroconv::{DType, Image};
use std::sync::mpsc;
use std::time::Instant;

/// Image bytes from which a binary PGM or PPM input is streamed; smaller ones are decoded whole
/// unless they take more than `--max-image-mem` ([`min_bytes`]).
const STREAM_BYTES: u64 = 256 << 20;
/// Bytes of a strip's output rows, at most (an eighth of `--max-image-mem` where that is less;
/// at least 64 rows a strip).
const STRIP_BYTES: u64 = 32 << 20;

/// The bytes of samples from which a binary PGM or PPM input is streamed under `s`: 256 MiB, or
/// past `--max-image-mem` where that is less (an image that bound refuses whole is streamed).
pub fn min_bytes(s: &Settings) -> u64 {
    STREAM_BYTES.min(s.max_image_bytes.saturating_add(1))
}

/// `item`'s input as rows, where it is streamed: a binary PGM or PPM file (maxval 255 or 65535)
/// of at least `min_bytes` of samples whose result is a PGM or PPM (not PAM) of the input's
/// sample type (no `--dtype` to another, no results in counts). `None` for any other input, and
/// for one that cannot be opened (decoding it whole says why).
pub fn rows_of(item: &Item, s: &Settings, min_bytes: u64) -> Option<PnmRows> {
    let ext = item.output.extension()?.to_str()?.to_ascii_lowercase();
    if Format::of(&item.output) != Some(Format::Pnm)
        || ext == "pam"
        || s.counts.is_some()
        || s.page.is_some_and(|p| p > 0)
    {
        return None;
    }
    let rows = PnmRows::open(&item.input).ok()??;
    let (w, h, ch, dtype) = rows.layout();
    let bytes = (w * h * ch * dtype.size()) as u64;
    (bytes >= min_bytes && s.dtype.is_none_or(|d| d == dtype)).then_some(rows)
}

/// What streaming one file came to: its status, facts and error as [`super::run`] reports them,
/// and whether the batch must stop (a device fault).
pub struct Streamed {
    pub status: Status,
    pub done: Option<Done>,
    pub error: Option<String>,
    pub stop: bool,
}

impl Streamed {
    /// A failure of the file alone, with `error`.
    pub fn failed(error: String) -> Streamed {
        Streamed {
            status: Status::Failed,
            done: None,
            error: Some(error),
            stop: false,
        }
    }
}

/// Streams the items at `indices` of `items` one after another, until a signal or a device
/// fault; `report` gets each one's index and outcome. Returns whether a device fault stopped
/// them.
pub fn run_each(
    indices: &[usize],
    items: &[Item],
    s: &Settings,
    engines: &mut [Engine<'_>],
    mut report: impl FnMut(usize, Streamed),
) -> bool {
    for &index in indices {
        if interrupt::requested() {
            break;
        }
        let item = &items[index];
        let fault = s.inject.and_then(|i| i.at(index + 1));
        let r = match rows_of(item, s, 0) {
            Some(rows) => run(rows, item, s, engines, fault),
            None => Streamed::failed(format!("{}: changed while the batch ran", shown(&item.input))),
        };
        let stop = r.stop;
        report(index, r);
        if stop {
            return true;
        }
    }
    false
}

/// Streams `rows` (`item`'s input) through `engines` into `item`'s output. `fault` makes each
/// strip's convolution fail at that stage (fault injection). A signal stops it between strips;
/// on any failure or a signal no result file is left.
pub fn run(
    rows: PnmRows,
    item: &Item,
    s: &Settings,
    engines: &mut [Engine<'_>],
    fault: Option<Stage>,
) -> Streamed {
    let (w, h, ch, dtype) = rows.layout();
    if let Err(e) = s.border.check(dtype) {
        return Streamed::failed(format!("{}: {e}", shown(&item.input)));
    }
    let (ow, oh) = match s.filter.output_size(s.border, w, h) {
        Ok(size) => size,
        Err(e) => return Streamed::failed(format!("{}: {e}", shown(&item.input))),
    };
    let writer = match PnmWriter::create(&item.output, ow, oh, ch, dtype) {
        Ok(writer) => writer,
        Err(e) => return Streamed::failed(e.to_string()),
    };
    let strip_bytes = STRIP_BYTES.min(s.max_image_bytes / 8) as usize;
    let per_strip = (strip_bytes / (ow * ch * dtype.size())).max(64);
    let plan = strips::split(oh, oh.div_ceil(per_strip), s.filter.radius(), s.border);
    let recycling = engines.iter().any(|e| matches!(e, Engine::Gpu { .. }));
    let (pipeline, times) = std::thread::scope(|scope| {
        let (read_tx, read_rx) = mpsc::sync_channel::<Result<Image, FileError>>(1);
        let (out_tx, out_rx) = mpsc::sync_channel::<(&Strip, Image)>(1);
        // Convolved strips' samples, back to the reader for later strips.
        let (used_tx, used_rx) = mpsc::channel::<Samples>();
        let plan = &plan;
        let reader = scope.spawn(move || read_strips(rows, s, plan, &read_tx, &used_rx));
        let writer = scope.spawn(move || write_strips(writer, out_rx, recycling));
        let mut computed: Option<(ComputeTimes, usize)> = None;
        let mut error = None;
        for (strip, read) in plan.iter().zip(read_rx.iter()) {
            let convolved = read.map_err(|e| (e.to_string(), false)).and_then(|image| {
                let convolved = Engine::convolve_spread_band(engines, &image, h, s, fault);
                let _ = used_tx.send(image.into_samples());
                convolved.map_err(|e| {
                    let stop = e.is_device_fault();
                    let e = FileError::Image {
                        path: item.input.clone(),
                        source: e,
                    };
                    (
                        if stop {
                            format!("{e}; the batch stops here")
                        } else {
                            e.to_string()
                        },
                        stop,
                    )
                })
            });
            match convolved {
                Ok((out, n, t)) => {
                    computed = Some(computed.map_or((t, n), |(all, m)| (all.add(&t), m + n)));
                    if interrupt::requested() || out_tx.send((strip, out)).is_err() {
                        break;
                    }
                }
                Err(e) => {
                    error = Some(e);
                    break;
                }
            }
        }
        drop((out_tx, read_rx, used_tx));
        let read_ms = reader.join().expect("the reader does not panic");
        let written = writer.join().expect("the writer does not panic");
        ((read_ms, written, error), computed)
    });
    let (read_ms, written, error) = pipeline;
    if let Some((e, stop)) = error {
        return Streamed {
            stop,
            ..Streamed::failed(e)
        };
    }
    match written {
        Ok(write_ms) => {
            let (compute, strips) = times.expect("every strip convolved");
            let seconds = compute.kernel_ms.unwrap_or(compute.compute_ms) / 1e3;
            let bytes = (w * h + ow * oh) * ch * dtype.size();
            let done = Done {
                width: ow,
                height: oh,
                channels: ch,
                dtype: dtype.suffix(),
                pages: 1,
                page_sizes: vec![[ow, oh]],
                strips,
                decode_ms: read_ms,
                compute,
                encode_ms: write_ms,
                gb_per_s: bytes as f64 / seconds / 1e9,
            };
            Streamed {
                status: Status::Written,
                done: Some(done),
                error: None,
                stop: false,
            }
        }
        Err(_) if interrupt::requested() => {
            let signal = interrupt::signal().map_or_else(|| "a signal".to_string(), interrupt::name);
            let why = format!(
                "{}: discarded while being written: interrupted by {signal}",
                shown(&item.input)
            );
            Streamed {
                status: Status::Discarded,
                ..Streamed::failed(why)
            }
        }
        Err(e) => Streamed::failed(e.to_string()),
    }
}

/// Reads the strip images of `plan` into `tx` in order, until one fails, the receiver goes or
/// a signal comes, into the samples of convolved strips from `used` where there are; returns the
/// time spent reading (ms).
fn read_strips(
    mut rows: PnmRows,
    s: &Settings,
    plan: &[Strip],
    tx: &mpsc::SyncSender<Result<Image, FileError>>,
    used: &mpsc::Receiver<Samples>,
) -> f64 {
    let mut ms = 0.0;
    let layout: (usize, usize, usize, DType) = rows.layout();
    for strip in plan {
        if interrupt::requested() {
            break;
        }
        let t = Instant::now();
        let reuse = used.try_recv().ok();
        let image = strips::strip_of_rows(layout, s.border, strip, reuse, |r, dst| rows.read(r, dst));
        ms += ms_since(t);
        let failed = image.is_err();
        if tx.send(image).is_err() || failed {
            break;
        }
    }
    ms
}

/// Appends each strip's output rows from `rx` to `writer`, and completes the result once they
/// stop coming (an error where rows are missing, leaving no file); gives the strips' samples back
/// for later results where `recycling`. Returns the time spent writing (ms).
fn write_strips(
    mut writer: PnmWriter,
    rx: mpsc::Receiver<(&Strip, Image)>,
    recycling: bool,
) -> Result<f64, FileError> {
    let mut ms = 0.0;
    for (strip, out) in rx {
        let t = Instant::now();
        writer.write(&out, strip.skip()..strip.skip() + strip.rows.len())?;
        ms += ms_since(t);
        if recycling {
            recycle::give_back(out);
        }
    }
    let t = Instant::now();
    writer.finish()?;
    Ok(ms + ms_since(t))
}
