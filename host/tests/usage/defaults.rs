//! Documented defaults: an explicit `--variant auto` falls back to the CPU as no `--variant`
//! does, the Gaussian's taps are OpenCV's (or sized from `--sigma` as scipy sizes them), separable
//! filters from `--kernel-x`/`--kernel-y`, and the main job's CPU rows report their warm-ups.

use crate::common::{TempDir, run_ok, run_ok_without_gpu, s};
use crate::{gray, save};
use ferroconv::model::filter::FilterKind;
use ferroconv::{Border, DType, Filter, Image};

#[test]
fn explicit_auto_falls_back_to_the_cpu_as_the_default_does() {
    // As on a machine without a GPU, on every machine.
    let (info, _) = run_ok_without_gpu(&["info"]);
    assert!(info.starts_with("GPU: none"), "{info}");
    let dir = TempDir::new("auto");
    let input = dir.path("in.png");
    save(&gray(6, 6, 1), &input);
    for (n, extra) in [&[][..], &["--variant", "auto"]].iter().enumerate() {
        let out = dir.path(&format!("out{n}.png"));
        let (_, err) = run_ok_without_gpu(&[&["-i", s(&input), "-o", s(&out)][..], extra].concat());
        assert!(err.starts_with("note: no usable GPU"), "{extra:?}: {err}");
        assert!(out.exists());
    }
}

#[test]
fn gaussian_taps_are_opencvs() {
    // cv2.getGaussianKernel(k, 0): fixed tables for k <= 7, sigma 0.3((k-1)/2 - 1) + 0.8 above.
    let opencv: [(usize, &[f64]); 5] = [
        (1, &[1.0]),
        (3, &[0.25, 0.5, 0.25]),
        (5, &[0.0625, 0.25, 0.375, 0.25, 0.0625]),
        (
            7,
            &[0.03125, 0.109375, 0.21875, 0.28125, 0.21875, 0.109375, 0.03125],
        ),
        (
            9,
            &[
                0.014_839_453_814_831_46,
                0.049_817_289_201_016_635,
                0.118_322_506_186_472_12,
                0.198_828_996_548_081_98,
                0.236_383_508_499_195_43,
                0.198_828_996_548_081_98,
                0.118_322_506_186_472_12,
                0.049_817_289_201_016_635,
                0.014_839_453_814_831_46,
            ],
        ),
    ];
    for (k, g) in opencv {
        let taps = Filter::builtin(FilterKind::Gaussian, k, None).unwrap();
        for (n, &t) in taps.taps().iter().enumerate() {
            let want = (g[n / k] * g[n % k]) as f32;
            assert!(
                (t - want).abs() <= f32::EPSILON * want,
                "k={k} tap {n}: {t} vs {want}"
            );
        }
    }
    // With --sigma the formula applies at every size.
    let sigma1 = Filter::builtin(FilterKind::Gaussian, 3, Some(1.0)).unwrap();
    let e = (-0.5f64).exp();
    let centre = 1.0 / (1.0 + 2.0 * e);
    assert!((f64::from(sigma1.taps()[4]) - centre * centre).abs() < 1e-7);
}

#[test]
fn the_main_jobs_cpu_rows_report_their_warmups() {
    let image = Image::random(24, 20, 1, DType::F32, 3).unwrap();
    let job = host_tools::verify::jobs::MainJob {
        image,
        filter: Filter::builtin(FilterKind::Box, 3, None).unwrap(),
        border: Border::Zero,
        clamp: false,
        variants: Vec::new(),
        runs: 1,
        cpu_runs: 2,
    };
    let report = host_tools::verify::jobs::main_job(&job, None).unwrap();
    let names: Vec<_> = report.rows.iter().map(|r| r.name).collect();
    assert_eq!(names, ["cpu-naive", "cpu-seq", "cpu-par"]);
    for row in &report.rows {
        assert_eq!(row.warmups, host_tools::verify::jobs::WARMUP_RUNS, "{}", row.name);
        assert!(row.warmups >= 1);
        assert_eq!(row.compute.runs, 2, "{}", row.name);
    }
    let (out, _) = run_ok(&["--size", "32", "--cpu-only", "--cpu-runs", "2", "--mask", "3"]);
    assert!(
        out.contains("CPU = whole call (2 runs after 3 warm-ups; cpu-par into one kept output)"),
        "{out}"
    );
}

