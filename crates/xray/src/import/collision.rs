//! `level.cform` after an import.
//!
//! * Without changes to any visual with geometry (or without a cform), it is kept as it was.
//! * **Following**: a collision triangle belongs to a visual when each of its three corners
//!   lies within [`NEAR`] of one of the visual's triangles in the base level (xrLC builds the
//!   collision from the same faces). A triangle that belongs only to visuals that were removed
//!   is removed; one that belongs only to visuals moved by the same transform moves: its
//!   vertices are transformed in place where every triangle still using them moves alike, and
//!   copied (appended) where they are shared with triangles that stay.
//!   One that belongs to several visuals treated differently is **ambiguous**: kept in place
//!   and counted. Every other triangle keeps its bytes; the header box is recomputed from
//!   the vertices when anything moved. Vertices only removed triangles used stay, unused.
//! * **Adding**: a copied visual (a duplicated node) gets a copy of its original's triangles
//!   (those belonging to it by the rule above, in the base level), transformed by the copy's
//!   move, with their material, flags and sector word kept (the sector set to the copy's
//!   sector when it has one); a mirroring copy reverses their winding. A new mesh gets one
//!   triangle per triangle of its visual(s) (the visual's winding, X-Ray space), its game
//!   material by this rule: the node extra `game_material` (decimal id, as the collision
//!   export's `material` extra; `suppress_shadows`/`suppress_wallmarks` node extras set the
//!   flag bits), else the glTF material's extra `game_material`, else the material of the
//!   base cform triangle nearest to the mesh's centre (reported in the summary), else 0; its
//!   sector the one its visual was placed in (else the nearest triangle's). The added
//!   vertices are appended (equal corners welded per visual); the header box is recomputed.
//! * **Reshaping**: the triangles belonging to an edited visual (the rule above; shared only
//!   with removed or other reshaped visuals) are removed with its old shape
//!   ([`super::summary::CollisionSummary::replaced`]), and its new triangles (X-Ray space and
//!   winding, zero-area ones left out) added, each a copy of one of its old triangles (the
//!   most common material and flag word; equally common ones: the old triangle nearest to
//!   the new shape's centre; version 2/3 unknown fields kept) with the visual's sector. No
//!   old triangle of its own: no new ones (a warning).
//! * **Replacing** (`--collision`): the triangles of the nodes named `mat{id}_sec{sector}` (as
//!   the collision export names them; Blender's `.001` ignored), mirrored back into X-Ray
//!   space with their winding reversed, equal corners welded; the extras `suppress_shadows`
//!   and `suppress_wallmarks` set bits 14 and 15. Written in the base cform's version (4
//!   when there is none); version 2/3 triangles get their unknown fields zero.

use std::collections::HashMap;

use glam::{DMat4, DVec3};
use levelgeom_scene::Scene;

use super::mapping::{self, NodeGeo};
use super::summary::Summary;
use super::{Base, ImportError};
use crate::cform::{Cform, OldTri, Tri, VERSION};

/// How close (metres) a collision corner must be to a visual's triangle to belong to it.
pub const NEAR: f64 = 0.02;

/// glTF ⇄ X-Ray (`z` negated; a zero comes back as +0, whatever its sign on the way).
pub(super) fn mirror(p: DVec3) -> DVec3 {
    DVec3::new(p.x, p.y, 0.0 - p.z)
}

/// The closest point of triangle `abc` to `p` (Ericson, *Real-Time Collision Detection* 5.1.5).
fn closest(p: DVec3, a: DVec3, b: DVec3, c: DVec3) -> DVec3 {
    let (ab, ac, ap) = (b - a, c - a, p - a);
    let (d1, d2) = (ab.dot(ap), ac.dot(ap));
    if d1 <= 0.0 && d2 <= 0.0 {
        return a;
    }
    let bp = p - b;
    let (d3, d4) = (ab.dot(bp), ac.dot(bp));
    if d3 >= 0.0 && d4 <= d3 {
        return b;
    }
    let vc = d1 * d4 - d3 * d2;
    if vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 {
        return a + ab * (d1 / (d1 - d3));
    }
    let cp = p - c;
    let (d5, d6) = (ab.dot(cp), ac.dot(cp));
    if d6 >= 0.0 && d5 <= d6 {
        return c;
    }
    let vb = d5 * d2 - d1 * d6;
    if vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 {
        return a + ac * (d2 / (d2 - d6));
    }
    let va = d3 * d6 - d5 * d4;
    if va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0 {
        return b + (c - b) * ((d4 - d3) / ((d4 - d3) + (d5 - d6)));
    }
    let denom = va + vb + vc;
    if denom.abs() < 1e-300 {
        return a;
    }
    a + ab * (vb / denom) + ac * (vc / denom)
}

