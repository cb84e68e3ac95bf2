//! Compiles the `gpu-kernels` crate to one PTX file with rustc's own `nvptx64-nvidia-cuda` target.
//!
//! Shared by `ferroconv/build.rs` (which embeds the PTX in the binary) and `cargo xtask build-ptx`, so
//! both use exactly the same recipe: the pinned nightly, `-Zbuild-std=core`, panics compiled to a
//! trap (`-Cpanic=immediate-abort`), one codegen unit, and `--emit=asm`, which for this target is PTX;
//! then the register limits declared beside the kernels are applied ([`apply_register_limits`]).
//!
//! The outer build may run on any toolchain (stable included): when it is not the nightly pinned in
//! `rust-toolchain.toml`, the kernels are built by that nightly through rustup ([`kernel_cargo`]).

use std::fmt;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The rustc target that produces PTX.
pub const TARGET: &str = "nvptx64-nvidia-cuda";
/// The GPU architecture built by default: Hopper (H100, H200). Its PTX also JIT-compiles for newer GPUs.
pub const DEFAULT_ARCH: &str = "sm_90";

/// Why the PTX could not be built.
#[derive(Debug)]
pub enum Error {
    /// `cargo` could not be started, or a file could not be written.
    Spawn(std::io::Error),
    /// The nested `cargo rustc` (or `ptxas`, `fatbinary`) failed; its stderr is kept so the caller
    /// can show it.
    Compile { status: String, stderr: String },
    /// The build succeeded but the PTX file was not written where expected.
    Missing(PathBuf),
    /// The pinned nightly cannot be run: one line saying what is missing and how to install it.
    Toolchain(String),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Spawn(e) => write!(f, "could not build the GPU kernels: {e}"),
            Error::Compile { status, stderr } => {
                write!(f, "building the GPU kernels failed ({status}):\n{stderr}")
            }
            Error::Missing(p) => write!(f, "the kernel build wrote no PTX at {}", p.display()),
            Error::Toolchain(why) => f.write_str(why),
        }
    }
}

impl std::error::Error for Error {}

/// Environment variables an outer cargo (or clippy) sets that must not leak into the nested build:
/// they would apply host-target flags or wrappers to the nvptx compilation.
const SCRUBBED_ENV: &[&str] = &[
    "RUSTFLAGS",
    "CARGO_ENCODED_RUSTFLAGS",
    "RUSTC_WRAPPER",
    "RUSTC_WORKSPACE_WRAPPER",
    "CARGO_BUILD_TARGET",
    "CARGO_TARGET_DIR",
    "CARGO_BUILD_RUSTFLAGS",
    "__CARGO_FIX_PLZ",
    "CARGO_PRIMARY_PACKAGE",
];

/// What names the outer toolchain's programs: removed too when the kernels are built by another
/// toolchain than the outer build's (a stable `RUSTC` would otherwise compile them).
const OUTER_TOOLCHAIN_ENV: &[&str] = &[
    "CARGO",
    "RUSTC",
    "RUSTDOC",
    "RUSTUP_TOOLCHAIN",
    "RUSTUP_TOOLCHAIN_SOURCE",
];

/// The toolchain file that pins the nightly the kernels are built with.
pub const TOOLCHAIN_FILE: &str = "rust-toolchain.toml";

/// The `channel` pinned in `<workspace>/rust-toolchain.toml` (e.g. `nightly-2026-05-20`).
pub fn pinned_channel(workspace: &Path) -> Result<String, Error> {
    let path = workspace.join(TOOLCHAIN_FILE);
    let text = std::fs::read_to_string(&path)
        .map_err(|e| Error::Toolchain(format!("cannot read {}: {e}", path.display())))?;
    text.lines()
        .find_map(|l| {
            let value = l.trim().strip_prefix("channel")?.trim().strip_prefix('=')?;
            Some(value.trim().trim_matches('"').to_string())
        })
        .filter(|channel| !channel.is_empty())
        .ok_or_else(|| Error::Toolchain(format!("{} names no channel", path.display())))
}

