//! Reading image files: the format from the content, size and memory checks before any pixel
//! buffer is allocated, and the decoders (the `image` crate, the `tiff` crate, RAW `f32`).

use super::{FileError, Format, RawLayout};
use crate::model::image::{Image, MAX_SIDE, Samples, check_dims};
use image::{ImageDecoder, ImageFormat, ImageReader};
use std::fs::File;
use std::io::{BufRead, BufReader, Cursor, Seek, SeekFrom};
use std::path::Path;

/// Reads an image file: format from the content (or the extension for RAW), samples as stored
/// (8-bit, 16-bit or `f32`); gray+alpha becomes RGBA. One image may take at most
/// [`default_max_image_bytes`] of memory; [`read_with_limit`] sets another bound.
pub fn read(path: &Path, raw: &RawLayout) -> Result<Image, FileError> {
    read_with_limit(path, raw, default_max_image_bytes())
}

/// [`read`], refusing (before allocating it) an image whose decoded samples would take more than
/// `max_bytes`.
pub fn read_with_limit(path: &Path, raw: &RawLayout, max_bytes: u64) -> Result<Image, FileError> {
    let options = ReadOptions {
        max_bytes,
        ..ReadOptions::default()
    };
    read_with_metadata(path, raw, &options).map(|(image, _)| image)
}

/// How [`read_with_metadata`] reads a file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReadOptions {
    /// The most memory the decoded image may take (default [`default_max_image_bytes`]).
    pub max_bytes: u64,
    /// Keep the stored pixels and the Exif orientation tag instead of applying it.
    pub keep_orientation: bool,
    /// The page of a multi-page TIFF to read (0-based). Without it a multi-page TIFF is an
    /// error, not its first page: nothing is dropped without a word.
    pub page: Option<usize>,
}

impl Default for ReadOptions {
    fn default() -> Self {
        ReadOptions {
            max_bytes: default_max_image_bytes(),
            keep_orientation: false,
            page: None,
        }
    }
}

/// What a file carries besides its pixels that a result keeps where its format holds it: the ICC
/// profile (PNG, JPEG, TIFF), the Exif block (PNG, JPEG; the orientation tag says 1 once the
/// orientation was applied), the resolution (PNG, JPEG, TIFF) and a PGM's or PPM's maxval.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Metadata {
    /// The ICC colour profile.
    pub icc: Option<Vec<u8>>,
    /// The Exif block (a TIFF structure, without JPEG's `Exif\0\0` header).
    pub exif: Option<Vec<u8>>,
    /// The resolution, in dots per inch across and down (PNG's pHYs, JPEG's JFIF density,
    /// TIFF's XResolution and YResolution), where the file gives one in a physical unit.
    pub dpi: Option<(f64, f64)>,
    /// A PGM or PPM file's maxval where it is neither 255 nor 65535 (the decoder scales the
    /// samples to the full range; a PGM or PPM result of the same sample type gets it back).
    pub pnm_maxval: Option<u16>,
}

/// [`read_with_limit`] as `options` say, with the file's [`Metadata`]. The Exif orientation
/// (JPEG, PNG) is applied to the pixels, as OpenCV's `imread` and PIL's `exif_transpose` do, and
/// the tag set to 1; with `keep_orientation` the stored pixels and the tag are kept as they are.
/// A multi-page TIFF is an error unless `options` pick a page ([`read_pages`] reads them all).
pub fn read_with_metadata(
    path: &Path,
    raw: &RawLayout,
    options: &ReadOptions,
) -> Result<(Image, Metadata), FileError> {
    read_file(path, raw, options, false).map(|(mut pages, metadata)| (pages.remove(0), metadata))
}

/// [`read_with_metadata`], with every page of a multi-page TIFF (each of its own size and
/// layout) where `options` pick none; one page for every other file.
pub fn read_pages(
    path: &Path,
    raw: &RawLayout,
    options: &ReadOptions,
) -> Result<(Vec<Image>, Metadata), FileError> {
    read_file(path, raw, options, true)
}

fn read_file(
    path: &Path,
    raw: &RawLayout,
    options: &ReadOptions,
    all: bool,
) -> Result<(Vec<Image>, Metadata), FileError> {
    let ReadOptions {
        max_bytes,
        keep_orientation,
        page,
    } = *options;
    let read_err = |source| FileError::Read {
        path: path.to_path_buf(),
        source,
    };
    let format = Format::of(path);
    if let Some(n) = page.filter(|&n| n > 0)
        && format.is_some_and(|f| f != Format::Tiff)
    {
        return Err(FileError::Unsupported {
            path: path.to_path_buf(),
            reason: format!("has one page, not a page {n}: --page picks a page of a multi-page TIFF"),
        });
    }
    if format == Some(Format::Raw) {
        return read_raw(path, raw, max_bytes).map(|image| (vec![image], Metadata::default()));
    }
    let file = File::open(path).map_err(read_err)?;
    decode_from(BufReader::new(file), path, max_bytes, keep_orientation, page, all)
}

