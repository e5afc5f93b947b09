//! The base level's reference geometry: per visual, the first node with geometry in the scene
//! [`crate::to_scene`] makes of the base (with LODs), which an import compares the edited
//! file's nodes with.
//!
//! The scene is the hollow one ([`crate::scene::to_hollow_scene`]): none of its visuals'
//! vertices is decoded or held up front (LOD billboards excepted, which are small). A node is
//! compared by filling its mesh's positions and triangles into buffers of the thread that
//! asks ([`Buffers`], reused from one visual to the next) and applying
//! [`transform::unchanged_against`], the rule the full scene's mesh would be compared by, on
//! the same values: an unedited import decodes each visual's positions and triangles once
//! more, and holds none of them past its comparison. Each visual's world-space copy
//! ([`NodeGeo`], f64 points, normals and indices) is made from a filled copy of its mesh only
//! when something asks for it (a moved, edited or copied visual; the collision of an edited
//! level).

use levelgeom_scene::{Mesh, Primitive, Scene};
use rayon::prelude::*;

use super::mapping::{self, NodeGeo};
use super::transform;
use crate::scene::GeomSource;

/// The reference geometry of every base visual, its world-space copies made on demand.
pub(crate) struct RefGeo<'b> {
    /// The base's scene with its world matrices and the source of its hollow primitives, when
    /// the copies are made from it.
    scene: Option<Source<'b>>,
    /// Per visual: its first node with geometry in `scene`.
    node: Vec<Option<usize>>,
    /// Per visual: its world-space copy, once made (or given).
    geo: Vec<Option<NodeGeo>>,
    /// Per visual: the edited node found unchanged against it by [`RefGeo::remember`].
    settled: Vec<Option<Settled>>,
}

/// The base's (hollow) scene, its world matrices, and what fills its hollow primitives.
struct Source<'b> {
    scene: Scene,
    worlds: Vec<[f32; 16]>,
    source: GeomSource<'b>,
}

/// Buffers a thread fills the reference's hollow primitives into, reused from one visual to
/// the next (one per primitive of the mesh being compared).
#[derive(Default)]
pub(crate) struct Buffers(Vec<Primitive>);

impl Source<'_> {
    /// The primitives of `mesh`, its hollow ones filled into `buffers` (with `shape`, only
    /// their positions and triangles: [`GeomSource::fill_shape`]); `None` when one cannot be
    /// filled (the source checked its range when it made the scene: not expected).
    fn primitives<'s>(
        &'s self,
        mesh: &'s Mesh,
        buffers: &'s mut Buffers,
        shape: bool,
    ) -> Option<Vec<&'s Primitive>> {
        for (k, h) in mesh
            .primitives
            .iter()
            .filter_map(|p| p.hollow.as_ref())
            .enumerate()
        {
            if buffers.0.len() <= k {
                buffers.0.push(Primitive::default());
            }
            let b = &mut buffers.0[k];
            let filled = if shape {
                self.source
                    .fill_shape(h.key, &mut b.positions, &mut b.indices)
            } else {
                levelgeom_scene::PrimitiveSource::fill(&self.source, h.key, b)
            };
            filled.ok()?;
        }
        let mut filled = buffers.0.iter();
        mesh.primitives
            .iter()
            .map(|p| match p.hollow {
                Some(_) => filled.next(),
                None => Some(p),
            })
            .collect()
    }

    /// [`transform::unchanged_against`] node `r` (the answer its full mesh gives), from its
    /// mesh's positions and triangles filled into `buffers`.
    fn unchanged(
        &self,
        r: usize,
        edited: &Scene,
        node: usize,
        e_worlds: &[[f32; 16]],
        buffers: &mut Buffers,
    ) -> bool {
        let (Some(r_mesh), Some(r_world), Some(mesh)) = (
            mapping::mesh_of(&self.scene, r),
            self.worlds.get(r),
            mapping::mesh_of(edited, node),
        ) else {
            return false;
        };
        // the vertex counts first (a hollow primitive's is promised): a node of another count
        // is not unchanged, and nothing is decoded for it
        let count = |m: &Mesh| -> usize { m.primitives.iter().map(Primitive::vertex_count).sum() };
        if count(r_mesh) != count(mesh) {
            return false;
        }
        self.primitives(r_mesh, buffers, true)
            .is_some_and(|r_prims| {
                transform::unchanged_against(&r_prims, r_world, edited, node, e_worlds)
            })
    }

    /// Drop the scene and its world matrices on the pool: thousands of nodes and meshes
    /// freed piece by piece, which the caller (an import with its files still to write) need
    /// not wait for; the source (the ranges' small decoders) is dropped here.
    fn set_aside(self) {
        let Source { scene, worlds, .. } = self;
        rayon::spawn(move || drop((scene, worlds)));
    }

    /// [`mapping::node_geo`] of node `r`, from its mesh filled into `buffers`.
    fn node_geo(&self, r: usize, buffers: &mut Buffers) -> Option<NodeGeo> {
        let mesh = mapping::mesh_of(&self.scene, r)?;
        let world = self.worlds.get(r)?;
        let prims = self.primitives(mesh, buffers, false)?;
        mapping::geo_of(&prims, world)
    }
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

