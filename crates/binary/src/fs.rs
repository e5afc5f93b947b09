//! File input and atomic file output.

use std::io::{self, Write};
use std::path::Path;

/// Read a whole file into memory (level files are a few MB at most).
pub fn read_file(path: &Path) -> io::Result<Vec<u8>> {
    std::fs::read(path)
}

/// Write `bytes` to `path` atomically: into a temporary file in the same folder, flushed to
/// disk, then renamed over `path`. Readers of `path` see the old file or the new one, never a
/// half-written one.
///
/// Refuses (with [`io::ErrorKind::InvalidInput`]) when `path` is the same file as `protect`
/// (an input of the command), so an input is never overwritten by accident.
pub fn write_atomic(path: &Path, bytes: &[u8], protect: &[&Path]) -> io::Result<()> {
    for p in protect {
        if same_file(path, p) {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "refusing to overwrite the input file {}; choose another output path",
                    path.display()
                ),
            ));
        }
    }
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => std::path::PathBuf::from("."),
    };
    let name = path.file_name().ok_or_else(|| {
        io::Error::new(io::ErrorKind::InvalidInput, "output path has no file name")
    })?;
    let mut tmp_name = std::ffi::OsString::from(".");
    tmp_name.push(name);
    tmp_name.push(format!(".{}.tmp", std::process::id()));
    let tmp = dir.join(tmp_name);
    let result = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        drop(f);
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
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
    }
}