/// Decodes an image file held in memory (any format [`read`] detects by content; not RAW), with
/// the same size checks and the default memory bound; errors name the file `<memory>`.
pub fn decode(bytes: &[u8]) -> Result<Image, FileError> {
    decode_with_limit(bytes, default_max_image_bytes())
}

/// [`decode`] with an explicit bound on the decoded image's memory, as [`read_with_limit`].
pub fn decode_with_limit(bytes: &[u8], max_bytes: u64) -> Result<Image, FileError> {
    decode_from(
        Cursor::new(bytes),
        Path::new("<memory>"),
        max_bytes,
        false,
        None,
        false,
    )
    .map(|(mut pages, _)| pages.remove(0))
}

/// The memory one decoded image may take unless told otherwise: a quarter of the machine's
/// memory (`MemTotal` in `/proc/meminfo`), or 4 GiB where that cannot be read.
pub fn default_max_image_bytes() -> u64 {
    let total = std::fs::read_to_string("/proc/meminfo").ok().and_then(|text| {
        let line = text.lines().find(|l| l.starts_with("MemTotal:"))?;
        let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
        Some(kib * 1024)
    });
    total.map_or(4 << 30, |bytes| bytes / 4)
}

/// Decodes from `source`, naming `path` in errors. Before any pixel buffer is allocated it
/// refuses an image beyond the size limits, one whose samples would take more than `max_bytes`,
/// and one in an uncompressed format whose file is shorter than its header says.
fn decode_from<R: BufRead + Seek>(
    mut source: R,
    path: &Path,
    max_bytes: u64,
    keep_orientation: bool,
    page: Option<usize>,
    all: bool,
) -> Result<(Vec<Image>, Metadata), FileError> {
    let decode = |reason: String| FileError::Decode {
        path: path.to_path_buf(),
        reason,
    };
    let read_err = |source| FileError::Read {
        path: path.to_path_buf(),
        source,
    };
    let file_len = source.seek(SeekFrom::End(0)).map_err(read_err)?;
    source.seek(SeekFrom::Start(0)).map_err(read_err)?;
    if file_len == 0 {
        return Err(decode("the file is empty".into()));
    }
    let mut head = [0u8; 4096];
    let head_len = read_up_to(&mut source, &mut head).map_err(read_err)?;
    let head = &head[..head_len];
    source.seek(SeekFrom::Start(0)).map_err(read_err)?;
    // What the decoders do not check or say: a JPEG that stops early, a BMP's gray palette.
    let inspection = inspect(&mut source, head).map_err(decode)?;
    let mut reader = ImageReader::new(source);
    // The extension is the format unless the content says otherwise (as `ImageReader::open`).
    if let Ok(format) = ImageFormat::from_path(path) {
        reader.set_format(format);
    }
    let mut reader = reader.with_guessed_format().map_err(read_err)?;
    let Some(format) = reader.format() else {
        return Err(decode(
            "not a supported image (PNG, JPEG, TIFF, BMP, PGM/PPM/PNM/PAM; RAW needs .raw or .f32)".into(),
        ));
    };
    if format == ImageFormat::Tiff {
        return read_tiff(reader.into_inner(), path, file_len, max_bytes, page, all);
    }
    let mut limits = image::Limits::default();
    limits.max_image_width = Some(MAX_SIDE as u32);
    limits.max_image_height = Some(MAX_SIDE as u32);
    limits.max_alloc = Some(max_bytes);
    reader.limits(limits);
    let mut decoder = reader.into_decoder().map_err(|e| decode(describe(e)))?;
    let icc = decoder.icc_profile().ok().flatten();
    let mut exif = decoder.exif_metadata().ok().flatten();
    let orientation = match exif.as_mut() {
        Some(exif) if !keep_orientation => image::metadata::Orientation::remove_from_exif_chunk(exif),
        _ => None,
    };
    let (w, h) = decoder.dimensions();
    check_dims(w as usize, h as usize).map_err(|source| FileError::Image {
        path: path.to_path_buf(),
        source,
    })?;
    let color = decoder.color_type();
    // Gray+alpha is widened to RGBA after decoding: bound the larger of the two buffers.
    let channels = match color.channel_count() {
        2 => 4,
        c => u64::from(c),
    };
    let sample_bytes = u64::from(color.bytes_per_pixel() / color.channel_count());
    let samples = u64::from(w) * u64::from(h) * channels;
    check_memory(samples * sample_bytes, max_bytes).map_err(decode)?;
    let pixel_bytes = u64::from(w) * u64::from(h) * u64::from(color.bytes_per_pixel());
    if let Some(need) = min_file_bytes(format, head, w.into(), h.into(), pixel_bytes, color)
        && file_len < need
    {
        return Err(decode(format!(
            "the file is truncated: its header declares {w}x{h} {color:?}, which needs at least {need} \
             bytes, but the file has {file_len}"
        )));
    }
    let mut dynamic = image::DynamicImage::from_decoder(decoder).map_err(|e| decode(describe(e)))?;
    if let Some(orientation) = orientation {
        dynamic.apply_orientation(orientation);
    }
    let image = from_dynamic(dynamic)
        .map(|image| inspection.apply(image))
        .map_err(decode)?;
    let pnm_maxval = (format == ImageFormat::Pnm)
        .then(|| pnm_maxval(head))
        .flatten()
        .filter(|&m| m != 255 && m != 65535);
    let dpi = match format {
        ImageFormat::Png => png_dpi(head),
        ImageFormat::Jpeg => jpeg_dpi(head),
        _ => None,
    };
    Ok((
        vec![image],
        Metadata {
            icc,
            exif,
            dpi,
            pnm_maxval,
        },
    ))
}

