//! `--variant auto`: measures the candidate variants once per GPU model and problem class, keeps
//! the fastest, and caches the choice in the user's cache directory.

use crate::engine::gpu::variant::REGISTRY;
use crate::engine::gpu::{Gpu, Problem, Variant};
use crate::{Error, Image, Result, stats};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// Largest input the candidates are timed on, in bytes: larger problems are timed on a crop of
/// about this size, whose input and output together still exceed the L2 cache (so memory-bound
/// kernels are timed as memory-bound; per-pixel costs are the same once the GPU is full).
const PROBE_BYTES: usize = 64 << 20;
/// Fewest rows of a probe: only images wider than [`PROBE_BYTES`] over this many rows are cropped
/// across too.
const PROBE_MIN_ROWS: usize = 256;
/// A probe cropped across keeps the image width's remainder modulo this.
const PROBE_ALIGN: usize = 256;
/// Timed launches per candidate (after [`stats::WARMUP_RUNS`] warm-ups).
const PROBE_RUNS: usize = 5;

/// How a choice was made.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Source {
    /// Read from the cache file.
    Cache,
    /// Measured now: each candidate's median kernel time in ms.
    Measured(Vec<(Variant, f64)>),
}

/// Which GPU variant runs: the one choice that plans and the file engines make.
pub enum Choice {
    /// Always this one.
    Fixed(Variant),
    /// The fastest for each problem class, measured once and cached (`--variant auto`); the
    /// cache is read by the first choice when not given.
    Auto(Option<Tuner>),
}

impl Choice {
    /// The variant for `problem` on `gpu`.
    pub fn variant(&mut self, gpu: &Gpu, problem: &Problem) -> Result<Variant> {
        match self {
            Choice::Fixed(v) => Ok(*v),
            Choice::Auto(tuner) => Ok(tuner.get_or_insert_with(Tuner::load).choose(gpu, problem)?.0),
        }
    }

    /// What `Auto` has chosen so far, described for the user (nothing for `Fixed`).
    pub fn choices_made(&self) -> Vec<String> {
        match self {
            Choice::Auto(Some(tuner)) => tuner.choices_made().cloned().collect(),
            _ => Vec::new(),
        }
    }
}

/// The cache of choices, keyed by GPU model and problem class, and where it is stored.
#[derive(Debug, Default)]
pub struct Tuner {
    path: Option<PathBuf>,
    choices: BTreeMap<String, String>,
    /// What this run chose, per problem class, described for the user.
    made: BTreeMap<String, String>,
}

/// The cache file: `$CONV_CACHE_DIR`, else `$XDG_CACHE_HOME/rust-gpu-conv`, else
/// `$HOME/.cache/rust-gpu-conv`, then `variants.json`.
pub(crate) fn cache_path() -> Option<PathBuf> {
    cache_path_in(|k| std::env::var_os(k))
}

/// [`cache_path`] with the environment given by `var`.
fn cache_path_in(var: impl Fn(&str) -> Option<std::ffi::OsString>) -> Option<PathBuf> {
    let env = |k| var(k).filter(|v| !v.is_empty()).map(PathBuf::from);
    let dir = env("CONV_CACHE_DIR")
        .or_else(|| env("XDG_CACHE_HOME").map(|d| d.join("rust-gpu-conv")))
        .or_else(|| env("HOME").map(|d| d.join(".cache").join("rust-gpu-conv")))?;
    Some(dir.join("variants.json"))
}

impl Tuner {
    /// Loads the cache (an unreadable or corrupt file counts as empty; it is rewritten later).
    pub fn load() -> Self {
        let path = cache_path();
        let choices = path
            .as_ref()
            .and_then(|p| std::fs::read_to_string(p).ok())
            .and_then(|text| serde_json::from_str(&text).ok())
            .unwrap_or_default();
        Self {
            path,
            choices,
            made: BTreeMap::new(),
        }
    }

    /// One line per problem class this run chose a variant for.
    pub(crate) fn choices_made(&self) -> impl Iterator<Item = &String> {
        self.made.values()
    }

    /// Where the cache lives, if anywhere.
    pub(crate) fn path(&self) -> Option<&PathBuf> {
        self.path.as_ref()
    }

