//! The comparison with the hand-written CUDA C++ peers: reads the `peers.csv` that the peers
//! binary (`shared/peers/peers.cu`) wrote on the same GPU in the same run, and sets the fastest
//! general (non-separable) variant of the benchmark beside the best `g_fast` row, case by case.

use crate::bench::sweep::BenchRow;
use ferroconv::{DType, Error, Result};
use std::fmt::Write as _;

/// One row of `peers.csv` (only the columns the comparison needs).
#[derive(Clone, Debug, PartialEq)]
pub struct PeerRow {
    pub variant: String,
    pub width: usize,
    pub height: usize,
    pub k: usize,
    /// `warm` or `cold`, as in the benchmark.
    pub cache: String,
    pub median_ms: f64,
    /// Whether the peer's own check against its f64 reference passed (`check` = `ok`).
    pub ok: bool,
}

/// Parses `peers.csv` by its header's column names.
pub fn parse(text: &str) -> Result<Vec<PeerRow>> {
    let bad = |what: String| Error::Peers(what);
    let mut lines = text.lines().filter(|l| !l.trim().is_empty());
    let header: Vec<&str> = lines
        .next()
        .ok_or_else(|| bad("the file is empty".into()))?
        .split(',')
        .collect();
    let column = |name: &str| {
        header
            .iter()
            .position(|h| h.trim() == name)
            .ok_or_else(|| bad(format!("no '{name}' column in the header")))
    };
    let [variant, width, height, k, cache, median, check] =
        ["variant", "width", "height", "k", "cache", "median_ms", "check"].map(column);
    let (variant, width, height, k, cache, median, check) =
        (variant?, width?, height?, k?, cache?, median?, check?);
    lines
        .enumerate()
        .map(|(i, line)| {
            let cells: Vec<&str> = line.split(',').map(str::trim).collect();
            let cell = |at: usize| {
                cells
                    .get(at)
                    .copied()
                    .ok_or_else(|| bad(format!("line {} has only {} columns", i + 2, cells.len())))
            };
            let number = |at: usize| -> Result<f64> {
                let text = cell(at)?;
                text.parse()
                    .map_err(|_| bad(format!("line {}: '{text}' is not a number", i + 2)))
            };
            Ok(PeerRow {
                variant: cell(variant)?.to_string(),
                width: number(width)? as usize,
                height: number(height)? as usize,
                k: number(k)? as usize,
                cache: cell(cache)?.to_string(),
                median_ms: number(median)?,
                ok: cell(check)? == "ok",
            })
        })
        .collect()
}

/// One case: the project's fastest general variant against the best `g_fast` peer.
#[derive(Clone, Debug, PartialEq)]
pub struct Comparison {
    pub width: usize,
    pub height: usize,
    pub k: usize,
    pub ours: String,
    pub ours_ms: f64,
    pub peer: String,
    pub peer_ms: f64,
}

impl Comparison {
    /// Our time over the peer's: below 1 is faster than the peer.
    pub fn ratio(&self) -> f64 {
        self.ours_ms / self.peer_ms
    }
}

/// The peer kernels the comparison takes the best of: `peers.cu`'s register-blocked general 2D
/// kernels.
const PEER_PREFIX: &str = "g_fast";

/// Every case both sides measured (f32, one channel, warm; the benchmark's rows are gray with a
/// zero border, as the peers'), in the benchmark's order.
pub fn compare(rows: &[BenchRow], peers: &[PeerRow]) -> Vec<Comparison> {
    let mut out: Vec<Comparison> = Vec::new();
    let general = rows.iter().filter(|r| {
        r.dtype == DType::F32 && r.channels == 1 && r.cache == "warm" && !r.variant.needs_rank1()
    });
    for r in general {
        let best_peer = peers
            .iter()
            .filter(|p| {
                p.ok && p.cache == "warm"
                    && p.variant.starts_with(PEER_PREFIX)
                    && (p.width, p.height, (p.k, p.k)) == (r.width, r.height, r.filter)
            })
            .min_by(|a, b| a.median_ms.total_cmp(&b.median_ms));
        let Some(peer) = best_peer else { continue };
        let case = (r.width, r.height, r.filter.0);
        match out.iter_mut().find(|c| (c.width, c.height, c.k) == case) {
            Some(c) if r.timing.median < c.ours_ms => {
                c.ours = r.variant.name().to_string();
                c.ours_ms = r.timing.median;
            }
            Some(_) => {}
            None => out.push(Comparison {
                width: r.width,
                height: r.height,
                k: r.filter.0,
                ours: r.variant.name().to_string(),
                ours_ms: r.timing.median,
                peer: peer.variant.clone(),
                peer_ms: peer.median_ms,
            }),
        }
    }
    out
}

/// The geometric mean of the ratios (`None` without cases).
pub fn geomean_ratio(cases: &[Comparison]) -> Option<f64> {
    (!cases.is_empty())
        .then(|| (cases.iter().map(|c| c.ratio().ln()).sum::<f64>() / cases.len() as f64).exp())
}

/// Column headers of the comparison table.
pub const HEADERS: [&str; 7] = [
    "size",
    "k",
    "ours",
    "ours ms",
    "best g_fast",
    "g_fast ms",
    "ours / g_fast",
];

