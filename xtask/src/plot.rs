//! `cargo xtask plot DIR`: SVG plots of a `host bench` run from its CSV files (time against image
//! size, percent of roofline per variant, speed-up over the CPU).

use crate::args::Args;
use crate::shell::workspace;
use anyhow::{Context, Result, bail};
use plotters::prelude::*;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// One `bench.csv` row, the columns the plots use.
struct Row {
    pixels: f64,
    size: String,
    dtype: String,
    k: u32,
    variant: String,
    cache: String,
    ms: f64,
    percent: f64,
}

/// The rows of a CSV file with a header line, as maps from column name to cell.
fn read_csv(path: &Path) -> Result<Vec<BTreeMap<String, String>>> {
    let text = std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().context("empty CSV")?.split(',').collect();
    Ok(lines
        .filter(|l| !l.is_empty())
        .map(|l| {
            header
                .iter()
                .map(|h| h.to_string())
                .zip(l.split(',').map(String::from))
                .collect()
        })
        .collect())
}

fn cell<'a>(row: &'a BTreeMap<String, String>, column: &str) -> Result<&'a str> {
    row.get(column)
        .map(String::as_str)
        .with_context(|| format!("no column {column:?}"))
}

fn number(row: &BTreeMap<String, String>, column: &str) -> Result<f64> {
    cell(row, column)?
        .parse()
        .with_context(|| format!("column {column:?} is not a number"))
}

fn pixels(size: &str) -> Result<f64> {
    let (w, h) = size.split_once('x').context("size is not WxH")?;
    Ok(w.parse::<f64>()? * h.parse::<f64>()?)
}

fn bench_rows(dir: &Path) -> Result<Vec<Row>> {
    read_csv(&dir.join("bench.csv"))?
        .iter()
        .map(|r| {
            Ok(Row {
                pixels: pixels(cell(r, "size")?)?,
                size: cell(r, "size")?.to_string(),
                dtype: cell(r, "dtype")?.to_string(),
                k: number(r, "k")? as u32,
                variant: cell(r, "variant")?.to_string(),
                cache: cell(r, "cache")?.to_string(),
                ms: number(r, "median ms")?,
                percent: number(r, "% roofline")?,
            })
        })
        .collect()
}

/// A line chart of named series of `(x, y)` points, with a log-scale x axis and, if `log_y`, a
/// log-scale y axis.
fn chart(
    path: &Path,
    title: &str,
    (x_label, y_label): (&str, &str),
    series: &BTreeMap<String, Vec<(f64, f64)>>,
    log_y: bool,
) -> Result<()> {
    let points = || series.values().flatten();
    let (x0, x1) = points().fold((f64::MAX, f64::MIN), |(a, b), p| (a.min(p.0), b.max(p.0)));
    let (y0, y1) = points().fold((f64::MAX, f64::MIN), |(a, b), p| (a.min(p.1), b.max(p.1)));
    if series.is_empty() || x0 > x1 {
        bail!("nothing to plot for {}", path.display());
    }
    let root = SVGBackend::new(path, (900, 560)).into_drawing_area();
    root.fill(&WHITE)?;
    let mut builder = ChartBuilder::on(&root);
    builder
        .caption(title, ("sans-serif", 22))
        .margin(16)
        .x_label_area_size(44)
        .y_label_area_size(64);
    let x_range = (x0 * 0.9..x1 * 1.1).log_scale();
    if log_y {
        let mut c = builder.build_cartesian_2d(x_range, (y0 * 0.8..y1 * 1.25).log_scale())?;
        c.configure_mesh().x_desc(x_label).y_desc(y_label).draw()?;
        lines(&mut c, series)?;
    } else {
        let mut c = builder.build_cartesian_2d(x_range, 0.0..(y1 * 1.1).max(100.0))?;
        c.configure_mesh().x_desc(x_label).y_desc(y_label).draw()?;
        lines(&mut c, series)?;
    }
    root.present()?;
    Ok(())
}

/// Draws each series as a line with dots, and the legend.
fn lines<'a, Y>(
    chart: &mut ChartContext<'a, SVGBackend<'a>, Cartesian2d<LogCoord<f64>, Y>>,
    series: &BTreeMap<String, Vec<(f64, f64)>>,
) -> Result<()>
where
    Y: Ranged<ValueType = f64>,
{
    for (n, (name, pts)) in series.iter().enumerate() {
        let color = Palette99::pick(n).to_rgba();
        chart
            .draw_series(LineSeries::new(pts.iter().copied(), color.stroke_width(2)))?
            .label(name.as_str())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], color.stroke_width(2)));
        chart.draw_series(pts.iter().map(|&p| Circle::new(p, 3, color.filled())))?;
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .position(SeriesLabelPosition::UpperLeft)
        .draw()?;
    Ok(())
}

