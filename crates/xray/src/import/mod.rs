//! Import: an edited export of a level (glTF scene) written back into `level`, `level.geom`,
//! `level.geomx` and `level.cform`, everything not edited kept byte for byte.
//!
//! [`import`] takes the base level's typed files and the edited scene (as the mesh readers give
//! it) and returns the new files and a [`Summary`]. XRLC versions 13 and 14 here; 4, 5 and
//! 8–12 through their 13/14-shaped view, written back in their own build ([`old`]).
//!
//! # Which node is which visual
//! [`mapping`]: the node extra `visual`, else the `visual_NNNN` name prefix. A file in which no
//! node maps to a visual is refused ([`ImportError::NoMapping`]): Blender's glTF exporter
//! drops the extras unless *Include › Custom Properties* is on, and reading such a file as
//! "every visual deleted" would wipe the level.
//!
//! # What happened to each visual
//! The reference is the scene [`crate::to_scene`] makes of the base level (LOD billboards
//! included); each visual's world-space geometry there is compared with the world-space
//! geometry of the node(s) that map to it ([`transform`]), so the pivot convention of the
//! export does not matter:
//!
//! | found | result |
//! |---|---|
//! | the same geometry | kept byte for byte |
//! | an affine transform of it | **moved**: vertices transformed and re-encoded in their own declaration (normals, tangents, binormals turned); a tree instance gets a new TREEDEF2 matrix only; a LOD billboard's quads move; a LOD visual without a mesh in the file moves with its trees when they all moved alike |
//! | same vertices and triangles, other positions | **edited**: positions (and normals from the mesh) re-encoded, everything else kept; the FASTPATH (level.geomx) copy is regenerated from the new positions and the visual's own indices |
//! | other topology | **edited** (replaced): the mesh re-encoded as new vertex and index ranges with the visual's shader and declaration; a progressive visual becomes a normal one (warning) |
//! | a second node for it | **added**: a copy (a tree: a new TREEDEF2 visual on the same geometry; a normal or progressive visual: a new visual on the same GCONTAINER when unchanged, else on a transformed copy of its vertices with the same indices and windows), placed under the original's nearest hierarchy ancestor (so a copied tree is not hidden behind its original's LOD billboard) |
//! | no node | **removed** when the file holds other visuals of its kind (static: normal and progressive; trees; LOD billboards) or with [`ImportOptions::delete_missing`]; else kept: a partial export (`--only`, no `--lods`) does not delete what it left out |
//! | a second node for a hierarchy or LOD visual (the group copied with its children) | **added**: a new group visual of its kind under the original's parent (or under the copy of the group around it), its children the copies of the children; a LOD copy's quads moved with its trees' copies, which must all have moved alike (else left out, warning); bounds recomputed from the children |
//! | a node with a mesh and no mapping | **added** (new mesh): one normal visual per primitive ([`shading`]) |
//!
//! A tree instance whose geometry was edited (same vertices and triangles, other positions)
//! gets its positions taken back into its model space through the inverse `TREEDEF2` matrix
//! and re-encoded as its own copy of the vertex range (a new GCONTAINER on the same indices;
//! the other instances keep theirs), unless every instance on those vertices was edited to
//! the same model-space positions: then the shared range is rewritten once, in place. A tree
//! with another topology gets the mesh as its own new ranges in its declaration (taken into
//! model space the same way; wind, and the light, hemi and sun the mesh lacks, from the
//! nearest old vertex); a TREE_PM becomes a TREE_ST (warning). A LOD visual whose billboard
//! quads were edited (a `--lods` export, four vertices per quad) gets its `LODDEF2` positions
//! rewritten, everything else of the quads kept. Sector roots are never removed; a
//! LOD visual whose trees are all removed is removed with them.
//! A visual that is moved keeps its vertices in place when no other visual uses them, else it
//! gets a transformed copy appended ([`buffers`]). Removed visuals' vertex and index ranges
//! stay in the buffers, unused. Bounding boxes and spheres of changed visuals and of every
//! ancestor are recomputed ([`hierarchy`]). Collision follows ([`collision`]): moved and
//! removed visuals' triangles with them, copies get their original's triangles, new meshes
//! their own (game material from the `game_material` extra, else the nearest triangle's),
//! edited visuals new triangles from their new shape in place of their old ones (with their
//! old triangles' game material). `level.hom` and `level.som` follow afterwards by the same
//! rule ([`occluders::follow`], from [`Imported::edits`]).

pub mod buffers;
pub mod collision;
pub mod convert;
pub mod downgrade;
pub mod encode;
pub mod hierarchy;
pub mod mapping;
pub mod occluders;
pub mod old;
mod reference;
pub mod shading;
pub mod stale;
pub mod summary;
pub mod transform;
pub mod upgrade;

use glam::{DMat4, DVec3};
use levelgeom_binary::WriteError;
use levelgeom_scene::Scene;
use rayon::prelude::*;

use crate::cform::Cform;
use crate::chunk::Framed;
use crate::geom::Geom;
use crate::level::Level;
use crate::ogf::{model_type, GContainer, OgfChunk, OgfHeader, Visual};
use crate::scene::{tree_matrix, SceneError, SceneOptions};

pub use convert::Conversion;
use hierarchy::Bounds;
use mapping::NodeGeo;
use reference::RefGeo;
pub use summary::{Added, CollisionSummary, Defaulted, FacesAdded, OccluderSummary, Summary};
use transform::Change;

/// The base level's files.
#[derive(Clone, Copy, Debug)]
pub struct Base<'a> {
    /// `level`.
    pub level: &'a Level,
    /// `level.geom`.
    pub geom: &'a Geom,
    /// `level.geomx`, when the level has one.
    pub geomx: Option<&'a Geom>,
    /// `level.cform`, when the level has one.
    pub cform: Option<&'a Cform>,
}

/// Choices of [`import`].
#[derive(Clone, Debug, Default)]
pub struct ImportOptions {
    /// Remove every visual with geometry that has no node in the file, even when the file
    /// looks like a partial export.
    pub delete_missing: bool,
    /// Write this XRLC build (4, 5, 8–14) instead of the base's (see [`convert`]).
    pub to_version: Option<u16>,
    /// Convert even when the target build cannot hold everything (what is lost is listed in
    /// [`Conversion::lost`]).
    pub allow_loss: bool,
}

/// The new files.
#[derive(Clone, Debug)]
pub struct Imported {
    /// `level`.
    pub level: Level,
    /// `level.geom`.
    pub geom: Geom,
    /// `level.geomx` (when the base has one).
    pub geomx: Option<Geom>,
    /// `level.cform` (when the base has one, or `--collision` made one).
    pub cform: Option<Cform>,
    /// `level.hom`, once [`occluders::follow`] made it follow (when the base has one).
    pub hom: Option<crate::occluders::Hom>,
    /// `level.som`, once [`occluders::follow`] made it follow (when the base has one).
    pub som: Option<crate::occluders::Som>,
    /// What happened to the visuals, for [`occluders::follow`].
    pub edits: occluders::Edits,
    /// What was done.
    pub summary: Summary,
}

/// Why an import was refused.
#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    /// A build import does not write.
    #[error("XRLC version {0}: import writes versions 4, 5, 8–14")]
    Version(u16),
    /// A build conversion's result cannot be written in the target build (what the build
    /// cannot hold, [`downgrade::Unwritable`]).
    #[error("XRLC {version}: {cause}")]
    OldBuild {
        /// The build written.
        version: u16,
        /// What cannot be written.
        #[source]
        cause: downgrade::Unwritable,
    },
    /// The collision embedded in an old build's `level` (`fsL_CFORM`, XRLC 4–9) cannot be
    /// read for the conversion to XRLC 13.
    #[error("XRLC {version}: the collision inside `level` (fsL_CFORM): {source}")]
    EmbeddedCollision {
        /// The level's build.
        version: u16,
        /// Why it cannot be read.
        #[source]
        source: levelgeom_binary::ReadError,
    },
    /// The edit of the old level's 13/14-shaped view cannot be written back in the level's
    /// own layout ([`old`]).
    #[error("XRLC {version}: {source}")]
    Unflatten {
        /// The level's build.
        version: u16,
        /// What has no form in that build.
        #[source]
        source: crate::flat::UnflattenError,
    },
    /// `--to-version` names a build the conversion does not write.
    #[error(
        "--to-version {to}: levels convert between XRLC 4, 5 and 8–14 (the builds whose \
         layouts we read and write); this level is XRLC {from}"
    )]
    TargetVersion {
        /// The base level's build.
        from: u16,
        /// The build asked for.
        to: u16,
    },
    /// The conversion would lose data and loss was not allowed.
    #[error(
        "converting XRLC {from} to {to} loses data: {lost}; give --allow-loss to convert anyway"
    )]
    Loss {
        /// The base level's build.
        from: u16,
        /// The build asked for.
        to: u16,
        /// What would be lost.
        lost: String,
    },
    /// The base level could not be converted for comparison.
    #[error("the base level: {0}")]
    Scene(#[from] SceneError),
    /// No node of the mesh file maps to a visual.
    #[error(
        "none of the mesh file's {nodes} nodes maps to a visual of this level (no `visual` \
         extra, no `visual_NNNN` name): it is not an export of this level, or its custom \
         properties were not exported — in Blender's glTF exporter turn on Include › Custom \
         Properties, or every visual would read as deleted"
    )]
    NoMapping {
        /// Nodes in the file.
        nodes: usize,
    },
    /// A value does not fit the file (too many vertices, …).
    #[error(transparent)]
    Write(#[from] WriteError),
    /// The collision mesh cannot be used.
    #[error("collision mesh: {0}")]
    Collision(String),
    /// A node of the mesh file cannot be used.
    #[error("node {node:?}: {message}")]
    Node {
        /// The node's name.
        node: String,
        /// What is wrong.
        message: String,
    },
}

/// What became of one visual of the base.
#[derive(Clone, Debug, PartialEq)]
enum State {
    Keep,
    Moved(DMat4),
    Edited(usize),
    Replaced(usize),
    Delete,
}

/// Kinds for deciding whether a missing node means "deleted".
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Static,
    Tree,
    Lod,
    Other,
}

