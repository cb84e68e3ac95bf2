//! TIFF variants as scanners and instruments write them: 1-bit (both photometric senses, and CCITT
//! Group 4 fax), 4-bit, gray+alpha, 64-bit float, planar RGB and multi-page files are read; CMYK
//! files are refused in one line naming the feature. The files are laid out by hand here, tag by
//! tag.

use crate::common::{TempDir, host, s, text};
use ferroconv::io::files::{self, RawLayout};
use ferroconv::model::image::Samples;

/// A little-endian, uncompressed TIFF: `tags` as (tag, values) of SHORTs (LONGs for the strip
/// offsets and byte counts, which this fills in), then `data` in one strip, or one per sample
/// where `tags` make it planar.
fn tiff(tags: &[(u16, Vec<u16>)], data: &[u8]) -> Vec<u8> {
    let strips = if tags.contains(&(284, vec![2])) {
        tags.iter()
            .find(|t| t.0 == 277)
            .map_or(1, |t| usize::from(t.1[0]))
    } else {
        1
    };
    let strip = data.len() / strips;
    let mut tags: Vec<(u16, Vec<u32>, u16)> = tags
        .iter()
        .map(|(t, v)| (*t, v.iter().map(|&x| u32::from(x)).collect(), 3u16))
        .collect();
    tags.push((273, vec![0; strips], 4)); // StripOffsets, filled in below
    tags.push((279, vec![strip as u32; strips], 4)); // StripByteCounts
    tags.sort_by_key(|t| t.0);
    let ifd_len = 2 + 12 * tags.len() + 4;
    // Values longer than 4 bytes follow the directory; the pixels follow them.
    let mut extra = Vec::new();
    let mut entries = Vec::new();
    let extra_at = 8 + ifd_len;
    let mut fields = Vec::new();
    for (tag, values, kind) in &tags {
        let size = if *kind == 3 { 2 } else { 4 };
        let bytes: Vec<u8> = values
            .iter()
            .flat_map(|&v| {
                if size == 2 {
                    (v as u16).to_le_bytes().to_vec()
                } else {
                    v.to_le_bytes().to_vec()
                }
            })
            .collect();
        fields.push((*tag, *kind, values.len() as u32, bytes));
    }
    let extra_len: usize = fields.iter().filter(|f| f.3.len() > 4).map(|f| f.3.len()).sum();
    let data_at = (extra_at + extra_len) as u32;
    for (tag, kind, count, mut bytes) in fields {
        if tag == 273 {
            bytes = (0..count)
                .flat_map(|i| (data_at + i * strip as u32).to_le_bytes())
                .collect();
        }
        entries.extend(tag.to_le_bytes());
        entries.extend(kind.to_le_bytes());
        entries.extend(count.to_le_bytes());
        if bytes.len() > 4 {
            entries.extend(((extra_at + extra.len()) as u32).to_le_bytes());
            extra.extend(bytes);
        } else {
            bytes.resize(4, 0);
            entries.extend(bytes);
        }
    }
    let mut file = b"II*\0".to_vec();
    file.extend(8u32.to_le_bytes());
    file.extend((tags.len() as u16).to_le_bytes());
    file.extend(entries);
    file.extend(0u32.to_le_bytes());
    file.extend(extra);
    file.extend(data);
    file
}

/// Width, height, bits a sample, photometric interpretation, samples a pixel.
fn header(w: u16, h: u16, bits: &[u16], photometric: u16) -> Vec<(u16, Vec<u16>)> {
    vec![
        (256, vec![w]),
        (257, vec![h]),
        (258, bits.to_vec()),
        (259, vec![1]),
        (262, vec![photometric]),
        (277, vec![bits.len() as u16]),
        (278, vec![h]),
    ]
}

fn read(dir: &TempDir, name: &str, bytes: Vec<u8>) -> Result<ferroconv::Image, String> {
    let path = dir.path(name);
    std::fs::write(&path, bytes).unwrap();
    files::read(&path, &RawLayout::default()).map_err(|e| e.to_string())
}