/// Triangles of the visuals in X-Ray space, in a grid of cells of `cell` metres.
pub(super) struct Grid {
    cell: f64,
    tris: Vec<(usize, [DVec3; 3])>,
    cells: HashMap<(i64, i64, i64), Vec<u32>>,
}

impl Grid {
    fn key(&self, p: DVec3) -> (i64, i64, i64) {
        let k = |v: f64| (v / self.cell).floor() as i64;
        (k(p.x), k(p.y), k(p.z))
    }

    pub(super) fn new(geo: &[Option<NodeGeo>], cell: f64) -> Grid {
        let mut g = Grid {
            cell,
            tris: Vec::new(),
            cells: HashMap::new(),
        };
        for (v, n) in geo.iter().enumerate() {
            let Some(n) = n else { continue };
            for t in n.indices.chunks_exact(3) {
                let tri = [0, 1, 2].map(|k| mirror(n.points[t[k] as usize]));
                let id = g.tris.len() as u32;
                g.tris.push((v, tri));
                let lo = g.key(tri[0].min(tri[1]).min(tri[2]) - DVec3::splat(NEAR));
                let hi = g.key(tri[0].max(tri[1]).max(tri[2]) + DVec3::splat(NEAR));
                // huge triangles would fill many cells: cap the span, they are few (in f64:
                // far-away or non-finite corners give keys whose differences overflow i64)
                let side = |a: i64, b: i64| b as f64 - a as f64 + 1.0;
                let span = side(lo.0, hi.0) * side(lo.1, hi.1) * side(lo.2, hi.2);
                if span.is_nan() || span > 4096.0 {
                    g.cells.entry((i64::MIN, 0, 0)).or_default().push(id);
                    continue;
                }
                for x in lo.0..=hi.0 {
                    for y in lo.1..=hi.1 {
                        for z in lo.2..=hi.2 {
                            g.cells.entry((x, y, z)).or_default().push(id);
                        }
                    }
                }
            }
        }
        g
    }

    /// The visuals with a triangle within [`NEAR`] of `p`.
    pub(super) fn near(&self, p: DVec3) -> Vec<usize> {
        let mut out = Vec::new();
        let big = self.cells.get(&(i64::MIN, 0, 0));
        for id in self
            .cells
            .get(&self.key(p))
            .into_iter()
            .chain(big)
            .flatten()
        {
            let (v, [a, b, c]) = self.tris[*id as usize];
            if !out.contains(&v) && closest(p, a, b, c).distance(p) <= NEAR {
                out.push(v);
            }
        }
        out
    }
}

/// Collision wanted for a visual the import added.
#[derive(Clone, Debug)]
pub(super) enum NewFaces {
    /// A copy of base visual `from`, placed by `m` (X-Ray space).
    Copy {
        /// The new visual (index before removals are applied; renumbered by the caller).
        visual: usize,
        /// Its node.
        node: String,
        /// The original.
        from: usize,
        /// The copy's transform from the original's base position.
        m: DMat4,
        /// The sector the copy was placed in.
        sector: Option<u16>,
    },
    /// A new mesh.
    Mesh {
        /// The new visual.
        visual: usize,
        /// Its node.
        node: String,
        /// Its triangles, X-Ray space and winding.
        tris: Vec<[DVec3; 3]>,
        /// The game material the user set (extras), with its flag bits (14, 15).
        material: Option<(u32, u32)>,
        /// The sector it was placed in.
        sector: Option<u16>,
    },
    /// Base visual `from`, reshaped (edited): its old triangles go, these come.
    Reshape {
        /// The visual (its index in the new level once renumbered by the caller).
        visual: usize,
        /// Its node.
        node: String,
        /// The visual in the base level.
        from: usize,
        /// Its new triangles, X-Ray space and winding.
        tris: Vec<[DVec3; 3]>,
        /// The visual's sector.
        sector: Option<u16>,
    },
}

impl NewFaces {
    /// The new visual's index.
    pub(super) fn visual_mut(&mut self) -> &mut usize {
        match self {
            NewFaces::Copy { visual, .. }
            | NewFaces::Mesh { visual, .. }
            | NewFaces::Reshape { visual, .. } => visual,
        }
    }
}

