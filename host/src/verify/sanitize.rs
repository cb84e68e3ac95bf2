//! The sanitizer suite's pieces that need no GPU: which `verify` run each `compute-sanitizer`
//! tool gets, and reading the error count from the sanitizer's summary line.

use ferroconv::DType;
use ferroconv::engine::gpu::Variant;
use std::path::PathBuf;

/// The `compute-sanitizer` tools the suite runs.
pub const TOOLS: [&str; 4] = ["memcheck", "racecheck", "synccheck", "initcheck"];

/// The image sizes every tool checks by default (`host sanitize --sizes` narrows them).
pub const SIZES: &str = "1x1,7x5,257x129,1023x769";

/// The other `host verify` arguments every tool runs: every variant, several filter sizes, two
/// rectangles and a rank-1 filter past 31 × 31 (`separable` only), a subset of borders (the
/// constant one with its 0.75) and layouts.
pub const VERIFY_ARGS: [&str; 10] = [
    "--filters",
    "1,3,7,17,3x7,15x1,31x3,45",
    "--borders",
    "zero,reflect,symmetric,constant,valid",
    "--channels",
    "1,4",
    "--dtypes",
    "f32,u8",
    "--seed",
    "11",
];

/// Images with more pixels than this run the reduced [`LARGE_VERIFY_ARGS`] case set (the
/// sanitizers slow every memory access down by orders of magnitude).
pub const LARGE_PIXELS: usize = 100_000;

/// The `host verify` arguments for the large sizes: every variant, a small and a large filter, the
/// zero, symmetric and constant borders, gray and RGBA, f32.
pub const LARGE_VERIFY_ARGS: [&str; 10] = [
    "--filters",
    "3,17",
    "--borders",
    "zero,symmetric,constant",
    "--channels",
    "1,4",
    "--dtypes",
    "f32",
    "--seed",
    "11",
];

/// The `host verify` arguments of one kernel's own run: `sizes`, `variant`, `filters` and
/// `dtypes`, with the zero, reflect, symmetric, constant and valid borders, gray, RGB and RGBA,
/// and seed 11.
const fn own_run(
    sizes: &'static str,
    variant: &'static str,
    filters: &'static str,
    dtypes: &'static str,
) -> [&'static str; 14] {
    [
        "--sizes",
        sizes,
        "--variants",
        variant,
        "--filters",
        filters,
        "--borders",
        "zero,reflect,symmetric,constant,valid",
        "--channels",
        "1,3,4",
        "--dtypes",
        dtypes,
        "--seed",
        "11",
    ]
}

/// The `host verify` arguments of the `tensor-u8` kernel's own run: gray, RGB and RGBA images of
/// whole tiles across and a width that is a multiple of 16 (its inner tiles load 16-byte
/// vectors), and of a width that is a multiple of 4 only (RGB loads pixel by pixel), every border
/// but replicate and wrap, its smallest and largest filters.
pub const TENSOR_U8_VERIFY_ARGS: [&str; 14] = own_run("528x268,300x140", "tensor-u8", "3,9", "u8");

/// The `host verify` arguments of the `tensor-f32` kernel's own run: gray, RGB and RGBA images of
/// whole tiles across (its inner gray tiles load 16-byte vectors where the width is a multiple of
/// 4), every border but replicate and wrap, `f32` samples and its smallest, a middle and its
/// largest filters; and `tensor-f32-blocks` (the same kernel, in blocks that shift and add) on a
/// square and a rectangle past 31.
pub const TENSOR_F32_VERIFY_ARGS: [&str; 14] = own_run(
    "528x268",
    "tensor-f32,tensor-f32-blocks",
    "3,17,31,63,45x9",
    "f32",
);

/// The `host verify` arguments of the `warp-rows` kernel's own run: gray, RGB and RGBA images whose
/// rows are whole 8-byte words (loaded a word per lane), ending on lane 1 of a strip (528) and on
/// lane 0 (264 gray, 88 RGB bytes), every border but replicate and wrap, its filters.
pub const WARP_ROWS_VERIFY_ARGS: [&str; 14] = own_run("528x268,264x40,88x20", "warp-rows", "1,3,5", "u8");

/// The `host verify` arguments of the `lines-u8` kernel's own run: gray images whose rows are whole
/// 16-byte vectors (528, and 16: one vector holding both ends) or 4-byte words (516), rows and
/// columns of both radius ends and an even length (colour images run output by output).
pub const LINES_U8_VERIFY_ARGS: [&str; 14] =
    own_run("528x268,516x37,16x9", "lines-u8", "1x3,3x1,1x31,31x1,1x2", "u8");

