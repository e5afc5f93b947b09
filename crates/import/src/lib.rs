//! Readers of edited meshes — Wavefront OBJ/MTL and glTF 2.0 (`.gltf` + `.bin`, `.glb`) —
//! into the engine-neutral [`levelgeom_scene::Scene`]. This is the engine-neutral half of
//! importing: an engine's importer takes the scene (usually through [`world_triangles`]) and
//! turns it back into its own file model.
//!
//! | function | input |
//! |---|---|
//! | [`read_mesh`] | a file on disk; the format from its content (GLB magic, JSON) or extension |
//! | [`read_obj`] | OBJ text in memory, MTL libraries from a [`FileSource`] |
//! | [`read_gltf`] | glTF JSON or GLB bytes in memory, external buffers/images from a [`FileSource`] |
//! | [`world_triangles`] | the scene flattened to world-space triangles |
//!
//! Bad input never panics: it is an [`ImportError`] naming the file and, where the format has
//! one, the line (OBJ) or the JSON path / accessor index (glTF). Things that can be read but
//! not represented are skipped with a warning in [`Imported::warnings`]. Counts are checked
//! against the data before anything is allocated for them.
//!
//! # Node tree: OBJ
//! One root node named after the file stem (`collision.obj` → `collision`, identity matrix),
//! whose children are one node per OBJ object or group, in file order, named exactly as written
//! after `o`/`g` (OBJ makes no difference between them, nor does this reader: an `o A` followed
//! by `g B` gives a node `B`; faces before any `o`/`g` go to `unnamed_object`). Each node has
//! its own mesh (same name), one primitive per material (`usemtl` name; faces without one get
//! no material). Consecutive runs of the same name are one node. Positions are as written (the
//! project's OBJ writer bakes world space), node matrices are identity.
//!
//! Per vertex: `v x y z r g b` colours → `colors[0]` with alpha 1; `vt u v` → `uvs[0]` =
//! `[u, 1 − v]` (OBJ's origin is bottom-left, the scene's top-left: the inverse of the
//! writer); `vn` → normals as written. Polygons are triangulated as fans; point and line
//! elements are skipped with a warning. Vertices are the distinct `v/vt/vn` triples of a
//! primitive (tobj's `single_index`), so shared corners stay shared.
//!
//! Materials are deduplicated by name in order of first `usemtl`. The MTL libraries named by
//! `mtllib` are read when the [`FileSource`] has them (a missing or broken one is a warning,
//! and the materials keep their names with default values): `Kd` + `d` → base colour, `map_Kd`
//! → a texture with [`TextureSource::External`] (`uri` as written, one texture per distinct
//! path), `illum 0` → unlit, `map_d` or `d` < 1 → alpha blend.
//!
//! # Node tree: glTF
//! Nodes, meshes, materials and textures keep the file's indices (scene node `i` is glTF node
//! `i`). Node names as written (`node_{i}` when absent), mesh names likewise (`mesh_{i}`),
//! material names (`material_{i}`), texture names from the texture, else its image, else
//! `texture_{i}`. Node `matrix`, or TRS composed as `T · R · S`, as the column-major
//! [`Node::matrix`](levelgeom_scene::Node::matrix); children as in the file. Roots: the
//! default scene's nodes, else scene 0's, else every node without a parent. Node and material
//! `extras` that are JSON objects keep their string, number and boolean values as
//! `(key, text)` pairs; `"hidden": true` (or `"true"`) sets [`Node::hidden`](levelgeom_scene::Node::hidden) instead. Primitives:
//! `POSITION`, `NORMAL`, `TANGENT`, `TEXCOORD_n`, `COLOR_n` (RGB or RGBA; float, normalized
//! u8/u16; stored as RGBA floats), custom `_NAME` scalar attributes (as written, with the `_`),
//! indices u8/u16/u32 or none (sequential). Only mode TRIANGLES; other modes (the LINES of
//! levelgeom's own `routes` export among them) are skipped with a warning. Sparse accessors are applied. Skins, animations, morph targets and
//! cameras are ignored with a warning.
//!
//! Images: a `uri` image becomes [`TextureSource::External`] with the percent-decoded uri (it
//! is not read); an embedded PNG (bufferView, or a `data:` uri) is decoded into
//! [`TextureSource::Rgba8`]; an image that cannot be decoded is a warning and becomes
//! [`TextureSource::Unresolved`].
//!
//! # Colour space
//! The readers return colour values exactly as the file holds them: OBJ `v x y z r g b`
//! floats, glTF `COLOR_n` (normalized integers divided by 255 / 65535) and
//! `baseColorFactor`, without any sRGB ↔ linear conversion. glTF says `COLOR_n` is linear, and
//! the project's glTF writer stores the scene's display values converted to linear
//! ([`levelgeom_scene::colour::srgb_to_linear`]); OBJ colours are display values (the writer
//! keeps them, Blender reads them as sRGB). The caller, which knows the format
//! ([`detect_format`]), applies the inverse — `levelgeom_core`'s import converts glTF colours
//! back with [`levelgeom_scene::colour::linear_to_srgb`] — and this crate does not guess.
//!
//! [`TextureSource::External`]: levelgeom_scene::TextureSource::External
//! [`TextureSource::Rgba8`]: levelgeom_scene::TextureSource::Rgba8
//! [`TextureSource::Unresolved`]: levelgeom_scene::TextureSource::Unresolved
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod files;
mod gltf_read;
mod obj;
mod world;

