//! Compiles the `gpu-kernels` crate to one PTX file with rustc's own `nvptx64-nvidia-cuda` target.
//!
//! Shared by `host/build.rs` (which embeds the PTX in the binary) and `cargo xtask build-ptx`, so
//! both use exactly the same recipe: the pinned nightly, `-Zbuild-std=core`, panics compiled to a
//! trap (`-Cpanic=immediate-abort`), one codegen unit, and `--emit=asm`, which for this target is PTX;
//! then the register limits of [`register_limit`] are added to the PTX.

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
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Spawn(e) => write!(f, "could not build the GPU kernels: {e}"),
            Error::Compile { status, stderr } => {
                write!(f, "building the GPU kernels failed ({status}):\n{stderr}")
            }
            Error::Missing(p) => write!(f, "the kernel build wrote no PTX at {}", p.display()),
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
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let flags = format!("-Zunstable-options -Cpanic=immediate-abort -Ctarget-cpu={arch} -Ccodegen-units=1");
    let mut cmd = Command::new(cargo);
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
    std::fs::write(out, add_register_limits(&ptx)).map_err(Error::Spawn)?;
    Ok(out.to_path_buf())
}

/// The `fast` kernels' interleaved entries that spill at 32 registers (ptxas 13.0), with the limit
/// they take instead: 36 for the RGBA ones, which take 40-44 without a limit (the `_r4` entries: 6
/// blocks share an SM instead of 5, at k=9 2-10% faster), none for the RGB ones, which spill up to
/// 40 (64 registers).
pub const INTERLEAVED_OVER_32: [(&str, Option<u32>); 6] = [
    ("conv_fast_4x2_c4_f32_r1", Some(36)),
    ("conv_fast_c3_u8_r1", None),
    ("conv_fast_c3_u16_r1", None),
    ("conv_fast_c4_f32_r4", Some(36)),
    ("conv_fast_c4_u8_r4", Some(36)),
    ("conv_fast_c4_u16_r4", Some(36)),
];

/// The register limit of kernel `name` (PTX `.maxnreg`, what `__launch_bounds__` gives CUDA C++,
/// for which rustc has no attribute), if it has one. The `fast-4x2` kernels up to radius 4 and
/// the `fast` (4 × 4) kernels up to radius 4 (for `u16` from radius 2) (256 threads a block) fit
/// in 32 registers without spilling, which lets 8 blocks share an SM (full occupancy) where ptxas
/// would otherwise take up to 40 and fit 6. (Larger radii measured slower with the limit; `fast`
/// for `u16` below radius 2 spills.)
/// The gray `tensor-f32` kernels up to radius 12 fit in 64 registers, 4 blocks per SM instead of
/// 3 (radius 1 without a limit: it takes 56, and spills with one; radius 2-4 take 55-57 without,
/// and were 4% slower at k=7 and 9 so). Their RGB and RGBA entries up to radius 12 (gpu-kernels'
/// `SPLIT_COLOUR_MAX_RADIUS`, which `tests/ptx_facts.rs` checks this agrees with; blocks of 384
/// threads) are limited to 80, which keeps 2 blocks on
/// an SM: ptxas takes 64-80 or, after small changes to the code, 96. The `tensor` (u8) kernel of
/// radius 4 fits in 64 too. The `fast` kernels' interleaved (RGB, RGBA) entries,
/// `conv_fast[_4x2]_c<channels>_...`, are limited to 32 except the few ptxas would spill
/// ([`INTERLEAVED_OVER_32`]; 5-11% faster than without a limit, where ptxas takes 36-64).
/// The gray `stream` kernel of radius 1 fits in 56 (128 threads a block: 9 blocks per SM where
/// ptxas's 62-64 fit 8).
pub fn register_limit(name: &str) -> Option<u32> {
    if let Some(rest) = name.strip_prefix("conv_tensor_split_f32_r") {
        let radius: u32 = rest.parse().ok()?;
        return (radius <= 12 && radius != 1).then_some(64);
    }
    let colour = ["conv_tensor_split_c3_f32_r", "conv_tensor_split_c4_f32_r"];
    if let Some(rest) = colour.iter().find_map(|prefix| name.strip_prefix(prefix)) {
        let radius: u32 = rest.parse().ok()?;
        return (radius <= 12).then_some(80);
    }
    if name == "conv_tensor_u8_r4" {
        return Some(64);
    }
    if name == "conv_stream_u8_r1" {
        return Some(56);
    }
    if name.starts_with("conv_fast_") && (name.contains("_c3_") || name.contains("_c4_")) {
        return match INTERLEAVED_OVER_32.iter().find(|(entry, _)| *entry == name) {
            Some(&(_, limit)) => limit,
            None => Some(32),
        };
    }
    let (rest, smallest) = match name.strip_prefix("conv_fast_4x2_") {
        Some(rest) => (rest, 0),
        None if name.starts_with("conv_fast_u16_") => (name.strip_prefix("conv_fast_")?, 2),
        None => (name.strip_prefix("conv_fast_")?, 0),
    };
    let radius: u32 = rest.rsplit("_r").next()?.parse().ok()?;
    (smallest..=4).contains(&radius).then_some(32)
}

