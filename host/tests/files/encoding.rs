//! Encoder choices: JPEG quality (`--quality`, default 95), TIFF compression (`--compress none,
//! lzw, deflate`, lossless) and PNG levels (`--compress 0-9`), and the errors for a choice no
//! result takes.

use crate::common::{TempDir, host, run_ok, s, text};
use crate::{assert_fails, save_with_image_crate};
use ferroconv::io::files::{self, RawLayout};
use ferroconv::model::image::Samples;
use ferroconv::{DType, Image};

/// A smooth RGB gradient (it compresses), 8- or 16-bit.
fn gradient(dtype: DType) -> Image {
    let (w, h) = (96, 64);
    let level = |x: usize, y: usize, c: usize| (x * 600 + y * 300 + c * 5000) % 65536;
    let samples = match dtype {
        DType::U8 => Samples::U8(
            (0..w * h * 3)
                .map(|i| (level(i / 3 % w, i / 3 / w, i % 3) >> 8) as u8)
                .collect(),
        ),
        _ => Samples::U16(
            (0..w * h * 3)
                .map(|i| level(i / 3 % w, i / 3 / w, i % 3) as u16)
                .collect(),
        ),
    };
    Image::new(w, h, 3, samples).unwrap()
}

fn size(path: &std::path::Path) -> u64 {
    std::fs::metadata(path).unwrap().len()
}

#[test]
fn jpeg_quality_defaults_to_95_and_can_be_set() {
    let dir = TempDir::new("jpeg-quality");
    let input = dir.path("in.png");
    save_with_image_crate(&gradient(DType::U8), &input);
    let identity = ["--filter", "identity", "--mask", "1", "--quiet"];
    let out = |name: &str, extra: &[&str]| {
        let path = dir.path(name);
        run_ok(&[&["-i", s(&input), "-o", s(&path)][..], &identity, extra].concat());
        size(&path)
    };
    let default = out("default.jpg", &[]);
    assert_eq!(default, out("q95.jpg", &["--quality", "95"]), "the default is 95");
    assert!(out("q75.jpg", &["--quality", "75"]) < default);
    assert!(out("q10.jpg", &["--quality", "10"]) < out("q50.jpg", &["--quality", "50"]));
}

#[test]
fn tiff_compression_is_lossless_and_smaller() {
    let dir = TempDir::new("tiff-compress");
    for dtype in [DType::U8, DType::U16] {
        let input = dir.path("in.png");
        save_with_image_crate(&gradient(dtype), &input);
        let write = |compress: &str| {
            let path = dir.path(&format!("{compress}-{dtype:?}.tif"));
            run_ok(&["-i", s(&input), "-o", s(&path), "--compress", compress, "--quiet"]);
            (size(&path), files::read(&path, &RawLayout::default()).unwrap())
        };
        let (none, plain) = write("none");
        for method in ["lzw", "deflate"] {
            let (bytes, image) = write(method);
            assert!(
                bytes < none / 2,
                "{dtype:?} {method}: {bytes} bytes against {none} uncompressed"
            );
            assert_eq!(image, plain, "{dtype:?} {method}: lossless");
        }
    }
}

#[test]
fn png_levels_trade_size_for_time_and_decode_alike() {
    let dir = TempDir::new("png-level");
    let input = dir.path("in.png");
    save_with_image_crate(&gradient(DType::U16), &input);
    let write = |level: &str| {
        let path = dir.path(&format!("l{level}.png"));
        run_ok(&["-i", s(&input), "-o", s(&path), "--compress", level, "--quiet"]);
        (size(&path), files::read(&path, &RawLayout::default()).unwrap())
    };
    let (stored, a) = write("0");
    let (smallest, b) = write("9");
    assert!(
        smallest < stored / 2,
        "level 9: {smallest} bytes, stored: {stored}"
    );
    assert_eq!(a, b);
}

