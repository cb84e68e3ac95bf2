//! The library's CPU threads: a rayon pool of its own, one per process.
//!
//! `fork` copies only the thread that calls it, so a pool built before a fork has no threads in
//! the child, and work sent to it there waits forever (rayon's global pool cannot be rebuilt).
//! The pool is keyed by process id: a forked child builds its own on first use and never touches
//! (nor drops) its parent's. The lookup takes no lock, which a fork could leave held.

use rayon::{ThreadPool, ThreadPoolBuilder};
use std::sync::atomic::{AtomicPtr, Ordering};

/// A pool and the process that built it.
struct Owned {
    pid: u32,
    pool: ThreadPool,
}

/// This process's pool (or a parent's, before the child's first use), from `Box::into_raw`;
/// never freed.
static POOL: AtomicPtr<Owned> = AtomicPtr::new(std::ptr::null_mut());

/// The pool of this process, built on first use (threads as rayon's default: `RAYON_NUM_THREADS`,
/// else one per core).
fn pool() -> &'static ThreadPool {
    let pid = crate::fork::process_id();
    let current = POOL.load(Ordering::Acquire);
    // SAFETY: a non-null pointer in `POOL` comes from `Box::into_raw` below and is never freed.
    if let Some(owned) = unsafe { current.as_ref() }
        && owned.pid == pid
    {
        return &owned.pool;
    }
    let built = ThreadPoolBuilder::new()
        .thread_name(|i| format!("ferroconv-{i}"))
        .build()
        .or_else(|_| ThreadPoolBuilder::new().num_threads(1).build())
        .expect("a one-thread pool can always be built");
    let fresh = Box::into_raw(Box::new(Owned { pid, pool: built }));
    let installed = match POOL.compare_exchange(current, fresh, Ordering::AcqRel, Ordering::Acquire) {
        Ok(_) => fresh,
        Err(winner) => {
            // SAFETY: `fresh` came from `Box::into_raw` above and was never shared.
            drop(unsafe { Box::from_raw(fresh) });
            winner
        }
    };
    // SAFETY: `installed` is non-null, from `Box::into_raw`, and never freed once in `POOL`.
    &unsafe { &*installed }.pool
}

/// Runs `op` on the library's pool, where rayon's parallel iterators inside it run.
pub(crate) fn install<R: Send>(op: impl FnOnce() -> R + Send) -> R {
    pool().install(op)
}

/// The threads of the library's pool.
pub(crate) fn threads() -> usize {
    pool().current_num_threads()
}