fn kind_of(t: Option<u8>) -> Kind {
    match t {
        Some(model_type::NORMAL | model_type::PROGRESSIVE) => Kind::Static,
        Some(model_type::TREE_ST | model_type::TREE_PM) => Kind::Tree,
        Some(model_type::LOD) => Kind::Lod,
        _ => Kind::Other,
    }
}

fn is_tree(t: Option<u8>) -> bool {
    kind_of(t) == Kind::Tree
}

fn f3(v: DVec3) -> [f32; 3] {
    [v.x as f32, v.y as f32, v.z as f32]
}

fn d3(a: [f32; 3]) -> DVec3 {
    DVec3::from_array(a.map(f64::from))
}

/// Bounds moved by a translation `t` (X-Ray space), computed per component as `old + t`.
fn translated(h: &OgfHeader, t: DVec3) -> Bounds {
    let b = Bounds::of(h);
    Bounds {
        min: b.min + t,
        max: b.max + t,
        centre: b.centre + t,
        radius: b.radius,
    }
}

/// A range after a move: where it is now and its new positions.
type Moved = (GContainer, Vec<[f32; 3]>);

/// Working state of one import.
struct Work<'a> {
    base: Base<'a>,
    level: Level,
    geom: Geom,
    geomx: Option<Geom>,
    summary: Summary,
    /// Visuals (by index in `level`) whose own bounds were set.
    dirty: Vec<bool>,
    /// Visuals whose bounds are recomputed from their children.
    recompute: Vec<bool>,
    /// Collision wanted for the visuals added.
    new_faces: Vec<collision::NewFaces>,
    /// The edited scene.
    edited: &'a Scene,
    /// The world matrix of each of its nodes.
    worlds: &'a [[f32; 16]],
    /// What becomes of each base visual.
    state: &'a [State],
}

/// Import the edited scene `edited` into the base level (see the module docs).
///
/// # Errors
/// [`ImportError`]: another build, a file without our mapping, values that do not fit.
pub fn import(
    base: Base<'_>,
    edited: &Scene,
    collision_mesh: Option<&Scene>,
    opts: &ImportOptions,
) -> Result<Imported, ImportError> {
    import_with(base, edited, collision_mesh, opts, None)
}

/// The base level's geometry that an import compares the edited file with (each visual's
/// world-space geometry in the scene [`crate::to_scene`] makes of it), made by [`reference`]
/// ahead of [`import_with`]: it depends on the base alone, so a caller can make it while it
/// reads the edited file. It borrows the base's `level` and `level.geom` (`'b`): its scene is
/// hollow, each visual's geometry decoded from them when it is compared.
pub struct Reference<'b>(RefGeo<'b>);

impl std::fmt::Debug for Reference<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Reference({} visuals)", self.0.len())
    }
}

/// The [`Reference`] of a base level of XRLC 13 or 14; `Ok(None)` for other builds (their
/// import makes its own, through the 13/14-shaped view).
///
/// # Errors
/// [`ImportError::Scene`] when the base level cannot be converted to a scene.
pub fn reference(base: Base<'_>) -> Result<Option<Reference<'_>>, ImportError> {
    let version = base.level.header().map_or(0, |h| h.version);
    if base.level.is_old() || !matches!(version, 13 | 14) {
        return Ok(None);
    }
    reference_geometry(base).map(|r| Some(Reference(r)))
}

/// [`reference`] from the scene the caller already made of the base level: `scene` must be
/// [`crate::to_scene`] of `base` with [`SceneOptions::lods`] on and the other options at
/// their defaults (what `reference` makes itself), as `convert` makes it.
pub fn reference_of<'b>(base: Base<'_>, scene: &Scene) -> Option<Reference<'b>> {
    let version = base.level.header().map_or(0, |h| h.version);
    if base.level.is_old() || !matches!(version, 13 | 14) {
        return None;
    }
    Some(Reference(RefGeo::built(reference_from_scene(
        scene,
        base.level.visuals().len(),
    ))))
}

/// Per mesh of `edited`: whether an import of it into the base of `reference` reads more of
/// the mesh than its positions and triangles. It does not for a mesh whose every node is the
/// one node claiming its visual and is unchanged against it (the rule of [`transform`]): that
/// visual is kept as it is, and nothing reads the mesh's other attributes. Every other mesh
/// (edited, moved, copied, new, in a tree such as `collision` or `occluders`, or placed by no
/// node) is read whole. So a caller can leave the rest of an unchanged mesh unread (as
/// a deferred mesh read does). The nodes found unchanged are remembered in
/// `reference`: [`import_with`] of `edited` (its meshes completed meanwhile) does not compare
/// them again.
pub fn meshes_to_read(reference: &mut Reference<'_>, edited: &Scene) -> Vec<bool> {
    let nv = reference.0.len();
    let worlds = edited.world_matrices();
    // the nodes `claims` looks at, and the visual each claims
    let mut excluded = mapping::excluded(edited);
    for (x, reached) in edited.reachable().into_iter().enumerate() {
        excluded[x] |= !reached;
    }
    let mut ignored = Vec::new();
    let claim: Vec<Option<usize>> = edited
        .nodes
        .iter()
        .zip(&excluded)
        .map(|(node, &ex)| {
            (!ex)
                .then(|| mapping::visual_claim(node, nv, &mut ignored).ok().flatten())
                .flatten()
                .filter(|&v| v < nv)
        })
        .collect();
    let mut claimants = vec![0usize; nv];
    for &v in claim.iter().flatten() {
        claimants[v] += 1;
    }
    let r = &reference.0;
    let unchanged: Vec<bool> = claim
        .par_iter()
        .enumerate()
        .map_init(reference::Buffers::default, |buffers, (n, c)| {
            c.is_some_and(|v| {
                claimants[v] == 1 && r.has(v) && r.unchanged(v, edited, n, &worlds, buffers)
            })
        })
        .collect();
    for (n, c) in claim.iter().enumerate() {
        if let (Some(v), true) = (c, unchanged[n]) {
            reference.0.remember(*v, edited, n, &worlds);
        }
    }
    let mut read = vec![false; edited.meshes.len()];
    let mut placed = vec![false; edited.meshes.len()];
    for (node, same) in edited.nodes.iter().zip(unchanged) {
        if let Some(m) = node.mesh.filter(|&m| m < read.len()) {
            placed[m] = true;
            read[m] |= !same;
        }
    }
    read.iter().zip(placed).map(|(&r, p)| r || !p).collect()
}

/// [`import`] with the base's [`Reference`] made beforehand (`None`: made here). A reference
/// is used only for the base it was made of.
///
/// # Errors
/// As [`import`].
pub fn import_with(
    base: Base<'_>,
    edited: &Scene,
    collision_mesh: Option<&Scene>,
    opts: &ImportOptions,
    reference: Option<Reference<'_>>,
) -> Result<Imported, ImportError> {
    import_prepared(
        base,
        edited,
        collision_mesh,
        opts,
        Prepared {
            reference,
            converted: None,
        },
    )
}

/// What a caller made of the base alone beforehand, for [`import_prepared`].
#[derive(Default)]
pub struct Prepared<'a> {
    /// The base's [`Reference`] (`None`: made by the import).
    pub reference: Option<Reference<'a>>,
    /// Gives the base's vertex buffers re-encoded for [`ImportOptions::to_version`]
    /// ([`convert::Converted`], perhaps still being made on another thread), asked for when
    /// the conversion starts; `None` (or a `None` given): the conversion re-encodes them.
    pub converted: Option<ConvertedAhead<'a>>,
}

/// A way to get [`convert::Converted`] when it is needed (see [`Prepared::converted`]).
pub type ConvertedAhead<'a> = Box<dyn FnOnce() -> Option<convert::Converted> + 'a>;

/// [`import`] with what was [`Prepared`] beforehand; each part is used only where it is the
/// import's own (the reference for the base it was made of, the converted buffers for buffers
/// equal to the ones they were made from).
///
/// # Errors
/// As [`import`].
pub fn import_prepared(
    base: Base<'_>,
    edited: &Scene,
    collision_mesh: Option<&Scene>,
    opts: &ImportOptions,
    prepared: Prepared<'_>,
) -> Result<Imported, ImportError> {
    let Prepared {
        reference,
        converted,
    } = prepared;
    let version = base.level.header().map_or(0, |h| h.version);
    let old_build = base.level.is_old() && crate::level::known_version(version);
    if !old_build && !matches!(version, 13 | 14) {
        return Err(ImportError::Version(version));
    }
    let target = opts.to_version.unwrap_or(version);
    convert::check_target(version, target)?;
    // the edit is made in the base's own build, then converted as a whole
    let same = ImportOptions {
        to_version: None,
        ..opts.clone()
    };
    let mut out = if old_build {
        old::import(base, edited, collision_mesh, &same)?
    } else {
        import_view_with(base, edited, collision_mesh, &same, reference)?
    };
    let converted = converted.and_then(|f| f());
    out.summary.conversion =
        convert::convert_with(&mut out, version, target, opts.allow_loss, converted)?;
    if target != version {
        // the name of an XRLC 4–10 header follows the level into another 4–10 build
        let name = base.level.chunks.iter().find_map(|c| match &c.value {
            crate::level::LevelChunk::NamedHeader(h) => Some(h.name),
            _ => None,
        });
        if let Some(name) = name {
            out.level.set_header_name(&name);
        }
    }
    out.summary.build_in = version;
    out.summary.build_out = target;
    Ok(out)
}

/// [`import`] into a level of the 13/14 layout (for an old build, its [`crate::flat`] view).
fn import_view(
    base: Base<'_>,
    edited: &Scene,
    collision_mesh: Option<&Scene>,
    opts: &ImportOptions,
) -> Result<Imported, ImportError> {
    import_view_with(base, edited, collision_mesh, opts, None)
}

