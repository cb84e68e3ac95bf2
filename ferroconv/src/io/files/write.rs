//! Writing image files: encoding with the bit depth kept, and safe writes (an exclusive hidden
//! temporary file in the destination folder, then a rename), removed on error or interruption.

use super::{EXTENSIONS, FileError, Format, Metadata};
use crate::model::image::{DType, Image, Samples};
use image::{ExtendedColorType, ImageEncoder as _, ImageFormat};
use std::fs::File;
use std::io::{BufWriter, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, PoisonError};

/// How results are encoded where the format has a choice.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Encoding {
    /// JPEG quality, 1 to 100 (default 95, OpenCV's `IMWRITE_JPEG_QUALITY`).
    pub jpeg_quality: u8,
    /// TIFF compression (default none).
    pub tiff: TiffCompression,
    /// PNG's zlib level, 0 (stored) to 9 (smallest), or `None` for the encoder's fast default.
    pub png_level: Option<u8>,
    /// Write `f32` results as signed 16-bit integers, rounded and saturated (OpenCV's `CV_16S`);
    /// TIFF only.
    pub int16: bool,
}

impl Default for Encoding {
    fn default() -> Self {
        Encoding {
            jpeg_quality: 95,
            tiff: TiffCompression::None,
            png_level: None,
            int16: false,
        }
    }
}

/// A TIFF's compression: lossless, with the horizontal predictor for integer samples where
/// compressed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TiffCompression {
    /// Uncompressed.
    None,
    /// LZW.
    Lzw,
    /// Deflate (zlib), at its default level.
    Deflate,
}

/// Encodes `image` into `writer` in the format of `path`'s extension, with `metadata` where the
/// format holds it (PNG and JPEG: the ICC profile and the Exif block).
fn encode<W: Write + Seek>(
    image: &Image,
    path: &Path,
    encoding: &Encoding,
    metadata: &Metadata,
    writer: &mut W,
) -> Result<(), FileError> {
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
    if encoding.int16 && format != Format::Tiff {
        return Err(unsupported(format!(
            "16-bit signed results are written to TIFF, not {}: use .tif",
            ext.to_ascii_uppercase()
        )));
    }
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
        Format::Tiff => write_tiff(std::slice::from_ref(image), encoding, metadata, writer)
            .map_err(|e| encode_err(e.to_string())),
        Format::Pnm if ext != "pam" && ch != 4 => {
            // Binary PGM (P5) or PPM (P6), 8-bit or 16-bit (big-endian samples), maxval 255 or
            // 65535, or the input's maxval (its levels scaled back from the full range).
            let magic = if ch == 1 { "P5" } else { "P6" };
            let full = dtype.levels().unwrap_or(255.0);
            let maxval = metadata.pnm_maxval.map_or(full, f64::from);
            let mut data = format!("{magic}\n{w} {h}\n{maxval}\n").into_bytes();
            let level = |v: f64| (v * maxval / full).round();
            match image.samples() {
                Samples::U16(v) if maxval < 256.0 => {
                    data.extend(v.iter().map(|&x| level(f64::from(x)) as u8))
                }
                Samples::U16(v) => {
                    data.extend(v.iter().flat_map(|&x| (level(f64::from(x)) as u16).to_be_bytes()))
                }
                Samples::U8(v) if maxval != full => data.extend(v.iter().map(|&x| level(f64::from(x)) as u8)),
                _ => data.extend(bytes),
            }
            writer.write_all(&data).map_err(|source| FileError::Write {
                path: path.to_path_buf(),
                source,
            })
        }
        Format::Jpeg => {
            use image::codecs::jpeg::{JpegEncoder, PixelDensity, PixelDensityUnit};
            let mut encoder = JpegEncoder::new_with_quality(writer, encoding.jpeg_quality);
            if let Some((x, y)) = metadata.dpi {
                let dots = |v: f64| v.round().clamp(1.0, 65535.0) as u16;
                encoder.set_pixel_density(PixelDensity {
                    density: (dots(x), dots(y)),
                    unit: PixelDensityUnit::Inches,
                });
            }
            with_metadata(encoder, metadata)
                .write_image(bytes, w, h, color_type(ch, dtype))
                .map_err(|e| encode_err(e.to_string()))
        }
        Format::Png => {
            use image::codecs::png::{CompressionType, FilterType, PngEncoder};
            let level = match encoding.png_level {
                Some(0) => CompressionType::Uncompressed,
                Some(n) => CompressionType::Level(n),
                None => CompressionType::default(),
            };
            // Encoded in memory first where a pHYs chunk goes in after the header.
            let mut png = Vec::new();
            with_metadata(
                PngEncoder::new_with_quality(&mut png, level, FilterType::Adaptive),
                metadata,
            )
            .write_image(bytes, w, h, color_type(ch, dtype))
            .map_err(|e| encode_err(e.to_string()))?;
            if let Some(dpi) = metadata.dpi {
                png = with_phys(png, dpi);
            }
            writer.write_all(&png).map_err(|source| FileError::Write {
                path: path.to_path_buf(),
                source,
            })
        }
        Format::Bmp | Format::Pnm => {
            let format = match format {
                Format::Bmp => ImageFormat::Bmp,
                _ => ImageFormat::Pnm,
            };
            image::write_buffer_with_format(writer, bytes, w, h, color_type(ch, dtype), format)
                .map_err(|e| encode_err(e.to_string()))
        }
    }
}