/// `--sigma` alone sizes the Gaussian by scipy's rule, radius int(truncate × sigma + 0.5) with
/// truncate 4 (or `--truncate`); `--sigma-y` makes it anisotropic; a `--mask` that cuts it within
/// 3 sigma gets a note; a size past the largest filter is an error that says which.
#[test]
fn a_gaussian_is_sized_from_sigma_as_scipy_sizes_it() {
    let header = |args: &[&str]| {
        let (out, err) = run_ok(
            &[
                &["--size", "40", "--cpu-only", "--runs", "1", "--cpu-runs", "1"][..],
                args,
            ]
            .concat(),
        );
        (out.lines().next().unwrap_or("").to_string(), err)
    };
    for (args, size) in [
        (&["--filter", "gaussian", "--sigma", "2"][..], "17x17"),
        (
            &["--filter", "gaussian", "--sigma", "1.5", "--truncate", "3"],
            "11x11",
        ),
        (
            &["--filter", "gaussian", "--sigma", "1", "--sigma-y", "3"],
            "25x9 (run as 25x25)",
        ),
    ] {
        let (line, err) = header(args);
        assert!(
            line.contains(&format!("gaussian filter {size}, rank-1")),
            "{args:?}: {line}"
        );
        assert!(!err.contains("note:"), "{args:?}: {err}");
    }
    let (line, err) = header(&["--filter", "gaussian", "--sigma", "2", "--mask", "5"]);
    assert!(line.contains("gaussian filter 5x5"), "{line}");
    assert!(
        err.contains("nearer a box") && err.contains("(17 taps at scipy's truncate 4)"),
        "{err}"
    );
    // The taps: exp(-x²/2σ²) down and across, each axis normalized.
    let g = |s: f64| -> Vec<f64> {
        let w: Vec<f64> = (-12..=12)
            .map(|x| (-f64::from(x * x) / (2.0 * s * s)).exp())
            .collect();
        let sum: f64 = w.iter().sum();
        w.into_iter().map(|v| v / sum).collect()
    };
    let (gy, gx) = (g(3.0), g(1.0));
    let f = Filter::gaussian((25, 25), 3.0, 1.0).unwrap();
    for (n, &t) in f.taps().iter().enumerate() {
        assert!((f64::from(t) - gy[n / 25] * gx[n % 25]).abs() < 1e-7, "tap {n}");
    }
    let o = crate::common::host(&["--size", "40", "--filter", "gaussian", "--sigma", "128"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("--sigma 128 asks for a 1025x1025 Gaussian")
            && err.contains("a Gaussian of 1025 taps is not supported: use an odd number from 1 to 1023"),
        "{err}"
    );
}

/// `--kernel-x` and `--kernel-y` give a separable filter as cv2's `sepFilter2D` takes it: the
/// outer product, `y` down and `x` across: a rectangle, run in the square of its longer side.
#[test]
fn kernel_x_and_y_make_their_outer_product() {
    let f = Filter::separable(&[1.0, 0.0, -1.0, 2.0, 3.0], &[1.0, 2.0, 1.0]).unwrap();
    assert_eq!(f.size(), 5);
    let kx = [0.0, 1.0, 2.0, 1.0, 0.0];
    let ky = [1.0, 0.0, -1.0, 2.0, 3.0];
    for (n, &t) in f.taps().iter().enumerate() {
        assert_eq!(t, ky[n / 5] * kx[n % 5], "tap {n}");
    }
    assert!(f.rank1().is_some());
    let (out, _) = run_ok(&[
        "--size",
        "40",
        "--cpu-only",
        "--runs",
        "1",
        "--cpu-runs",
        "1",
        "--kernel-x",
        "1,2,1",
        "--kernel-y",
        "1 0 -1 2 3",
    ]);
    assert!(
        out.lines()
            .next()
            .unwrap()
            .contains("separable (--kernel-x/-y) filter 5x3 (run as 5x5), rank-1"),
        "{out}"
    );
    assert!(
        Filter::separable(&[1.0; 1024], &[1.0])
            .unwrap_err()
            .to_string()
            .contains("a 1024x1 filter is not supported")
    );
}