/// [`import_view`] with the base's [`Reference`] when it was made beforehand.
fn import_view_with(
    base: Base<'_>,
    edited: &Scene,
    collision_mesh: Option<&Scene>,
    opts: &ImportOptions,
    reference: Option<Reference<'_>>,
) -> Result<Imported, ImportError> {
    let visuals = base.level.visuals();
    let nv = visuals.len();
    let mut ref_geo = match reference {
        Some(Reference(r)) if r.len() == nv => r,
        _ => reference_geometry(base)?,
    };
    let e_worlds = edited.world_matrices();
    let mut summary = Summary {
        visuals_before: nv,
        ..Summary::default()
    };
    let settled = ref_geo.settled_nodes(edited, &e_worlds);
    let (mut claims, new_nodes) = claims(edited, nv, &e_worlds, &settled, &mut summary)?;
    let groups = group_copies(&visuals, edited, &mut claims);
    let mut plan = Plan::classify(
        &visuals,
        &mut ref_geo,
        edited,
        &e_worlds,
        &claims,
        &mut summary,
    );
    let roots: Vec<usize> = base
        .level
        .sectors()
        .iter()
        .filter_map(|s| s.value.root())
        .map(|r| r as usize)
        .collect();
    plan.deletions(&visuals, &roots, opts, &mut summary);
    plan.lods_follow(&visuals, &mut summary);
    let Plan { state, dups, .. } = plan;
    let with_geo = (0..nv).filter(|&v| ref_geo.has(v)).count();
    // nothing to change (an unedited export): no step past here reads the reference's
    // world-space copies (nothing moves, is removed, reshaped or copied), so they are not made
    let nothing = state.iter().all(|s| *s == State::Keep)
        && dups.is_empty()
        && new_nodes.is_empty()
        && groups.is_empty();
    let ref_geo: Vec<Option<NodeGeo>> = if nothing {
        ref_geo.set_aside();
        (0..nv).map(|_| None).collect()
    } else {
        ref_geo.into_all()
    };
    let parent = hierarchy::parents(&visuals);

    let mut w = Work {
        base,
        level: base.level.clone(),
        geom: base.geom.clone(),
        geomx: base.geomx.cloned(),
        summary,
        dirty: vec![false; nv],
        recompute: vec![false; nv],
        new_faces: Vec::new(),
        edited,
        worlds: &e_worlds,
        state: &state,
    };
    let has_dups: Vec<bool> = (0..nv).map(|v| dups.iter().any(|d| d.0 == v)).collect();
    let mut sectors = base.level.visual_sectors();
    w.apply_states(&ref_geo, &has_dups, &sectors)?;
    let parent_h: Vec<Option<usize>> = (0..nv)
        .map(|v| hierarchy::hierarchy_ancestor(&visuals, &parent, v))
        .collect();
    let e_parent = mapping::parents(edited);
    let group_of = |n: usize| mapping::group_of(&e_parent, &groups, n);
    let (in_groups, dups): (Vec<_>, Vec<_>) =
        dups.into_iter().partition(|d| group_of(d.1).is_some());
    for (v, node, change) in dups {
        w.duplicate(v, &change, parent_h[v], &edited.nodes[node].name, &sectors)?;
    }
    w.copy_groups(
        &groups,
        &in_groups,
        &group_of,
        &parent,
        &ref_geo,
        &mut sectors,
    )?;
    for node in new_nodes {
        w.add_mesh(node, &parent_h, &sectors)?;
    }
    let remove = w.remove_and_bound(nv, &parent);
    w.summary.kept = nv
        .saturating_sub(w.summary.moved.len())
        .saturating_sub(w.summary.edited.len())
        .saturating_sub(w.summary.removed.len());

    // every visual moved alike: more likely a whole-file transform (an exporter's axis or
    // unit setting) than an edit
    let moved_with_geo = w.summary.moved.len();
    if with_geo > 1 && moved_with_geo >= with_geo {
        w.summary.warnings.push(
            "every visual moved by the same kind of transform: if you did not mean to move the \
             whole level, export the glTF with +Y Up on and unit scale 1"
                .into(),
        );
    }

    // collision: moved visuals (as applied) and removed ones; LOD billboards have none
    let mut moves = state_moves(&state);
    for (v, m) in moves.iter_mut().enumerate() {
        if !w.summary.moved.contains(&v) {
            *m = None;
        }
    }
    // the reference geometry is not used past here: moved, not copied
    let solid: Vec<Option<NodeGeo>> = ref_geo
        .into_iter()
        .enumerate()
        .map(|(v, g)| g.filter(|_| visuals[v].model_type() != Some(model_type::LOD)))
        .collect();
    let cform = collision::collision(
        &w.base,
        &moves,
        &remove,
        &solid,
        collision_mesh,
        &w.new_faces,
        &mut w.summary,
    )?;
    let mut edits = occluders::Edits {
        reshaped: vec![false; nv],
        ..occluders::Edits::default()
    };
    for a in &w.new_faces {
        match a {
            collision::NewFaces::Copy { from, m, .. } => edits.copies.push((*from, *m)),
            collision::NewFaces::Reshape { from, .. } => {
                if let Some(r) = edits.reshaped.get_mut(*from) {
                    *r = true;
                }
            }
            collision::NewFaces::Mesh { .. } => {}
        }
    }
    edits.moves = moves;
    edits.remove = remove;
    edits.geo = solid;
    Ok(Imported {
        level: w.level,
        geom: w.geom,
        geomx: w.geomx,
        cform,
        hom: None,
        som: None,
        edits,
        summary: w.summary,
    })
}

