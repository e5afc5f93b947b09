//! Opening X-Ray files from disk: any one file by its content ([`Opened`]), and a level with the
//! `level.geom`/`level.geomx` beside it ([`LevelFiles`]).
//!
//! Files are told apart by their content ([`crate::kind`]); the siblings of `level` are found
//! by name only to pair them up, and a sibling whose content is not a geom file is an error.
//! Every error names the file, and a read error inside keeps its offset and chunk path.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use levelgeom_binary::{Limits, Problem, ReadError, Reader, Warning, WriteError, Writer};
use levelgeom_scene::Scene;

use crate::cform::Cform;
use crate::chunk::{self, RawChunk};
use crate::geom::Geom;
use crate::level::Level;
use crate::occluders::{Hom, Som};
use crate::scene::{self, SceneError, SceneOptions};
use crate::{check, Kind};

/// Why a file could not be opened; every variant names the file.
#[derive(Debug, thiserror::Error)]
pub enum FilesError {
    /// The file could not be read from disk.
    #[error("cannot read {}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The file's bytes are malformed.
    #[error("{}: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Where (offset, chunk path) and what.
        source: ReadError,
    },
    /// The file is not an X-Ray file at all.
    #[error("{}: not an X-Ray level file", path.display())]
    NotXray {
        /// The file.
        path: PathBuf,
    },
    /// The file is an X-Ray file of another kind than needed.
    #[error("{}: {message}", path.display())]
    WrongKind {
        /// The file.
        path: PathBuf,
        /// What it is and what was needed.
        message: String,
    },
    /// Collision was asked for, but there is no `level.cform` beside the level.
    #[error("no level.cform beside {} (the collision lives there)", level.display())]
    NoCform {
        /// The `level` file.
        level: PathBuf,
    },
    /// Occluders were asked for, but there is neither `level.hom` nor `level.som` beside the
    /// level.
    #[error("no level.hom or level.som beside {} (the occluders live there)", level.display())]
    NoOccluders {
        /// The `level` file.
        level: PathBuf,
    },
    /// AI nodes were asked for, but there is no `level.ai` beside the level.
    #[error("no level.ai beside {} (the AI nodes live there)", level.display())]
    NoAi {
        /// The `level` file.
        level: PathBuf,
    },
    /// Detail objects were asked for, but there is no `level.details` beside the level.
    #[error("no level.details beside {} (the detail objects live there)", level.display())]
    NoDetails {
        /// The `level` file.
        level: PathBuf,
    },
    /// The level has no `level.geom` beside it, which export needs.
    #[error("no level.geom beside {} (the visuals' geometry lives there)", level.display())]
    NoGeom {
        /// The `level` file.
        level: PathBuf,
    },
    /// The conversion to a scene refused the level.
    #[error("{}: {source}", path.display())]
    Scene {
        /// The `level` file.
        path: PathBuf,
        /// Why.
        source: SceneError,
    },
}

/// Any X-Ray file, parsed according to its content.
#[derive(Clone, Debug, PartialEq)]
pub enum Opened {
    /// `level.geom` / `level.geomx`.
    Geom(Geom),
    /// `level`.
    Level(Level),
    /// `level.cform`.
    Cform(Cform),
    /// `level.hom`.
    Hom(Hom),
    /// `level.som`.
    Som(Som),
    /// `level.ai`.
    Ai(crate::ai::LevelAi),
    /// `level.details`.
    Details(crate::details::Details),
    /// Another chunk file, as raw chunks.
    Chunks(Vec<RawChunk>),
}

impl Opened {
    /// Parse `bytes` as what [`crate::kind`] says they are; `None` when they are not X-Ray.
    pub fn read(bytes: &[u8]) -> Option<Result<(Opened, Vec<Warning>), ReadError>> {
        Self::read_with(bytes, Limits::DEFAULT)
    }

    /// [`Self::read`] with explicit allocation limits for compressed chunks.
    pub fn read_with(
        bytes: &[u8],
        limits: Limits,
    ) -> Option<Result<(Opened, Vec<Warning>), ReadError>> {
        Self::read_in(bytes, None, limits)
    }

