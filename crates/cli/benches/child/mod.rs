//! What the whole-process benches (`process`, `peer`) share: their settings (arguments and
//! environment), running a child process timed from spawn to exit with its CPU time and peak
//! memory (`wait4`), generating their inputs in a child, writing the generated X-Ray level
//! they measure, and the medians of the runs.

use std::ffi::OsString;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// True when the bench was only asked to list itself (`cargo test --benches` and
/// `cargo bench -- --list` pass `--list`): nothing is run.
pub fn listing(args: &[String]) -> bool {
    args.iter().any(|a| a == "--list")
}

/// What a bench run was asked for, from its arguments (after `--`) and the environment.
pub struct Settings {
    /// `--json`: one JSON document instead of the table.
    pub json: bool,
    /// The words not starting with `-`: the cases (levels) whose name holds one of them.
    pub filter: Vec<String>,
    /// `LEVELGEOM_BENCH_RUNS` (at least 1).
    pub runs: usize,
    /// `LEVELGEOM_BIN`, else the levelgeom binary cargo built.
    pub bin: PathBuf,
    /// An empty folder `levelgeom-BENCH-bench-PID` for inputs and outputs, under
    /// `LEVELGEOM_BENCH_DIR` (default the temporary folder).
    pub tmp: PathBuf,
}

impl Settings {
    /// The settings of bench `bench` (`default_runs` without `LEVELGEOM_BENCH_RUNS`), its
    /// folder created empty.
    pub fn new(args: &[String], bench: &str, default_runs: usize) -> Settings {
        let runs = std::env::var("LEVELGEOM_BENCH_RUNS")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(default_runs)
            .max(1);
        let bin = std::env::var_os("LEVELGEOM_BIN")
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_levelgeom")));
        let base = std::env::var_os("LEVELGEOM_BENCH_DIR")
            .map(PathBuf::from)
            .unwrap_or_else(std::env::temp_dir);
        let tmp = base.join(format!("levelgeom-{bench}-bench-{}", std::process::id()));
        let _ = fs::remove_dir_all(&tmp);
        fs::create_dir_all(&tmp).expect("temp folder");
        Settings {
            json: args.iter().any(|a| a == "--json"),
            filter: args
                .iter()
                .filter(|a| !a.starts_with('-'))
                .cloned()
                .collect(),
            runs,
            bin,
            tmp,
        }
    }

    /// True when case `name` is asked for (no filter: every case).
    pub fn wants(&self, name: &str) -> bool {
        self.filter.is_empty() || self.filter.iter().any(|f| name.contains(f.as_str()))
    }
}

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

/// Run this bench's own binary with `args` (one of its `--generate-…` modes) in a child
/// process and pass on what it printed: on Linux a child's peak RSS starts from its parent's
/// (carried over at `exec`), so the bench process stays small if the inputs are made outside it.
pub fn generate(args: &[OsString], tmp: &Path) {
    let me = std::env::current_exe().expect("own path");
    let log = tmp.join("generate");
    run(Command::new(&me).args(args), &log);
    eprint!(
        "{}",
        fs::read_to_string(log.with_extension("stdout")).unwrap_or_default()
    );
}

/// The sizes of `files` together, bytes (a missing file counts 0).
pub fn bytes_of<P: AsRef<Path>>(files: &[P]) -> u64 {
    files
        .iter()
        .map(|p| fs::metadata(p).map_or(0, |m| m.len()))
        .sum()
}

/// The median of `v` (0 for none).
pub fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    match n {
        0 => 0.0,
        _ if n % 2 == 1 => v[n / 2],
        _ => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
}

/// `d` in milliseconds.
pub fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}