/// `ptx` with a `.maxnreg` directive after the parameter list of every entry that
/// [`register_limit`] gives a limit.
pub fn add_register_limits(ptx: &str) -> String {
    let mut out = String::with_capacity(ptx.len() + 4096);
    let mut pending = None;
    for line in ptx.lines() {
        out.push_str(line);
        out.push('\n');
        if let Some(name) = line.trim_start().strip_prefix(".visible .entry ") {
            pending = register_limit(name.split('(').next().unwrap_or(name));
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
    fn register_limits_follow_the_parameter_list_of_the_named_entries() {
        assert_eq!(register_limit("conv_fast_4x2_u8_r4"), Some(32));
        assert_eq!(register_limit("conv_fast_4x2_u8_r5"), None);
        assert_eq!(register_limit("conv_fast_f32_r1"), Some(32));
        assert_eq!(register_limit("conv_fast_u16_r1"), None);
        assert_eq!(register_limit("conv_tensor_u8_r4"), Some(64));
        assert_eq!(register_limit("conv_tensor_u8_r3"), None);
        assert_eq!(register_limit("conv_stream_u8_r1"), Some(56));
        assert_eq!(register_limit("conv_stream_c3_u8_r1"), None);
        assert_eq!(register_limit("conv_fast_f32_r2"), Some(32));
        assert_eq!(register_limit("conv_fast_u16_r5"), None);
        assert_eq!(register_limit("conv_tensor_split_f32_r1"), None);
        assert_eq!(register_limit("conv_tensor_split_f32_r4"), Some(64));
        assert_eq!(register_limit("conv_tensor_split_f32_r12"), Some(64));
        assert_eq!(register_limit("conv_tensor_split_f32_r13"), None);
        assert_eq!(register_limit("conv_tensor_split_c3_f32_r12"), Some(80));
        assert_eq!(register_limit("conv_tensor_split_c3_f32_r13"), None);
        assert_eq!(register_limit("conv_tensor_split_c4_f32_r8"), Some(80));
        assert_eq!(register_limit("conv_fast_4x2_c3_f32_r1"), Some(32));
        assert_eq!(register_limit("conv_fast_c4_u8_r2"), Some(32));
        assert_eq!(register_limit("conv_fast_c4_u8_r4"), Some(36));
        assert_eq!(register_limit("conv_fast_c3_u8_r1"), None);
        let ptx = ".visible .entry conv_fast_4x2_f32_r1(\n\t.param .u64 a\n)\n{\n}\n.visible .entry conv_fast_u16_r1(\n\t.param .u64 a\n)\n{\n}\n";
        let tuned = add_register_limits(ptx);
        assert_eq!(
            tuned,
            ".visible .entry conv_fast_4x2_f32_r1(\n\t.param .u64 a\n)\n.maxnreg 32\n{\n}\n.visible .entry conv_fast_u16_r1(\n\t.param .u64 a\n)\n{\n}\n"
        );
    }

    #[test]
    fn finds_entry_names() {
        let ptx = ".visible .entry conv_naive(\n\t.param .u64 a\n)\n{\n}\n.visible .entry conv_tiled(\n";
        assert_eq!(entry_names(ptx), ["conv_naive", "conv_tiled"]);
    }
}
