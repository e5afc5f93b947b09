//! A GLB read with its attributes other than POSITION left in the file ([`Attrs::Positions`]),
//! and read later for the meshes that need them.
//!
//! An importer that compares the file's positions and triangles with what it already has (an
//! X-Ray import of an unedited export) needs nothing else of the meshes it finds unchanged:
//! their normals, tangents, UV sets, colours and custom attributes are never decoded. Every
//! check reading them makes was made when the file was read (element counts, shapes, bytes
//! within their bufferViews, the limits), and its warnings given, so completing a mesh reads
//! what an eager read would have read, and fails only where that would have failed.

use levelgeom_scene::Scene;

use super::{read_document, split_glb, Attrs, Ctx};
use crate::files::NoFiles;
use crate::{ImportError, Imported, MeshOptions};

/// The part of a GLB a deferred read left unread: the file's bytes and its document.
pub struct Deferred {
    bytes: Vec<u8>,
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
            self.bytes.len(),
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
        bytes,
        document,
        file: file.to_string(),
        opts: *opts,
    });
    Ok((imported, deferred))
}

impl Deferred {
    /// Read the attributes left unread of every mesh `m` of `scene` (the scene this read gave)
    /// with `which[m]` true (a mesh past `which` too), into its primitives; the others stay
    /// with positions and triangles only.
    ///
    /// # Errors
    /// [`ImportError::Gltf`] as the eager read would have given it (the checks were made
    /// when the file was read: in practice none).
    pub fn complete(&self, scene: &mut Scene, which: &[bool]) -> Result<(), ImportError> {
        let mut ignored = Vec::new();
        let (_, bin) = split_glb(&self.bytes, &mut ignored).map_err(|(path, message)| {
            ImportError::Gltf {
                file: self.file.clone(),
                path,
                message,
            }
        })?;
        let mut cx = Ctx {
            file: &self.file,
            opts: self.opts,
            triangles: 0,
            vertices: 0,
            buffers: Vec::new(),
            warnings: Vec::new(),
        };
        cx.load_buffers(&self.document, bin, &NoFiles)?;
        for (mesh, out) in self.document.meshes().zip(scene.meshes.iter_mut()) {
            let mi = mesh.index();
            if !which.get(mi).copied().unwrap_or(true) {
                continue;
            }
            // the primitives the read kept, in order (as `Ctx::mesh` skips them)
            let kept = mesh.primitives().filter(|p| {
                p.mode() == gltf::mesh::Mode::Triangles
                    && p.get(&gltf::mesh::Semantic::Positions).is_some()
            });
            for (prim, p) in kept.zip(out.primitives.iter_mut()) {
                let path = format!("meshes[{mi}].primitives[{}]", prim.index());
                let n = p.positions.len();
                cx.attributes(&prim, n, &path, p, Attrs::Rest)?;
            }
        }
        // `cx.warnings` are dropped: the read gave them already
        Ok(())
    }
}
