//! `levelgeom`: open, check, rebuild and export compiled level geometry of
//! *The Emperor's New Groove* (Argonaut WAD) and *S.T.A.L.K.E.R.* (X-Ray).
//!
//! The binary holds argument parsing and printing only; everything else is
//! [`levelgeom_core`].
//!
//! Exit codes: 0 = success, 1 = `check` found problems or `rebuild --verify` found a
//! difference, 2 = error (unreadable or malformed input, bad arguments, I/O failure).

use std::io::Write;
use std::process::ExitCode;

use clap::Parser;

mod batch;
mod cmd;
mod report;

/// Open, check, rebuild and export compiled level geometry of early-2000s games.
#[derive(Parser, Debug)]
#[command(name = "levelgeom", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: cmd::Command,
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let result = cmd::run(cli.command, &mut out);
    let _ = out.flush();
    match result {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            if is_broken_pipe(&e) {
                return ExitCode::SUCCESS;
            }
            eprintln!("levelgeom: error: {}", message(&e));
            ExitCode::from(2)
        }
    }
}

/// The error and its causes in one line, each cause once: library errors already show their
/// cause in their own message (`FILE: at 0x… in CHUNK: …`), contexts added here do not.
fn message(e: &anyhow::Error) -> String {
    let mut msg = String::new();
    for cause in e.chain() {
        let text = cause.to_string();
        if msg.is_empty() {
            msg = text;
        } else if !msg.contains(&text) {
            msg.push_str(": ");
            msg.push_str(&text);
        }
    }
    msg
}

fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}