#[test]
fn one_and_four_bit_gray_is_read_as_8_bit() {
    let dir = TempDir::new("tiff-bits");
    // 10 × 2, 1-bit: rows of 2 bytes, the first bit the leftmost pixel.
    let data = [0b1010_0000, 0b1100_0000, 0b0000_0001, 0b0100_0000];
    let want_black_is_zero = [
        255, 0, 255, 0, 0, 0, 0, 0, 255, 255, //
        0, 0, 0, 0, 0, 0, 0, 255, 0, 255,
    ];
    let image = read(&dir, "b.tif", tiff(&header(10, 2, &[1], 1), &data)).unwrap();
    assert_eq!((image.width(), image.height(), image.channels()), (10, 2, 1));
    assert_eq!(image.samples(), &Samples::U8(want_black_is_zero.to_vec()));
    // WhiteIsZero (fax and scanner files): the same bits, the other way round.
    let image = read(&dir, "w.tif", tiff(&header(10, 2, &[1], 0), &data)).unwrap();
    let inverted: Vec<u8> = want_black_is_zero.iter().map(|v| 255 - v).collect();
    assert_eq!(image.samples(), &Samples::U8(inverted));
    // 4-bit: levels 0-15 scaled to 0-255.
    let image = read(&dir, "n.tif", tiff(&header(3, 1, &[4], 1), &[0x0F, 0x80])).unwrap();
    assert_eq!(image.samples(), &Samples::U8(vec![0, 255, 136]));
}

#[test]
fn gray_alpha_and_64_bit_floats_are_read() {
    let dir = TempDir::new("tiff-types");
    let mut tags = header(2, 1, &[8, 8], 1);
    tags.push((338, vec![2])); // ExtraSamples: unassociated alpha
    let image = read(&dir, "ga.tif", tiff(&tags, &[10, 200, 30, 40])).unwrap();
    assert_eq!(image.channels(), 4);
    assert_eq!(
        image.samples(),
        &Samples::U8(vec![10, 10, 10, 200, 30, 30, 30, 40])
    );
    let mut tags = header(2, 1, &[64], 1);
    tags.push((339, vec![3])); // SampleFormat: IEEE float
    let data: Vec<u8> = [0.25f64, -1.5].iter().flat_map(|v| v.to_le_bytes()).collect();
    let image = read(&dir, "f64.tif", tiff(&tags, &data)).unwrap();
    assert_eq!(image.samples(), &Samples::F32(vec![0.25, -1.5]));
}

#[test]
fn planar_rgb_is_interleaved() {
    let dir = TempDir::new("tiff-planar");
    let mut planar = header(2, 2, &[8, 8, 8], 2);
    planar.push((284, vec![2]));
    // The red plane, then the green, then the blue, each 2 × 2.
    let data = [1, 2, 3, 4, 11, 12, 13, 14, 21, 22, 23, 24];
    let image = read(&dir, "planar.tif", tiff(&planar, &data)).unwrap();
    assert_eq!(image.channels(), 3);
    assert_eq!(
        image.samples(),
        &Samples::U8(vec![1, 11, 21, 2, 12, 22, 3, 13, 23, 4, 14, 24])
    );
}

#[test]
fn cmyk_files_are_refused_naming_the_feature() {
    let dir = TempDir::new("tiff-refused");
    let mut cmyk = header(1, 1, &[8, 8, 8, 8], 5);
    cmyk.push((332, vec![1])); // InkSet: CMYK
    let path = dir.path("cmyk.tif");
    std::fs::write(&path, tiff(&cmyk, &[1u8; 4])).unwrap();
    let out = dir.path("out.png");
    let o = host(&["-i", s(&path), "-o", s(&out), "--quiet"]);
    let (_, err) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    let errors: Vec<&str> = err.lines().filter(|l| !l.starts_with("note: ")).collect();
    assert_eq!(errors.len(), 1, "{err}");
    assert!(errors[0].contains("CMYK TIFF images are not supported"), "{err}");
    assert!(!out.exists());
}

/// A multi-page TIFF (a z-stack) is filtered page by page, each of its own size, into a
/// multi-page TIFF; a format of one page refuses it, naming `--page`, which picks one page.
#[test]
fn a_multi_page_tiff_is_filtered_page_by_page() {
    use tiff::encoder::{TiffEncoder, colortype::Gray8};
    let dir = TempDir::new("tiff-pages");
    let stack = dir.path("stack.tif");
    let first: Vec<u8> = (0..12).map(|v| v * 20).collect();
    {
        let mut enc = TiffEncoder::new(std::fs::File::create(&stack).unwrap()).unwrap();
        enc.write_image::<Gray8>(4, 3, &first).unwrap();
        enc.write_image::<Gray8>(5, 2, &[9; 10]).unwrap();
    }
    let identity = ["--filter", "identity", "--mask", "1", "--json"];
    let out = dir.path("out.tif");
    let (json, _) = crate::common::run_ok(&[&["-i", s(&stack), "-o", s(&out)][..], &identity].concat());
    let doc: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(doc["images"][0]["pages"], 2, "{doc}");
    let options = files::ReadOptions::default();
    let (pages, _) = files::read_pages(&out, &RawLayout::default(), &options).unwrap();
    let sizes: Vec<_> = pages.iter().map(|p| (p.width(), p.height())).collect();
    assert_eq!(sizes, [(4, 3), (5, 2)]);
    assert_eq!(pages[0].samples(), &Samples::U8(first));
    assert_eq!(pages[1].samples(), &Samples::U8(vec![9; 10]));
    // One image alone from a multi-page file is an error, not its first page.
    let e = files::read(&out, &RawLayout::default()).unwrap_err().to_string();
    assert!(e.contains("a multi-page TIFF of 2 pages"), "{e}");

    let png = dir.path("page.png");
    // Refused before any page is decoded: the pages' 22 bytes are over this limit, which
    // decoding them would have reported instead.
    let o = host(&["-i", s(&stack), "-o", s(&png), "--quiet", "--max-image-mem", "16"]);
    let (_, err) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("holds one page: give a .tif result, or --page N"),
        "{err}"
    );
    assert!(!png.exists());
    crate::common::run_ok(&[&["-i", s(&stack), "-o", s(&png), "--page", "1"][..], &identity].concat());
    let page = files::read(&png, &RawLayout::default()).unwrap();
    assert_eq!((page.width(), page.height()), (5, 2));
    let o = host(&["-i", s(&stack), "-o", s(&png), "--page", "2", "--force"]);
    let (_, err) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("has 2 page(s): no page 2"), "{err}");
}

