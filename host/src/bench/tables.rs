//! The benchmark sweep's output: the column headers and cells shared by the console table, the
//! CSV files and the Markdown report, and the machine's facts as lines.

use super::sweep::{BenchRow, CpuRow, E2eRow, Machine, TimingMethod};
use std::fmt::Write as _;

/// The column headers and one row's cells, shared by the CSV, the Markdown and the console table.
pub const HEADERS: [&str; 15] = [
    "size",
    "dtype",
    "channels",
    "k",
    "variant",
    "cache",
    "median ms",
    "min ms",
    "GB/s",
    "GFLOP/s",
    "roofline ms",
    "% roofline",
    "bound",
    "% memory floor",
    "x FP32 roofline",
];

/// The cells of `row`, in [`HEADERS`] order.
pub fn cells(row: &BenchRow) -> Vec<String> {
    vec![
        format!("{}x{}", row.width, row.height),
        row.dtype.suffix().to_string(),
        row.channels.to_string(),
        shape_name(row.filter),
        row.variant.name().to_string(),
        row.cache.to_string(),
        format!("{:.4}", row.timing.median),
        format!("{:.4}", row.timing.min),
        format!("{:.0}", row.gbps),
        format!("{:.0}", row.gflops),
        format!("{:.4}", row.roofline_ms()),
        format!("{:.1}", row.percent_of_roofline()),
        row.bound().to_string(),
        format!("{:.1}", row.percent_of_memory_floor()),
        format!("{:.2}", row.times_fp32_roofline()),
    ]
}

/// Column headers of the end-to-end table.
pub const E2E_HEADERS: [&str; 10] = [
    "size",
    "dtype",
    "k",
    "strips",
    "streams",
    "copy in ms",
    "copy out ms",
    "both copies ms",
    "end-to-end ms",
    "x slower copy",
];

/// The cells of `row`, in [`E2E_HEADERS`] order.
pub fn e2e_cells(row: &E2eRow) -> Vec<String> {
    let t = &row.timings;
    vec![
        format!("{}x{}", row.width, row.height),
        row.dtype.suffix().to_string(),
        row.filter_size.to_string(),
        row.strips.to_string(),
        row.streams.to_string(),
        format!("{:.3}", t.h2d),
        format!("{:.3}", t.d2h),
        format!("{:.3}", t.duplex),
        format!("{:.3}", t.pipelined),
        format!("{:.3}", t.ratio()),
    ]
}

/// The machine's facts as `key: value` lines.
pub fn machine_lines(m: &Machine) -> Vec<String> {
    vec![
        format!(
            "GPU: {} (compute capability {}.{}, {} SMs, L2 {} MB)",
            m.gpu.name,
            m.gpu.compute_capability.0,
            m.gpu.compute_capability.1,
            m.gpu.multiprocessors,
            m.gpu.l2_bytes >> 20
        ),
        format!("driver API: {}", m.gpu.driver_api()),
        format!(
            "clocks (peak, as reported): SM {} MHz, memory {} MHz",
            m.gpu.sm_clock_mhz, m.gpu.memory_clock_mhz
        ),
        format!("measured copy bandwidth (read + write): {:.0} GB/s", m.copy_gbps),
        format!("measured FP32 FMA peak: {:.0} GFLOP/s", m.fma_gflops),
        format!("PTX target: {}", m.ptx_target),
        format!("git revision: {}", m.git_rev),
    ]
}

/// The rows as CSV with a header line.
pub fn csv(rows: &[BenchRow]) -> String {
    let mut s = HEADERS.join(",") + "\n";
    for r in rows {
        s += &(cells(r).join(",") + "\n");
    }
    s
}

