//! A GLB read with its attributes other than POSITION left in the file ([`Attrs::Positions`]),
//! and read later for the meshes that need them.
//!
//! An importer that compares the file's positions and triangles with what it already has (an
//! X-Ray import of an unedited export) needs nothing else of the meshes it finds unchanged:
//! their normals, tangents, UV sets, colours and custom attributes are never decoded. Every
//! check reading them makes was made when the file was read (element counts, shapes, bytes
//! within their bufferViews, the limits), and its warnings given, so completing a mesh reads
//! what an eager read would have read, and fails only where that would have failed.

use gltf::mesh::{Mode, Semantic};
use levelgeom_scene::Scene;

use super::partial::PartialGlb;
use super::{
    attrs_of, build, direct, load_buffers, parse, read_document, split_glb, Attrs, Ctx, FileBytes,
};
use crate::files::NoFiles;
use crate::{ImportError, Imported, MeshOptions};

/// The file's bytes: all of them, or a [`PartialGlb`] read as far as it is used.
enum Glb {
    Whole(Vec<u8>),
    Partial(PartialGlb),
}

impl Glb {
    fn bytes(&self) -> &[u8] {
        match self {
            Glb::Whole(b) => b,
            Glb::Partial(p) => p.bytes(),
        }
    }
}

/// The part of a GLB a deferred read left unread: the file's bytes and its document.
pub struct Deferred {
    glb: Glb,
    document: gltf::Document,
    file: String,
    opts: MeshOptions,
}

impl std::fmt::Debug for Deferred {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Deferred({}: {} bytes, {} meshes)",
            self.file,
            self.glb.bytes().len(),
            self.document.meshes().len()
        )
    }
}

/// Read glTF `bytes` as [`crate::read_gltf_with`] does, but for a GLB whose buffers are all its
/// BIN chunk read only the POSITION of each primitive (and its indices): the other attributes
/// are read by [`Deferred::complete`]. Other files are read whole (`None`).
///
/// # Errors
/// As [`crate::read_gltf_with`].
pub fn read_gltf_deferred(
    bytes: Vec<u8>,
    file: &str,
    files: &dyn crate::FileSource,
    opts: &MeshOptions,
) -> Result<(Imported, Option<Deferred>), ImportError> {
    let (imported, document) = read_document(&bytes, file, files, opts, true)?;
    let deferred = document.map(|document| Deferred {
        glb: Glb::Whole(bytes),
        document,
        file: file.to_string(),
        opts: *opts,
    });
    Ok((imported, deferred))
}

/// [`read_gltf_deferred`] of a GLB read in part ([`PartialGlb`]): the positions and indices
/// are read now (those [`direct`] names straight from the file into the scene's vectors, the
/// others' bufferViews into place first), the other attributes' bufferViews by
/// [`Deferred::complete`] for the meshes it completes.
pub(crate) fn read_partial(
    mut glb: PartialGlb,
    file: &str,
    opts: &MeshOptions,
) -> Result<(Imported, Option<Deferred>), ImportError> {
    let io = |e: std::io::Error| ImportError::Io {
        file: file.to_string(),
        source: e,
    };
    let (document, warnings) = parse(glb.bytes(), file)?;
    let attrs = attrs_of(&document, glb.bytes(), true);
    match views(&document, &|_| true, attrs) {
        Some(v) => glb.fetch(v).map_err(io)?,
        None => glb.fetch_all().map_err(io)?,
    }
    let imported = build(
        &document,
        FileBytes::Partial(&glb),
        file,
        &NoFiles,
        opts,
        attrs,
        warnings,
    )?;
    let deferred = (attrs == Attrs::Positions).then(|| Deferred {
        glb: Glb::Partial(glb),
        document,
        file: file.to_string(),
        opts: *opts,
    });
    Ok((imported, deferred))
}