/// A CCITT Group 4 (T.6) fax TIFF, white is zero: 8 × 4 white rows, each coded as one vertical
/// mode bit against the white reference line, then the end of the facsimile block.
#[test]
fn a_group_4_fax_tiff_is_read_as_8_bit() {
    let dir = TempDir::new("tiff-g4");
    let mut tags = header(8, 4, &[1], 0);
    for t in tags.iter_mut().filter(|t| t.0 == 259) {
        t.1 = vec![4];
    }
    let image = read(&dir, "fax.tif", tiff(&tags, &[0xF0, 0x01, 0x00, 0x10])).unwrap();
    assert_eq!((image.width(), image.height(), image.channels()), (8, 4, 1));
    assert_eq!(image.samples(), &Samples::U8(vec![255; 32]));
}

/// `-v` on a multi-page TIFF names its pages as pages, with each page's size, not as strips of
/// the first page's size; `--json` lists every page's size.
#[test]
fn verbose_lines_name_a_stacks_pages_and_their_sizes() {
    use tiff::encoder::{TiffEncoder, colortype::Gray8};
    let dir = TempDir::new("tiff-pages-verbose");
    let stack = dir.path("stack.tif");
    let sizes = [(4u32, 3u32), (5, 2), (4, 3), (6, 6), (1, 1)];
    {
        let mut enc = TiffEncoder::new(std::fs::File::create(&stack).unwrap()).unwrap();
        for &(w, h) in &sizes {
            enc.write_image::<Gray8>(w, h, &vec![7; (w * h) as usize])
                .unwrap();
        }
    }
    let out = dir.path("out.tif");
    let (stdout, _) = crate::common::run_ok(&["-i", s(&stack), "-o", s(&out), "-v", "--mask", "3"]);
    let line = stdout
        .lines()
        .find(|l| l.contains(" -> "))
        .unwrap_or_else(|| panic!("no -v line: {stdout}"));
    assert!(line.contains("5 pages"), "{line}");
    assert!(line.contains("4x3, 5x2, 4x3, 6x6, 1x1"), "{line}");
    let out = dir.path("again.tif");
    let (json, err) = crate::common::run_ok(&["-i", s(&stack), "-o", s(&out), "-v", "--json"]);
    assert!(err.contains("5 pages"), "{err}");
    let doc: serde_json::Value = serde_json::from_str(&json).unwrap();
    let image = &doc["images"][0];
    assert_eq!(image["pages"], 5, "{doc}");
    let got: Vec<(u64, u64)> = image["page_sizes"]
        .as_array()
        .unwrap_or_else(|| panic!("no page_sizes: {doc}"))
        .iter()
        .map(|p| (p[0].as_u64().unwrap(), p[1].as_u64().unwrap()))
        .collect();
    let want: Vec<(u64, u64)> = sizes.iter().map(|&(w, h)| (w.into(), h.into())).collect();
    assert_eq!(got, want);
    // One page: the line as before, its size, no page count.
    let single = dir.path("single.png");
    crate::save_with_image_crate(
        &ferroconv::Image::random(6, 4, 1, ferroconv::DType::U8, 1).unwrap(),
        &single,
    );
    let out = dir.path("single-out.png");
    let (stdout, _) = crate::common::run_ok(&["-i", s(&single), "-o", s(&out), "-v"]);
    assert!(stdout.contains(": 6x4 x1 u8,"), "{stdout}");
    assert!(!stdout.contains(" pages"), "{stdout}");
}