/// The game material (and flag bits) a new mesh's extras set: the node's `game_material`
/// (with `suppress_shadows` / `suppress_wallmarks`), else its material's; `Err` for a value
/// that is not a 14-bit id.
pub(super) fn extra_material(scene: &Scene, node: usize) -> Result<Option<(u32, u32)>, String> {
    let n = &scene.nodes[node];
    let from_material = n
        .mesh
        .and_then(|m| scene.meshes.get(m))
        .and_then(|m| m.primitives.iter().find_map(|p| p.material))
        .and_then(|m| scene.materials.get(m))
        .map(|m| m.extras.as_slice())
        .unwrap_or_default();
    let get = |ex: &[(String, String)]| {
        ex.iter()
            .find(|(k, _)| k == "game_material")
            .map(|(_, v)| v.clone())
    };
    let Some(text) = get(&n.extras).or_else(|| get(from_material)) else {
        return Ok(None);
    };
    let id: u32 = text
        .trim()
        .parse()
        .ok()
        .filter(|&m| m <= 0x3FFF)
        .ok_or_else(|| {
            format!("extra game_material {text:?} is not a game material id (0..16383)")
        })?;
    Ok(Some((id, flag_bits(&n.extras))))
}

/// The new collision (see the module docs).
pub(super) fn collision(
    base: &Base<'_>,
    moves: &[Option<DMat4>],
    remove: &[bool],
    geo: &[Option<NodeGeo>],
    mesh: Option<&Scene>,
    added: &[NewFaces],
    summary: &mut Summary,
) -> Result<Option<Cform>, ImportError> {
    if let Some(scene) = mesh {
        let c = replace(scene, base.cform)?;
        summary.collision.mode = "replaced".into();
        summary.collision.faces_before = base.cform.map_or(0, |c| c.tris.len());
        summary.collision.faces_after = c.tris.len();
        return Ok(Some(c));
    }
    let Some(cf) = base.cform else {
        summary.collision.mode = "none".into();
        return Ok(None);
    };
    let mut reshaped = vec![false; geo.len()];
    for a in added {
        if let NewFaces::Reshape { from, .. } = a {
            if let Some(r) = reshaped.get_mut(*from) {
                *r = true;
            }
        }
    }
    let (mut out, old_faces) = follow(cf, moves, remove, &reshaped, geo, summary);
    if !added.is_empty() {
        add_faces(cf, &mut out, geo, added, &old_faces, summary);
        if summary.collision.added > 0 {
            summary.collision.mode = "followed".into();
            set_box(&mut out);
        }
    }
    summary.collision.faces_after = out.tris.len();
    Ok(Some(out))
}

/// A triangle of `cf` with valid vertex indices: its corners.
fn corners(cf: &Cform, t: &Tri) -> Option<[DVec3; 3]> {
    let n = cf.vertices.len();
    if t.verts.iter().any(|&v| v as usize >= n) {
        return None;
    }
    Some(
        t.verts
            .map(|v| DVec3::from_array(cf.vertices[v as usize].map(f64::from))),
    )
}

/// The visuals within [`NEAR`] of all three corners.
pub(super) fn owners_of(grid: &Grid, c: &[DVec3; 3]) -> Vec<usize> {
    let mut owners = grid.near(c[0]);
    for p in &c[1..] {
        let here = grid.near(*p);
        owners.retain(|v| here.contains(v));
    }
    owners
}

/// `t` with its sector set to `sector`.
fn with_sector(mut t: Tri, sector: u16) -> Tri {
    match &mut t.old {
        Some(o) => o.sector = sector,
        None => t.dummy = (t.dummy & 0xFFFF) | u32::from(sector) << 16,
    }
    t
}

