//! Forked processes: what the library does in a child forked after its parent used it.
//!
//! A process forked from one that has started CUDA inherits the parent's GPU handles but cannot
//! use them: the driver's state belongs to the parent (NVIDIA documents CUDA after `fork` as
//! unsupported; PyTorch refuses it too). A rayon pool's threads are not copied by `fork` either,
//! so a pool the parent built waits forever in the child. So, in such a child:
//! - opening a GPU fails with [`Error::NoGpu`](crate::Error::NoGpu) and [`FORKED`] as its reason,
//!   and so does any call of a GPU plan, device image or [`Gpu`](crate::Gpu) the parent made
//!   (before any driver call); [`Filter2D::auto`](crate::Filter2D::auto) and
//!   [`Convolver::new`](crate::Convolver::new) fall back to the CPU;
//! - the parent's plans, staging buffers and GPU handles are never freed: dropping them leaks
//!   them (freeing would call the driver);
//! - the library's CPU work runs on a thread pool of the child's own, made on its first use there.
//!
//! A child forked before its parent started CUDA uses the GPU as any process does.

use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};

/// Why a GPU cannot be used in a child forked after its parent started CUDA.
pub const FORKED: &str = "CUDA cannot be used in a process forked after its parent started CUDA: \
     start worker processes with the 'spawn' (or 'forkserver') method";

/// The id of the process that started the CUDA driver (0: none has).
static CUDA_PID: AtomicU32 = AtomicU32::new(0);

/// This process's id, cached (0: not read since the last fork).
static PID: AtomicU32 = AtomicU32::new(0);

/// Whether [`forget_pid`] is registered to run in every forked child.
static HOOKED: AtomicBool = AtomicBool::new(false);

/// Runs in a child right after `fork`: its id is read again on the next [`process_id`].
extern "C" fn forget_pid() {
    PID.store(0, Ordering::Relaxed);
}

/// This process's id, as `std::process::id()`, without a system call once read: a per-call
/// check of the plans that costs nothing (the cache is cleared in every forked child).
pub fn process_id() -> u32 {
    if !cfg!(target_os = "linux") {
        return std::process::id();
    }
    let pid = PID.load(Ordering::Relaxed);
    if pid != 0 {
        return pid;
    }
    // The hook goes in before the first id is cached, so no child keeps its parent's.
    #[cfg(target_os = "linux")]
    if !HOOKED.swap(true, Ordering::AcqRel) {
        // SAFETY: registers a handler with no state that only stores to an atomic, which is
        // async-signal-safe, as a handler run in a forked child must be.
        unsafe { libc::pthread_atfork(None, None, Some(forget_pid)) };
    }
    let pid = std::process::id();
    PID.store(pid, Ordering::Relaxed);
    pid
}

/// Records that this process started the CUDA driver (the first time only: a child keeps its
/// parent's id, and so knows it was forked after the start).
pub(crate) fn note_cuda_started() {
    let _ = CUDA_PID.compare_exchange(0, process_id(), Ordering::AcqRel, Ordering::Acquire);
}

/// Whether this process was forked from one that had started CUDA (so it must not use CUDA).
pub fn cuda_forked() -> bool {
    let pid = CUDA_PID.load(Ordering::Acquire);
    pid != 0 && pid != process_id()
}

/// `Err(NoGpu(FORKED))` in a child forked after CUDA started, else `Ok`.
pub(crate) fn check() -> crate::Result<()> {
    if cuda_forked() {
        Err(crate::Error::NoGpu(FORKED.into()))
    } else {
        Ok(())
    }
}