    /// The fastest variant for `problem` on `gpu`: from the cache, or measured now and cached.
    pub(crate) fn choose(&mut self, gpu: &Gpu, problem: &Problem) -> Result<(Variant, Source)> {
        let key = key(gpu, problem);
        let (variant, source) = match self.choices.get(&key).and_then(|name| Variant::parse(name)) {
            Some(v) => (v, Source::Cache),
            None => {
                let timings = measure(gpu, problem)?;
                let best = timings
                    .iter()
                    .min_by(|a, b| a.1.total_cmp(&b.1))
                    .map(|&(v, _)| v)
                    .ok_or_else(|| Error::Autotune("no variant could be measured".into()))?;
                (self.record(&key, best), Source::Measured(timings))
            }
        };
        if !self.made.contains_key(&key) {
            let line = format!("{} [{key}]", describe(variant, &source, self));
            self.made.insert(key, line);
        }
        Ok((variant, source))
    }

    /// Keeps `variant` as the choice for problem class `key` and stores it in the cache file,
    /// merged under an exclusive lock with what other processes stored meanwhile: the jobs of an
    /// array share one cache, and none of their choices is lost. Where another process stored a
    /// choice for the same class first, that one is kept and returned, so concurrent jobs agree.
    /// A cache that cannot be written only costs a re-measurement later.
    pub fn record(&mut self, key: &str, variant: Variant) -> Variant {
        let stored = self
            .path
            .as_deref()
            .and_then(|path| merge_into_file(path, key, variant));
        let chosen = stored.unwrap_or(variant);
        self.choices.insert(key.to_string(), chosen.name().to_string());
        chosen
    }
}

/// Stores `variant` for `key` in the cache file at `path` unless it already holds a choice for
/// `key`, under an exclusive lock on `<path>.lock`, re-reading the file under the lock and
/// replacing it by rename; returns the choice the file holds for `key` afterwards (`None` when
/// the file cannot be locked or written).
fn merge_into_file(path: &std::path::Path, key: &str, variant: Variant) -> Option<Variant> {
    std::fs::create_dir_all(path.parent()?).ok()?;
    let lock = std::fs::File::create(path.with_extension("json.lock")).ok()?;
    lock.lock().ok()?;
    let mut choices: BTreeMap<String, String> = std::fs::read_to_string(path)
        .ok()
        .and_then(|text| serde_json::from_str(&text).ok())
        .unwrap_or_default();
    if let Some(theirs) = choices.get(key).and_then(|name| Variant::parse(name)) {
        return Some(theirs);
    }
    choices.insert(key.to_string(), variant.name().to_string());
    let text = serde_json::to_string_pretty(&choices).ok()?;
    let tmp = path.with_extension(format!("json.{}.tmp", std::process::id()));
    let written = std::fs::write(&tmp, text).is_ok() && std::fs::rename(&tmp, path).is_ok();
    if !written {
        let _ = std::fs::remove_file(&tmp);
    }
    // The lock is released when `lock` is dropped.
    written.then_some(variant)
}

/// The problem class a choice holds for: GPU model, sample type, channels (`c4a`: RGBA with its
/// alpha filtered), filter size (`k15`, or a
/// rectangle's reach `k3x15`, its odd rectangle's sides), whether
/// the filter is rank-1, border, the image size rounded to a power of two of pixels, and whether
/// its rows are words the `warp-rows` kernel loads a lane at a time (`w8`, else `w1`).
pub(crate) fn key(gpu: &Gpu, p: &Problem) -> String {
    let pixels = (p.width * p.height).max(1);
    let bucket = usize::BITS - (pixels - 1).leading_zeros();
    let streams = p
        .geometry()
        .is_ok_and(|g| gpu_kernels::kernels::warp_rows::words(&g));
    let words = if streams { "w8" } else { "w1" };
    format!(
        "{}|{}|c{}{}|k{}|{}|{}|2^{bucket}px|{words}",
        gpu.info().name,
        p.dtype.suffix(),
        p.channels,
        if p.filter_alpha && p.channels == 4 {
            "a"
        } else {
            ""
        },
        if p.filter.is_square() {
            p.filter.size().to_string()
        } else {
            let (ry, rx) = p.filter.reach();
            format!("{}x{}", 2 * ry + 1, 2 * rx + 1)
        },
        if p.filter.rank1().is_some() {
            "rank1"
        } else {
            "general"
        },
        p.border.name(),
    )
}

