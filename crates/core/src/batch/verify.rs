//! Verify: each level's round trip and check.

use std::path::PathBuf;

use serde::Serialize;

use super::discovery::file_size;
use super::runner::guarded;
use super::{Found, Run, What};
use crate::error::Error;
use crate::{first_difference, open, open_bytes};

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
        What::Wad | What::Skipped { .. } => found.path.clone(),
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

pub(super) fn skipped_entries(found: &[Found]) -> Vec<SkippedEntry> {
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
