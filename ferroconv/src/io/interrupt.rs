//! Interruption by a signal: the first SIGINT (Ctrl-C) or SIGTERM asks the work to stop cleanly
//! (a batch takes no new image and discards the files being written), a second one ends the
//! process at once after removing every temporary file ([`crate::io::files`] keeps their list).

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

/// Catches SIGINT and SIGTERM on a thread of their own: the first calls `first` (after
/// [`request`] recorded it); any later one calls `last`, then removes every temporary file and
/// exits with [`exit_code`] of that signal.
#[cfg(feature = "cli")]
pub fn install(
    first: impl Fn(i32) + Send + 'static,
    last: impl Fn(i32) + Send + 'static,
) -> std::io::Result<()> {
    let mut signals = signal_hook::iterator::Signals::new([SIGINT, SIGTERM])?;
    std::thread::Builder::new()
        .name("signals".into())
        .spawn(move || {
            for signal in signals.forever() {
                if request(signal) {
                    first(signal);
                } else {
                    last(signal);
                    crate::io::files::remove_temporaries_and_exit(exit_code(signal));
                }
            }
        })?;
    Ok(())
}
