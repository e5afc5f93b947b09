//! Where a mesh file's companions (MTL libraries, `.bin` buffers, textures) come from.

use std::path::{Path, PathBuf};

/// A source of the files a mesh file refers to by relative path (`mtllib level.mtl`, a glTF
/// buffer `uri`). Paths reach [`FileSource::read`] already checked by [`safe_relative`]:
/// relative, forward slashes, no `..`, no drive or root.
pub trait FileSource {
    /// The bytes of `relative`, or a message saying why not (not found, unreadable).
    fn read(&self, relative: &str) -> Result<Vec<u8>, String>;
}

/// No companion files at all: every read fails with "no folder to read … from".
#[derive(Clone, Copy, Debug, Default)]
pub struct NoFiles;

impl FileSource for NoFiles {
    fn read(&self, relative: &str) -> Result<Vec<u8>, String> {
        Err(format!("no folder to read {relative:?} from"))
    }
}

/// Files in a folder on disk (normally the folder of the mesh file).
///
/// A companion is read only when its real path (every symbolic link followed) lies inside
/// the folder's real path, and only when it is a regular file of at most
/// [`Limits::max_decoded`](levelgeom_binary::Limits) bytes (1 GiB by default) — a FIFO, a
/// device such as `/dev/zero`, or a socket is refused before it is opened
/// ([`levelgeom_binary::read_regular`]). Refusals name the paths only, never the content.
#[derive(Clone, Debug)]
pub struct Folder(pub PathBuf);

impl FileSource for Folder {
    fn read(&self, relative: &str) -> Result<Vec<u8>, String> {
        read_inside(
            &self.0,
            relative,
            levelgeom_binary::Limits::DEFAULT.max_decoded as u64,
        )
        .map(|(_, b)| b)
    }
}

/// [`Folder`] with a size cap of its own, recording the real path of every file it read (so
/// that a command never writes over one of them).
#[derive(Debug)]
pub struct TrackedFolder {
    folder: PathBuf,
    cap: u64,
    read: std::cell::RefCell<Vec<PathBuf>>,
}

impl TrackedFolder {
    /// Companions of `folder`, each at most `cap` bytes.
    pub fn new(folder: PathBuf, cap: u64) -> TrackedFolder {
        TrackedFolder {
            folder,
            cap,
            read: std::cell::RefCell::new(Vec::new()),
        }
    }

    /// The real paths of the files read (or found and refused for their size or content).
    pub fn into_read(self) -> Vec<PathBuf> {
        self.read.into_inner()
    }
}

impl FileSource for TrackedFolder {
    fn read(&self, relative: &str) -> Result<Vec<u8>, String> {
        let (real, result) = match read_inside(&self.folder, relative, self.cap) {
            Ok((real, b)) => (Some(real), Ok(b)),
            Err(e) => (
                std::fs::canonicalize(self.folder.join(relative)).ok(),
                Err(e),
            ),
        };
        if let Some(real) = real {
            self.read.borrow_mut().push(real);
        }
        result
    }
}

/// Read `relative` in `folder`: refused when its real path leaves the folder's real path (a
/// symbolic link out, of the file or of a folder on the way), when it is not a regular file,
/// or when it is over `cap` bytes. Returns the real path and the bytes; errors name paths only.
pub fn read_inside(folder: &Path, relative: &str, cap: u64) -> Result<(PathBuf, Vec<u8>), String> {
    let p = folder.join(relative);
    let base = std::fs::canonicalize(if folder.as_os_str().is_empty() {
        Path::new(".")
    } else {
        folder
    })
    .map_err(|e| format!("{}: {e}", folder.display()))?;
    let real = std::fs::canonicalize(&p).map_err(|e| format!("{}: {e}", p.display()))?;
    if !real.starts_with(&base) {
        return Err(format!(
            "{} resolves to {}, outside the mesh file's folder {} (through a symbolic link); not read",
            p.display(),
            real.display(),
            base.display()
        ));
    }
    let bytes =
        levelgeom_binary::read_regular(&real, cap).map_err(|e| format!("{}: {e}", p.display()))?;
    Ok((real, bytes))
}

/// Files held in memory, by relative path (for tests and for callers that have the bytes).
#[derive(Clone, Debug, Default)]
pub struct MemoryFiles(pub Vec<(String, Vec<u8>)>);

impl FileSource for MemoryFiles {
    fn read(&self, relative: &str) -> Result<Vec<u8>, String> {
        self.0
            .iter()
            .find(|(name, _)| name == relative)
            .map(|(_, b)| b.clone())
            .ok_or_else(|| format!("{relative:?} not found"))
    }
}

/// Check that `path` stays inside the referring file's folder: not empty, not absolute (no
/// leading `/` or `\`, no drive letter `C:`, no URI scheme `file:`), no `..` component.
/// Backslashes are taken as separators. Returns the path with forward slashes, `.`
/// components removed.
pub fn safe_relative(path: &str) -> Result<String, String> {
    let p = path.replace('\\', "/");
    if p.is_empty() {
        return Err("empty path".into());
    }
    if p.starts_with('/') {
        return Err(format!("{path:?} is absolute"));
    }
    if let Some((scheme, _)) = p.split_once(':') {
        if !scheme.contains('/') {
            return Err(format!(
                "{path:?} is absolute or names a scheme ({scheme}:)"
            ));
        }
    }
    let mut parts = Vec::new();
    for c in p.split('/') {
        match c {
            "" | "." => {}
            ".." => return Err(format!("{path:?} leaves the file's folder (..)")),
            c => parts.push(c),
        }
    }
    if parts.is_empty() {
        return Err(format!("{path:?} names no file"));
    }
    Ok(parts.join("/"))
}