    /// [`Self::read_with`] of a whole file held in an `Arc`: a geom file's vertex bytes and
    /// indices stay in it ([`Geom::read_shared`]) instead of being copied; same values, same
    /// errors.
    pub fn read_shared(
        file: &Arc<Vec<u8>>,
        limits: Limits,
    ) -> Option<Result<(Opened, Vec<Warning>), ReadError>> {
        Self::read_in(file, Some(file), limits)
    }

    fn read_in(
        bytes: &[u8],
        file: Option<&Arc<Vec<u8>>>,
        limits: Limits,
    ) -> Option<Result<(Opened, Vec<Warning>), ReadError>> {
        let k = crate::kind(bytes)?;
        Some(match k {
            Kind::Geom => match file {
                Some(f) => Geom::read_shared(f, limits),
                None => Geom::read_with(bytes, limits),
            }
            .map(|(g, w)| (Opened::Geom(g), w)),
            Kind::Level => Level::read_with(bytes, limits).map(|(l, w)| (Opened::Level(l), w)),
            Kind::Cform => Cform::read(bytes).map(|(c, w)| (Opened::Cform(c), w)),
            Kind::Hom => Hom::read(bytes).map(|(h, w)| (Opened::Hom(h), w)),
            Kind::Som => Som::read(bytes).map(|(h, w)| (Opened::Som(h), w)),
            Kind::Ai => crate::ai::LevelAi::read(bytes).map(|(a, w)| (Opened::Ai(a), w)),
            Kind::Details => {
                crate::details::Details::read(bytes).map(|(d, w)| (Opened::Details(d), w))
            }
            Kind::Chunks => chunk::read_raw(&mut Reader::with_limits(bytes, limits))
                .map(|c| (Opened::Chunks(c), Vec::new())),
        })
    }

    /// The kind of file.
    pub fn kind(&self) -> Kind {
        match self {
            Opened::Geom(_) => Kind::Geom,
            Opened::Level(_) => Kind::Level,
            Opened::Cform(_) => Kind::Cform,
            Opened::Hom(_) => Kind::Hom,
            Opened::Som(_) => Kind::Som,
            Opened::Ai(_) => Kind::Ai,
            Opened::Details(_) => Kind::Details,
            Opened::Chunks(_) => Kind::Chunks,
        }
    }

    /// Serialise back (byte-exact for an unchanged parse).
    pub fn to_bytes(&self) -> Result<Vec<u8>, WriteError> {
        match self {
            Opened::Geom(g) => g.to_bytes(),
            Opened::Level(l) => l.to_bytes(),
            Opened::Cform(c) => c.to_bytes(),
            Opened::Hom(h) => h.to_bytes(),
            Opened::Som(s) => s.to_bytes(),
            Opened::Ai(a) => Ok(a.to_bytes()),
            Opened::Details(d) => d.to_bytes(),
            Opened::Chunks(cs) => {
                let mut w = Writer::new();
                chunk::write_raw(&mut w, cs)?;
                Ok(w.into_inner())
            }
        }
    }

    /// The consistency rules of the file on its own (a `level` without its geom files: ranges
    /// into them are not checked; see [`LevelFiles::check`]).
    pub fn check(&self) -> Vec<Problem> {
        match self {
            Opened::Geom(g) => check::geom(g),
            // XRLC 4–12: the buffers are inside, so their ranges are checked too
            Opened::Level(l) if l.is_old() => match crate::flat::flatten(l) {
                Ok(f) => check::level(&f.level, Some(&f.geom), None),
                Err(e) => vec![view_problem(&e)],
            },
            Opened::Level(l) => check::level(l, None, None),
            Opened::Cform(c) => check::cform(c),
            Opened::Hom(h) => h.check(),
            Opened::Som(s) => s.check(),
            Opened::Ai(a) => a.check(),
            Opened::Details(d) => d.check(),
            Opened::Chunks(_) => Vec::new(),
        }
    }
}

