//! Exporting an opened level into a folder.

use std::path::{Path, PathBuf};

use levelgeom_export::folder::{self, FolderOptions};
use levelgeom_scene::Scene;

use crate::error::Result;
use crate::level::{Content, LevelFile};
use crate::options::ExportOptions;

/// Counts of one root of an exported scene.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RootSummary {
    /// The root node's name.
    pub name: String,
    /// Nodes with a mesh below it (instances counted each time).
    pub meshes: usize,
    /// Vertices of those meshes.
    pub vertices: usize,
    /// Triangles of those meshes.
    pub triangles: usize,
}

/// What [`LevelFile::export`] did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ExportReport {
    /// The exported file and the files it was paired with.
    pub inputs: Vec<PathBuf>,
    /// Every root of the scene with its counts.
    pub roots: Vec<RootSummary>,
    /// Distinct meshes of the scene.
    pub distinct_meshes: usize,
    /// Triangles over the distinct meshes.
    pub distinct_triangles: usize,
    /// Materials of the scene.
    pub materials: usize,
    /// Textures of the scene.
    pub textures: usize,
    /// Textures whose pixels or file the output has (decoded, or found on disk).
    pub textures_found: usize,
    /// Files written, with their sizes.
    pub files: Vec<(PathBuf, u64)>,
    /// Everything worth telling the user, in order (reading, conversion, writers).
    pub warnings: Vec<String>,
}

/// Count the nodes with meshes, vertices and triangles under a root.
pub fn tally(scene: &Scene, root: usize) -> RootSummary {
    let mut s = RootSummary {
        name: scene
            .nodes
            .get(root)
            .map_or("?", |n| n.name.as_str())
            .to_string(),
        ..RootSummary::default()
    };
    let mut stack = vec![root];
    let mut seen = vec![false; scene.nodes.len()];
    while let Some(n) = stack.pop() {
        let Some(node) = scene.nodes.get(n) else {
            continue;
        };
        if std::mem::replace(&mut seen[n], true) {
            continue;
        }
        if let Some(m) = node.mesh.and_then(|m| scene.meshes.get(m)) {
            s.meshes += 1;
            for p in &m.primitives {
                s.vertices += p.vertex_count();
                s.triangles += p.triangle_count();
            }
        }
        stack.extend(node.children.iter().copied());
    }
    s
}

/// The colour-set option given, as the user wrote it: `--colour-set N` (N > 0) before
/// `--all-colour-sets`.
fn colour_set_option(opts: &ExportOptions) -> Option<String> {
    if opts.colour_set > 0 {
        Some(format!("--colour-set {}", opts.colour_set))
    } else if opts.all_colour_sets {
        Some("--all-colour-sets".into())
    } else {
        None
    }
}

impl LevelFile {
    /// True when the file has no vertex-colour sets to choose from: an X-Ray level bakes its
    /// vertex light instead (the attribute `_LIGHT`, or `COLOR_0` with `--vertex-light`).
    fn lacks_colour_sets(&self) -> bool {
        match self.content {
            Content::XrayLevel(_) => true,
            // a WAD has its colour sets; another X-Ray file is refused by the export itself
            Content::Wad(_) | Content::Xray(_) => false,
        }
    }

    /// Refuse the colour-set options of `opts` (`--colour-set N` with N > 0,
    /// `--all-colour-sets`) for a level without vertex-colour sets: the rule of a single
    /// export. [`Self::export`] itself, and so a batch over several engines' levels, refuses
    /// `--colour-set N` there too and only warns of `--all-colour-sets`.
    ///
    /// # Errors
    /// [`crate::Error::NoColourSets`] naming the option.
    pub fn refuse_colour_sets(&self, opts: &ExportOptions) -> Result<()> {
        match colour_set_option(opts) {
            Some(option) if self.lacks_colour_sets() => Err(self.no_colour_sets(option)),
            _ => Ok(()),
        }
    }

    /// The refusal of colour-set option `option` (as the user wrote it): one sentence for the
    /// single export's error and the batch's error or warning.
    fn no_colour_sets(&self, option: String) -> crate::Error {
        crate::Error::NoColourSets {
            option,
            file: self.display_name(),
        }
    }

    /// Convert to a scene and write the chosen formats into `outdir`, all or nothing (see
    /// [`levelgeom_export::folder`]). Inputs are never overwritten.
    ///
    /// # Errors
    /// As [`LevelFile::to_scene`], and [`crate::Error::Folder`] when the folder cannot be
    /// written (it is then left as it was).
    pub fn export(&self, outdir: &Path, opts: &ExportOptions) -> Result<ExportReport> {
        if self.streams(opts) {
            match self.export_scene(outdir, opts, true) {
                // a GLB that needs the vertices up front: the full scene's export instead
                Err(crate::Error::Folder(levelgeom_export::folder::FolderError::Export(
                    levelgeom_export::ExportError::NeedsData { .. },
                ))) => {}
                done => return done,
            }
        }
        self.export_scene(outdir, opts, false)
    }