/// Facts about a file that its decoder does not give.
#[derive(Default)]
struct Inspection {
    /// A BMP whose pixels index a palette of grays (the `image` crate decodes those as RGB).
    gray_palette: bool,
}

impl Inspection {
    /// `image` as the file means it: gray when its palette is.
    fn apply(&self, image: Image) -> Image {
        match (self.gray_palette, image.channels(), image.samples()) {
            (true, 3, Samples::U8(v)) => {
                let gray = v.iter().step_by(3).copied().collect();
                Image::new(image.width(), image.height(), 1, Samples::U8(gray)).unwrap_or(image)
            }
            _ => image,
        }
    }
}

/// Checks what the decoders let pass (a JPEG without its end marker, which the `image` crate
/// decodes with grey fill) and finds what they do not say; leaves `source` at its start.
fn inspect<R: BufRead + Seek>(source: &mut R, head: &[u8]) -> Result<Inspection, String> {
    let mut found = Inspection::default();
    if head.starts_with(&[0xFF, 0xD8, 0xFF]) {
        let mut bytes = Vec::new();
        source.read_to_end(&mut bytes).map_err(|e| e.to_string())?;
        if !jpeg_is_complete(&bytes) {
            return Err("the file is truncated: the JPEG data stops before its end marker (EOI)".into());
        }
    } else if head.starts_with(b"BM") {
        found.gray_palette = bmp_has_gray_palette(source, head).unwrap_or(false);
    }
    source.seek(SeekFrom::Start(0)).map_err(|e| e.to_string())?;
    Ok(found)
}

/// Whether a JPEG file has its end-of-image marker after its first scan. The marker segments up to
/// the first scan (SOS) are skipped by their lengths (an EXIF thumbnail carries its own EOI); in the
/// entropy-coded data that follows, a 0xFF byte is always followed by 0x00 or a restart marker, so
/// the bytes FF D9 can only be the end.
fn jpeg_is_complete(b: &[u8]) -> bool {
    let mut i = 2;
    loop {
        while b.get(i) == Some(&0xFF) && b.get(i + 1) == Some(&0xFF) {
            i += 1; // fill bytes
        }
        let (Some(0xFF), Some(&marker)) = (b.get(i), b.get(i + 1)) else {
            return false;
        };
        match marker {
            0xD9 => return true,
            0x01 | 0xD0..=0xD7 => i += 2,
            _ => {
                let Some(len) = b.get(i + 2..i + 4) else {
                    return false;
                };
                i += 2 + usize::from(u16::from_be_bytes([len[0], len[1]]));
                if marker == 0xDA {
                    break;
                }
            }
        }
    }
    b.get(i..)
        .is_some_and(|rest| rest.windows(2).any(|w| w == [0xFF, 0xD9]))
}

