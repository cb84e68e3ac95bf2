//! Random values of every numeric option through the real `host` binary (CPU path, one 17x13
//! 8-bit PGM): NaN, ±inf, negatives, 0, huge, fractions, empty strings, words and valid values,
//! one option at a time, joined (`--opt=v`) or not. A value the parser refuses gets exit 2 and
//! one `error:` line naming the option; one refused after parsing, exit 1 (the project's rule:
//! 2 for the parser's errors and for a `--cval` the images' type cannot hold) and the same one
//! line; an accepted one, exit 0 and an image of the input's size. Never a panic, a signal, a
//! hang, a stray file, or exit 0 for a value the model below refuses. An accepted `--cval` gives
//! the constant-padded box filter computed here.

mod common;
use common::{TempDir, s};
use proptest::prelude::*;
use proptest::sample::select;
use proptest::test_runner::{Config, RngAlgorithm, TestCaseError, TestRng, TestRunner};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const W: usize = 17;
const H: usize = 13;
/// Cases per option: the binary's start is the cost.
const CASES: u32 = 20;
/// A run past this is a hang.
const HANG: Duration = Duration::from_secs(20);
/// The largest filter side (`MAX_SEPARABLE_SIZE`).
const MAX_SIDE: usize = 1023;

/// What the CLI must do with a value.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Expect {
    /// Exit 0 and the output image.
    Accept,
    /// The parser's refusal (or a `--cval` the type cannot hold): exit 2.
    Usage,
    /// A check after parsing refuses it: exit 1.
    Refused,
    /// Exit 0 or 1: a memory budget near what the image needs, which this model leaves open.
    Either,
    /// Exit 0, the output written or not (a shard that may not hold the input).
    Ran,
}
use Expect::*;

/// The options under test that need others, with them (`--out-dtype` writes a TIFF).
const NEEDING: &[(&str, &[&str])] = &[
    ("cval", &["--border", "constant"]),
    ("sigma", &["--filter", "gaussian"]),
    ("sigma-y", &["--filter", "gaussian", "--sigma", "1"]),
    ("truncate", &["--filter", "gaussian", "--sigma", "1"]),
    ("origin", &["--mask", "5"]),
    ("scale", &["--out-dtype", "f32"]),
    ("delta", &["--out-dtype", "f32"]),
];
/// The rest; from `seed` on, options that do nothing with files (refused after parsing).
const ALONE: &str = "mask kernel-x kernel-y quality compress max-gpu-mem max-image-mem page shard shard-count \
    gpus seed runs cpu-runs size width height channels";

/// `yes` if `ok`, else `no`.
fn pick(ok: bool, yes: Expect, no: Expect) -> Expect {
    if ok { yes } else { no }
}

/// What the CLI does with `--name v` (mirroring the parsers in host/src/cli/values.rs).
fn model(name: &str, v: &str) -> Expect {
    let t = v.trim();
    let level = |c: f64| c.fract() == 0.0 && (0.0..=255.0).contains(&c);
    match name {
        // Levels of 8-bit samples: whole numbers from 0 to 255; anything else is exit 2.
        "cval" => pick(t.parse::<f64>().is_ok_and(level), Accept, Usage),
        // A sigma whose square is 0 makes the one tap 0/0: refused (scipy's is NaN).
        "sigma" | "sigma-y" if t.parse::<f64>().is_ok_and(|x| x > 0.0 && 2.0 * x * x == 0.0) => Refused,
        "sigma" | "sigma-y" => gaussian(t, 4.0),
        "truncate" => gaussian(t, 1.0),
        "mask" => mask(t),
        "origin" => origin(v),
        "kernel-x" | "kernel-y" => tap_list(v),
        "quality" => pick(matches!(t.parse::<u8>(), Ok(1..=100)), Accept, Usage),
        // TIFF's compressions are refused for a PNG result.
        "compress" if matches!(t, "none" | "lzw" | "deflate") => Refused,
        "compress" => pick(matches!(t.parse::<u8>(), Ok(0..=9)), Accept, Usage),
        "max-gpu-mem" | "max-image-mem" => budget(t),
        // A PGM has one page.
        "page" => t
            .parse::<usize>()
            .map_or(Usage, |p| pick(p == 0, Accept, Refused)),
        "shard" => shard(v),
        "gpus" => gpus(t),
        "scale" | "delta" => pick(t.parse::<f64>().is_ok_and(f64::is_finite), Accept, Usage),
        // A whole number (u64; usize here) for the parser, then refused.
        _ => pick(t.parse::<u64>().is_ok(), Refused, Usage),
    }
}

