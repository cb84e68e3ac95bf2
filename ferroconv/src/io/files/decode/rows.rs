//! Binary PGM and PPM files a band of rows at a time ([`PnmRows`]): an image larger than memory
//! is read in strips, each read where it lies in the file.

use super::headers::pnm_layout;
use super::read_up_to;
use crate::io::files::FileError;
use crate::model::image::{DType, check_dims};
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::ops::Range;
use std::path::{Path, PathBuf};

/// An open binary PGM (`P5`, gray) or PPM (`P6`, RGB) file of maxval 255 (8-bit samples) or
/// 65535 (16-bit, stored big-endian), whose rows are read on demand. Its samples are those
/// [`read`](super::read) gives for the whole file.
#[derive(Debug)]
pub struct PnmRows {
    file: File,
    path: PathBuf,
    width: usize,
    height: usize,
    channels: usize,
    dtype: DType,
    /// Where the samples start.
    data: u64,
}

impl PnmRows {
    /// `path` as rows, or `None` where it is not a binary PGM or PPM file of maxval 255 or 65535
    /// with all the samples its header declares (another format or maxval, ASCII, PAM, a short
    /// file: [`read`](super::read) takes those whole, and says what is wrong).
    pub fn open(path: &Path) -> Result<Option<PnmRows>, FileError> {
        let read_err = |source| FileError::Read {
            path: path.to_path_buf(),
            source,
        };
        let mut file = File::open(path).map_err(read_err)?;
        let mut head = [0u8; 4096];
        let n = read_up_to(&mut file, &mut head).map_err(read_err)?;
        let Some((magic, width, height, maxval, data)) = pnm_layout(&head[..n]) else {
            return Ok(None);
        };
        let channels = match magic {
            b'5' => 1,
            b'6' => 3,
            _ => return Ok(None),
        };
        let dtype = match maxval {
            255 => DType::U8,
            65535 => DType::U16,
            _ => return Ok(None),
        };
        let len = file.metadata().map_err(read_err)?.len();
        let bytes = (width as u64) * (height as u64) * (channels * dtype.size()) as u64;
        if check_dims(width, height).is_err() || len < data + bytes {
            return Ok(None);
        }
        Ok(Some(PnmRows {
            file,
            path: path.to_path_buf(),
            width,
            height,
            channels,
            dtype,
            data,
        }))
    }

    /// Pixels per row, rows, samples per pixel and their type.
    pub fn layout(&self) -> (usize, usize, usize, DType) {
        (self.width, self.height, self.channels, self.dtype)
    }

    /// Bytes of one row of samples.
    pub fn row_bytes(&self) -> usize {
        self.width * self.channels * self.dtype.size()
    }

    /// Copies the samples of `rows` (within the image) into `dst`, in native byte order.
    pub fn read(&mut self, rows: Range<usize>, dst: &mut [u8]) -> Result<(), FileError> {
        let row_bytes = self.row_bytes();
        assert!(
            rows.end <= self.height && dst.len() == rows.len() * row_bytes,
            "rows within the image"
        );
        let at = self.data + (rows.start * row_bytes) as u64;
        let read = self
            .file
            .seek(SeekFrom::Start(at))
            .and_then(|_| self.file.read_exact(dst));
        read.map_err(|source| FileError::Read {
            path: self.path.clone(),
            source,
        })?;
        if self.dtype == DType::U16 {
            for pair in dst.chunks_exact_mut(2) {
                let v = u16::from_be_bytes([pair[0], pair[1]]);
                pair.copy_from_slice(&v.to_ne_bytes());
            }
        }
        Ok(())
    }
}
