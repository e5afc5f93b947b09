//! One opened level file, whatever its engine, and the calls that dispatch on its engine.
//!
//! The dispatch over the engines is not all here: the engine of a file is told in
//! [`crate::engine`] ([`crate::Engine::sniff`]); the calls of this module match on [`Content`];
//! the other modules of this crate with per-engine calls (`export.rs`, `import.rs`, `info.rs`,
//! `extract.rs`, `replace.rs`, `render.rs`, `batch.rs`) match on it (or on
//! [`crate::Engine`], [`crate::batch::What`]) themselves. A call every engine has names each
//! engine in its match, with no wildcard arm, so a third engine fails to compile there until it
//! is handled; a call of one engine only takes that engine's content with `let … else` and
//! refuses the rest. `docs/development.md` (*Adding an engine*) lists the places.

use std::path::{Path, PathBuf};

use levelgeom_binary::{Problem, Warning};
use levelgeom_scene::Scene;

use crate::error::{Error, Result};
use crate::info::Info;
use crate::options::EngineOptions;
use crate::Format;

/// The parsed content of a file, per engine.
#[derive(Debug)]
pub(crate) enum Content {
    Wad(Box<levelgeom_wad::Level>),
    /// An X-Ray `level` with the geom files beside it.
    XrayLevel(Box<levelgeom_xray::files::LevelFiles>),
    /// Any other X-Ray file.
    Xray(Box<levelgeom_xray::files::Opened>),
}

/// An opened level file: its bytes, the typed model of its engine, the warnings reading gave.
///
/// Made by [`crate::open`], [`crate::open_bytes`] or [`crate::demo`].
#[derive(Debug)]
pub struct LevelFile {
    pub(crate) path: PathBuf,
    /// Shared with the model: a geom file's vertex buffers are ranges of it.
    pub(crate) bytes: std::sync::Arc<Vec<u8>>,
    pub(crate) content: Content,
    pub(crate) warnings: Vec<Warning>,
    /// The allocation limits it was opened with (also for the textures an export decodes).
    pub(crate) limits: levelgeom_binary::Limits,
}

/// What [`LevelFile::check`] found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CheckReport {
    /// Which other files the check looked at, and what it could not check (for the user).
    pub notes: Vec<String>,
    /// The broken rules.
    pub problems: Vec<Problem>,
}

impl LevelFile {
    /// The path the file was opened from (for the demo level, `demo.wad`).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The path as text, as every message names it.
    pub fn display_name(&self) -> String {
        self.path.display().to_string()
    }

    /// The file's bytes as read.
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// What kind of file it is.
    pub fn format(&self) -> Format {
        use levelgeom_xray::Kind;
        match &self.content {
            Content::Wad(_) => Format::Wad,
            Content::XrayLevel(_) => Format::XrayLevel,
            Content::Xray(o) => match o.kind() {
                Kind::Level => Format::XrayLevel,
                Kind::Geom => Format::XrayGeom,
                Kind::Cform => Format::XrayCform,
                Kind::Hom => Format::XrayHom,
                Kind::Som => Format::XraySom,
                Kind::Ai => Format::XrayAi,
                Kind::Details => Format::XrayDetails,
                Kind::Chunks => Format::XrayChunks,
            },
        }
    }

    /// Problems reading noticed that did not stop it.
    pub fn warnings(&self) -> &[Warning] {
        &self.warnings
    }

    /// The typed WAD model, when this is a WAD.
    pub fn wad(&self) -> Option<&levelgeom_wad::Level> {
        match &self.content {
            Content::Wad(l) => Some(l),
            Content::XrayLevel(_) | Content::Xray(_) => None,
        }
    }

