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

use std::sync::atomic::{AtomicU32, Ordering};

/// Why a GPU cannot be used in a child forked after its parent started CUDA.
pub const FORKED: &str = "CUDA cannot be used in a process forked after its parent started CUDA: \
     start worker processes with the 'spawn' (or 'forkserver') method";

/// The id of the process that started the CUDA driver (0: none has).
static CUDA_PID: AtomicU32 = AtomicU32::new(0);

/// Records that this process started the CUDA driver (the first time only: a child keeps its
/// parent's id, and so knows it was forked after the start).
pub(crate) fn note_cuda_started() {
    let _ = CUDA_PID.compare_exchange(0, std::process::id(), Ordering::AcqRel, Ordering::Acquire);
}

/// Whether this process was forked from one that had started CUDA (so it must not use CUDA).
pub fn cuda_forked() -> bool {
    let pid = CUDA_PID.load(Ordering::Acquire);
    pid != 0 && pid != std::process::id()
}

/// `Err(NoGpu(FORKED))` in a child forked after CUDA started, else `Ok`.
pub(crate) fn check() -> crate::Result<()> {
    if cuda_forked() {
        Err(crate::Error::NoGpu(FORKED.into()))
    } else {
        Ok(())
    }
}
