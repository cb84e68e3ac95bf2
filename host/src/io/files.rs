//! Image files in and out: format from the extension, decoding with size limits, encoding with
//! the bit depth kept, sample type conversion, and safe writes (temporary file, then rename).
//!
//! PNG, JPEG, BMP and PGM/PPM/PNM/PAM go through the `image` crate, TIFF through the `tiff` crate
//! (which also reads and writes 32-bit float gray), RAW is headerless little-endian `f32`.
//! Decoding refuses, before any pixel buffer is allocated, images beyond [`MAX_SIDE`] per side or
//! [`MAX_PIXELS`] pixels, images whose samples would take more memory than a bound (by default a
//! quarter of the machine's), and files of uncompressed formats (PNM, PAM, BMP, TIFF) shorter than
//! their header says, so a small file that claims huge dimensions (a decompression bomb) fails fast
//! with a clear error.

use crate::model::image::{DType, Image, MAX_PIXELS, MAX_SIDE, Samples, check_dims};
use image::{ExtendedColorType, ImageDecoder, ImageFormat, ImageReader};
use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, Cursor, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, PoisonError};

/// Why a file could not be read or written; every message is one line.
#[derive(Debug, thiserror::Error)]
pub enum FileError {
    #[error("cannot read {}: {source}", .path.display())]
    Read { path: PathBuf, source: std::io::Error },
    #[error("cannot write {}: {source}", .path.display())]
    Write { path: PathBuf, source: std::io::Error },
    #[error("{}: {}", .path.display(), one_line(.reason))]
    Decode { path: PathBuf, reason: String },
    #[error("{}: {}", .path.display(), one_line(.reason))]
    Encode { path: PathBuf, reason: String },
    #[error("{}: {reason}", .path.display())]
    Unsupported { path: PathBuf, reason: String },
    #[error("{}: {source}", .path.display())]
    Image { path: PathBuf, source: crate::Error },
    /// A signal asked the process to stop while (or before) the result was written; nothing was
    /// left at `path`.
    #[error("{}: not written: interrupted by {signal}", .path.display())]
    Interrupted { path: PathBuf, signal: String },
}

/// `text` with every run of whitespace, line breaks included, made one space.
pub fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A file format, chosen by the file's extension (for reading, by its content when it is known).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Png,
    Jpeg,
    Tiff,
    Bmp,
    /// `.pgm` (gray), `.ppm` (RGB), `.pnm` (either, or PAM for RGBA), `.pam`.
    Pnm,
    /// Headerless little-endian `f32` samples, interleaved; the size comes from the command line.
    Raw,
}

/// Extensions of files a folder input picks up.
pub const EXTENSIONS: [&str; 14] = [
    "png", "jpg", "jpeg", "tif", "tiff", "bmp", "pgm", "ppm", "pnm", "pbm", "pam", "raw", "f32", "bin",
];

impl Format {
    /// The format of `path`'s extension, if it is one we know.
    pub fn of(path: &Path) -> Option<Format> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        Some(match ext.as_str() {
            "png" => Format::Png,
            "jpg" | "jpeg" => Format::Jpeg,
            "tif" | "tiff" => Format::Tiff,
            "bmp" => Format::Bmp,
            "pgm" | "ppm" | "pnm" | "pbm" | "pam" => Format::Pnm,
            "raw" | "f32" | "bin" => Format::Raw,
            _ => return None,
        })
    }

    /// Whether this format can store `channels` channels of `dtype` samples in a file with
    /// extension `ext`; the error says what would work.
    pub fn check_encodable(self, ext: &str, channels: usize, dtype: DType) -> Result<(), String> {
        let name = ext.to_ascii_uppercase();
        let depth = |ok: &[DType], hint: &str| {
            if ok.contains(&dtype) {
                Ok(())
            } else {
                Err(format!("{name} cannot store {} samples ({hint})", dtype.suffix()))
            }
        };
        let layout = match (self, ext, channels) {
            (Format::Jpeg, _, 4) => Err("JPEG cannot store RGBA: use .png or .tiff".to_string()),
            (Format::Pnm, "pgm", c) if c != 1 => Err(format!("PGM stores gray images, not {c} channels")),
            (Format::Pnm, "ppm", c) if c != 3 => Err(format!("PPM stores RGB images, not {c} channels")),
            (Format::Pnm, "pbm", _) => Err("PBM (1-bit) output is not supported: use .pgm".to_string()),
            _ => Ok(()),
        };
        layout?;
        match self {
            Format::Png | Format::Pnm => depth(&[DType::U8, DType::U16], "use .tiff or .raw, or --dtype u16"),
            Format::Jpeg | Format::Bmp => depth(&[DType::U8], "use --dtype u8, or .png or .tiff"),
            Format::Tiff | Format::Raw => Ok(()),
        }
    }
}

