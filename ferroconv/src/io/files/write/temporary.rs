//! Safe writes: the hidden temporary files results are written through (exclusive, in the
//! destination folder, listed so that a signal can remove them), a writer that gives up once a
//! signal came, and the check that a destination is a regular file.

use crate::io::files::FileError;
use std::fs::File;
use std::io::{Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, PoisonError};

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
pub(super) struct Temporary(Option<tempfile::NamedTempFile>);

impl Temporary {
    pub(super) fn create(path: &Path) -> std::io::Result<Self> {
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

    pub(super) fn file(&self) -> &File {
        self.0.as_ref().expect("present until persisted").as_file()
    }

    /// Renames the file to `path` (atomically, replacing what is there).
    pub(super) fn persist(mut self, path: &Path) -> std::io::Result<()> {
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
pub(super) struct Cancellable<W>(pub(super) W);

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

/// [`not_a_regular_file`] as the error of a write to `path`.
pub(super) fn refuse_irregular(path: &Path) -> Result<(), FileError> {
    match not_a_regular_file(path) {
        Some(kind) => Err(FileError::unsupported(
            path,
            format!("{kind}, not a regular file: refusing to write the result there"),
        )),
        None => Ok(()),
    }
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
