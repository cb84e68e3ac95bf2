//! Resuming a batch: `--skip-existing` processes only the inputs whose results are missing (an
//! interrupted run, a restarted job-array task), leaves existing results alone, and counts them.

use crate::common::{TempDir, host, run_ok, s, text};
use crate::save_with_image_crate;
use ferroconv::{DType, Image};

#[test]
fn skip_existing_does_only_what_is_left() {
    let input = TempDir::new("resume-in");
    let names = ["a.png", "b.png", "c.png", "d.png"];
    for (n, name) in names.iter().enumerate() {
        save_with_image_crate(
            &Image::random(9, 7, 1, DType::U8, n as u64).unwrap(),
            &input.path(name),
        );
    }
    let out = TempDir::new("resume-out");
    // A first run that got as far as two results; one of them stands for a result of other
    // settings, which is not compared and so stays as it is.
    run_ok(&[
        "-i",
        s(&input.path("a.png")),
        s(&input.path("b.png")),
        "-o",
        s(&out.0),
        "--quiet",
    ]);
    std::fs::write(out.path("b.png"), b"kept as it is").unwrap();
    let (json, err) = run_ok(&["-i", s(&input.0), "-o", s(&out.0), "--skip-existing", "--json"]);
    let doc: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(doc["skipped_existing"], 2, "{doc}");
    assert_eq!(doc["summary"]["written"], 2, "{doc}");
    let done: Vec<&str> = doc["images"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["input"].as_str().unwrap().rsplit('/').next().unwrap())
        .collect();
    assert_eq!(done, ["c.png", "d.png"], "{doc}");
    assert!(err.contains("2 skipped (results exist)"), "{err}");
    assert_eq!(out.names(), names);
    assert_eq!(std::fs::read(out.path("b.png")).unwrap(), b"kept as it is");
    // Nothing left: a success that did nothing.
    let (_, err) = run_ok(&["-i", s(&input.0), "-o", s(&out.0), "--skip-existing"]);
    assert!(err.contains("0 image(s), 0 failed, 4 skipped"), "{err}");
    // Without it an existing result is an error that names both ways on.
    let o = host(&["-i", s(&input.0), "-o", s(&out.0)]);
    let (_, err) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("--force") && err.contains("--skip-existing"),
        "{err}"
    );
    // Replacing and skipping contradict each other.
    let o = host(&["-i", s(&input.0), "-o", s(&out.0), "--skip-existing", "--force"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o).1);
}
