//! levelgeom's library entry point: one interface over every engine.
//!
//! [`open`] reads a level file (or an X-Ray level folder), tells its engine from the bytes —
//! each engine crate offers one `sniff`, and no engine knows another's signature — and returns
//! a [`LevelFile`] with the same calls for all of them:
//!
//! | call | what |
//! |---|---|
//! | [`LevelFile::info`] | chunks with offsets and sizes, a summary of their content ([`Info`]: text and JSON renderings of one value) |
//! | [`LevelFile::check`] | the format's consistency rules ([`CheckReport`] of [`Problem`]s) |
//! | [`LevelFile::rebuild`] | the typed model written back (byte for byte when unchanged) |
//! | [`LevelFile::locate`] | the chunk path of a file offset |
//! | [`LevelFile::to_scene`] | the engine-neutral scene, with [`EngineOptions`] |
//! | [`LevelFile::export`] | GLB, OBJ/MTL and PNG files (and previews) written into a folder, all or nothing |
//! | [`LevelFile::render`] | a picture of the level (top, perspective or isometric view) |
//! | [`LevelFile::import`] | an edited mesh (OBJ, glTF, GLB) put back into a WAD |
//! | [`LevelFile::import_xray`] | an edited export put back into an X-Ray level (its files in memory; [`write_level_folder`] writes them); [`open_for_import`] reads the mesh file while it opens the level, for [`LevelFile::import_xray_ahead`] |
//! | [`LevelFile::probe`] | the collision surfaces over and under a point (WAD) |
//! | [`LevelFile::extract`] | a WAD's sounds (WAV), strings (JSON, CSV), name and font (PNG), with a manifest |
//! | [`LevelFile::replace`] | edited strings, sounds and zones back into a WAD, everything else byte for byte |
//!
//! [`batch`] works on whole installs: every level under folders found by content, verified
//! (round trip and check) or exported in parallel, with a report.
//!
//! ```
//! let level = levelgeom_core::demo();
//! assert_eq!(level.format(), levelgeom_core::Format::Wad);
//! assert!(level.check().problems.is_empty());
//! assert_eq!(level.rebuild().unwrap(), level.bytes());
//! let scene = level.to_scene(&Default::default()).unwrap();
//! assert!(scene.mesh_triangle_count() > 0);
//! ```
#![forbid(unsafe_code)]
#![deny(missing_docs)]

use std::path::{Path, PathBuf};

mod ahead;
pub mod batch;
mod engine;
mod error;
mod export;
pub mod extract;
mod import;
mod info;
mod level;
mod options;
mod render;
pub mod replace;

pub use engine::Engine;
pub use error::{Error, Result};
pub use export::{tally, ExportReport, RootSummary};
pub use extract::{ExtractOptions, ExtractReport};
pub use import::{
    named_xray_level, open_for_import, write_level_folder, FileBytes, ImportOptions, ImportReport,
    ImportSummary, MeshAhead, ProbeHit, ProbeKind, SampleReport, XrayImportOptions,
    XrayImportReport, XraySummary, Zones, MAX_PROBE_COORD,
};
pub use info::Info;
pub use level::{CheckReport, LevelFile};
pub use levelgeom_binary::{Limits, Problem, Severity, Warning};
pub use options::{
    CheckOptions, EngineOptions, ExportOptions, Formats, WadOptions, XrayOnly, XrayOptions,
};
pub use render::{draw, Image, RenderOptions, View, PREVIEW_SIZE};
pub use replace::{ReplaceOptions, ReplaceReport};

use level::Content;

/// What kind of level file was opened.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    /// An Argonaut level WAD (The Emperor's New Groove).
    Wad,
    /// An X-Ray `level` file (visuals, shaders, sectors…).
    XrayLevel,
    /// An X-Ray `level.geom` / `level.geomx` (vertex and index buffers).
    XrayGeom,
    /// An X-Ray `level.cform` (collision).
    XrayCform,
    /// An X-Ray `level.hom` (occluders).
    XrayHom,
    /// An X-Ray `level.som` (sound occluders).
    XraySom,
    /// An X-Ray `level.ai` (AI nodes).
    XrayAi,
    /// An X-Ray `level.details` (detail objects and slots).
    XrayDetails,
    /// Another X-Ray chunk file.
    XrayChunks,
}

