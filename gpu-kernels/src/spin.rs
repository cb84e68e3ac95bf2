//! The `gpu_spin` kernel: keeps the GPU busy for a while so the host can queue timed launches.
//!
//! The benchmark queues it ahead of its timed launches: while it spins, the host enqueues every
//! launch with its pair of events, so the launches then run back to back and each event pair
//! brackets one kernel without the host's launch latency (as `peers.cu` times its kernels).
//!
//! # Thread mapping
//! One thread does the work; launch it as a single thread.
//!
//! # Safety
//! No memory is touched.

/// Nanoseconds since an arbitrary start (`%globaltimer`).
#[inline(always)]
fn global_timer() -> u64 {
    let t: u64;
    // SAFETY: reads a special register; no memory, no side effects.
    unsafe { core::arch::asm!("mov.u64 {t}, %globaltimer;", t = out(reg64) t, options(nomem, nostack)) };
    t
}

/// Spins until `ns` nanoseconds have passed (see the module documentation).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn gpu_spin(ns: u64) {
    let start = global_timer();
    while global_timer().wrapping_sub(start) < ns {}
}