/// How to read files that carry no size: RAW `f32` files.
#[derive(Clone, Copy, Debug, Default)]
pub struct RawLayout {
    pub width: Option<usize>,
    pub height: Option<usize>,
    pub channels: usize,
}

/// Reads an image file: format from the content (or the extension for RAW), samples as stored
/// (8-bit, 16-bit or `f32`); gray+alpha becomes RGBA. One image may take at most
/// [`default_max_image_bytes`] of memory; [`read_with_limit`] sets another bound.
pub fn read(path: &Path, raw: &RawLayout) -> Result<Image, FileError> {
    read_with_limit(path, raw, default_max_image_bytes())
}

/// [`read`], refusing (before allocating it) an image whose decoded samples would take more than
/// `max_bytes`.
pub fn read_with_limit(path: &Path, raw: &RawLayout, max_bytes: u64) -> Result<Image, FileError> {
    let read_err = |source| FileError::Read {
        path: path.to_path_buf(),
        source,
    };
    if Format::of(path) == Some(Format::Raw) {
        return read_raw(path, raw);
    }
    let file = File::open(path).map_err(read_err)?;
    decode_from(BufReader::new(file), path, max_bytes)
}

/// Decodes an image file held in memory (any format [`read`] detects by content; not RAW), with
/// the same size checks and the default memory bound; errors name the file `<memory>`.
pub fn decode(bytes: &[u8]) -> Result<Image, FileError> {
    decode_with_limit(bytes, default_max_image_bytes())
}

