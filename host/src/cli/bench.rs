//! `host bench`: times variants over sizes, filter sizes and sample types against the GPU's
//! roofline, then the end-to-end and CPU runs; prints the tables and writes CSV and Markdown.

use super::names;
use super::table;
use super::values::{parse_shape, parse_size, parse_variant};
use anyhow::{Context as _, Result, bail};
use ferroconv::DType;
use ferroconv::engine::gpu::{Gpu, Variant};
use host_tools::bench::peers::{Comparison, PeerRow};
use host_tools::bench::sweep::{BenchConfig, TimingMethod};
use std::path::{Path, PathBuf};

#[derive(clap::Args, Debug)]
pub struct BenchArgs {
    /// Image sizes as WIDTHxHEIGHT, comma-separated.
    #[arg(long, value_delimiter = ',', value_parser = parse_size,
          default_value = "1024x1024,2048x2048,4096x4096,8192x8192,3000x2000")]
    sizes: Vec<(usize, usize)>,
    /// Filter shapes, comma-separated: K (K×K) or RxC (rows × columns, e.g. 3x15).
    #[arg(long, value_delimiter = ',', value_parser = parse_shape, default_value = "3,5,7,9,17,31")]
    filters: Vec<(usize, usize)>,
    /// Sample types, comma-separated.
    #[arg(long, value_delimiter = ',', value_parser = names::dtype(), default_value = "f32,u8")]
    dtypes: Vec<DType>,
    /// Channel counts, comma-separated (1 gray, 3 RGB, 4 RGBA; the alpha channel is copied).
    #[arg(long, value_delimiter = ',', default_value = "1")]
    channels: Vec<usize>,
    /// GPU variants, comma-separated.
    #[arg(long, value_delimiter = ',', value_parser = parse_variant,
          default_value = "blocked-4x4,blocked-4x2,tiled-output-32x16,tiled,constant,separable,separable-fused")]
    variants: Vec<Variant>,
    /// Timed runs per configuration (after 3 warm-ups).
    #[arg(long, default_value_t = 10)]
    runs: usize,
    /// How each kernel is timed: `back-to-back` (launches queued behind a GPU-side wait, each
    /// between its own events: the GPU time alone) or `host-launched` (each launch from the
    /// host between two events: includes the launch latency).
    #[arg(long, value_parser = names::timing(), default_value = "back-to-back")]
    timing: TimingMethod,
    /// A `peers.csv` written by the peers binary on this GPU in this run: prints (and writes
    /// to peers-ratio.csv and bench.md) the fastest general f32 variant against the best
    /// `g_fast` row for every case both measured.
    #[arg(long)]
    peers: Option<PathBuf>,
    /// Filter size of the end-to-end (pinned, multi-stream) runs.
    #[arg(long, default_value_t = 5)]
    e2e_filter: usize,
    /// Strips the end-to-end runs split the image into.
    #[arg(long, default_value_t = 16)]
    strips: usize,
    /// Streams the end-to-end runs spread the strips over (at least 2 to overlap).
    #[arg(long, default_value_t = 2)]
    streams: usize,
    /// Folder for bench.csv, bench-e2e.csv, bench-cpu.csv and bench.md.
    #[arg(long, default_value = "target/bench")]
    out: PathBuf,
}

