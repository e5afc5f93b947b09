//! File input and atomic file output.

use std::io::{self, Write};
use std::path::Path;

/// The largest input file [`read_file`] accepts: 2 GiB (the largest real level files are a few
/// tens of MB; the formats' own 32-bit sizes end at 4 GiB).
pub const MAX_INPUT_SIZE: u64 = 2 << 30;

/// Read a whole input file into memory: [`read_regular`] with the cap [`MAX_INPUT_SIZE`].
pub fn read_file(path: &Path) -> io::Result<Vec<u8>> {
    read_regular(path, MAX_INPUT_SIZE)
}

/// Read a whole regular file of at most `cap` bytes into memory.
///
/// Refuses, with [`io::ErrorKind::InvalidInput`] and before reading a byte, what is not a
/// regular file (a folder, `/dev/zero`, a FIFO, a socket: they could block or grow without
/// bound) and a file over `cap` bytes (the message names its size and the cap). Reads no more
/// than the size the file had when opened, plus one byte to notice growth. The buffer is
/// reserved fallibly: a failed allocation is an [`io::ErrorKind::OutOfMemory`] error, never an
/// abort.
pub fn read_regular(path: &Path, cap: u64) -> io::Result<Vec<u8>> {
    let f = RegularFile::open(path)?;
    f.check_cap(cap)?;
    f.read_all()
}

/// An open regular file, read by slices: for inputs of which only parts are used (a CVS
/// archive whose catalogue names the slices), so a large file is read only as far as it is
/// used.
///
/// Opening never blocks: the path is checked with `stat` before it is opened (a FIFO is
/// refused without being opened), and opened non-blocking on Unix, then checked again.
#[derive(Debug)]
pub struct RegularFile {
    file: std::fs::File,
    len: u64,
}

impl RegularFile {
    /// Open `path` (symlinks followed) if it is a regular file; anything else is refused with
    /// [`io::ErrorKind::InvalidInput`] ("is a folder, not a file" / "is not a regular file (a
    /// device, FIFO or socket)").
    pub fn open(path: &Path) -> io::Result<RegularFile> {
        // stat first: opening a FIFO for reading blocks until a writer comes.
        refuse_irregular(&std::fs::metadata(path)?)?;
        let mut options = std::fs::OpenOptions::new();
        options.read(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            // the path may have been swapped for a FIFO since the stat: never block on it
            options.custom_flags(libc::O_NONBLOCK);
        }
        let file = options.open(path)?;
        let meta = file.metadata()?;
        refuse_irregular(&meta)?;
        Ok(RegularFile {
            file,
            len: meta.len(),
        })
    }

    /// The file's size in bytes when it was opened.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether the file was empty when it was opened.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Refuse (with [`io::ErrorKind::InvalidInput`]) a file of more than `cap` bytes; the
    /// message names both numbers.
    pub fn check_cap(&self, cap: u64) -> io::Result<()> {
        if self.len > cap {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "is {} bytes, more than the {cap} bytes this input may have",
                    self.len
                ),
            ));
        }
        Ok(())
    }

    /// Read `len` bytes at `offset`. A slice that does not lie inside the file (as it was when
    /// opened) is refused with [`io::ErrorKind::UnexpectedEof`], naming the offsets, before
    /// anything is allocated; the buffer is reserved fallibly.
    pub fn read_slice(&mut self, offset: u64, len: u64) -> io::Result<Vec<u8>> {
        use std::io::{Read, Seek, SeekFrom};
        let end = offset.checked_add(len).filter(|&e| e <= self.len);
        if end.is_none() {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                format!(
                    "the {len} bytes at offset 0x{offset:08X} run past the end of the file ({} bytes)",
                    self.len
                ),
            ));
        }
        let mut bytes = reserve(len)?;
        self.file.seek(SeekFrom::Start(offset))?;
        (&mut self.file).take(len).read_to_end(&mut bytes)?;
        if (bytes.len() as u64) < len {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "the file shrank while it was being read",
            ));
        }
        Ok(bytes)
    }

    /// Fill `buf` with the bytes at `offset`: for a caller that reads parts of a file into a
    /// buffer of its own. A range that does not lie inside the file (as it was when opened)
    /// is refused with [`io::ErrorKind::UnexpectedEof`], naming the offsets, before reading;
    /// a file that shrank meanwhile is the same error.
    pub fn read_exact_at(&self, offset: u64, buf: &mut [u8]) -> io::Result<()> {
        let len = buf.len() as u64;
        if offset.checked_add(len).is_none_or(|e| e > self.len) {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                format!(
                    "the {len} bytes at offset 0x{offset:08X} run past the end of the file ({} bytes)",
                    self.len
                ),
            ));
        }
        #[cfg(unix)]
        {
            std::os::unix::fs::FileExt::read_exact_at(&self.file, buf, offset)
        }
        #[cfg(not(unix))]
        {
            use std::io::{Read, Seek, SeekFrom};
            let mut f = &self.file;
            f.seek(SeekFrom::Start(offset))?;
            f.read_exact(buf)
        }
    }

    /// Read the whole file (from its start), refusing growth while reading. A large file is
    /// read by two threads at once ([`RegularFile::read_in_pieces`]).
    pub fn read_all(mut self) -> io::Result<Vec<u8>> {
        use std::io::{Read, Seek, SeekFrom};
        #[cfg(unix)]
        if self.len >= TWO_THREADS_FROM {
            if let Some(bytes) = self.read_in_pieces()? {
                return Ok(bytes);
            }
        }
        let mut bytes = reserve(self.len)?;
        self.file.seek(SeekFrom::Start(0))?;
        (&mut self.file)
            .take(self.len.saturating_add(1))
            .read_to_end(&mut bytes)?;
        if bytes.len() as u64 > self.len {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "grew while it was being read",
            ));
        }
        Ok(bytes)
    }
}

