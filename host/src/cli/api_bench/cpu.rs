//! `host api-bench`'s CPU table: the CPU engine through a plan into the caller's buffer,
//! against `cpu::parallel_into`, the two alternating call by call.

use super::{ApiBenchArgs, BORDER, Case, ms, verdict, wall};
use crate::cli::table;
use anyhow::Result;
use ferroconv::engine::cpu;
use ferroconv::plan::{Filter2D, ImageView, Pixel};
use ferroconv::stats::Timing;
use ferroconv::{DType, Image};

/// The CPU engine through a plan into the caller's buffer, against `cpu::parallel_into`
/// (what `host cpu-time` times).
pub(super) fn cpu_plan(args: &ApiBenchArgs) -> Result<()> {
    println!(
        "\nCPU ({} threads): Filter2D::cpu into the caller's buffer against cpu::parallel_into",
        rayon::current_num_threads()
    );
    let mut rows = Vec::new();
    for case in [
        Case::new(4096, 1, DType::F32, 5),
        Case::new(2048, 3, DType::U8, 5),
    ] {
        let image = case.image()?;
        let filter = case.filter()?;
        let mut out = cpu::parallel(&image, &filter, BORDER, false)?;
        let mut plan = Filter2D::cpu(&filter, BORDER);
        let mut dst = out.clone();
        // The two alternate call by call, so a drift of the machine weighs on both alike.
        let (mut direct, mut planned) = (Vec::new(), Vec::new());
        for run in 0..3 + args.runs {
            let d = wall(0, 1, || {
                Ok(cpu::parallel_into(&image, &filter, BORDER, false, &mut out)?)
            })?;
            let p = match case.dtype {
                DType::U8 => cpu_case::<u8>(&mut plan, &image, &mut dst)?,
                DType::U16 => cpu_case::<u16>(&mut plan, &image, &mut dst)?,
                DType::F32 => cpu_case::<f32>(&mut plan, &image, &mut dst)?,
                DType::F16 => cpu_case::<half::f16>(&mut plan, &image, &mut dst)?,
                DType::BF16 => cpu_case::<half::bf16>(&mut plan, &image, &mut dst)?,
            };
            if run >= 3 {
                direct.push(d);
                planned.push(p);
            }
        }
        let median = |v: &[f64]| Timing::of(v).map_or(f64::NAN, |t| t.median);
        let (direct, planned) = (median(&direct), median(&planned));
        anyhow::ensure!(
            dst == out,
            "{}: the plan's result differs from cpu::parallel_into",
            case.name()
        );
        let ratio = planned / direct;
        rows.push(vec![
            case.name(),
            ms(planned),
            ms(direct),
            format!("{ratio:.3} {}", verdict(ratio <= 1.05)),
        ]);
    }
    table::print(&["case", "plan ms", "parallel_into ms", "ratio (<= 1.05)"], &rows);
    Ok(())
}

/// One timed call of the CPU plan, in ms.
fn cpu_case<T: Pixel>(plan: &mut Filter2D, image: &Image, dst: &mut Image) -> Result<f64> {
    let src: ImageView<'_, T> = image.view()?;
    wall(0, 1, || Ok(plan.run(&src, &mut dst.view_mut::<T>()?)?))
}