/// A parsed geom file and where it came from.
#[derive(Clone, Debug, PartialEq)]
pub struct GeomFile {
    /// Its path.
    pub path: PathBuf,
    /// The model.
    pub geom: Geom,
    /// Read warnings.
    pub warnings: Vec<Warning>,
    /// The file's bytes (the geom's vertex buffers are ranges of them): what a writer that
    /// changed nothing gives back.
    pub bytes: std::sync::Arc<Vec<u8>>,
}

/// A `level` with the `level.geom` and `level.geomx` found beside it.
#[derive(Clone, Debug, PartialEq)]
pub struct LevelFiles {
    /// The `level` file's path.
    pub level_path: PathBuf,
    /// The level.
    pub level: Level,
    /// Read warnings of `level`.
    pub warnings: Vec<Warning>,
    /// `level.geom`, when it is beside `level`.
    pub geom: Option<GeomFile>,
    /// `level.geomx`, when it is beside `level`.
    pub geomx: Option<GeomFile>,
    /// `level.cform` (the collision), when it is beside `level`.
    pub cform: Option<CformFile>,
    /// `level.hom` and `level.som`, each when it is beside `level`.
    pub occluders: OccluderFiles,
    /// `level.ai` and `level.details`, each when it is beside `level`.
    pub ai_details: AiDetailsFiles,
}

/// The file `name` in `dir` with its bytes, when present; a file of that name whose content is
/// not of kind `want` is an error naming it.
fn companion(dir: &Path, name: &str, want: Kind) -> Result<Option<(PathBuf, Vec<u8>)>, FilesError> {
    let path = dir.join(name);
    if !path.is_file() {
        return Ok(None);
    }
    let bytes = read_bytes(&path)?;
    match crate::kind(&bytes) {
        Some(k) if k == want => Ok(Some((path, bytes))),
        Some(k) => Err(FilesError::WrongKind {
            path,
            message: format!("is {}, not {}", kind_name(k), kind_name(want)),
        }),
        None => Err(FilesError::NotXray { path }),
    }
}

/// The error of a companion at `path` that does not read.
fn read_err(path: &Path) -> impl FnOnce(ReadError) -> FilesError {
    let path = path.to_path_buf();
    move |source| FilesError::Read { path, source }
}

/// The `level.ai` and `level.details` beside a `level` ([`ai_details_beside`]).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AiDetailsFiles {
    /// `level.ai` (the AI nodes) and its path.
    pub ai: Option<(PathBuf, crate::ai::LevelAi)>,
    /// `level.details` (detail objects and slots) and its path.
    pub details: Option<(PathBuf, crate::details::Details)>,
}

impl AiDetailsFiles {
    /// Their paths (`level.ai` first).
    pub fn paths(&self) -> Vec<PathBuf> {
        let ai = self.ai.iter().map(|a| a.0.clone());
        ai.chain(self.details.iter().map(|d| d.0.clone())).collect()
    }

    /// Their rules, paths prefixed with the file, and a `with PATH` note per file.
    fn check(&self, notes: &mut Vec<String>, problems: &mut Vec<Problem>) {
        let mut add = |path: &Path, ps: Vec<Problem>| {
            notes.push(format!("with {}", path.display()));
            problems.extend(ps.into_iter().map(|mut p| {
                p.path = format!("{}: {}", path.display(), p.path);
                p
            }));
        };
        if let Some((path, a)) = &self.ai {
            add(path, a.check());
        }
        if let Some((path, d)) = &self.details {
            add(path, d.check());
        }
    }
}

/// The `level.ai` and `level.details` beside the `level` file `level_path`, each when present.
/// A file of that name whose content is something else, or that does not read, is an error
/// naming it (and the offset inside).
pub fn ai_details_beside(level_path: &Path) -> Result<AiDetailsFiles, FilesError> {
    let dir = parent(level_path);
    let load = |name: &str, want: Kind| companion(&dir, name, want);
    let ai = match load("level.ai", Kind::Ai)? {
        Some((path, bytes)) => {
            let (a, _) = crate::ai::LevelAi::read(&bytes).map_err(read_err(&path))?;
            Some((path, a))
        }
        None => None,
    };
    let details = match load("level.details", Kind::Details)? {
        Some((path, bytes)) => {
            let (d, _) = crate::details::Details::read(&bytes).map_err(read_err(&path))?;
            Some((path, d))
        }
        None => None,
    };
    Ok(AiDetailsFiles { ai, details })
}