impl Format {
    /// The name `info --json` uses (`argonaut-wad`, `xray-level`, …).
    pub fn name(self) -> &'static str {
        match self {
            Format::Wad => "argonaut-wad",
            Format::XrayLevel => "xray-level",
            Format::XrayGeom => "xray-geom",
            Format::XrayCform => "xray-cform",
            Format::XrayHom => "xray-hom",
            Format::XraySom => "xray-som",
            Format::XrayAi => "xray-ai",
            Format::XrayDetails => "xray-details",
            Format::XrayChunks => "xray-chunks",
        }
    }

    /// A phrase for messages (`an Argonaut WAD`).
    pub fn description(self) -> &'static str {
        match self {
            Format::Wad => "an Argonaut WAD",
            Format::XrayLevel => "an X-Ray level",
            Format::XrayGeom => "an X-Ray level.geom",
            Format::XrayCform => "an X-Ray level.cform",
            Format::XrayHom => "an X-Ray level.hom",
            Format::XraySom => "an X-Ray level.som",
            Format::XrayAi => "an X-Ray level.ai",
            Format::XrayDetails => "an X-Ray level.details",
            Format::XrayChunks => "an X-Ray chunk file",
        }
    }
}

const EXPECTED: &str = "neither an Argonaut WAD (u32 length, then a chunk tag of capital letters \
                        such as CPFW at offset 4) nor an X-Ray file (chunks of u32 id + u32 size \
                        that tile the file, header chunk 1 of 4 bytes first; or a level.cform \
                        header)";

/// [`Error::NotALevel`]'s explanation for a mesh file (glTF, GLB, OBJ: what `export` writes).
const EXPECTED_MESH: &str = "it is a mesh (glTF, GLB or OBJ, as `export` writes), not a level: \
                             `levelgeom import LEVEL MESH OUTPUT` puts an edited mesh back into \
                             the level it was exported from";

/// Open a level file, or an X-Ray level folder (its `level` file, paired with the
/// `level.geom` and `level.geomx` beside it).
///
/// # Errors
/// The file cannot be read, is no level file ([`Error::NotALevel`], with its first bytes), or
/// is malformed ([`Error::Read`], with the offset and chunk path).
pub fn open(path: &Path) -> Result<LevelFile> {
    open_with(path, Limits::DEFAULT)
}

/// [`open`] with explicit allocation limits (what decoders of compressed data may allocate;
/// see [`Limits`]).
///
/// # Errors
/// As [`open`].
pub fn open_with(path: &Path, limits: Limits) -> Result<LevelFile> {
    let (file, bytes, geoms) = read_level(path, limits)?;
    from_bytes(file, bytes, Some(geoms), limits)
}

/// The file [`open`] reads of `path` ([`level_path`]) and its bytes; when they are an X-Ray
/// `level`, the geom files beside it are read from now on, while the caller parses it
/// ([`ahead::GeomAhead`]).
fn read_level(path: &Path, limits: Limits) -> Result<(PathBuf, Vec<u8>, ahead::GeomAhead)> {
    let file = level_path(path)?;
    let bytes = levelgeom_binary::read_file(&file).map_err(|source| Error::Input {
        path: file.clone(),
        source,
    })?;
    let geoms = ahead::GeomAhead::start(&file, &bytes, limits);
    Ok((file, bytes, geoms))
}

/// The file [`open`] reads of `path`: `path` itself, or an X-Ray level folder's `level`.
fn level_path(path: &Path) -> Result<PathBuf> {
    Ok(if path.is_dir() {
        let level = path.join("level");
        if !level.is_file() {
            return Err(Error::Unsupported {
                file: path.display().to_string(),
                message: "is a folder without a `level` file; give a level file (a WAD, an \
                          X-Ray `level`, `level.geom`, `level.cform`) or an X-Ray level folder"
                    .into(),
            });
        }
        level
    } else {
        path.to_path_buf()
    })
}

/// Open a level from bytes in memory; `name` is what messages call it. No files beside it are
/// looked for.
///
/// # Errors
/// As [`open`].
pub fn open_bytes(name: impl Into<PathBuf>, bytes: Vec<u8>) -> Result<LevelFile> {
    from_bytes(name.into(), bytes, None, Limits::DEFAULT)
}

/// The built-in demo level (a generated, self-consistent WAD), named `demo.wad`.
pub fn demo() -> LevelFile {
    let level = demo_bytes(false)
        .and_then(|bytes| from_bytes(PathBuf::from("demo.wad"), bytes, None, Limits::DEFAULT));
    match level {
        Ok(l) => l,
        // The generator's output always reads; a failure here is a bug worth a loud message.
        Err(e) => panic!("the built-in demo level does not read back: {e}"),
    }
}

/// The bytes of a generated demo WAD: the small demo island, or with `full_size` a level of
/// real game size (96×96 grid, ~600 models, ~25,000 triangles, 30 pages).
///
/// # Errors
/// Only if the generator made a level that cannot be written (a bug).
pub fn demo_bytes(full_size: bool) -> Result<Vec<u8>> {
    if full_size {
        levelgeom_wad::generate::full_size_level().and_then(|l| l.to_bytes())
    } else {
        levelgeom_wad::generate::demo_level()
    }
    .map_err(|source| Error::Write {
        file: "the generated demo level".into(),
        source,
    })
}

