//! The harness of the test binaries whose tests need a GPU (`tests/gpu.rs`, `tests/plan/`): they
//! are built with `harness = false` and run their tests through `libtest-mimic`, which takes the
//! same command line as the built-in harness (filters, `--exact`, `--skip`, `--list`,
//! `--ignored`, `--include-ignored`, `--test-threads`; `RUST_TEST_THREADS` too) and prints the
//! same summary.
//!
//! The binary looks for a GPU once, when it starts ([`Harness::new`]), since the binary built on
//! one machine may run on another. Without one, every GPU test is ignored (`N ignored` in the
//! summary, not passed), and run with `--ignored` or `--include-ignored` it fails, saying there
//! is no GPU. With `CONV_REQUIRE_GPU` set (and not `0`, the GPU runner's workflow sets it) a
//! missing GPU is no reason to ignore anything: every GPU test runs and fails. CPU tests are
//! ordinary tests.
// Each binary that includes this module uses only part of it.
#![allow(dead_code)]

use ferroconv::Error;
use libtest_mimic::{Arguments, Failed, Trial};

/// The tests of one binary, and whether this machine has a GPU for them.
pub struct Harness {
    /// Why there is no usable GPU here, or `None` when there is one.
    no_gpu: Option<String>,
    /// Whether a missing GPU fails the GPU tests rather than ignoring them.
    required: bool,
    trials: Vec<Trial>,
}

/// Whether a missing GPU is a failure rather than a reason to ignore (`CONV_REQUIRE_GPU` set and
/// not `0`).
pub fn gpu_required() -> bool {
    std::env::var_os("CONV_REQUIRE_GPU").is_some_and(|v| !v.is_empty() && v != "0")
}

/// Why there is no usable GPU here, or `None` when the driver counts at least one. A driver that
/// fails otherwise counts as a GPU that is there: its tests run, and fail saying why.
pub fn probe_gpu() -> Option<String> {
    match ferroconv::engine::gpu::device_count() {
        Ok(_) => None,
        Err(Error::NoGpu(why)) => Some(why),
        Err(e) => {
            eprintln!("a GPU may be present, but counting the GPUs failed: {e}");
            None
        }
    }
}

impl Harness {
    /// Probes for a GPU; call first thing in `main`.
    pub fn new() -> Self {
        Self {
            no_gpu: probe_gpu(),
            required: gpu_required(),
            trials: Vec::new(),
        }
    }

    /// A test that needs no GPU.
    pub fn cpu(&mut self, name: impl Into<String>, test: impl FnOnce() + Send + 'static) {
        let name = name.into();
        self.trials
            .push(Trial::test(name.clone(), move || on_its_own_thread(name, test)));
    }

    /// A test that needs a GPU: ignored when there is none (unless one is required), and a
    /// failure, without running `test`, when run anyway.
    pub fn gpu(&mut self, name: impl Into<String>, test: impl FnOnce() + Send + 'static) {
        let name = name.into();
        let no_gpu = self.no_gpu.clone();
        let required = self.required;
        let trial = Trial::test(name.clone(), move || {
            if let Some(why) = no_gpu {
                let because = if required {
                    "CONV_REQUIRE_GPU is set"
                } else {
                    "it is ignored without one and was run anyway (--ignored or --include-ignored)"
                };
                return Err(format!("{name} needs a GPU and there is none ({why}); {because}").into());
            }
            on_its_own_thread(name, test)
        });
        self.trials
            .push(trial.with_ignored_flag(self.no_gpu.is_some() && !self.required));
    }

    /// Runs the tests the command line selects, in name order as the built-in harness does, and
    /// exits with its status.
    pub fn run(mut self) -> ! {
        let mut args = Arguments::from_args();
        if args.test_threads.is_none() {
            args.test_threads = std::env::var("RUST_TEST_THREADS")
                .ok()
                .and_then(|n| n.parse().ok())
                .filter(|&n| n > 0);
        }
        if let Some(why) = &self.no_gpu
            && !args.list
        {
            let what = if self.required {
                "CONV_REQUIRE_GPU is set: the GPU tests fail"
            } else {
                "the GPU tests are ignored"
            };
            eprintln!("no GPU ({why}): {what}");
        }
        self.trials.sort_by(|a, b| a.name().cmp(b.name()));
        libtest_mimic::run(&args, self.trials).exit()
    }
}

/// Runs `test` on a thread named after it, as the built-in harness does (a panic message names
/// the test, and no test inherits another's thread); a panic is the test's failure.
fn on_its_own_thread(name: String, test: impl FnOnce() + Send + 'static) -> Result<(), Failed> {
    let thread = std::thread::Builder::new()
        .name(name)
        .spawn(test)
        .map_err(|e| format!("cannot start the test's thread: {e}"))?;
    thread.join().map_err(|panic| {
        let message = panic
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| panic.downcast_ref::<&str>().copied())
            .unwrap_or("(a panic without a message)");
        Failed::from(format!("test panicked: {message}"))
    })
}