/// Triangles for copied and new visuals, appended to `out` (see the module docs).
fn add_faces(
    cf: &Cform,
    out: &mut Cform,
    geo: &[Option<NodeGeo>],
    added: &[NewFaces],
    old_faces: &HashMap<usize, Vec<usize>>,
    summary: &mut Summary,
) {
    let grid = added
        .iter()
        .any(|a| matches!(a, NewFaces::Copy { .. }))
        .then(|| Grid::new(geo, 2.0));
    for a in added {
        let before = out.tris.len();
        let mut to = Appender {
            cf,
            out: &mut *out,
            weld: HashMap::new(),
        };
        let (visual, node, material, source) = match a {
            NewFaces::Copy {
                visual,
                node,
                from,
                m,
                sector,
            } => {
                let (Some(grid), Some(Some(g))) = (&grid, geo.get(*from)) else {
                    continue;
                };
                let Some(material) = to.copy(grid, g, *from, m, *sector) else {
                    continue;
                };
                (visual, node, material, format!("copy of visual {from}"))
            }
            NewFaces::Reshape {
                visual,
                node,
                from,
                tris,
                sector,
            } => {
                let old = old_faces.get(from).map_or(&[][..], Vec::as_slice);
                let Some((template, how)) = reshape_template(cf, old, tris) else {
                    summary.warnings.push(format!(
                        "visual {from} (node {node:?}): reshaped, but no collision triangle \
                         was its own; its new shape gets none"
                    ));
                    continue;
                };
                to.reshape(template, tris, sector.unwrap_or_else(|| template.sector()));
                let source = format!("new shape of visual {from}: {how}");
                (visual, node, template.material(), source)
            }
            NewFaces::Mesh {
                visual,
                node,
                tris,
                material,
                sector,
            } => {
                if tris.is_empty() {
                    continue;
                }
                let (id, source) = to.mesh(node, tris, *material, *sector, &mut summary.warnings);
                (visual, node, id, source)
            }
        };
        let faces = out.tris.len() - before;
        summary
            .collision
            .added_faces
            .push(super::summary::FacesAdded {
                visual: *visual,
                node: node.clone(),
                faces,
                material,
                source,
            });
        summary.collision.added += faces;
    }
}

/// The triangles added for one visual, appended to `out` with equal corners welded.
struct Appender<'a> {
    /// The base cform.
    cf: &'a Cform,
    out: &'a mut Cform,
    weld: HashMap<[u32; 3], u32>,
}

impl Appender<'_> {
    /// The index of a vertex at `p`, appended unless this visual already has it.
    fn vertex(&mut self, p: DVec3) -> u32 {
        let p = [p.x as f32, p.y as f32, p.z as f32];
        let out = &mut *self.out;
        *self.weld.entry(p.map(f32::to_bits)).or_insert_with(|| {
            out.vertices.push(p);
            (out.vertices.len() - 1) as u32
        })
    }

    /// Copy the base triangles of visual `from` (geometry `g`) placed by `m`, with `sector` if
    /// set. Returns the most common game material of the copies; `None` when none were made.
    fn copy(
        &mut self,
        grid: &Grid,
        g: &NodeGeo,
        from: usize,
        m: &DMat4,
        sector: Option<u16>,
    ) -> Option<u32> {
        let cf = self.cf;
        let pts = g.points.iter().map(|p| mirror(*p));
        let lo = pts.clone().fold(DVec3::splat(f64::INFINITY), DVec3::min) - DVec3::splat(NEAR);
        let hi = pts.fold(DVec3::splat(f64::NEG_INFINITY), DVec3::max) + DVec3::splat(NEAR);
        let flip = m.determinant() < 0.0;
        let mut materials: HashMap<u32, usize> = HashMap::new();
        for t in &cf.tris {
            let Some(c) = corners(cf, t) else { continue };
            let inside = c.iter().all(|p| p.cmpge(lo).all() && p.cmple(hi).all());
            if !inside || !owners_of(grid, &c).contains(&from) {
                continue;
            }
            let mut verts = c.map(|p| self.vertex(m.transform_point3(p)));
            if flip {
                verts.swap(1, 2);
            }
            let mut nt = *t;
            nt.verts = verts;
            if let Some(s) = sector {
                nt = with_sector(nt, s);
            }
            *materials.entry(t.material()).or_default() += 1;
            self.out.tris.push(nt);
        }
        materials
            .iter()
            .max_by_key(|(m, n)| (**n, std::cmp::Reverse(**m)))
            .map(|(m, _)| *m)
    }

    /// A reshaped visual's new triangles `tris`, copies of `template` in sector `sector`;
    /// zero-area ones left out (nothing to collide with).
    fn reshape(&mut self, template: Tri, tris: &[[DVec3; 3]], sector: u16) {
        for t in tris {
            let [a, b, c] = *t;
            if (b - a).cross(c - a).length_squared() <= 1e-18 {
                continue;
            }
            let mut nt = with_sector(template, sector);
            nt.verts = t.map(|p| self.vertex(p));
            self.out.tris.push(nt);
        }
    }

    /// A new mesh's triangles `tris` (node `node`), with the game material the user set or the
    /// one of the base triangle nearest to its centre. Returns the material id and where it
    /// came from.
    fn mesh(
        &mut self,
        node: &str,
        tris: &[[DVec3; 3]],
        material: Option<(u32, u32)>,
        sector: Option<u16>,
        warnings: &mut Vec<String>,
    ) -> (u32, String) {
        let cf = self.cf;
        let lo = tris
            .iter()
            .flatten()
            .fold(DVec3::splat(f64::INFINITY), |a, b| a.min(*b));
        let hi = tris
            .iter()
            .flatten()
            .fold(DVec3::splat(f64::NEG_INFINITY), |a, b| a.max(*b));
        let centre = (lo + hi) * 0.5;
        // the base triangle nearest to the centre
        let nearest = cf
            .tris
            .iter()
            .enumerate()
            .filter_map(|(i, t)| {
                let [a, b, c] = corners(cf, t)?;
                Some((i, closest(centre, a, b, c).distance(centre)))
            })
            .min_by(|x, y| x.1.total_cmp(&y.1))
            .map(|(i, _)| i);
        let (id, flags, source) = match (material, nearest) {
            (Some((id, flags)), _) => (id, flags, "extra game_material".to_string()),
            (None, Some(i)) => (cf.tris[i].material(), 0, format!("nearest face {i}")),
            (None, None) => {
                warnings.push(format!(
                    "node {node:?}: no game_material extra and no collision triangle to \
                     take one from; its collision has game material 0"
                ));
                (0, 0, "none (0)".to_string())
            }
        };
        let sec = sector
            .or_else(|| nearest.map(|i| cf.tris[i].sector()))
            .unwrap_or(0);
        for t in tris {
            let verts = t.map(|p| self.vertex(p));
            let version = self.out.version;
            self.out.tris.push(new_tri(version, verts, id, flags, sec));
        }
        (id, source)
    }
}