/// The reference geometry per visual: the base level's own export (with LODs), each visual's
/// world-space geometry made when asked for ([`RefGeo`]). The scene is the hollow one
/// ([`crate::scene::to_hollow_scene`]): its visuals' primitives are filled from the base's
/// `level.geom` as they are compared, with positions, normals and triangles only
/// ([`SceneOptions::geometry_only`]: the comparison, the world-space copies ([`NodeGeo`]) and
/// the collision read nothing else of it).
fn reference_geometry(base: Base<'_>) -> Result<RefGeo<'_>, ImportError> {
    let (reference, source) = crate::scene::to_hollow_scene(
        base.level,
        base.geom,
        &SceneOptions {
            lods: true,
            geometry_only: true,
            ..SceneOptions::default()
        },
    )?;
    Ok(RefGeo::of_scene(
        reference,
        source,
        base.level.visuals().len(),
    ))
}

/// Each visual's world-space geometry in `reference` (the scene of the base level, with LODs).
fn reference_from_scene(reference: &Scene, nv: usize) -> Vec<Option<NodeGeo>> {
    let r_worlds = reference.world_matrices();
    let r_excl = mapping::excluded(reference);
    // each visual's first node with geometry, found in node order as before; the world-space
    // copies are then made in parallel (each is its own), in visual order
    let mut nodes_of: Vec<Vec<usize>> = vec![Vec::new(); nv];
    for (i, node) in reference.nodes.iter().enumerate() {
        if r_excl[i] {
            continue;
        }
        if let Some(v) = mapping::visual_of(node).filter(|&v| v < nv) {
            nodes_of[v].push(i);
        }
    }
    nodes_of
        .into_par_iter()
        .map(|nodes| {
            nodes
                .into_iter()
                .find_map(|i| mapping::node_geo(reference, i, &r_worlds))
        })
        .collect()
}

/// The edited file's nodes: per visual the nodes that claim it, and the nodes with a mesh
/// that claim none (new meshes). Only what the file's scene shows counts: nodes outside it
/// are not in Blender either. `settled` marks the nodes found unchanged beforehand
/// ([`RefGeo::settled_nodes`]), whose points are known to be finite.
///
/// # Errors
/// [`ImportError::Node`] for a node whose claim cannot be read or whose positions are not
/// finite; [`ImportError::NoMapping`] when no node claims a visual.
fn claims(
    edited: &Scene,
    nv: usize,
    e_worlds: &[[f32; 16]],
    settled: &[bool],
    summary: &mut Summary,
) -> Result<(Vec<Vec<usize>>, Vec<usize>), ImportError> {
    let mut e_excl = mapping::excluded(edited);
    for (x, r) in edited.reachable().into_iter().enumerate() {
        e_excl[x] |= !r;
    }
    let mut claims: Vec<Vec<usize>> = vec![Vec::new(); nv];
    let mut new_nodes = Vec::new();
    for (i, node) in edited.nodes.iter().enumerate() {
        if e_excl[i] {
            continue;
        }
        let claim = mapping::visual_claim(node, nv, &mut summary.warnings).map_err(|message| {
            ImportError::Node {
                node: node.name.clone(),
                message,
            }
        })?;
        match claim {
            Some(v) if v < nv => claims[v].push(i),
            Some(v) => {
                summary.warnings.push(format!(
                    "node {:?} names visual {v}, but the level has {nv}; read as a new mesh",
                    node.name
                ));
                if node.mesh.is_some() {
                    new_nodes.push(i);
                }
            }
            None if node.mesh.is_some() => new_nodes.push(i),
            None => {}
        }
    }
    if claims.iter().all(Vec::is_empty) {
        return Err(ImportError::NoMapping {
            nodes: edited.nodes.len(),
        });
    }
    // a position that is not a number would be written into the level as it is (the nodes
    // checked in parallel; the first in node order named); a node found unchanged already
    // places only points within the tolerance of the reference's
    let non_finite = (0..edited.nodes.len()).into_par_iter().position_first(|i| {
        !e_excl[i]
            && !settled.get(i).copied().unwrap_or(false)
            && mapping::places_non_finite(edited, i, e_worlds)
    });
    if let Some(node) = non_finite.and_then(|i| edited.nodes.get(i)) {
        return Err(ImportError::Node {
            node: node.name.clone(),
            message: "has positions that are not finite numbers (its matrix or vertices); \
                      nothing was written"
                .into(),
        });
    }
    Ok((claims, new_nodes))
}

/// Copies of a hierarchy or LOD node (Shift+D on the group): each becomes a new group (see
/// [`Work::copy_groups`]) as `(visual, node)`; the group's own claim keeps only its original.
fn group_copies(
    visuals: &[&Visual],
    edited: &Scene,
    claims: &mut [Vec<usize>],
) -> Vec<(usize, usize)> {
    let mut groups: Vec<(usize, usize)> = Vec::new();
    for (v, c) in claims.iter_mut().enumerate() {
        let group = matches!(
            visuals[v].model_type(),
            Some(model_type::HIERARCHY | model_type::LOD)
        );
        if !group || c.len() < 2 {
            continue;
        }
        let o = c
            .iter()
            .copied()
            .find(|&n| !mapping::has_copy_suffix(&edited.nodes[n].name))
            .unwrap_or(c[0]);
        groups.extend(c.iter().filter(|&&n| n != o).map(|&n| (v, n)));
        *c = vec![o];
    }
    groups
}

/// What becomes of each visual, decided before anything is written.
struct Plan {
    state: Vec<State>,
    /// Further claims of a visual: (visual, node, its change), each a copy to add.
    dups: Vec<(usize, usize, Change)>,
    /// The kinds of visual the file shows.
    present: Vec<Kind>,
    /// Visuals with geometry that no node claims.
    missing: Vec<usize>,
}

impl Plan {
    /// Classify each claimed visual's geometry against its reference: unchanged, moved,
    /// edited or replaced (the original claim; the others are copies).
    fn classify(
        visuals: &[&Visual],
        ref_geo: &mut RefGeo<'_>,
        edited: &Scene,
        e_worlds: &[[f32; 16]],
        claims: &[Vec<usize>],
        summary: &mut Summary,
    ) -> Plan {
        let nv = visuals.len();
        let mut plan = Plan {
            state: vec![State::Keep; nv],
            dups: Vec::new(),
            present: Vec::new(),
            missing: Vec::new(),
        };
        // which claims are unchanged (the common case), recognised from the node's own
        // attributes and the reference's, without either's world-space copy; visuals in
        // parallel
        let unchanged: Vec<Vec<bool>> = {
            let r: &RefGeo<'_> = ref_geo;
            (0..nv)
                .into_par_iter()
                .map_init(reference::Buffers::default, |buffers, v| {
                    claims[v]
                        .iter()
                        .map(|&n| r.has(v) && r.unchanged(v, edited, n, e_worlds, buffers))
                        .collect()
                })
                .collect()
        };
        for v in 0..nv {
            let t = visuals[v].model_type();
            if !ref_geo.has(v) {
                if claims[v].len() > 1 {
                    summary.warnings.push(format!(
                        "visual {v} ({}) has no geometry of its own; its {} copies are left out",
                        model_type::name(t.unwrap_or(u8::MAX)),
                        claims[v].len() - 1
                    ));
                }
                continue;
            }
            // the nodes with geometry and what happened to it
            let with_geo: Vec<(usize, Change)> = claims[v]
                .iter()
                .zip(&unchanged[v])
                .filter_map(|(&n, &same)| {
                    if same {
                        return Some((n, Change::Unchanged));
                    }
                    let e = mapping::node_geo(edited, n, e_worlds)?;
                    ref_geo.get(v).map(|r| (n, transform::classify(r, &e)))
                })
                .collect();
            if claims[v].is_empty() {
                plan.missing.push(v);
                continue;
            }
            if with_geo.is_empty() {
                continue; // e.g. a LOD empty of an export without --lods
            }
            plan.present.push(kind_of(t));
            let original = with_geo
                .iter()
                .position(|(_, c)| *c == Change::Unchanged)
                .or_else(|| {
                    with_geo
                        .iter()
                        .position(|(n, _)| !mapping::has_copy_suffix(&edited.nodes[*n].name))
                })
                .unwrap_or(0);
            plan.state[v] = match &with_geo[original].1 {
                Change::Unchanged => State::Keep,
                Change::Moved(m) => State::Moved(*m),
                Change::Edited => State::Edited(with_geo[original].0),
                Change::Replaced => State::Replaced(with_geo[original].0),
            };
            for (k, (n, c)) in with_geo.into_iter().enumerate() {
                if k != original {
                    plan.dups.push((v, n, c));
                }
            }
        }
        plan
    }

    /// Missing visuals are deleted (with `--delete-missing`, or when the file shows others
    /// of their kind; a sector's root is kept), and a LOD visual whose trees are all removed
    /// goes with them (its billboard would stand for nothing).
    fn deletions(
        &mut self,
        visuals: &[&Visual],
        roots: &[usize],
        opts: &ImportOptions,
        summary: &mut Summary,
    ) {
        for &v in &self.missing {
            let k = kind_of(visuals[v].model_type());
            if opts.delete_missing || self.present.contains(&k) {
                if roots.contains(&v) {
                    summary.warnings.push(format!(
                        "visual {v} is a sector's root; kept although missing"
                    ));
                } else {
                    self.state[v] = State::Delete;
                }
            } else {
                summary.kept_absent += 1;
            }
        }
        for (v, vis) in visuals.iter().enumerate() {
            let kids = vis.children();
            if vis.model_type() == Some(model_type::LOD)
                && !kids.is_empty()
                && !roots.contains(&v)
                && kids
                    .iter()
                    .all(|&c| self.state.get(c as usize) == Some(&State::Delete))
            {
                self.state[v] = State::Delete;
            }
        }
    }

    /// LOD visuals follow their trees when all moved alike.
    fn lods_follow(&mut self, visuals: &[&Visual], summary: &mut Summary) {
        let state = &mut self.state;
        for v in 0..visuals.len() {
            if visuals[v].model_type() != Some(model_type::LOD) || state[v] != State::Keep {
                continue;
            }
            let kids = visuals[v].children();
            let moves: Vec<&DMat4> = kids
                .iter()
                .filter_map(|&c| match state.get(c as usize) {
                    Some(State::Moved(m)) => Some(m),
                    _ => None,
                })
                .collect();
            if !kids.is_empty()
                && moves.len() == kids.len()
                && moves.iter().all(|m| transform::same_transform(m, moves[0]))
            {
                state[v] = State::Moved(*moves[0]);
            } else if !moves.is_empty() {
                summary.warnings.push(format!(
                    "visual {v} (lod): its billboard no longer matches its moved tree(s)"
                ));
            }
        }
    }
}

impl Work<'_> {
    /// Apply each visual's state: moves, in-place edits and replacements (their collision
    /// reshaped).
    fn apply_states(
        &mut self,
        ref_geo: &[Option<NodeGeo>],
        has_dups: &[bool],
        sectors: &[Vec<u16>],
    ) -> Result<(), ImportError> {
        let state = self.state;
        for v in 0..state.len() {
            match state[v].clone() {
                State::Keep => {}
                State::Delete => {}
                State::Moved(t) => {
                    if self.move_visual(v, &t, has_dups[v])? {
                        self.summary.moved.push(v);
                    }
                }
                State::Edited(node) => {
                    let r = ref_geo[v].as_ref();
                    if self.edit_visual(v, r, node, has_dups[v])? {
                        self.summary.edited.push(v);
                        self.reshape_faces(v, node, sectors);
                    }
                }
                State::Replaced(node) => {
                    if self.replace_visual(v, node)? {
                        self.summary.edited.push(v);
                        self.reshape_faces(v, node, sectors);
                    }
                }
            }
        }
        Ok(())
    }

    /// Remove the visuals to delete (every index renumbered), then recompute the bounds up
    /// the tree; the removal mask, by base visual.
    fn remove_and_bound(&mut self, nv: usize, parent: &[Option<usize>]) -> Vec<bool> {
        let remove: Vec<bool> = (0..self.dirty.len())
            .map(|v| v < nv && self.state[v] == State::Delete)
            .collect();
        for v in (0..nv).filter(|&v| remove[v]) {
            self.summary.removed.push(v);
            if let Some(p) = parent[v] {
                self.recompute[p] = true;
            }
        }
        let map = hierarchy::remove_visuals(&mut self.level, &remove);
        let mut dirty = vec![false; map.iter().flatten().count()];
        let mut recompute = dirty.clone();
        for (old, new) in map.iter().enumerate() {
            if let Some(n) = new {
                dirty[*n as usize] = self.dirty[old];
                recompute[*n as usize] = self.recompute[old];
            }
        }
        for a in &mut self.summary.added {
            a.visual = map
                .get(a.visual)
                .copied()
                .flatten()
                .map_or(a.visual, |n| n as usize);
        }
        for d in &mut self.summary.defaulted {
            d.visual = map
                .get(d.visual)
                .copied()
                .flatten()
                .map_or(d.visual, |n| n as usize);
        }
        for a in &mut self.new_faces {
            let v = a.visual_mut();
            *v = map.get(*v).copied().flatten().map_or(*v, |n| n as usize);
        }
        if let Some(vs) = hierarchy::visuals_mut(&mut self.level) {
            hierarchy::propagate_bounds(vs, &dirty, &recompute);
        }
        self.summary.visuals_after = self.level.visuals().len();
        remove
    }
}

/// Per vertex of `e`: true when the user did not move it (position and normal as in `r`).
fn unmoved(r: Option<&NodeGeo>, e: &NodeGeo) -> Vec<bool> {
    let Some(r) = r else {
        return Vec::new();
    };
    (0..e.points.len())
        .map(|i| {
            let same_n = match (&r.normals, &e.normals) {
                (Some(a), Some(b)) => a
                    .get(i)
                    .zip(b.get(i))
                    .is_some_and(|(x, y)| x.distance(*y) <= 1e-4),
                _ => true,
            };
            r.points
                .get(i)
                .is_some_and(|p| p.distance(e.points[i]) <= transform::TOLERANCE)
                && same_n
        })
        .collect()
}

/// The edited node's geometry, its model-space positions and normals.
type TreeLocal = (NodeGeo, Vec<[f32; 3]>, Option<Vec<[f32; 3]>>);

/// A tree instance's edited geometry in its model space: the X-Ray world positions of node
/// `node` taken back through the inverse of the `TREEDEF2` matrix, normals through its
/// transpose (normalised); `None` when the matrix cannot be inverted.
fn tree_local(
    td: &crate::ogf::TreeDef,
    edited: &Scene,
    node: usize,
    worlds: &[[f32; 16]],
) -> Option<TreeLocal> {
    let e = mapping::node_geo(edited, node, worlds)?;
    // row-major D3D rows are glam columns: world = M · local
    let m = DMat4::from_cols_array(&td.xform.map(f64::from));
    if m.determinant().abs() < 1e-12 {
        return None;
    }
    let inv = m.inverse();
    let mirror = |p: DVec3| DVec3::new(p.x, p.y, -p.z);
    let positions = e
        .points
        .iter()
        .map(|p| f3(inv.transform_point3(mirror(*p))))
        .collect();
    let lin = glam::DMat3::from_mat4(m).transpose();
    let normals = e.normals.as_ref().map(|ns| {
        ns.iter()
            .map(|n| f3((lin * mirror(*n)).normalize_or_zero()))
            .collect()
    });
    Some((e, positions, normals))
}