/// The output's extension for `--name`: a JPEG for `--quality`, a TIFF for f32 results.
fn ext(name: &str) -> &'static str {
    match name {
        "quality" => "jpg",
        "scale" | "delta" => "tif",
        _ => "png",
    }
}

fn strings<T: ToString>(values: impl Strategy<Value = T> + 'static) -> BoxedStrategy<String> {
    values.prop_map(|v| v.to_string()).boxed()
}

/// Valid values of the option `name`.
fn valid(name: &str) -> BoxedStrategy<String> {
    let words = |w: &[&'static str]| strings(select(w.to_vec()));
    let decimals = |lo: f64, hi: f64| (lo..hi).prop_map(|x| format!("{x:.3}")).boxed();
    let rect = (1usize..=15, 1usize..=15).prop_map(|(r, c)| format!("{r}x{c}"));
    let tap_text = |t: Vec<f32>| t.iter().map(|x| format!("{x:.2}")).collect::<Vec<_>>().join(",");
    match name {
        "cval" => strings(0u8..=255),
        "sigma" | "sigma-y" | "truncate" => decimals(0.05, 25.0),
        "scale" | "delta" => decimals(-100.0, 100.0),
        "mask" => prop_oneof![strings(1usize..=31), rect].boxed(),
        "origin" => (-2isize..=2, -2isize..=2)
            .prop_map(|(y, x)| format!("{y},{x}"))
            .boxed(),
        "kernel-x" | "kernel-y" => prop::collection::vec(-5.0f32..5.0, 1..=5)
            .prop_map(tap_text)
            .boxed(),
        "quality" => strings(1u8..=100),
        "compress" => strings(0u8..=9),
        "max-gpu-mem" | "max-image-mem" => (1u32..=4096, words(&["K", "M", "G", "KB", "m"]))
            .prop_map(|(n, unit)| format!("{n}{unit}"))
            .boxed(),
        "page" => strings(Just(0)),
        "shard" => words(&["off", "0/1"]),
        "gpus" => words(&["all", "1", "2,", "0,1"]),
        "seed" => strings(any::<u64>()),
        _ => strings(1usize..=64),
    }
}

/// Nonsense and edge values for any option.
fn nonsense() -> BoxedStrategy<String> {
    // Separated by `|`: the empty string and a space are among them.
    const WORDS: &str = "NaN|nan|inf|-inf|Infinity|-1|-3.5|0|-0|1e30|1e308|-1e308|9223372036854775808|\
        18446744073709551616|4294967297|3.7|0.5|| |abc|1,2|1x1|0x10|1e-5|-1e-5|1K|true";
    prop_oneof![
        3 => select(WORDS.split('|').collect::<Vec<_>>()).prop_map(String::from),
        1 => any::<f64>().prop_map(|x| x.to_string()),
        1 => any::<f64>().prop_map(|x| format!("{x:e}")),
        1 => any::<i64>().prop_map(|x| x.to_string()),
    ]
    .boxed()
}

/// `--sigma` (`reach` 4, the default truncate) or `--truncate` (`reach` 1, sigma 1): positive and
/// finite for the parser; the Gaussian, 2·int(sigma·truncate + 0.5) + 1 taps, at most 1023.
fn gaussian(v: &str, reach: f64) -> Expect {
    match v.trim().parse::<f64>() {
        Ok(x) if x.is_finite() && x > 0.0 => {
            let fits = x * reach < MAX_SIDE as f64 && (x * reach + 0.5).floor() <= (MAX_SIDE / 2) as f64;
            if fits { Accept } else { Refused }
        }
        _ => Usage,
    }
}

/// `--mask`: K or RxC, sides from 1 for the parser; past 1023, refused after parsing.
fn mask(v: &str) -> Expect {
    let t = v.trim().to_ascii_lowercase();
    let side = |s: &str| s.trim().parse::<usize>().ok().filter(|&n| n >= 1);
    let sides = match t.split_once('x') {
        Some((r, c)) => side(r).zip(side(c)),
        None => side(&t).map(|k| (k, k)),
    };
    sides.map_or(Usage, |(r, c)| pick(r.max(c) <= MAX_SIDE, Accept, Refused))
}

/// `--origin` of the 5x5 box: DY,DX or one value, each from -2 to 2.
fn origin(v: &str) -> Expect {
    let parts: Option<Vec<isize>> = v.split(',').map(|p| p.trim().parse().ok()).collect();
    match parts.as_deref() {
        Some(&[-2..=2]) | Some(&[-2..=2, -2..=2]) => Accept,
        Some(&[_]) | Some(&[_, _]) => Refused,
        _ => Usage,
    }
}

fn tap_list(v: &str) -> Expect {
    let taps: Option<Vec<f32>> = v
        .split(|c: char| c == ',' || c.is_whitespace())
        .filter(|t| !t.is_empty())
        .map(|t| t.parse::<f32>().ok().filter(|x| x.is_finite()))
        .collect();
    match taps {
        Some(t) if (1..=MAX_SIDE).contains(&t.len()) => Accept,
        _ => Usage,
    }
}

/// `--max-gpu-mem`, `--max-image-mem`: bytes with an optional K, M, G or T (and B), above 0;
/// from 1 KiB ample for this image, below it maybe too little.
fn budget(v: &str) -> Expect {
    let t = v.trim().trim_end_matches(['B', 'b']);
    let (digits, shift) = match t.char_indices().last() {
        Some((i, c)) if c.is_ascii_alphabetic() => match c.to_ascii_uppercase() {
            'K' => (&t[..i], 10),
            'M' => (&t[..i], 20),
            'G' => (&t[..i], 30),
            'T' => (&t[..i], 40),
            _ => return Usage,
        },
        _ => (t, 0),
    };
    let bytes = digits
        .trim()
        .parse::<usize>()
        .ok()
        .and_then(|n| n.checked_mul(1 << shift));
    match bytes {
        Some(0) | None => Usage,
        Some(1..1024) => Either,
        Some(_) => Accept,
    }
}

fn shard(v: &str) -> Expect {
    let number = |s: &str| s.trim().parse::<usize>().ok();
    match (v, v.split_once('/').map(|(i, n)| (number(i), number(n)))) {
        ("off", _) | (_, Some((Some(0), Some(1)))) => Accept,
        (_, Some((Some(i), Some(n)))) if i < n => Ran,
        _ => Usage,
    }
}

/// `--gpus` with `--variant cpu`: refused after parsing whatever it selects.
fn gpus(v: &str) -> Expect {
    let t = v.trim();
    let list: Option<Vec<usize>> = t
        .split(',')
        .filter(|p| !p.trim().is_empty())
        .map(|p| p.trim().parse().ok())
        .collect();
    let ok = match t.parse::<usize>() {
        _ if t == "all" => true,
        Ok(n) => n > 0,
        Err(_) => t.contains(',') && list.is_some_and(|l| !l.is_empty()),
    };
    if ok { Refused } else { Usage }
}

/// clap_lex's `is_number`, for what follows a leading `-`: whether clap takes `-…` as a
/// negative number (a value) rather than as options.
fn clap_number(s: &str) -> bool {
    let (mut dot, mut e) = (false, None);
    for (i, c) in s.bytes().enumerate() {
        match c {
            b'0'..=b'9' => {}
            b'.' if !dot && e.is_none() && i > 0 => dot = true,
            b'e' | b'E' if e.is_none() && i > 0 => e = Some(i),
            _ => return false,
        }
    }
    e.is_none_or(|i| i != s.len() - 1)
}

// Running the binary.

/// The input's samples: deterministic noise.
fn pixels() -> Vec<u8> {
    (0..W * H).map(|i| ((i * 7919 + 13) % 251) as u8).collect()
}

/// A folder holding `in.pgm` (binary PGM, written by hand) and `logs/`.
fn setup(name: &str) -> TempDir {
    let dir = TempDir::new(name);
    let mut pgm = format!("P5\n{W} {H}\n255\n").into_bytes();
    pgm.extend(pixels());
    std::fs::write(dir.path("in.pgm"), pgm).unwrap();
    std::fs::create_dir(dir.path("logs")).unwrap();
    dir
}

/// Runs `host` with `args`, killing it after [`HANG`]: its exit code (None: a signal) and stderr.
fn run_host(args: &[String], logs: &Path) -> Result<(Option<i32>, String), TestCaseError> {
    let err_path = logs.join("stderr.txt");
    let mut child = Command::new(env!("CARGO_BIN_EXE_host"))
        .args(args)
        .env("RUST_BACKTRACE", "1")
        .env_remove("SLURM_ARRAY_TASK_ID")
        .env_remove("JOB_COMPLETION_INDEX")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&err_path).unwrap())
        .spawn()
        .expect("run host");
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > HANG {
            let _ = child.kill();
            let _ = child.wait();
            return Err(TestCaseError::fail(format!("hang: {args:?} ran past {HANG:?}")));
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let stderr = String::from_utf8_lossy(&std::fs::read(&err_path).unwrap()).into_owned();
    Ok((status.code(), stderr))
}

