//! Whole game installs: find every level under folders ([`find_levels`]), verify each one
//! ([`verify_one`], [`verify_batch`]) and export many at once ([`export_batch`]), in parallel
//! with one level in memory per job ([`Run`]).
//!
//! # Discovery
//! Levels are found by their content, never by their names:
//! - a file whose first bytes are a WAD's (a chunk tag of capital letters at offset 4) is an
//!   Argonaut level WAD, whatever it is called;
//! - a file whose content is an X-Ray `level` (header chunk first, visuals or shaders) is an
//!   X-Ray level, and so is a folder holding a `level` and a `level.geom` (even when `level` is
//!   damaged: verifying it then says where). The level's files are `level`, `level.geom`,
//!   `level.geomx`, `level.cform`, `level.hom`, `level.som`, `level.ai` and `level.details`, each when present (paired up by name, as `open` does);
//! - every other file is ignored silently, unless it is named like a level file (`*.wad`,
//!   `level*`, any case) or was given by name: then it is listed as skipped, with the reason.
//!
//! Folders are walked in sorted name order; symbolic links are followed, but a folder (or
//! file) reached a second time — a link cycle, or two links to one place — is not visited
//! again, so the walk always ends. The result is sorted by path.
//!
//! # Running
//! [`Run`] gives the number of jobs (rayon threads; 0 = every core), a stop flag (set it, from a
//! Ctrl-C handler for example, and no new level starts; the running ones finish) and a progress
//! callback. Each job opens, processes and drops one level at a time, so at most `jobs` levels
//! are in memory. Results come back in the order of the input (sorted paths), whatever order
//! the jobs finished in, and the files written are the same as one by one.

use levelgeom_export::folder::is_plain_name;
use std::collections::HashSet;
use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;

use serde::Serialize;

use crate::error::{Error, Result};
use crate::options::ExportOptions;
use crate::{first_difference, open, open_bytes};

/// What [`find_levels`] found at one path.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum What {
    /// An Argonaut level WAD.
    Wad,
    /// An X-Ray level: its files (`level` first, then `level.geom`, `level.geomx`,
    /// `level.cform`, `level.hom`, `level.som`, `level.ai`, `level.details` as present).
    Xray {
        /// The level's files.
        files: Vec<PathBuf>,
    },
    /// Not a level (or not one that is read): why.
    Skipped {
        /// The reason, for the user.
        reason: String,
    },
}

/// One entry of [`find_levels`]: a level, or a file that was skipped.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Found {
    /// The WAD file; the X-Ray level folder (or its level file when that is not called
    /// `level`); the skipped file.
    pub path: PathBuf,
    /// The path given to [`find_levels`] this was found under.
    pub root: PathBuf,
    /// Bytes of the level's files together (0 for skipped entries).
    pub bytes: u64,
    /// What it is.
    #[serde(flatten)]
    pub what: What,
}

impl Found {
    /// True for a level (not a skipped entry).
    pub fn is_level(&self) -> bool {
        !matches!(self.what, What::Skipped { .. })
    }

