//! What an import leaves stale in `level.ai` and `level.details`, and `--details-follow`.
//!
//! Neither file is rebuilt: AI nodes are xrAI's work, detail slots the LevelEditor's. After an
//! edit, [`stale`] compares them with the geometry that changed:
//!
//! * **old geometry**: the world-space triangles of each moved, edited or removed visual as the
//!   base level has them (its reference scene, as [`crate::to_scene`] makes it);
//! * **new geometry**: the world-space triangles of the nodes that now hold the moved and
//!   edited visuals and of every added node (copies and new meshes), from the edited file.
//!
//! A point is *on* a triangle when its (x, z) falls inside the triangle's projection on the
//! ground plane (vertical triangles have none and are not tested); the triangle's height there
//! is its plane's. Then:
//!
//! | what | rule |
//! |---|---|
//! | AI node under old geometry | on an old triangle whose height there is at most [`ABOVE`] below the node (the node stood on it or under it) |
//! | AI node inside new geometry | on a new triangle whose height there is more than [`CLEARANCE`] and at most [`AGENT_HEIGHT`] above the node (something now stands in a walker's body) |
//! | detail slot over removed / moved geometry | the slot's centre on a triangle of a removed / a moved or edited visual whose height there lies within the slot's floor and top, [`ABOVE`] of slack either way |
//!
//! Positions are in level (engine) space. With `follow` ([`stale`]): a slot over a removed
//! visual is emptied (its four model ids set to empty); a slot over a moved or edited visual
//! has its floor moved by the height change of that visual's new triangles at the slot's centre
//! (the new triangle nearest the old height), or is emptied when no new triangle of the visual
//! is under the centre any more. Every other slot, and every other bit of a changed slot, stays
//! as it was.

use glam::DVec3;
use levelgeom_scene::Scene;
use serde::Serialize;

use super::{mapping, Base, Summary};
use crate::ai::LevelAi;
use crate::details::{Details, Slots, EMPTY_V2, EMPTY_V3, SLOT_SIZE};
use crate::scene::{SceneError, SceneOptions};

/// Slack above a surface, metres: a node or slot this far above a triangle still stands on it.
pub const ABOVE: f64 = 0.5;
/// New geometry this close above a node (metres) is taken for the floor it stands on.
pub const CLEARANCE: f64 = 0.05;
/// The height of a walker's body above its node, metres (our choice: a stalker's standing
/// height is about 1.8 m).
pub const AGENT_HEIGHT: f64 = 1.8;
/// Positions listed per kind (the counts are whole).
pub const LISTED: usize = 100;

/// What the edit left stale.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct StaleReport {
    /// `level.ai`, when the level has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ai: Option<AiStale>,
    /// `level.details`, when the level has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub details: Option<DetailsStale>,
}

/// Stale AI nodes (a warning: `level.ai` is written unchanged).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct AiStale {
    /// Nodes under the old shape of a moved, edited or removed visual.
    pub under_changed: usize,
    /// Their positions (at most [`LISTED`]).
    pub under_changed_at: Vec<[f32; 3]>,
    /// Nodes now inside new geometry.
    pub inside_new: usize,
    /// Their positions (at most [`LISTED`]).
    pub inside_new_at: Vec<[f32; 3]>,
    /// True when the file's nodes are not decoded (versions 2–4): nothing could be tested.
    pub not_decoded: bool,
}

/// Stale detail slots.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct DetailsStale {
    /// Slots over a removed visual.
    pub over_removed: usize,
    /// Their centres (x, floor, z), at most [`LISTED`].
    pub over_removed_at: Vec<[f32; 3]>,
    /// Slots over a moved or edited visual.
    pub over_moved: usize,
    /// Their centres, at most [`LISTED`].
    pub over_moved_at: Vec<[f32; 3]>,
    /// `--details-follow`: slots emptied.
    pub emptied: usize,
    /// `--details-follow`: slots raised or lowered.
    pub shifted: usize,
    /// True when `level.details` was rewritten (`--details-follow`), false when copied as it was.
    pub followed: bool,
}

/// One triangle in level space.
#[derive(Clone, Copy, Debug)]
struct Tri([DVec3; 3]);

impl Tri {
    /// The height of the triangle's plane at (x, z) when (x, z) is inside its ground
    /// projection.
    fn height_at(&self, x: f64, z: f64) -> Option<f64> {
        let [a, b, c] = self.0;
        let d = (b.x - a.x) * (c.z - a.z) - (c.x - a.x) * (b.z - a.z);
        if d.abs() < 1e-12 {
            return None;
        }
        let u = ((x - a.x) * (c.z - a.z) - (c.x - a.x) * (z - a.z)) / d;
        let v = ((b.x - a.x) * (z - a.z) - (x - a.x) * (b.z - a.z)) / d;
        let eps = 1e-9;
        (u >= -eps && v >= -eps && u + v <= 1.0 + eps)
            .then_some(a.y + u * (b.y - a.y) + v * (c.y - a.y))
    }
}

/// Heights of `tris` at (x, z).
fn heights(tris: &[Tri], x: f64, z: f64) -> impl Iterator<Item = f64> + '_ {
    tris.iter().filter_map(move |t| t.height_at(x, z))
}

