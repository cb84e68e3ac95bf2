//! Convolves a small image of scattered values with `ferroconv::Convolver` (the GPU if there is one, else the
//! CPU) and checks every output sample against a plain scalar sum; exits non-zero if one differs.

use ferroconv::{Border, Convolver, Filter, Image};
use std::process::ExitCode;

fn main() -> ExitCode {
    match check() {
        Ok(line) => {
            println!("{line}");
            ExitCode::SUCCESS
        }
        Err(why) => {
            eprintln!("outside crate: {why}");
            ExitCode::FAILURE
        }
    }
}

/// The convolution of a 67×45 image with a 5×5 filter, zeros outside the image, compared with
/// `out(y,x) = Σ_{i,j} in(y+i-2, x+j-2) · f(i,j)` summed in `f64`.
fn check() -> Result<String, Box<dyn std::error::Error>> {
    let (w, h, k) = (67, 45, 5);
    // Values in [0, 1) and taps in [-1, 1) scattered by multiplicative hashing, so a misplaced
    // sample or tap shows.
    let scatter = |i: usize, salt: u64| {
        ((i as u64 + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15 ^ salt) >> 40) as f32 / (1u64 << 24) as f32
    };
    let image = Image::gray(w, h, (0..w * h).map(|i| scatter(i, 7)).collect())?;
    let filter = Filter::new(k, (0..k * k).map(|i| 2.0 * scatter(i, 11) - 1.0).collect())?;
    let convolver = Convolver::new()?;
    let out = convolver.convolve(&image, &filter, Border::Zero)?;
    if (out.width(), out.height(), out.channels()) != (w, h, 1) {
        return Err(format!(
            "the output is {}x{}x{}",
            out.width(),
            out.height(),
            out.channels()
        )
        .into());
    }
    let r = k / 2;
    let mut worst = 0.0_f64;
    for y in 0..h {
        for x in 0..w {
            let mut want = 0.0;
            for i in 0..k {
                for j in 0..k {
                    let (sy, sx) = ((y + i).checked_sub(r), (x + j).checked_sub(r));
                    if let (Some(sy), Some(sx)) = (sy, sx)
                        && sy < h
                        && sx < w
                    {
                        want += image.value(sx, sy, 0) * f64::from(filter.taps()[i * k + j]);
                    }
                }
            }
            let got = out.value(x, y, 0);
            // f32 accumulation of 25 products of magnitude below 1.
            if got.is_nan() || (got - want).abs() > 1e-5 {
                return Err(format!("pixel ({x}, {y}) is {got}, the scalar sum {want}").into());
            }
            worst = worst.max((got - want).abs());
        }
    }
    let place = if convolver.gpu().is_some() { "GPU" } else { "CPU" };
    Ok(format!(
        "outside crate: ferroconv {} on the {place}: {w}x{h} f32 with a {k}x{k} filter matches the \
         scalar sum (largest difference {worst:.1e})",
        ferroconv::GIT_REV
    ))
}