/// A file at least this large is read by two threads at once: the kernel's copy and the page
/// faults of the new buffer take half the time on two cores.
#[cfg(unix)]
const TWO_THREADS_FROM: u64 = 8 << 20;

/// The pieces [`RegularFile::read_in_pieces`] reads one at a time: small enough that the two
/// threads end together although something else runs beside them (an X-Ray `level` is parsed
/// while its `level.geom` is read), large enough that their system calls do not count (22
/// for the 2,000-visual generated level's 21.8 MB `level.geom`).
#[cfg(unix)]
const PIECE: usize = 1 << 20;

/// The smallest allocation [`RegularFile::read_in_pieces`] probes for (see there).
#[cfg(unix)]
const PROBE: u64 = 64 << 20;

#[cfg(unix)]
impl RegularFile {
    /// The whole file read by two threads at once, with positioned reads into one zeroed
    /// buffer, each thread taking the next piece of [`PIECE`] bytes until none is left (so
    /// neither waits for the other when one is slowed: halves fixed in advance kept one
    /// thread reading alone for up to ~20 ms of the 2,000-visual level's 30 while the `level`
    /// was parsed beside them); `None` when the file did not read back at its opened size
    /// (it changed: the caller then reads it from the start as one stream, which gives the
    /// answer of a single read). Growth is refused as [`RegularFile::read_all`] refuses it.
    fn read_in_pieces(&self) -> io::Result<Option<Vec<u8>>> {
        use std::os::unix::fs::FileExt;
        let n = usize::try_from(self.len).map_err(|_| out_of_memory(self.len))?;
        // Fallible first (never an abort), then zeroed: a large zeroed buffer is fresh memory
        // from the system, so no page is touched before the reads fill it. The probe is at
        // least 64 MiB: glibc raises its mmap threshold to the size of a freed mapping up to
        // 32 MiB, which would keep later freed memory in the process (about 1 MB more peak
        // memory in an export). Where the probe fails, the single read reserves exactly.
        if reserve(self.len.max(PROBE)).is_err() {
            return Ok(None);
        }
        let mut bytes = vec![0u8; n];
        let pieces = std::sync::Mutex::new(bytes.chunks_mut(PIECE).enumerate());
        let file = &self.file;
        let read = || -> io::Result<()> {
            loop {
                // a thread that panicked holding the lock has nothing left to hand out
                let next = pieces.lock().ok().and_then(|mut p| p.next());
                let Some((k, piece)) = next else {
                    return Ok(());
                };
                file.read_exact_at(piece, (k * PIECE) as u64)?;
            }
        };
        let (ra, rb) = std::thread::scope(|s| {
            let second = s.spawn(read);
            let first = read();
            (first, second.join())
        });
        let rb = rb.unwrap_or_else(|_| Err(io::Error::other("the read thread failed")));
        match (ra, rb) {
            (Ok(()), Ok(())) => {}
            (Err(e), _) | (_, Err(e)) if e.kind() == io::ErrorKind::UnexpectedEof => {
                return Ok(None)
            }
            (Err(e), _) | (_, Err(e)) => return Err(e),
        }
        if self.file.read_at(&mut [0u8], self.len)? != 0 {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "grew while it was being read",
            ));
        }
        Ok(Some(bytes))
    }
}

/// An empty buffer with room for `len` bytes, reserved fallibly.
fn reserve(len: u64) -> io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    let n = usize::try_from(len).map_err(|_| out_of_memory(len))?;
    bytes.try_reserve_exact(n).map_err(|_| out_of_memory(len))?;
    Ok(bytes)
}

fn out_of_memory(len: u64) -> io::Error {
    io::Error::new(
        io::ErrorKind::OutOfMemory,
        format!("could not allocate {len} bytes to read it"),
    )
}