/// Triangles of moved and removed visuals follow them (see the module docs).
/// Returns the new cform and, per reshaped visual, the base triangles removed with it.
fn follow(
    cf: &Cform,
    moves: &[Option<DMat4>],
    remove: &[bool],
    reshaped: &[bool],
    geo: &[Option<NodeGeo>],
    summary: &mut Summary,
) -> (Cform, HashMap<usize, Vec<usize>>) {
    let n = cf.tris.len();
    summary.collision.faces_before = n;
    summary.collision.faces_after = n;
    let changes = Changes {
        moves,
        remove,
        reshaped,
        affected: (0..geo.len())
            .map(|v| {
                geo[v].is_some()
                    && (moves.get(v).is_some_and(Option::is_some)
                        || remove.get(v).copied().unwrap_or(false)
                        || reshaped.get(v).copied().unwrap_or(false))
            })
            .collect(),
    };
    if !changes.affected.contains(&true) {
        summary.collision.mode = "kept".into();
        return (cf.clone(), HashMap::new());
    }
    summary.collision.mode = "followed".into();
    let (action, old_faces) = changes.classify(cf, geo, summary);
    let mut out = changes.apply(cf, &action);
    if summary.collision.moved > 0 {
        set_box(&mut out);
    }
    summary.collision.faces_after = out.tris.len();
    if summary.collision.ambiguous > 0 {
        summary.warnings.push(format!(
            "level.cform: {} collision triangle(s) lie on several visuals that were not changed \
             alike; kept in place",
            summary.collision.ambiguous
        ));
    }
    (out, old_faces)
}

/// What a triangle does when its visuals change: `None` = stays, `Some(None)` = removed,
/// `Some(Some(v))` = moves with visual `v` (the first of those moved alike).
type Action = Option<Option<usize>>;

/// How the triangles still using a vertex treat it.
#[derive(Clone, Copy, PartialEq)]
enum Use {
    Unused,
    Stays,
    Moves(usize),
    Mixed,
}

/// The changes [`follow`] applies: per base visual its move, removal and reshaping.
struct Changes<'a> {
    moves: &'a [Option<DMat4>],
    remove: &'a [bool],
    reshaped: &'a [bool],
    /// Visuals with geometry that moved, went or changed shape.
    affected: Vec<bool>,
}

