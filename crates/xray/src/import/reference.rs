//! The base level's reference geometry: per visual, the first node with geometry in the scene
//! [`crate::to_scene`] makes of the base (with LODs), which an import compares the edited
//! file's nodes with.
//!
//! Each visual's world-space copy ([`NodeGeo`], f64 points, normals and indices) is made only
//! when something asks for it: an unchanged node is recognised against the reference scene's
//! own f32 attributes through both world matrices ([`RefGeo::unchanged`]), so an unedited
//! import never makes one.

use levelgeom_scene::Scene;
use rayon::prelude::*;

use super::mapping::{self, NodeGeo};
use super::transform;

/// The reference geometry of every base visual, its world-space copies made on demand.
pub(crate) struct RefGeo {
    /// The base's scene with its world matrices, when the copies are made from it.
    scene: Option<(Scene, Vec<[f32; 16]>)>,
    /// Per visual: its first node with geometry in `scene`.
    node: Vec<Option<usize>>,
    /// Per visual: its world-space copy, once made (or given).
    geo: Vec<Option<NodeGeo>>,
    /// Per visual: the edited node found unchanged against it by [`RefGeo::remember`].
    settled: Vec<Option<Settled>>,
}

/// An edited node found unchanged, with what must still be the same for the answer to hold:
/// its mesh, the mesh's vertex and index counts and its world matrix.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Settled {
    node: usize,
    mesh: Option<usize>,
    counts: (usize, usize),
    world: [f32; 16],
}

impl Settled {
    fn of(edited: &Scene, node: usize, e_worlds: &[[f32; 16]]) -> Option<Settled> {
        let mesh = edited.nodes.get(node)?.mesh;
        let counts = mesh.and_then(|m| edited.meshes.get(m)).map_or((0, 0), |m| {
            m.primitives.iter().fold((0, 0), |(v, i), p| {
                (v + p.positions.len(), i + p.indices.len())
            })
        });
        Some(Settled {
            node,
            mesh,
            counts,
            world: *e_worlds.get(node)?,
        })
    }
}

impl RefGeo {
    /// Copies made beforehand (every visual's).
    pub(crate) fn built(geo: Vec<Option<NodeGeo>>) -> RefGeo {
        RefGeo {
            scene: None,
            node: vec![None; geo.len()],
            settled: vec![None; geo.len()],
            geo,
        }
    }

    /// The reference of `nv` visuals in `scene`: each visual's first node in node order that
    /// is not excluded and has geometry (the node [`mapping::node_geo`] makes a copy of).
    pub(crate) fn of_scene(scene: Scene, nv: usize) -> RefGeo {
        let worlds = scene.world_matrices();
        let excluded = mapping::excluded(&scene);
        let mut node = vec![None; nv];
        for (i, n) in scene.nodes.iter().enumerate() {
            if excluded[i] {
                continue;
            }
            if let Some(v) = mapping::visual_of(n).filter(|&v| v < nv) {
                if node[v].is_none() && mapping::has_geo(&scene, i, &worlds) {
                    node[v] = Some(i);
                }
            }
        }
        RefGeo {
            scene: Some((scene, worlds)),
            node,
            geo: (0..nv).map(|_| None).collect(),
            settled: vec![None; nv],
        }
    }

    /// Number of visuals.
    pub(crate) fn len(&self) -> usize {
        self.geo.len()
    }

    /// True when visual `v` has reference geometry.
    pub(crate) fn has(&self, v: usize) -> bool {
        self.geo.get(v).is_some_and(Option::is_some)
            || self.node.get(v).is_some_and(Option::is_some)
    }

    /// Remember that `node` of `edited` was found unchanged against visual `v`
    /// ([`RefGeo::unchanged`]): asked again about the same node with the same mesh, counts and
    /// world matrix, [`RefGeo::unchanged`] answers without comparing (a scene whose meshes
    /// gained other attributes since, as a deferred read completes them, keeps its answer).
    pub(crate) fn remember(
        &mut self,
        v: usize,
        edited: &Scene,
        node: usize,
        e_worlds: &[[f32; 16]],
    ) {
        if let Some(slot) = self.settled.get_mut(v) {
            *slot = Settled::of(edited, node, e_worlds);
        }
    }

    /// True when `node` of `edited` is unchanged against visual `v`'s reference
    /// ([`transform::unchanged`]'s rule), without making the reference's world-space copy.
    pub(crate) fn unchanged(
        &self,
        v: usize,
        edited: &Scene,
        node: usize,
        e_worlds: &[[f32; 16]],
    ) -> bool {
        if let Some(Some(known)) = self.settled.get(v) {
            if known.node == node && Settled::of(edited, node, e_worlds).as_ref() == Some(known) {
                return true;
            }
        }
        if let Some(Some(r)) = self.geo.get(v) {
            return transform::unchanged(r, edited, node, e_worlds);
        }
        match (&self.scene, self.node.get(v).copied().flatten()) {
            (Some((scene, worlds)), Some(r)) => {
                transform::unchanged_in(scene, r, worlds, edited, node, e_worlds)
            }
            _ => false,
        }
    }

    /// Visual `v`'s world-space copy, made now when it was not yet.
    pub(crate) fn get(&mut self, v: usize) -> Option<&NodeGeo> {
        if let (Some(slot @ None), Some((scene, worlds)), Some(Some(r))) =
            (self.geo.get_mut(v), &self.scene, self.node.get(v))
        {
            *slot = mapping::node_geo(scene, *r, worlds);
        }
        self.geo.get(v)?.as_ref()
    }

    /// Every visual's world-space copy (those not made yet, made in parallel); the reference
    /// scene is dropped.
    pub(crate) fn into_all(self) -> Vec<Option<NodeGeo>> {
        let RefGeo {
            scene, node, geo, ..
        } = self;
        let Some((scene, worlds)) = scene else {
            return geo;
        };
        geo.into_par_iter()
            .zip(node)
            .map(|(g, r)| g.or_else(|| r.and_then(|r| mapping::node_geo(&scene, r, &worlds))))
            .collect()
    }
}