    /// Paths of the other files the opened one was paired with (`level.geom` beside `level`).
    pub fn companions(&self) -> Vec<PathBuf> {
        match &self.content {
            Content::XrayLevel(f) => f
                .geom
                .iter()
                .chain(f.geomx.iter())
                .map(|g| g.path.clone())
                .chain(f.cform.iter().map(|c| c.path.clone()))
                .chain(f.occluders.paths())
                .chain(f.ai_details.paths())
                .collect(),
            Content::Wad(_) | Content::Xray(_) => Vec::new(),
        }
    }

    /// A description of the file: chunks with offsets and sizes, and a summary of their content.
    ///
    /// # Errors
    /// Only for X-Ray files whose chunk tree cannot be listed although the file was read.
    pub fn info(&self) -> Result<Info> {
        let file = self.display_name();
        let read_err = |source| Error::Read {
            file: file.clone(),
            source,
        };
        Ok(match &self.content {
            Content::Wad(l) => Info::Wad(levelgeom_wad::info::info(
                l,
                &file,
                self.bytes.len(),
                &self.warnings,
            )),
            Content::XrayLevel(f) => {
                let opened = levelgeom_xray::files::Opened::Level(f.level.clone());
                Info::Xray(
                    levelgeom_xray::info::Info::new(&file, &self.bytes, &opened, &self.warnings)
                        .map_err(read_err)?,
                )
            }
            Content::Xray(o) => Info::Xray(
                levelgeom_xray::info::Info::new(&file, &self.bytes, o, &self.warnings)
                    .map_err(read_err)?,
            ),
        })
    }

    /// Run the format's consistency rules (an X-Ray `level` against the geom files beside it,
    /// and the compiled-level rules of [`levelgeom_xray::check::compiled`]).
    pub fn check(&self) -> CheckReport {
        self.check_inner(None)
    }

    /// [`LevelFile::check`] with options: for an X-Ray level, `opts.textures` also checks that
    /// every texture its shaders name is in the level folder or that folder.
    ///
    /// # Errors
    /// [`Error::OptionDoesNotApply`] for `textures` with a WAD or an X-Ray file that is not a
    /// `level`.
    pub fn check_with(&self, opts: &crate::CheckOptions) -> Result<CheckReport> {
        if opts.textures.is_some() && !matches!(self.content, Content::XrayLevel(_)) {
            return Err(Error::OptionDoesNotApply {
                option: "--textures (X-Ray `level` option)",
                file: self.display_name(),
                format: self.format().description(),
            });
        }
        Ok(self.check_inner(opts.textures.as_deref()))
    }

    fn check_inner(&self, textures: Option<&Path>) -> CheckReport {
        match &self.content {
            Content::Wad(l) => CheckReport {
                notes: Vec::new(),
                problems: levelgeom_wad::check::check(l),
            },
            Content::XrayLevel(f) => {
                let mut r = f.check();
                r.problems.extend(levelgeom_xray::check::compiled(
                    f,
                    &levelgeom_xray::check::CompiledOptions {
                        textures,
                        limits: self.limits,
                    },
                ));
                if let Some(t) = textures {
                    r.notes.push(format!("with textures from {}", t.display()));
                }
                CheckReport {
                    notes: r.notes,
                    problems: r.problems,
                }
            }
            Content::Xray(o) => CheckReport {
                notes: Vec::new(),
                problems: o.check(),
            },
        }
    }

    /// Write the typed model back to bytes (the same bytes when nothing was changed).
    ///
    /// # Errors
    /// A value of the model that does not fit its field ([`Error::Write`]).
    pub fn rebuild(&self) -> Result<Vec<u8>> {
        let r = match &self.content {
            Content::Wad(l) => l.to_bytes(),
            Content::XrayLevel(f) => f.level.to_bytes(),
            Content::Xray(o) => o.to_bytes(),
        };
        r.map_err(|source| Error::Write {
            file: self.display_name(),
            source,
        })
    }