    /// The format name a report uses (`argonaut-wad`, `xray-level`; `None` when skipped).
    pub fn format(&self) -> Option<&'static str> {
        match self.what {
            What::Wad => Some(crate::Format::Wad.name()),
            What::Xray { .. } => Some(crate::Format::XrayLevel.name()),
            What::Skipped { .. } => None,
        }
    }

    /// The level's own name: a WAD's file stem, an X-Ray level's folder name.
    pub fn name(&self) -> String {
        let p = match self.what {
            What::Xray { .. } if self.path.is_file() => self.path.parent().unwrap_or(&self.path),
            _ => &self.path,
        };
        let n = match self.what {
            What::Wad => p.file_stem(),
            _ => p.file_name(),
        };
        n.map_or_else(|| "level".into(), |n| n.to_string_lossy().into_owned())
    }

    /// The path below its root (the root's own name when the root is the level), without a
    /// WAD's extension: what a clashing name is replaced by (`/` → `_`).
    pub fn relative_name(&self) -> String {
        let rel = self.path.strip_prefix(&self.root).unwrap_or(&self.path);
        let rel = if rel.as_os_str().is_empty() {
            PathBuf::from(self.root.file_name().unwrap_or(self.root.as_os_str()))
        } else {
            rel.to_path_buf()
        };
        let rel = match self.what {
            What::Wad => rel.with_extension(""),
            _ => rel,
        };
        let parts: Vec<String> = rel
            .components()
            .filter_map(|c| match c {
                std::path::Component::Normal(s) => Some(s.to_string_lossy().into_owned()),
                _ => None,
            })
            .collect();
        if parts.is_empty() {
            self.name()
        } else {
            parts.join("_")
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Discovery

/// The files of an X-Ray level besides `level`, in the order they are listed and verified.
const XRAY_COMPANIONS: [&str; 7] = [
    "level.geom",
    "level.geomx",
    "level.cform",
    "level.hom",
    "level.som",
    "level.ai",
    "level.details",
];

/// Find every level under `paths` (files or folders), with the skipped files and why; sorted by
/// path, each level once. See the module docs for the rules.
pub fn find_levels(paths: &[PathBuf]) -> Vec<Found> {
    let mut w = Walker::default();
    for root in paths {
        match fs::metadata(root) {
            Err(e) => w.skip(root, root, format!("cannot read: {e}")),
            Ok(m) if m.is_dir() => w.dir(root, root),
            Ok(_) => w.file(root, root, true),
        }
    }
    let mut out = w.out;
    out.sort_by(|a, b| a.path.cmp(&b.path));
    out.dedup_by(|a, b| a.path == b.path);
    out
}

#[derive(Default)]
struct Walker {
    /// Canonical paths of folders walked and files taken (as levels or their parts).
    seen: HashSet<PathBuf>,
    out: Vec<Found>,
}

fn canonical(p: &Path) -> PathBuf {
    fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf())
}

fn named_like_a_level(p: &Path) -> bool {
    let name = p
        .file_name()
        .map(|n| n.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    name.starts_with("level") || name.ends_with(".wad")
}

fn file_size(p: &Path) -> u64 {
    fs::metadata(p).map_or(0, |m| m.len())
}

/// The first `n` bytes of a file (fewer when it is shorter).
fn head(p: &Path, n: usize) -> std::io::Result<Vec<u8>> {
    let mut buf = Vec::with_capacity(n);
    fs::File::open(p)?.take(n as u64).read_to_end(&mut buf)?;
    Ok(buf)
}

impl Walker {
    fn skip(&mut self, root: &Path, path: &Path, reason: String) {
        self.out.push(Found {
            path: path.to_path_buf(),
            root: root.to_path_buf(),
            bytes: 0,
            what: What::Skipped { reason },
        });
    }

    fn dir(&mut self, root: &Path, dir: &Path) {
        if !self.seen.insert(canonical(dir)) {
            return;
        }
        let entries = match fs::read_dir(dir) {
            Ok(e) => e,
            Err(e) => return self.skip(root, dir, format!("cannot read the folder: {e}")),
        };
        let mut entries: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
        entries.sort();
        let level = dir.join("level");
        if level.is_file() && dir.join("level.geom").is_file() {
            self.xray(root, &level);
        }
        let mut dirs = Vec::new();
        for p in entries {
            match fs::metadata(&p) {
                Ok(m) if m.is_dir() => dirs.push(p),
                Ok(m) if m.is_file() => self.file(root, &p, false),
                Ok(_) => {}
                Err(e) => {
                    // a dangling link, say
                    if named_like_a_level(&p) {
                        self.skip(root, &p, format!("cannot read: {e}"));
                    }
                }
            }
        }
        for d in dirs {
            self.dir(root, &d);
        }
    }

    /// Look at one file; `given` when it was named on the command line.
    fn file(&mut self, root: &Path, p: &Path, given: bool) {
        if self.seen.contains(&canonical(p)) {
            return;
        }
        let report = given || named_like_a_level(p);
        let bytes = match head(p, 12) {
            Ok(b) => b,
            Err(e) => {
                if report {
                    self.skip(root, p, format!("cannot read: {e}"));
                }
                return;
            }
        };
        if levelgeom_wad::sniff(&bytes) {
            self.seen.insert(canonical(p));
            self.out.push(Found {
                path: p.to_path_buf(),
                root: root.to_path_buf(),
                bytes: file_size(p),
                what: What::Wad,
            });
            return;
        }
        // an X-Ray chunk file starting with its header chunk 1: 4 bytes (XRLC 11–14) or 128
        // (XRLC 4–10, with the level's name)
        if levelgeom_xray::level::starts_with_header(&bytes) {
            // only these are read whole: what kind of X-Ray file it is needs its chunk list
            let kind = levelgeom_binary::read_file(p)
                .ok()
                .and_then(|all| levelgeom_xray::kind(&all));
            let reason = match kind {
                Some(levelgeom_xray::Kind::Level) => return self.xray(root, p),
                Some(levelgeom_xray::Kind::Geom) if given && sibling_level(p).is_some() => {
                    // `verify micro/level.geom`: the level it belongs to is right there
                    if let Some(level) = sibling_level(p) {
                        self.xray(root, &level);
                    }
                    return;
                }
                Some(levelgeom_xray::Kind::Geom) => {
                    "an X-Ray level.geom without the X-Ray `level` file beside it (the \
                     visuals and shaders are there); give the folder holding both"
                }
                _ => "an X-Ray chunk file that is not a level (no visuals or shaders chunk)",
            };
            if report {
                self.skip(root, p, reason.into());
            }
            return;
        }
        if report {
            let first = crate::first_bytes(&bytes);
            let reason = if p.extension().is_some_and(|e| e.eq_ignore_ascii_case("wad")) {
                format!(
                    "not a level WAD: no chunk tag of capital letters at offset 4 (first bytes \
                     {first})"
                )
            } else {
                format!("not a level file levelgeom reads (first bytes {first})")
            };
            self.skip(root, p, reason);
        }
    }

    /// An X-Ray level whose `level` file is `level`: it and its companions beside it.
    fn xray(&mut self, root: &Path, level: &Path) {
        if !self.seen.insert(canonical(level)) {
            return;
        }
        let dir = match level.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let mut files = vec![level.to_path_buf()];
        for name in XRAY_COMPANIONS {
            let c = dir.join(name);
            if c.is_file() {
                self.seen.insert(canonical(&c));
                files.push(c);
            }
        }
        let path = if level.file_name().is_some_and(|n| n == "level") {
            if level.parent().is_some_and(|d| d.as_os_str().is_empty()) {
                PathBuf::from(".")
            } else {
                dir
            }
        } else {
            level.to_path_buf()
        };
        self.out.push(Found {
            path,
            root: root.to_path_buf(),
            bytes: files.iter().map(|f| file_size(f)).sum(),
            what: What::Xray { files },
        });
    }
}

/// The X-Ray `level` file beside a `level.geom`, when there is one that reads as a level.
fn sibling_level(geom: &Path) -> Option<PathBuf> {
    let dir = match geom.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let level = dir.join("level");
    let bytes = levelgeom_binary::read_file(&level).ok()?;
    (levelgeom_xray::kind(&bytes) == Some(levelgeom_xray::Kind::Level)).then_some(level)
}

// ---------------------------------------------------------------------------------------------
// Running levels in parallel

/// How a batch runs: jobs, a stop flag, progress.
#[derive(Clone, Copy, Default)]
pub struct Run<'a> {
    /// Levels processed at once (rayon threads); 0 = one per core.
    pub jobs: usize,
    /// When set (e.g. by a Ctrl-C handler), no new level starts; the running ones finish.
    pub stop: Option<&'a AtomicBool>,
    /// Called from the job's thread each time a level is done.
    pub progress: Option<&'a (dyn Fn(&Progress<'_>) + Sync)>,
}

