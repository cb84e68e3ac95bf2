//! Fault injection through the real `host` binary (CPU path, no GPU needed): a fault on one image
//! of a batch stops it cleanly, keeping finished results whole, leaving no partial file, naming
//! the failing image and exiting non-zero; the same in the batch pipeline with several engines on
//! their own threads (as several GPUs run); and the `CONV_INJECT_FAULT` syntax.

mod common;
use common::{TempDir, s};

use ferroconv::io::files::{self, RawLayout};
use ferroconv::{Border, DType, Filter, Image, engine::cpu};
use host_tools::engine::fault::{Injection, Stage};
use std::process::{Command, Output};

/// Runs `host` on the batch `inputs` -> `outputs` on the CPU engine, with `extra` arguments and
/// `CONV_INJECT_FAULT=fault`.
fn batch(inputs: &TempDir, outputs: &TempDir, extra: &[&str], fault: &str) -> Output {
    Command::new(env!("CARGO_BIN_EXE_host"))
        .args([
            "--input",
            s(&inputs.0),
            "--output",
            s(&outputs.0),
            "--variant",
            "cpu",
        ])
        .args(extra)
        .env("CONV_INJECT_FAULT", fault)
        .env("RUST_BACKTRACE", "1")
        .output()
        .expect("run host")
}

/// Eight gray PNGs `img0.png` .. `img7.png` in `dir`; returns the images.
fn make_inputs(dir: &TempDir) -> Vec<Image> {
    (0..8)
        .map(|n| {
            let image = Image::random(40 + n, 30, 1, DType::U8, 100 + n as u64).unwrap();
            files::write(&image, &dir.0.join(format!("img{n}.png"))).unwrap();
            image
        })
        .collect()
}

#[test]
fn an_injected_compute_fault_stops_the_batch_cleanly() {
    let (inputs, outputs) = (TempDir::new("in"), TempDir::new("out"));
    let images = make_inputs(&inputs);
    let o = batch(&inputs, &outputs, &["--mask", "3"], "compute:3");
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    assert!(
        err.lines()
            .any(|l| l.contains("img2.png") && l.contains("injected compute fault")),
        "the failing image is named:\n{err}"
    );
    assert!(err.contains("the batch stopped at a device fault"), "{err}");
    let names = outputs.names();
    assert!(
        names.iter().all(|n| !n.ends_with(".tmp")),
        "partial files: {names:?}"
    );
    assert!(!names.contains(&"img2.png".to_string()), "{names:?}");
    // Images before the fault are finished; the batch stopped before the end.
    assert!(names.contains(&"img0.png".to_string()) && names.contains(&"img1.png".to_string()));
    assert!(
        names.len() < images.len() - 1,
        "the batch did not stop: {names:?}"
    );
    let filter = Filter::builtin(ferroconv::model::filter::FilterKind::Box, 3, None).unwrap();
    for name in &names {
        let n: usize = name
            .trim_start_matches("img")
            .trim_end_matches(".png")
            .parse()
            .unwrap();
        let got = files::read(&outputs.0.join(name), &RawLayout::default()).unwrap();
        let want = cpu::parallel(&images[n], &filter, Border::Zero, false).unwrap();
        assert_eq!(got, want, "{name} is complete and correct");
    }
}

#[test]
fn without_a_fault_the_same_batch_succeeds() {
    let (inputs, outputs) = (TempDir::new("ok-in"), TempDir::new("ok-out"));
    make_inputs(&inputs);
    let o = batch(&inputs, &outputs, &["-q"], "compute:99");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(outputs.names().len(), 8);
}

#[test]
fn a_malformed_fault_request_is_a_one_line_error() {
    let (inputs, outputs) = (TempDir::new("bad-in"), TempDir::new("bad-out"));
    make_inputs(&inputs);
    let o = batch(&inputs, &outputs, &[], "explode:x");
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("CONV_INJECT_FAULT='explode:x' is not STAGE:N"),
        "{err}"
    );
    assert!(outputs.names().is_empty());
}