fn refuse_irregular(meta: &std::fs::Metadata) -> io::Result<()> {
    if meta.is_file() {
        return Ok(());
    }
    Err(io::Error::new(
        io::ErrorKind::InvalidInput,
        if meta.is_dir() {
            "is a folder, not a file"
        } else {
            "is not a regular file (a device, FIFO or socket)"
        },
    ))
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
    // A name a later run recognises: a killed process's temporary is removed by the next write.
    let tmp = crate::temp::file_in(&dir);
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

pub(crate) fn refuse_inputs(path: &Path, protect: &[&Path]) -> io::Result<()> {
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

/// Whether `a` and `b` are one file: the same real path (symlinks followed), or on Unix the
/// same (device, inode) pair, which also catches hard links and bind mounts.
pub fn same_file(a: &Path, b: &Path) -> bool {
    if let (Ok(x), Ok(y)) = (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        if x == y {
            return true;
        }
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if let (Ok(x), Ok(y)) = (std::fs::metadata(a), std::fs::metadata(b)) {
            return x.dev() == y.dev() && x.ino() == y.ino();
        }
    }
    false
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

    /// A hard link to an input has another real path but the same (device, inode): refused.
    #[cfg(unix)]
    #[test]
    fn a_hard_link_to_an_input_is_the_same_file() {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("in.bin");
        std::fs::write(&input, b"input").unwrap();
        let link = dir.path().join("link.bin");
        std::fs::hard_link(&input, &link).unwrap();
        assert!(same_file(&link, &input));
        let err = write_new(&link, b"out", &[&input], true).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidInput);
        assert_eq!(std::fs::read(&input).unwrap(), b"input");
        assert!(!same_file(&dir.path().join("other"), &input));
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

    /// A FIFO with no writer: opening it for reading would block forever; it is refused
    /// before it is opened (the test would hang otherwise).
    #[cfg(unix)]
    #[test]
    fn read_regular_refuses_a_fifo_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("pipe");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if !made.is_ok_and(|s| s.success()) {
            return; // no mkfifo on this system
        }
        let err = read_regular(&fifo, 1 << 20).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidInput);
        assert!(err.to_string().contains("FIFO"), "{err}");
        let err = RegularFile::open(&fifo).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidInput);
        // a symlink to the FIFO is followed and refused the same way
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&fifo, &link).unwrap();
        assert!(read_regular(&link, 1 << 20).is_err());
    }

    #[test]
    fn read_regular_caps_the_size_before_reading() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("big");
        // sparse: 3 GiB that take no disk space; refused from its size alone
        let file = std::fs::File::create(&f).unwrap();
        file.set_len(3 << 30).unwrap();
        drop(file);
        let err = read_regular(&f, 1 << 20).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidInput);
        assert_eq!(
            err.to_string(),
            "is 3221225472 bytes, more than the 1048576 bytes this input may have"
        );
        // read by slices, only as far as used
        let mut r = RegularFile::open(&f).unwrap();
        assert_eq!(r.len(), 3 << 30);
        assert_eq!(r.read_slice((3 << 30) - 4, 4).unwrap(), vec![0; 4]);
        let err = r.read_slice((3 << 30) - 4, 5).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::UnexpectedEof);
        assert!(err.to_string().contains("0xBFFFFFFC"), "{err}");
        assert!(r.read_slice(u64::MAX, 2).is_err());
    }

    /// A large file is read by two threads in pieces: the same bytes as the file (a length
    /// that is no whole number of pieces, so the last one is short); grown after opening it is
    /// refused, shrunk it reads as one stream would (the shorter file).
    #[cfg(unix)]
    #[test]
    fn a_large_file_reads_in_pieces_as_one_stream() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("big");
        let len = TWO_THREADS_FROM as usize + 12_345;
        assert!(len % PIECE != 0);
        let bytes: Vec<u8> = (0..len).map(|i| (i * 31 + i / 4099) as u8).collect();
        std::fs::write(&f, &bytes).unwrap();
        assert!(read_regular(&f, u64::MAX).unwrap() == bytes);
        // grown after it was opened
        let opened = RegularFile::open(&f).unwrap();
        let mut w = std::fs::OpenOptions::new().append(true).open(&f).unwrap();
        w.write_all(b"more").unwrap();
        let err = opened.read_all().unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidInput);
        assert_eq!(err.to_string(), "grew while it was being read");
        // shrunk after it was opened: what is left, as a single read gives it
        std::fs::write(&f, &bytes).unwrap();
        let opened = RegularFile::open(&f).unwrap();
        std::fs::OpenOptions::new()
            .write(true)
            .open(&f)
            .unwrap()
            .set_len(len as u64 - 100)
            .unwrap();
        assert!(opened.read_all().unwrap() == bytes[..len - 100]);
    }
}