/// Whether a BMP stores 1, 2, 4 or 8-bit indices into a palette whose colors are all gray.
fn bmp_has_gray_palette<R: std::io::Read + Seek>(source: &mut R, head: &[u8]) -> Option<bool> {
    let le16 = |at: usize| {
        head.get(at..at + 2)
            .map(|b| u32::from(u16::from_le_bytes([b[0], b[1]])))
    };
    let le32 = |at: usize| {
        head.get(at..at + 4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    };
    let header = le32(14)?;
    // BITMAPCOREHEADER (12 bytes): 3-byte palette entries; the others: 4 bytes and a color count.
    let (bits, entry, used) = if header == 12 {
        (le16(24)?, 3, 0)
    } else {
        (le16(28)?, 4, le32(46)?)
    };
    if !matches!(bits, 1 | 2 | 4 | 8) {
        return Some(false);
    }
    let colors = if used == 0 || used > 1 << bits {
        1 << bits
    } else {
        used
    };
    let mut palette = vec![0u8; colors as usize * entry];
    source.seek(SeekFrom::Start(14 + u64::from(header))).ok()?;
    source.read_exact(&mut palette).ok()?;
    // Entries are blue, green, red (and a reserved byte).
    Some(palette.chunks(entry).all(|c| c[0] == c[1] && c[1] == c[2]))
}

/// Reads as much of `buf` as `source` has.
fn read_up_to(source: &mut impl std::io::Read, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut filled = 0;
    while filled < buf.len() {
        match source.read(&mut buf[filled..])? {
            0 => break,
            n => filled += n,
        }
    }
    Ok(filled)
}

/// The resolution of a PNG's pHYs chunk (pixels per metre), where it comes in the file's first
/// bytes `head`, before the image data.
fn png_dpi(head: &[u8]) -> Option<(f64, f64)> {
    let mut at = 8;
    while let Some(chunk) = head.get(at..at + 8) {
        let len = u32::from_be_bytes(chunk[..4].try_into().ok()?) as usize;
        let data = head.get(at + 8..at + 8 + len);
        match &chunk[4..8] {
            b"pHYs" => {
                let d = data?;
                let per_metre = |b: &[u8]| f64::from(u32::from_be_bytes(b.try_into().unwrap_or_default()));
                // Unit 1: the metre; 0 gives only the aspect ratio.
                return (d.get(8) == Some(&1))
                    .then(|| (per_metre(&d[..4]) * 0.0254, per_metre(&d[4..8]) * 0.0254));
            }
            b"IDAT" | b"IEND" => return None,
            _ => at += 12 + len,
        }
    }
    None
}

/// The density of a JPEG's JFIF segment (right after the start of the image), in dots per inch.
fn jpeg_dpi(head: &[u8]) -> Option<(f64, f64)> {
    let app0 = head.get(2..18)?;
    if app0[..2] != [0xFF, 0xE0] || &app0[4..9] != b"JFIF\0" {
        return None;
    }
    let density = |b: &[u8]| f64::from(u16::from_be_bytes([b[0], b[1]]));
    let (x, y) = (density(&app0[12..14]), density(&app0[14..16]));
    match app0[11] {
        1 => Some((x, y)),
        2 => Some((x * 2.54, y * 2.54)),
        _ => None,
    }
}

/// The maxval of a PGM or PPM header (`P2`, `P3`, `P5`, `P6`: its fourth field), or of a PAM's
/// `MAXVAL` line.
fn pnm_maxval(head: &[u8]) -> Option<u16> {
    let text = std::str::from_utf8(&head[..pnm_header_len(head)? as usize]).ok()?;
    if text.starts_with("P7") {
        let line = text.lines().find(|l| l.starts_with("MAXVAL"))?;
        return line.split_whitespace().nth(1)?.parse().ok();
    }
    if !matches!(head.get(1)?, b'2' | b'3' | b'5' | b'6') {
        return None;
    }
    let fields: Vec<&str> = text
        .lines()
        .map(|l| l.split('#').next().unwrap_or(""))
        .flat_map(str::split_whitespace)
        .collect();
    fields.get(3)?.parse().ok()
}

/// The length of a PNM or PAM header (where the data starts), if `head` holds all of it: the
/// magic number and the size fields, with whitespace and `#` comments between them, then one
/// whitespace character; for PAM, the lines up to `ENDHDR`.
fn pnm_header_len(head: &[u8]) -> Option<u64> {
    if head.starts_with(b"P7") {
        let end = head.windows(6).position(|w| w == b"ENDHDR")? + 6;
        return Some(end as u64 + 1);
    }
    let fields = match head.get(1)? {
        b'1' | b'4' => 3,
        _ => 4,
    };
    let mut at = 0;
    for _ in 0..fields {
        loop {
            match head.get(at)? {
                b'#' => at += head[at..].iter().position(|&b| b == b'\n')?,
                b if b.is_ascii_whitespace() => at += 1,
                _ => break,
            }
        }
        while !head.get(at)?.is_ascii_whitespace() {
            at += 1;
        }
    }
    Some(at as u64 + 1)
}

/// Refuses an image whose samples would take more than `max_bytes` of memory.
fn check_memory(bytes: u64, max_bytes: u64) -> Result<(), String> {
    if bytes > max_bytes {
        return Err(format!(
            "decoding it would take {} (and its result as much again), more than the limit of {} per \
             image (--max-image-mem; default a quarter of this machine's memory)",
            size_text(bytes),
            size_text(max_bytes)
        ));
    }
    Ok(())
}

/// A byte count in KiB, MiB or GiB with one decimal.
fn size_text(bytes: u64) -> String {
    let (unit, name) = match bytes {
        b if b >= 1 << 30 => (1u64 << 30, "GiB"),
        b if b >= 1 << 20 => (1 << 20, "MiB"),
        _ => (1 << 10, "KiB"),
    };
    format!("{:.1} {name}", bytes as f64 / unit as f64)
}

/// The fewest bytes a file of an uncompressed format must have for the image its header
/// declares (`pixel_bytes`: the decoded size), or `None` where the data may be compressed.
fn min_file_bytes(
    format: ImageFormat,
    head: &[u8],
    w: u64,
    h: u64,
    pixel_bytes: u64,
    color: image::ColorType,
) -> Option<u64> {
    let le16 = |at: usize| {
        head.get(at..at + 2)
            .map(|b| u64::from(u16::from_le_bytes([b[0], b[1]])))
    };
    let le32 = |at: usize| {
        head.get(at..at + 4)
            .map(|b| u64::from(u32::from_le_bytes([b[0], b[1], b[2], b[3]])))
    };
    match format {
        ImageFormat::Pnm => {
            let data = match head.get(..2)? {
                // 1-bit binary: rows of whole bytes.
                b"P4" => w.div_ceil(8) * h,
                // ASCII bitmap: at least one character per pixel.
                b"P1" => w * h,
                // ASCII gray or RGB: at least a digit and a separator per sample.
                b"P2" | b"P3" => (w * h * u64::from(color.channel_count()) * 2).saturating_sub(1),
                // Binary PGM, PPM and PAM: the samples as they are decoded.
                b"P5" | b"P6" | b"P7" => pixel_bytes,
                _ => return None,
            };
            Some(pnm_header_len(head).unwrap_or(0) + data)
        }
        ImageFormat::Bmp => {
            // BITMAPCOREHEADER (12 bytes) has 16-bit sizes and no compression field.
            let (bits, compression) = if le32(14)? == 12 {
                (le16(24)?, 0)
            } else {
                (le16(28)?, le32(30)?)
            };
            // BI_RGB, BI_BITFIELDS and BI_ALPHABITFIELDS store rows of 4-byte-aligned pixels.
            let data_offset = le32(10)?;
            matches!(compression, 0 | 3 | 6).then(|| {
                let row = (w * bits).div_ceil(8);
                data_offset + (row.div_ceil(4) * 4) * (h - 1) + row
            })
        }
        _ => None,
    }
}

/// The `image` crate's error, with our limits and truncation spelled out.
fn describe(e: image::ImageError) -> String {
    match e {
        image::ImageError::Limits(e) => {
            format!("{e} (at most {MAX_SIDE} pixels per side, and --max-image-mem of memory per image)")
        }
        image::ImageError::IoError(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => {
            format!("the file is truncated ({e})")
        }
        e => e.to_string(),
    }
}

fn from_dynamic(dynamic: image::DynamicImage) -> Result<Image, String> {
    use image::DynamicImage as D;
    let (w, h) = (dynamic.width() as usize, dynamic.height() as usize);
    let (channels, samples) = match dynamic {
        D::ImageLuma8(b) => (1, Samples::U8(b.into_raw())),
        D::ImageRgb8(b) => (3, Samples::U8(b.into_raw())),
        D::ImageRgba8(b) => (4, Samples::U8(b.into_raw())),
        D::ImageLumaA8(_) => (4, Samples::U8(dynamic.to_rgba8().into_raw())),
        D::ImageLuma16(b) => (1, Samples::U16(b.into_raw())),
        D::ImageRgb16(b) => (3, Samples::U16(b.into_raw())),
        D::ImageRgba16(b) => (4, Samples::U16(b.into_raw())),
        D::ImageLumaA16(_) => (4, Samples::U16(dynamic.to_rgba16().into_raw())),
        D::ImageRgb32F(b) => (3, Samples::F32(b.into_raw())),
        D::ImageRgba32F(b) => (4, Samples::F32(b.into_raw())),
        other => return Err(format!("unsupported color type {:?}", other.color())),
    };
    Image::new(w, h, channels, samples).map_err(|e| e.to_string())
}

fn read_tiff<R: BufRead + Seek>(
    source: R,
    path: &Path,
    file_len: u64,
    max_bytes: u64,
    page: Option<usize>,
    all: bool,
) -> Result<(Vec<Image>, Metadata), FileError> {
    use tiff::decoder::{Decoder, Limits};
    let decode = |e| tiff_error(path, e);
    let mut limits = Limits::default();
    limits.decoding_buffer_size = usize::try_from(max_bytes).unwrap_or(usize::MAX);
    // A gigapixel image has hundreds of thousands of strips: their offset and size tables grow
    // with it (the default allows 1 MiB).
    limits.ifd_value_size = limits.ifd_value_size.max(limits.decoding_buffer_size / 256);
    let mut decoder = Decoder::new(source).map_err(decode)?.with_limits(limits);
    let metadata = Metadata {
        dpi: tiff_dpi(&mut decoder),
        icc: tiff_icc(&mut decoder),
        ..Metadata::default()
    };
    let mut pages = 1;
    while decoder.more_images() {
        decoder.next_image().map_err(decode)?;
        pages += 1;
    }
    let last = pages - 1;
    let wanted: Vec<usize> = match page {
        Some(n) if n > last => {
            return Err(FileError::Decode {
                path: path.to_path_buf(),
                reason: format!("has {pages} page(s): no page {n} (0-based)"),
            });
        }
        Some(n) => vec![n],
        None if pages > 1 && !all => {
            return Err(FileError::MultiPage {
                path: path.to_path_buf(),
                pages,
            });
        }
        None => (0..pages).collect(),
    };
    // The pages together take at most `max_bytes`.
    let mut left = max_bytes;
    let mut images = Vec::with_capacity(wanted.len());
    for n in wanted {
        decoder.seek_to_image(n).map_err(decode)?;
        let image = read_tiff_page(&mut decoder, path, file_len, left)?;
        left = left.saturating_sub(image.byte_len() as u64);
        images.push(image);
    }
    Ok((images, metadata))
}

/// The ICC profile of a TIFF's first page (tag 34675), where it has one.
fn tiff_icc<R: std::io::Read + Seek>(decoder: &mut tiff::decoder::Decoder<R>) -> Option<Vec<u8>> {
    use tiff::decoder::ifd::Value;
    match decoder.find_tag(tiff::tags::Tag::IccProfile).ok()?? {
        Value::List(values) => values
            .into_iter()
            .map(|v| match v {
                Value::Byte(b) => Some(b),
                _ => None,
            })
            .collect(),
        Value::Byte(b) => Some(vec![b]),
        _ => None,
    }
}

/// The resolution of a TIFF's first page, in dots per inch (ResolutionUnit 2: the inch, 3: the
/// centimetre; 1, none, gives only the aspect ratio).
fn tiff_dpi<R: std::io::Read + Seek>(decoder: &mut tiff::decoder::Decoder<R>) -> Option<(f64, f64)> {
    use tiff::tags::Tag;
    let unit = decoder
        .find_tag_unsigned::<u16>(Tag::ResolutionUnit)
        .ok()
        .flatten()
        .unwrap_or(2);
    let scale = match unit {
        2 => 1.0,
        3 => 2.54,
        _ => return None,
    };
    let mut value = |tag| match decoder.find_tag(tag).ok()?? {
        tiff::decoder::ifd::Value::Rational(n, d) if d > 0 => Some(f64::from(n) / f64::from(d)),
        other => other.into_f64().ok(),
    };
    let (x, y) = (value(Tag::XResolution)?, value(Tag::YResolution)?);
    (x > 0.0 && y > 0.0).then_some((x * scale, y * scale))
}

/// A TIFF decoding error as a file error: an early end of the data says the file is truncated.
fn tiff_error(path: &Path, e: tiff::TiffError) -> FileError {
    FileError::Decode {
        path: path.to_path_buf(),
        reason: match e {
            tiff::TiffError::IoError(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => {
                format!("the file is truncated or corrupt: its TIFF data ends early ({e})")
            }
            e => e.to_string(),
        },
    }
}

/// The page `decoder` is at, refused if its samples would take more than `max_bytes`.
fn read_tiff_page<R: std::io::Read + Seek>(
    decoder: &mut tiff::decoder::Decoder<R>,
    path: &Path,
    file_len: u64,
    max_bytes: u64,
) -> Result<Image, FileError> {
    use tiff::decoder::DecodingResult;
    let decode = |e| tiff_error(path, e);
    let refuse = |reason: String| FileError::Decode {
        path: path.to_path_buf(),
        reason,
    };
    let (w, h) = decoder.dimensions().map_err(decode)?;
    check_dims(w as usize, h as usize).map_err(|source| FileError::Image {
        path: path.to_path_buf(),
        source,
    })?;
    let unsupported = |what: String| FileError::Unsupported {
        path: path.to_path_buf(),
        reason: format!("{what} TIFF images are not supported (gray, gray+alpha, RGB or RGBA)"),
    };
    let color = decoder.colortype().map_err(decode)?;
    // Channels in the file, and in the image read (gray+alpha is widened to RGBA, as for PNG).
    let (stored, channels, bits) = match color {
        tiff::ColorType::Gray(b) => (1, 1, b),
        // The `tiff` crate calls gray+alpha "multiband" with 2 samples.
        tiff::ColorType::GrayA(b)
        | tiff::ColorType::Multiband {
            bit_depth: b,
            num_samples: 2,
        } => (2, 4, b),
        tiff::ColorType::RGB(b) => (3, 3, b),
        tiff::ColorType::RGBA(b) => (4, 4, b),
        tiff::ColorType::Palette(_) => return Err(unsupported("palette (indexed colour)".into())),
        tiff::ColorType::CMYK(_) | tiff::ColorType::CMYKA(_) => return Err(unsupported("CMYK".into())),
        tiff::ColorType::YCbCr(_) => return Err(unsupported("YCbCr".into())),
        tiff::ColorType::Lab(_) => return Err(unsupported("CIE L*a*b*".into())),
        tiff::ColorType::Multiband { num_samples, .. } => {
            return Err(unsupported(format!("{num_samples}-sample (multiband)")));
        }
        other => return Err(unsupported(format!("{} samples a pixel", other.num_samples()))),
    };
    let planar = matches!(
        decoder.find_tag_unsigned::<u16>(tiff::tags::Tag::PlanarConfiguration),
        Ok(Some(2))
    );
    if planar && (bits < 8 || decoder.get_chunk_type() != tiff::decoder::ChunkType::Strip) {
        return Err(unsupported(
            "tiled or sub-byte planar (a plane per channel)".into(),
        ));
    }
    if bits < 8 && stored != 1 {
        return Err(unsupported(format!("{bits}-bit colour")));
    }
    // Bytes a decoded sample takes (1-, 2- and 4-bit gray become 8-bit), then the larger of the
    // decoder's buffer and the image made of it (gray+alpha widened, 64-bit floats narrowed).
    let sample_bytes = u64::from(bits.max(8)).div_ceil(8);
    let (wide, high) = (u64::from(w), u64::from(h));
    let decoded = wide * high * stored as u64 * sample_bytes;
    let image = wide * high * channels as u64 * sample_bytes.min(4);
    check_memory(decoded.max(image), max_bytes).map_err(refuse)?;
    // Compression 1 is none: the samples are all in the file (rows of whole bytes).
    let in_file = (wide * stored as u64 * u64::from(bits)).div_ceil(8) * high;
    let compression = decoder.find_tag_unsigned::<u32>(tiff::tags::Tag::Compression);
    if matches!(compression, Ok(None | Some(1))) && file_len < in_file {
        return Err(refuse(format!(
            "the file is truncated: its header declares {w}x{h} uncompressed {bits}-bit samples, \
             {stored} a pixel, which need {in_file} bytes, but the file has {file_len}"
        )));
    }
    let (w, h) = (w as usize, h as usize);
    let result = if planar {
        read_planar(decoder, stored).map_err(decode)?
    } else {
        decoder.read_image().map_err(decode)?
    };
    let samples = match result {
        DecodingResult::U8(v) if bits < 8 => Samples::U8(unpack_gray(&v, w, h, bits)),
        DecodingResult::U8(v) => Samples::U8(v),
        DecodingResult::U16(v) => Samples::U16(v),
        DecodingResult::F32(v) => Samples::F32(v),
        DecodingResult::F64(v) => Samples::F32(v.into_iter().map(|x| x as f32).collect()),
        _ => return Err(unsupported("signed, 32-bit integer and 16-bit float".into())),
    };
    let samples = if stored == 2 {
        gray_alpha_to_rgba(samples)
    } else {
        samples
    };
    Image::new(w, h, channels, samples).map_err(|source| FileError::Image {
        path: path.to_path_buf(),
        source,
    })
}

/// Gray samples of `bits` < 8 bits, packed in rows of whole bytes (most significant bit first,
/// as TIFF stores them; 0 is black), as 8-bit levels: 1-bit 0 and 255, 2- and 4-bit scaled.
fn unpack_gray(packed: &[u8], w: usize, h: usize, bits: u8) -> Vec<u8> {
    let (bits, top) = (usize::from(bits), (1u16 << bits) - 1);
    let row = (w * bits).div_ceil(8);
    (0..h)
        .flat_map(|y| (0..w).map(move |x| (y, x)))
        .map(|(y, x)| {
            let at = x * bits;
            let byte = packed.get(y * row + at / 8).copied().unwrap_or(0);
            let v = (u16::from(byte) >> (8 - bits - at % 8)) & top;
            (v * 255 / top) as u8
        })
        .collect()
}

/// A planar TIFF's samples (its strips a plane of one channel after another), interleaved as
/// a chunky one's are.
fn read_planar<R: std::io::Read + Seek>(
    decoder: &mut tiff::decoder::Decoder<R>,
    channels: usize,
) -> tiff::TiffResult<tiff::decoder::DecodingResult> {
    use tiff::decoder::DecodingResult as D;
    fn interleave<T: Copy>(planes: Vec<Vec<T>>) -> Vec<T> {
        let n = planes.first().map_or(0, Vec::len);
        (0..n).flat_map(|i| planes.iter().map(move |p| p[i])).collect()
    }
    let strips = decoder.strip_count()? as usize;
    let per_plane = strips / channels.max(1);
    let mut planes: Vec<D> = Vec::with_capacity(channels);
    for p in 0..channels {
        let mut plane: Option<D> = None;
        for i in p * per_plane..(p + 1) * per_plane {
            let chunk = decoder.read_chunk(i as u32)?;
            plane = Some(match (plane, chunk) {
                (None, c) => c,
                (Some(D::U8(mut a)), D::U8(b)) => {
                    a.extend(b);
                    D::U8(a)
                }
                (Some(D::U16(mut a)), D::U16(b)) => {
                    a.extend(b);
                    D::U16(a)
                }
                (Some(D::F32(mut a)), D::F32(b)) => {
                    a.extend(b);
                    D::F32(a)
                }
                (Some(D::F64(mut a)), D::F64(b)) => {
                    a.extend(b);
                    D::F64(a)
                }
                _ => {
                    return Err(tiff::TiffError::FormatError(
                        tiff::TiffFormatError::InconsistentSizesEncountered,
                    ));
                }
            });
        }
        planes.extend(plane);
    }
    let unsupported = || tiff::TiffError::UnsupportedError(tiff::TiffUnsupportedError::UnknownInterpretation);
    macro_rules! gather {
        ($variant:ident) => {
            D::$variant(interleave(
                planes
                    .into_iter()
                    .map(|p| match p {
                        D::$variant(v) => Ok(v),
                        _ => Err(unsupported()),
                    })
                    .collect::<Result<Vec<_>, _>>()?,
            ))
        };
    }
    Ok(match planes.first() {
        Some(D::U8(_)) => gather!(U8),
        Some(D::U16(_)) => gather!(U16),
        Some(D::F32(_)) => gather!(F32),
        Some(D::F64(_)) => gather!(F64),
        _ => return Err(unsupported()),
    })
}

/// Gray+alpha samples as RGBA (the gray in each of R, G and B).
fn gray_alpha_to_rgba(samples: Samples) -> Samples {
    fn widen<T: Copy>(v: &[T]) -> Vec<T> {
        v.chunks_exact(2).flat_map(|p| [p[0], p[0], p[0], p[1]]).collect()
    }
    match samples {
        Samples::U8(v) => Samples::U8(widen(&v)),
        Samples::U16(v) => Samples::U16(widen(&v)),
        Samples::F32(v) => Samples::F32(widen(&v)),
    }
}

fn read_raw(path: &Path, raw: &RawLayout, max_bytes: u64) -> Result<Image, FileError> {
    let image_err = |source| FileError::Image {
        path: path.to_path_buf(),
        source,
    };
    let (Some(w), Some(h)) = (raw.width, raw.height) else {
        return Err(FileError::Unsupported {
            path: path.to_path_buf(),
            reason: "a RAW f32 file needs --width and --height (and --channels if not 1)".into(),
        });
    };
    check_dims(w, h).map_err(image_err)?;
    crate::model::image::check_channels(raw.channels).map_err(image_err)?;
    let read_err = |source| FileError::Read {
        path: path.to_path_buf(),
        source,
    };
    let want = w * h * raw.channels * 4;
    check_memory(want as u64, max_bytes).map_err(|reason| FileError::Decode {
        path: path.to_path_buf(),
        reason,
    })?;
    let mut file = File::open(path).map_err(read_err)?;
    let len = file.metadata().map_err(read_err)?.len();
    if len != want as u64 {
        return Err(FileError::Decode {
            path: path.to_path_buf(),
            reason: format!(
                "has {len} bytes, but {w}x{h} with {} channel(s) of f32 needs {want}",
                raw.channels
            ),
        });
    }
    // Read straight into the samples (one buffer, not a byte copy as well: the file may be
    // gigabytes), then put them in the host's byte order.
    let mut values = vec![0f32; want / 4];
    std::io::Read::read_exact(&mut file, bytemuck::cast_slice_mut(&mut values)).map_err(read_err)?;
    for v in &mut values {
        *v = f32::from_bits(u32::from_le(v.to_bits()));
    }
    Image::new(w, h, raw.channels, Samples::F32(values)).map_err(image_err)
}