impl<'b> RefGeo<'b> {
    /// Copies made beforehand (every visual's).
    pub(crate) fn built(geo: Vec<Option<NodeGeo>>) -> RefGeo<'b> {
        RefGeo {
            scene: None,
            node: vec![None; geo.len()],
            settled: vec![None; geo.len()],
            geo,
        }
    }

    /// The reference of `nv` visuals in `scene`, its hollow primitives filled by `source`
    /// (a full scene: [`GeomSource::none`]): each visual's first node in node order that is
    /// not excluded and has geometry (the node [`mapping::node_geo`] makes a copy of).
    pub(crate) fn of_scene(scene: Scene, source: GeomSource<'b>, nv: usize) -> RefGeo<'b> {
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
            scene: Some(Source {
                scene,
                worlds,
                source,
            }),
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

    /// Per node of `edited`: true when [`RefGeo::remember`] found it unchanged and its mesh,
    /// counts and world matrix are still those. Every point such a node places was found
    /// within the tolerance of the reference's, so it is a finite number.
    pub(crate) fn settled_nodes(&self, edited: &Scene, e_worlds: &[[f32; 16]]) -> Vec<bool> {
        let mut out = vec![false; edited.nodes.len()];
        for s in self.settled.iter().flatten() {
            if Settled::of(edited, s.node, e_worlds).as_ref() == Some(s) {
                out[s.node] = true;
            }
        }
        out
    }

    /// True when `node` of `edited` is unchanged against visual `v`'s reference
    /// ([`transform::unchanged`]'s rule), without making the reference's world-space copy:
    /// its positions and triangles filled into `buffers` (the calling thread's).
    pub(crate) fn unchanged(
        &self,
        v: usize,
        edited: &Scene,
        node: usize,
        e_worlds: &[[f32; 16]],
        buffers: &mut Buffers,
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
            (Some(s), Some(r)) => s.unchanged(r, edited, node, e_worlds, buffers),
            _ => false,
        }
    }

    /// Visual `v`'s world-space copy, made now when it was not yet.
    pub(crate) fn get(&mut self, v: usize) -> Option<&NodeGeo> {
        if let (Some(slot @ None), Some(s), Some(Some(r))) =
            (self.geo.get_mut(v), &self.scene, self.node.get(v))
        {
            *slot = s.node_geo(*r, &mut Buffers::default());
        }
        self.geo.get(v)?.as_ref()
    }

    /// Every visual's world-space copy (those not made yet, made in parallel, each thread
    /// filling the meshes into buffers of its own); the reference scene is dropped.
    pub(crate) fn into_all(self) -> Vec<Option<NodeGeo>> {
        let RefGeo {
            scene, node, geo, ..
        } = self;
        let Some(s) = scene else {
            return geo;
        };
        let all = geo
            .into_par_iter()
            .zip(node)
            .map_init(Buffers::default, |buffers, (g, r)| {
                g.or_else(|| r.and_then(|r| s.node_geo(r, buffers)))
            })
            .collect();
        s.set_aside();
        all
    }

    /// Drop the reference, its scene on the pool ([`Source::set_aside`]).
    pub(crate) fn set_aside(self) {
        if let Some(s) = self.scene {
            s.set_aside();
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use glam::{DMat4, DVec3};
    use levelgeom_scene::Scene;

    use super::{mapping, transform, Buffers, RefGeo};
    use crate::geom::Geom;
    use crate::level::Level;
    use crate::ogf::model_type;
    use crate::scene::{to_hollow_scene, to_scene, GeomSource, SceneOptions};

    fn reference_options() -> SceneOptions {
        SceneOptions {
            lods: true,
            geometry_only: true,
            ..SceneOptions::default()
        }
    }

    /// The real micro fixture (five tree instances on one range, five LOD billboards) and the
    /// generated level (a progressive visual drawn through its window, TREE_PM instances).
    fn levels() -> Vec<(&'static str, Level, Geom)> {
        let read = |name: &str| {
            std::fs::read(format!(
                "{}/tests/data/xray-v14-micro/{name}",
                env!("CARGO_MANIFEST_DIR")
            ))
            .unwrap()
        };
        let (gl, gg) = crate::generate::level(crate::generate::Options::default());
        vec![
            (
                "fixture",
                Level::read(&read("level")).unwrap().0,
                Geom::read(&read("level.geom")).unwrap().0,
            ),
            ("generated", gl, gg),
        ]
    }

    /// The node of `scene` that claims visual `v` first (an export has one).
    fn node_of(scene: &Scene, v: usize) -> Option<usize> {
        scene
            .nodes
            .iter()
            .position(|n| mapping::visual_of(n) == Some(v))
    }

    /// Node `n` given a mesh of its own (a copy), returned.
    fn own_mesh(e: &mut Scene, n: usize) -> usize {
        let m = e.nodes[n].mesh.unwrap();
        e.meshes.push(e.meshes[m].clone());
        e.nodes[n].mesh = Some(e.meshes.len() - 1);
        e.meshes.len() - 1
    }

    /// Every visual's answer in `e` from the hollow reference, which must be the full-scene
    /// reference's and (for a visual with geometry) that of `transform::unchanged` against
    /// the full scene's world-space copy; returns the answers.
    fn answers(
        name: &str,
        case: &str,
        hollow: &RefGeo<'_>,
        full: &mut RefGeo<'_>,
        e: &Scene,
        buffers: &mut Buffers,
    ) -> Vec<Option<bool>> {
        let w = e.world_matrices();
        (0..hollow.len())
            .map(|v| {
                let n = node_of(e, v)?;
                assert_eq!(hollow.has(v), full.has(v), "{name} {case} visual {v}");
                if !hollow.has(v) {
                    return None;
                }
                let h = hollow.unchanged(v, e, n, &w, buffers);
                let f = full.unchanged(v, e, n, &w, &mut Buffers::default());
                assert_eq!(h, f, "{name} {case} visual {v}: hollow against full");
                let copy = full.get(v).unwrap();
                assert_eq!(
                    h,
                    transform::unchanged(copy, e, n, &w),
                    "{name} {case} visual {v}: against the world-space copy"
                );
                Some(h)
            })
            .collect()
    }

    #[test]
    fn the_hollow_reference_answers_unchanged_as_the_full_scene_does() {
        for (name, level, geom) in levels() {
            let nv = level.visuals().len();
            let (scene, source) = to_hollow_scene(&level, &geom, &reference_options()).unwrap();
            let hollow_prims = scene
                .meshes
                .iter()
                .flat_map(|m| &m.primitives)
                .filter(|p| p.hollow.is_some())
                .count();
            assert!(hollow_prims > 0, "{name}: nothing hollow");
            let hollow = RefGeo::of_scene(scene, source, nv);
            let full_scene = to_scene(&level, &geom, &reference_options()).unwrap();
            let mut full = RefGeo::of_scene(full_scene, GeomSource::none(), nv);
            // one set of buffers for every question: filled again and again, other sizes
            let mut buffers = Buffers::default();
            // the export read back: every attribute, LOD billboards included
            let export = to_scene(
                &level,
                &geom,
                &SceneOptions {
                    lods: true,
                    ..SceneOptions::default()
                },
            )
            .unwrap();
            let kind = |v: usize| level.visuals()[v].model_type();
            let first = |t: u8| {
                (0..nv)
                    .find(|&v| kind(v) == Some(t) && full.has(v))
                    .unwrap()
            };
            let lod = (name == "fixture").then(|| first(model_type::LOD));
            let trees: Vec<usize> = (0..nv)
                .filter(|&v| matches!(kind(v), Some(model_type::TREE_ST | model_type::TREE_PM)))
                .collect();
            assert!(trees.len() >= 2, "{name}: tree instances");
            let stat = first(model_type::NORMAL);

            let all = answers(name, "unedited", &hollow, &mut full, &export, &mut buffers);
            let with_geo = all.iter().flatten().count();
            assert!(with_geo >= 4, "{name}: {with_geo} visuals with geometry");
            assert!(all.iter().flatten().all(|&s| s), "{name}: {all:?}");
            if let Some(lod) = lod {
                assert_eq!(all[lod], Some(true), "{name}: the LOD billboard");
            }

            // another pivot: the vertices 3 m off, the node's matrix moving them back
            let mut e = export.clone();
            let n = node_of(&e, stat).unwrap();
            let m = own_mesh(&mut e, n);
            for p in &mut e.meshes[m].primitives {
                p.positions.iter_mut().for_each(|q| q[0] -= 3.0);
            }
            let local = mapping::dmat(&e.nodes[n].matrix) * DMat4::from_translation(DVec3::X * 3.0);
            e.nodes[n].matrix = local.to_cols_array().map(|x| x as f32);
            let got = answers(name, "pivot", &hollow, &mut full, &e, &mut buffers);
            assert_eq!(got[stat], Some(true), "{name}: moved pivot");

            // within 1 mm, and past it
            for (dx, same) in [(0.0009f32, true), (0.002, false)] {
                let mut e = export.clone();
                let n = node_of(&e, stat).unwrap();
                let m = own_mesh(&mut e, n);
                e.meshes[m].primitives[0].positions[0][0] += dx;
                let got = answers(name, "tolerance", &hollow, &mut full, &e, &mut buffers);
                assert_eq!(got[stat], Some(same), "{name}: {dx} m");
            }

            // a corner past the vertices: left out on both sides (the corner-by-corner path);
            // a triangle fewer: not unchanged
            let mut e = export.clone();
            let n = node_of(&e, stat).unwrap();
            let m = own_mesh(&mut e, n);
            let nvert = e.meshes[m].primitives[0].positions.len() as u32;
            e.meshes[m].primitives[0].indices.extend([0, 1, nvert + 5]);
            let got = answers(
                name,
                "filtered corner",
                &hollow,
                &mut full,
                &e,
                &mut buffers,
            );
            assert_eq!(got[stat], Some(true), "{name}: filtered corner");
            let p = &mut e.meshes[m].primitives[0];
            p.indices.truncate(p.indices.len() - 6);
            let got = answers(
                name,
                "a triangle fewer",
                &hollow,
                &mut full,
                &e,
                &mut buffers,
            );
            assert_eq!(got[stat], Some(false), "{name}: a triangle fewer");

            // a LOD billboard's corner moved 0.5 m
            if let Some(lod) = lod {
                let mut e = export.clone();
                let n = node_of(&e, lod).unwrap();
                let m = own_mesh(&mut e, n);
                e.meshes[m].primitives[0].positions[2][1] += 0.5;
                let got = answers(name, "LOD", &hollow, &mut full, &e, &mut buffers);
                assert_eq!(got[lod], Some(false), "{name}: LOD moved");
            }

            // one tree instance moved 1 m (its shared mesh untouched): that one only
            let mut e = export.clone();
            let n = node_of(&e, trees[0]).unwrap();
            e.nodes[n].matrix[13] += 1.0;
            let got = answers(name, "tree instance", &hollow, &mut full, &e, &mut buffers);
            assert_eq!(got[trees[0]], Some(false), "{name}: moved instance");
            assert!(trees[1..].iter().all(|&t| got[t] == Some(true)), "{name}");

            // the world-space copies made of filled meshes are the full scene's
            let (scene, source) = to_hollow_scene(&level, &geom, &reference_options()).unwrap();
            let mut hollow = RefGeo::of_scene(scene, source, nv);
            for v in 0..nv {
                assert_eq!(
                    format!("{:?}", hollow.get(v)),
                    format!("{:?}", full.get(v)),
                    "{name} visual {v}"
                );
            }
            let (scene, source) = to_hollow_scene(&level, &geom, &reference_options()).unwrap();
            let all = RefGeo::of_scene(scene, source, nv).into_all();
            assert_eq!(format!("{all:?}"), format!("{:?}", full.into_all()));
        }
    }
}