/// An image file's width and height, read with the `image` or `tiff` crate.
fn dims(path: &Path) -> (usize, usize) {
    let (w, h) = if path.extension().is_some_and(|e| e == "tif") {
        let mut dec = tiff::decoder::Decoder::new(std::fs::File::open(path).unwrap()).unwrap();
        dec.dimensions().unwrap()
    } else {
        image::image_dimensions(path).unwrap()
    };
    (w as usize, h as usize)
}

/// Runs `--name value` (or `--name=value`), after `extra` options, on the input and checks the
/// outcome against the model.
fn check(name: &str, extra: &[&str], value: &str, joined: bool, dir: &TempDir) -> Result<(), TestCaseError> {
    let out = dir.path(&format!("out.{}", ext(name)));
    for old in dir.names().iter().filter(|n| n.starts_with("out.")) {
        std::fs::remove_file(dir.path(old)).unwrap();
    }
    let mut args: Vec<String> = ["-i", s(&dir.path("in.pgm")), "-o", s(&out), "--variant", "cpu"]
        .iter()
        .chain(extra)
        .map(|a| a.to_string())
        .collect();
    let flag = format!("--{name}");
    if joined {
        args.push(format!("{flag}={value}"));
    } else {
        args.extend([flag.clone(), value.to_string()]);
    }
    // Not joined, a value such as `-inf` or `-1x3` reads as options to clap (unless the option
    // takes hyphen values): its error need not name the option, but it is exit 2 all the same.
    let hyphen = matches!(name, "origin" | "kernel-x" | "kernel-y");
    let as_options = !joined && !hyphen && value.starts_with('-') && !clap_number(&value[1..]);
    let expect = if as_options { Usage } else { model(name, value) };
    let (code, stderr) = run_host(&args, &dir.path("logs"))?;
    let what = format!("{args:?}: expected {expect:?}, got exit {code:?}\nstderr: {stderr}");
    prop_assert!(!stderr.contains("panicked"), "a panic: {}", what);
    let Some(code) = code else {
        return Err(TestCaseError::fail(format!("killed by a signal: {what}")));
    };
    let mut names = dir.names();
    names.retain(|n| n != "logs" && n != "in.pgm");
    match (expect, code) {
        (Accept | Either | Ran, 0) => {
            let wrote = out.exists();
            prop_assert!(wrote || expect == Ran, "no output: {}", what);
            prop_assert!(
                names.len() == usize::from(wrote),
                "stray files {:?}: {}",
                names,
                what
            );
            if wrote {
                prop_assert_eq!(dims(&out), (W, H), "{}", what);
            }
        }
        (Usage, 2) | (Refused | Either, 1) => {
            let lines: Vec<&str> = stderr
                .lines()
                .filter(|l| !l.trim().is_empty() && !l.starts_with("note: "))
                .collect();
            prop_assert!(lines.len() == 1, "not one line: {}", what);
            prop_assert!(lines[0].starts_with("error: "), "{}", what);
            prop_assert!(
                as_options || lines[0].contains(&flag),
                "not naming {}: {}",
                flag,
                what
            );
            prop_assert!(names.is_empty(), "files left behind {:?}: {}", names, what);
        }
        _ => return Err(TestCaseError::fail(format!("wrong exit code: {what}"))),
    }
    Ok(())
}