impl Changes<'_> {
    fn removed(&self, v: usize) -> bool {
        self.remove.get(v).copied().unwrap_or(false)
    }

    fn is_reshaped(&self, v: usize) -> bool {
        self.reshaped.get(v).copied().unwrap_or(false)
    }

    /// Boxes of the affected visuals, grown by [`NEAR`], to skip far triangles quickly.
    fn boxes(&self, geo: &[Option<NodeGeo>]) -> Vec<(DVec3, DVec3)> {
        (0..geo.len())
            .filter(|&v| self.affected[v])
            .filter_map(|v| {
                let g = geo[v].as_ref()?;
                let pts = g.points.iter().map(|p| mirror(*p));
                let lo = pts.clone().fold(DVec3::splat(f64::INFINITY), DVec3::min);
                let hi = pts.fold(DVec3::splat(f64::NEG_INFINITY), DVec3::max);
                Some((lo - DVec3::splat(NEAR), hi + DVec3::splat(NEAR)))
            })
            .collect()
    }

    /// Visuals moved alike share one key (the first of them), so vertices between them move
    /// once.
    fn representatives(&self) -> Vec<usize> {
        let moves = self.moves;
        (0..moves.len())
            .map(|v| match moves[v] {
                Some(m) => (0..=v)
                    .find(|&u| moves[u].is_some_and(|x| super::transform::same_transform(&x, &m)))
                    .unwrap_or(v),
                None => v,
            })
            .collect()
    }

    /// What each triangle of `cf` does, counted in `summary`; and per reshaped visual the
    /// base triangles removed with its old shape.
    fn classify(
        &self,
        cf: &Cform,
        geo: &[Option<NodeGeo>],
        summary: &mut Summary,
    ) -> (Vec<Action>, HashMap<usize, Vec<usize>>) {
        let grid = Grid::new(geo, 2.0);
        let boxes = self.boxes(geo);
        let rep = self.representatives();
        let mut old_faces: HashMap<usize, Vec<usize>> = HashMap::new();
        let mut action: Vec<Action> = vec![None; cf.tris.len()];
        for (ti, t) in cf.tris.iter().enumerate() {
            let Some(corners) = corners(cf, t) else {
                continue;
            };
            let lo = corners[0].min(corners[1]).min(corners[2]);
            let hi = corners[0].max(corners[1]).max(corners[2]);
            if !boxes
                .iter()
                .any(|(a, b)| lo.cmple(*b).all() && hi.cmpge(*a).all())
            {
                continue;
            }
            let owners = owners_of(&grid, &corners);
            if !owners.iter().any(|&v| self.affected[v]) {
                continue;
            }
            action[ti] = self.decide(ti, &owners, &rep, &mut old_faces, summary);
        }
        (action, old_faces)
    }

    /// What triangle `ti`, near all of `owners`, does.
    fn decide(
        &self,
        ti: usize,
        owners: &[usize],
        rep: &[usize],
        old_faces: &mut HashMap<usize, Vec<usize>>,
        summary: &mut Summary,
    ) -> Action {
        let moves = self.moves;
        let first_move = owners
            .iter()
            .find_map(|&v| moves.get(v).copied().flatten().map(|m| (v, m)));
        let all_moved_alike = first_move.is_some_and(|(_, m)| {
            owners.iter().all(|&v| {
                moves
                    .get(v)
                    .copied()
                    .flatten()
                    .is_some_and(|x| super::transform::same_transform(&x, &m))
            })
        });
        if owners
            .iter()
            .all(|&v| self.removed(v) || self.is_reshaped(v))
        {
            let mut mine = owners.iter().filter(|&&v| self.is_reshaped(v)).peekable();
            if mine.peek().is_some() {
                // goes with its visual's old shape; the new shape gets new triangles
                for &v in mine {
                    old_faces.entry(v).or_default().push(ti);
                }
                summary.collision.replaced += 1;
            } else {
                summary.collision.removed += 1;
            }
            Some(None)
        } else if let (true, Some((v, _))) = (all_moved_alike, first_move) {
            summary.collision.moved += 1;
            Some(Some(rep[v]))
        } else {
            summary.collision.ambiguous += 1;
            if summary.collision.ambiguous_faces.len() < 20 {
                summary.collision.ambiguous_faces.push(ti);
            }
            None
        }
    }

    /// `cf` with `action` applied. A vertex moves in place when every triangle still using it
    /// moves alike; one shared with triangles that stay (or move otherwise) is copied for the
    /// moving ones.
    fn apply(&self, cf: &Cform, action: &[Action]) -> Cform {
        let vcount = cf.vertices.len();
        let users = vertex_users(cf, action);
        let mixed: Vec<bool> = users.iter().map(|u| *u == Use::Mixed).collect();
        let mut out = cf.clone();
        let mut copies: HashMap<(u32, usize), u32> = HashMap::new();
        for (ti, t) in cf.tris.iter().enumerate() {
            let Some(Some(owner)) = action[ti] else {
                continue;
            };
            let Some(m) = self.moves.get(owner).copied().flatten() else {
                continue;
            };
            let mut verts = t.verts;
            for v in &mut verts {
                let old = *v;
                if !mixed[old as usize] {
                    continue; // moved in place below
                }
                *v = *copies.entry((old, owner)).or_insert_with(|| {
                    let p = m.transform_point3(DVec3::from_array(
                        cf.vertices[old as usize].map(f64::from),
                    ));
                    out.vertices.push([p.x as f32, p.y as f32, p.z as f32]);
                    (out.vertices.len() - 1) as u32
                });
            }
            out.tris[ti].verts = verts;
        }
        for v in 0..vcount {
            if let Some(Use::Moves(owner)) = users.get(v) {
                if let Some(m) = self.moves.get(*owner).copied().flatten() {
                    let p = m.transform_point3(DVec3::from_array(cf.vertices[v].map(f64::from)));
                    out.vertices[v] = [p.x as f32, p.y as f32, p.z as f32];
                }
            }
        }
        let keep: Vec<bool> = action.iter().map(|a| *a != Some(None)).collect();
        let mut i = 0;
        out.tris.retain(|_| {
            i += 1;
            keep[i - 1]
        });
        out
    }
}