/// The `cargo` that builds the kernels, with the pinned nightly:
/// - the outer build's own (`CARGO`) when it is that nightly, as rustup resolves it;
/// - else `rustup run <channel> cargo`, without the outer toolchain's variables, so that a stable
///   outer build works;
/// - without rustup, the outer build's own if it is a nightly (the kernels then need a nightly
///   close to the pinned one).
///
/// When none of these can work, the error is one line that names the command installing the
/// toolchain.
pub fn kernel_cargo(workspace: &Path) -> Result<Command, Error> {
    let channel = pinned_channel(workspace)?;
    let outer = std::env::var_os("CARGO").map(PathBuf::from);
    let install = format!(
        "run `rustup toolchain install` in {} (it reads {TOOLCHAIN_FILE})",
        workspace.display()
    );
    let which = Command::new("rustup")
        .args(["which", "--toolchain", &channel, "cargo"])
        .output();
    match which {
        Ok(o) if o.status.success() => {
            let pinned = PathBuf::from(String::from_utf8_lossy(&o.stdout).trim());
            if let Some(outer) = outer.filter(|outer| same_file(outer, &pinned)) {
                return Ok(Command::new(outer));
            }
            let mut cmd = Command::new("rustup");
            cmd.args(["run", &channel, "cargo"]);
            for var in OUTER_TOOLCHAIN_ENV {
                cmd.env_remove(var);
            }
            Ok(cmd)
        }
        Ok(_) => Err(Error::Toolchain(format!(
            "building the GPU kernels needs the Rust toolchain {channel}, which rustup does not \
             have: {install}"
        ))),
        Err(_) if outer_is_nightly() => Ok(Command::new(outer.unwrap_or_else(|| "cargo".into()))),
        Err(e) => Err(Error::Toolchain(format!(
            "building the GPU kernels needs rustup and the Rust toolchain {channel} (running rustup: {e}): \
             install rustup (https://rustup.rs), then {install}"
        ))),
    }
}

/// Whether two paths name the same file (both resolved; if either cannot be, as written).
fn same_file(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}

/// Whether the outer build's compiler (`RUSTC`, else `rustc`) is a nightly or a local build.
fn outer_is_nightly() -> bool {
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    Command::new(rustc).arg("-V").output().is_ok_and(|o| {
        let version = String::from_utf8_lossy(&o.stdout);
        o.status.success() && (version.contains("-nightly") || version.contains("-dev"))
    })
}

/// Compiles `<workspace>/gpu-kernels` for `arch` (e.g. `sm_90`) and copies the PTX to `out`.
///
/// `target_dir` is the nested build's own target folder: it must differ from the outer build's so
/// that the two cargo processes never wait on each other's lock. The PTX is first written to a
/// fixed path inside it, so every caller passes rustc the same arguments and cargo reuses a fresh
/// build instead of compiling again.
pub fn build(workspace: &Path, target_dir: &Path, arch: &str, out: &Path) -> Result<PathBuf, Error> {
    let emitted = target_dir.join("ptx").join(arch).join("kernels.ptx");
    if !emitted.is_file() {
        // Cargo cannot know rustc's extra output is gone: forget the kernels' fingerprint.
        let fingerprints = target_dir.join(TARGET).join("release").join(".fingerprint");
        if let Ok(entries) = std::fs::read_dir(&fingerprints) {
            for e in entries
                .flatten()
                .filter(|e| e.file_name().to_string_lossy().starts_with("gpu-kernels-"))
            {
                let _ = std::fs::remove_dir_all(e.path());
            }
        }
    }
    if let Some(dir) = emitted.parent() {
        std::fs::create_dir_all(dir).map_err(Error::Spawn)?;
    }
    let flags = format!("-Zunstable-options -Cpanic=immediate-abort -Ctarget-cpu={arch} -Ccodegen-units=1");
    let mut cmd = kernel_cargo(workspace)?;
    cmd.current_dir(workspace)
        .args(["rustc", "--release", "--package", "gpu-kernels", "--lib"])
        .args(["--target", TARGET, "-Zbuild-std=core"])
        .arg("--target-dir")
        .arg(target_dir)
        .arg("--")
        .arg(format!("--emit=asm={}", emitted.display()))
        .env("CARGO_TARGET_NVPTX64_NVIDIA_CUDA_RUSTFLAGS", flags);
    for var in SCRUBBED_ENV {
        cmd.env_remove(var);
    }
    let output = cmd.output().map_err(Error::Spawn)?;
    if !output.status.success() {
        return Err(Error::Compile {
            status: output.status.to_string(),
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        });
    }
    if !emitted.is_file() {
        return Err(Error::Missing(emitted));
    }
    let ptx = std::fs::read_to_string(&emitted).map_err(Error::Spawn)?;
    std::fs::write(out, apply_register_limits(&ptx)).map_err(Error::Spawn)?;
    Ok(out.to_path_buf())
}