/// The cells of one case, in [`HEADERS`] order.
pub fn cells(c: &Comparison) -> Vec<String> {
    vec![
        format!("{}x{}", c.width, c.height),
        c.k.to_string(),
        c.ours.clone(),
        format!("{:.4}", c.ours_ms),
        c.peer.clone(),
        format!("{:.4}", c.peer_ms),
        format!("{:.3}", c.ratio()),
    ]
}

/// The comparison as CSV with a header line.
pub fn csv(cases: &[Comparison]) -> String {
    let mut s = HEADERS.join(",") + "\n";
    for c in cases {
        s += &(cells(c).join(",") + "\n");
    }
    s
}

/// The comparison as a Markdown section.
pub fn markdown(cases: &[Comparison]) -> String {
    let mut s = String::from(
        "\n## Against the hand-written CUDA C++ peer\n\nf32, one channel, zero border, warm: the fastest \
         general (non-separable) variant measured here beside the fastest `g_fast` row of `peers.csv`, \
         written by the peers binary on the same GPU in the same run (its check passed). Below 1 is \
         faster than the peer.\n\n",
    );
    let _ = writeln!(s, "| {} |", HEADERS.join(" | "));
    let _ = writeln!(s, "|{}", "---|".repeat(HEADERS.len()));
    for c in cases {
        let _ = writeln!(s, "| {} |", cells(c).join(" | "));
    }
    if let Some(g) = geomean_ratio(cases) {
        let _ = writeln!(
            s,
            "\nGeometric mean of ours / g_fast over {} cases: {g:.3}",
            cases.len()
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use ferroconv::engine::gpu::Variant;

    const CSV: &str = "variant,width,height,k,cache,reps,median_ms,min_ms,gbps,gflops,max_abs_err,floor_ms,frac_of_floor,check
g_fast_px4py2,2048,2048,5,warm,100,0.0125,0.0120,2680,8000,1e-6,0.011,0.9,ok
g_fast_px4py4,2048,2048,5,warm,100,0.0130,0.0121,2600,7900,1e-6,0.011,0.9,ok
g_fast_px4py4,2048,2048,5,cold,100,0.0100,0.0090,2600,7900,1e-6,0.011,0.9,ok
g_fast_px4py2,2048,2048,3,warm,100,0.0050,0.0049,2600,7900,1e-6,0.011,0.9,FAIL
a_naive,2048,2048,3,warm,100,0.0010,0.0010,2600,7900,1e-6,0.011,0.9,ok
";

    #[test]
    fn parses_by_column_name_and_keeps_the_check() {
        let rows = parse(CSV).unwrap();
        assert_eq!(rows.len(), 5);
        assert_eq!(rows[0].variant, "g_fast_px4py2");
        assert_eq!((rows[0].width, rows[0].height, rows[0].k), (2048, 2048, 5));
        assert_eq!(rows[0].median_ms, 0.0125);
        assert!(rows[0].ok && !rows[3].ok);
        assert!(parse("").is_err());
        assert!(
            parse("variant,width\ng,1")
                .unwrap_err()
                .to_string()
                .contains("'height'")
        );
        let bad = CSV.replace("0.0125", "fast");
        assert!(parse(&bad).unwrap_err().to_string().contains("line 2"));
    }

    fn row(variant: Variant, dtype: DType, k: usize, cache: &'static str, ms: f64) -> BenchRow {
        BenchRow {
            width: 2048,
            height: 2048,
            dtype,
            channels: 1,
            filter: (k, k),
            variant,
            cache,
            timing: ferroconv::stats::Timing {
                median: ms,
                min: ms,
                runs: 1,
            },
            gbps: 0.0,
            gflops: 0.0,
            memory_ms: 0.0,
            fp32_ms: 0.0,
        }
    }

    #[test]
    fn our_fastest_general_warm_f32_row_meets_the_best_checked_warm_g_fast_row() {
        let peers = parse(CSV).unwrap();
        let rows = [
            row(Variant::Blocked4x4, DType::F32, 5, "warm", 0.0110),
            row(Variant::TiledOutput32x16, DType::F32, 5, "warm", 0.0100),
            // Not general, not f32, or cold: left out.
            row(Variant::SeparableFused, DType::F32, 5, "warm", 0.0010),
            row(Variant::Blocked4x4, DType::U8, 5, "warm", 0.0010),
            row(Variant::Blocked4x4, DType::F32, 5, "cold", 0.0010),
            // The only k=3 g_fast row failed its check: no case.
            row(Variant::Blocked4x4, DType::F32, 3, "warm", 0.0050),
        ];
        let cases = compare(&rows, &peers);
        assert_eq!(cases.len(), 1, "{cases:?}");
        let c = &cases[0];
        assert_eq!(
            (c.k, c.ours.as_str(), c.ours_ms),
            (5, Variant::TiledOutput32x16.name(), 0.0100)
        );
        assert_eq!((c.peer.as_str(), c.peer_ms), ("g_fast_px4py2", 0.0125));
        assert!((c.ratio() - 0.8).abs() < 1e-12);
        let slower = Comparison {
            ours_ms: 0.025,
            ..c.clone()
        };
        let g = geomean_ratio(&[c.clone(), slower]).unwrap();
        assert!((g - (0.8f64 * 2.0).sqrt()).abs() < 1e-12);
        assert_eq!(geomean_ratio(&[]), None);
        assert!(markdown(&cases).contains("| 2048x2048 | 5 |"));
    }
}