/// [`decode`] with an explicit bound on the decoded image's memory, as [`read_with_limit`].
pub fn decode_with_limit(bytes: &[u8], max_bytes: u64) -> Result<Image, FileError> {
    decode_from(Cursor::new(bytes), Path::new("<memory>"), max_bytes)
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
fn decode_from<R: BufRead + Seek>(mut source: R, path: &Path, max_bytes: u64) -> Result<Image, FileError> {
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
        return read_tiff(reader.into_inner(), path, file_len, max_bytes);
    }
    let mut limits = image::Limits::default();
    limits.max_image_width = Some(MAX_SIDE as u32);
    limits.max_image_height = Some(MAX_SIDE as u32);
    limits.max_alloc = Some(max_bytes);
    reader.limits(limits);
    let decoder = reader.into_decoder().map_err(|e| decode(describe(e)))?;
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
    let dynamic = image::DynamicImage::from_decoder(decoder).map_err(|e| decode(describe(e)))?;
    from_dynamic(dynamic)
        .map(|image| inspection.apply(image))
        .map_err(decode)
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
            "decoding it would take {}, more than the limit of {} per image (--max-image-mem)",
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
            format!("{e} (at most {MAX_SIDE} pixels per side and {MAX_PIXELS} pixels)")
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
) -> Result<Image, FileError> {
    use tiff::decoder::{Decoder, DecodingResult, Limits};
    let decode = |e: tiff::TiffError| FileError::Decode {
        path: path.to_path_buf(),
        reason: match e {
            tiff::TiffError::IoError(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => {
                format!("the file is truncated or corrupt: its TIFF data ends early ({e})")
            }
            e => e.to_string(),
        },
    };
    let refuse = |reason: String| FileError::Decode {
        path: path.to_path_buf(),
        reason,
    };
    let mut limits = Limits::default();
    limits.decoding_buffer_size = usize::try_from(max_bytes).unwrap_or(usize::MAX);
    let mut decoder = Decoder::new(source).map_err(decode)?.with_limits(limits);
    let (w, h) = decoder.dimensions().map_err(decode)?;
    check_dims(w as usize, h as usize).map_err(|source| FileError::Image {
        path: path.to_path_buf(),
        source,
    })?;
    let color = decoder.colortype().map_err(decode)?;
    let (channels, bits) = match color {
        tiff::ColorType::Gray(b) => (1, b),
        tiff::ColorType::RGB(b) => (3, b),
        tiff::ColorType::RGBA(b) => (4, b),
        other => {
            return Err(FileError::Unsupported {
                path: path.to_path_buf(),
                reason: format!("TIFF color type {other:?} is not supported (gray, RGB or RGBA)"),
            });
        }
    };
    let bytes = u64::from(w) * u64::from(h) * channels as u64 * u64::from(bits).div_ceil(8);
    check_memory(bytes, max_bytes).map_err(refuse)?;
    // Compression 1 is none: the samples are all in the file.
    let compression = decoder.find_tag_unsigned::<u32>(tiff::tags::Tag::Compression);
    if matches!(compression, Ok(None | Some(1))) && file_len < bytes {
        return Err(refuse(format!(
            "the file is truncated: its header declares {w}x{h} uncompressed {color:?}, which needs \
             {bytes} bytes, but the file has {file_len}"
        )));
    }
    let (w, h) = (w as usize, h as usize);
    let samples = match decoder.read_image().map_err(decode)? {
        DecodingResult::U8(v) => Samples::U8(v),
        DecodingResult::U16(v) => Samples::U16(v),
        DecodingResult::F32(v) => Samples::F32(v),
        _ => {
            return Err(FileError::Unsupported {
                path: path.to_path_buf(),
                reason: "TIFF samples must be 8-bit, 16-bit or 32-bit float".into(),
            });
        }
    };
    Image::new(w, h, channels, samples).map_err(|source| FileError::Image {
        path: path.to_path_buf(),
        source,
    })
}

fn read_raw(path: &Path, raw: &RawLayout) -> Result<Image, FileError> {
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
    let bytes = std::fs::read(path).map_err(|source| FileError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    let want = w * h * raw.channels * 4;
    if bytes.len() != want {
        return Err(FileError::Decode {
            path: path.to_path_buf(),
            reason: format!(
                "has {} bytes, but {w}x{h} with {} channel(s) of f32 needs {want}",
                bytes.len(),
                raw.channels
            ),
        });
    }
    let values = bytes
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect();
    Image::new(w, h, raw.channels, Samples::F32(values)).map_err(image_err)
}

/// The image with its samples converted to `dtype` (value semantics: integers are level / max;
/// converting to integers clamps to [0, 1] and rounds).
pub fn convert(image: Image, dtype: DType) -> Image {
    if image.dtype() == dtype {
        return image;
    }
    let s = image.samples();
    let values: Vec<f32> = (0..s.len()).map(|i| s.value_f32(i)).collect();
    let samples = Samples::from_values(dtype, &values, image.channels(), false);
    Image::new(image.width(), image.height(), image.channels(), samples).expect("same shape")
}

/// Encodes `image` into `writer` in the format of `path`'s extension.
fn encode<W: Write + Seek>(image: &Image, path: &Path, writer: &mut W) -> Result<(), FileError> {
    let unsupported = |reason: String| FileError::Unsupported {
        path: path.to_path_buf(),
        reason,
    };
    let encode_err = |reason: String| FileError::Encode {
        path: path.to_path_buf(),
        reason,
    };
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("")
        .to_ascii_lowercase();
    let format = Format::of(path).ok_or_else(|| {
        unsupported(format!(
            "unknown output extension '{ext}' (use one of: {})",
            EXTENSIONS.join(", ")
        ))
    })?;
    let (ch, dtype) = (image.channels(), image.dtype());
    format.check_encodable(&ext, ch, dtype).map_err(unsupported)?;
    let (w, h) = (image.width() as u32, image.height() as u32);
    let bytes = image.samples().as_bytes();
    match format {
        Format::Raw => {
            let values: Vec<u8> = (0..image.samples().len())
                .flat_map(|i| image.samples().value_f32(i).to_le_bytes())
                .collect();
            writer.write_all(&values).map_err(|source| FileError::Write {
                path: path.to_path_buf(),
                source,
            })
        }
        Format::Tiff => write_tiff(image, writer).map_err(|e| encode_err(e.to_string())),
        Format::Pnm if ext != "pam" && ch != 4 => {
            // Binary PGM (P5) or PPM (P6), 8-bit or 16-bit (big-endian samples, maxval 65535).
            let magic = if ch == 1 { "P5" } else { "P6" };
            let mut data = format!("{magic}\n{w} {h}\n{}\n", dtype.levels().unwrap_or(255.0)).into_bytes();
            match image.samples() {
                Samples::U16(v) => data.extend(v.iter().flat_map(|x| x.to_be_bytes())),
                _ => data.extend(bytes),
            }
            writer.write_all(&data).map_err(|source| FileError::Write {
                path: path.to_path_buf(),
                source,
            })
        }
        Format::Png | Format::Jpeg | Format::Bmp | Format::Pnm => {
            let format = match format {
                Format::Png => ImageFormat::Png,
                Format::Jpeg => ImageFormat::Jpeg,
                Format::Bmp => ImageFormat::Bmp,
                _ => ImageFormat::Pnm,
            };
            image::write_buffer_with_format(writer, bytes, w, h, color_type(ch, dtype), format)
                .map_err(|e| encode_err(e.to_string()))
        }
    }
}

fn color_type(channels: usize, dtype: DType) -> ExtendedColorType {
    match (channels, dtype) {
        (1, DType::U8) => ExtendedColorType::L8,
        (3, DType::U8) => ExtendedColorType::Rgb8,
        (4, DType::U8) => ExtendedColorType::Rgba8,
        (1, DType::U16) => ExtendedColorType::L16,
        (3, DType::U16) => ExtendedColorType::Rgb16,
        (4, DType::U16) => ExtendedColorType::Rgba16,
        (3, DType::F32) => ExtendedColorType::Rgb32F,
        (4, DType::F32) => ExtendedColorType::Rgba32F,
        _ => ExtendedColorType::Unknown(0),
    }
}

fn write_tiff<W: Write + Seek>(image: &Image, writer: &mut W) -> tiff::TiffResult<()> {
    use tiff::encoder::{TiffEncoder, colortype as ct};
    let mut enc = TiffEncoder::new(writer)?;
    let (w, h) = (image.width() as u32, image.height() as u32);
    match (image.channels(), image.samples()) {
        (1, Samples::U8(v)) => enc.write_image::<ct::Gray8>(w, h, v),
        (3, Samples::U8(v)) => enc.write_image::<ct::RGB8>(w, h, v),
        (_, Samples::U8(v)) => enc.write_image::<ct::RGBA8>(w, h, v),
        (1, Samples::U16(v)) => enc.write_image::<ct::Gray16>(w, h, v),
        (3, Samples::U16(v)) => enc.write_image::<ct::RGB16>(w, h, v),
        (_, Samples::U16(v)) => enc.write_image::<ct::RGBA16>(w, h, v),
        (1, Samples::F32(v)) => enc.write_image::<ct::Gray32Float>(w, h, v),
        (3, Samples::F32(v)) => enc.write_image::<ct::RGB32Float>(w, h, v),
        (_, Samples::F32(v)) => enc.write_image::<ct::RGBA32Float>(w, h, v),
    }
}

/// The temporary files being written now; [`remove_temporaries_and_exit`] removes them when a
/// signal ends the process. Creating, renaming and removing one happen under this lock.
static LIVE_TEMPORARIES: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

fn live_temporaries() -> MutexGuard<'static, Vec<PathBuf>> {
    LIVE_TEMPORARIES.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Removes every temporary file being written and ends the process with `code`, holding the list
/// so that no new temporary file appears meanwhile (see [`crate::io::interrupt`]).
pub fn remove_temporaries_and_exit(code: i32) -> ! {
    let live = live_temporaries();
    for path in live.iter() {
        let _ = std::fs::remove_file(path);
    }
    std::process::exit(code)
}

/// A result being written: a hidden file in the destination folder with an unpredictable name,
/// created exclusively (never through a symlink, never over a file), listed in
/// [`LIVE_TEMPORARIES`] while it exists, and removed on drop unless persisted.
struct Temporary(Option<tempfile::NamedTempFile>);

impl Temporary {
    fn create(path: &Path) -> std::io::Result<Self> {
        let dir = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        let name = path.file_name().map(|n| n.to_string_lossy()).unwrap_or_default();
        let mut live = live_temporaries();
        let prefix = format!(".{name}.");
        let mut builder = tempfile::Builder::new();
        builder.prefix(&prefix).suffix(".tmp");
        // As `File::create` would: read-write for all, less the umask.
        #[cfg(unix)]
        builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666));
        let file = builder.tempfile_in(dir)?;
        live.push(file.path().to_path_buf());
        Ok(Self(Some(file)))
    }

    fn file(&self) -> &File {
        self.0.as_ref().expect("present until persisted").as_file()
    }

    /// Renames the file to `path` (atomically, replacing what is there).
    fn persist(mut self, path: &Path) -> std::io::Result<()> {
        let file = self.0.take().expect("present until persisted");
        let mut live = live_temporaries();
        live.retain(|p| p != file.path());
        // On failure the returned file is dropped here, which removes it.
        file.persist(path).map(drop).map_err(|e| e.error)
    }
}