/// World triangles of scene node `i`, mirrored back into level space.
fn node_tris(scene: &Scene, i: usize, worlds: &[[f32; 16]], out: &mut Vec<Tri>) {
    let Some(g) = mapping::node_geo(scene, i, worlds) else {
        return;
    };
    let m = |p: DVec3| DVec3::new(p.x, p.y, -p.z);
    for t in g.indices.chunks_exact(3) {
        let p = |k: usize| g.points.get(t[k] as usize).copied().map(m);
        if let (Some(a), Some(b), Some(c)) = (p(0), p(1), p(2)) {
            out.push(Tri([a, b, c]));
        }
    }
}

/// The changed geometry of an import, in level space.
struct Changed {
    /// Old triangles of removed visuals.
    removed: Vec<Tri>,
    /// Old triangles of moved and edited visuals.
    moved_old: Vec<Tri>,
    /// New triangles of moved and edited visuals.
    moved_new: Vec<Tri>,
    /// New triangles of moved and edited visuals and of added nodes.
    new: Vec<Tri>,
}

fn changed(base: Base<'_>, edited: &Scene, summary: &Summary) -> Result<Changed, SceneError> {
    let reference = crate::scene::to_scene(
        base.level,
        base.geom,
        &SceneOptions {
            lods: true,
            ..SceneOptions::default()
        },
    )?;
    let is_moved = |v: usize| summary.moved.contains(&v) || summary.edited.contains(&v);
    let r_worlds = reference.world_matrices();
    let r_excl = mapping::excluded(&reference);
    let mut out = Changed {
        removed: Vec::new(),
        moved_old: Vec::new(),
        moved_new: Vec::new(),
        new: Vec::new(),
    };
    for (i, node) in reference.nodes.iter().enumerate() {
        if r_excl[i] {
            continue;
        }
        match mapping::visual_of(node) {
            Some(v) if summary.removed.contains(&v) => {
                node_tris(&reference, i, &r_worlds, &mut out.removed)
            }
            Some(v) if is_moved(v) => node_tris(&reference, i, &r_worlds, &mut out.moved_old),
            _ => {}
        }
    }
    let e_worlds = edited.world_matrices();
    let mut e_excl = mapping::excluded(edited);
    for (x, r) in edited.reachable().into_iter().enumerate() {
        e_excl[x] |= !r;
    }
    for (i, node) in edited.nodes.iter().enumerate() {
        if e_excl[i] {
            continue;
        }
        if summary.added.iter().any(|a| a.node == node.name) {
            node_tris(edited, i, &e_worlds, &mut out.new);
        } else if mapping::visual_of(node).is_some_and(is_moved) {
            let from = out.moved_new.len();
            node_tris(edited, i, &e_worlds, &mut out.moved_new);
            out.new.extend_from_slice(&out.moved_new[from..]);
        }
    }
    Ok(out)
}

fn ai_stale(ai: &LevelAi, ch: &Changed) -> AiStale {
    let Some((_, nodes)) = ai.decoded() else {
        return AiStale {
            not_decoded: true,
            ..AiStale::default()
        };
    };
    let mut s = AiStale::default();
    let old: Vec<Tri> = ch.removed.iter().chain(&ch.moved_old).copied().collect();
    for n in nodes {
        let p = n.position(&ai.header);
        let (x, y, z) = (f64::from(p[0]), f64::from(p[1]), f64::from(p[2]));
        if heights(&old, x, z).any(|h| h >= y - ABOVE) {
            s.under_changed += 1;
            if s.under_changed_at.len() < LISTED {
                s.under_changed_at.push(p);
            }
        }
        if heights(&ch.new, x, z).any(|h| h > y + CLEARANCE && h <= y + AGENT_HEIGHT) {
            s.inside_new += 1;
            if s.inside_new_at.len() < LISTED {
                s.inside_new_at.push(p);
            }
        }
    }
    s
}

/// What happens to one slot.
enum SlotFate {
    Keep,
    Empty,
    Shift(f64),
}