/// Runs the benchmark; needs a GPU.
pub fn run(args: BenchArgs) -> Result<()> {
    let config = BenchConfig {
        sizes: args.sizes,
        filters: args.filters,
        dtypes: args.dtypes,
        channels: args.channels,
        variants: args.variants,
        runs: args.runs,
        timing: args.timing,
        e2e_filter: args.e2e_filter,
        strips: args.strips,
        streams: args.streams,
    };
    // Read before the GPU work, so a wrong path fails at once.
    let peers = args.peers.as_deref().map(read_peers).transpose()?;
    check(&config)?;
    let out = &args.out;
    std::fs::create_dir_all(out).with_context(|| format!("cannot create {}", out.display()))?;
    let gpu = Gpu::new().context("the benchmark needs a GPU")?;
    let command = std::env::args().collect::<Vec<_>>().join(" ");
    let (machine, rows) = host_tools::bench::sweep::run(&gpu, &config, |r| {
        eprintln!("{}", host_tools::bench::sweep::cells(r).join("  "));
    })
    .context("running the benchmark")?;
    for line in host_tools::bench::sweep::machine_lines(&machine) {
        println!("{line}");
    }
    let table: Vec<Vec<String>> = rows.iter().map(host_tools::bench::sweep::cells).collect();
    table::print(&host_tools::bench::sweep::HEADERS, &table);
    let comparison = peers.map(|p| host_tools::bench::peers::compare(&rows, &p));
    if let Some(cases) = &comparison {
        print_comparison(cases);
    }
    let e2e = host_tools::bench::sweep::end_to_end(&gpu, &config, |r| {
        eprintln!("{}", host_tools::bench::sweep::e2e_cells(r).join("  "));
    })
    .context("running the end-to-end benchmark")?;
    println!();
    let table: Vec<Vec<String>> = e2e.iter().map(host_tools::bench::sweep::e2e_cells).collect();
    table::print(&host_tools::bench::sweep::E2E_HEADERS, &table);
    let cpu = host_tools::bench::sweep::cpu_times(&config).context("timing the CPU")?;
    println!(
        "\ncpu-par ({} threads), f32, whole call: {}",
        rayon::current_num_threads(),
        cpu.iter()
            .map(|r| format!(
                "{}x{} k={} {:.3} ms",
                r.width,
                r.height,
                host_tools::bench::sweep::shape_name(r.filter),
                r.ms
            ))
            .collect::<Vec<_>>()
            .join("; ")
    );
    let mut markdown = host_tools::bench::sweep::markdown(&machine, &command, config.timing, &rows, &e2e);
    let mut files = vec![
        ("bench.csv", host_tools::bench::sweep::csv(&rows)),
        ("bench-cpu.csv", host_tools::bench::sweep::cpu_csv(&cpu)),
        ("bench-e2e.csv", host_tools::bench::sweep::e2e_csv(&e2e)),
    ];
    if let Some(cases) = &comparison {
        markdown += &host_tools::bench::peers::markdown(cases);
        files.push(("peers-ratio.csv", host_tools::bench::peers::csv(cases)));
    }
    files.push(("bench.md", markdown));
    for (name, text) in files {
        let path = out.join(name);
        std::fs::write(&path, text).with_context(|| format!("cannot write {}", path.display()))?;
        println!("wrote {}", path.display());
    }
    Ok(())
}

/// Reads a `peers.csv`.
fn read_peers(path: &Path) -> Result<Vec<PeerRow>> {
    let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    host_tools::bench::peers::parse(&text).with_context(|| format!("{}", path.display()))
}

/// Refuses sizes, filter sizes, strips and streams that cannot run.
fn check(config: &BenchConfig) -> Result<()> {
    for &(w, h) in &config.sizes {
        ferroconv::model::image::check_dims(w, h).context("--sizes")?;
    }
    for &(rows, cols) in &config.filters {
        ferroconv::Filter::rect(rows, cols, vec![1.0; rows * cols]).context("--filters")?;
    }
    ferroconv::model::filter::check_size(config.e2e_filter).context("--e2e-filter")?;
    for &c in &config.channels {
        ferroconv::model::image::check_channels(c).context("--channels")?;
    }
    if config.strips == 0 || config.streams == 0 {
        bail!("--strips and --streams must be at least 1");
    }
    Ok(())
}

/// The table of our fastest variant against the best `g_fast` row, and their geometric mean.
fn print_comparison(cases: &[Comparison]) {
    println!("\nAgainst the best g_fast row of peers.csv (f32, gray, zero border, warm; below 1 = faster):");
    let table: Vec<Vec<String>> = cases.iter().map(host_tools::bench::peers::cells).collect();
    table::print(&host_tools::bench::peers::HEADERS, &table);
    match host_tools::bench::peers::geomean_ratio(cases) {
        Some(g) => println!(
            "geometric mean of ours / g_fast over {} cases: {g:.3}",
            cases.len()
        ),
        None => println!("no case was measured by both (same size and k, warm, f32)"),
    }
}
