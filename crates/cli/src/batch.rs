//! Printing shared by the commands that work on many levels (`verify`, batch `export`):
//! progress on stderr, the Ctrl-C stop flag, the batch export's lines. The work itself is
//! [`levelgeom_core::batch`].

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use levelgeom_core::batch::{self, Found, Progress, Run};
use levelgeom_core::ExportOptions;

use crate::report;

/// Set by Ctrl-C: no new level starts.
static STOP: AtomicBool = AtomicBool::new(false);

/// Exit code of a run stopped by Ctrl-C (128 + SIGINT).
pub const INTERRUPTED: u8 = 130;

/// Install the Ctrl-C handler (once per process): the first Ctrl-C sets [`STOP`], so the
/// running levels finish and no new one starts; a second one exits at once (a level folder
/// being written is then left as it was, the all-or-nothing export sees to that).
pub fn stop_flag() -> &'static AtomicBool {
    let _ = ctrlc::set_handler(|| {
        if STOP.swap(true, Ordering::SeqCst) {
            std::process::exit(i32::from(INTERRUPTED));
        }
        eprintln!(
            "levelgeom: stopping after the levels being processed (Ctrl-C again to stop now)"
        );
    });
    &STOP
}

/// True when `export`'s inputs make a batch: two or more, or one folder that is not itself an
/// X-Ray level folder (has no `level` file).
pub fn is_batch(inputs: &[PathBuf]) -> bool {
    match inputs {
        [] => false,
        [one] => one.is_dir() && !one.join("level").is_file(),
        _ => true,
    }
}

/// Progress on stderr: a bar when stderr is a terminal, plain lines otherwise, nothing when
/// quiet.
pub struct Bar {
    verb: &'static str,
    bar: Option<indicatif::ProgressBar>,
    plain: bool,
}

impl Bar {
    /// For `total` levels of `bytes` bytes together.
    pub fn new(verb: &'static str, total: usize, bytes: u64, quiet: bool) -> Bar {
        let terminal = std::io::stderr().is_terminal();
        let bar = (!quiet && terminal).then(|| {
            let b = indicatif::ProgressBar::new(bytes);
            let style = indicatif::ProgressStyle::with_template(
                "{spinner} {elapsed_precise} [{bar:30}] {binary_bytes}/{binary_total_bytes} \
                 {msg} (ETA {eta})",
            )
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
            .progress_chars("=> ");
            b.set_style(style);
            b.set_message(format!("0/{total} levels"));
            b
        });
        Bar {
            verb,
            bar,
            plain: !quiet && !terminal,
        }
    }

    /// Report one level done.
    pub fn tick(&self, p: &Progress<'_>) {
        if let Some(b) = &self.bar {
            b.set_position(p.bytes_done);
            b.set_message(format!("{}/{} levels", p.done, p.total));
        } else if self.plain {
            eprintln!(
                "{} {}/{} {}{}",
                self.verb,
                p.done,
                p.total,
                p.path.display(),
                if p.ok { "" } else { " (failed)" }
            );
        }
    }

    /// Remove the bar.
    pub fn finish(&self) {
        if let Some(b) = &self.bar {
            b.finish_and_clear();
        }
    }
}

/// The levels of `found` and their bytes.
pub fn totals(found: &[Found]) -> (usize, u64) {
    let levels: Vec<&Found> = found.iter().filter(|f| f.is_level()).collect();
    (levels.len(), levels.iter().map(|f| f.bytes).sum())
}

/// Print skipped entries: the first [`report::MAX_WARNINGS_SHOWN`], then how many more.
pub fn print_skipped(out: &mut dyn Write, skipped: &[batch::SkippedEntry]) -> std::io::Result<()> {
    for s in skipped.iter().take(report::MAX_WARNINGS_SHOWN) {
        writeln!(out, "skipped {}: {}", s.path.display(), s.reason)?;
    }
    if skipped.len() > report::MAX_WARNINGS_SHOWN {
        writeln!(
            out,
            "{} not shown (--json lists them all)",
            report::count(
                skipped.len() - report::MAX_WARNINGS_SHOWN,
                "more skipped file"
            )
        )?;
    }
    Ok(())
}

/// A path given on the command line that does not exist is an error (a typo), not a skipped
/// file: nothing is written.
pub fn require_existing(inputs: &[PathBuf]) -> anyhow::Result<()> {
    for p in inputs {
        if let Err(e) = std::fs::symlink_metadata(p) {
            anyhow::bail!("cannot read {}: {e}; nothing was written", p.display());
        }
    }
    Ok(())
}