/// `cargo xtask plot [DIR]` (default target/bench).
pub fn run(mut args: Args) -> Result<()> {
    let dir = args
        .positional::<PathBuf>("DIR")?
        .unwrap_or_else(|| workspace().join("target/bench"));
    args.finish()?;
    write_plots(&dir)
}

/// Plots the CSV files in `dir` and says which files it wrote.
pub fn write_plots(dir: &Path) -> Result<()> {
    for path in plot(dir)? {
        println!("wrote {path}");
    }
    Ok(())
}

/// Writes `time-vs-size.svg`, `roofline.svg` and (with `bench-cpu.csv`) `speedup.svg` into `dir`.
pub fn plot(dir: &Path) -> Result<Vec<String>> {
    let rows = bench_rows(dir)?;
    let warm_f32 = |r: &&Row| r.dtype == "f32" && r.cache == "warm";
    let k_time = if rows.iter().any(|r| r.k == 5) {
        5
    } else {
        rows.first().context("no rows")?.k
    };
    let largest = rows.iter().filter(warm_f32).map(|r| r.pixels).fold(0.0, f64::max);
    let largest_size = rows
        .iter()
        .find(|r| r.pixels == largest)
        .map_or("?", |r| r.size.as_str());
    let mut written = Vec::new();

    let mut by_variant: BTreeMap<String, Vec<(f64, f64)>> = BTreeMap::new();
    for r in rows.iter().filter(warm_f32).filter(|r| r.k == k_time) {
        by_variant
            .entry(r.variant.clone())
            .or_default()
            .push((r.pixels / 1e6, r.ms));
    }
    sort(&mut by_variant);
    let path = dir.join("time-vs-size.svg");
    chart(
        &path,
        &format!("Kernel time vs image size (f32, k={k_time}, warm)"),
        ("megapixels", "median ms"),
        &by_variant,
        true,
    )?;
    written.push(path.display().to_string());

    let mut by_variant: BTreeMap<String, Vec<(f64, f64)>> = BTreeMap::new();
    for r in rows.iter().filter(warm_f32).filter(|r| r.pixels == largest) {
        by_variant
            .entry(r.variant.clone())
            .or_default()
            .push((f64::from(r.k), r.percent));
    }
    sort(&mut by_variant);
    let path = dir.join("roofline.svg");
    chart(
        &path,
        &format!("Percent of roofline per variant ({largest_size}, f32, warm)"),
        ("filter size k", "% of roofline"),
        &by_variant,
        false,
    )?;
    written.push(path.display().to_string());

    let cpu_path = dir.join("bench-cpu.csv");
    if cpu_path.exists() {
        let cpu = read_csv(&cpu_path)?;
        let cpu_ms = |size: &str, k: u32| -> Option<f64> {
            cpu.iter()
                .find(|c| {
                    c.get("size").map(String::as_str) == Some(size) && c.get("k") == Some(&k.to_string())
                })
                .and_then(|c| c.get("cpu-par ms")?.parse().ok())
        };
        let cpu_largest = cpu
            .iter()
            .filter_map(|c| pixels(c.get("size")?).ok())
            .fold(0.0, f64::max);
        let mut by_variant: BTreeMap<String, Vec<(f64, f64)>> = BTreeMap::new();
        let mut size = String::new();
        for r in rows.iter().filter(warm_f32).filter(|r| r.pixels == cpu_largest) {
            if let Some(c) = cpu_ms(&r.size, r.k) {
                size = r.size.clone();
                by_variant
                    .entry(r.variant.clone())
                    .or_default()
                    .push((f64::from(r.k), c / r.ms));
            }
        }
        sort(&mut by_variant);
        let path = dir.join("speedup.svg");
        chart(
            &path,
            &format!("Speed-up over cpu-par ({size}, f32, warm kernel time vs whole CPU call)"),
            ("filter size k", "x faster than cpu-par"),
            &by_variant,
            true,
        )?;
        written.push(path.display().to_string());
    }
    Ok(written)
}

fn sort(series: &mut BTreeMap<String, Vec<(f64, f64)>>) {
    for pts in series.values_mut() {
        pts.sort_by(|a, b| a.0.total_cmp(&b.0));
    }
}
