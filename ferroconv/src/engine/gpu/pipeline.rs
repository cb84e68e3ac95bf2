//! Whole-image convolution with the copies overlapped: the image, in page-locked host memory, is
//! split into strips of rows that go round-robin over several streams, so one strip's copy in, the
//! kernels and another strip's copy out run at the same time on the copy engines and the SMs.
//!
//! The strips are those of [`crate::engine::strips`]; each strip's input rows are clipped to the
//! image (`Strip::clipped`) and copied straight from the pinned image. Clipping happens only at
//! the image's own top and bottom, where the kernel applies the border itself, so every kept output
//! row is the one the whole image gives. The `wrap` border needs the opposite edge's rows, so it
//! runs as one strip.

use super::{DeviceJob, Gpu, Kernel, Problem, time_on};
use crate::engine::strips::{self, Strip};
use crate::error::{check, cuda};
use crate::model::image::{Image, Samples};
use crate::{Border, Error, Result, stats};
use cust::event::{Event, EventFlags};
use cust::memory::{DeviceBuffer, LockedBuffer};
use cust::stream::{Stream, StreamFlags, StreamWaitEventFlags};

/// Splits `out_height` output rows into `count` strips (fewer if there are fewer rows; one for
/// the `wrap` border, whose halo rows are the opposite edge's): the strips of
/// [`crate::engine::strips`], each copied in as its input rows clipped to the image.
pub(crate) fn plan(out_height: usize, radius: usize, border: Border, count: usize) -> Vec<Strip> {
    let count = if border == Border::Wrap { 1 } else { count };
    strips::split(out_height, count, radius, border)
}

/// Times of one pipelined configuration, in ms (CUDA events).
#[derive(Clone, Copy, Debug)]
pub struct Timings {
    /// The whole pipelined convolution, first copy in to last copy out: median of the runs.
    pub pipelined: f64,
    /// One whole-image copy in, from the same pinned memory, alone: median.
    pub h2d: f64,
    /// One whole-image copy out, to the same pinned memory, alone: median.
    pub d2h: f64,
    /// Both copies at once, on two streams: the copy engines' and the link's duplex limit.
    pub duplex: f64,
}

impl Timings {
    /// The pipelined time over the slower of the two copies (1.0: the copies hide everything).
    pub fn ratio(&self) -> f64 {
        self.pipelined / self.h2d.max(self.d2h)
    }
}

/// A ready pipeline for one problem: pinned input and output images, one stream and one
/// strip-sized device job per stream.
pub struct Pipeline {
    strips: Vec<Strip>,
    // Field order is drop order: jobs and streams before the pinned memory they copy.
    jobs: Vec<DeviceJob>,
    streams: Vec<Stream>,
    host_in: LockedBuffer<u8>,
    host_out: LockedBuffer<u8>,
    in_row: usize,
    in_height: usize,
    out_row: usize,
    out_size: (usize, usize, usize),
    dtype: crate::DType,
}

impl Pipeline {
    /// Plans `strips` strips of `problem` over `streams` streams and allocates everything.
    pub fn new(
        gpu: &Gpu,
        problem: &Problem,
        variant: crate::engine::gpu::Variant,
        strips: usize,
        streams: usize,
    ) -> Result<Self> {
        let (ow, oh) = problem.output_size()?;
        let r = problem.filter.radius();
        let strips = plan(oh, r, problem.border, strips);
        let tallest = strips
            .iter()
            .map(|s| s.clipped(problem.height).len())
            .max()
            .unwrap_or(1);
        let (ch, size) = (problem.channels, problem.dtype.size());
        let strip_problem = Problem {
            height: tallest,
            ..problem.clone()
        };
        let jobs = (0..streams.max(1))
            .map(|_| gpu.alloc(variant, &strip_problem))
            .collect::<Result<Vec<_>>>()?;
        if jobs[0].linear_buffers().is_none() {
            return Err(Error::Mismatch(format!(
                "the {} variant cannot be pipelined",
                variant.name()
            )));
        }
        let streams = (0..jobs.len())
            .map(|_| Stream::new(StreamFlags::NON_BLOCKING, None).map_err(cuda("create a stream")))
            .collect::<Result<Vec<_>>>()?;
        let pinned = |len| {
            // SAFETY: written (from the image, or by the copies out) before anything reads it.
            unsafe { LockedBuffer::<u8>::uninitialized(len) }.map_err(cuda("allocate pinned memory"))
        };
        Ok(Self {
            host_in: pinned(problem.width * problem.height * ch * size)?,
            host_out: pinned(ow * oh * ch * size)?,
            in_row: problem.width * ch * size,
            in_height: problem.height,
            out_row: ow * ch * size,
            out_size: (ow, oh, ch),
            dtype: problem.dtype,
            strips,
            jobs,
            streams,
        })
    }