/// The `level.hom` and `level.som` beside a `level` ([`occluders_beside`]).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct OccluderFiles {
    /// `level.hom` (the renderer's occluders) and its path.
    pub hom: Option<(PathBuf, Hom)>,
    /// `level.som` (the sound occluders) and its path.
    pub som: Option<(PathBuf, Som)>,
}

impl OccluderFiles {
    /// Their paths (HOM first).
    pub fn paths(&self) -> Vec<PathBuf> {
        let hom = self.hom.iter().map(|h| h.0.clone());
        hom.chain(self.som.iter().map(|s| s.0.clone())).collect()
    }

    /// Their rules, paths prefixed with the file (`PATH: HOM_CHUNK_POLYGONS/poly[3]`), and a
    /// `with PATH` note per file.
    fn check(&self, notes: &mut Vec<String>, problems: &mut Vec<Problem>) {
        fn tagged(path: &Path, ps: Vec<Problem>) -> Vec<Problem> {
            ps.into_iter()
                .map(|mut p| {
                    p.path = format!("{}: {}", path.display(), p.path);
                    p
                })
                .collect()
        }
        if let Some((path, h)) = &self.hom {
            notes.push(format!("with {}", path.display()));
            problems.extend(tagged(path, h.check()));
        }
        if let Some((path, s)) = &self.som {
            notes.push(format!("with {}", path.display()));
            problems.extend(tagged(path, s.check()));
        }
    }
}

/// The `level.hom` and `level.som` beside the `level` file `level_path`, each when present.
/// A file of that name whose content is something else, or that does not read, is an error
/// naming it (and the offset and chunk inside).
pub fn occluders_beside(level_path: &Path) -> Result<OccluderFiles, FilesError> {
    let dir = parent(level_path);
    let load = |name: &str, want: Kind| companion(&dir, name, want);
    let hom = match load("level.hom", Kind::Hom)? {
        Some((path, bytes)) => {
            let (h, _) = Hom::read(&bytes).map_err(read_err(&path))?;
            Some((path, h))
        }
        None => None,
    };
    let som = match load("level.som", Kind::Som)? {
        Some((path, bytes)) => {
            let (s, _) = Som::read(&bytes).map_err(read_err(&path))?;
            Some((path, s))
        }
        None => None,
    };
    Ok(OccluderFiles { hom, som })
}

/// A parsed `level.cform` and where it came from.
#[derive(Clone, Debug, PartialEq)]
pub struct CformFile {
    /// Its path.
    pub path: PathBuf,
    /// The collision file.
    pub cform: Cform,
}

/// The `level.cform` beside the `level` file `level_path`, when present; without one, the
/// collision that levels of XRLC 4–9 keep inside `level` itself (`fsL_CFORM`, the same layout),
/// whose [`CformFile::path`] is then the `level`'s.
pub fn cform_beside(level_path: &Path) -> Result<Option<CformFile>, FilesError> {
    let path = parent(level_path).join("level.cform");
    if !path.is_file() {
        if !level_path.is_file() {
            return Ok(None);
        }
        return embedded_cform(level_path, &read_bytes(level_path)?);
    }
    cform_file(path)
}

/// [`cform_beside`] of a `level` file whose bytes, `level`, are at hand: the same answer and
/// errors, without reading the `level` file again.
pub fn cform_beside_level(
    level_path: &Path,
    level: &[u8],
) -> Result<Option<CformFile>, FilesError> {
    let path = parent(level_path).join("level.cform");
    if !path.is_file() {
        return embedded_cform(level_path, level);
    }
    cform_file(path)
}

/// The `level.cform` at `path`, read and parsed.
fn cform_file(path: PathBuf) -> Result<Option<CformFile>, FilesError> {
    let bytes = read_bytes(&path)?;
    let (cform, _) = Cform::read(&bytes).map_err(|source| FilesError::Read {
        path: path.clone(),
        source,
    })?;
    Ok(Some(CformFile { path, cform }))
}