#[test]
fn fault_requests_parse() {
    let i = Injection::parse("launch:3").unwrap();
    assert_eq!((i.stage, i.image), (Stage::Launch, 3));
    assert_eq!(i.at(3), Some(Stage::Launch));
    assert_eq!(i.at(2), None);
    for stage in ["compute", "upload", "download"] {
        assert!(Injection::parse(&format!("{stage}:1")).is_ok(), "{stage}");
    }
    for bad in ["", "launch", "launch:0", "launch:-1", "boom:1", "launch:1:2"] {
        assert!(Injection::parse(bad).is_err(), "{bad}");
    }
}

/// The batch pipeline with several engines, each on its own thread taking the next image (as
/// with several GPUs; CPU engines here): every image is written once with the one-engine result,
/// and an injected device fault stops the batch cleanly, without a hang.
#[test]
fn several_engines_share_a_batch_and_stop_together_at_a_fault() {
    use host_tools::batch::{self, Engine, Settings, Status};
    let inputs = TempDir::new("engines-in");
    let outputs = TempDir::new("engines-out");
    let images: Vec<Image> = (0..12)
        .map(|n| {
            let image = Image::random(30 + n, 20, 1, DType::U8, 200 + n as u64).unwrap();
            files::write(&image, &inputs.0.join(format!("img{n:02}.png"))).unwrap();
            image
        })
        .collect();
    let paths: Vec<host_tools::batch::inputs::Input> = (0..12)
        .map(|n| host_tools::batch::inputs::Input {
            path: inputs.0.join(format!("img{n:02}.png")),
            key: format!("img{n:02}.png").into_bytes(),
            folder: Default::default(),
        })
        .collect();
    let (items, _) = host_tools::batch::inputs::plan_outputs(
        &paths,
        &outputs.0,
        None,
        host_tools::batch::inputs::Existing::Replace,
        |_| true,
    )
    .unwrap();
    let filter = Filter::random_normalized(3, 4).unwrap();
    let progress = indicatif::ProgressBar::hidden();
    for fault in [None, Some(Injection::parse("compute:5").unwrap())] {
        for e in std::fs::read_dir(&outputs.0).unwrap() {
            std::fs::remove_file(e.unwrap().path()).unwrap();
        }
        let settings = Settings {
            inject: fault,
            ..Settings::in_memory(filter.clone(), Border::Reflect)
        };
        let mut engines = [Engine::Cpu, Engine::Cpu, Engine::Cpu];
        let outcomes = batch::run(&items, &settings, &mut engines, 2, &progress, false, &|_| {});
        assert_eq!(outcomes.len(), items.len());
        for (n, o) in outcomes.iter().enumerate() {
            match o.status {
                Status::Written => {
                    let got = files::read(&o.output, &RawLayout::default()).unwrap();
                    let want = cpu::parallel(&images[n], &filter, Border::Reflect, false).unwrap();
                    assert_eq!(got, want, "image {n}");
                }
                Status::Failed => {
                    assert_eq!(
                        fault.map(|f| f.image),
                        Some(n + 1),
                        "image {n} failed: {:?}",
                        o.error
                    );
                    assert!(
                        o.error.as_deref().unwrap().contains("the batch stops here"),
                        "{:?}",
                        o.error
                    );
                }
                Status::NotProcessed => assert!(fault.is_some(), "image {n} not processed without a fault"),
                Status::Discarded => panic!("image {n} discarded without a signal"),
            }
        }
        let written = outcomes.iter().filter(|o| o.status == Status::Written).count();
        assert_eq!(
            written,
            std::fs::read_dir(&outputs.0).unwrap().count(),
            "a file per written image only"
        );
        let failed = outcomes.iter().filter(|o| o.status == Status::Failed).count();
        if fault.is_none() {
            assert_eq!((written, failed), (items.len(), 0));
        } else {
            assert_eq!(failed, 1, "the faulting image, and only it, fails");
        }
    }
}
