//! File input and atomic file output.

use std::io::{self, Write};
use std::path::Path;

/// The largest input file [`read_file`] accepts: 2 GiB (the largest real level files are a few
/// tens of MB; the formats' own 32-bit sizes end at 4 GiB).
pub const MAX_INPUT_SIZE: u64 = 2 << 30;

/// Read a whole input file into memory.
///
/// Refuses what is not a regular file (a folder, `/dev/zero`, a pipe: they could grow without
/// bound) and files over [`MAX_INPUT_SIZE`], with [`io::ErrorKind::InvalidInput`]; reads no
/// more than the size the file had when opened, plus one byte to notice growth.
pub fn read_file(path: &Path) -> io::Result<Vec<u8>> {
    use std::io::Read;
    let f = std::fs::File::open(path)?;
    let meta = f.metadata()?;
    if !meta.is_file() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            if meta.is_dir() {
                "is a folder, not a file".to_string()
            } else {
                "is not a regular file (a device, pipe or socket)".to_string()
            },
        ));
    }
    if meta.len() > MAX_INPUT_SIZE {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!(
                "is {} bytes, more than the {MAX_INPUT_SIZE} bytes a level file can be",
                meta.len()
            ),
        ));
    }
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
    f.take(meta.len().saturating_add(1))
        .read_to_end(&mut bytes)?;
    if bytes.len() as u64 > meta.len() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "grew while it was being read",
        ));
    }
    Ok(bytes)
}

/// Write a new output file: like [`write_atomic`], but an existing `path` is replaced only
/// when `force` is set (otherwise [`io::ErrorKind::AlreadyExists`], naming the path).
pub fn write_new(path: &Path, bytes: &[u8], protect: &[&Path], force: bool) -> io::Result<()> {
    refuse_inputs(path, protect)?;
    refuse_existing(path, force)?;
    write_atomic(path, bytes, protect)
}

/// Write `bytes` to `path` atomically: into a temporary file in the same folder, flushed to
/// disk, then renamed over `path`. Readers of `path` see the old file or the new one, never a
/// half-written one.
///
/// Refuses (with [`io::ErrorKind::InvalidInput`]) when `path` is the same file as `protect`
/// (an input of the command), so an input is never overwritten by accident.
pub fn write_atomic(path: &Path, bytes: &[u8], protect: &[&Path]) -> io::Result<()> {
    write_atomic_with(path, protect, |w| w.write_all(bytes))
}

/// [`write_new`] with the content produced by `write` (handed the temporary file, buffered),
/// which may return a value.
pub fn write_new_with<T>(
    path: &Path,
    protect: &[&Path],
    force: bool,
    write: impl FnOnce(&mut dyn Write) -> io::Result<T>,
) -> io::Result<T> {
    refuse_inputs(path, protect)?;
    refuse_existing(path, force)?;
    write_atomic_with(path, protect, write)
}

/// [`write_atomic`] with the content produced by `write` (handed the temporary file, buffered),
/// which may return a value; the file is renamed into place only when `write` succeeds.
pub fn write_atomic_with<T>(
    path: &Path,
    protect: &[&Path],
    write: impl FnOnce(&mut dyn Write) -> io::Result<T>,
) -> io::Result<T> {
    refuse_inputs(path, protect)?;
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => std::path::PathBuf::from("."),
    };
    path.file_name().ok_or_else(|| {
        io::Error::new(io::ErrorKind::InvalidInput, "output path has no file name")
    })?;
    if std::fs::metadata(path).is_ok_and(|m| m.is_dir()) {
        return Err(io::Error::new(
            io::ErrorKind::AlreadyExists,
            FOLDER_IN_THE_WAY,
        ));
    }
    // A short temporary name: the output's own name may be near the file system's limit.
    // A missing output folder is made (`demo out/level.wad` on a fresh checkout).
    std::fs::create_dir_all(&dir).map_err(|e| in_path(e, &dir))?;
    // The counter keeps threads of one process writing into one folder apart.
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let tmp = dir.join(format!(".levelgeom-{}-{n}.tmp", std::process::id()));
    let result = (|| {
        let f = std::fs::File::create(&tmp).map_err(|e| in_path(e, &tmp))?;
        let mut w = io::BufWriter::with_capacity(64 << 10, f);
        let t = write(&mut w)?;
        let f = w.into_inner().map_err(io::IntoInnerError::into_error)?;
        f.sync_all()?;
        drop(f);
        std::fs::rename(&tmp, path)?;
        Ok(t)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// What every command says when its output file exists.
pub const OUTPUT_EXISTS: &str =
    "the file exists; choose another output path or pass --force to replace it";

/// An output file that is a folder is refused whatever `force` says (a file is written, a
/// folder is never replaced); an existing file is refused without `force`.
fn refuse_existing(path: &Path, force: bool) -> io::Result<()> {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.is_dir() => Err(io::Error::new(
            io::ErrorKind::AlreadyExists,
            FOLDER_IN_THE_WAY,
        )),
        Ok(_) if !force => Err(io::Error::new(io::ErrorKind::AlreadyExists, OUTPUT_EXISTS)),
        _ => Ok(()),
    }
}

/// What is said when the output path is a folder.
const FOLDER_IN_THE_WAY: &str =
    "a folder of that name is in the way; give the path of a file to write (a folder is never \
     replaced)";

fn refuse_inputs(path: &Path, protect: &[&Path]) -> io::Result<()> {
    for p in protect {
        if same_file(path, p) {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "refusing to overwrite the input {} (a file this command reads); choose another output path",
                    path.display()
                ),
            ));
        }
    }
    Ok(())
}

/// The same error, saying which path it happened on: the temporary file, not the output
/// path the caller names.
fn in_path(e: io::Error, path: &Path) -> io::Error {
    io::Error::new(e.kind(), format!("{}: {e}", path.display()))
}

fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(x), Ok(y)) => x == y,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atomic_write_replaces_and_protects_inputs() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out.bin");
        write_atomic(&out, b"one", &[]).unwrap();
        write_atomic(&out, b"two", &[]).unwrap();
        assert_eq!(std::fs::read(&out).unwrap(), b"two");
        let err = write_atomic(&out, b"three", &[&out]).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidInput);
        assert_eq!(std::fs::read(&out).unwrap(), b"two");
        // no temp files left behind
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
        // write_new refuses an existing file unless forced
        let err = write_new(&out, b"four", &[], false).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::AlreadyExists);
        assert_eq!(std::fs::read(&out).unwrap(), b"two");
        write_new(&out, b"four", &[], true).unwrap();
        assert_eq!(std::fs::read(&out).unwrap(), b"four");
        // a name at the file system's limit still works (the temp name does not grow with it)
        let long = dir.path().join("x".repeat(255));
        write_atomic(&long, b"long", &[]).unwrap();
        assert_eq!(std::fs::read(&long).unwrap(), b"long");
    }

    #[test]
    fn read_file_refuses_what_is_not_a_regular_file() {
        let dir = tempfile::tempdir().unwrap();
        let err = read_file(dir.path()).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidInput);
        assert!(err.to_string().contains("folder"), "{err}");
        if Path::new("/dev/zero").exists() {
            let err = read_file(Path::new("/dev/zero")).unwrap_err();
            assert_eq!(err.kind(), io::ErrorKind::InvalidInput);
        }
        let f = dir.path().join("a");
        std::fs::write(&f, b"abc").unwrap();
        assert_eq!(read_file(&f).unwrap(), b"abc");
    }
}