/// Decode `%XX` escapes of a URI (invalid escapes are kept as written; the result is read as
/// UTF-8, invalid sequences replaced).
pub fn percent_decode(uri: &str) -> String {
    let b = uri.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' && i + 2 < b.len() {
            let hex = |c: u8| (c as char).to_digit(16);
            if let (Some(h), Some(l)) = (hex(b[i + 1]), hex(b[i + 2])) {
                out.push((h * 16 + l) as u8);
                i += 3;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Decode a `data:` URI: returns the MIME type and the bytes, base64 (`;base64,`) or
/// percent-encoded. `None` when `uri` is not a data URI.
pub fn data_uri(uri: &str) -> Option<Result<(String, Vec<u8>), String>> {
    let rest = uri.strip_prefix("data:")?;
    let Some((meta, payload)) = rest.split_once(',') else {
        return Some(Err("data URI without a comma".into()));
    };
    let (mime, is_b64) = match meta.strip_suffix(";base64") {
        Some(m) => (m, true),
        None => (meta, false),
    };
    let mime = mime.split(';').next().unwrap_or("").to_string();
    if is_b64 {
        Some(base64(payload).map(|b| (mime, b)))
    } else {
        Some(Ok((mime, percent_decode(payload).into_bytes())))
    }
}

/// Standard base64 (with or without `=` padding; whitespace ignored).
fn base64(s: &str) -> Result<Vec<u8>, String> {
    let mut out = Vec::with_capacity(s.len() / 4 * 3 + 3);
    let mut acc = 0u32;
    let mut bits = 0u32;
    let mut ended = false;
    for (i, c) in s.bytes().enumerate() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            b'=' => {
                ended = true;
                continue;
            }
            b' ' | b'\n' | b'\r' | b'\t' => continue,
            _ => return Err(format!("bad base64 character at {i}")),
        };
        if ended {
            return Err(format!("base64 data after padding at {i}"));
        }
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    Ok(out)
}

/// The stem of a file name for scene and root names (`level.obj` → `level`).
pub fn stem(name: &str) -> String {
    Path::new(name)
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| name.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_and_data_uris() {
        assert_eq!(base64("aGVsbG8=").unwrap(), b"hello");
        assert_eq!(base64("aGVsbG8").unwrap(), b"hello");
        assert_eq!(base64("AAECAw==").unwrap(), vec![0, 1, 2, 3]);
        assert!(base64("a*b").is_err());
        let (m, b) = data_uri("data:application/octet-stream;base64,AAECAw==")
            .unwrap()
            .unwrap();
        assert_eq!(m, "application/octet-stream");
        assert_eq!(b, vec![0, 1, 2, 3]);
        assert!(data_uri("level.bin").is_none());
    }

    #[test]
    fn relative_paths() {
        assert_eq!(safe_relative("a/./b.bin").unwrap(), "a/b.bin");
        assert_eq!(safe_relative("sub\\x.bin").unwrap(), "sub/x.bin");
        for bad in [
            "/etc/passwd",
            "../x.bin",
            "a/../../x",
            "C:/x.bin",
            "file:///x",
            "",
        ] {
            assert!(safe_relative(bad).is_err(), "{bad}");
        }
        assert_eq!(percent_decode("my%20file%2.png"), "my file%2.png");
        assert_eq!(percent_decode("a%41"), "aA");
    }

    /// Companions are confined to the folder by real path: a symlinked folder or file that
    /// leads out is refused (naming paths, never content); a FIFO is refused without blocking.
    #[cfg(unix)]
    #[test]
    fn companions_stay_inside_the_folder_by_real_path() {
        let root = tempfile::tempdir().unwrap();
        let mesh_dir = root.path().join("mesh");
        let outside = root.path().join("outside");
        std::fs::create_dir_all(&mesh_dir).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::write(outside.join("x.mtl"), b"secret line\n").unwrap();
        std::fs::write(mesh_dir.join("ok.mtl"), b"newmtl a\n").unwrap();
        std::os::unix::fs::symlink(&outside, mesh_dir.join("linkdir")).unwrap();
        std::os::unix::fs::symlink(outside.join("x.mtl"), mesh_dir.join("b.mtl")).unwrap();
        let f = TrackedFolder::new(mesh_dir.clone(), 1 << 20);
        assert_eq!(f.read("ok.mtl").unwrap(), b"newmtl a\n");
        for rel in ["linkdir/x.mtl", "b.mtl"] {
            let e = f.read(rel).unwrap_err();
            assert!(e.contains("outside the mesh file's folder"), "{e}");
            assert!(!e.contains("secret"), "{e}");
        }
        // the file read is recorded by its real path; the refused ones too
        let read = f.into_read();
        assert_eq!(
            read[0],
            std::fs::canonicalize(mesh_dir.join("ok.mtl")).unwrap()
        );
        assert_eq!(read.len(), 3);
        // a FIFO inside the folder: refused, no hang
        let fifo = mesh_dir.join("p.mtl");
        if std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .is_ok_and(|s| s.success())
        {
            let e = Folder(mesh_dir.clone()).read("p.mtl").unwrap_err();
            assert!(e.contains("not a regular file"), "{e}");
        }
        // a size cap before reading
        std::fs::write(mesh_dir.join("big.bin"), vec![0u8; 100]).unwrap();
        let e = TrackedFolder::new(mesh_dir, 99)
            .read("big.bin")
            .unwrap_err();
        assert!(e.contains("more than the 99 bytes"), "{e}");
    }
}