/// `png` with a pHYs chunk of `dpi` (pixels per metre) right after its header chunk.
fn with_phys(png: Vec<u8>, (x, y): (f64, f64)) -> Vec<u8> {
    let per_metre = |dpi: f64| ((dpi / 0.0254).round() as u32).to_be_bytes();
    let mut chunk = b"pHYs".to_vec();
    chunk.extend(per_metre(x));
    chunk.extend(per_metre(y));
    chunk.push(1);
    // The signature (8 bytes), then IHDR: length, type, 13 bytes of data, CRC.
    let after_header = 8 + 4 + 4 + 13 + 4;
    let mut out = png[..after_header].to_vec();
    out.extend(9u32.to_be_bytes());
    out.extend(&chunk);
    out.extend(crc32(&chunk).to_be_bytes());
    out.extend(&png[after_header..]);
    out
}

/// The CRC-32 of PNG chunks (ISO 3309, reflected, polynomial 0xEDB88320).
fn crc32(bytes: &[u8]) -> u32 {
    !bytes.iter().fold(!0u32, |crc, &b| {
        (0..8).fold(crc ^ u32::from(b), |c, _| {
            if c & 1 == 1 {
                (c >> 1) ^ 0xEDB8_8320
            } else {
                c >> 1
            }
        })
    })
}

