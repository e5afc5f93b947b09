//! What the whole-process benches (`process`, `peer`) share: running a child process timed
//! from spawn to exit with its CPU time and peak memory (`wait4`), and writing the generated
//! X-Ray level they measure.

use std::fs;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// What `wait4` reports of one child run.
#[derive(Clone, Copy, Debug, Default)]
pub struct Usage {
    /// From spawn to exit.
    pub wall: Duration,
    /// User + system time.
    pub cpu: Duration,
    /// Peak resident memory, bytes (`ru_maxrss`).
    pub max_rss: u64,
}

fn tv(t: libc::timeval) -> Duration {
    Duration::from_secs(t.tv_sec as u64) + Duration::from_micros(t.tv_usec as u64)
}

/// Run `cmd` with its stdout and stderr in `LOG.stdout` / `LOG.stderr`, and return its wall
/// time, CPU time and peak RSS. Panics, with the child's stderr, when it does not exit with 0.
pub fn run(cmd: &mut Command, log: &Path) -> Usage {
    let out = fs::File::create(log.with_extension("stdout")).expect("log file");
    let err = fs::File::create(log.with_extension("stderr")).expect("log file");
    let start = Instant::now();
    let child = cmd
        .stdin(Stdio::null())
        .stdout(out)
        .stderr(err)
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {cmd:?}: {e}"));
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    // SAFETY: a zeroed rusage is a valid value of a plain C struct; wait4 writes into the two
    // pointers, which outlive the call. The child is reaped here (std's handle is not waited).
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    let r = unsafe { libc::wait4(pid, &mut status, 0, &mut ru) };
    let wall = start.elapsed();
    drop(child);
    assert_eq!(r, pid, "wait4 failed");
    let ok = libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0;
    if !ok {
        let e = fs::read_to_string(log.with_extension("stderr")).unwrap_or_default();
        let o = fs::read_to_string(log.with_extension("stdout")).unwrap_or_default();
        let tail = |s: &str| s.lines().rev().take(20).collect::<Vec<_>>().join("\n");
        panic!(
            "{cmd:?} failed (status {status}):\n{}\n{}",
            tail(&o),
            tail(&e)
        );
    }
    Usage {
        wall,
        cpu: tv(ru.ru_utime) + tv(ru.ru_stime),
        // Linux reports ru_maxrss in kilobytes
        max_rss: ru.ru_maxrss as u64 * 1024,
    }
}

/// Write `level` and `level.geom` of [`levelgeom_xray::bench_level::large`]`(visuals)` into
/// `dir` and print its size. Run it in a child process (the benches' `--generate-xray` mode):
/// Linux carries a parent's peak RSS over into its children at `exec`.
pub fn write_xray_level(dir: &Path, visuals: usize) {
    let l = levelgeom_xray::bench_level::large(visuals).expect("generates");
    fs::write(dir.join("level"), &l.level).expect("writes level");
    fs::write(dir.join("level.geom"), &l.geom).expect("writes level.geom");
    println!(
        "xray-{visuals}: {} vertices, {} triangles, level {:.1} MB, level.geom {:.1} MB",
        l.vertices,
        l.triangles,
        l.level.len() as f64 / 1e6,
        l.geom.len() as f64 / 1e6
    );
}