/// The first offset where `a` and `b` differ (a length difference counts at the shorter end).
pub fn first_difference(a: &[u8], b: &[u8]) -> Option<usize> {
    match a.iter().zip(b).position(|(x, y)| x != y) {
        Some(i) => Some(i),
        None if a.len() != b.len() => Some(a.len().min(b.len())),
        None => None,
    }
}

fn first_bytes(bytes: &[u8]) -> String {
    let hex: Vec<String> = bytes.iter().take(8).map(|b| format!("{b:02X}")).collect();
    if hex.is_empty() {
        "none".into()
    } else {
        hex.join(" ")
    }
}

/// An error reading a file paired with a `level`: a read error names that file and its
/// offset; anything else is said about the `level`.
fn beside_error(file: &str, e: levelgeom_xray::files::FilesError) -> Error {
    match e {
        levelgeom_xray::files::FilesError::Read { path, source } => Error::Read {
            file: path.display().to_string(),
            source,
        },
        other => Error::XrayBeside {
            file: file.to_string(),
            source: Box::new(other),
        },
    }
}

/// [`Error::NotALevel`] for `bytes`: our own export fed back in says what it is and which
/// command takes it.
fn not_a_level(path: &Path, bytes: &[u8]) -> Error {
    let ext = path
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase());
    let mesh = bytes.starts_with(b"glTF") || matches!(ext.as_deref(), Some("obj" | "gltf" | "glb"));
    Error::NotALevel {
        file: path.display().to_string(),
        len: bytes.len(),
        first: first_bytes(bytes),
        expected: if mesh { EXPECTED_MESH } else { EXPECTED },
    }
}

/// The content of an opened X-Ray file, read of `path` as `bytes`: a `level` with the files
/// beside it (when `geoms`, the read of its geom files, is given), any other X-Ray file alone.
fn xray_content(
    path: &Path,
    bytes: &[u8],
    opened: levelgeom_xray::files::Opened,
    warnings: &[Warning],
    geoms: Option<ahead::GeomAhead>,
) -> Result<Content> {
    let file = path.display().to_string();
    let levelgeom_xray::files::Opened::Level(level) = opened else {
        return Ok(Content::Xray(Box::new(opened)));
    };
    let mut files = levelgeom_xray::files::LevelFiles {
        level_path: path.to_path_buf(),
        level,
        warnings: warnings.to_vec(),
        geom: None,
        geomx: None,
        cform: None,
        occluders: Default::default(),
        ai_details: Default::default(),
    };
    if let Some(geoms) = geoms {
        // the other files beside it are read while the geom files are (on another thread);
        // the errors are told in the order of reading them one after the other, the geom
        // files' first
        let beside = |e| beside_error(&file, e);
        let others = (|| -> Result<_> {
            Ok((
                levelgeom_xray::files::cform_beside_level(path, bytes).map_err(beside)?,
                levelgeom_xray::files::occluders_beside(path).map_err(beside)?,
                levelgeom_xray::files::ai_details_beside(path).map_err(beside)?,
            ))
        })();
        (files.geom, files.geomx) = geoms.join().map_err(beside)?;
        (files.cform, files.occluders, files.ai_details) = others?;
    }
    Ok(Content::XrayLevel(Box::new(files)))
}

/// Open `bytes`, read of `path`; an X-Ray `level` is paired with the files beside it when
/// `geoms` (the read of its geom files, [`read_level`]) is given.
fn from_bytes(
    path: PathBuf,
    bytes: Vec<u8>,
    geoms: Option<ahead::GeomAhead>,
    limits: Limits,
) -> Result<LevelFile> {
    // shared: a geom file's vertex buffers stay ranges of it instead of copies
    let bytes = std::sync::Arc::new(bytes);
    let file = path.display().to_string();
    let read_err = |source| Error::Read {
        file: file.clone(),
        source,
    };
    // Each engine knows only its own signature (Engine::sniff asks them in turn).
    let engine = Engine::sniff(&bytes);
    let (content, warnings) = match engine {
        Some(Engine::Wad) => {
            let (level, warnings) = levelgeom_wad::Level::read(&bytes).map_err(read_err)?;
            (Content::Wad(Box::new(level)), warnings)
        }
        Some(Engine::Xray) => {
            // `read_shared` is `Some` exactly when the X-Ray sniff says yes
            let read = levelgeom_xray::files::Opened::read_shared(&bytes, limits)
                .ok_or_else(|| not_a_level(&path, &bytes))?;
            let (opened, warnings) = read.map_err(read_err)?;
            let content = xray_content(&path, &bytes, opened, &warnings, geoms)?;
            (content, warnings)
        }
        None => return Err(not_a_level(&path, &bytes)),
    };
    Ok(LevelFile {
        path,
        bytes,
        content,
        warnings,
        limits,
    })
}