/// `encoder` with the ICC profile and Exif block of `metadata` (both formats that take them
/// accept them).
fn with_metadata<E: image::ImageEncoder>(mut encoder: E, metadata: &Metadata) -> E {
    if let Some(icc) = &metadata.icc {
        let _ = encoder.set_icc_profile(icc.clone());
    }
    if let Some(exif) = &metadata.exif {
        let _ = encoder.set_exif_metadata(exif.clone());
    }
    encoder
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

/// Sample bytes from which a TIFF is written as BigTIFF: classic TIFF's offsets are 32-bit, and
/// the directory and strip tables need room below 4 GiB too.
const BIG_TIFF_BYTES: usize = (4 << 30) - (64 << 20);

fn write_tiff<W: Write + Seek>(
    pages: &[Image],
    encoding: &Encoding,
    metadata: &Metadata,
    writer: &mut W,
) -> tiff::TiffResult<()> {
    use tiff::encoder::{Compression, DeflateLevel, Predictor, TiffEncoder};
    let (compression, int16) = (encoding.tiff, encoding.int16);
    let method = match compression {
        TiffCompression::None => Compression::Uncompressed,
        TiffCompression::Lzw => Compression::Lzw,
        TiffCompression::Deflate => Compression::Deflate(DeflateLevel::Balanced),
    };
    // The horizontal predictor (differences along rows) helps integer samples compress; the
    // encoder has none for floats, and steps by the colour's samples, not the alpha's too.
    let predictor = if compression != TiffCompression::None
        && pages
            .iter()
            .all(|p| (int16 || p.dtype() != DType::F32) && p.channels() != 4)
    {
        Predictor::Horizontal
    } else {
        Predictor::None
    };
    // Classic TIFF and BigTIFF encoders are different types: one body for both.
    macro_rules! write_pages {
        ($encoder:expr) => {{
            let mut enc = $encoder?.with_compression(method).with_predictor(predictor);
            pages
                .iter()
                .try_for_each(|p| write_tiff_with(p, int16, &mut enc, metadata))
        }};
    }
    let bytes: usize = pages.iter().map(|p| p.samples().as_bytes().len()).sum();
    if bytes >= BIG_TIFF_BYTES {
        write_pages!(TiffEncoder::new_big(writer))
    } else {
        write_pages!(TiffEncoder::new(writer))
    }
}

/// RGB of signed 16-bit samples, which the `tiff` crate's colour types lack.
struct RgbI16;

impl tiff::encoder::colortype::ColorType for RgbI16 {
    type Inner = i16;
    const TIFF_VALUE: tiff::tags::PhotometricInterpretation = tiff::tags::PhotometricInterpretation::RGB;
    const BITS_PER_SAMPLE: &'static [u16] = &[16; 3];
    const SAMPLE_FORMAT: &'static [tiff::tags::SampleFormat] = &[tiff::tags::SampleFormat::Int; 3];

    fn horizontal_predict(row: &[i16], result: &mut Vec<i16>) {
        result.extend_from_slice(&row[..3.min(row.len())]);
        result.extend(
            row.iter()
                .zip(row.iter().skip(3))
                .map(|(prev, cur)| cur.wrapping_sub(*prev)),
        );
    }
}

fn write_tiff_with<W: Write + Seek, K: tiff::encoder::TiffKind>(
    image: &Image,
    int16: bool,
    enc: &mut tiff::encoder::TiffEncoder<W, K>,
    metadata: &Metadata,
) -> tiff::TiffResult<()> {
    use tiff::encoder::{Rational, colortype as ct};
    let (w, h) = (image.width() as u32, image.height() as u32);
    // A page: RGBA as RGB plus an extra sample marked unassociated alpha (the ExtraSamples tag
    // readers look for), and the resolution where the input had one.
    macro_rules! page {
        ($colour:ty, $v:expr, $alpha:expr) => {{
            let mut page = enc.new_image::<$colour>(w, h)?;
            if $alpha {
                page.extra_samples(&[tiff::tags::ExtraSamples::UnassociatedAlpha])?;
            }
            if let Some(icc) = &metadata.icc {
                page.encoder()
                    .write_tag(tiff::tags::Tag::IccProfile, Undefined(icc))?;
            }
            if let Some((x, y)) = metadata.dpi {
                let rational = |v: f64| Rational {
                    n: (v * 100.0).round() as u32,
                    d: 100,
                };
                page.resolution_unit(tiff::tags::ResolutionUnit::Inch);
                page.x_resolution(rational(x));
                page.y_resolution(rational(y));
            }
            page.write_data($v)
        }};
    }
    if let (true, Samples::F32(v)) = (int16, image.samples()) {
        // Rounded half to even and saturated, as OpenCV converts to CV_16S; NaN is 0.
        let v: Vec<i16> = v
            .iter()
            .map(|&x| x.round_ties_even().clamp(-32768.0, 32767.0) as i16)
            .collect();
        return match image.channels() {
            1 => page!(ct::GrayI16, &v, false),
            3 => page!(RgbI16, &v, false),
            _ => page!(RgbI16, &v, true),
        };
    }
    match (image.channels(), image.samples()) {
        (1, Samples::U8(v)) => page!(ct::Gray8, v, false),
        (3, Samples::U8(v)) => page!(ct::RGB8, v, false),
        (_, Samples::U8(v)) => page!(ct::RGB8, v, true),
        (1, Samples::U16(v)) => page!(ct::Gray16, v, false),
        (3, Samples::U16(v)) => page!(ct::RGB16, v, false),
        (_, Samples::U16(v)) => page!(ct::RGB16, v, true),
        (1, Samples::F32(v)) => page!(ct::Gray32Float, v, false),
        (3, Samples::F32(v)) => page!(ct::RGB32Float, v, false),
        (_, Samples::F32(v)) => page!(ct::RGB32Float, v, true),
    }
}

/// Removes the Predictor tag (317) the `tiff` crate writes into every directory from those of
/// uncompressed pages (Compression 1), where libtiff warns about it, by rewriting each such
/// directory's entries in place (classic TIFF and BigTIFF, either byte order).
fn drop_uncompressed_predictor(mut file: &File) -> std::io::Result<()> {
    use std::io::Read;
    let mut head = [0u8; 16];
    file.seek(SeekFrom::Start(0))?;
    file.read_exact(&mut head)?;
    let le = &head[..2] == b"II";
    let uint = |b: &[u8]| -> u64 {
        let mut v = 0u64;
        for i in 0..b.len() {
            let byte = if le { b[b.len() - 1 - i] } else { b[i] };
            v = v << 8 | u64::from(byte);
        }
        v
    };
    let big = uint(&head[2..4]) == 43;
    // Bytes of an entry count, an entry and an offset; where an entry's value field starts.
    let (count_len, entry_len, offset_len, value_at) = if big { (8, 20, 8, 12) } else { (2, 12, 4, 8) };
    let mut ifd = if big {
        uint(&head[8..16])
    } else {
        uint(&head[4..8])
    };
    let mut seen = std::collections::HashSet::new();
    while ifd != 0 && seen.insert(ifd) {
        file.seek(SeekFrom::Start(ifd))?;
        let mut count = vec![0u8; count_len];
        file.read_exact(&mut count)?;
        let n = uint(&count) as usize;
        let mut rest = vec![0u8; n * entry_len + offset_len];
        file.read_exact(&mut rest)?;
        let next = uint(&rest[n * entry_len..]);
        let entries: Vec<&[u8]> = rest[..n * entry_len].chunks(entry_len).collect();
        let value = |e: &[u8]| uint(&e[value_at..value_at + 2]);
        let uncompressed = entries.iter().any(|e| uint(&e[..2]) == 259 && value(e) == 1);
        if let Some(at) = entries.iter().position(|e| uint(&e[..2]) == 317)
            && uncompressed
        {
            let mut out = Vec::with_capacity(count_len + n * entry_len + offset_len);
            let n_out = (n - 1) as u64;
            let count_bytes = if le {
                n_out.to_le_bytes()
            } else {
                n_out.to_be_bytes()
            };
            out.extend(if le {
                &count_bytes[..count_len]
            } else {
                &count_bytes[8 - count_len..]
            });
            for (i, e) in entries.iter().enumerate() {
                if i != at {
                    out.extend_from_slice(e);
                }
            }
            out.extend_from_slice(&rest[n * entry_len..]);
            out.extend(std::iter::repeat_n(0, entry_len));
            file.seek(SeekFrom::Start(ifd))?;
            file.write_all(&out)?;
        }
        ifd = next;
    }
    Ok(())
}

/// Bytes of TIFF field type UNDEFINED (7), as the ICC profile tag takes them.
struct Undefined<'a>(&'a [u8]);