/// The candidates: the variants the registry marks for autotuning (`blocked-4x4`, `blocked-4x2`, the three
/// `tiled-output` block shapes, for rank-1 filters only `separable` and `separable-fused`, for
/// 8-bit images with filters up to 9x9 `tensor-u8` and, where it streams by words, up to 5x5
/// `warp-rows`, for `f32` images `tensor-f32`, and for filters that are not their own square
/// `blocked-rect`), on the geometries the registry times them on.
pub(crate) fn candidates(problem: &Problem) -> Vec<Variant> {
    let rank1 = problem.filter.rank1().is_some();
    let geometry = problem.geometry().ok();
    REGISTRY
        .iter()
        .filter(|s| s.autotune && (rank1 || !s.rank1_only))
        .filter(|s| !(s.rectangles_only && problem.filter.is_square()))
        .filter(|s| !s.lines_only || problem.filter.is_line())
        .filter(|s| geometry.is_none_or(|g| (s.autotune_for)(&g) && (s.honours_alpha)(&g)))
        .filter(|s| s.variant.supports(problem.dtype, problem.filter.radius()))
        .map(|s| s.variant)
        .collect()
}

/// The size candidates are timed at for images `width` × `height` of `pixel_bytes` bytes per pixel:
/// the whole width and as many rows as [`PROBE_BYTES`] holds, and only for images wider than
/// [`PROBE_BYTES`] over [`PROBE_MIN_ROWS`] rows a narrower crop, which keeps the width's remainder
/// modulo [`PROBE_ALIGN`] (it decides how kernels load rows: `warp-rows` whole 8-byte words and which
/// lane ends a row, `tensor-u8` 16-byte vectors).
fn probe_size(width: usize, height: usize, pixel_bytes: usize) -> (usize, usize) {
    let widest = PROBE_BYTES / (PROBE_MIN_ROWS * pixel_bytes);
    let width = if width <= widest {
        width
    } else {
        widest - (PROBE_ALIGN - width % PROBE_ALIGN) % PROBE_ALIGN
    };
    (width, height.min(PROBE_BYTES / (width * pixel_bytes)))
}

/// Times every candidate on a random image of the problem's shape (cropped by [`probe_size`]).
fn measure(gpu: &Gpu, problem: &Problem) -> Result<Vec<(Variant, f64)>> {
    let mut probe = problem.clone();
    (probe.width, probe.height) = probe_size(probe.width, probe.height, probe.channels * probe.dtype.size());
    let variants = candidates(&probe);
    if variants.is_empty() {
        let (rows, cols) = problem.filter.shape();
        return Err(Error::Unsupported(format!(
            "no GPU variant runs a {rows}x{cols} filter that is not rank-1 on {} samples: past 31x31 \
             only f32 images run on the GPU (tensor-f32-blocks); the CPU runs every sample type",
            problem.dtype.suffix()
        )));
    }
    let image = Image::noise(probe.width, probe.height, probe.channels, probe.dtype, 0x7a11)?;
    variants
        .into_iter()
        .map(|variant| {
            let kernel = gpu.kernel(variant, probe.dtype)?;
            let mut job = gpu.alloc(variant, &probe)?;
            gpu.upload(&mut job, &image)?;
            let t = stats::warm_then_repeat(stats::WARMUP_RUNS, PROBE_RUNS, || {
                gpu.time(|g| g.launch(&kernel, &mut job))
            })?;
            Ok((variant, t.map_or(f64::INFINITY, |t| t.median)))
        })
        .collect()
}

