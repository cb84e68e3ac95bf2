//! The host-memory path of a plan: the caller's pageable rows go to the device through a ring of
//! page-locked staging slots, so copying one slot on the CPU overlaps the DMA of the previous one
//! (and the same on the way back); the rows of a slot are copied by several threads.

use super::view::{ImageView, ImageViewMut, Pixel};
use crate::Result;
use crate::engine::cpu::pool;
use crate::error::{check, cuda};
use cust::event::{Event, EventFlags};
use cust::memory::{DeviceBuffer, LockedBuffer};
use cust::stream::{Stream, StreamFlags};
use rayon::prelude::*;

/// Staging slots in the ring.
const SLOTS: usize = 4;
/// Bytes of a slot: at most this, at least one row, else a quarter of the image.
const SLOT_MAX: usize = 8 << 20;
/// Bytes below which a slot is copied by one thread (waking the others costs more).
const PARALLEL_MIN: usize = 1 << 20;
/// Bytes each thread copies at a time in a parallel copy (measured on an H100 host with 16
/// cores: 64 KiB tasks copied 8192² u8 in and out in 3.2 ms, 256 KiB tasks in 3.8 ms).
const TASK: usize = 64 << 10;

/// One page-locked slot and the event that marks the last DMA using it as done.
struct Slot {
    buf: LockedBuffer<u8>,
    done: Event,
    busy: bool,
}

/// The plan's device images for host calls, its staging ring and its stream; every buffer grows
/// on demand and is kept for the next call.
pub(super) struct HostPath {
    // Field order is drop order: the stream goes first, then the memory it copied.
    stream: Stream,
    slots: Vec<Slot>,
    /// Timing events of a timed run: before the upload, after it, after the kernel, after the
    /// download (created by the first timed run).
    marks: Option<[Event; 4]>,
    /// An event the stream passed at a known time (ms after [`super::epoch`]): where the marks
    /// lie on the host's clock.
    origin: Option<(Event, f64)>,
    input: DeviceBuffer<u8>,
    output: DeviceBuffer<u8>,
}

/// `buf` with room for `len` bytes: kept if large enough, else replaced (the old one freed first).
pub(super) fn grow_device(buf: &mut DeviceBuffer<u8>, len: usize) -> Result<u64> {
    if buf.len() < len {
        *buf = empty();
        // SAFETY: written by the copies in (input) or a kernel (output) before anything reads it.
        *buf = unsafe { DeviceBuffer::uninitialized(len) }.map_err(cuda("allocate a device image"))?;
    }
    Ok(buf.as_device_ptr().as_raw())
}

/// A buffer of no bytes (no allocation).
pub(super) fn empty() -> DeviceBuffer<u8> {
    // SAFETY: zero bytes: nothing is allocated and nothing can be read.
    unsafe { DeviceBuffer::uninitialized(0) }.expect("a zero-byte buffer allocates nothing")
}

impl HostPath {
    /// An empty path (allocates nothing until the first call).
    pub(super) fn new() -> Result<Self> {
        Ok(Self {
            stream: Stream::new(StreamFlags::NON_BLOCKING, None).map_err(cuda("create a stream"))?,
            slots: Vec::new(),
            marks: None,
            origin: None,
            input: empty(),
            output: empty(),
        })
    }

    /// The stream every host call is queued on.
    pub(super) fn stream(&self) -> &Stream {
        &self.stream
    }

    /// Device images of `in_bytes` and `out_bytes` bytes (addresses), and staging slots of
    /// enough bytes for rows of `row_bytes` bytes.
    pub(super) fn reserve(
        &mut self,
        in_bytes: usize,
        out_bytes: usize,
        row_bytes: usize,
    ) -> Result<(u64, u64)> {
        let input = grow_device(&mut self.input, in_bytes)?;
        let output = grow_device(&mut self.output, out_bytes)?;
        let want = (in_bytes.max(out_bytes) / SLOTS).clamp(row_bytes, SLOT_MAX.max(row_bytes));
        if self.slots.first().is_none_or(|s| s.buf.len() < want) {
            self.stream.synchronize().map_err(cuda("wait for the GPU"))?;
            self.slots.clear();
            for _ in 0..SLOTS {
                self.slots.push(Slot {
                    // SAFETY: a slot is always filled (rows or DMA) before it is read.
                    buf: unsafe { LockedBuffer::uninitialized(want) }
                        .map_err(cuda("allocate pinned memory"))?,
                    done: Event::new(EventFlags::DISABLE_TIMING).map_err(cuda("create an event"))?,
                    busy: false,
                });
            }
        }
        Ok((input, output))
    }