impl std::fmt::Debug for Run<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Run")
            .field("jobs", &self.jobs)
            .field("stop", &self.stop)
            .field("progress", &self.progress.is_some())
            .finish()
    }
}

/// What the progress callback of [`Run`] is told when a level is done.
#[derive(Clone, Copy, Debug)]
pub struct Progress<'a> {
    /// Levels done so far (this one included).
    pub done: usize,
    /// Levels to do.
    pub total: usize,
    /// Bytes of the levels done so far.
    pub bytes_done: u64,
    /// Bytes of all the levels.
    pub bytes_total: u64,
    /// The level just done.
    pub path: &'a Path,
    /// Whether it passed (verify) or was written (export).
    pub ok: bool,
}

impl Run<'_> {
    /// The number of jobs to run: [`Run::jobs`], or the machine's cores for 0.
    pub fn job_count(&self) -> usize {
        if self.jobs > 0 {
            self.jobs
        } else {
            std::thread::available_parallelism().map_or(1, usize::from)
        }
    }

    fn stopped(&self) -> bool {
        self.stop.is_some_and(|s| s.load(Ordering::SeqCst))
    }

    /// Run `f` over `levels` on [`Self::job_count`] threads, one level per job at a time; the
    /// results in input order, `None` for levels not started because of the stop flag.
    fn map<T: Send>(
        &self,
        levels: &[&Found],
        f: impl Fn(usize, &Found) -> (T, bool) + Sync,
    ) -> Vec<Option<T>> {
        let total = levels.len();
        let bytes_total: u64 = levels.iter().map(|l| l.bytes).sum();
        let next = AtomicUsize::new(0);
        let done = AtomicUsize::new(0);
        let bytes_done = AtomicU64::new(0);
        let results: Mutex<Vec<Option<T>>> = Mutex::new((0..total).map(|_| None).collect());
        let jobs = self.job_count().min(total.max(1));
        let worker = || loop {
            if self.stopped() {
                break;
            }
            let i = next.fetch_add(1, Ordering::SeqCst);
            let Some(level) = levels.get(i) else { break };
            let (r, ok) = f(i, level);
            let d = done.fetch_add(1, Ordering::SeqCst) + 1;
            let b = bytes_done.fetch_add(level.bytes, Ordering::SeqCst) + level.bytes;
            if let Ok(mut v) = results.lock() {
                v[i] = Some(r);
            }
            if let Some(p) = self.progress {
                p(&Progress {
                    done: d,
                    total,
                    bytes_done: b,
                    bytes_total,
                    path: &level.path,
                    ok,
                });
            }
        };
        // One long-lived task per thread, each taking the next level when it is free: no more
        // than `jobs` levels are open at once, even when a level's own work (rendering a
        // preview) runs parallel loops on the same pool.
        match rayon::ThreadPoolBuilder::new().num_threads(jobs).build() {
            Ok(pool) => pool.scope(|s| {
                for _ in 0..jobs {
                    s.spawn(|_| worker());
                }
            }),
            Err(_) => worker(),
        }
        results
            .into_inner()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// Run `f`, turning a panic into an error message (one broken level never stops the others).
fn guarded<T>(f: impl FnOnce() -> T) -> std::result::Result<T, String> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).map_err(|p| {
        let msg = p
            .downcast_ref::<&str>()
            .map(|s| (*s).to_string())
            .or_else(|| p.downcast_ref::<String>().cloned())
            .unwrap_or_default();
        format!("internal error (a bug, please report it): {msg}")
    })
}

