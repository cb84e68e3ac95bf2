//! `cargo xtask sass-diff REV`: whether the kernels' SASS is the same when built from git revision
//! REV as from the working tree, entry point by entry point (see [`crate::sass`]).
//!
//! Each tree's PTX comes from its own recipe: the working tree's from [`ptx_builder::build`], as
//! `build-ptx` makes it; REV's from REV's own `cargo xtask build-ptx`, run in a temporary git
//! worktree (removed afterwards) whose `target` is a link to target/sass-diff/rev-target, so its
//! toolchain, its register limits and its build cache are its own. Both are assembled by the
//! pinned ptxas and disassembled by the pinned nvdisasm, installed under target/tools/.

use crate::args::Args;
use crate::sass::{self, Comparison, Disassembly};
use crate::shell::workspace;
use crate::tools::{install_nvdisasm, install_ptxas};
use anyhow::{Context, Result, bail};
use std::collections::BTreeMap;
use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

/// The architecture both trees are built and assembled for.
const ARCH: &str = ptx_builder::DEFAULT_ARCH;

/// Each function's normalized listing, by name.
type Listings = BTreeMap<String, Vec<String>>;

/// `cargo xtask sass-diff REV`.
pub fn run(mut args: Args) -> Result<()> {
    let rev: String = args
        .positional("REV")?
        .context("sass-diff needs a git revision: cargo xtask sass-diff REV")?;
    args.finish()?;
    let start = Instant::now();
    let ws = workspace();
    let out = ws.join("target/sass-diff");
    let differ_dir = out.join("differ");
    let _ = std::fs::remove_dir_all(&differ_dir);
    std::fs::create_dir_all(&out)?;
    let commit = git(&ws, &["rev-parse", "--verify", &format!("{rev}^{{commit}}")])
        .with_context(|| format!("'{rev}' is not a revision of this repository"))?;
    let ptxas = install_ptxas()?;
    let nvdisasm = install_nvdisasm()?;

    println!(
        "sass-diff: building the PTX of {rev} ({})",
        &commit[..12.min(commit.len())]
    );
    let old_ptx = out.join("old.ptx");
    build_rev_ptx(&ws, &commit, &out.join("rev-target"), &old_ptx)?;
    println!("sass-diff: building the PTX of the working tree");
    let new_ptx = out.join("new.ptx");
    ptx_builder::build(&ws, &ws.join("target/ptx-build"), ARCH, &new_ptx)?;

    println!("sass-diff: assembling and disassembling both for {ARCH}");
    let old = functions(&ptxas, &nvdisasm, &old_ptx)?;
    let new = functions(&ptxas, &nvdisasm, &new_ptx)?;
    let c = sass::compare(&old, &new);
    report(&rev, &old, &new, &c, &differ_dir)?;
    println!("sass-diff: took {:.0} s", start.elapsed().as_secs_f64());
    if c.differing() > 0 {
        let listings = if c.differ.is_empty() {
            String::new()
        } else {
            format!("; normalized listings of both in {}", differ_dir.display())
        };
        bail!(
            "the SASS of {} entry point(s) differs between {rev} and the working tree (listed \
             above{listings})",
            c.differing()
        );
    }
    Ok(())
}

/// Prints a line per entry point that differs and the summary, and writes the listings of
/// those that differ into `differ_dir`.
fn report(rev: &str, old: &Listings, new: &Listings, c: &Comparison, differ_dir: &Path) -> Result<()> {
    for (old_name, new_name, line) in &c.differ {
        let name = if old_name == new_name {
            old_name.clone()
        } else {
            format!("{old_name} -> {new_name}")
        };
        println!(
            "differs: {name} (from line {line}: `{}` became `{}`)",
            shorten(old[old_name].get(line - 1)),
            shorten(new[new_name].get(line - 1)),
        );
        std::fs::create_dir_all(differ_dir)?;
        for (side, listing) in [("old", &old[old_name]), ("new", &new[new_name])] {
            let path = differ_dir.join(format!("{new_name}.{side}.sass"));
            std::fs::write(&path, listing.join("\n"))?;
        }
    }
    for name in &c.only_old {
        match sass::renamed(name) {
            now if now != *name => println!("only in {rev}: {name} (its name now would be {now})"),
            _ => println!("only in {rev}: {name}"),
        }
    }
    for name in &c.only_new {
        println!("only in the working tree: {name}");
    }
    println!(
        "sass-diff: {} entry points compared, {} differ ({} renamed)",
        c.compared,
        c.differing(),
        c.renamed
    );
    Ok(())
}

/// The first differing line, for one line of output.
fn shorten(line: Option<&String>) -> String {
    let line = line.map_or("(end of listing)", String::as_str);
    match line.char_indices().nth(100) {
        Some((i, _)) => format!("{}...", &line[..i]),
        None => line.to_string(),
    }
}

/// `git ARGS` in `dir`; its standard output, trimmed.
fn git(dir: &Path, args: &[&str]) -> Result<String> {
    let o = Command::new("git")
        .args(args)
        .current_dir(dir)
        .output()
        .context("running git")?;
    if !o.status.success() {
        bail!(
            "`git {}` failed: {}",
            args.join(" "),
            String::from_utf8_lossy(&o.stderr).trim()
        );
    }
    Ok(String::from_utf8_lossy(&o.stdout).trim().to_string())
}

/// A temporary git worktree, removed when dropped (also when the task fails).
struct Worktree {
    repo: PathBuf,
    path: PathBuf,
}

