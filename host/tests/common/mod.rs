//! Helpers shared by the integration tests: running the `host` binary, temporary folders, paths.
// Each test binary includes this module and uses only part of it.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A fresh folder under the system's temporary folder, removed when dropped. The name carries the
/// test binary's process id, so test binaries running at the same time never share one.
pub struct TempDir(pub PathBuf);

impl TempDir {
    pub fn new(name: &str) -> Self {
        let dir = std::env::temp_dir().join(format!("conv-test-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Self(dir)
    }

    /// `name` inside the folder.
    pub fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }

    /// Names of the files in the folder, sorted.
    pub fn names(&self) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(&self.0)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A path as `&str` for a command line.
pub fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Runs the `host` binary with a backtrace requested, to show that no error path panics, and
/// outside any job array (whose variables would shard a batch), even when the tests run in one.
pub fn host(args: &[&str]) -> Output {
    command(args).output().expect("run host")
}

/// [`host`] as on a machine without a GPU: the driver is shown none (`CUDA_VISIBLE_DEVICES`
/// empty), so what a run without a GPU does is checked on every machine, GPU machines too.
pub fn host_without_gpu(args: &[&str]) -> Output {
    command(args)
        .env("CUDA_VISIBLE_DEVICES", "")
        .output()
        .expect("run host")
}

fn command(args: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_host"));
    c.args(args)
        .env("RUST_BACKTRACE", "1")
        .env_remove("SLURM_ARRAY_TASK_ID")
        .env_remove("JOB_COMPLETION_INDEX");
    c
}

/// A run's standard output and standard error, as text.
pub fn text(o: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// Runs `host`, requires success, and returns its standard output and standard error.
pub fn run_ok(args: &[&str]) -> (String, String) {
    succeeded(args, &host(args))
}

/// [`run_ok`] through [`host_without_gpu`].
pub fn run_ok_without_gpu(args: &[&str]) -> (String, String) {
    succeeded(args, &host_without_gpu(args))
}

fn succeeded(args: &[&str], o: &Output) -> (String, String) {
    let (out, err) = text(o);
    assert!(o.status.success(), "{args:?}\nstdout: {out}\nstderr: {err}");
    (out, err)
}

/// The row of the main job's table that `name` starts.
pub fn row<'a>(out: &'a str, name: &str) -> &'a str {
    find_row(out, name).unwrap_or_else(|| panic!("no {name} row:\n{out}"))
}

/// The row of the main job's table that `name` starts, if there is one.
pub fn find_row<'a>(out: &'a str, name: &str) -> Option<&'a str> {
    out.lines().find(|l| l.split_whitespace().next() == Some(name))
}

/// `host verify` on a small ladder of sizes and filters.
pub const VERIFY_LADDER: [&str; 5] = ["verify", "--sizes", "1x1,1x7,7x1,31x17", "--filters", "1,3,17"];

/// Main-job options, each with whether its filter is rank-1 (box by default, gaussian; sharpen
/// is not), which decides whether the separable variants run.
pub const MAIN_JOB_CASES: [(&[&str], bool); 3] = [
    (&["--width", "33", "--height", "17", "--mask", "5"], true),
    (
        &[
            "--size",
            "40",
            "--channels",
            "4",
            "--dtype",
            "u8",
            "--border",
            "reflect",
            "--filter",
            "gaussian",
            "--mask",
            "7",
        ],
        true,
    ),
    (
        &[
            "--size",
            "24",
            "--channels",
            "3",
            "--dtype",
            "u16",
            "--border",
            "valid",
            "--filter",
            "sharpen",
            "--flip",
        ],
        false,
    ),
];
