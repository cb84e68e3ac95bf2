//! Folder trees: without `--recursive` a note counts the sub-folders skipped; with it the results
//! mirror the input tree under the output folder, symbolic links to folders not followed; a `**`
//! glob mirrors the tree below its root too, so same-named files in two folders do not collide.

use crate::common::{TempDir, run_ok, s};
use crate::save_with_image_crate;
use ferroconv::{DType, Image};

/// Every file under `root`, relative to it, sorted.
fn tree(root: &std::path::Path) -> Vec<String> {
    let mut found = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).unwrap() {
            let path = e.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let rel = path.strip_prefix(root).unwrap();
                found.push(rel.to_string_lossy().into_owned());
            }
        }
    }
    found.sort();
    found
}

#[test]
fn recursive_runs_mirror_the_input_tree() {
    let input = TempDir::new("tree-in");
    for (n, rel) in ["top.png", "x/p.png", "y/p.png", "y/z/q.png"].iter().enumerate() {
        let path = input.path(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        save_with_image_crate(&Image::random(9, 7, 1, DType::U8, n as u64).unwrap(), &path);
    }
    std::os::unix::fs::symlink(input.path("x"), input.path("link")).unwrap();

    let flat = TempDir::new("tree-flat");
    let (_, err) = run_ok(&["-i", s(&input.0), "-o", s(&flat.0)]);
    assert!(
        err.contains("note: 2 sub-folder(s) of the input folders skipped"),
        "{err}"
    );
    assert_eq!(tree(&flat.0), ["top.png"]);

    let mirrored = TempDir::new("tree-mirrored");
    run_ok(&["-i", s(&input.0), "-o", s(&mirrored.0), "--recursive", "--quiet"]);
    assert_eq!(tree(&mirrored.0), ["top.png", "x/p.png", "y/p.png", "y/z/q.png"]);

    let globbed = TempDir::new("tree-glob");
    let pattern = format!("{}/y/**/*.png", s(&input.0));
    run_ok(&["-i", &pattern, "-o", s(&globbed.0), "--quiet"]);
    assert_eq!(tree(&globbed.0), ["p.png", "z/q.png"]);
}