impl Worktree {
    /// Checks `commit` out at `path`, replacing what an interrupted run left there.
    fn add(repo: &Path, path: &Path, commit: &str) -> Result<Worktree> {
        let tree = Worktree {
            repo: repo.to_path_buf(),
            path: path.to_path_buf(),
        };
        tree.remove();
        git(
            repo,
            &["worktree", "add", "--detach", &path.to_string_lossy(), commit],
        )?;
        Ok(tree)
    }

    fn remove(&self) {
        if self.path.exists() {
            let path = self.path.to_string_lossy();
            if git(&self.repo, &["worktree", "remove", "--force", &path]).is_err() {
                let _ = std::fs::remove_dir_all(&self.path);
            }
        }
        let _ = git(&self.repo, &["worktree", "prune"]);
    }
}

impl Drop for Worktree {
    fn drop(&mut self) {
        self.remove();
    }
}

/// Builds the PTX of `commit` with that revision's own `cargo xtask build-ptx` and copies it to
/// `out`. The revision's `target` folder is `target_dir`, kept between runs.
fn build_rev_ptx(ws: &Path, commit: &str, target_dir: &Path, out: &Path) -> Result<()> {
    // One folder per workspace, always the same: cargo's cache knows the tree by its path.
    let path = std::env::temp_dir().join(format!("xtask-sass-diff-{:016x}", fnv1a(ws)));
    let tree = Worktree::add(ws, &path, commit)?;
    std::fs::create_dir_all(target_dir)?;
    std::os::unix::fs::symlink(target_dir, tree.path.join("target"))
        .context("linking the revision's target folder")?;
    let args = ["xtask", "build-ptx", "--arch", ARCH];
    println!("$ (cd {} && cargo {})", tree.path.display(), args.join(" "));
    // The rustup proxy, so that the revision's rust-toolchain.toml picks the toolchain.
    let mut cmd = Command::new("cargo");
    cmd.args(args)
        .current_dir(&tree.path)
        .stderr(Stdio::inherit())
        // Source files are all new in a fresh worktree: by content, unchanged ones stay built.
        .env("CARGO_UNSTABLE_CHECKSUM_FRESHNESS", "true");
    for (key, _) in std::env::vars_os() {
        let key = key.to_string_lossy();
        // What this cargo set for this workspace, and a ptxas that would check the revision's
        // PTX (its spills are not this task's business).
        let outer = key == "CARGO"
            || key.starts_with("CARGO_MANIFEST_")
            || key.starts_with("CARGO_PKG_")
            || matches!(
                key.as_ref(),
                "CARGO_CRATE_NAME" | "CARGO_BIN_NAME" | "CARGO_PRIMARY_PACKAGE" | "CARGO_TARGET_DIR"
            )
            || key.starts_with("RUSTUP_TOOLCHAIN")
            || matches!(key.as_ref(), "RUSTC" | "RUSTDOC" | "PTXAS" | "CUDA_LIBRARY_PATH");
        if outer {
            cmd.env_remove(key.as_ref());
        }
    }
    let output = cmd.output().context("running cargo in the revision's worktree")?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    // build-ptx says `wrote PATH (N bytes): kernels ...` once the PTX is written; a failure
    // after that (ptxas on PATH finding spills) does not matter here.
    let written = stdout.lines().find_map(|l| {
        let path = l.strip_prefix("wrote ")?.split(" (").next()?;
        path.ends_with(".ptx").then(|| PathBuf::from(path))
    });
    let Some(ptx) = written else {
        bail!(
            "`cargo xtask build-ptx` of {commit} wrote no PTX ({}):\n{stdout}",
            output.status
        );
    };
    if !output.status.success() {
        println!(
            "sass-diff: its build-ptx failed after writing the PTX ({}); going on",
            output.status
        );
    }
    std::fs::copy(&ptx, out).with_context(|| format!("copying {}", ptx.display()))?;
    Ok(())
}

/// A hash that stays the same from run to run (FNV-1a).
fn fnv1a(path: &Path) -> u64 {
    path.to_string_lossy()
        .bytes()
        .fold(0xcbf2_9ce4_8422_2325, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
        })
}

/// Assembles `ptx` with ptxas into a cubin beside it and returns nvdisasm's listing of each
/// function.
fn functions(ptxas: &Path, nvdisasm: &Path, ptx: &Path) -> Result<Listings> {
    let cubin = ptx.with_extension("cubin");
    let o = Command::new(ptxas)
        .args(["-arch", ARCH, "-o"])
        .arg(&cubin)
        .arg(ptx)
        .output()
        .with_context(|| format!("running {}", ptxas.display()))?;
    if !o.status.success() {
        bail!(
            "ptxas rejected {} ({}):\n{}",
            ptx.display(),
            o.status,
            String::from_utf8_lossy(&o.stderr)
        );
    }
    let mut child = Command::new(nvdisasm)
        .arg("-hex")
        .arg(&cubin)
        .stdout(Stdio::piped())
        .spawn()
        .with_context(|| format!("running {}", nvdisasm.display()))?;
    let mut disassembly = Disassembly::default();
    let stdout = child.stdout.take().context("nvdisasm's output")?;
    for line in std::io::BufReader::new(stdout).lines() {
        disassembly.push(&line.context("reading nvdisasm's output")?);
    }
    let status = child.wait()?;
    if !status.success() {
        bail!("nvdisasm failed on {} ({status})", cubin.display());
    }
    let functions = disassembly.functions();
    if functions.is_empty() {
        bail!("nvdisasm listed no functions in {}", cubin.display());
    }
    Ok(functions)
}