// ---------------------------------------------------------------------------------------------
// Verify

/// The round trip of one file of a level.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FileResult {
    /// The file.
    pub path: PathBuf,
    /// Its size.
    pub bytes: u64,
    /// `ok` or `differs at 0x… in CHUNK`; `None` when it could not be read.
    pub round_trip: Option<String>,
    /// Why it could not be read or written back.
    pub error: Option<String>,
}

/// What [`verify_one`] found for one level.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct VerifyResult {
    /// The level (as [`Found::path`]).
    pub path: PathBuf,
    /// `argonaut-wad` or `xray-level`.
    pub format: &'static str,
    /// Bytes of its files.
    pub bytes: u64,
    /// `ok`, or the first difference (`differs at 0x… in CHUNK`, with the file for an X-Ray
    /// level's other files); `None` when the level could not be read.
    pub round_trip: Option<String>,
    /// How many problems `check` found.
    pub problems: usize,
    /// The problems, one line each.
    pub problem_list: Vec<String>,
    /// What `check` looked at (`with …/level.geom`).
    pub notes: Vec<String>,
    /// How many warnings reading gave.
    pub warnings: usize,
    /// Every file of the level with its own round trip.
    pub files: Vec<FileResult>,
    /// The first error (a file that cannot be read or written back).
    pub error: Option<String>,
    /// Passed: it reads, rebuilds byte for byte (and with `strict`, `check` found nothing).
    pub passed: bool,
    /// Why it failed (the first reason).
    pub reason: Option<String>,
    /// Its main file could be read (the level opened).
    #[serde(skip)]
    pub opened: bool,
}

fn difference(level: &crate::LevelFile, rebuilt: &[u8]) -> String {
    match first_difference(level.bytes(), rebuilt) {
        None => "ok".into(),
        Some(at) => format!(
            "differs at 0x{at:08X}{}",
            level
                .locate(at)
                .map(|p| format!(" in {p}"))
                .unwrap_or_default()
        ),
    }
}

/// Verify one level: read every file of it into the typed model, write it back and compare
/// byte for byte (X-Ray: `level`, `level.geom`, `level.geomx`, `level.cform`, `level.hom`, `level.som`, `level.ai`, `level.details`, compressed chunks
/// included), and run `check`. It fails when it cannot be read or a round trip differs, and
/// with `strict` also when `check` finds problems. A skipped entry gives a failed result.
pub fn verify_one(found: &Found, strict: bool) -> VerifyResult {
    let mut r = VerifyResult {
        path: found.path.clone(),
        format: found.format().unwrap_or("none"),
        bytes: found.bytes,
        round_trip: None,
        problems: 0,
        problem_list: Vec::new(),
        notes: Vec::new(),
        warnings: 0,
        files: Vec::new(),
        error: None,
        passed: false,
        reason: None,
        opened: false,
    };
    if let Err(e) = guarded(|| verify_into(found, &mut r)) {
        r.error.get_or_insert(e);
    }
    r.reason = if let Some(e) = &r.error {
        Some(e.clone())
    } else if let Some(d) = r.round_trip.as_ref().filter(|d| *d != "ok") {
        Some(format!("round trip {d}"))
    } else if strict && r.problems > 0 {
        Some(format!(
            "check found {} problem(s) (--strict), the first: {}",
            r.problems,
            r.problem_list.first().map_or("", String::as_str)
        ))
    } else {
        None
    };
    r.passed = r.reason.is_none();
    r
}