use std::path::Path;

use levelgeom_scene::Scene;

pub use files::{
    read_inside, safe_relative, FileSource, Folder, MemoryFiles, NoFiles, TrackedFolder,
};
pub use gltf_read::{read_gltf, read_gltf_deferred, read_gltf_with, Deferred};
pub use levelgeom_binary::Limits;
pub use obj::{read_obj, read_obj_with, FaceLines};
pub use world::{
    count_world_triangles, world_triangles, world_triangles_limited, world_triangles_under,
    TooManyTriangles, Triangle,
};

/// How the readers read: the allocation [`Limits`] and whether embedded images are decoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MeshOptions {
    /// Allocation limits (file and buffer bytes, triangles, image pixels).
    pub limits: Limits,
    /// Decode embedded PNG images into pixels ([`TextureSource::Rgba8`]). An importer that
    /// does not use the pixels passes `false`: the image is then never decoded and becomes
    /// [`TextureSource::Unresolved`] under its name. When decoding, the PNG header's size is
    /// checked against [`Limits::max_texture_pixels`] first.
    pub decode_images: bool,
}

impl Default for MeshOptions {
    fn default() -> MeshOptions {
        MeshOptions {
            limits: Limits::DEFAULT,
            decode_images: true,
        }
    }
}

/// What a reader produced: the scene and what it had to skip or could not resolve.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Imported {
    /// The scene (its own `warnings` field is left empty; see [`Imported::warnings`]).
    pub scene: Scene,
    /// Things skipped or not resolved, one message each, for the user.
    pub warnings: Vec<String>,
    /// The real paths of the files read from disk: the mesh file and the companions it named
    /// (MTL libraries, glTF buffers), so that no output is written over one of them. Empty for
    /// the in-memory readers.
    pub inputs: Vec<std::path::PathBuf>,
    /// For an OBJ file, the line of each triangle's `f` statement
    /// ([`FaceLines::line`]); `None` for glTF (whose errors name nodes and accessors) and when
    /// tobj's triangles could not be matched to the faces.
    pub obj_lines: Option<FaceLines>,
}

/// A file that could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    /// The file (or one it needs) could not be read from disk.
    #[error("{file}: {source}")]
    Io {
        /// The file.
        file: String,
        /// The operating system's error.
        source: std::io::Error,
    },
    /// Malformed OBJ.
    #[error("{file}: {}{message}", line.map(|l| format!("line {l}: ")).unwrap_or_default())]
    Obj {
        /// The file.
        file: String,
        /// 1-based line, when the error belongs to one.
        line: Option<usize>,
        /// What is wrong.
        message: String,
    },
    /// Malformed glTF or GLB.
    #[error("{file}: {path}: {message}")]
    Gltf {
        /// The file.
        file: String,
        /// Where: a JSON path (`meshes[0].primitives[1].attributes.POSITION`), an accessor
        /// (`accessors[3]`), or a GLB part (`GLB header`, `GLB chunk 1 at 0x...`).
        path: String,
        /// What is wrong.
        message: String,
    },
    /// A count read from the file is over one of the [`Limits`]: refused before allocating.
    #[error("{file}: {at}: {what} {count} is more than the limit of {limit} (Limits::{field})")]
    Limit {
        /// The file.
        file: String,
        /// Where the count was read (OBJ line, glTF accessor or primitive path).
        at: String,
        /// What was counted (`triangles`, `vertices`, `decoded bytes`, `image pixels`).
        what: String,
        /// The count.
        count: u64,
        /// The limit.
        limit: u64,
        /// The [`Limits`] field.
        field: &'static str,
    },
    /// Neither the content nor the extension says which format it is.
    #[error("{file}: not an OBJ or glTF/GLB file (extension {extension:?})")]
    UnknownFormat {
        /// The file.
        file: String,
        /// Its extension.
        extension: String,
    },
}

/// The formats [`read_mesh`] knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MeshFormat {
    /// Wavefront OBJ.
    Obj,
    /// glTF 2.0, JSON or binary (GLB).
    Gltf,
}