/// How the triangles that `action` keeps use each vertex of `cf`.
fn vertex_users(cf: &Cform, action: &[Action]) -> Vec<Use> {
    let mut users = vec![Use::Unused; cf.vertices.len()];
    for (ti, t) in cf.tris.iter().enumerate() {
        let a = match action[ti] {
            Some(None) => continue,
            Some(Some(v)) => Use::Moves(v),
            None => Use::Stays,
        };
        for &v in &t.verts {
            if let Some(u) = users.get_mut(v as usize) {
                *u = match *u {
                    Use::Unused => a,
                    x if x == a => x,
                    _ => Use::Mixed,
                };
            }
        }
    }
    users
}

/// The game material (with its flag bits) of a triangle: the low 16 bits of a version-4
/// triangle's word, a version 2/3 triangle's material field.
fn material_key(t: &Tri) -> u32 {
    match &t.old {
        Some(o) => o.material,
        None => t.dummy & 0xFFFF,
    }
}

/// The triangle a reshaped visual's new triangles copy (material, flags and, for version 2/3,
/// the unknown fields) from its old ones `old` (indices into `cf`): one of the most common
/// game material; when several are equally common, the old triangle nearest to the centre of
/// `tris`. With how it was chosen; `None` without old triangles.
fn reshape_template(cf: &Cform, old: &[usize], tris: &[[DVec3; 3]]) -> Option<(Tri, String)> {
    let mut counts: Vec<(u32, usize)> = Vec::new();
    for t in old.iter().filter_map(|&i| cf.tris.get(i)) {
        let k = material_key(t);
        match counts.iter_mut().find(|(x, _)| *x == k) {
            Some(c) => c.1 += 1,
            None => counts.push((k, 1)),
        }
    }
    let top = counts.iter().map(|c| c.1).max()?;
    let tied: Vec<u32> = counts.iter().filter(|c| c.1 == top).map(|c| c.0).collect();
    let candidates = old
        .iter()
        .filter_map(|&i| Some((i, cf.tris.get(i)?)))
        .filter(|(_, t)| tied.contains(&material_key(t)));
    let n = old.len();
    if tied.len() == 1 {
        let (_, t) = candidates.into_iter().next()?;
        let how = format!("the game material of {top} of its {n} old triangle(s)");
        return Some((*t, how));
    }
    let all: Vec<DVec3> = tris.iter().flatten().copied().collect();
    let centre = all.iter().copied().sum::<DVec3>() / all.len().max(1) as f64;
    let (i, t) = candidates
        .filter_map(|(i, t)| {
            let [a, b, c] = corners(cf, t)?;
            Some((i, t, closest(centre, a, b, c).distance(centre)))
        })
        .min_by(|x, y| x.2.total_cmp(&y.2))
        .map(|(i, t, _)| (i, t))?;
    let how = format!(
        "{} game materials equally common among its {n} old triangle(s): that of the \
         nearest, face {i}",
        tied.len()
    );
    Some((*t, how))
}

/// Bits 14 and 15 from the extras `suppress_shadows` / `suppress_wallmarks` (`true` or `1`).
fn flag_bits(extras: &[(String, String)]) -> u32 {
    let flag = |k: &str| {
        extras
            .iter()
            .any(|(x, v)| x == k && matches!(v.as_str(), "true" | "1"))
    };
    u32::from(flag("suppress_shadows")) << 14 | u32::from(flag("suppress_wallmarks")) << 15
}