/// The `verify` runs one tool gets for `sizes`: the small sizes with [`VERIFY_ARGS`], the large
/// ones (over [`LARGE_PIXELS`]) with [`LARGE_VERIFY_ARGS`], each as `--sizes LIST` plus the
/// arguments; then [`TENSOR_U8_VERIFY_ARGS`], [`TENSOR_F32_VERIFY_ARGS`], [`WARP_ROWS_VERIFY_ARGS`]
/// and [`LINES_U8_VERIFY_ARGS`].
pub fn verify_runs(sizes: &[(usize, usize)]) -> Vec<Vec<String>> {
    let list = |large: bool| {
        sizes
            .iter()
            .filter(|(w, h)| (w * h > LARGE_PIXELS) == large)
            .map(|(w, h)| format!("{w}x{h}"))
            .collect::<Vec<_>>()
            .join(",")
    };
    [(list(false), &VERIFY_ARGS), (list(true), &LARGE_VERIFY_ARGS)]
        .into_iter()
        .filter(|(list, _)| !list.is_empty())
        .map(|(list, args)| {
            ["--sizes".to_string(), list]
                .into_iter()
                .chain(args.iter().map(|a| a.to_string()))
                .collect()
        })
        .chain(
            [
                TENSOR_U8_VERIFY_ARGS,
                TENSOR_F32_VERIFY_ARGS,
                WARP_ROWS_VERIFY_ARGS,
                LINES_U8_VERIFY_ARGS,
            ]
            .map(|args| args.iter().map(|a| a.to_string()).collect()),
        )
        .collect()
}

/// One case set of the suite: a tool's `host verify` run (`args`) of one variant, which runs in
/// minutes under the slowest tool (racecheck) where a run of every variant takes most of an hour.
#[derive(Clone, Debug, PartialEq)]
pub struct CaseSet {
    pub tool: String,
    pub variant: Variant,
    /// The `host verify` arguments, `--variants` naming the one variant.
    pub args: Vec<String>,
}

impl CaseSet {
    /// `racecheck verify --sizes 7x5 --variants tiled ...`: what `host sanitize --list` prints.
    pub fn describe(&self) -> String {
        format!("{} verify {}", self.tool, self.args.join(" "))
    }
}

/// The suite's case sets for `tools` and `sizes`, limited to `variants`: for each tool, each of
/// [`verify_runs`] split by variant (every variant in `variants` for the runs of every variant,
/// the kernel's own for its own runs), leaving out a variant with no kernels for the run's
/// sample types.
pub fn case_sets(tools: &[String], sizes: &[(usize, usize)], variants: &[Variant]) -> Vec<CaseSet> {
    let runs = verify_runs(sizes);
    let mut sets = Vec::new();
    for tool in tools {
        for run in &runs {
            let value = |name: &str| {
                let at = run.iter().position(|a| a == name)?;
                run.get(at + 1)
                    .map(|v| v.split(',').map(str::to_string).collect::<Vec<_>>())
            };
            let own = value("--variants");
            let dtypes: Vec<DType> = value("--dtypes")
                .unwrap_or_default()
                .iter()
                .filter_map(|d| d.parse().ok())
                .collect();
            for &variant in variants {
                let name = variant.name();
                if own.as_ref().is_some_and(|own| !own.iter().any(|v| v == name))
                    || !dtypes.iter().any(|&d| variant.supports_dtype(d))
                {
                    continue;
                }
                // `--variants NAME` right after `--sizes LIST`, in place of a run's own list.
                let mut args: Vec<String> = run[..2].to_vec();
                args.extend(["--variants".to_string(), name.to_string()]);
                let mut rest = run[2..].iter();
                while let Some(a) = rest.next() {
                    if a == "--variants" {
                        rest.next();
                    } else {
                        args.push(a.clone());
                    }
                }
                sets.push(CaseSet {
                    tool: tool.clone(),
                    variant,
                    args,
                });
            }
        }
    }
    sets
}

/// Part `index` of `count` of `sets` (0-based), with each set's number in the whole list: the
/// sets `i` with `i mod count == index`, so the parts share the slow and the quick sets and
/// every set is in exactly one part.
pub fn shard<T>(sets: Vec<T>, index: usize, count: usize) -> Vec<(usize, T)> {
    sets.into_iter()
        .enumerate()
        .filter(|(i, _)| count > 0 && i % count == index)
        .collect()
}

/// The number of errors in `compute-sanitizer`'s output (the last summary, if there are several),
/// or `None` if there is none. memcheck, synccheck and initcheck end with
/// `ERROR SUMMARY: N error(s)`; racecheck with
/// `RACECHECK SUMMARY: H hazards displayed (E errors, W warnings)`, whose errors are E.
pub fn error_count(output: &str) -> Option<usize> {
    output
        .lines()
        .filter_map(|l| {
            if let Some((_, rest)) = l.split_once("ERROR SUMMARY:") {
                rest.split_whitespace().next()?.parse().ok()
            } else {
                let (_, rest) = l.split_once("RACECHECK SUMMARY:")?;
                rest.split_once('(')?.1.split_whitespace().next()?.parse().ok()
            }
        })
        .next_back()
}