/// The suffix of the `u32` global that `#[kernel(max_registers = ...)]` writes beside each entry:
/// `<entry>_max_registers`.
pub const MAX_REGISTERS_SUFFIX: &str = "_max_registers";

/// `ptx` with each kernel's register limit applied: every global `<entry>_max_registers = N;` that
/// the `#[kernel]` attribute writes (from the limit declared beside the kernel) is removed, and
/// for `N > 0` a `.maxnreg N` directive (what `__launch_bounds__` gives CUDA C++; rustc has no
/// attribute for it) follows the parameter list of `<entry>`.
pub fn apply_register_limits(ptx: &str) -> String {
    let mut limits = std::collections::HashMap::new();
    let mut kept = Vec::new();
    for line in ptx.lines() {
        match register_limit_global(line) {
            Some((entry, limit)) => {
                limits.insert(entry, limit);
            }
            None => kept.push(line),
        }
    }
    let mut out = String::with_capacity(ptx.len());
    let mut pending = None;
    for line in kept {
        out.push_str(line);
        out.push('\n');
        if let Some(name) = line.trim_start().strip_prefix(".visible .entry ") {
            let name = name.split('(').next().unwrap_or(name);
            pending = limits.get(name).copied().filter(|&limit| limit > 0);
        }
        if let Some(limit) = pending
            && line.trim_end().ends_with(')')
        {
            out.push_str(&format!(".maxnreg {limit}\n"));
            pending = None;
        }
    }
    out
}

/// The entry and limit of a PTX line declaring `<entry>_max_registers`: as rustc writes a `u32`
/// static, `.visible .global .align 4 .b8 <entry>_max_registers[4] = {32};` (little-endian bytes,
/// trailing zeros left out; no initializer for 0), or as a plain `.u32 <name> = 32;`.
fn register_limit_global(line: &str) -> Option<(&str, u32)> {
    let line = line.trim().strip_prefix(".visible .global ")?;
    let (declaration, value) = line.split_once('=').unwrap_or((line.trim_end_matches(';'), "0"));
    let name = declaration.split_whitespace().last()?;
    let entry = name.trim_end_matches("[4]").strip_suffix(MAX_REGISTERS_SUFFIX)?;
    let value = value.trim().trim_end_matches(';').trim();
    let limit = match value.strip_prefix('{').and_then(|v| v.strip_suffix('}')) {
        Some(bytes) => bytes.split(',').enumerate().try_fold(0u32, |sum, (i, b)| {
            Some(sum | b.trim().parse::<u32>().ok()? << (8 * i))
        })?,
        None => value.parse().ok()?,
    };
    Some((entry, limit))
}

/// Where `cargo xtask install-ptxas` puts `ptxas` (and `fatbinary` beside it), from the PyPI
/// wheel `nvidia-cuda-nvcc`.
pub fn installed_ptxas(workspace: &Path) -> PathBuf {
    workspace.join("target/tools/nvcc/nvidia/cu13/bin/ptxas")
}

/// `ptxas`: the `PTXAS` variable, else `ptxas` on `PATH`, else the copy under `target/tools/`.
pub fn find_ptxas(workspace: &Path) -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("PTXAS") {
        return Some(p.into());
    }
    if Command::new("ptxas")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
    {
        return Some("ptxas".into());
    }
    let local = installed_ptxas(workspace);
    local.is_file().then_some(local)
}