    /// Copies `image` into the pinned input (host memory only; not part of any timing).
    pub fn load(&mut self, image: &Image) -> Result<()> {
        let bytes = image.samples().as_bytes();
        if bytes.len() != self.host_in.len() {
            return Err(Error::Mismatch("the image does not match the pipeline".into()));
        }
        self.host_in.copy_from_slice(bytes);
        Ok(())
    }

    /// Queues the whole pipelined convolution and waits for it; returns its GPU time in ms,
    /// from an event before the first copy in to one after the last copy out.
    pub(crate) fn run(&mut self, gpu: &Gpu, kernel: &Kernel) -> Result<f64> {
        let (jobs, strips) = (&self.jobs, &self.strips);
        let (host_in, host_out) = (&self.host_in, &mut self.host_out);
        let (in_row, out_row, in_height) = (self.in_row, self.out_row, self.in_height);
        across(&self.streams, |streams| {
            for (n, strip) in strips.iter().enumerate() {
                let lane = n % jobs.len();
                let (stream, job) = (&streams[lane], &jobs[lane]);
                let (input, output) = job.linear_buffers().expect("checked in new");
                // The job's input holds the tallest strip; its output the strip's result, of
                // which rows `skip..skip + rows` are kept.
                let rows = strip.clipped(in_height);
                copy_in(input, &host_in[rows.start * in_row..rows.end * in_row], stream)?;
                gpu.launch_rows(kernel, job, rows.len(), stream.as_inner())?;
                let dst = &mut host_out[strip.rows.start * out_row..strip.rows.end * out_row];
                copy_out(dst, output + (strip.skip_clipped() * out_row) as u64, stream)?;
            }
            Ok(())
        })
    }

    /// The result of the last `run`.
    pub fn output(&self) -> Result<Image> {
        let (w, h, c) = self.out_size;
        let mut samples = Samples::filled(self.dtype, w * h * c);
        samples.as_bytes_mut().copy_from_slice(&self.host_out);
        Image::new(w, h, c, samples)
    }

    /// Times the copies alone through the same pinned memory (the whole image in, the whole
    /// result out, and both at once on two streams), then the pipeline; `runs` runs each, the
    /// pipeline after one warm-up. The pipeline's result is left in place.
    pub fn time(&mut self, gpu: &Gpu, kernel: &Kernel, runs: usize) -> Result<Timings> {
        let median = |t: Option<stats::Timing>| t.map_or(f64::NAN, |t| t.median);
        let alloc = |len| {
            // SAFETY: only a copy target and source; never read as values.
            unsafe { DeviceBuffer::<u8>::uninitialized(len) }.map_err(cuda("allocate the copy probe"))
        };
        let (a, b) = (alloc(self.host_in.len())?, alloc(self.host_out.len())?);
        let (a, b) = (a.as_device_ptr().as_raw(), b.as_device_ptr().as_raw());
        let streams = &self.streams;
        let (host_in, host_out) = (&self.host_in, &mut self.host_out);
        let h2d = median(stats::repeat(runs, || {
            across(streams, |s| copy_in(a, host_in, &s[0]))
        })?);
        let d2h = median(stats::repeat(runs, || {
            across(streams, |s| copy_out(host_out, b, &s[0]))
        })?);
        let duplex = median(stats::repeat(runs, || {
            across(streams, |s| {
                copy_in(a, host_in, &s[0])?;
                copy_out(host_out, b, &s[1 % s.len()])
            })
        })?);
        // Last, so the pinned output holds the pipeline's result, not the copy probe's bytes.
        self.run(gpu, kernel)?;
        let pipelined = median(stats::repeat(runs, || self.run(gpu, kernel))?);
        Ok(Timings {
            pipelined,
            h2d,
            d2h,
            duplex,
        })
    }

    /// The number of strips.
    pub fn strips(&self) -> usize {
        self.strips.len()
    }
}