/// The bufferViews `(offset, length)` holding what a read with `attrs` reads of the primitives
/// [`Ctx::mesh`] keeps of the meshes `which` names: POSITION and the indices with
/// [`Attrs::Positions`], the other attributes with [`Attrs::Rest`], all with [`Attrs::All`];
/// but for the POSITION and index accessors read straight from the file ([`direct`]).
/// `None` (read all) when an accessor has a sparse part (whose views these are not).
fn views(
    doc: &gltf::Document,
    which: &dyn Fn(usize) -> bool,
    attrs: Attrs,
) -> Option<Vec<(usize, usize)>> {
    if doc.accessors().any(|a| a.sparse().is_some()) {
        return None;
    }
    let view = |a: &gltf::Accessor| a.view().map(|v| (v.offset(), v.length()));
    let mut out = Vec::new();
    for mesh in doc.meshes().filter(|m| which(m.index())) {
        for prim in kept(&mesh) {
            if attrs != Attrs::Rest {
                let fetched = prim.indices().filter(|a| direct::indices(a).is_none());
                out.extend(fetched.as_ref().and_then(view));
            }
            for (sem, acc) in prim.attributes() {
                let position = sem == Semantic::Positions;
                // a POSITION read straight from the file is not fetched
                let wanted = match attrs {
                    Attrs::All => !position || !direct::position(&acc),
                    Attrs::Positions => position && !direct::position(&acc),
                    Attrs::Rest => !position,
                };
                if wanted {
                    out.extend(view(&acc));
                }
            }
        }
    }
    Some(out)
}

/// The primitives of `mesh` a read keeps, in order (as [`Ctx::mesh`] skips them).
pub(super) fn kept<'m>(mesh: &gltf::Mesh<'m>) -> impl Iterator<Item = gltf::Primitive<'m>> {
    mesh.primitives()
        .filter(|p| p.mode() == Mode::Triangles && p.get(&Semantic::Positions).is_some())
}

impl Deferred {
    /// Read the attributes left unread of every mesh `m` of `scene` (the scene this read gave)
    /// with `which[m]` true (a mesh past `which` too), into its primitives; the others stay
    /// with positions and triangles only.
    ///
    /// # Errors
    /// [`ImportError::Gltf`] as the eager read would have given it (the checks were made
    /// when the file was read: in practice none); [`ImportError::Io`] reading the file.
    pub fn complete(&mut self, scene: &mut Scene, which: &[bool]) -> Result<(), ImportError> {
        let wanted = |m: usize| which.get(m).copied().unwrap_or(true);
        if let Glb::Partial(glb) = &mut self.glb {
            let io = |e: std::io::Error| ImportError::Io {
                file: self.file.clone(),
                source: e,
            };
            match views(&self.document, &wanted, Attrs::Rest) {
                Some(v) => glb.fetch(v).map_err(io)?,
                None => glb.fetch_all().map_err(io)?,
            }
        }
        let mut ignored = Vec::new();
        let (_, bin) = split_glb(self.glb.bytes(), &mut ignored).map_err(|(path, message)| {
            ImportError::Gltf {
                file: self.file.clone(),
                path,
                message,
            }
        })?;
        let buffers = load_buffers(&self.document, bin, &self.file, &NoFiles)?;
        let mut cx = Ctx {
            file: &self.file,
            opts: self.opts,
            triangles: 0,
            vertices: 0,
            buffers: &buffers,
            // the positions and indices are not read again
            glb: None,
            warnings: Vec::new(),
        };
        for (mesh, out) in self.document.meshes().zip(scene.meshes.iter_mut()) {
            let mi = mesh.index();
            if !wanted(mi) {
                continue;
            }
            for (prim, p) in kept(&mesh).zip(out.primitives.iter_mut()) {
                let path = format!("meshes[{mi}].primitives[{}]", prim.index());
                let n = p.positions.len();
                cx.attributes(&prim, n, &path, p, Attrs::Rest)?;
            }
        }
        // `cx.warnings` are dropped: the read gave them already
        Ok(())
    }
}
