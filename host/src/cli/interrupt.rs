//! Interruption of a files run: the SIGINT/SIGTERM handler's messages, the error that carries the
//! signal to the exit code (128 + its number), and the account of what was left unwritten.

use super::json;
use anyhow::{Context as _, Result};
use ferroconv::io::files::shown;
use ferroconv::io::interrupt;
use host_tools::batch::{self, Outcome, Summary};
use indicatif::ProgressBar;

/// A batch stopped by a signal; the process exits with 128 + its number.
#[derive(Debug, thiserror::Error)]
#[error("interrupted by {}", interrupt::name(*.0))]
pub struct Interrupted(pub i32);

/// Installs the handler ([`catch`]): the first signal says that the batch stops (above the
/// progress bar), a second one stops at once (with `json`, after printing the failure document).
pub fn install(progress: &ProgressBar, json: bool) -> Result<()> {
    let progress = progress.clone();
    catch(
        move |signal| {
            progress.suspend(|| {
                eprintln!(
                    "interrupted by {}: no new image is started and the results being written are \
                     discarded; a second Ctrl-C stops at once",
                    interrupt::name(signal)
                );
            });
        },
        move |signal| {
            let name = interrupt::name(signal);
            if json {
                json::print_failure(
                    &format!("interrupted by a second signal ({name}): stopped at once"),
                    Some(signal),
                );
            }
            eprintln!(
                "error: interrupted by a second signal ({name}): stopped at once, temporary files removed"
            );
        },
    )
    .context("installing the SIGINT/SIGTERM handler")
}

/// Catches SIGINT and SIGTERM on a thread of their own: the first calls `first` (after
/// [`interrupt::request`] recorded it, so no new file is written); any later one calls `last`,
/// then removes every temporary file and exits with [`interrupt::exit_code`] of that signal.
fn catch(first: impl Fn(i32) + Send + 'static, last: impl Fn(i32) + Send + 'static) -> std::io::Result<()> {
    let mut signals = signal_hook::iterator::Signals::new([interrupt::SIGINT, interrupt::SIGTERM])?;
    std::thread::Builder::new()
        .name("signals".into())
        .spawn(move || {
            for signal in signals.forever() {
                if interrupt::request(signal) {
                    first(signal);
                } else {
                    last(signal);
                    ferroconv::io::files::remove_temporaries_and_exit(interrupt::exit_code(signal));
                }
            }
        })?;
    Ok(())
}

/// Says what an interrupted batch left (written whole, discarded, not processed, and which inputs
/// were not written) and returns the error that exits with the signal's code.
pub fn stopped(signal: i32, outcomes: &[Outcome], summary: &Summary) -> anyhow::Error {
    let unwritten: Vec<String> = outcomes
        .iter()
        .filter(|o| o.status != batch::Status::Written)
        .map(|o| shown(&o.input))
        .collect();
    let listed = match unwritten.len() {
        0 => String::new(),
        n if n <= 5 => format!(": {}", unwritten.join(", ")),
        n => format!(": {} and {} more", unwritten[..3].join(", "), n - 3),
    };
    eprintln!(
        "interrupted by {}: {} image(s) written whole, {} discarded while being written (nothing left), \
         {} not processed; not written{listed}",
        interrupt::name(signal),
        summary.written,
        summary.discarded,
        summary.not_processed,
    );
    Interrupted(signal).into()
}