/// A deterministic runner (ChaCha, seeded by `seed`), no failure files.
fn runner(cases: u32, seed: u8) -> TestRunner {
    let config = Config {
        cases,
        failure_persistence: None,
        max_shrink_iters: 64,
        rng_algorithm: RngAlgorithm::ChaCha,
        ..Config::default()
    };
    TestRunner::new_with_rng(config, TestRng::from_seed(RngAlgorithm::ChaCha, &[seed; 32]))
}

#[test]
fn every_numeric_option_refuses_in_one_line_or_accepts_any_value() {
    let dir = setup("cli-props-values");
    let alone = ALONE.split_whitespace().map(|name| (name, &[][..]));
    for (i, (name, extra)) in NEEDING.iter().copied().chain(alone).enumerate() {
        let values = prop_oneof![1 => valid(name), 2 => nonsense()];
        runner(CASES, i as u8 + 1)
            .run(&(values, any::<bool>()), |(value, joined)| {
                check(name, extra, &value, joined, &dir)
            })
            .unwrap_or_else(|e| panic!("--{name}: {e}"));
    }
}

/// The `k × k` box (taps `1/k²` in f32, as the CLI's) over the input padded with `cval`, in f64.
fn constant_box(k: usize, cval: f64) -> Vec<f64> {
    let (img, r) = (pixels(), (k / 2) as isize);
    let tap = f64::from(1.0 / (k * k) as f32);
    let level = |y: isize, x: isize| {
        let inside = (0..H as isize).contains(&y) && (0..W as isize).contains(&x);
        if inside {
            f64::from(img[y as usize * W + x as usize])
        } else {
            cval
        }
    };
    let mut out = Vec::with_capacity(W * H);
    for y in 0..H as isize {
        for x in 0..W as isize {
            let sum: f64 = (0..k as isize)
                .flat_map(|i| (0..k as isize).map(move |j| (i, j)))
                .map(|(i, j)| level(y + i - r, x + j - r) * tap)
                .sum();
            out.push(sum);
        }
    }
    out
}