/// A reason without the level's path in front (library errors begin with the file they are
/// about, which the line has already named).
pub fn unprefixed<'a>(reason: &'a str, path: &Path) -> &'a str {
    let p = path.display().to_string();
    reason
        .strip_prefix(p.as_str())
        .and_then(|r| r.strip_prefix(": "))
        .unwrap_or(reason)
}

/// How a batch `export` runs and reports.
pub struct How {
    /// Levels at once (None: one per core).
    pub jobs: Option<usize>,
    /// No progress on stderr.
    pub quiet: bool,
    /// The report as JSON on stdout.
    pub json: bool,
}

/// Run a batch `export`: every level under `inputs` into `outroot/<name>/`.
/// Exit 0 when every level was exported, 1 when some failed, 2 when none was (or none was
/// found: then nothing is written), 130 when stopped by Ctrl-C.
pub fn export(
    inputs: &[PathBuf],
    outroot: &Path,
    opts: &ExportOptions,
    how: &How,
    out: &mut dyn Write,
) -> anyhow::Result<u8> {
    require_existing(inputs)?;
    let found = batch::find_levels(inputs);
    let (total, bytes) = totals(&found);
    if total == 0 {
        let skipped: Vec<batch::SkippedEntry> = found
            .iter()
            .filter_map(|f| match &f.what {
                batch::What::Skipped { reason } => Some(batch::SkippedEntry {
                    path: f.path.clone(),
                    reason: reason.clone(),
                }),
                _ => None,
            })
            .collect();
        print_skipped(out, &skipped)?;
        anyhow::bail!(
            "no level found under {}; nothing was written",
            inputs
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    let bar = Bar::new("exported", total, bytes, how.quiet);
    let progress = |p: &Progress<'_>| bar.tick(p);
    let run = Run {
        jobs: how.jobs.unwrap_or(0),
        stop: Some(stop_flag()),
        progress: Some(&progress),
    };
    let r = batch::export_batch(&found, outroot, opts, &run);
    bar.finish();
    let r = r?;
    let failed = r.levels.len() - r.exported();
    let code = if r.not_run > 0 {
        INTERRUPTED
    } else if r.exported() == 0 {
        2
    } else if failed > 0 {
        1
    } else {
        0
    };
    if how.json {
        let mut v = serde_json::to_value(&r)?;
        for (l, j) in r
            .levels
            .iter()
            .zip(v["levels"].as_array_mut().into_iter().flatten())
        {
            j["files"] = crate::cmd::export::files_json(&l.files);
        }
        v["summary"] = serde_json::json!({
            "levels": total,
            "bytes": bytes,
            "exported": r.exported(),
            "failed": failed,
            "skipped": r.skipped.len(),
            "not_started": r.not_run,
        });
        writeln!(out, "{}", serde_json::to_string_pretty(&v)?)?;
        return Ok(code);
    }
    for l in &r.levels {
        match &l.error {
            None => {
                let size: u64 = l.files.iter().map(|(_, n)| n).sum();
                writeln!(
                    out,
                    "exported {} -> {} ({}, {size} bytes{})",
                    l.path.display(),
                    l.outdir.display(),
                    report::count(l.files.len(), "file"),
                    if l.warnings.is_empty() {
                        String::new()
                    } else {
                        format!(", {}", report::count(l.warnings.len(), "warning"))
                    }
                )?;
            }
            Some(e) => writeln!(
                out,
                "FAILED {}: {}",
                l.path.display(),
                unprefixed(e, &l.path)
            )?,
        }
        for w in l.warnings.iter().take(report::MAX_WARNINGS_SHOWN) {
            writeln!(out, "  warning: {w}")?;
        }
        if l.warnings.len() > report::MAX_WARNINGS_SHOWN {
            writeln!(
                out,
                "  {} not shown (--json lists them all)",
                report::count(
                    l.warnings.len() - report::MAX_WARNINGS_SHOWN,
                    "more warning"
                )
            )?;
        }
    }
    print_skipped(out, &r.skipped)?;
    for d in &r.removed {
        writeln!(
            out,
            "removed {} (a level of the previous batch)",
            d.display()
        )?;
    }
    if let Some(i) = &r.index {
        writeln!(out, "contact sheet {}", i.display())?;
    }
    writeln!(
        out,
        "{} found, {bytes} bytes: {} exported, {failed} failed, {} skipped{}",
        report::count(total, "level"),
        r.exported(),
        r.skipped.len(),
        if r.not_run > 0 {
            format!(", {} not started (stopped)", r.not_run)
        } else {
            String::new()
        }
    )?;
    Ok(code)
}
