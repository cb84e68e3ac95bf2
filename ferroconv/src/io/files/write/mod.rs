//! Writing image files: encoding with the bit depth kept (`encode`; TIFF in `tiff_file`), and
//! safe writes (an exclusive hidden temporary file in the destination folder, then a rename),
//! removed on error or interruption (`temporary`).

mod encode;
mod rows;
mod temporary;
mod tiff_file;

pub use rows::PnmWriter;
pub use temporary::{not_a_regular_file, remove_temporaries_and_exit};

use super::{FileError, Format, Metadata};
use crate::model::image::Image;
use encode::encode;
use std::fs::File;
use std::io::BufWriter;
use std::path::Path;
use temporary::{Cancellable, Temporary};
use tiff_file::{drop_uncompressed_predictor, write_tiff};

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
    temporary::refuse_irregular(path)?;
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
        _ if Format::of(path) != Some(Format::Tiff) => Err(FileError::unsupported(
            path,
            format!("{} pages need a TIFF file, which holds several", pages.len()),
        )),
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