/// `compute-sanitizer`: `$COMPUTE_SANITIZER`, else on `PATH`, else under `$CUDA_HOME/bin` or
/// `/usr/local/cuda/bin`.
pub fn find_sanitizer() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("COMPUTE_SANITIZER") {
        return Some(PathBuf::from(p)).filter(|p| p.is_file());
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    let cuda = std::env::var_os("CUDA_HOME").map(|h| PathBuf::from(h).join("bin"));
    std::env::split_paths(&path)
        .chain(cuda)
        .chain([PathBuf::from("/usr/local/cuda/bin")])
        .map(|d| d.join("compute-sanitizer"))
        .find(|p| p.is_file())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn large_sizes_get_the_reduced_case_set() {
        let runs = verify_runs(&[(1, 1), (257, 129), (1023, 769)]);
        assert_eq!(runs.len(), 6);
        assert_eq!(runs[0][..2], ["--sizes", "1x1,257x129"]);
        assert_eq!(runs[0][2..], VERIFY_ARGS);
        assert_eq!(runs[1][..2], ["--sizes", "1023x769"]);
        assert_eq!(runs[1][2..], LARGE_VERIFY_ARGS);
        assert_eq!(runs[2], TENSOR_U8_VERIFY_ARGS);
        assert_eq!(runs[3], TENSOR_F32_VERIFY_ARGS);
        assert_eq!(runs[4], WARP_ROWS_VERIFY_ARGS);
        assert_eq!(runs[5], LINES_U8_VERIFY_ARGS);
        assert_eq!(verify_runs(&[(7, 5)]).len(), 5);
    }

    #[test]
    fn case_sets_are_one_variant_each_and_shards_split_them() {
        let tools = ["racecheck".to_string(), "synccheck".to_string()];
        let sets = case_sets(&tools, &[(7, 5), (257, 129)], &Variant::ALL);
        for set in &sets {
            let at = set.args.iter().position(|a| a == "--variants").unwrap();
            assert_eq!(set.args[at + 1], set.variant.name(), "{}", set.describe());
            assert_eq!(set.args.iter().filter(|a| *a == "--variants").count(), 1);
            assert_eq!(set.args[0], "--sizes");
        }
        assert!(sets.iter().any(|s| s.args[1] == "7x5,257x129"));
        // The runs of every variant: every variant under every tool; the own runs their kernels'.
        assert_eq!(
            sets.iter().filter(|s| s.args.iter().any(|a| a == "3,9")).count(),
            2,
            "tensor-u8's own run, once per tool"
        );
        // (`host verify` takes the CLI's sample types, which `tensor-f16`'s f16 is not.)
        for v in Variant::ALL
            .into_iter()
            .filter(|v| DType::ALL.iter().any(|&d| v.supports_dtype(d)))
        {
            assert!(
                sets.iter().any(|s| s.variant == v && s.tool == "racecheck"),
                "{}",
                v.name()
            );
        }
        let tiled = case_sets(&tools, &[(7, 5)], &[Variant::Tiled]);
        assert_eq!(tiled.len(), 2);
        // f32-only variants get no case set of a u8-only run.
        let f32_only = case_sets(&tools[..1], &[(7, 5)], &[Variant::TensorF32]);
        assert!(f32_only.iter().all(|s| !s.args.contains(&"u8".to_string())));
        for count in 1..=5 {
            let mut seen: Vec<usize> = (0..count)
                .flat_map(|k| shard(sets.clone(), k, count).into_iter().map(|(i, _)| i))
                .collect();
            seen.sort();
            assert_eq!(seen, (0..sets.len()).collect::<Vec<_>>());
        }
    }

    #[test]
    fn reads_the_summary_line() {
        assert_eq!(error_count("========= ERROR SUMMARY: 0 errors\n"), Some(0));
        let out = "x\n========= Invalid __global__ read\n========= ERROR SUMMARY: 3 errors\n";
        assert_eq!(error_count(out), Some(3));
        assert_eq!(error_count("========= ERROR SUMMARY: 1 error"), Some(1));
        assert_eq!(error_count("no summary"), None);
        let race = "========= RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)\n";
        assert_eq!(error_count(race), Some(0));
        let race = "========= RACECHECK SUMMARY: 7 hazards displayed (2 errors, 5 warnings)\n";
        assert_eq!(error_count(race), Some(2));
    }
}
