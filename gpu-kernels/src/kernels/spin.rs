//! The `gpu_spin` kernel: keeps the GPU busy for a while so the host can queue timed launches.

use crate::device::thread::global_timer;
use kernel_macros::kernel;

/// The benchmark queues it ahead of its timed launches: while it spins, the host enqueues every
/// launch with its pair of events, so the launches then run back to back and each event pair
/// brackets one kernel without the host's launch latency (as `peers.cu` times its kernels).
///
/// # Thread mapping
/// One thread does the work; launch it as a single thread.
///
/// # Safety
/// No memory is touched: any launch is safe.
#[kernel]
pub unsafe fn gpu_spin(ns: u64) {
    let start = global_timer();
    while global_timer().wrapping_sub(start) < ns {}
}