/// The `fsL_CFORM` chunk of an XRLC 4–9 `level` at `level_path` (packed or not), whose bytes
/// are `bytes`, parsed ([`crate::level::embedded_cform`]).
fn embedded_cform(level_path: &Path, bytes: &[u8]) -> Result<Option<CformFile>, FilesError> {
    let cform = crate::level::embedded_cform(bytes, Limits::DEFAULT).map_err(|source| {
        FilesError::Read {
            path: level_path.to_path_buf(),
            source,
        }
    })?;
    Ok(cform.map(|cform| CformFile {
        path: level_path.to_path_buf(),
        cform,
    }))
}

/// What [`LevelFiles::check`] found: notes on which files were checked together, then the
/// problems.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckReport {
    /// `with PATH` per sibling used, or a note that geometry ranges were not checked.
    pub notes: Vec<String>,
    /// The problems of `level` (against its siblings) and of `level.geom`.
    pub problems: Vec<Problem>,
}

fn read_bytes(path: &Path) -> Result<Vec<u8>, FilesError> {
    levelgeom_binary::read_file(path).map_err(|source| FilesError::Io {
        path: path.to_path_buf(),
        source,
    })
}

/// The folder a file is in (`.` for a bare file name).
fn parent(path: &Path) -> PathBuf {
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// Read `name` beside the file `level_path` if it exists; its content must be a geom file.
fn sibling(level_path: &Path, name: &str, limits: Limits) -> Result<Option<GeomFile>, FilesError> {
    let path = parent(level_path).join(name);
    if !path.is_file() {
        return Ok(None);
    }
    // shared with the parsed geom: its vertex bytes and indices stay in this buffer, not copied
    let bytes = std::sync::Arc::new(read_bytes(&path)?);
    match crate::kind(&bytes) {
        Some(Kind::Geom) => {}
        Some(k) => {
            return Err(FilesError::WrongKind {
                path,
                message: format!("is {}, not a geom file", kind_name(k)),
            })
        }
        None => return Err(FilesError::NotXray { path }),
    }
    let (geom, warnings) =
        Geom::read_shared(&bytes, limits).map_err(|source| FilesError::Read {
            path: path.clone(),
            source,
        })?;
    Ok(Some(GeomFile {
        path,
        geom,
        warnings,
        bytes,
    }))
}

fn kind_name(k: Kind) -> &'static str {
    match k {
        Kind::Geom => "a level.geom",
        Kind::Level => "a level",
        Kind::Cform => "a level.cform",
        Kind::Hom => "a level.hom",
        Kind::Som => "a level.som",
        Kind::Ai => "a level.ai",
        Kind::Details => "a level.details",
        Kind::Chunks => "an X-Ray chunk file of unknown kind",
    }
}

/// The `level.geom` and `level.geomx` beside the `level` file `level_path`, each when present
/// (for `check` of a `level` file already read).
pub fn siblings(level_path: &Path) -> Result<(Option<GeomFile>, Option<GeomFile>), FilesError> {
    siblings_with(level_path, Limits::DEFAULT)
}

/// [`siblings`] with explicit allocation limits for compressed chunks.
pub fn siblings_with(
    level_path: &Path,
    limits: Limits,
) -> Result<(Option<GeomFile>, Option<GeomFile>), FilesError> {
    Ok((
        sibling(level_path, "level.geom", limits)?,
        sibling(level_path, "level.geomx", limits)?,
    ))
}

impl LevelFiles {
    /// Open a level folder or its `level` file, with the `level.geom`/`level.geomx` beside it
    /// when present.
    pub fn open(path: &Path) -> Result<LevelFiles, FilesError> {
        let level_path = if path.is_dir() {
            path.join("level")
        } else {
            path.to_path_buf()
        };
        let bytes = read_bytes(&level_path)?;
        Self::from_level_bytes(&level_path, &bytes)
    }

