//! Image files in and out: format from the extension, decoding with size limits ([`decode`]),
//! encoding with the bit depth kept and safe writes ([`write`](fn@write): temporary file, then rename),
//! sample type conversion.
//!
//! PNG, JPEG, BMP and PGM/PPM/PNM/PAM go through the `image` crate, TIFF through the `tiff` crate
//! (which also reads and writes 32-bit float gray), RAW is headerless little-endian `f32`.
//! Decoding refuses, before any pixel buffer is allocated, images beyond
//! [`MAX_SIDE`](crate::model::image::MAX_SIDE) per side, images whose samples would take more
//! memory than a bound (by default a quarter of the machine's; no pixel count is refused below
//! that, so gigapixel images are taken as far as memory allows), and files of uncompressed formats (PNM, PAM, BMP, TIFF) shorter than
//! their header says, so a small file that claims huge dimensions (a decompression bomb) fails fast
//! with a clear error.

mod decode;
mod probe;
mod write;

pub use decode::{
    Metadata, PnmRows, ReadOptions, decode, decode_with_limit, default_max_image_bytes, read, read_pages,
    read_with_limit, read_with_metadata,
};
pub use probe::sample_types;
pub use write::{Encoding, PnmWriter, TiffCompression, write, write_pages, write_with};
pub use write::{check_writable_dir, not_a_regular_file, remove_temporaries_and_exit};

use crate::model::image::{DType, Image, Samples};
use std::path::{Path, PathBuf};

/// Why a file could not be read or written; every message is one line.
#[derive(Debug, thiserror::Error)]
pub enum FileError {
    /// The file could not be opened or read.
    #[error("cannot read {}: {source}", shown(.path))]
    Read {
        /// The file.
        path: PathBuf,
        /// The system's error.
        source: std::io::Error,
    },
    /// The file could not be created or written.
    #[error("cannot write {}: {source}", shown(.path))]
    Write {
        /// The file.
        path: PathBuf,
        /// The system's error.
        source: std::io::Error,
    },
    /// The file's content is not a valid image of its format.
    #[error("{}: {}", shown(.path), one_line(.reason))]
    Decode {
        /// The file.
        path: PathBuf,
        /// The decoder's words.
        reason: String,
    },
    /// The image could not be encoded in the file's format.
    #[error("{}: {}", shown(.path), one_line(.reason))]
    Encode {
        /// The file.
        path: PathBuf,
        /// The encoder's words.
        reason: String,
    },
    /// A multi-page TIFF read as one image without a page picked; no page was decoded.
    #[error(
        "{}: a multi-page TIFF of {pages} pages: read_pages reads them all, or pick page N (0 to {}) \
         with --page N",
        shown(.path),
        .pages - 1
    )]
    MultiPage {
        /// The file.
        path: PathBuf,
        /// Its pages.
        pages: usize,
    },
    /// A format, sample type or layout this library does not read or write.
    #[error("{}: {reason}", shown(.path))]
    Unsupported {
        /// The file.
        path: PathBuf,
        /// What is not supported.
        reason: String,
    },
    /// The decoded image is not a valid image (size, channels, memory bound).
    #[error("{}: {source}", shown(.path))]
    Image {
        /// The file.
        path: PathBuf,
        /// Why.
        source: crate::Error,
    },
    /// A signal asked the process to stop while (or before) the result was written; nothing was
    /// left at `path`.
    #[error("{}: not written: interrupted by {signal}", shown(.path))]
    Interrupted {
        /// The file that was not written.
        path: PathBuf,
        /// The signal's name.
        signal: String,
    },
}

/// `text` with every run of whitespace, line breaks included, made one space.
pub fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `path` for messages: as text (lossy where it is not UTF-8), its control characters written
/// as escapes (`\n`, `\t`, `\u{1b}`), so that no name can split a message's line or forge one.
pub fn shown(path: &Path) -> String {
    let mut text = String::new();
    for c in path.to_string_lossy().chars() {
        if c.is_control() {
            text.extend(c.escape_default());
        } else {
            text.push(c);
        }
    }
    text
}

/// A file format, chosen by the file's extension (for reading, by its content when it is known).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// PNG.
    Png,
    /// JPEG.
    Jpeg,
    /// TIFF.
    Tiff,
    /// BMP.
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

/// `path`'s extension in lower case ("" where it has none or it is not UTF-8).
pub(crate) fn lower_extension(path: &Path) -> String {
    path.extension()
        .and_then(|e| e.to_str())
        .unwrap_or("")
        .to_ascii_lowercase()
}

impl FileError {
    /// [`FileError::Unsupported`] of `path`.
    pub(crate) fn unsupported(path: &Path, reason: String) -> Self {
        FileError::Unsupported {
            path: path.to_path_buf(),
            reason,
        }
    }
}

impl Format {
    /// The format of `path`'s extension, if it is one we know.
    pub fn of(path: &Path) -> Option<Format> {
        Some(match lower_extension(path).as_str() {
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
            Format::Tiff => depth(&DType::ALL, "use .raw, or --dtype f32"),
            Format::Raw => Ok(()),
        }
    }
}

/// How to read files that carry no size: RAW `f32` files.
#[derive(Clone, Copy, Debug, Default)]
pub struct RawLayout {
    /// Pixels per row (`None`: from the file's size, with `height`).
    pub width: Option<usize>,
    /// Rows (`None`: from the file's size, with `width`).
    pub height: Option<usize>,
    /// Samples per pixel.
    pub channels: usize,
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

/// The image's samples as `f32` counts: integer samples become their levels (0-255, 0-65535) as
/// they are, not level / max, so that integer taps on them give exact integers as OpenCV's
/// `filter2D` with a `ddepth` of `CV_32F` does; `f32` samples are kept.
pub fn to_counts(image: Image) -> Image {
    let counts = match image.samples() {
        Samples::U8(v) => v.iter().map(|&x| f32::from(x)).collect(),
        Samples::U16(v) => v.iter().map(|&x| f32::from(x)).collect(),
        Samples::F32(_) | Samples::F16(_) | Samples::BF16(_) => return image,
    };
    Image::new(
        image.width(),
        image.height(),
        image.channels(),
        Samples::F32(counts),
    )
    .expect("same shape")
}