impl tiff::encoder::TiffValue for Undefined<'_> {
    const BYTE_LEN: u8 = 1;
    const FIELD_TYPE: tiff::tags::Type = tiff::tags::Type::UNDEFINED;

    fn count(&self) -> usize {
        self.0.len()
    }

    fn data(&self) -> std::borrow::Cow<'_, [u8]> {
        std::borrow::Cow::Borrowed(self.0)
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
        let prefix = temporary_prefix(&name);
        let mut builder = tempfile::Builder::new();
        builder.prefix(&prefix).suffix(".tmp");
        // As `File::create` would: read-write for all, less the umask.
        #[cfg(unix)]
        builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666));
        let file = builder.tempfile_in(dir).map_err(without_path)?;
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

/// Bytes of a temporary name besides the prefix: 6 random characters and `.tmp`.
const TEMPORARY_TAIL: usize = 6 + 4;

/// The start of a temporary name for the file `name`: `.NAME.`, within the 255 bytes most file
/// systems allow a name with the random tail; a longer name is cut at a character boundary and
/// given a hash of the whole (`.NAME-HASH.`), so results whose names differ only near their ends
/// still get temporaries of different names.
fn temporary_prefix(name: &str) -> String {
    const ROOM: usize = 255 - TEMPORARY_TAIL - 2;
    if name.len() <= ROOM {
        return format!(".{name}.");
    }
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    std::hash::Hash::hash(name, &mut hasher);
    let hash = std::hash::Hasher::finish(&hasher);
    let mut keep = ROOM - 17;
    while !name.is_char_boundary(keep) {
        keep -= 1;
    }
    format!(".{}-{hash:016x}.", &name[..keep])
}

