//! A document's meshes read on the rayon pool, with the serial read's outcome: the meshes in
//! order, their warnings in the order one loop over them gives, and that loop's first error.
//!
//! The one state a mesh's read carries over to the next is the file's triangle and vertex
//! counts ([`Ctx::count_primitive`], checked against [`Limits::max_triangles`]). They are
//! summed first from the JSON alone ([`limit_mesh`]): the meshes before the one whose counts
//! would pass a limit never pass it whatever each reads, so they are read in parallel, each by
//! a context of its own sharing the file's buffers (borrowed, never copied), and their results
//! joined in mesh order; from that mesh on (if any, and if no earlier mesh failed) the meshes
//! are read one after the other with the counts so far, as the serial loop reads them, which
//! gives that mesh's own first error or the limit's. A failed mesh makes the workers skip the
//! meshes after it (the first failure in mesh order is the serial loop's error).

use std::sync::atomic::{AtomicUsize, Ordering};

use gltf::mesh::Semantic;
use levelgeom_scene::Mesh;
use rayon::prelude::*;

use super::deferred::kept;
use super::{Attrs, Ctx};
use crate::{ImportError, Limits};

/// From how many vertices (of the meshes read in parallel) the meshes are read on the pool;
/// a smaller file is read on the calling thread (a few hundred microseconds at most).
const PARALLEL_FROM_VERTICES: u64 = 1 << 15;

/// A primitive's triangles and vertices as the limits count them: its index accessor's count
/// (else its vertices) over 3, its POSITION accessor's count.
pub(super) fn primitive_counts(prim: &gltf::Primitive, pos_acc: &gltf::Accessor) -> (u64, u64) {
    let n = pos_acc.count();
    let tris = match prim.indices() {
        Some(a) => a.count() / 3,
        None => n / 3,
    };
    (tris as u64, n as u64)
}

/// The most triangles and vertices of a file's primitives: `max_triangles`, and three distinct
/// corners per triangle at most (more vertices than that is padding).
pub(super) fn caps(limits: &Limits) -> (u64, u64) {
    let max_triangles = limits.max_triangles as u64;
    (max_triangles, max_triangles.saturating_mul(3))
}

/// A mesh read by a context of its own: the mesh (or the read's error) and its warnings.
type MeshRead = (Result<Mesh, ImportError>, Vec<String>);

/// The file's counts up to a mesh (as [`Ctx::count_primitive`] adds them).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Counts {
    triangles: u64,
    vertices: u64,
}

/// The first mesh of `meshes` whose primitives take the file's counts (`start` before them)
/// past the limits, or their number; and the counts before it.
fn limit_mesh(meshes: &[gltf::Mesh], limits: &Limits, start: Counts) -> (usize, Counts) {
    let (max_triangles, max_vertices) = caps(limits);
    let mut before = start;
    for (mi, mesh) in meshes.iter().enumerate() {
        let mut after = before;
        for prim in kept(mesh) {
            let Some(pos_acc) = prim.get(&Semantic::Positions) else {
                continue;
            };
            let (tris, verts) = primitive_counts(&prim, &pos_acc);
            after.triangles = after.triangles.saturating_add(tris);
            after.vertices = after.vertices.saturating_add(verts);
            if after.triangles > max_triangles || after.vertices > max_vertices {
                return (mi, before);
            }
        }
        before = after;
    }
    (meshes.len(), before)
}

impl<'a> Ctx<'a> {
    /// A context for one mesh read in parallel: the file's buffers and options, no counts, no
    /// warnings (its own, joined after).
    fn worker(&self) -> Ctx<'a> {
        Ctx {
            file: self.file,
            opts: self.opts,
            triangles: 0,
            vertices: 0,
            buffers: self.buffers,
            glb: self.glb,
            warnings: Vec::new(),
        }
    }

    /// Read every mesh of `doc` ([`Ctx::mesh`]) as one loop over them would: the meshes, their
    /// warnings added in mesh order, the counts added, or the loop's first error.
    pub(super) fn meshes(
        &mut self,
        doc: &gltf::Document,
        attrs: Attrs,
    ) -> Result<Vec<Mesh>, ImportError> {
        let meshes: Vec<gltf::Mesh> = doc.meshes().collect();
        let start = Counts {
            triangles: self.triangles,
            vertices: self.vertices,
        };
        let (limit_at, counts) = limit_mesh(&meshes, &self.opts.limits, start);
        let mut out = Vec::with_capacity(meshes.len());
        let parallel = &meshes[..limit_at];
        if parallel.len() > 1 && counts.vertices - start.vertices >= PARALLEL_FROM_VERTICES {
            let failed = AtomicUsize::new(usize::MAX);
            let read: Vec<Option<MeshRead>> = parallel
                .par_iter()
                .enumerate()
                .map(|(i, mesh)| {
                    if failed.load(Ordering::Relaxed) < i {
                        // a mesh before it failed: the read ends there
                        return None;
                    }
                    let mut cx = self.worker();
                    let m = cx.mesh(mesh, attrs);
                    if m.is_err() {
                        failed.fetch_min(i, Ordering::Relaxed);
                    }
                    Some((m, cx.warnings))
                })
                .collect();
            // skipped meshes come after a failed one, which returns first
            for (m, warnings) in read.into_iter().flatten() {
                out.push(m?);
                self.warnings.extend(warnings);
            }
            // the workers counted from zero: the file's counts are the sums before the limit
            self.triangles = counts.triangles;
            self.vertices = counts.vertices;
        } else {
            for mesh in parallel {
                out.push(self.mesh(mesh, attrs)?);
            }
        }
        for mesh in &meshes[limit_at..] {
            out.push(self.mesh(mesh, attrs)?);
        }
        Ok(out)
    }
}