    /// Like [`Self::open`] with the bytes of the `level` file already read.
    pub fn from_level_bytes(level_path: &Path, bytes: &[u8]) -> Result<LevelFiles, FilesError> {
        match crate::kind(bytes) {
            Some(Kind::Level) => {}
            Some(Kind::Geom) => {
                return Err(FilesError::WrongKind {
                    path: level_path.to_path_buf(),
                    message: "is a level.geom: it holds only vertex and index buffers; the \
                              visuals and shaders are in the `level` file beside it. Give the \
                              level folder or its `level` file."
                        .into(),
                })
            }
            Some(k) => {
                return Err(FilesError::WrongKind {
                    path: level_path.to_path_buf(),
                    message: format!(
                        "is {}; an X-Ray `level` file (or its folder) is needed",
                        kind_name(k)
                    ),
                })
            }
            None => {
                return Err(FilesError::NotXray {
                    path: level_path.to_path_buf(),
                })
            }
        }
        let (level, warnings) = Level::read(bytes).map_err(|source| FilesError::Read {
            path: level_path.to_path_buf(),
            source,
        })?;
        let (geom, geomx) = siblings(level_path)?;
        let cform = cform_beside(level_path)?;
        let occluders = occluders_beside(level_path)?;
        let ai_details = ai_details_beside(level_path)?;
        Ok(LevelFiles {
            level_path: level_path.to_path_buf(),
            level,
            warnings,
            geom,
            geomx,
            cform,
            occluders,
            ai_details,
        })
    }

    /// The folder the level is in.
    pub fn dir(&self) -> PathBuf {
        parent(&self.level_path)
    }

    /// The level's rules against its siblings, then `level.geom`'s own rules (their paths
    /// prefixed with the geom file, `PATH: fsL_VB/vb[0]`).
    pub fn check(&self) -> CheckReport {
        let mut notes = Vec::new();
        if self.level.is_old() {
            return self.check_old(notes);
        }
        match &self.geom {
            Some(g) => notes.push(format!("with {}", g.path.display())),
            None => notes.push("note: no level.geom beside it; geometry ranges not checked".into()),
        }
        if let Some(g) = &self.geomx {
            notes.push(format!("with {}", g.path.display()));
        }
        let mut problems = check::level(
            &self.level,
            self.geom.as_ref().map(|g| &g.geom),
            self.geomx.as_ref().map(|g| &g.geom),
        );
        if let Some(g) = &self.geom {
            problems.extend(check::geom(&g.geom).into_iter().map(|mut p| {
                p.path = format!("{}: {}", g.path.display(), p.path);
                p
            }));
        }
        if let Some(c) = &self.cform {
            notes.push(format!("with {}", c.path.display()));
            problems.extend(check::cform(&c.cform).into_iter().map(|mut p| {
                p.path = format!("{}: {}", c.path.display(), p.path);
                p
            }));
        }
        self.occluders.check(&mut notes, &mut problems);
        self.ai_details.check(&mut notes, &mut problems);
        CheckReport { notes, problems }
    }

    /// XRLC 4–12: the rules run on the 13/14-shaped view ([`crate::flat`]) of the buffers inside
    /// `level` (paths name the view's chunks, e.g. `OGF_GCONTAINER` for a visual's
    /// `OGF_VCONTAINER` + `OGF_ICONTAINER`).
    fn check_old(&self, mut notes: Vec<String>) -> CheckReport {
        let v = self.level.version().unwrap_or(0);
        notes.push(format!(
            "XRLC {v}: geometry inside {} (no level.geom)",
            self.level_path.display()
        ));
        let flat = crate::flat::flatten(&self.level);
        let mut problems = match &flat {
            Ok(f) => check::level(&f.level, Some(&f.geom), None),
            Err(e) => vec![view_problem(e)],
        };
        problems.extend(check::old_header(&self.level));
        if let Ok(f) = &flat {
            problems.extend(
                check::geom(&f.geom)
                    .into_iter()
                    .filter(|p| p.path != "file"),
            );
        }
        if let Some(c) = &self.cform {
            let embedded = c.path == self.level_path;
            notes.push(if embedded {
                "with the collision inside it (fsL_CFORM)".to_string()
            } else {
                format!("with {}", c.path.display())
            });
            problems.extend(check::cform(&c.cform).into_iter().map(|mut p| {
                p.path = if embedded {
                    format!("fsL_CFORM/{}", p.path)
                } else {
                    format!("{}: {}", c.path.display(), p.path)
                };
                p
            }));
        }
        self.occluders.check(&mut notes, &mut problems);
        self.ai_details.check(&mut notes, &mut problems);
        CheckReport { notes, problems }
    }

