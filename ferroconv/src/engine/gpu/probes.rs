//! CUDA-event timers of queued work on a GPU (its copy and FMA ceilings are in `ceilings.rs`).

use super::launch::arg;
use super::{Gpu, cuda};
use crate::Result;
use cust::event::{Event, EventFlags};
use cust::stream::Stream;
use gpu_kernels::kernels::spin;

impl Gpu {
    /// Runs `work` (which queues GPU work on this stream) between two events, waits, and returns
    /// the GPU time between the events in ms.
    pub fn time(&self, work: impl FnOnce(&Self) -> Result<()>) -> Result<f64> {
        time_on(&self.inner.stream, || work(self))
    }

    /// Times `runs` calls of `work` (each queues GPU work on this stream; it gets the call's
    /// index) back to back: a `gpu_spin` kernel queued first keeps the GPU busy while the host
    /// queues every call between its own pair of events, so each time is the GPU's alone, without
    /// the host's launch latency (as hand-written CUDA benchmarks time kernels). Returns the times
    /// in ms, in order.
    pub fn time_back_to_back(
        &self,
        runs: usize,
        mut work: impl FnMut(&Self, usize) -> Result<()>,
    ) -> Result<Vec<f64>> {
        let events = (0..2 * runs)
            .map(|_| Event::new(EventFlags::DEFAULT))
            .collect::<Result<Vec<_>, _>>()
            .map_err(cuda("create an event"))?;
        let spin = self
            .inner
            .module
            .get_function(spin::ENTRY)
            .map_err(cuda("find the spin kernel"))?;
        // 1 ms, plus 20 us per call for the host to queue it (as peers.cu).
        let ns = 1_000_000u64 + 20_000 * runs as u64;
        // SAFETY: the argument matches `gpu_spin(ns: u64)`, which touches no memory.
        unsafe {
            self.inner
                .stream
                .launch(&spin, (1, 1, 1), (1, 1, 1), 0, &[arg(&ns)])
        }
        .map_err(cuda("launch the spin kernel"))?;
        for (r, pair) in events.chunks_exact(2).enumerate() {
            pair[0]
                .record(&self.inner.stream)
                .map_err(cuda("record an event"))?;
            work(self, r)?;
            pair[1]
                .record(&self.inner.stream)
                .map_err(cuda("record an event"))?;
        }
        self.sync()?;
        events
            .chunks_exact(2)
            .map(|pair| {
                pair[1]
                    .elapsed_time_f32(&pair[0])
                    .map(f64::from)
                    .map_err(cuda("read an event time"))
            })
            .collect()
    }
}

/// Runs `work` (which queues GPU work ending on `stream`) between two events recorded on
/// `stream`, waits, and returns the GPU time between the events in ms: the one CUDA-event timer.
pub(crate) fn time_on(stream: &Stream, work: impl FnOnce() -> Result<()>) -> Result<f64> {
    let start = Event::new(EventFlags::DEFAULT).map_err(cuda("create an event"))?;
    let stop = Event::new(EventFlags::DEFAULT).map_err(cuda("create an event"))?;
    start.record(stream).map_err(cuda("record an event"))?;
    work()?;
    stop.record(stream).map_err(cuda("record an event"))?;
    stop.synchronize().map_err(cuda("wait for the GPU"))?;
    Ok(f64::from(
        stop.elapsed_time_f32(&start)
            .map_err(cuda("read an event time"))?,
    ))
}