    /// Write `rebuilt` (what [`Self::rebuild`] gave) to `out` in pieces of 1 MiB, comparing
    /// each piece with the same range of the file's own bytes while it is at hand (`rebuild
    /// --verify` in one pass): the first offset where they differ, as
    /// [`crate::first_difference`] would find it (a length difference counts at the shorter
    /// end), or `None` when they are the same bytes.
    ///
    /// # Errors
    /// What writing to `out` gives.
    pub fn write_compared(
        &self,
        rebuilt: &[u8],
        out: &mut dyn std::io::Write,
    ) -> std::io::Result<Option<usize>> {
        const PIECE: usize = 1 << 20;
        let input = self.bytes.as_slice();
        let mut first = None;
        for (k, piece) in rebuilt.chunks(PIECE).enumerate() {
            let at = k * PIECE;
            if first.is_none() {
                let theirs = input.get(at..).unwrap_or_default();
                let theirs = &theirs[..theirs.len().min(piece.len())];
                if theirs != &piece[..theirs.len()] {
                    first = piece
                        .iter()
                        .zip(theirs)
                        .position(|(a, b)| a != b)
                        .map(|i| at + i);
                }
            }
            out.write_all(piece)?;
        }
        if first.is_none() && input.len() != rebuilt.len() {
            first = Some(input.len().min(rebuilt.len()));
        }
        Ok(first)
    }

    /// Name the chunk (path) that holds absolute offset `at` of the file.
    pub fn locate(&self, at: usize) -> Option<String> {
        match &self.content {
            Content::Wad(_) => levelgeom_wad::locate(&self.bytes, at),
            Content::XrayLevel(_) | Content::Xray(_) => levelgeom_xray::locate(&self.bytes, at),
        }
    }

    /// The files an export writes besides the scene's, by engine: for a WAD with a LGHT
    /// chunk, `lights.json` (its lights in export space, [`levelgeom_wad::scene::lights`]);
    /// with `--objects`, `routes.json` (the MAP route nodes' positions, rotations and links,
    /// [`levelgeom_wad::scene::routes`]);
    /// for a WAD with [`levelgeom_wad::scene::SceneOptions::zones`] and a MAP, `zones.json` and
    /// `zones.png` ([`levelgeom_wad::map::zones`]; the picture is left out, with a warning in
    /// the export's scene, for a grid it cannot draw).
    ///
    /// # Errors
    /// [`Error::Encode`] when `zones.png` cannot be encoded.
    pub fn engine_files(&self, opts: &EngineOptions) -> Result<Vec<(String, Vec<u8>)>> {
        if let Content::XrayLevel(f) = &self.content {
            let details = opts.xray.as_ref().is_some_and(|x| x.details);
            let png = f
                .ai_details
                .details
                .as_ref()
                .filter(|_| details)
                .and_then(|(_, d)| levelgeom_xray::details::scene::density_png(d));
            return Ok(png
                .map(|p| vec![("details_density.png".to_string(), p)])
                .unwrap_or_default());
        }
        let Content::Wad(l) = &self.content else {
            return Ok(Vec::new());
        };
        let wad_opts = opts.wad.clone().unwrap_or_default();
        let mut files = Vec::new();
        if l.lght().is_some() {
            let lights = levelgeom_wad::scene::level_lights(l, &wad_opts);
            let doc = serde_json::json!({
                "space": "export: right-handed, +Y up, one unit per grid cell, cells at x in [0, W), z in (-H, 0]",
                "mirror_z": wad_opts.mirror_z,
                "lights": lights,
            });
            let mut text = serde_json::to_string_pretty(&doc).unwrap_or_default();
            text.push('\n');
            files.push(("lights.json".into(), text.into_bytes()));
        }
        if let Some(map) = l.map().filter(|_| wad_opts.objects) {
            let doc = levelgeom_wad::scene::routes::routes_json(map);
            let mut text = serde_json::to_string_pretty(&doc).unwrap_or_default();
            text.push('\n');
            files.push(("routes.json".to_string(), text.into_bytes()));
        }
        if let Some(map) = l.map().filter(|_| wad_opts.zones) {
            files.extend(self.zone_files(map)?);
        }
        Ok(files)
    }