fn verify_into(found: &Found, r: &mut VerifyResult) {
    let companions: Vec<PathBuf> = match &found.what {
        What::Skipped { reason } => {
            r.error = Some(format!("skipped: {reason}"));
            return;
        }
        What::Wad => Vec::new(),
        What::Xray { files } => files.iter().skip(1).cloned().collect(),
    };
    let main_file = match &found.what {
        What::Xray { files } => files.first().cloned().unwrap_or_else(|| found.path.clone()),
        _ => found.path.clone(),
    };
    let level = match open(&found.path) {
        Ok(l) => l,
        Err(e) => {
            r.files.push(FileResult {
                path: main_file,
                bytes: file_size(&found.path),
                round_trip: None,
                error: Some(e.to_string()),
            });
            r.error = Some(e.to_string());
            return;
        }
    };
    r.opened = true;
    r.warnings += level.warnings().len();
    let (rt, err) = match level.rebuild() {
        Ok(b) => (Some(difference(&level, &b)), None),
        Err(e) => (None, Some(e.to_string())),
    };
    r.files.push(FileResult {
        path: level.path().to_path_buf(),
        bytes: level.bytes().len() as u64,
        round_trip: rt,
        error: err,
    });
    let check = level.check();
    r.notes = check.notes;
    r.problem_list = check.problems.iter().map(ToString::to_string).collect();
    let geom_checked: Vec<PathBuf> = level.companions();
    drop(level);
    for c in companions {
        let name = c
            .file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
        let opened = levelgeom_binary::read_file(&c)
            .map_err(|source| Error::Input {
                path: c.clone(),
                source,
            })
            .and_then(|bytes| open_bytes(c.clone(), bytes));
        let mut f = FileResult {
            path: c.clone(),
            bytes: file_size(&c),
            round_trip: None,
            error: None,
        };
        match opened {
            Ok(l) => {
                r.warnings += l.warnings().len();
                match l.rebuild() {
                    Ok(b) => {
                        let d = difference(&l, &b);
                        f.round_trip = Some(if d == "ok" {
                            d
                        } else {
                            format!("{d} ({name})")
                        });
                    }
                    Err(e) => f.error = Some(e.to_string()),
                }
                // `level.geom` is checked with the level already (against its ranges), and so
                // are `level.hom`, `level.som`, `level.ai` and `level.details`
                let covered = matches!(
                    name.as_str(),
                    "level.geom" | "level.hom" | "level.som" | "level.ai" | "level.details"
                ) && geom_checked.iter().any(|g| g.ends_with(&name));
                if !covered {
                    r.problem_list
                        .extend(l.check().problems.iter().map(|p| format!("{name}: {p}")));
                }
            }
            Err(e) => f.error = Some(e.to_string()),
        }
        r.files.push(f);
    }
    r.problems = r.problem_list.len();
    r.error = r.files.iter().find_map(|f| f.error.clone());
    r.round_trip = if r.files.iter().any(|f| f.round_trip.is_none()) {
        r.files
            .iter()
            .find_map(|f| f.round_trip.clone().filter(|d| d != "ok"))
    } else {
        Some(
            r.files
                .iter()
                .find_map(|f| f.round_trip.clone().filter(|d| d != "ok"))
                .unwrap_or_else(|| "ok".into()),
        )
    };
}

/// A skipped entry of a report.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SkippedEntry {
    /// The file.
    pub path: PathBuf,
    /// Why.
    pub reason: String,
}

/// A failed level and its first reason.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Failure {
    /// The level.
    pub path: PathBuf,
    /// The first reason.
    pub reason: String,
}

/// The totals of a [`VerifyReport`].
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct VerifySummary {
    /// Levels found.
    pub levels: usize,
    /// Bytes of the levels verified.
    pub bytes: u64,
    /// Levels that passed.
    pub passed: usize,
    /// Levels that failed.
    pub failed: usize,
    /// Levels that could not be read at all.
    pub unreadable: usize,
    /// Files skipped (not levels).
    pub skipped: usize,
    /// `check` problems over all levels.
    pub problems: usize,
    /// Levels not started because the run was stopped.
    pub not_run: usize,
    /// The run was stopped (Ctrl-C) before every level was done.
    pub interrupted: bool,
    /// `check` problems fail a level.
    pub strict: bool,
    /// Every failed level with its first reason, in path order.
    pub failures: Vec<Failure>,
}

/// What [`verify_batch`] found: `{"levels": [...], "skipped": [...], "summary": {...}}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct VerifyReport {
    /// Each level verified, in path order.
    pub levels: Vec<VerifyResult>,
    /// The files skipped, in path order.
    pub skipped: Vec<SkippedEntry>,
    /// The totals.
    pub summary: VerifySummary,
}

impl VerifyReport {
    /// The report as pretty JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// 0 when every level passed, 1 when one failed, 2 when nothing could be read at all (no
    /// level found, or none of them readable). An interrupted run is the caller's to report.
    pub fn exit_code(&self) -> u8 {
        let s = &self.summary;
        let run = s.levels - s.not_run;
        if s.levels == 0 || (run > 0 && s.unreadable == run) {
            2
        } else if s.failed > 0 {
            1
        } else {
            0
        }
    }
}

