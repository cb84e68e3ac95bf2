//! `cargo xtask size`: the project's size rules, which `ci` checks right after the
//! formatting.
//!
//! - No tracked Rust or Python file (`git ls-files`, without `vendor/` and files marked
//!   `@generated`) over [`MAX_FILE_LINES`] lines, but those `xtask/src/oversized.txt` lists, each
//!   up to its figure.
//! - No Python function over [`MAX_FUNCTION_LINES`] lines, from its `def` to its last line
//!   (`python3`'s `ast`; `python3` must be on `PATH`).
//! - No Rust function over [`MAX_FUNCTION_LINES`] lines: clippy's `too_many_lines`, whose
//!   threshold is in the workspace's `clippy.toml` (it counts lines of code, not comments or blank
//!   lines), enabled in `ci`'s clippy runs of the workspace, the kernels (nvptx64) and `python/`.
//!   Clippy does not see the entries `#[kernel]` writes out; that attribute holds their bodies to
//!   the same limit.
use crate::args::Args;
use crate::shell::workspace;
use anyhow::{Context, Result, bail};
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

/// The most lines a Rust or Python file may have.
pub const MAX_FILE_LINES: usize = 500;
/// The most lines a function may span (Python here; Rust through clippy, `clippy.toml`).
pub const MAX_FUNCTION_LINES: usize = 150;

/// The files allowed over [`MAX_FILE_LINES`] for now, with their most lines.
const OVERSIZED_FILE: &str = "xtask/src/oversized.txt";
const OVERSIZED: &str = include_str!("oversized.txt");

/// Prints every Python function over `limit` lines (`sys.argv[1]`) of the files named after it,
/// one `path<TAB>line<TAB>name<TAB>lines` a line.
const PYTHON_FUNCTIONS: &str = r#"
import ast, sys
limit = int(sys.argv[1])
for path in sys.argv[2:]:
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read(), filename=path)
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            lines = node.end_lineno - node.lineno + 1
            if lines > limit:
                print(f"{path}\t{node.lineno}\t{node.name}\t{lines}")
"#;

/// `cargo xtask size`.
pub fn run(args: Args) -> Result<()> {
    args.finish()?;
    check()
}

/// Checks the files and the Python functions; fails listing every offender, a line each.
pub fn check() -> Result<()> {
    let ws = workspace();
    let files = tracked_sources(&ws)?;
    let allowed = oversized()?;
    let mut offences = Vec::new();
    let mut python = Vec::new();
    for file in &files {
        let text = match std::fs::read_to_string(ws.join(file)) {
            Ok(text) => text,
            // Deleted in the working tree but not yet in the index.
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => return Err(e).with_context(|| format!("reading {file}")),
        };
        if text.lines().take(5).any(|l| l.contains("@generated")) {
            continue;
        }
        let lines = text.lines().count();
        match allowed.get(file.as_str()) {
            Some(&most) if lines > most => offences.push(format!(
                "{file}: {lines} lines, more than the {most} that {OVERSIZED_FILE} allows (split it)"
            )),
            Some(_) if lines <= MAX_FILE_LINES => offences.push(format!(
                "{file}: {lines} lines, within the limit now: remove its line from {OVERSIZED_FILE}"
            )),
            None if lines > MAX_FILE_LINES => offences.push(format!(
                "{file}: {lines} lines, more than {MAX_FILE_LINES} (split it by a natural seam)"
            )),
            _ => {}
        }
        if file.ends_with(".py") {
            python.push(file.as_str());
        }
    }
    for (file, _) in allowed.iter().filter(|(f, _)| !files.iter().any(|t| t == *f)) {
        offences.push(format!(
            "{file}: listed in {OVERSIZED_FILE} but not tracked: remove its line"
        ));
    }
    offences.extend(long_python_functions(&ws, &python)?);
    if !offences.is_empty() {
        bail!(
            "size: {} breach(es) of the size rules (files up to {MAX_FILE_LINES} lines, functions up \
             to {MAX_FUNCTION_LINES}):\n  {}",
            offences.len(),
            offences.join("\n  ")
        );
    }
    println!(
        "size: {} Rust and Python files within {MAX_FILE_LINES} lines ({} allowed over in \
         {OVERSIZED_FILE}), Python functions within {MAX_FUNCTION_LINES}; Rust functions: \
         clippy::too_many_lines in `cargo xtask ci`",
        files.len(),
        allowed.len()
    );
    Ok(())
}

/// The tracked `*.rs` and `*.py` files, relative to the workspace, but for `vendor/`.
fn tracked_sources(ws: &Path) -> Result<Vec<String>> {
    let out = Command::new("git")
        .args(["ls-files", "-z", "--", "*.rs", "*.py"])
        .current_dir(ws)
        .output()
        .context("running git ls-files")?;
    if !out.status.success() {
        bail!(
            "git ls-files failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    Ok(String::from_utf8_lossy(&out.stdout)
        .split('\0')
        .filter(|f| !f.is_empty() && !f.starts_with("vendor/"))
        .map(str::to_string)
        .collect())
}

/// [`OVERSIZED`]: each file and the most lines it may have.
fn oversized() -> Result<BTreeMap<&'static str, usize>> {
    let mut allowed = BTreeMap::new();
    for line in OVERSIZED.lines() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let (file, lines) = line
            .split_once(char::is_whitespace)
            .with_context(|| format!("{OVERSIZED_FILE}: '{line}' is not 'file lines'"))?;
        let lines = lines
            .trim()
            .parse()
            .with_context(|| format!("{OVERSIZED_FILE}: '{line}': the lines are not a number"))?;
        allowed.insert(file, lines);
    }
    Ok(allowed)
}

/// The Python functions of `files` over [`MAX_FUNCTION_LINES`], a line each (an error where
/// `python3` cannot run: the rule is never skipped).
fn long_python_functions(ws: &Path, files: &[&str]) -> Result<Vec<String>> {
    if files.is_empty() {
        return Ok(Vec::new());
    }
    let limit = MAX_FUNCTION_LINES.to_string();
    let out = Command::new("python3")
        .args(["-c", PYTHON_FUNCTIONS, &limit])
        .args(files)
        .current_dir(ws)
        .output()
        .context("running python3 (on PATH), which checks the Python functions' lengths")?;
    if !out.status.success() {
        bail!(
            "size: python3 could not parse the Python files:\n{}",
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    Ok(String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| {
            let mut f = l.split('\t');
            let (file, line, name, lines) = (f.next()?, f.next()?, f.next()?, f.next()?);
            Some(format!(
                "{file}:{line}: function {name} spans {lines} lines, more than {MAX_FUNCTION_LINES} \
                 (split it into helpers)"
            ))
        })
        .collect())
}