/// A Markdown report: the machine, the command, the kernel table and the end-to-end table.
pub fn markdown(
    machine: &Machine,
    command: &str,
    method: TimingMethod,
    rows: &[BenchRow],
    e2e: &[E2eRow],
) -> String {
    let mut s = String::from("# Benchmark results\n\n");
    for line in machine_lines(machine) {
        let _ = writeln!(s, "- {line}");
    }
    let _ = writeln!(s, "- command: `{command}`");
    let _ = writeln!(
        s,
        "\nTimes are kernel only ({}), median of the timed runs after 3 warm-ups; zero border, \
         one channel. Roofline = max(memory floor, FP32 roofline): memory floor = bytes in + out / copy \
         bandwidth, FP32 roofline = flops / FMA peak with 2·kh·kw flops per pixel (2·(kh + kw) for \
         the two separable passes; a rectangle's own taps, not its square's); GFLOP/s counts \
         2·kh·kw per pixel for every variant. `x FP32 roofline` above 1 is past what FP32 FMAs can \
         do (the tensor-core variants).\n",
        method.describe()
    );
    let _ = writeln!(s, "| {} |", HEADERS.join(" | "));
    let _ = writeln!(s, "|{}", "---|".repeat(HEADERS.len()));
    for r in rows {
        let _ = writeln!(s, "| {} |", cells(r).join(" | "));
    }
    if !e2e.is_empty() {
        let _ = writeln!(
            s,
            "\n## End to end\n\nWhole image from page-locked host memory and back: strips round-robin over \
             streams, each strip's copy in, `blocked-4x4` kernel and copy out queued on its stream (CUDA events, \
             first copy in to last copy out, median). The copies alone are one whole-image copy each way \
             through the same pinned memory, and both at once on two streams. The result is checked byte for byte against a single launch.\n"
        );
        let _ = writeln!(s, "| {} |", E2E_HEADERS.join(" | "));
        let _ = writeln!(s, "|{}", "---|".repeat(E2E_HEADERS.len()));
        for r in e2e {
            let _ = writeln!(s, "| {} |", e2e_cells(r).join(" | "));
        }
    }
    s
}

/// The end-to-end rows as CSV with a header line.
pub fn e2e_csv(rows: &[E2eRow]) -> String {
    let mut s = E2E_HEADERS.join(",") + "\n";
    for r in rows {
        s += &(e2e_cells(r).join(",") + "\n");
    }
    s
}

/// A filter shape as the tables write it: `k` for a square, `RxC` for a rectangle.
pub fn shape_name((rows, cols): (usize, usize)) -> String {
    if rows == cols {
        rows.to_string()
    } else {
        format!("{rows}x{cols}")
    }
}

/// The CPU rows as CSV with a header line.
pub fn cpu_csv(rows: &[CpuRow]) -> String {
    let mut s = String::from("size,k,cpu-par ms\n");
    for r in rows {
        let _ = writeln!(s, "{}x{},{},{:.4}", r.width, r.height, shape_name(r.filter), r.ms);
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use ferroconv::engine::gpu::Variant;
    use ferroconv::{DType, stats};

    #[test]
    fn cells_give_the_memory_floor_and_the_fp32_roofline_each_as_a_fraction_of_the_time() {
        let row = BenchRow {
            width: 8192,
            height: 8192,
            dtype: DType::U8,
            channels: 1,
            filter: (9, 9),
            variant: Variant::TensorU8,
            cache: "warm",
            timing: stats::Timing {
                median: 0.125,
                min: 0.12,
                runs: 20,
            },
            gbps: 0.0,
            gflops: 0.0,
            memory_ms: 0.05,
            fp32_ms: 0.2,
        };
        let cells = cells(&row);
        assert_eq!(cells.len(), HEADERS.len());
        let cell = |name: &str| cells[HEADERS.iter().position(|h| *h == name).unwrap()].as_str();
        assert_eq!(cell("roofline ms"), "0.2000");
        assert_eq!(cell("% roofline"), "160.0");
        assert_eq!(cell("bound"), "compute");
        assert_eq!(cell("% memory floor"), "40.0");
        assert_eq!(cell("x FP32 roofline"), "1.60");
    }
}