impl Drop for Temporary {
    fn drop(&mut self) {
        if let Some(file) = self.0.take() {
            let mut live = live_temporaries();
            live.retain(|p| p != file.path());
            drop(file);
        }
    }
}

/// A writer that fails once a signal asked the process to stop, so that an encoder gives up on
/// the file it is writing.
struct Cancellable<W>(W);

fn check_not_interrupted() -> std::io::Result<()> {
    match crate::io::interrupt::signal() {
        Some(s) => Err(std::io::Error::other(format!(
            "interrupted by {}",
            crate::io::interrupt::name(s)
        ))),
        None => Ok(()),
    }
}

impl<W: Write> Write for Cancellable<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        check_not_interrupted()?;
        self.0.write(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.0.flush()
    }
}

impl<W: Seek> Seek for Cancellable<W> {
    fn seek(&mut self, pos: SeekFrom) -> std::io::Result<u64> {
        self.0.seek(pos)
    }
}

/// What `metadata` describes, for a message about something that is not a regular file.
fn file_kind(meta: &std::fs::Metadata) -> &'static str {
    let t = meta.file_type();
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt as _;
        if t.is_char_device() || t.is_block_device() {
            return "a device";
        }
        if t.is_fifo() {
            return "a named pipe";
        }
        if t.is_socket() {
            return "a socket";
        }
    }
    if t.is_dir() { "a folder" } else { "a special file" }
}