    /// `zones.json` and (when the grid can be drawn) `zones.png` of a MAP.
    fn zone_files(&self, map: &levelgeom_wad::map::Map) -> Result<Vec<(String, Vec<u8>)>> {
        use levelgeom_wad::map::zones;
        let mut text = serde_json::to_string_pretty(&zones::zones_doc(map)).unwrap_or_default();
        text.push('\n');
        let mut files = vec![("zones.json".to_string(), text.into_bytes())];
        if let Some(p) = zones::zones_picture(map) {
            let png = levelgeom_export::png::encode_rgba8(p.width, p.height, &p.rgba).map_err(
                |source| Error::Encode {
                    file: "zones.png".into(),
                    source,
                },
            )?;
            files.push(("zones.png".to_string(), png));
        }
        Ok(files)
    }

    /// Convert to the engine-neutral scene (warnings in [`Scene::warnings`], read warnings
    /// first). The scene is named after the file (WAD) or its folder (X-Ray).
    ///
    /// # Errors
    /// Options of the other engine; a file that holds no exportable level (a `level.geom`
    /// alone, a collision file); an X-Ray build older than 13; a level without geometry.
    pub fn to_scene(&self, opts: &EngineOptions) -> Result<Scene> {
        self.convert(opts, false).map(|(scene, _)| scene)
    }

    /// [`Self::to_scene`] with an X-Ray level's visual geometry hollow
    /// ([`levelgeom_xray::to_hollow_scene`]), and the source that fills it; for other files the
    /// full scene and an empty source.
    ///
    /// # Errors
    /// As [`Self::to_scene`].
    pub(crate) fn to_hollow_scene(
        &self,
        opts: &EngineOptions,
    ) -> Result<(Scene, levelgeom_xray::GeomSource<'_>)> {
        self.convert(opts, true)
    }