/// The system's error without the temporary file's name that `tempfile` adds to it: messages
/// name the result, not the file it is written through.
fn without_path(e: std::io::Error) -> std::io::Error {
    let os = e
        .get_ref()
        .and_then(|inner| std::error::Error::source(inner))
        .and_then(|source| source.downcast_ref::<std::io::Error>())
        .and_then(std::io::Error::raw_os_error);
    match os {
        Some(code) => std::io::Error::from_raw_os_error(code),
        None => e,
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
    write_with(image, path, &Encoding::default(), &Metadata::default())
}

/// [`write`](fn@write) with the encoder's choices `encoding`, and `metadata` (an input's, from
/// [`read_with_metadata`](super::read_with_metadata)) where the format holds it.
pub fn write_with(
    image: &Image,
    path: &Path,
    encoding: &Encoding,
    metadata: &Metadata,
) -> Result<(), FileError> {
    write_file(path, |writer| encode(image, path, encoding, metadata, writer))
}

/// What an encoder writes into: the temporary file, buffered, failing once a signal came.
type Sink<'a> = BufWriter<Cancellable<&'a File>>;

/// Writes `path` through a temporary file that `encode` fills, renamed over `path` once complete
/// and synced; removed on any error or interruption.
fn write_file(
    path: &Path,
    encode: impl FnOnce(&mut Sink<'_>) -> Result<(), FileError>,
) -> Result<(), FileError> {
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
    let encoded = encode(&mut writer).and_then(|()| {
        writer
            .into_inner()
            .map_err(|e| write_err(e.into_error()))
            .and_then(|_| {
                if Format::of(path) == Some(Format::Tiff) {
                    drop_uncompressed_predictor(tmp.file()).map_err(write_err)?;
                }
                tmp.file().sync_all().map_err(write_err)
            })
    });
    if let Some(e) = interrupted() {
        return Err(e);
    }
    encoded?;
    tmp.persist(path).map_err(write_err)
}

/// [`write_with`] for the pages of one result: a single page as [`write_with`] writes it, several
/// as a multi-page TIFF (`path` must name a TIFF), each page of its own size and layout, a page
/// at a time.
pub fn write_pages(
    pages: &[Image],
    path: &Path,
    encoding: &Encoding,
    metadata: &Metadata,
) -> Result<(), FileError> {
    match pages {
        [one] => write_with(one, path, encoding, metadata),
        _ if Format::of(path) != Some(Format::Tiff) => Err(FileError::Unsupported {
            path: path.to_path_buf(),
            reason: format!("{} pages need a TIFF file, which holds several", pages.len()),
        }),
        _ => write_file(path, |writer| {
            write_tiff(pages, encoding, metadata, writer).map_err(|e| FileError::Encode {
                path: path.to_path_buf(),
                reason: e.to_string(),
            })
        }),
    }
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
        return Err(format!("output folder {} does not exist", super::shown(shown)));
    }
    // An exclusively created probe with an unpredictable name, removed when dropped.
    tempfile::Builder::new()
        .prefix(".conv-write-probe.")
        .tempfile_in(shown)
        .map(drop)
        .map_err(|e| format!("output folder {} is not writable: {e}", super::shown(shown)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn temporary_names_fit_the_file_systems_limit() {
        assert_eq!(temporary_prefix("a.png"), ".a.png.");
        let long = |last: char| format!("{}{last}.png", "é".repeat(130));
        let (a, b) = (temporary_prefix(&long('x')), temporary_prefix(&long('y')));
        assert!(a.len() + TEMPORARY_TAIL <= 255, "{} bytes", a.len());
        assert!(a.starts_with(".éé") && a.ends_with('.'), "{a}");
        assert_ne!(a, b, "names that differ at their ends");
        let at_limit = "n".repeat(255 - TEMPORARY_TAIL - 2);
        assert_eq!(temporary_prefix(&at_limit), format!(".{at_limit}."));
    }
}