    /// Whether [`Self::export`] writes from a hollow scene ([`Self::to_hollow_scene`]): an
    /// X-Ray level's glTF-only export without previews. The GLB writer then decodes each
    /// visual's vertices as it writes them, into a few reused buffers, instead of the scene
    /// holding every primitive's vectors until the BIN chunk is written; the files are the
    /// same. Every other export (OBJ, both formats, previews, WAD) converts the full scene.
    fn streams(&self, opts: &ExportOptions) -> bool {
        matches!(self.content, Content::XrayLevel(_))
            && opts.formats.gltf
            && !opts.formats.obj
            && !opts.preview
    }

    /// [`Self::export`] of the full scene, or with `hollow` of the hollow one.
    fn export_scene(
        &self,
        outdir: &Path,
        opts: &ExportOptions,
        hollow: bool,
    ) -> Result<ExportReport> {
        let xray = opts.engine.xray.as_ref();
        if xray.is_some_and(|x| x.lightmaps && x.textures.is_none()) {
            return Err(crate::Error::Unsupported {
                file: self.display_name(),
                message: "--lightmaps needs --textures DIR: lightmaps are decoded like the \
                          other textures, looked up in the level folder and then in DIR"
                    .into(),
            });
        }
        let no_sets = self.lacks_colour_sets();
        if no_sets && opts.colour_set > 0 {
            return Err(self.no_colour_sets(format!("--colour-set {}", opts.colour_set)));
        }
        let (mut scene, source) = if hollow {
            self.to_hollow_scene(&opts.engine)?
        } else {
            (
                self.to_scene(&opts.engine)?,
                levelgeom_xray::GeomSource::none(),
            )
        };
        if no_sets && opts.all_colour_sets {
            let refusal = self.no_colour_sets("--all-colour-sets".into());
            scene
                .warnings
                .push(format!("{refusal} (nothing more written)"));
        }
        let mut further = Vec::new();
        if let (Content::XrayLevel(f), Some(x), Some(dir)) = (
            &self.content,
            xray,
            xray.and_then(|x| x.textures.as_deref()),
        ) {
            let level_dir = f.dir();
            let mut w = levelgeom_xray::load_textures(
                &mut scene,
                &levelgeom_xray::TextureLookup {
                    textures_dir: dir,
                    level_dir: Some(&level_dir),
                    outdir,
                    lightmaps: x.lightmaps,
                    limits: self.limits,
                },
            );
            scene.warnings.append(&mut w);
            further = levelgeom_xray::further_textures(&scene);
        }
        let mut inputs = vec![self.path.clone()];
        inputs.extend(self.companions());
        let mut extra_files = if opts.preview {
            crate::render::previews(&scene)?
        } else {
            Vec::new()
        };
        extra_files.extend(self.engine_files(&opts.engine)?);
        if !opts.formats.obj {
            // the lightmaps no material samples are PNG files beside the export whatever the
            // format (the OBJ writer writes every decoded texture; without it, they are added)
            extra_files.extend(
                levelgeom_export::encode_textures_subset(&scene, Some(&further))
                    .map_err(levelgeom_export::folder::FolderError::Export)?,
            );
        }
        let source =
            (!source.is_empty()).then_some(&source as &dyn levelgeom_scene::PrimitiveSource);
        let written = folder::write_folder_from(
            &mut scene,
            source,
            outdir,
            &FolderOptions {
                gltf: opts.formats.gltf,
                obj: opts.formats.obj,
                colour_set: opts.colour_set,
                all_colour_sets: opts.all_colour_sets,
                force: opts.force,
                protect: inputs.clone(),
                input: self.display_name(),
                extra_files,
            },
        )?;
        let mut warnings = std::mem::take(&mut scene.warnings);
        warnings.extend(written.warnings);
        let report = ExportReport {
            inputs,
            roots: scene.roots.iter().map(|&r| tally(&scene, r)).collect(),
            distinct_meshes: scene.meshes.len(),
            distinct_triangles: scene.mesh_triangle_count(),
            materials: scene.materials.len(),
            textures: scene.textures.len(),
            textures_found: scene
                .textures
                .iter()
                .filter(|t| !matches!(t.source, levelgeom_scene::TextureSource::Unresolved { .. }))
                .count(),
            files: written.files,
            warnings,
        };
        drop_aside(scene);
        Ok(report)
    }
}

/// Drop a scene (or what else an export or import is done with) on a thread of its own:
/// freeing the vectors of thousands of meshes takes milliseconds that an export (its files
/// already written) or an import (its files still to write) need not wait for; a process that
/// ends meanwhile simply hands the memory back. Where no thread can be started, it is dropped
/// here.
pub(crate) fn drop_aside<T: Send + 'static>(value: T) {
    // on failure the closure, and with it the value, is dropped by `spawn` itself
    let _ = std::thread::Builder::new()
        .name("drop scene".into())
        .spawn(move || drop(value));
}