    /// [`Self::to_scene`], or with `hollow` [`Self::to_hollow_scene`].
    fn convert(
        &self,
        opts: &EngineOptions,
        hollow: bool,
    ) -> Result<(Scene, levelgeom_xray::GeomSource<'_>)> {
        let file = self.display_name();
        let does_not_apply = |option| Error::OptionDoesNotApply {
            option,
            file: file.clone(),
            format: self.format().description(),
        };
        let mut warnings: Vec<String> = self.warnings.iter().map(ToString::to_string).collect();
        let mut source = levelgeom_xray::GeomSource::none();
        let mut scene = match &self.content {
            Content::Wad(l) => {
                if opts.xray.is_some() {
                    return Err(does_not_apply(
                        "--textures, --lods, --portals, --occluders, --ai, --details and --only (X-Ray \
                         options)",
                    ));
                }
                let mut wad_opts = opts.wad.clone().unwrap_or_default();
                wad_opts.collision |= opts.collision;
                let mut s = levelgeom_wad::scene::to_scene(l, &wad_opts).map_err(|e| {
                    // where the missing chunk would be: before END, or at the end
                    let (offset, path) = l
                        .chunks
                        .iter()
                        .find(|c| c.tag == levelgeom_wad::Tag::END)
                        .and_then(|c| c.offset)
                        .map_or((self.bytes.len(), "file"), |o| (o, "END"));
                    Error::NotConvertible {
                        file: file.clone(),
                        offset: offset as u64,
                        path: path.into(),
                        source: Box::new(e),
                    }
                })?;
                s.name = self
                    .path
                    .file_stem()
                    .map_or_else(|| "level".into(), |s| s.to_string_lossy().into_owned());
                s
            }
            Content::XrayLevel(f) => {
                if opts.wad.is_some() {
                    return Err(does_not_apply(
                        "--objects, --objects-catalogue, --mirror-z and --zones (WAD options)",
                    ));
                }
                let x = opts.xray.clone().unwrap_or_default();
                let so = levelgeom_xray::SceneOptions {
                    name: String::new(),
                    lods: x.lods,
                    vertex_light: x.vertex_light,
                    collision: opts.collision || x.only == Some(crate::XrayOnly::Collision),
                    occluders: x.occluders,
                    ai: x.ai,
                    details: x.details,
                    portals: x.portals,
                    only: x.only,
                    ..levelgeom_xray::SceneOptions::default()
                };
                let made = if hollow {
                    f.to_hollow_scene(&so)
                } else {
                    f.to_scene(&so)
                        .map(|s| (s, levelgeom_xray::GeomSource::none()))
                };
                let (s, from) = made.map_err(|e| match e {
                    levelgeom_xray::files::FilesError::Scene {
                        source: source @ levelgeom_xray::scene::SceneError::Version(_),
                        ..
                    } => Error::NotConvertible {
                        file: file.clone(),
                        // the version is the first field of the header chunk's payload
                        offset: levelgeom_xray::chunks(&self.bytes)
                            .ok()
                            .and_then(|cs| cs.into_iter().find(|c| c.path == "fsL_HEADER"))
                            .map_or(8, |c| c.offset + 8),
                        path: "fsL_HEADER".into(),
                        source: Box::new(source),
                    },
                    other => Error::XrayFiles {
                        file: file.clone(),
                        source: Box::new(other),
                    },
                })?;
                source = from;
                s
            }
            Content::Xray(o) => {
                let message = match o.kind() {
                    levelgeom_xray::Kind::Geom => {
                        "a level.geom holds only vertex and index buffers; export needs the \
                         `level` file beside it (visuals, shaders). Give the level folder or \
                         its `level` file."
                    }
                    levelgeom_xray::Kind::Hom | levelgeom_xray::Kind::Som => {
                        "a level.hom or level.som holds only occluder polygons; export them \
                         with the level: give the level folder or its `level` file and \
                         --occluders."
                    }
                    levelgeom_xray::Kind::Ai | levelgeom_xray::Kind::Details => {
                        "a level.ai or level.details is exported with the level: give the \
                         level folder or its `level` file and --ai or --details."
                    }
                    _ => "export needs an X-Ray `level` file (or its folder)",
                };
                return Err(Error::Unsupported {
                    file,
                    message: message.into(),
                });
            }
        };
        warnings.append(&mut scene.warnings);
        scene.warnings = warnings;
        Ok((scene, source))
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    #[test]
    fn write_compared_writes_the_bytes_and_finds_the_first_difference() {
        let level = crate::open_bytes("full.wad", crate::demo_bytes(true).unwrap()).unwrap();
        let input = level.bytes().to_vec();
        assert!(input.len() > 3 << 20, "several pieces");
        let rebuilt = level.rebuild().unwrap();
        let mut out = Vec::new();
        assert_eq!(level.write_compared(&rebuilt, &mut out).unwrap(), None);
        assert_eq!(out, input);
        let mut changed = rebuilt.clone();
        for at in [0, 5, (1 << 20) - 1, 1 << 20, 2_000_123, input.len() - 1] {
            changed[at] ^= 0x40;
            let mut out = Vec::new();
            let found = level.write_compared(&changed, &mut out).unwrap();
            assert_eq!(found, Some(at));
            assert_eq!(found, crate::first_difference(&input, &changed));
            assert_eq!(out, changed);
            changed[at] ^= 0x40;
        }
        let short = &rebuilt[..rebuilt.len() - 3];
        let found = level.write_compared(short, &mut Vec::new()).unwrap();
        assert_eq!(found, Some(input.len() - 3));
        let mut long = rebuilt.clone();
        long.push(0);
        let found = level.write_compared(&long, &mut Vec::new()).unwrap();
        assert_eq!(found, Some(input.len()));
    }
}