/// Transform a LOD visual's billboard quads by `tx` (X-Ray space; UVs, colours, pad kept).
fn transform_quads(vis: &mut Visual, tx: &DMat4) {
    for c in &mut vis.chunks {
        if let OgfChunk::LodDef(quads) | OgfChunk::LodDefOld(quads) = &mut c.value {
            for q in quads.iter_mut() {
                for lv in q.iter_mut() {
                    lv.pos = f3(tx.transform_point3(d3(lv.pos)));
                }
            }
        }
    }
}

/// X-Ray-space transform of each moved visual.
fn state_moves(state: &[State]) -> Vec<Option<DMat4>> {
    state
        .iter()
        .map(|s| match s {
            State::Moved(t) => Some(transform::to_xray(t)),
            _ => None,
        })
        .collect()
}

/// True when another visual than `v` (not being removed) uses vertices of `g`'s range, in
/// its GCONTAINER (`fast` false) or its FASTPATH GCONTAINER (`fast` true).
fn shared(visuals: &[&Visual], state: &[State], v: usize, g: &GContainer, fast: bool) -> bool {
    visuals.iter().enumerate().any(|(u, x)| {
        if u == v || state.get(u) == Some(&State::Delete) {
            return false;
        }
        let other = if fast { x.fastpath() } else { x.gcontainer() };
        other.is_some_and(|o| {
            let end = |x: &GContainer| u64::from(x.vb_offset) + u64::from(x.vb_count);
            o.vb_index == g.vb_index
                && u64::from(o.vb_offset) < end(g)
                && u64::from(g.vb_offset) < end(&o)
        })
    })
}

/// True when another visual than `v` (not being removed) draws indices of `g`'s index range.
fn shared_indices(
    visuals: &[&Visual],
    state: &[State],
    v: usize,
    g: &GContainer,
    fast: bool,
) -> bool {
    visuals.iter().enumerate().any(|(u, x)| {
        if u == v || state.get(u) == Some(&State::Delete) {
            return false;
        }
        let other = if fast { x.fastpath() } else { x.gcontainer() };
        other.is_some_and(|o| {
            let end = |x: &GContainer| u64::from(x.ib_offset) + u64::from(x.ib_count);
            o.ib_index == g.ib_index
                && u64::from(o.ib_offset) < end(g)
                && u64::from(g.ib_offset) < end(&o)
        })
    })
}