fn skipped_entries(found: &[Found]) -> Vec<SkippedEntry> {
    found
        .iter()
        .filter_map(|f| match &f.what {
            What::Skipped { reason } => Some(SkippedEntry {
                path: f.path.clone(),
                reason: reason.clone(),
            }),
            _ => None,
        })
        .collect()
}

/// Verify every level of `found` ([`verify_one`]) as `run` says; skipped entries are listed.
pub fn verify_batch(found: &[Found], strict: bool, run: &Run<'_>) -> VerifyReport {
    let levels: Vec<&Found> = found.iter().filter(|f| f.is_level()).collect();
    let results = run.map(&levels, |_, f| {
        let r = verify_one(f, strict);
        let ok = r.passed;
        (r, ok)
    });
    let not_run = results.iter().filter(|r| r.is_none()).count();
    let results: Vec<VerifyResult> = results.into_iter().flatten().collect();
    let summary = VerifySummary {
        levels: levels.len(),
        bytes: results.iter().map(|r| r.bytes).sum(),
        passed: results.iter().filter(|r| r.passed).count(),
        failed: results.iter().filter(|r| !r.passed).count(),
        unreadable: results.iter().filter(|r| !r.opened).count(),
        skipped: found.len() - levels.len(),
        problems: results.iter().map(|r| r.problems).sum(),
        not_run,
        interrupted: not_run > 0,
        strict,
        failures: results
            .iter()
            .filter_map(|r| {
                r.reason.as_ref().map(|reason| Failure {
                    path: r.path.clone(),
                    reason: reason.clone(),
                })
            })
            .collect(),
    };
    VerifyReport {
        levels: results,
        skipped: skipped_entries(found),
        summary,
    }
}

// ---------------------------------------------------------------------------------------------
// Batch export

/// The manifest a batch export writes into its output root.
pub const BATCH_MANIFEST: &str = ".levelgeom-batch.json";

/// The contact sheet a batch export with previews writes into its output root.
pub const INDEX: &str = "index.html";

/// The preview picture the contact sheet shows for each level.
pub const SHEET_PREVIEW: &str = "preview_persp.png";

/// One level of a [`BatchExport`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct LevelExport {
    /// The level (as [`Found::path`]).
    pub path: PathBuf,
    /// `argonaut-wad` or `xray-level`.
    pub format: &'static str,
    /// Bytes of its files.
    pub bytes: u64,
    /// Its folder's name inside the output root.
    pub name: String,
    /// Its folder.
    pub outdir: PathBuf,
    /// Files written, with their sizes.
    pub files: Vec<(PathBuf, u64)>,
    /// Warnings of the export.
    pub warnings: Vec<String>,
    /// Why it was not exported (its folder was left as it was).
    pub error: Option<String>,
}

/// What [`export_batch`] did.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct BatchExport {
    /// Each level, in path order (levels not started after a stop are left out).
    pub levels: Vec<LevelExport>,
    /// The files skipped, in path order.
    pub skipped: Vec<SkippedEntry>,
    /// Levels not started because the run was stopped.
    pub not_run: usize,
    /// The contact sheet, when previews were written.
    pub index: Option<PathBuf>,
    /// Folders of a previous batch (levels no longer in this one) that were removed.
    pub removed: Vec<PathBuf>,
}

impl BatchExport {
    /// Levels exported.
    pub fn exported(&self) -> usize {
        self.levels.iter().filter(|l| l.error.is_none()).count()
    }
}