#[test]
fn an_encoder_choice_no_result_takes_is_refused() {
    let dir = TempDir::new("encoder-errors");
    let input = dir.path("in.png");
    save_with_image_crate(&gradient(DType::U8), &input);
    let (png, tif) = (dir.path("out.png"), dir.path("out.tif"));
    for (out, extra, needle) in [
        (&png, &["--quality", "90"][..], "no result here is JPEG"),
        (&png, &["--compress", "lzw"], "no result here is TIFF"),
        (&tif, &["--compress", "7"], "no result here is PNG"),
    ] {
        assert_fails(
            &[&["-i", s(&input), "-o", s(out)][..], extra].concat(),
            needle,
            out,
        );
    }
    // Values the parser refuses: exit 2, one line saying what to give.
    for (extra, needle) in [
        (["--quality", "101"], "from 1 to 100"),
        (["--compress", "zip"], "none, lzw or deflate"),
    ] {
        let o = host(&[&["-i", s(&input), "-o", s(&png)][..], &extra].concat());
        let (_, err) = text(&o);
        assert_eq!(o.status.code(), Some(2), "{extra:?}: {err}");
        assert!(
            err.lines().next().unwrap_or("").contains(needle),
            "{extra:?}: {err}"
        );
        assert!(!png.exists());
    }
}

/// RGBA TIFF results say their fourth sample is alpha (ExtraSamples = 2, unassociated) and come
/// back as they went, compressed or not.
#[test]
fn rgba_tiffs_mark_their_alpha_and_round_trip() {
    let dir = TempDir::new("tiff-rgba");
    for dtype in [DType::U8, DType::U16, DType::F32] {
        let image = Image::random(13, 9, 4, dtype, 3).unwrap();
        let input = dir.path(&format!("in-{dtype:?}.tif"));
        files::write(&image, &input).unwrap();
        for compress in ["none", "lzw"] {
            let out = dir.path(&format!("out-{dtype:?}-{compress}.tif"));
            let identity = [
                "--filter",
                "identity",
                "--mask",
                "1",
                "--quiet",
                "--compress",
                compress,
            ];
            run_ok(&[&["-i", s(&input), "-o", s(&out)][..], &identity].concat());
            assert_eq!(
                files::read(&out, &RawLayout::default()).unwrap(),
                image,
                "{dtype:?} {compress}"
            );
            let mut decoder = tiff::decoder::Decoder::new(std::fs::File::open(&out).unwrap()).unwrap();
            let extra = decoder.get_tag_u32_vec(tiff::tags::Tag::ExtraSamples).unwrap();
            assert_eq!(extra, [2], "{dtype:?} {compress}");
        }
    }
}

/// Uncompressed TIFF results carry no Predictor tag (libtiff warns about one there), on every page;
/// compressed ones of integer samples carry the horizontal predictor (2).
#[test]
fn the_predictor_tag_only_comes_with_compression() {
    use tiff::{decoder::Decoder, tags::Tag};
    let dir = TempDir::new("tiff-predictor");
    let stack = dir.path("stack.tif");
    {
        use tiff::encoder::{TiffEncoder, colortype::Gray8};
        let mut enc = TiffEncoder::new(std::fs::File::create(&stack).unwrap()).unwrap();
        enc.write_image::<Gray8>(6, 4, &[5; 24]).unwrap();
        enc.write_image::<Gray8>(3, 5, &[9; 15]).unwrap();
    }
    for (compress, want) in [("none", None), ("lzw", Some(2u16))] {
        let out = dir.path(&format!("{compress}.tif"));
        let identity = ["--filter", "identity", "--mask", "1", "--quiet"];
        run_ok(
            &[
                &["-i", s(&stack), "-o", s(&out), "--compress", compress][..],
                &identity,
            ]
            .concat(),
        );
        let mut decoder = Decoder::new(std::fs::File::open(&out).unwrap()).unwrap();
        for page in 0..2 {
            if page > 0 {
                decoder.next_image().unwrap();
            }
            let predictor = decoder.find_tag_unsigned::<u16>(Tag::Predictor).unwrap();
            assert_eq!(predictor, want, "{compress} page {page}");
        }
        let options = files::ReadOptions::default();
        let (pages, _) = files::read_pages(&out, &RawLayout::default(), &options).unwrap();
        assert_eq!(pages.len(), 2);
        assert_eq!(pages[1].samples(), &Samples::U8(vec![9; 15]));
    }
}
