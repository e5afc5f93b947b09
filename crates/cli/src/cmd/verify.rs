//! `levelgeom verify PATH... [--json] [--strict] [--jobs N] [--quiet]`

use std::io::Write;
use std::path::PathBuf;

use levelgeom_core::batch::{self, Progress, Run};

use crate::{batch as cli_batch, report};

/// Arguments of `verify`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Files and folders to search for levels (WADs and X-Ray levels, found by content).
    #[arg(value_name = "PATH", required = true)]
    pub paths: Vec<PathBuf>,
    /// Write the report as JSON: {"levels": [...], "skipped": [...], "summary": {...}}.
    #[arg(long)]
    pub json: bool,
    /// `check` problems fail a level too (otherwise they are listed and counted).
    #[arg(long)]
    pub strict: bool,
    /// Levels verified at once, 1 or more (default: one per core).
    #[arg(long, short = 'j', value_parser = crate::report::jobs)]
    pub jobs: Option<usize>,
    /// No progress on stderr.
    #[arg(long, short = 'q')]
    pub quiet: bool,
}

/// Run `verify`: one line per level and a summary. Exit 0 when every level passed, 1 when one
/// failed, 2 when nothing could be read at all, 130 when stopped by Ctrl-C.
pub fn run(args: Args, out: &mut dyn Write) -> anyhow::Result<u8> {
    cli_batch::require_existing(&args.paths)?;
    let found = batch::find_levels(&args.paths);
    let (total, bytes) = cli_batch::totals(&found);
    let bar = cli_batch::Bar::new("verified", total, bytes, args.quiet);
    let progress = |p: &Progress<'_>| bar.tick(p);
    let run = Run {
        jobs: args.jobs.unwrap_or(0),
        stop: Some(cli_batch::stop_flag()),
        progress: Some(&progress),
    };
    let r = batch::verify_batch(&found, args.strict, &run);
    bar.finish();
    let code = if r.summary.interrupted {
        cli_batch::INTERRUPTED
    } else {
        r.exit_code()
    };
    if args.json {
        writeln!(out, "{}", r.to_json())?;
        return Ok(code);
    }
    for l in &r.levels {
        let what = format!("{} ({}, {} bytes)", l.path.display(), l.format, l.bytes);
        let problems = if l.problems > 0 {
            format!(", {}", report::count(l.problems, "problem"))
        } else {
            String::new()
        };
        match &l.reason {
            None => writeln!(out, "ok {what}: round trip identical{problems}")?,
            Some(reason) => writeln!(
                out,
                "FAILED {what}: {}",
                cli_batch::unprefixed(reason, &l.path)
            )?,
        }
        for p in l.problem_list.iter().take(report::MAX_WARNINGS_SHOWN) {
            writeln!(out, "  {p}")?;
        }
        if l.problems > report::MAX_WARNINGS_SHOWN {
            writeln!(
                out,
                "  {} not shown",
                report::count(l.problems - report::MAX_WARNINGS_SHOWN, "more problem")
            )?;
        }
    }
    cli_batch::print_skipped(out, &r.skipped)?;
    let s = &r.summary;
    writeln!(
        out,
        "{}, {} bytes: {} passed, {} failed, {} skipped; {}{}{}",
        report::count(s.levels, "level"),
        s.bytes,
        s.passed,
        s.failed,
        s.skipped,
        report::count(s.problems, "check problem"),
        if s.strict { " (--strict)" } else { "" },
        if s.not_run > 0 {
            format!("; {} not started (stopped)", s.not_run)
        } else {
            String::new()
        }
    )?;
    if let Some(f) = s.failures.first() {
        writeln!(
            out,
            "first failure: {}: {}",
            f.path.display(),
            cli_batch::unprefixed(&f.reason, &f.path)
        )?;
    }
    if s.levels == 0 {
        eprintln!("levelgeom: no level found under the given paths");
    }
    Ok(code)
}
