//! Interruption by a signal: the application's handler of SIGINT (Ctrl-C) or SIGTERM calls
//! [`request`], after which [`crate::io::files`] writes no new file (a file being written is
//! discarded, its temporary removed) and long work can stop cleanly ([`requested`]). A second
//! signal may end the process at once with
//! [`remove_temporaries_and_exit`](crate::io::files::remove_temporaries_and_exit), which removes
//! every temporary file the library keeps a list of. The `host` command line installs such a
//! handler; the library installs none.

use std::sync::atomic::{AtomicI32, Ordering};

/// The first signal received, or 0.
static SIGNAL: AtomicI32 = AtomicI32::new(0);

/// SIGINT, as on every Unix.
pub const SIGINT: i32 = 2;
/// SIGTERM, as on every Unix.
pub const SIGTERM: i32 = 15;

/// Records that `signal` asked the process to stop; returns whether it was the first request.
pub fn request(signal: i32) -> bool {
    SIGNAL
        .compare_exchange(0, signal, Ordering::SeqCst, Ordering::SeqCst)
        .is_ok()
}

/// The signal that asked the process to stop, if one did.
pub fn signal() -> Option<i32> {
    match SIGNAL.load(Ordering::SeqCst) {
        0 => None,
        s => Some(s),
    }
}

/// Whether a signal asked the process to stop.
pub fn requested() -> bool {
    signal().is_some()
}

/// The conventional name of `signal` (`SIGINT`, `SIGTERM`, else `signal N`).
pub fn name(signal: i32) -> String {
    match signal {
        SIGINT => "SIGINT".into(),
        SIGTERM => "SIGTERM".into(),
        n => format!("signal {n}"),
    }
}

/// The exit status of a process stopped by `signal`, as shells report it: 128 + its number
/// (130 for SIGINT, 143 for SIGTERM).
pub fn exit_code(signal: i32) -> i32 {
    128 + signal
}