/// What `path` is when it exists (through symlinks) and is not a regular file: a device such as
/// `/dev/full`, a pipe, a folder. Results are never written to those.
pub fn not_a_regular_file(path: &Path) -> Option<&'static str> {
    match std::fs::metadata(path) {
        Ok(meta) if !meta.is_file() => Some(file_kind(&meta)),
        _ => None,
    }
}

/// Writes `image` to `path` in the format of its extension: to a hidden temporary file with an
/// unpredictable name in the same folder first (created exclusively, so never through a planted
/// symlink), renamed over `path` only once complete. On any error, or once a signal asked the
/// process to stop ([`crate::io::interrupt`]), the temporary file is removed, so an interruption or
/// failure never leaves a truncated image or a temporary file.
pub fn write(image: &Image, path: &Path) -> Result<(), FileError> {
    if let Some(kind) = not_a_regular_file(path) {
        return Err(FileError::Unsupported {
            path: path.to_path_buf(),
            reason: format!("{kind}, not a regular file: refusing to write the result there"),
        });
    }
    let write_err = |source| FileError::Write {
        path: path.to_path_buf(),
        source,
    };
    let interrupted = || {
        crate::io::interrupt::signal().map(|s| FileError::Interrupted {
            path: path.to_path_buf(),
            signal: crate::io::interrupt::name(s),
        })
    };
    if let Some(e) = interrupted() {
        return Err(e);
    }
    let tmp = Temporary::create(path).map_err(write_err)?;
    let mut writer = BufWriter::new(Cancellable(tmp.file()));
    let encoded = encode(image, path, &mut writer).and_then(|()| {
        writer
            .into_inner()
            .map_err(|e| write_err(e.into_error()))
            .and_then(|_| tmp.file().sync_all().map_err(write_err))
    });
    if let Some(e) = interrupted() {
        return Err(e);
    }
    encoded?;
    tmp.persist(path).map_err(write_err)
}

/// Checks that `dir` is an existing folder this process can create files in, by creating and
/// removing a probe file.
pub fn check_writable_dir(dir: &Path) -> Result<(), String> {
    let shown = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    if !shown.is_dir() {
        return Err(format!("output folder {} does not exist", shown.display()));
    }
    // An exclusively created probe with an unpredictable name, removed when dropped.
    tempfile::Builder::new()
        .prefix(".conv-write-probe.")
        .tempfile_in(shown)
        .map(drop)
        .map_err(|e| format!("output folder {} is not writable: {e}", shown.display()))
}