    /// Records timing event `i` on the stream when the run is `timed`.
    pub(super) fn mark(&mut self, timed: bool, i: usize) -> Result<()> {
        if !timed {
            return Ok(());
        }
        if self.marks.is_none() {
            let event = || Event::new(EventFlags::DEFAULT).map_err(cuda("create an event"));
            self.marks = Some([event()?, event()?, event()?, event()?]);
            let origin = event()?;
            origin.record(&self.stream).map_err(cuda("record an event"))?;
            origin.synchronize().map_err(cuda("wait for an event"))?;
            self.origin = Some((origin, super::epoch().elapsed().as_secs_f64() * 1e3));
        }
        let marks = self.marks.as_ref().expect("created above");
        marks[i].record(&self.stream).map_err(cuda("record an event"))
    }

    /// The stage times of the last timed run (its events have all passed: `download` waited).
    pub(super) fn times(&self) -> Option<super::StageTimes> {
        let (m, (origin, origin_ms)) = (self.marks.as_ref()?, self.origin.as_ref()?);
        let between = |a: usize, b: usize| m[b].elapsed_time_f32(&m[a]).ok().map(f64::from);
        Some(super::StageTimes {
            upload_ms: between(0, 1)?,
            kernel_ms: between(1, 2)?,
            download_ms: between(2, 3)?,
            start_ms: origin_ms + f64::from(m[0].elapsed_time_f32(origin).ok()?),
        })
    }

    /// Rows per slot for rows of `row_bytes` bytes.
    fn rows_per_slot(&self, row_bytes: usize) -> usize {
        (self.slots[0].buf.len() / row_bytes).max(1)
    }

    /// Queues copies of `src`'s rows, packed, to device address `dst`; returns once every row has
    /// left the caller's memory (the last DMA may still be running: later work on the stream
    /// waits for it).
    pub(super) fn upload<T: Pixel>(&mut self, src: &ImageView<'_, T>, dst: u64) -> Result<()> {
        let l = src.layout();
        let row_bytes = l.row_len() * size_of::<T>();
        let per = self.rows_per_slot(row_bytes);
        for (n, start) in (0..l.height).step_by(per).enumerate() {
            let rows = start..(start + per).min(l.height);
            let slot = &mut self.slots[n % SLOTS];
            if slot.busy {
                slot.done.synchronize().map_err(cuda("wait for a copy"))?;
            }
            let len = rows.len() * row_bytes;
            let staged = &mut slot.buf[..len];
            fill(staged, row_bytes, |i| {
                bytemuck::cast_slice(src.row(rows.start + i))
            });
            // SAFETY: `staged` is page-locked and not touched again until `done` (recorded
            // next) has passed; `dst` holds the whole packed image (`reserve`).
            check("copy to the GPU", unsafe {
                cust::sys::cuMemcpyHtoDAsync_v2(
                    dst + (rows.start * row_bytes) as u64,
                    staged.as_ptr().cast(),
                    len,
                    self.stream.as_inner(),
                )
            })?;
            slot.done.record(&self.stream).map_err(cuda("record an event"))?;
            slot.busy = true;
        }
        Ok(())
    }

