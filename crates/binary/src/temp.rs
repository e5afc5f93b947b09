//! Temporary files and folders beside an output, under names a later run recognises.
//!
//! Every temporary of levelgeom is named `.levelgeom-PID-N.HOST.tmp`: the process id that made
//! it, a counter, and the host it ran on. A process killed while writing (`SIGKILL`,
//! `SIGXFSZ` past a file size limit) leaves its temporary behind; the next write into the same
//! folder removes every temporary of this host whose process is gone ([`sweep`]). A temporary
//! of another host (a shared network folder) or of a live process is never touched, nor is any
//! name of another pattern.
//!
//! Whether a process is gone is asked of Linux's `/proc/PID` (the entry exists exactly while
//! the process does, zombies included; `proc(5)`); where there is no `/proc`, nothing is
//! removed.

use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

const PREFIX: &str = ".levelgeom-";
const SUFFIX: &str = ".tmp";

/// This host's name, as it goes into a temporary name: letters, digits, `-` and `.` kept,
/// anything else `_`, at most 64 characters; `unknown-host` when it cannot be read.
fn host() -> &'static str {
    static HOST: OnceLock<String> = OnceLock::new();
    HOST.get_or_init(|| {
        let raw = std::fs::read_to_string("/proc/sys/kernel/hostname")
            .or_else(|_| std::fs::read_to_string("/etc/hostname"))
            .unwrap_or_default();
        let name: String = raw
            .trim()
            .chars()
            .take(64)
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '-' || c == '.' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        if name.is_empty() {
            "unknown-host".into()
        } else {
            name
        }
    })
}

/// The name of temporary number `n` of this process.
fn name(n: u64) -> String {
    format!("{PREFIX}{}-{n}.{}{SUFFIX}", std::process::id(), host())
}

/// The process id and host of a temporary's name, when it is one of ours.
fn parse(name: &str) -> Option<(u32, &str)> {
    let rest = name.strip_prefix(PREFIX)?.strip_suffix(SUFFIX)?;
    let (pid, rest) = rest.split_once('-')?;
    let (n, host) = rest.split_once('.')?;
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if !digits(pid) || !digits(n) || host.is_empty() {
        return None;
    }
    Some((pid.parse().ok()?, host))
}

/// Whether process `pid` is known to be gone (`false` when it cannot be told).
fn process_gone(pid: u32) -> bool {
    let proc = Path::new("/proc");
    // /proc/self exists wherever /proc is mounted: without it nothing can be told
    proc.join("self").exists() && !proc.join(pid.to_string()).exists()
}

/// Remove the temporaries in `dir` left by processes of this host that are gone (see the
/// module docs). Returns how many were removed; errors (an unreadable folder, a temporary
/// removed meanwhile by another run) are ignored: sweeping is a courtesy, never a failure.
pub fn sweep(dir: &Path) -> usize {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    let mut removed = 0;
    for entry in entries.flatten() {
        let file_name = entry.file_name();
        let Some((pid, h)) = file_name.to_str().and_then(parse) else {
            continue;
        };
        if h != host() || pid == std::process::id() || !process_gone(pid) {
            continue;
        }
        let path = entry.path();
        let gone = match std::fs::symlink_metadata(&path) {
            Ok(m) if m.is_dir() => std::fs::remove_dir_all(&path),
            Ok(_) => std::fs::remove_file(&path),
            Err(e) => Err(e),
        };
        removed += usize::from(gone.is_ok());
    }
    removed
}

/// The counter keeping the temporaries of one process (and its threads) apart.
static NEXT: AtomicU64 = AtomicU64::new(0);

/// [`sweep`] `dir` unless this process already did (a batch writes many files into one
/// folder: it is read once).
fn sweep_once(dir: &Path) {
    static SWEPT: std::sync::Mutex<Vec<PathBuf>> = std::sync::Mutex::new(Vec::new());
    let key = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
    {
        let mut swept = SWEPT
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if swept.contains(&key) {
            return;
        }
        swept.push(key);
    }
    sweep(dir);
}

/// A fresh temporary file path in `dir` (not created), after sweeping `dir` (once per
/// process).
pub fn file_in(dir: &Path) -> PathBuf {
    sweep_once(dir);
    dir.join(name(NEXT.fetch_add(1, Ordering::Relaxed)))
}

/// Create a fresh temporary folder in `parent` (after sweeping it, once per process) and
/// return its path.
///
/// # Errors
/// The folder cannot be created (1000 names taken: [`io::ErrorKind::AlreadyExists`]).
pub fn create_dir_in(parent: &Path) -> io::Result<PathBuf> {
    sweep_once(parent);
    for _ in 0..1000 {
        let p = parent.join(name(NEXT.fetch_add(1, Ordering::Relaxed)));
        match std::fs::create_dir(&p) {
            Ok(()) => return Ok(p),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
    Err(io::Error::new(
        io::ErrorKind::AlreadyExists,
        "no free temporary folder name",
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_parse_back_and_others_are_not_ours() {
        let n = name(7);
        assert_eq!(parse(&n), Some((std::process::id(), host())));
        assert_eq!(
            parse(".levelgeom-12-3.box.example.org.tmp"),
            Some((12, "box.example.org"))
        );
        // the old host-less names, the manifests, anything else: not ours
        assert_eq!(parse(".levelgeom-12-3.tmp"), None);
        assert_eq!(parse(".levelgeom-export.json"), None);
        assert_eq!(parse(".levelgeom-x-3.h.tmp"), None);
        assert_eq!(parse("levelgeom-12-3.h.tmp"), None);
    }

    /// A child process that has exited (and been waited for): its PID is gone.
    fn dead_pid() -> u32 {
        let mut c = std::process::Command::new("true").spawn().unwrap();
        let pid = c.id();
        c.wait().unwrap();
        pid
    }

    #[test]
    fn sweep_removes_only_this_hosts_temporaries_of_dead_processes() {
        if !Path::new("/proc/self").exists() {
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let dead = dead_pid();
        let h = host();
        std::fs::write(d.join(format!(".levelgeom-{dead}-0.{h}.tmp")), b"half").unwrap();
        std::fs::create_dir(d.join(format!(".levelgeom-{dead}-1.{h}.tmp"))).unwrap();
        std::fs::write(d.join(format!(".levelgeom-{dead}-1.{h}.tmp/x.png")), b"x").unwrap();
        // kept: another host's, a live process's (ours, and PID 1), other names
        let keep = [
            format!(".levelgeom-{dead}-2.other-host.tmp"),
            format!(".levelgeom-{}-3.{h}.tmp", std::process::id()),
            format!(".levelgeom-1-4.{h}.tmp"),
            format!(".levelgeom-{dead}-5.tmp"),
            "level.wad".to_string(),
        ];
        for k in &keep {
            std::fs::write(d.join(k), b"keep").unwrap();
        }
        assert_eq!(sweep(d), 2);
        let mut left: Vec<String> = std::fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        left.sort();
        let mut want = keep.to_vec();
        want.sort();
        assert_eq!(left, want);
    }
}
