//! The `gpu_spin` kernel: keeps the GPU busy for a while so the host can queue timed launches.

/// The entry point (not a convolution).
pub const ENTRY: &str = "gpu_spin";

#[cfg(target_arch = "nvptx64")]
use {crate::device::thread::global_timer, kernel_macros::kernel};

#[cfg(target_arch = "nvptx64")]
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