/// Runs `work`, which queues GPU work on `streams`, between a start event every stream waits for
/// and a stop event after every stream's work; waits for the stop and returns the time in ms.
fn across(streams: &[Stream], work: impl FnOnce(&[Stream]) -> Result<()>) -> Result<f64> {
    let event = || Event::new(EventFlags::DEFAULT).map_err(cuda("create an event"));
    let first = &streams[0];
    time_on(first, || {
        for stream in &streams[1..] {
            // `wait_event` consumes its event: give it its own, recorded after the start event.
            let started = event()?;
            started.record(first).map_err(cuda("record an event"))?;
            stream
                .wait_event(started, StreamWaitEventFlags::DEFAULT)
                .map_err(cuda("order the streams"))?;
        }
        work(streams)?;
        for stream in &streams[1..] {
            let done = event()?;
            done.record(stream).map_err(cuda("record an event"))?;
            first
                .wait_event(done, StreamWaitEventFlags::DEFAULT)
                .map_err(cuda("order the streams"))?;
        }
        Ok(())
    })
}

/// Queues a copy of pinned `src` to device address `dst` on `stream`.
///
/// Callers keep `src` alive and unmodified, and `dst` valid for `src.len()` bytes, until the
/// stream is synchronized ([`across`] does before it returns).
fn copy_in(dst: u64, src: &[u8], stream: &Stream) -> Result<()> {
    // SAFETY: the caller's contract above.
    check("copy to the GPU", unsafe {
        cust::sys::cuMemcpyHtoDAsync_v2(dst, src.as_ptr().cast(), src.len(), stream.as_inner())
    })
}

/// Queues a copy from device address `src` to pinned `dst` on `stream`; the contract of
/// [`copy_in`], the other way.
fn copy_out(dst: &mut [u8], src: u64, stream: &Stream) -> Result<()> {
    // SAFETY: the caller's contract of `copy_in`.
    check("copy from the GPU", unsafe {
        cust::sys::cuMemcpyDtoHAsync_v2(dst.as_mut_ptr().cast(), src, dst.len(), stream.as_inner())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{DType, Filter, engine::cpu};

    #[test]
    fn strips_cover_every_output_row_once() {
        for border in Border::CHECKED {
            for (h, r, n) in [(100, 2, 7), (5, 15, 4), (1, 0, 3), (64, 15, 16), (33, 1, 33)] {
                let Ok((_, oh)) = border.output_size(4, h, r) else {
                    continue;
                };
                let strips = plan(oh, r, border, n);
                let rows: Vec<usize> = strips.iter().flat_map(|s| s.rows.clone()).collect();
                assert_eq!(rows, (0..oh).collect::<Vec<_>>(), "{border:?} h={h} r={r} n={n}");
                for s in &strips {
                    let input = s.clipped(h);
                    assert!(
                        input.end <= h && s.skip_clipped() + s.rows.len() <= input.len(),
                        "{s:?}"
                    );
                }
                if border == Border::Wrap {
                    assert_eq!(strips.len(), 1);
                }
            }
        }
    }

    /// The plan is exact: convolving each strip's input rows on the CPU and keeping its rows
    /// gives the whole image's result bit for bit, for every border.
    #[test]
    fn strips_give_the_whole_image_result() {
        let image = Image::random(9, 23, 3, DType::F32, 5).unwrap();
        for border in Border::CHECKED {
            for k in [1, 3, 7] {
                let filter = Filter::random(k, k as u64).unwrap();
                let whole = cpu::sequential(&image, &filter, border, false).unwrap();
                let (ow, oh) = border.output_size(9, 23, k / 2).unwrap();
                let row = ow * 3 * 4;
                let mut out = vec![0u8; row * oh];
                for s in plan(oh, k / 2, border, 5) {
                    let input = s.clipped(23);
                    let bytes = &image.samples().as_bytes()[input.start * 27 * 4..input.end * 27 * 4];
                    let mut samples = Samples::filled(DType::F32, bytes.len() / 4);
                    samples.as_bytes_mut().copy_from_slice(bytes);
                    let strip = Image::new(9, input.len(), 3, samples).unwrap();
                    let result = cpu::sequential(&strip, &filter, border, false).unwrap();
                    let skip = s.skip_clipped();
                    out[s.rows.start * row..s.rows.end * row].copy_from_slice(
                        &result.samples().as_bytes()[skip * row..(skip + s.rows.len()) * row],
                    );
                }
                assert!(out == whole.samples().as_bytes(), "{border:?} k={k}");
            }
        }
    }
}