/// One line describing a choice, for the user.
pub(crate) fn describe(variant: Variant, source: &Source, tuner: &Tuner) -> String {
    let place = tuner.path().map_or("not cached: no cache directory".into(), |p| {
        format!("cache {}", p.display())
    });
    match source {
        Source::Cache => format!("variant auto: {} (from {place})", variant.name()),
        Source::Measured(t) => {
            let times: Vec<String> = t
                .iter()
                .map(|(v, ms)| format!("{} {ms:.3} ms", v.name()))
                .collect();
            format!(
                "variant auto: {} (measured {}; saved to {place})",
                variant.name(),
                times.join(", ")
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::filter::FilterKind;
    use crate::{Border, DType, Filter};
    use std::ffi::OsString;

    fn problem(kind: FilterKind) -> Problem {
        let image = Image::random(8, 8, 1, DType::F32, 1).unwrap();
        Problem::of(
            &image,
            &Filter::builtin(kind, 5, None).unwrap(),
            Border::Zero,
            false,
        )
    }

    #[test]
    fn cache_location_follows_the_environment() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |k: &str| {
                pairs
                    .iter()
                    .find(|(n, _)| *n == k)
                    .map(|(_, v)| OsString::from(v))
            }
        };
        let p = |pairs| cache_path_in(env(pairs)).map(|p| p.display().to_string());
        assert_eq!(
            p(&[("CONV_CACHE_DIR", "/c"), ("HOME", "/h")]).unwrap(),
            "/c/variants.json"
        );
        assert_eq!(
            p(&[("XDG_CACHE_HOME", "/x"), ("HOME", "/h")]).unwrap(),
            "/x/rust-gpu-conv/variants.json"
        );
        assert_eq!(
            p(&[("HOME", "/h")]).unwrap(),
            "/h/.cache/rust-gpu-conv/variants.json"
        );
        assert_eq!(
            p(&[("CONV_CACHE_DIR", ""), ("HOME", "/h")]).unwrap(),
            "/h/.cache/rust-gpu-conv/variants.json"
        );
        assert_eq!(p(&[]), None);
    }

    #[test]
    fn separable_is_a_candidate_only_for_rank1_filters() {
        assert!(candidates(&problem(FilterKind::Gaussian)).contains(&Variant::Separable));
        let general = candidates(&problem(FilterKind::Sharpen));
        assert!(!general.contains(&Variant::Separable));
        assert!(general.contains(&Variant::Blocked4x4) && general.contains(&Variant::TiledOutput32x16));
    }

    /// `blocked-rect` is timed only for filters that are not their own square, whose class
    /// names their shape.
    #[test]
    fn blocked_rect_is_a_candidate_only_for_rectangles() {
        let image = Image::random(64, 20, 1, DType::F32, 1).unwrap();
        let of = |filter: Filter| Problem::of(&image, &filter, Border::Zero, false);
        let wide = of(Filter::random((3, 15), 1).unwrap());
        assert!(candidates(&wide).contains(&Variant::BlockedRect));
        assert!(!candidates(&problem(FilterKind::Sharpen)).contains(&Variant::BlockedRect));
        let shifted = Filter::random((3, 3), 1).unwrap().with_origin((1, 0)).unwrap();
        assert!(candidates(&of(shifted)).contains(&Variant::BlockedRect));
    }

    #[test]
    fn probes_keep_the_width_and_at_most_64_mib() {
        // 8192² 8-bit gray is 64 MiB: timed whole; f32 on 2048 of its rows.
        assert_eq!(probe_size(8192, 8192, 1), (8192, 8192));
        assert_eq!(probe_size(8192, 8192, 4), (8192, 2048));
        assert_eq!(probe_size(5001, 30000, 3), (5001, 4473));
        assert_eq!(probe_size(1000, 700, 16), (1000, 700));
        // Wider than 64 MiB over 256 rows: a crop of the same width modulo 256.
        let (w, h) = probe_size(300_001, 1000, 1);
        assert_eq!((w % 256, h), (300_001 % 256, 256));
        assert!(w <= 262_144 && w * h <= 64 << 20);
    }

    /// `warp-rows` is timed only where it streams by words: 8-bit rows of whole 8-byte words, gray
    /// up to 5x5 or RGB/RGBA up to 3x3, not the valid border.
    #[test]
    fn stream_is_a_candidate_only_where_it_streams_by_words() {
        let streams = |width, channels, k, border| {
            let image = Image::random(width, 20, channels, DType::U8, 1).unwrap();
            let filter = Filter::builtin(FilterKind::Sharpen, k, None).unwrap();
            candidates(&Problem::of(&image, &filter, border, false)).contains(&Variant::WarpRows)
        };
        assert!(streams(64, 1, 5, Border::Zero));
        assert!(streams(64, 3, 3, Border::Reflect));
        assert!(streams(64, 4, 3, Border::Zero));
        assert!(!streams(64, 3, 5, Border::Zero), "RGB 5x5: output by output");
        assert!(!streams(60, 1, 3, Border::Zero), "rows of 60 bytes");
        assert!(!streams(64, 1, 3, Border::Valid), "the valid border");
        assert!(!streams(64, 1, 7, Border::Zero), "no 7x7 entry");
    }
}