/// The folder name of each level of `levels` inside a batch's output root: the level's own
/// name ([`Found::name`]); where names clash (compared ignoring case, as on Windows and macOS),
/// the path below its root with `/` replaced by `_` ([`Found::relative_name`]); where even
/// those clash, `_2`, `_3`… in path order. Names of our own files (`index.html`, names that
/// start with `.`) are never used.
pub fn level_names(levels: &[&Found]) -> Vec<String> {
    let key = |s: &str| s.to_lowercase();
    let clean = |s: String| {
        let s = s.trim_start_matches('.').to_string();
        if s.is_empty() || key(&s) == INDEX {
            format!("level_{s}")
        } else {
            s
        }
    };
    let own: Vec<String> = levels.iter().map(|l| clean(l.name())).collect();
    let mut names: Vec<String> = own
        .iter()
        .enumerate()
        .map(|(i, n)| {
            let clash = own
                .iter()
                .enumerate()
                .any(|(j, m)| j != i && key(m) == key(n));
            if clash {
                clean(levels[i].relative_name())
            } else {
                n.clone()
            }
        })
        .collect();
    let mut taken: HashSet<String> = HashSet::new();
    for name in &mut names {
        if taken.insert(key(name)) {
            continue;
        }
        let base = name.clone();
        let mut k = 2;
        while !taken.insert(key(&format!("{base}_{k}"))) {
            k += 1;
        }
        *name = format!("{base}_{k}");
    }
    names
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> Error {
    let path = path.to_path_buf();
    move |source| Error::Io { path, source }
}

/// `(levels, files)` of the batch manifest in `dir`; `None` when there is none of ours.
fn previous_batch(dir: &Path) -> Option<(Vec<String>, Vec<String>)> {
    let text = fs::read_to_string(dir.join(BATCH_MANIFEST)).ok()?;
    let v: serde_json::Value = serde_json::from_str(&text).ok()?;
    if v.get("tool")?.as_str()? != "levelgeom" {
        return None;
    }
    let list = |k: &str| -> Vec<String> {
        v.get(k)
            .and_then(|a| a.as_array())
            .map(|a| {
                a.iter()
                    .filter_map(|s| s.as_str())
                    .filter(|s| is_plain_name(s))
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default()
    };
    Some((list("levels"), list("files")))
}

fn write_batch_manifest(root: &Path, levels: &[String], files: &[String]) -> Result<()> {
    let v = serde_json::json!({
        "tool": "levelgeom",
        "version": env!("CARGO_PKG_VERSION"),
        "batch": true,
        "levels": levels,
        "files": files,
    });
    let bytes = serde_json::to_vec_pretty(&v).unwrap_or_default();
    let p = root.join(BATCH_MANIFEST);
    levelgeom_binary::write_atomic(&p, &bytes, &[]).map_err(io(&p))
}

/// Remove a previous level export folder of ours: the files its manifest lists, the manifest,
/// then the folder if nothing else is left in it. Returns whether the folder is gone.
fn remove_export_folder(dir: &Path) -> bool {
    let manifest = dir.join(levelgeom_export::folder::MANIFEST);
    let Ok(text) = fs::read_to_string(&manifest) else {
        return false;
    };
    let Ok(v) = serde_json::from_str::<serde_json::Value>(&text) else {
        return false;
    };
    if v.get("tool").and_then(|t| t.as_str()) != Some("levelgeom") {
        return false;
    }
    for f in v
        .get("files")
        .and_then(|f| f.as_array())
        .into_iter()
        .flatten()
        .filter_map(|f| f.as_str())
        .filter(|f| is_plain_name(f))
    {
        let _ = fs::remove_file(dir.join(f));
    }
    let _ = fs::remove_file(&manifest);
    fs::remove_dir(dir).is_ok()
}

/// Percent-encode a folder name for a URL path segment.
fn url_segment(name: &str) -> String {
    let mut s = String::new();
    for b in name.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
            s.push(char::from(b));
        } else {
            s.push_str(&format!("%{b:02X}"));
        }
    }
    s
}

/// Escape text for HTML (element content and quoted attribute values).
pub fn html_escape(text: &str) -> String {
    let mut s = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => s.push_str("&amp;"),
            '<' => s.push_str("&lt;"),
            '>' => s.push_str("&gt;"),
            '"' => s.push_str("&quot;"),
            '\'' => s.push_str("&#39;"),
            c => s.push(c),
        }
    }
    s
}