/// Which reader fits: GLB by its magic `glTF`; else by the extension (`.obj`, `.gltf`,
/// `.glb`, any case); else JSON (first non-blank byte `{`) is glTF and text whose first
/// keyword is an OBJ one (`v`, `vt`, `vn`, `f`, `o`, `g`, `mtllib`, `usemtl`, `s`, `#`) is OBJ.
pub fn detect_format(bytes: &[u8], file_name: &str) -> Option<MeshFormat> {
    if bytes.starts_with(b"glTF") {
        return Some(MeshFormat::Gltf);
    }
    let ext = Path::new(file_name)
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    match ext.as_str() {
        "obj" => return Some(MeshFormat::Obj),
        "gltf" | "glb" => return Some(MeshFormat::Gltf),
        _ => {}
    }
    let start = bytes.iter().position(|b| !b.is_ascii_whitespace())?;
    if bytes[start] == b'{' {
        return Some(MeshFormat::Gltf);
    }
    let word: Vec<u8> = bytes[start..]
        .iter()
        .take_while(|b| !b.is_ascii_whitespace())
        .copied()
        .collect();
    let obj_words: [&[u8]; 10] = [
        b"v", b"vt", b"vn", b"f", b"o", b"g", b"mtllib", b"usemtl", b"s", b"#",
    ];
    (obj_words.contains(&word.as_slice()) || word.starts_with(b"#")).then_some(MeshFormat::Obj)
}

/// Read a mesh file from disk, choosing the reader with [`detect_format`]. Companion files
/// (MTL, `.bin`, images) are looked up relative to the file's folder, never outside it.
/// [`read_mesh_with`] with the default [`MeshOptions`].
///
/// # Errors
/// [`ImportError`]: unreadable file, unknown format, malformed content.
pub fn read_mesh(path: &Path) -> Result<Imported, ImportError> {
    read_mesh_with(path, &MeshOptions::default())
}

/// Read a mesh file from disk with `opts`. The file and its companions must be regular files
/// (a FIFO, device or socket is refused before it is opened) of at most
/// [`Limits::max_decoded`] bytes; companions are read only when their real path (symbolic
/// links followed) lies inside the real path of the mesh file's folder. [`Imported::inputs`]
/// lists the real paths read.
///
/// # Errors
/// [`ImportError`]: unreadable file, unknown format, malformed content, a count over a limit.
pub fn read_mesh_with(path: &Path, opts: &MeshOptions) -> Result<Imported, ImportError> {
    read_mesh_file(path, opts, false).map(|(imported, _)| imported)
}

/// [`read_mesh_with`], a GLB whose buffers are all its BIN chunk read with its attributes
/// other than POSITION left for [`Deferred::complete`] ([`read_gltf_deferred`]); other files
/// are read whole (`None`).
///
/// # Errors
/// As [`read_mesh_with`].
pub fn read_mesh_deferred(
    path: &Path,
    opts: &MeshOptions,
) -> Result<(Imported, Option<Deferred>), ImportError> {
    read_mesh_file(path, opts, true)
}

/// [`read_mesh_with`], deferring as [`read_mesh_deferred`] does when `defer`.
fn read_mesh_file(
    path: &Path,
    opts: &MeshOptions,
    defer: bool,
) -> Result<(Imported, Option<Deferred>), ImportError> {
    let file = path.display().to_string();
    let io = |source| ImportError::Io {
        file: file.clone(),
        source,
    };
    let cap = opts.limits.max_decoded as u64;
    let f = levelgeom_binary::RegularFile::open(path).map_err(io)?;
    f.check_cap(cap).map_err(io)?;
    // a deferred read of a plain GLB reads only the parts it uses (images are never read
    // then: their bytes are not among them)
    let f = if defer && !opts.decode_images {
        match gltf_read::PartialGlb::open(f).map_err(io)? {
            Ok(glb) => {
                let real = std::fs::canonicalize(path).map_err(io)?;
                let (mut imported, deferred) = gltf_read::read_partial(glb, &file, opts)?;
                imported.inputs.push(real);
                return Ok((imported, deferred));
            }
            Err(f) => f,
        }
    } else {
        f
    };
    let bytes = f.read_all().map_err(io)?;
    let real = std::fs::canonicalize(path).map_err(io)?;
    let folder = TrackedFolder::new(
        path.parent()
            .filter(|p| !p.as_os_str().is_empty())
            .map(Path::to_path_buf)
            .unwrap_or_else(|| ".".into()),
        cap,
    );
    let result = match detect_format(&bytes, &file) {
        Some(MeshFormat::Obj) => read_obj_with(&bytes, &file, &folder, opts).map(|i| (i, None)),
        Some(MeshFormat::Gltf) if defer => read_gltf_deferred(bytes, &file, &folder, opts),
        Some(MeshFormat::Gltf) => read_gltf_with(&bytes, &file, &folder, opts).map(|i| (i, None)),
        None => Err(ImportError::UnknownFormat {
            extension: path
                .extension()
                .map(|e| e.to_string_lossy().into_owned())
                .unwrap_or_default(),
            file,
        }),
    };
    let (mut imported, deferred) = result?;
    imported.inputs.push(real);
    imported.inputs.extend(folder.into_read());
    Ok((imported, deferred))
}