    /// Convert to a scene (needs `level.geom` from XRLC 13 on; older levels hold their
    /// geometry themselves; the scene name defaults to the folder's name when `opts.name` is
    /// empty).
    pub fn to_scene(&self, opts: &SceneOptions) -> Result<Scene, FilesError> {
        self.convert(opts, false).map(|(scene, _)| scene)
    }

    /// [`Self::to_scene`] with the visuals' geometry hollow ([`scene::to_hollow_scene`]): the
    /// returned source fills it; the collision, occluders, AI and details trees are full.
    ///
    /// # Errors
    /// As [`Self::to_scene`].
    pub fn to_hollow_scene(
        &self,
        opts: &SceneOptions,
    ) -> Result<(Scene, scene::GeomSource<'_>), FilesError> {
        self.convert(opts, true)
    }

    /// [`Self::to_scene`], or with `hollow` [`Self::to_hollow_scene`].
    fn convert(
        &self,
        opts: &SceneOptions,
        hollow: bool,
    ) -> Result<(Scene, scene::GeomSource<'_>), FilesError> {
        let mut opts = opts.clone();
        if opts.name.is_empty() {
            opts.name = self
                .dir()
                .file_name()
                .map_or("level".into(), |n| n.to_string_lossy().into_owned());
        }
        let scene_error = |source| FilesError::Scene {
            path: self.level_path.clone(),
            source,
        };
        let (mut s, from) = match &self.geom {
            Some(g) if hollow => {
                scene::to_hollow_scene(&self.level, &g.geom, &opts).map_err(scene_error)?
            }
            Some(g) => (
                scene::to_scene(&self.level, &g.geom, &opts).map_err(scene_error)?,
                scene::GeomSource::none(),
            ),
            // the geometry is inside `level` (read through a view made for the conversion)
            None if self.level.is_old() => {
                let empty = Geom { chunks: Vec::new() };
                (
                    scene::to_scene(&self.level, &empty, &opts).map_err(scene_error)?,
                    scene::GeomSource::none(),
                )
            }
            None => {
                return Err(FilesError::NoGeom {
                    level: self.level_path.clone(),
                })
            }
        };
        if opts.collision {
            let c = self.cform.as_ref().ok_or_else(|| FilesError::NoCform {
                level: self.level_path.clone(),
            })?;
            let mut w = crate::collision::add_collision(&mut s, &c.cform);
            s.warnings.append(&mut w);
        }
        if opts.occluders {
            let o = &self.occluders;
            if o.hom.is_none() && o.som.is_none() {
                return Err(FilesError::NoOccluders {
                    level: self.level_path.clone(),
                });
            }
            let mut w = crate::occluders::scene::add_occluders(
                &mut s,
                o.hom.as_ref().map(|h| &h.1),
                o.som.as_ref().map(|s| &s.1),
            );
            s.warnings.append(&mut w);
        }
        if opts.ai {
            let (_, a) = self
                .ai_details
                .ai
                .as_ref()
                .ok_or_else(|| FilesError::NoAi {
                    level: self.level_path.clone(),
                })?;
            let mut w = crate::ai::scene::add_ai(&mut s, a);
            s.warnings.append(&mut w);
        }
        if opts.details {
            let (_, d) = self
                .ai_details
                .details
                .as_ref()
                .ok_or_else(|| FilesError::NoDetails {
                    level: self.level_path.clone(),
                })?;
            let mut w = crate::details::scene::add_details(&mut s, d);
            s.warnings.append(&mut w);
        }
        Ok((s, from))
    }
}

/// The problem that an old level has no 13/14-shaped view to check
/// ([`crate::flat::flatten`]), at its shader table.
fn view_problem(e: &WriteError) -> Problem {
    Problem::new(
        "fsL_SHADERS",
        format!("no XRLC 13/14 view of the level: {e}"),
    )
}
