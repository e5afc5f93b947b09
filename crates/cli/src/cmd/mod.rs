//! One module per subcommand. Each `run` writes data to `out` and returns the exit code.

use std::io::Write;

pub mod check;
pub mod convert;
pub mod demo;
pub mod export;
pub mod extract;
pub mod import;
pub mod info;
pub mod probe;
pub mod rebuild;
pub mod render;
pub mod replace;
pub mod sample;
pub mod verify;

/// The subcommands.
#[derive(clap::Subcommand, Debug)]
pub enum Command {
    /// Show the chunks of a level file and a summary of what they hold.
    Info(info::Args),
    /// Parse a level file into its typed model and write it back (byte for byte when unchanged).
    Rebuild(rebuild::Args),
    /// Check a level file against the format's consistency rules.
    Check(check::Args),
    /// Export a level to glTF (GLB), OBJ/MTL and PNG.
    Export(export::Args),
    /// Put an edited mesh (OBJ, glTF, GLB in export space) back into a WAD or an X-Ray level.
    Import(import::Args),
    /// Write an X-Ray level in another XRLC build (4, 5, 8–14), nothing edited.
    Convert(convert::Args),
    /// Write a WAD's sounds (WAV), strings (JSON, CSV), name and font (PNG), with a manifest.
    Extract(extract::Args),
    /// Put edited strings and sounds back into a WAD (everything else byte for byte).
    Replace(replace::Args),
    /// The collision surfaces over and under a point of a WAD level.
    Probe(probe::Args),
    /// Draw a picture of a level (PNG).
    Render(render::Args),
    /// Write sample geometry (blocks, a ramp, a plaza) built from a WAD's textures, to import.
    Sample(sample::Args),
    /// Write the built-in generated demo level (an Argonaut WAD) to a file.
    Demo(demo::Args),
    /// Find every level under folders and verify each: round trip byte for byte, and check.
    Verify(verify::Args),
}

/// Run a subcommand; returns the process exit code (0 ok, 1 problems found).
pub fn run(cmd: Command, out: &mut dyn Write) -> anyhow::Result<u8> {
    match cmd {
        Command::Info(a) => info::run(a, out),
        Command::Rebuild(a) => rebuild::run(a, out),
        Command::Check(a) => check::run(a, out),
        Command::Export(a) => export::run(a, out),
        Command::Import(a) => import::run(a, out),
        Command::Convert(a) => convert::run(a, out),
        Command::Extract(a) => extract::run(a, out),
        Command::Replace(a) => replace::run(a, out),
        Command::Probe(a) => probe::run(a, out),
        Command::Render(a) => render::run(a, out),
        Command::Sample(a) => sample::run(a, out),
        Command::Demo(a) => demo::run(a, out),
        Command::Verify(a) => verify::run(a, out),
    }
}
