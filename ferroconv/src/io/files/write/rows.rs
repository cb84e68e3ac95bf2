//! Binary PGM and PPM files written a band of rows at a time ([`PnmWriter`]), through the same
//! safe temporary file as [`write`](fn@super::write).

use super::encode::pnm_header;
use super::temporary::{Cancellable, Temporary, refuse_irregular};
use crate::io::files::{FileError, Format, lower_extension};
use crate::model::image::{DType, Image};
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

/// A binary PGM or PPM result being written row band by row band, top to bottom: the bytes
/// [`write`](fn@super::write) writes for the whole image, into a hidden temporary file renamed
/// over the result by [`finish`](PnmWriter::finish) once every row is in. Dropped before that,
/// or on an error or a signal ([`crate::io::interrupt`]), the temporary file is removed.
pub struct PnmWriter {
    tmp: Temporary,
    sink: BufWriter<Cancellable<File>>,
    path: PathBuf,
    /// Pixels per row, samples per pixel and their type, rows still to come.
    layout: (usize, usize, DType),
    rows_left: usize,
}

impl PnmWriter {
    /// Starts `path` (`.pgm` for gray, `.ppm` for RGB, or `.pnm`) for a `width` × `height` image
    /// of `channels` 8- or 16-bit samples a pixel.
    pub fn create(
        path: &Path,
        width: usize,
        height: usize,
        channels: usize,
        dtype: DType,
    ) -> Result<Self, FileError> {
        let unsupported = |reason| FileError::unsupported(path, reason);
        let ext = lower_extension(path);
        if Format::of(path) != Some(Format::Pnm) || ext == "pam" || !matches!(channels, 1 | 3) {
            return Err(unsupported(format!(
                "rows are written to binary PGM or PPM, not {ext} of {channels} channels"
            )));
        }
        Format::Pnm
            .check_encodable(&ext, channels, dtype)
            .map_err(unsupported)?;
        refuse_irregular(path)?;
        let write_err = |source| FileError::Write {
            path: path.to_path_buf(),
            source,
        };
        let tmp = Temporary::create(path).map_err(write_err)?;
        let file = tmp.file().try_clone().map_err(write_err)?;
        let mut sink = BufWriter::with_capacity(1 << 20, Cancellable(file));
        let maxval = dtype.levels().unwrap_or(255.0);
        sink.write_all(&pnm_header(channels, width, height, maxval))
            .map_err(write_err)?;
        Ok(PnmWriter {
            tmp,
            sink,
            path: path.to_path_buf(),
            layout: (width, channels, dtype),
            rows_left: height,
        })
    }

    /// Appends `rows` of `band` (an image of the result's width, channels and sample type).
    pub fn write(&mut self, band: &Image, rows: std::ops::Range<usize>) -> Result<(), FileError> {
        let (width, channels, dtype) = self.layout;
        assert!(
            (band.width(), band.channels(), band.dtype()) == (width, channels, dtype)
                && rows.end <= band.height()
                && rows.len() <= self.rows_left,
            "a band of the result's layout, within its rows"
        );
        let row_bytes = width * channels * dtype.size();
        let bytes = &band.samples().as_bytes()[rows.start * row_bytes..rows.end * row_bytes];
        let written = match dtype {
            DType::U16 => bytes.chunks(1 << 16).try_for_each(|chunk| {
                let big: Vec<u8> = chunk
                    .chunks_exact(2)
                    .flat_map(|s| u16::from_ne_bytes([s[0], s[1]]).to_be_bytes())
                    .collect();
                self.sink.write_all(&big)
            }),
            _ => self.sink.write_all(bytes),
        };
        written.map_err(|source| FileError::Write {
            path: self.path.clone(),
            source,
        })?;
        self.rows_left -= rows.len();
        Ok(())
    }

    /// Completes the result once every row is in: flushed, synced and renamed over its path.
    pub fn finish(self) -> Result<(), FileError> {
        let PnmWriter {
            tmp,
            sink,
            path,
            rows_left,
            ..
        } = self;
        let write_err = |source| FileError::Write {
            path: path.clone(),
            source,
        };
        if rows_left > 0 {
            return Err(write_err(std::io::Error::other(format!(
                "{rows_left} rows were not written"
            ))));
        }
        let file = sink.into_inner().map_err(|e| write_err(e.into_error()))?;
        file.0.sync_all().map_err(write_err)?;
        if let Some(s) = crate::io::interrupt::signal() {
            return Err(FileError::Interrupted {
                path,
                signal: crate::io::interrupt::name(s),
            });
        }
        tmp.persist(&path).map_err(write_err)
    }
}