    /// Copies the packed device image at `src` into `dst`'s rows, after the work queued before
    /// on the stream; returns when every row is in place. A `timed` run records its last timing
    /// event after the last copy.
    pub(super) fn download<T: Pixel>(
        &mut self,
        src: u64,
        dst: &mut ImageViewMut<'_, T>,
        timed: bool,
    ) -> Result<()> {
        let l = dst.layout();
        let row_bytes = l.row_len() * size_of::<T>();
        let per = self.rows_per_slot(row_bytes);
        let chunks: Vec<_> = (0..l.height)
            .step_by(per)
            .map(|s| s..(s + per).min(l.height))
            .collect();
        let queue = |slot: &mut Slot, rows: &std::ops::Range<usize>, stream: &Stream| -> Result<()> {
            let len = rows.len() * row_bytes;
            // SAFETY: the slot is page-locked, not read until `done` (recorded next) has passed,
            // and no earlier copy from it is pending (those were queued earlier on this stream);
            // `src` holds the whole packed result.
            check("copy from the GPU", unsafe {
                cust::sys::cuMemcpyDtoHAsync_v2(
                    slot.buf.as_mut_ptr().cast(),
                    src + (rows.start * row_bytes) as u64,
                    len,
                    stream.as_inner(),
                )
            })?;
            slot.done.record(stream).map_err(cuda("record an event"))?;
            slot.busy = true;
            Ok(())
        };
        for (n, rows) in chunks.iter().enumerate().take(SLOTS) {
            queue(&mut self.slots[n], rows, &self.stream)?;
        }
        if chunks.len() <= SLOTS {
            self.mark(timed, 3)?;
        }
        if l.stride == l.row_len() {
            // While the GPU works: packed rows have no padding another owner may hold.
            prefault(bytemuck::cast_slice_mut(dst.rows_mut(0..l.height)));
        }
        for (n, rows) in chunks.iter().enumerate() {
            let slot = &mut self.slots[n % SLOTS];
            slot.done.synchronize().map_err(cuda("wait for the GPU"))?;
            slot.busy = false;
            let staged = &slot.buf[..rows.len() * row_bytes];
            let band = dst.rows_mut(rows.clone());
            drain(
                staged,
                row_bytes,
                l.stride * size_of::<T>(),
                bytemuck::cast_slice_mut(band),
            );
            if let Some(next) = chunks.get(n + SLOTS) {
                queue(slot, next, &self.stream)?;
                if n + SLOTS + 1 == chunks.len() {
                    self.mark(timed, 3)?;
                }
            }
        }
        Ok(())
    }
}

/// Fills `staged` with rows of `row_bytes` bytes, row `i` from `row(i)`, on several threads when
/// it is large.
fn fill<'a>(staged: &mut [u8], row_bytes: usize, row: impl Fn(usize) -> &'a [u8] + Sync) {
    let copy = |(i, dst): (usize, &mut [u8])| dst.copy_from_slice(row(i));
    if staged.len() < PARALLEL_MIN {
        staged.chunks_exact_mut(row_bytes).enumerate().for_each(copy);
    } else {
        let min = (TASK / row_bytes).max(1);
        pool::install(|| {
            staged
                .par_chunks_exact_mut(row_bytes)
                .enumerate()
                .with_min_len(min)
                .for_each(copy);
        });
    }
}

/// Writes a zero into every page of `bytes`, each thread a stripe of its own, when it is large.
/// A fresh result (a new numpy array, a `vec!`) has no pages yet: its first touch faults them in,
/// and the kernel zeroes each. Slot by slot those faults were taken a few at a time; in wide
/// stripes on all cores they run at once (on the H100 host's 16 cores, copying 256 MiB into a
/// fresh array took 73 ms on one thread, 10.0 ms in 16 stripes, and 8.8 ms into a kept one).
/// The rows are overwritten by the result afterwards.
fn prefault(bytes: &mut [u8]) {
    const PAGE: usize = 4096;
    if bytes.len() < PARALLEL_MIN {
        return;
    }
    pool::install(|| {
        let stripe = bytes
            .len()
            .div_ceil(rayon::current_num_threads())
            .next_multiple_of(PAGE);
        bytes.par_chunks_mut(stripe).for_each(|s| {
            for page in s.chunks_mut(PAGE) {
                page[0] = 0;
            }
            std::hint::black_box(s);
        });
    });
}

/// Copies packed rows of `row_bytes` bytes from `staged` into `band`, whose rows are
/// `stride_bytes` apart (the last one without its padding).
fn drain(staged: &[u8], row_bytes: usize, stride_bytes: usize, band: &mut [u8]) {
    let copy = |(dst, src): (&mut [u8], &[u8])| dst[..row_bytes].copy_from_slice(src);
    // The last row may lack its padding: copy it alone.
    let rows = staged.len() / row_bytes;
    let (body, last) = band.split_at_mut((rows - 1) * stride_bytes);
    last[..row_bytes].copy_from_slice(&staged[(rows - 1) * row_bytes..]);
    let staged = &staged[..(rows - 1) * row_bytes];
    if staged.len() < PARALLEL_MIN {
        body.chunks_exact_mut(stride_bytes)
            .zip(staged.chunks_exact(row_bytes))
            .for_each(copy);
    } else {
        let min = (TASK / row_bytes).max(1);
        pool::install(|| {
            body.par_chunks_exact_mut(stride_bytes)
                .zip(staged.par_chunks_exact(row_bytes))
                .with_min_len(min)
                .for_each(copy);
        });
    }
}