#[test]
fn an_accepted_cval_gives_the_constant_padded_box_filter() {
    let dir = setup("cli-props-cval");
    let out = dir.path("out.png");
    // The level as written: plain, with a fraction of zero, in exponent form.
    let cases = (0u8..=255, 0..3usize, 1usize..=7, any::<bool>());
    let result = runner(16, 99).run(&cases, |(level, form, k, joined)| {
        let value = match form {
            0 => level.to_string(),
            1 => format!("{level}.0"),
            _ => format!("{:e}", f64::from(level)),
        };
        check(
            "cval",
            &["--border", "constant", "--mask", &k.to_string()],
            &value,
            joined,
            &dir,
        )?;
        let got = image::open(&out).unwrap().to_luma8().into_raw();
        let want = constant_box(k, f64::from(level));
        let tol = 2.0 * (k * k) as f64 * f64::from(f32::EPSILON) * 255.0 + 1e-6;
        for (i, (&g, &w)) in got.iter().zip(&want).enumerate() {
            // Rounded to the nearest level, or one off where the exact value is within tol of .5.
            let rounded = (w + 0.5).floor().clamp(0.0, 255.0);
            let near_half = ((w - w.floor()) - 0.5).abs() <= tol;
            let ok = f64::from(g) == rounded || (near_half && (f64::from(g) - rounded).abs() == 1.0);
            prop_assert!(
                ok,
                "--cval {} --mask {}: pixel {} is {}, want {}",
                value,
                k,
                i,
                g,
                w
            );
        }
        Ok(())
    });
    result.unwrap_or_else(|e| panic!("{e}"));
}