fn details_stale(d: &mut Details, ch: &Changed, follow: bool) -> DetailsStale {
    let mut s = DetailsStale {
        followed: follow,
        ..DetailsStale::default()
    };
    let Some(n) = d.slots().map(Slots::len) else {
        return s;
    };
    let mut fates = Vec::with_capacity(n);
    for i in 0..n {
        let (Some(min), Some(v)) = (d.slot_min(i), d.slots().and_then(|sl| sl.slot(i))) else {
            fates.push(SlotFate::Keep);
            continue;
        };
        let (x, z) = (
            f64::from(min[0] + SLOT_SIZE / 2.0),
            f64::from(min[1] + SLOT_SIZE / 2.0),
        );
        let (lo, hi) = (
            f64::from(v.y_base) - ABOVE,
            f64::from(v.y_base + v.height) + ABOVE,
        );
        let on = |tris: &[Tri]| heights(tris, x, z).find(|h| (lo..=hi).contains(h));
        let centre = [min[0] + SLOT_SIZE / 2.0, v.y_base, min[1] + SLOT_SIZE / 2.0];
        if on(&ch.removed).is_some() {
            s.over_removed += 1;
            if s.over_removed_at.len() < LISTED {
                s.over_removed_at.push(centre);
            }
            fates.push(SlotFate::Empty);
        } else if let Some(old) = on(&ch.moved_old) {
            s.over_moved += 1;
            if s.over_moved_at.len() < LISTED {
                s.over_moved_at.push(centre);
            }
            let new = heights(&ch.moved_new, x, z)
                .min_by(|a, b| (a - old).abs().total_cmp(&(b - old).abs()));
            fates.push(match new {
                Some(h) => SlotFate::Shift(h - old),
                None => SlotFate::Empty,
            });
        } else {
            fates.push(SlotFate::Keep);
        }
    }
    if !follow {
        return s;
    }
    let Some(slots) = d.slots_mut() else {
        return s;
    };
    for (i, fate) in fates.into_iter().enumerate() {
        match (fate, &mut *slots) {
            (SlotFate::Keep, _) => {}
            (SlotFate::Empty, Slots::V3(v)) => {
                for k in 0..4 {
                    v[i].set_id(k, EMPTY_V3);
                }
                s.emptied += 1;
            }
            (SlotFate::Empty, Slots::V2(v)) => {
                for it in &mut v[i].items {
                    it.0 = EMPTY_V2;
                }
                s.emptied += 1;
            }
            (SlotFate::Shift(dy), Slots::V3(v)) => {
                // y_base is in 0.2 m steps
                let steps = (dy / 0.2).round() as i64;
                let y = (i64::from(v[i].y_base()) + steps).clamp(0, 0xfff) as u32;
                if y != v[i].y_base() {
                    v[i].set_y_base(y);
                    s.shifted += 1;
                }
            }
            (SlotFate::Shift(dy), Slots::V2(v)) => {
                if dy != 0.0 {
                    v[i].y_min += dy as f32;
                    v[i].y_max += dy as f32;
                    s.shifted += 1;
                }
            }
        }
    }
    s
}

/// What the import `summary` of `edited` into `base` left stale in `ai` and `details` (see the
/// module docs), and with `follow` the followed `level.details` (`None` without `follow` or
/// without a `details`).
///
/// # Errors
/// The base level cannot be converted to its reference scene (the import made it already, so
/// this does not happen for a level that imported).
pub fn stale(
    base: Base<'_>,
    edited: &Scene,
    summary: &Summary,
    ai: Option<&LevelAi>,
    details: Option<&Details>,
    follow: bool,
) -> Result<(StaleReport, Option<Details>), SceneError> {
    let ch = changed(base, edited, summary)?;
    let ai = ai.map(|a| ai_stale(a, &ch));
    let mut followed = details.cloned();
    let d = followed.as_mut().map(|d| details_stale(d, &ch, follow));
    Ok((StaleReport { ai, details: d }, followed.filter(|_| follow)))
}

fn points(v: &[[f32; 3]], total: usize) -> String {
    let shown: Vec<String> = v
        .iter()
        .take(10)
        .map(|p| format!("({}, {}, {})", p[0], p[1], p[2]))
        .collect();
    let more = if total > shown.len() { ", …" } else { "" };
    format!("{}{more}", shown.join(", "))
}

impl std::fmt::Display for StaleReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if let Some(a) = &self.ai {
            if a.not_decoded {
                writeln!(
                    f,
                    "level.ai: copied unchanged; its nodes are not decoded (versions 2–4), so \
                     what the edit left stale is not known"
                )?;
            } else {
                writeln!(
                    f,
                    "level.ai: copied unchanged (rebuild it with xrAI): {} node(s) under moved, \
                     edited or removed geometry, {} node(s) now inside new geometry",
                    a.under_changed, a.inside_new
                )?;
                if a.under_changed > 0 {
                    writeln!(
                        f,
                        "  under changed geometry at {}",
                        points(&a.under_changed_at, a.under_changed)
                    )?;
                }
                if a.inside_new > 0 {
                    writeln!(
                        f,
                        "  inside new geometry at {}",
                        points(&a.inside_new_at, a.inside_new)
                    )?;
                }
            }
        }
        if let Some(d) = &self.details {
            if d.followed {
                writeln!(
                    f,
                    "level.details: followed (--details-follow): {} slot(s) over removed geometry, \
                     {} over moved or edited geometry; {} emptied, {} raised or lowered",
                    d.over_removed, d.over_moved, d.emptied, d.shifted
                )?;
            } else {
                writeln!(
                    f,
                    "level.details: copied unchanged, stale: {} slot(s) over removed geometry, {} \
                     over moved or edited geometry (--details-follow empties or moves them)",
                    d.over_removed, d.over_moved
                )?;
            }
            if d.over_removed > 0 {
                writeln!(
                    f,
                    "  over removed geometry at {}",
                    points(&d.over_removed_at, d.over_removed)
                )?;
            }
            if d.over_moved > 0 {
                writeln!(
                    f,
                    "  over moved geometry at {}",
                    points(&d.over_moved_at, d.over_moved)
                )?;
            }
        }
        Ok(())
    }
}