/// Assembles `ptx` into SASS for `arch` with `ptxas` and packs the SASS and the PTX into one
/// fatbin at `out` (with `fatbinary`, found beside `ptxas` or on `PATH`). The driver loads the
/// SASS on a GPU of exactly `arch` with no JIT, and JIT-compiles the PTX on any other.
///
/// The result is kept under `cache_dir`, named by a hash of the PTX, so builds of the same
/// kernels (debug, release, clippy) run `ptxas` once.
pub fn build_fatbin(ptxas: &Path, ptx: &Path, arch: &str, cache_dir: &Path, out: &Path) -> Result<(), Error> {
    use std::hash::{Hash, Hasher};
    let text = std::fs::read(ptx).map_err(Error::Spawn)?;
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    text.hash(&mut hasher);
    let cached = cache_dir.join(format!("kernels-{arch}-{:016x}.fatbin", hasher.finish()));
    if !cached.is_file() {
        std::fs::create_dir_all(cache_dir).map_err(Error::Spawn)?;
        let cubin = cache_dir.join(format!("kernels-{arch}.cubin"));
        run(Command::new(ptxas)
            .args(["-arch", arch, "-o"])
            .arg(&cubin)
            .arg(ptx))?;
        let fatbinary = ptxas
            .parent()
            .map(|dir| dir.join("fatbinary"))
            .filter(|p| p.is_file())
            .unwrap_or_else(|| "fatbinary".into());
        let sm = arch.trim_start_matches("sm_");
        let partial = cached.with_extension("partial");
        run(Command::new(fatbinary)
            .args(["-64", "--create"])
            .arg(&partial)
            .arg(format!("--image3=kind=elf,sm={sm},file={}", cubin.display()))
            .arg(format!("--image3=kind=ptx,sm={sm},file={}", ptx.display())))?;
        std::fs::rename(&partial, &cached).map_err(Error::Spawn)?;
    }
    std::fs::copy(&cached, out).map_err(Error::Spawn)?;
    Ok(())
}

/// Runs a tool, keeping its stderr as the error.
fn run(cmd: &mut Command) -> Result<(), Error> {
    let output = cmd.output().map_err(Error::Spawn)?;
    if output.status.success() {
        Ok(())
    } else {
        Err(Error::Compile {
            status: output.status.to_string(),
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        })
    }
}

/// The names of the kernels (`.entry` functions) a PTX text defines, in order.
pub fn entry_names(ptx: &str) -> Vec<&str> {
    ptx.lines()
        .filter_map(|l| l.trim_start().strip_prefix(".visible .entry "))
        .map(|rest| rest.split('(').next().unwrap_or(rest).trim())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn register_limit_globals_become_maxnreg_after_the_parameter_list() {
        let ptx = "\
.visible .global .align 4 .b8 conv_b_f32_r1_max_registers[4] = {32};
.visible .global .align 4 .b8 conv_b_u16_r1_max_registers[4];
.visible .global .align 4 .b8 conv_b_u8_r1_max_registers[4] = {44, 1};
.visible .global .align 4 .u32 other = 7;
.visible .entry conv_b_f32_r1(
\t.param .u64 a
)
{
}
.visible .entry conv_b_u16_r1(
\t.param .u64 a
)
{
}
.visible .entry conv_b_u8_r1(
\t.param .u64 a
)
{
}
";
        assert_eq!(
            apply_register_limits(ptx),
            "\
.visible .global .align 4 .u32 other = 7;
.visible .entry conv_b_f32_r1(
\t.param .u64 a
)
.maxnreg 32
{
}
.visible .entry conv_b_u16_r1(
\t.param .u64 a
)
{
}
.visible .entry conv_b_u8_r1(
\t.param .u64 a
)
.maxnreg 300
{
}
"
        );
    }

    #[test]
    fn finds_entry_names() {
        let ptx = ".visible .entry conv_naive(\n\t.param .u64 a\n)\n{\n}\n.visible .entry conv_tiled(\n";
        assert_eq!(entry_names(ptx), ["conv_naive", "conv_tiled"]);
    }
}