/// The contact sheet: one figure per exported level with a preview, linked to its folder.
fn contact_sheet(levels: &[LevelExport]) -> String {
    let mut h = String::from(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <title>levelgeom export</title>\n<style>\n\
         body { font-family: sans-serif; background: #202020; color: #e0e0e0; margin: 1em; }\n\
         a { color: #8cf; }\n\
         .sheet { display: flex; flex-wrap: wrap; gap: 12px; }\n\
         figure { margin: 0; width: 256px; }\n\
         img { width: 256px; height: 192px; object-fit: contain; background: #000; }\n\
         figcaption { font-size: 0.85em; overflow-wrap: anywhere; }\n\
         </style>\n</head>\n<body>\n",
    );
    let shown: Vec<&LevelExport> = levels
        .iter()
        .filter(|l| l.error.is_none() && l.outdir.join(SHEET_PREVIEW).is_file())
        .collect();
    h.push_str(&format!(
        "<h1>{} level{}</h1>\n<div class=\"sheet\">\n",
        shown.len(),
        if shown.len() == 1 { "" } else { "s" }
    ));
    for l in &shown {
        let href = url_segment(&l.name);
        let name = html_escape(&l.name);
        h.push_str(&format!(
            "<figure><a href=\"{href}/\"><img src=\"{href}/{SHEET_PREVIEW}\" alt=\"{name}\" \
             loading=\"lazy\"></a>\n<figcaption><a href=\"{href}/\">{name}</a><br>{}<br>{}</figcaption></figure>\n",
            html_escape(l.format),
            html_escape(&l.path.display().to_string()),
        ));
    }
    h.push_str("</div>\n");
    let failed: Vec<&LevelExport> = levels.iter().filter(|l| l.error.is_some()).collect();
    if !failed.is_empty() {
        h.push_str("<h2>Not exported</h2>\n<ul>\n");
        for l in failed {
            h.push_str(&format!(
                "<li>{}: {}</li>\n",
                html_escape(&l.path.display().to_string()),
                html_escape(l.error.as_deref().unwrap_or(""))
            ));
        }
        h.push_str("</ul>\n");
    }
    h.push_str("</body>\n</html>\n");
    h
}

/// Export every level of `found` into `outroot/NAME/` ([`level_names`]), each folder all or
/// nothing as [`crate::LevelFile::export`] writes it, as `run` says. The options of one engine
/// apply to that engine's levels only (`collision` to WADs, `textures` to X-Ray levels).
///
/// `outroot` follows the rule of an export folder: absent, empty, or a previous batch of ours
/// (its manifest [`BATCH_MANIFEST`]), else refused unless `opts.force`. A previous batch's level
/// folders that this batch does not write again are removed (their listed files only) when the
/// run was not stopped. With `opts.preview`, [`INDEX`] is written: a contact sheet of the
/// levels' previews.
///
/// # Errors
/// Only for the output root (refused, or not writable); a level that fails is reported in its
/// [`LevelExport::error`] and the others go on.
pub fn export_batch(
    found: &[Found],
    outroot: &Path,
    opts: &ExportOptions,
    run: &Run<'_>,
) -> Result<BatchExport> {
    use levelgeom_export::folder::FolderError;
    let previous = match fs::metadata(outroot) {
        Ok(m) if !m.is_dir() => {
            return Err(FolderError::NotAFolder(outroot.to_path_buf()).into());
        }
        Ok(_) => {
            let previous = previous_batch(outroot);
            let empty = fs::read_dir(outroot).map_err(io(outroot))?.next().is_none();
            if previous.is_none() && !empty && !opts.force {
                return Err(FolderError::NotOurs(outroot.to_path_buf()).into());
            }
            previous.unwrap_or_default()
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Default::default(),
        Err(e) => return Err(io(outroot)(e)),
    };
    fs::create_dir_all(outroot).map_err(io(outroot))?;
    let levels: Vec<&Found> = found.iter().filter(|f| f.is_level()).collect();
    let names = level_names(&levels);
    // Written first, so that a batch stopped half-way is still recognised as ours.
    let mut listed: Vec<String> = previous.0.clone();
    for n in &names {
        if !listed.contains(n) {
            listed.push(n.clone());
        }
    }
    let mut files = previous.1.clone();
    if opts.preview && !files.iter().any(|f| f == INDEX) {
        files.push(INDEX.into());
    }
    write_batch_manifest(outroot, &listed, &files)?;

    let results = run.map(&levels, |i, f| {
        let r = export_one(f, outroot, &names[i], opts);
        let ok = r.error.is_none();
        (r, ok)
    });
    let not_run = results.iter().filter(|r| r.is_none()).count();
    let levels: Vec<LevelExport> = results.into_iter().flatten().collect();

    let mut removed = Vec::new();
    if not_run == 0 {
        for stale in previous.0.iter().filter(|n| !names.contains(n)) {
            let d = outroot.join(stale);
            if !d.exists() {
                listed.retain(|n| n != stale);
            } else if remove_export_folder(&d) {
                removed.push(d);
                listed.retain(|n| n != stale);
            }
        }
    }
    let index = if opts.preview {
        let p = outroot.join(INDEX);
        levelgeom_binary::write_atomic(&p, contact_sheet(&levels).as_bytes(), &[])
            .map_err(io(&p))?;
        Some(p)
    } else {
        if files.iter().any(|f| f == INDEX) && not_run == 0 {
            let _ = fs::remove_file(outroot.join(INDEX));
            files.retain(|f| f != INDEX);
        }
        None
    };
    write_batch_manifest(outroot, &listed, &files)?;
    Ok(BatchExport {
        levels,
        skipped: skipped_entries(found),
        not_run,
        index,
        removed,
    })
}

/// The options of `opts` that apply to `found`'s engine.
pub fn options_for(found: &Found, opts: &ExportOptions) -> ExportOptions {
    let mut o = opts.clone();
    match found.what {
        What::Wad => o.engine.xray = None,
        _ => o.engine.wad = None,
    }
    o
}

fn export_one(found: &Found, outroot: &Path, name: &str, opts: &ExportOptions) -> LevelExport {
    let outdir = outroot.join(name);
    let mut r = LevelExport {
        path: found.path.clone(),
        format: found.format().unwrap_or("none"),
        bytes: found.bytes,
        name: name.to_string(),
        outdir: outdir.clone(),
        files: Vec::new(),
        warnings: Vec::new(),
        error: None,
    };
    let o = options_for(found, opts);
    match guarded(|| open(&found.path).and_then(|l| l.export(&outdir, &o))) {
        Ok(Ok(e)) => {
            r.files = e.files;
            r.warnings = e.warnings;
        }
        Ok(Err(e)) => r.error = Some(e.to_string()),
        Err(e) => r.error = Some(e),
    }
    r
}