impl Work<'_> {
    /// Reverse the winding of `g`'s triangles (a mirroring move): in place, or as a copy
    /// appended when `copy`; returns the range now used.
    fn flip_winding(
        &mut self,
        g: &GContainer,
        copy: bool,
        fast: bool,
    ) -> Result<GContainer, ImportError> {
        let geom = match (fast, self.geomx.as_mut()) {
            (true, Some(x)) => x,
            (true, None) => return Ok(*g),
            (false, _) => &mut self.geom,
        };
        let Some(mut idx) = buffers::indices(geom, g.ib_index, g.ib_offset, g.ib_count) else {
            return Ok(*g);
        };
        for t in idx.chunks_exact_mut(3) {
            t.swap(1, 2);
        }
        let mut out = *g;
        if copy {
            let (ib, first) = buffers::append_indices(geom, &idx)?;
            out.ib_index = ib;
            out.ib_offset = first;
        } else {
            buffers::write_indices(geom, g.ib_index, g.ib_offset, &idx);
        }
        Ok(out)
    }

    fn visual(&self, v: usize) -> Option<&Visual> {
        self.level.visuals_framed()?.get(v).map(|f| &f.value)
    }

    fn visual_mut(&mut self, v: usize) -> Option<&mut Visual> {
        hierarchy::visuals_mut(&mut self.level)?
            .get_mut(v)
            .map(|f| &mut f.value)
    }

    fn set_bounds(&mut self, v: usize, b: Bounds) {
        if let Some(vis) = self.visual_mut(v) {
            if let Some(mut h) = vis.header() {
                b.apply(&mut h);
                hierarchy::set_header(vis, h);
            }
        }
        if let Some(d) = self.dirty.get_mut(v) {
            *d = true;
        }
    }

    /// Transform the vertices of `g` in `geom` (fastpath: the geomx) by `tx` (X-Ray space):
    /// in place, or into a copy when `copy`; returns the range now used and the positions.
    fn transform_range(
        &mut self,
        g: &GContainer,
        tx: &DMat4,
        copy: bool,
        fast: bool,
    ) -> Result<Option<Moved>, ImportError> {
        let geom = if fast {
            match self.geomx.as_mut() {
                Some(x) => x,
                None => return Ok(None),
            }
        } else {
            &mut self.geom
        };
        let Some((decl, mut verts)) =
            buffers::read_range(geom, g.vb_index, g.vb_offset, g.vb_count)
        else {
            return Ok(None);
        };
        encode::transform(&mut verts, tx);
        let mut out = *g;
        if copy {
            let (vb, first) = buffers::append_vertices(geom, &decl, &verts)?;
            out.vb_index = vb;
            out.vb_offset = first;
        } else {
            buffers::write_range(geom, g.vb_index, g.vb_offset, &verts);
        }
        Ok(Some((out, verts.positions)))
    }

    /// Move visual `v` by the glTF-space transform `t`; false when nothing could be done.
    fn move_visual(&mut self, v: usize, t: &DMat4, has_dups: bool) -> Result<bool, ImportError> {
        let state = self.state;
        let tx = transform::to_xray(t);
        let base_visuals = self.base.level.visuals();
        let vis = base_visuals[v].clone();
        let Some(h) = vis.header() else {
            return Ok(false);
        };
        let mirrored = t.determinant() < 0.0;
        if mirrored && kind_of(vis.model_type()) != Kind::Static {
            self.summary.warnings.push(format!(
                "visual {v}: mirrored; the engine draws its faces from the other side"
            ));
        }
        let tr = transform::is_translation(&tx).then(|| tx.w_axis.truncate());
        let t_kind = vis.model_type();
        if is_tree(t_kind) {
            let Some(mut td) = vis.treedef() else {
                return Ok(false);
            };
            let old = DMat4::from_cols_array(&tree_matrix(&td.xform).map(f64::from));
            let new = (*t * old).to_cols_array().map(|x| x as f32);
            td.xform = tree_matrix(&new);
            let vm = self
                .visual_mut(v)
                .ok_or_else(|| ImportError::Collision("lost visual".into()))?;
            hierarchy::set_treedef(vm, td);
            let b = match tr {
                Some(d) => translated(&h, d),
                None => {
                    let pts = vis
                        .gcontainer()
                        .and_then(|g| {
                            buffers::read_range(self.base.geom, g.vb_index, g.vb_offset, g.vb_count)
                        })
                        .map(|(_, vs)| {
                            vs.positions
                                .iter()
                                .map(|p| td.transform(*p))
                                .collect::<Vec<_>>()
                        })
                        .unwrap_or_default();
                    match Bounds::of_points(&pts) {
                        Some(b) => b,
                        None => translated(&h, DVec3::ZERO),
                    }
                }
            };
            self.set_bounds(v, b);
            return Ok(true);
        }
        if t_kind == Some(model_type::LOD) {
            if let Some(vm) = self.visual_mut(v) {
                transform_quads(vm, &tx);
            }
            let b = match tr {
                Some(d) => translated(&h, d),
                None => {
                    let pts: Vec<[f32; 3]> = self
                        .visual(v)
                        .and_then(|x| x.lod_quads())
                        .map(|q| q.iter().flat_map(|q| q.iter().map(|l| l.pos)).collect())
                        .unwrap_or_default();
                    Bounds::of_points(&pts).unwrap_or_else(|| translated(&h, DVec3::ZERO))
                }
            };
            self.set_bounds(v, b);
            return Ok(true);
        }
        let Some(g) = vis.gcontainer() else {
            return Ok(false);
        };
        let copy = has_dups || shared(&base_visuals, state, v, &g, false);
        let Some((mut ng, positions)) = self.transform_range(&g, &tx, copy, false)? else {
            return Ok(false);
        };
        if mirrored {
            // a mirror turns the faces inside out: reverse every triangle (windows stay valid)
            let copy = has_dups || shared_indices(&base_visuals, state, v, &g, false);
            ng = self.flip_winding(&ng, copy, false)?;
        }
        if let Some(vm) = self.visual_mut(v) {
            hierarchy::set_gcontainer(vm, ng);
        }
        if let Some(fg) = vis.fastpath() {
            let copy = has_dups || shared(&base_visuals, state, v, &fg, true);
            if let Some((mut nf, _)) = self.transform_range(&fg, &tx, copy, true)? {
                if mirrored {
                    let copy = has_dups || shared_indices(&base_visuals, state, v, &fg, true);
                    nf = self.flip_winding(&nf, copy, true)?;
                }
                if let Some(vm) = self.visual_mut(v) {
                    hierarchy::set_fastpath(vm, nf);
                }
            }
        }
        let b = match tr {
            Some(d) => translated(&h, d),
            None => Bounds::of_points(&positions).unwrap_or_else(|| translated(&h, DVec3::ZERO)),
        };
        self.set_bounds(v, b);
        Ok(true)
    }

    /// New positions (same vertices) for a normal or progressive visual.
    fn edit_visual(
        &mut self,
        v: usize,
        reference: Option<&NodeGeo>,
        node: usize,
        has_dups: bool,
    ) -> Result<bool, ImportError> {
        let (edited, worlds, state) = (self.edited, self.worlds, self.state);
        let base_visuals = self.base.level.visuals();
        let vis = base_visuals[v].clone();
        if is_tree(vis.model_type()) {
            return self.edit_tree(v, reference, node, has_dups);
        }
        if vis.model_type() == Some(model_type::LOD) {
            return Ok(self.edit_lod(v, node));
        }
        if kind_of(vis.model_type()) != Kind::Static {
            self.summary.warnings.push(format!(
                "visual {v} ({}): edited geometry of this kind is not written back; kept",
                model_type::name(vis.model_type().unwrap_or(u8::MAX))
            ));
            return Ok(false);
        }
        let (Some(g), Some(e)) = (vis.gcontainer(), mapping::node_geo(edited, node, worlds)) else {
            return Ok(false);
        };
        let mirror = |p: DVec3| [p.x as f32, p.y as f32, -p.z as f32];
        let positions: Vec<[f32; 3]> = e.points.iter().map(|p| mirror(*p)).collect();
        let normals: Option<Vec<[f32; 3]>> = e
            .normals
            .as_ref()
            .map(|ns| ns.iter().map(|n| mirror(*n)).collect());
        let tris: Vec<[u32; 3]> = e
            .indices
            .chunks_exact(3)
            .map(|t| [t[0], t[2], t[1]])
            .collect();
        // vertices the user did not move keep their bytes
        let keep = unmoved(reference, &e);
        let n = positions.len().min(g.vb_count as usize) as u32;
        let Some((decl, mut verts)) = buffers::read_range(&self.geom, g.vb_index, g.vb_offset, n)
        else {
            return Ok(false);
        };
        encode::reposition(&mut verts, &positions, normals.as_deref(), &tris, &keep);
        let mut ng = g;
        if has_dups || shared(&base_visuals, state, v, &g, false) {
            // the copy takes the whole range (the vertices past the window too)
            let Some((_, mut all)) =
                buffers::read_range(&self.geom, g.vb_index, g.vb_offset, g.vb_count)
            else {
                return Ok(false);
            };
            encode::reposition(&mut all, &positions, normals.as_deref(), &tris, &keep);
            let (vb, first) = buffers::append_vertices(&mut self.geom, &decl, &all)?;
            ng.vb_index = vb;
            ng.vb_offset = first;
        } else {
            buffers::write_range(&mut self.geom, g.vb_index, g.vb_offset, &verts);
        }
        if let Some(vm) = self.visual_mut(v) {
            hierarchy::set_gcontainer(vm, ng);
        }
        if vis.fastpath().is_some() {
            // its own vertex list in level.geomx: regenerated from the new positions
            let f = self.fastpath_for(&ng, vis.swidata().cloned())?;
            self.put_fastpath(v, f);
        }
        if let Some(b) = Bounds::of_points(&verts.positions) {
            self.set_bounds(v, b);
        }
        Ok(true)
    }

    /// New positions for a LOD visual's billboard quads (exported with `--lods`: four vertices
    /// per quad, in order): the `LODDEF2` positions rewritten, UVs, colours and pad bytes
    /// kept; its bounds recomputed (from its quads and trees).
    fn edit_lod(&mut self, v: usize, node: usize) -> bool {
        let (edited, worlds) = (self.edited, self.worlds);
        let Some(e) = mapping::node_geo(edited, node, worlds) else {
            return false;
        };
        let Some(vm) = self.visual_mut(v) else {
            return false;
        };
        let mut done = false;
        for c in &mut vm.chunks {
            if let OgfChunk::LodDef(quads) | OgfChunk::LodDefOld(quads) = &mut c.value {
                if e.points.len() != quads.len() * 4 {
                    continue;
                }
                for (lv, p) in quads.iter_mut().flatten().zip(&e.points) {
                    lv.pos = f3(collision::mirror(*p));
                }
                done = true;
            }
        }
        if !done {
            self.summary.warnings.push(format!(
                "visual {v} (lod): its billboard mesh does not have four vertices per quad; kept"
            ));
            return false;
        }
        self.dirty[v] = true;
        self.recompute[v] = true;
        true
    }

    /// New positions (same vertices) for a tree instance: its own copy of the geometry,
    /// unless every other instance on the same vertices was edited alike (then the shared
    /// vertices are rewritten once, in place).
    fn edit_tree(
        &mut self,
        v: usize,
        reference: Option<&NodeGeo>,
        node: usize,
        has_dups: bool,
    ) -> Result<bool, ImportError> {
        let (edited, worlds, state) = (self.edited, self.worlds, self.state);
        let base_visuals = self.base.level.visuals();
        let vis = base_visuals[v].clone();
        let (Some(g), Some(td)) = (vis.gcontainer(), vis.treedef()) else {
            return Ok(false);
        };
        let Some((e, positions, normals)) = tree_local(&td, edited, node, worlds) else {
            self.summary.warnings.push(format!(
                "visual {v} (tree): its matrix cannot be inverted; edited geometry kept"
            ));
            return Ok(false);
        };
        let keep = unmoved(reference, &e);
        let tris: Vec<[u32; 3]> = e
            .indices
            .chunks_exact(3)
            .map(|t| [t[0], t[2], t[1]])
            .collect();
        let Some((decl, mut verts)) =
            buffers::read_range(self.base.geom, g.vb_index, g.vb_offset, g.vb_count)
        else {
            return Ok(false);
        };
        encode::reposition(&mut verts, &positions, normals.as_deref(), &tris, &keep);
        // the other instances drawing these vertices: in place only when each was edited to
        // the same model-space positions
        let end = |x: &GContainer| u64::from(x.vb_offset) + u64::from(x.vb_count);
        let alike = !has_dups
            && base_visuals.iter().enumerate().all(|(u, x)| {
                let Some(o) = x.gcontainer() else {
                    return true;
                };
                let overlaps = u != v
                    && o.vb_index == g.vb_index
                    && u64::from(o.vb_offset) < end(&g)
                    && u64::from(g.vb_offset) < end(&o);
                if !overlaps || state.get(u) == Some(&State::Delete) {
                    return true;
                }
                let (State::Edited(nu), Some(tu)) = (&state[u], x.treedef()) else {
                    return false;
                };
                o == g
                    && tree_local(&tu, edited, *nu, worlds).is_some_and(|(_, p, _)| {
                        p.len() == positions.len()
                            && p.iter()
                                .zip(&positions)
                                .all(|(a, b)| d3(*a).distance(d3(*b)) <= transform::TOLERANCE)
                    })
            });
        let mut ng = g;
        if alike {
            buffers::write_range(&mut self.geom, g.vb_index, g.vb_offset, &verts);
        } else {
            let (vb, first) = buffers::append_vertices(&mut self.geom, &decl, &verts)?;
            ng.vb_index = vb;
            ng.vb_offset = first;
            if let Some(vm) = self.visual_mut(v) {
                hierarchy::set_gcontainer(vm, ng);
            }
        }
        if let Some(fg) = vis.fastpath() {
            if alike {
                // the shared fast-path copy: its positions rewritten in place
                if let Some(gx) = self.geomx.as_mut() {
                    if let Some((_, mut fv)) =
                        buffers::read_range(gx, fg.vb_index, fg.vb_offset, fg.vb_count)
                    {
                        if fv.count == verts.count {
                            fv.positions.clone_from(&verts.positions);
                            buffers::write_range(gx, fg.vb_index, fg.vb_offset, &fv);
                        } else {
                            self.summary.warnings.push(format!(
                                "visual {v} (tree): its level.geomx copy has another vertex \
                                 count; not updated"
                            ));
                        }
                    }
                }
            } else {
                let f = self.fastpath_for(&ng, vis.swidata().cloned())?;
                self.put_fastpath(v, f);
            }
        }
        let world: Vec<[f32; 3]> = verts.positions.iter().map(|p| td.transform(*p)).collect();
        if let Some(b) = Bounds::of_points(&world) {
            self.set_bounds(v, b);
        }
        Ok(true)
    }

    /// List the vertex attributes of `decl` that visual `v` (from node `name`) got defaulted.
    fn note_defaulted(
        &mut self,
        v: usize,
        name: &str,
        decl: &crate::decl::Declaration,
        notes: &encode::NewAttributes,
    ) {
        let attributes = shading::relevant(decl, notes);
        if !attributes.is_empty() {
            self.summary.defaulted.push(Defaulted {
                visual: v,
                node: name.to_string(),
                attributes,
            });
        }
    }

    /// Another topology for a normal or progressive visual: new ranges.
    fn replace_visual(&mut self, v: usize, node: usize) -> Result<bool, ImportError> {
        let (edited, worlds) = (self.edited, self.worlds);
        let vis = self.base.level.visuals()[v].clone();
        let t = vis.model_type();
        if is_tree(t) {
            return self.replace_tree(v, node);
        }
        if kind_of(t) != Kind::Static {
            self.summary.warnings.push(format!(
                "visual {v} ({}): edited geometry of this kind is not written back; kept",
                model_type::name(t.unwrap_or(u8::MAX))
            ));
            return Ok(false);
        }
        let Some(g) = vis.gcontainer() else {
            return Ok(false);
        };
        let decl = match self
            .geom
            .vertex_buffers()
            .and_then(|b| b.get(g.vb_index as usize))
        {
            Some(b) => b.decl.clone(),
            None => return Ok(false),
        };
        let Some((verts, tris, notes)) = shading::node_vertices(edited, node, worlds) else {
            return Ok(false);
        };
        let (ng, b) = self.append_geometry(&decl, &verts, &tris)?;
        let vm = self
            .visual_mut(v)
            .ok_or_else(|| ImportError::Collision("lost visual".into()))?;
        hierarchy::set_gcontainer(vm, ng);
        vm.chunks
            .retain(|c| !matches!(c.value, OgfChunk::SwiData(_) | OgfChunk::SwiContainer(_)));
        if vis.fastpath().is_some() {
            let f = self.fastpath_for(&ng, None)?;
            self.put_fastpath(v, f);
        }
        let vm = self
            .visual_mut(v)
            .ok_or_else(|| ImportError::Collision("lost visual".into()))?;
        if t == Some(model_type::PROGRESSIVE) {
            if let Some(mut h) = vm.header() {
                h.model_type = model_type::NORMAL;
                hierarchy::set_header(vm, h);
            }
            self.summary.warnings.push(format!(
                "visual {v}: progressive, and its triangles changed: written as a normal visual \
                 (no levels of detail)"
            ));
        }
        self.set_bounds(v, b);
        self.note_defaulted(v, &edited.nodes[node].name, &decl, &notes);
        Ok(true)
    }

    /// Another topology for a tree instance: the mesh taken into the tree's model space
    /// through the inverse `TREEDEF2` matrix (normals through its transpose, tangent frames
    /// recomputed there), encoded in the tree's declaration with the wind values (and what the
    /// mesh lacks of light, hemi and sun) of the nearest old vertex, as the instance's own new
    /// vertex and index ranges; a TREE_PM becomes a TREE_ST (its windows no longer fit).
    fn replace_tree(&mut self, v: usize, node: usize) -> Result<bool, ImportError> {
        let (edited, worlds) = (self.edited, self.worlds);
        let vis = self.base.level.visuals()[v].clone();
        let (Some(g), Some(td)) = (vis.gcontainer(), vis.treedef()) else {
            return Ok(false);
        };
        let Some((decl, old)) =
            buffers::read_range(self.base.geom, g.vb_index, g.vb_offset, g.vb_count)
        else {
            return Ok(false);
        };
        if old.count == 0 {
            return Ok(false);
        }
        let m = DMat4::from_cols_array(&td.xform.map(f64::from));
        if m.determinant().abs() < 1e-12 {
            self.summary.warnings.push(format!(
                "visual {v} (tree): its matrix cannot be inverted; edited geometry kept"
            ));
            return Ok(false);
        }
        let Some((mut verts, tris, mut notes)) = shading::node_vertices(edited, node, worlds)
        else {
            return Ok(false);
        };
        // X-Ray world → tree model space
        let inv = m.inverse();
        let lin = glam::DMat3::from_mat4(m).transpose();
        for p in &mut verts.positions {
            *p = f3(inv.transform_point3(d3(*p)));
        }
        for n in &mut verts.normals {
            *n = f3((lin * d3(*n)).normalize_or(DVec3::Y));
        }
        let (tangents, binormals) =
            encode::tangent_frames(&verts.positions, &verts.uv, &verts.normals, &tris);
        verts.tangents = tangents;
        verts.binormals = binormals;
        // what the mesh does not carry, from the nearest old vertex (model space)
        let nearest: Vec<usize> = verts
            .positions
            .iter()
            .map(|p| {
                (0..old.count)
                    .min_by(|&a, &b| {
                        let d = |k: usize| d3(old.positions[k]).distance_squared(d3(*p));
                        d(a).total_cmp(&d(b))
                    })
                    .unwrap_or(0)
            })
            .collect();
        fn take<T: Copy>(dst: &mut Vec<T>, src: &[T], nearest: &[usize]) {
            if let Some(vals) = nearest.iter().map(|&k| src.get(k).copied()).collect() {
                *dst = vals;
            }
        }
        take(&mut verts.wind, &old.wind, &nearest);
        take(&mut verts.tangent_alpha, &old.tangent_alpha, &nearest);
        take(&mut verts.binormal_alpha, &old.binormal_alpha, &nearest);
        verts.other = old
            .other
            .iter()
            .map(|(e, vals)| {
                (
                    *e,
                    nearest
                        .iter()
                        .filter_map(|&k| vals.get(k).copied())
                        .collect(),
                )
            })
            .collect();
        let mut from_old = |label: &str| {
            let had = notes.defaulted.contains(&label);
            notes.defaulted.retain(|d| *d != label);
            had
        };
        if from_old("light") {
            take(&mut verts.colors, &old.colors, &nearest);
        }
        if from_old("hemi") {
            take(&mut verts.hemi, &old.hemi, &nearest);
        }
        if from_old("sun") {
            take(&mut verts.sun, &old.sun, &nearest);
        }
        if from_old("lightmap uv") {
            take(&mut verts.lightmap, &old.lightmap, &nearest);
        }
        let (ng, _) = self.append_geometry(&decl, &verts, &tris)?;
        let world: Vec<[f32; 3]> = verts.positions.iter().map(|p| td.transform(*p)).collect();
        let fast = if vis.fastpath().is_some() {
            Some(self.fastpath_for(&ng, None)?)
        } else {
            None
        };
        let vm = self
            .visual_mut(v)
            .ok_or_else(|| ImportError::Collision("lost visual".into()))?;
        hierarchy::set_gcontainer(vm, ng);
        if vis.model_type() == Some(model_type::TREE_PM) {
            vm.chunks
                .retain(|c| !matches!(c.value, OgfChunk::SwiData(_) | OgfChunk::SwiContainer(_)));
            if let Some(mut h) = vm.header() {
                h.model_type = model_type::TREE_ST;
                hierarchy::set_header(vm, h);
            }
            self.summary.warnings.push(format!(
                "visual {v}: a progressive tree (tree_pm), and its triangles changed: written \
                 as tree_st (its sliding windows no longer fit; no levels of detail)"
            ));
        }
        if let Some(f) = fast {
            self.put_fastpath(v, f);
        }
        if let Some(b) = Bounds::of_points(&world) {
            self.set_bounds(v, b);
        }
        self.note_defaulted(v, &edited.nodes[node].name, &decl, &notes);
        Ok(true)
    }

    /// A FASTPATH chunk for `level.geomx` regenerated from the geometry `g` draws in
    /// `level.geom` (its positions and its indices, copied; `swi` the windows of a progressive
    /// visual), or `None` when the level has no `level.geomx`.
    fn fastpath_for(
        &mut self,
        g: &GContainer,
        swi: Option<crate::geom::SwiItem>,
    ) -> Result<Option<Framed<OgfChunk>>, ImportError> {
        if self.geomx.is_none() {
            return Ok(None);
        }
        let Some((_, verts)) = buffers::read_range(&self.geom, g.vb_index, g.vb_offset, g.vb_count)
        else {
            return Ok(None);
        };
        let Some(idx) = buffers::indices(&self.geom, g.ib_index, g.ib_offset, g.ib_count) else {
            return Ok(None);
        };
        let Some(gx) = self.geomx.as_mut() else {
            return Ok(None);
        };
        let pos = crate::vertex::Vertices {
            count: verts.count,
            positions: verts.positions,
            ..crate::vertex::Vertices::default()
        };
        let g = buffers::append_range(gx, &crate::decl::x_vert(), &pos, &idx)?;
        let mut inner = vec![Framed::plain(
            crate::ogf::GCONTAINER,
            OgfChunk::GContainer(g),
        )];
        if let Some(s) = swi {
            inner.push(Framed::plain(crate::ogf::SWIDATA, OgfChunk::SwiData(s)));
        }
        Ok(Some(Framed::plain(
            crate::ogf::FASTPATH,
            OgfChunk::FastPath(inner),
        )))
    }

    /// Replace visual `v`'s FASTPATH chunk by `f` (in its place), or drop it when `f` is None.
    fn put_fastpath(&mut self, v: usize, f: Option<Framed<OgfChunk>>) {
        let Some(vm) = self.visual_mut(v) else {
            return;
        };
        match f {
            Some(f) => {
                for c in &mut vm.chunks {
                    if matches!(c.value, OgfChunk::FastPath(_)) {
                        *c = f;
                        return;
                    }
                }
            }
            None => hierarchy::drop_fastpath(vm),
        }
    }

    /// Append vertices and X-Ray-wound triangles: the range and the bounds.
    fn append_geometry(
        &mut self,
        decl: &crate::decl::Declaration,
        verts: &crate::vertex::Vertices,
        tris: &[[u32; 3]],
    ) -> Result<(GContainer, Bounds), ImportError> {
        let idx: Vec<u16> = tris
            .iter()
            .flat_map(|t| t.iter().map(|&i| i as u16))
            .collect();
        let g = buffers::append_range(&mut self.geom, decl, verts, &idx)?;
        let b = Bounds::of_points(&verts.positions)
            .ok_or_else(|| ImportError::Collision("a mesh without vertices".into()))?;
        Ok((g, b))
    }

    /// The collision wanted for visual `v`, reshaped by node `node`: the node's triangles
    /// (X-Ray space and winding) in the visual's sector.
    fn reshape_faces(&mut self, v: usize, node: usize, sectors: &[Vec<u16>]) {
        let (edited, worlds) = (self.edited, self.worlds);
        if self.base.level.visuals()[v].model_type() == Some(model_type::LOD) {
            return; // a billboard has no collision
        }
        let Some(g) = mapping::node_geo(edited, node, worlds) else {
            return;
        };
        let x = |i: u32| collision::mirror(g.points[i as usize]);
        let tris = g
            .indices
            .chunks_exact(3)
            .map(|t| [x(t[0]), x(t[2]), x(t[1])])
            .collect();
        self.new_faces.push(collision::NewFaces::Reshape {
            visual: v,
            node: edited.nodes[node].name.clone(),
            from: v,
            tris,
            sector: sectors.get(v).and_then(|s| s.first()).copied(),
        });
    }

    /// Push a new visual as a child of `parent`; its index.
    fn push_visual(&mut self, vis: Visual, parent: usize) -> usize {
        let Some(vs) = hierarchy::visuals_mut(&mut self.level) else {
            return 0;
        };
        let i = vs.len();
        vs.push(Framed::plain(i as u32, vis));
        let mut kids = vs[parent].value.children().to_vec();
        kids.push(i as u32);
        hierarchy::set_children(&mut vs[parent].value, kids);
        self.dirty.push(false);
        self.recompute.push(false);
        i
    }

    /// A second node of visual `v`: a copy.
    fn duplicate(
        &mut self,
        v: usize,
        change: &Change,
        parent: Option<usize>,
        name: &str,
        sectors: &[Vec<u16>],
    ) -> Result<(), ImportError> {
        let vis = self.base.level.visuals()[v].clone();
        let t = vis.model_type();
        let Some(parent) = parent else {
            self.summary.warnings.push(format!(
                "node {name:?}: a copy of visual {v}, which has no hierarchy visual above it; left out"
            ));
            return Ok(());
        };
        let m = match change {
            Change::Unchanged => DMat4::IDENTITY,
            Change::Moved(m) => *m,
            Change::Edited | Change::Replaced => {
                self.summary.warnings.push(format!(
                    "node {name:?}: a copy of visual {v} with edited geometry; copies are written \
                     only moved, left out"
                ));
                return Ok(());
            }
        };
        let tx = transform::to_xray(&m);
        // a translation moves the bounds exactly
        let tr = transform::is_translation(&tx).then(|| tx.w_axis.truncate());
        let h = vis.header();
        let mut copy = vis.clone();
        let bounds;
        match kind_of(t) {
            Kind::Tree => {
                let Some(mut td) = vis.treedef() else {
                    return Ok(());
                };
                let old = DMat4::from_cols_array(&tree_matrix(&td.xform).map(f64::from));
                td.xform = tree_matrix(&(m * old).to_cols_array().map(|x| x as f32));
                hierarchy::set_treedef(&mut copy, td);
                let pts: Vec<[f32; 3]> = vis
                    .gcontainer()
                    .and_then(|g| {
                        buffers::read_range(self.base.geom, g.vb_index, g.vb_offset, g.vb_count)
                    })
                    .map(|(_, vs)| vs.positions.iter().map(|p| td.transform(*p)).collect())
                    .unwrap_or_default();
                bounds = match (tr, h) {
                    (Some(d), Some(h)) => Some(translated(&h, d)),
                    _ => Bounds::of_points(&pts),
                };
            }
            Kind::Static => {
                let Some(g) = vis.gcontainer() else {
                    return Ok(());
                };
                if *change == Change::Unchanged {
                    bounds = h.map(|h| Bounds::of(&h));
                } else {
                    let (mut ng, pts) = match self.transform_range(&g, &tx, true, false)? {
                        Some(x) => x,
                        None => return Ok(()),
                    };
                    let mirrored = m.determinant() < 0.0;
                    if mirrored {
                        ng = self.flip_winding(&ng, true, false)?;
                    }
                    hierarchy::set_gcontainer(&mut copy, ng);
                    if let Some(fg) = vis.fastpath() {
                        match self.transform_range(&fg, &tx, true, true)? {
                            Some((mut nf, _)) => {
                                if mirrored {
                                    nf = self.flip_winding(&nf, true, true)?;
                                }
                                hierarchy::set_fastpath(&mut copy, nf)
                            }
                            None => hierarchy::drop_fastpath(&mut copy),
                        }
                    }
                    bounds = match (tr, h) {
                        (Some(d), Some(h)) => Some(translated(&h, d)),
                        _ => Bounds::of_points(&pts),
                    };
                }
            }
            _ => {
                self.summary.warnings.push(format!(
                    "node {name:?}: copies of {} visuals are not written; left out",
                    model_type::name(t.unwrap_or(u8::MAX))
                ));
                return Ok(());
            }
        }
        if let (Some(b), Some(mut hh)) = (bounds, copy.header()) {
            b.apply(&mut hh);
            hierarchy::set_header(&mut copy, hh);
        }
        let i = self.push_visual(copy, parent);
        self.dirty[i] = true;
        self.summary.added.push(Added {
            visual: i,
            node: name.to_string(),
            from: format!("copy of visual {v}"),
            copy_of: Some(v),
            model_type: model_type::name(t.unwrap_or(u8::MAX)).into(),
        });
        self.new_faces.push(collision::NewFaces::Copy {
            visual: i,
            node: name.to_string(),
            from: v,
            m: tx,
            sector: sectors.get(parent).and_then(|s| s.first()).copied(),
        });
        Ok(())
    }

    /// Copies of hierarchy and LOD nodes with their children (Shift+D on a group in
    /// Blender; `groups` the `(visual, node)` copies, `members` the copies of visuals inside
    /// them): each a new group visual under the original group's parent (or under the copy
    /// of the group around it), holding the copies of its children, its bounds recomputed
    /// from theirs. A LOD copy's quads move with its trees' copies, which must all have moved
    /// alike (and its billboard too, when the file has it); else it is left out with them.
    fn copy_groups(
        &mut self,
        groups: &[(usize, usize)],
        members: &[(usize, usize, Change)],
        group_of: &dyn Fn(usize) -> Option<usize>,
        parent: &[Option<usize>],
        ref_geo: &[Option<NodeGeo>],
        sectors: &mut Vec<Vec<u16>>,
    ) -> Result<(), ImportError> {
        let (edited, worlds) = (self.edited, self.worlds);
        let depth = |k: usize| {
            let mut d = 0;
            let mut x = group_of(groups[k].1);
            while let Some(o) = x {
                d += 1;
                if d > groups.len() {
                    break;
                }
                x = group_of(groups[o].1);
            }
            d
        };
        let mut order: Vec<usize> = (0..groups.len()).collect();
        order.sort_by_key(|&k| depth(k));
        let mut made: Vec<Option<usize>> = vec![None; groups.len()];
        for k in order {
            let (g, node) = groups[k];
            let name = edited.nodes[node].name.clone();
            let outer = group_of(node);
            let place = match outer {
                Some(o) => made[o],
                None => parent[g],
            };
            let Some(place) = place else {
                self.summary.warnings.push(match outer {
                    Some(_) => format!(
                        "node {name:?}: a copy of visual {g} inside a group copy that was left \
                         out; left out"
                    ),
                    None => format!(
                        "node {name:?}: a copy of visual {g}, which has no visual above it; \
                         left out with its children"
                    ),
                });
                continue;
            };
            let kids: Vec<&(usize, usize, Change)> = members
                .iter()
                .filter(|m| group_of(m.1) == Some(k))
                .collect();
            let inner = groups.iter().any(|x| group_of(x.1) == Some(k));
            let vis = &self.base.level.visuals()[g];
            let t = vis.model_type();
            let mut copy = (*vis).clone();
            hierarchy::set_children(&mut copy, Vec::new());
            if t == Some(model_type::LOD) {
                let ms: Vec<Option<DMat4>> = kids
                    .iter()
                    .map(|m| match &m.2 {
                        Change::Unchanged => Some(DMat4::IDENTITY),
                        Change::Moved(x) => Some(*x),
                        _ => None,
                    })
                    .collect();
                let first = ms.first().copied().flatten();
                let alike = |x: &DMat4| first.is_some_and(|m| transform::same_transform(x, &m));
                let trees_alike = ms.iter().all(|m| m.as_ref().is_some_and(alike));
                // a billboard in the file (exported with --lods) must have moved with them
                let own = mapping::node_geo(edited, node, worlds)
                    .zip(ref_geo[g].as_ref())
                    .map(|(e, r)| transform::classify(r, &e));
                let own_alike = match own {
                    None => true,
                    Some(Change::Unchanged) => alike(&DMat4::IDENTITY),
                    Some(Change::Moved(x)) => alike(&x),
                    Some(_) => false,
                };
                let (true, true, Some(m)) = (trees_alike, own_alike, first) else {
                    self.summary.warnings.push(format!(
                        "node {name:?}: a copy of LOD visual {g} whose trees' copies did not \
                         all move alike (or without any); left out with them"
                    ));
                    continue;
                };
                transform_quads(&mut copy, &transform::to_xray(&m));
            } else if kids.is_empty() && !inner {
                self.summary.warnings.push(format!(
                    "node {name:?}: a copy of visual {g} without copies of visuals inside it; \
                     left out"
                ));
                continue;
            }
            let i = self.push_visual(copy, place);
            // from its children's copies (and its billboard)
            self.recompute[i] = true;
            if sectors.len() <= i {
                sectors.resize(i + 1, Vec::new());
            }
            sectors[i] = sectors.get(place).cloned().unwrap_or_default();
            made[k] = Some(i);
            self.summary.added.push(Added {
                visual: i,
                node: name,
                from: format!("copy of visual {g} with its children"),
                copy_of: Some(g),
                model_type: model_type::name(t.unwrap_or(u8::MAX)).into(),
            });
            for (v, n, change) in kids {
                self.duplicate(*v, change, Some(i), &edited.nodes[*n].name, sectors)?;
            }
        }
        Ok(())
    }

    /// A node with a mesh and no mapping: one normal visual per primitive.
    fn add_mesh(
        &mut self,
        node: usize,
        parent_h: &[Option<usize>],
        sectors: &[Vec<u16>],
    ) -> Result<(), ImportError> {
        let (edited, worlds) = (self.edited, self.worlds);
        let n = &edited.nodes[node];
        let Some(mesh) = n.mesh.and_then(|m| edited.meshes.get(m)) else {
            return Ok(());
        };
        let world = mapping::dmat(&worlds[node]);
        let game_material =
            collision::extra_material(edited, node).map_err(|message| ImportError::Node {
                node: n.name.clone(),
                message,
            })?;
        for (pi, p) in mesh.primitives.iter().enumerate() {
            let (all, all_tris, notes) = encode::new_vertices(p, &world);
            if all_tris.is_empty() {
                continue;
            }
            let parts = encode::split(&all, &all_tris, buffers::MAX_VB_VERTICES);
            let label0 = if mesh.primitives.len() > 1 {
                format!("{}[{pi}]", n.name)
            } else {
                n.name.clone()
            };
            let (sid, decl) = shading::shader_and_decl(self, edited, p.material, &label0);
            let many = parts.len() > 1;
            for (k, (verts, tris)) in parts.into_iter().enumerate() {
                let label = if many {
                    format!("{label0} part {k}")
                } else {
                    label0.clone()
                };
                let (g, b) = self.append_geometry(&decl, &verts, &tris)?;
                let Some(parent) = shading::place(self, n, &b, parent_h, sectors) else {
                    self.summary.warnings.push(format!(
                        "node {label:?}: no hierarchy visual to put it under; left out"
                    ));
                    continue;
                };
                let mut h = OgfHeader {
                    format_version: 4,
                    model_type: model_type::NORMAL,
                    shader_id: sid,
                    bbox_min: [0.0; 3],
                    bbox_max: [0.0; 3],
                    sphere_center: [0.0; 3],
                    sphere_radius: 0.0,
                };
                b.apply(&mut h);
                let mut chunks = vec![Framed::plain(
                    crate::ogf::GCONTAINER,
                    OgfChunk::GContainer(g),
                )];
                // a FASTPATH copy in level.geomx when the level's normal visuals have one
                let level_has_fast =
                    self.base.level.visuals().iter().any(|x| {
                        x.model_type() == Some(model_type::NORMAL) && x.fastpath().is_some()
                    });
                if level_has_fast {
                    chunks.extend(self.fastpath_for(&g, None)?);
                }
                chunks.push(Framed::plain(crate::ogf::HEADER, OgfChunk::Header(h)));
                let vis = Visual { chunks };
                let i = self.push_visual(vis, parent);
                self.dirty[i] = true;
                self.summary.added.push(Added {
                    visual: i,
                    node: label.clone(),
                    from: "new mesh".into(),
                    copy_of: None,
                    model_type: "normal".into(),
                });
                let d = |k: u32| DVec3::from_array(verts.positions[k as usize].map(f64::from));
                self.new_faces.push(collision::NewFaces::Mesh {
                    visual: i,
                    node: label.clone(),
                    tris: tris.iter().map(|t| t.map(d)).collect(),
                    material: game_material,
                    sector: sectors.get(parent).and_then(|s| s.first()).copied(),
                });
                self.note_defaulted(i, &label, &decl, &notes);
            }
        }
        Ok(())
    }
}