/// A triangle of a cform of `version`: material, flag bits (14, 15; version 4 only) and
/// sector; version 2/3 triangles get their unknown fields zero.
fn new_tri(version: u32, verts: [u32; 3], material: u32, flags: u32, sector: u16) -> Tri {
    if version == VERSION {
        Tri {
            verts,
            dummy: material | flags | u32::from(sector) << 16,
            old: None,
        }
    } else {
        Tri {
            verts,
            dummy: 0,
            old: Some(OldTri {
                raw: [0; 3],
                raw16: 0,
                sector,
                material,
            }),
        }
    }
}

/// The header box from the vertices.
fn set_box(c: &mut Cform) {
    let mut lo = [f32::INFINITY; 3];
    let mut hi = [f32::NEG_INFINITY; 3];
    for p in &c.vertices {
        for k in 0..3 {
            lo[k] = lo[k].min(p[k]);
            hi[k] = hi[k].max(p[k]);
        }
    }
    if c.vertices.is_empty() {
        lo = [0.0; 3];
        hi = [0.0; 3];
    }
    c.bbox_min = lo;
    c.bbox_max = hi;
}

/// `mat{id}_sec{sector}` → (id, sector).
fn group_name(name: &str) -> Option<(u32, u16)> {
    let rest = mapping::base_name(name).strip_prefix("mat")?;
    let (m, s) = rest.split_once("_sec")?;
    Some((m.parse().ok()?, s.parse().ok()?))
}

/// A cform from the collision mesh (see the module docs).
/// The largest |coordinate| a collision corner may have, in metres (10,000 km): no level is
/// near that size, and farther corners (or non-finite ones) would only wreck the collision
/// grid the engine builds from the file.
const MAX_COORD: f32 = 1.0e7;

fn replace(scene: &Scene, base: Option<&Cform>) -> Result<Cform, ImportError> {
    let version = base.map_or(VERSION, |c| c.version);
    let worlds = scene.world_matrices();
    let mut c = Cform {
        version,
        bbox_min: [0.0; 3],
        bbox_max: [0.0; 3],
        vertices: Vec::new(),
        tris: Vec::new(),
    };
    let mut weld: HashMap<[u32; 3], u32> = HashMap::new();
    let mut unnamed = 0usize;
    for (i, node) in scene.nodes.iter().enumerate() {
        if node.mesh.is_none() {
            continue;
        }
        let Some((material, sector)) = group_name(&node.name) else {
            unnamed += 1;
            continue;
        };
        if material > 0x3FFF {
            return Err(ImportError::Collision(format!(
                "node {:?}: material {material} does not fit the 14-bit field",
                node.name
            )));
        }
        let flags = flag_bits(&node.extras);
        let Some(g) = mapping::node_geo(scene, i, &worlds) else {
            continue;
        };
        for (n, t) in g.indices.chunks_exact(3).enumerate() {
            let mut verts = [0u32; 3];
            // glTF (0, 1, 2) → X-Ray (0, 2, 1)
            for (k, &ix) in [t[0], t[2], t[1]].iter().enumerate() {
                let p = mirror(g.points[ix as usize]);
                let p = [p.x as f32, p.y as f32, p.z as f32];
                if p.iter().any(|v| !v.is_finite() || v.abs() > MAX_COORD) {
                    return Err(ImportError::Collision(format!(
                        "node {:?}, triangle {n}: corner {p:?} is not a point of a \
                         level (not finite, or farther than {MAX_COORD} m from the origin)",
                        node.name
                    )));
                }
                let key = p.map(f32::to_bits);
                verts[k] = *weld.entry(key).or_insert_with(|| {
                    c.vertices.push(p);
                    (c.vertices.len() - 1) as u32
                });
            }
            c.tris
                .push(new_tri(version, verts, material, flags, sector));
        }
    }
    if c.tris.is_empty() {
        return Err(ImportError::Collision(format!(
            "no triangles in nodes named mat{{id}}_sec{{sector}} (as the collision export names \
             them); {unnamed} other node(s) with meshes"
        )));
    }
    set_box(&mut c);
    Ok(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn closest_points_by_hand() {
        let (a, b, c) = (DVec3::ZERO, DVec3::X, DVec3::Z);
        assert_eq!(
            closest(DVec3::new(0.25, 1.0, 0.25), a, b, c),
            DVec3::new(0.25, 0.0, 0.25)
        );
        assert_eq!(closest(DVec3::new(-1.0, 0.0, -1.0), a, b, c), a);
        assert_eq!(closest(DVec3::new(2.0, 0.0, 0.0), a, b, c), b);
        assert_eq!(group_name("mat12_sec3.001"), Some((12, 3)));
        assert_eq!(group_name("mat12_grp3"), None);
    }
}
