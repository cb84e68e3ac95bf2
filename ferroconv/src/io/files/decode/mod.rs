//! Reading image files: the format from the content, size and memory checks before any pixel
//! buffer is allocated, and the decoders (the `image` crate here; the `tiff` crate in
//! `tiff_file`, RAW `f32` in `raw`; what the headers of PNG, JPEG, BMP and PNM files say that
//! their decoders do not, in `headers`).

mod headers;
mod raw;
mod rows;
mod tiff_file;

use super::{FileError, Format, RawLayout};
use crate::model::image::{Image, MAX_SIDE, Samples, check_dims};
use headers::{inspect, jpeg_dpi, min_file_bytes, png_dpi, pnm_maxval};
use image::{ImageDecoder, ImageFormat, ImageReader};
use raw::read_raw;
pub use rows::PnmRows;
use std::fs::File;
use std::io::{BufRead, BufReader, Cursor, Seek, SeekFrom};
use std::path::Path;
use tiff_file::read_tiff;

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
        return Err(FileError::unsupported(
            path,
            format!("has one page, not a page {n}: --page picks a page of a multi-page TIFF"),
        ));
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
