//! An edited mesh file's scene, flattened to world triangles by the caller (the mesh readers
//! and their `world_triangles` are engine-neutral and live outside the engines), turned into
//! what [`super::import`] and [`super::edit()`] take, and run:
//!
//! * [`tile_source`]: the tile a node came from, by its extras `tile`/`model` or its name
//!   `tile_TTTT_mMMM` (as [`crate::scene`] names them);
//! * [`parts`]: the triangles grouped by the node that placed them;
//! * [`is_swap`]: a swap alternative (`…_swap`, as export's `swap.glb` names them);
//! * [`run`]: an edit when a part names a tile of the base and no rebuild is asked for, else a
//!   rebuild, with [`removal_warning`] and [`collision_from`] for the report.

use std::collections::HashMap;

use levelgeom_scene::{Node, Scene};

use super::edit::{edit, MeshPart, TileSource};
use super::matching::plain_name;
use super::{import, CollisionTriangle, ImportError, ImportOptions, ImportSummary, MeshTriangle};
use crate::level::Level;

/// True for a swap alternative's node name: `…_swap` (a Blender `.NNN` suffix ignored).
pub fn is_swap(name: &str) -> bool {
    plain_name(name).ends_with("_swap")
}

/// The tile a node came from: its extras `tile` (and `model`), else its name
/// `tile_TTTT_mMMM` (a Blender `.NNN` suffix ignored, a `_swap` suffix too).
pub fn tile_source(node: &Node) -> Option<TileSource> {
    let extra = |k: &str| {
        node.extras
            .iter()
            .find(|(key, _)| key == k)
            .map(|(_, v)| v.trim().to_string())
    };
    if let Some(tile) = extra("tile").and_then(|v| v.parse::<usize>().ok()) {
        return Some(TileSource {
            tile,
            model: extra("model").and_then(|v| v.parse().ok()),
        });
    }
    let name = plain_name(&node.name);
    let name = name.strip_suffix("_swap").unwrap_or(name);
    let rest = name.strip_prefix("tile_")?;
    let (t, m) = rest.split_once("_m")?;
    Some(TileSource {
        tile: t.parse().ok()?,
        model: Some(m.parse().ok()?),
    })
}

/// The triangles grouped by the node of `scene` that placed them (`nodes[i]` placed
/// `tris[i]`), in file order; `swap` marks every part a swap alternative.
pub fn parts(scene: &Scene, tris: Vec<MeshTriangle>, nodes: &[usize], swap: bool) -> Vec<MeshPart> {
    let mut parts: Vec<MeshPart> = Vec::new();
    let mut at: HashMap<usize, usize> = HashMap::new();
    for (t, &node) in tris.into_iter().zip(nodes) {
        let i = *at.entry(node).or_insert_with(|| {
            let n = scene.nodes.get(node);
            parts.push(MeshPart {
                name: n.map_or_else(String::new, |n| n.name.clone()),
                source: n.and_then(tile_source),
                triangles: Vec::new(),
                swap,
            });
            parts.len() - 1
        });
        parts[i].triangles.push(t);
    }
    parts
}

/// True when [`run`] rebuilds: asked to, or no part names a tile of the base. A rebuild's
/// error indices are those of the render triangles in order (and of the collision triangles);
/// an edit's are of its new and reshaped triangles only.
pub fn rebuilds(parts: &[MeshPart], rebuild: bool) -> bool {
    rebuild || !parts.iter().any(|p| p.source.is_some())
}

/// Import `parts` into `level`: [`edit()`] when [`rebuilds`] is false, else [`import`] of
/// every triangle (swap parts included, as the caller gave them), its mode saying why when no
/// rebuild was asked for.
///
/// # Errors
/// The importer's.
pub fn run(
    level: &Level,
    parts: Vec<MeshPart>,
    collision: Option<&[CollisionTriangle]>,
    rebuild: bool,
    opts: &ImportOptions,
) -> Result<(Level, ImportSummary), ImportError> {
    if !rebuilds(&parts, rebuild) {
        return edit(level, &parts, collision, opts);
    }
    let all: Vec<MeshTriangle> = parts.into_iter().flat_map(|p| p.triangles).collect();
    let (l, mut s) = import(level, &all, collision, opts)?;
    if !rebuild {
        s.mode = "rebuild (the mesh names no tile of the base level)".into();
    }
    Ok((l, s))
}

/// The warning for an edit that removes every tile the mesh holds or more (a partial export
/// imported without keeping the rest).
pub fn removal_warning(summary: &ImportSummary) -> Option<String> {
    let e = summary.edit.as_ref()?;
    (!e.removed.is_empty() && e.removed.len() >= e.in_mesh).then(|| {
        format!(
            "the mesh holds {} of the base's {} tiles with geometry: {} are removed; if it is a partial export, import with --keep-tiles",
            e.in_mesh,
            e.in_mesh + e.removed.len(),
            e.removed.len()
        )
    })
}

/// Where the collision came from, for the report: `given` says where the caller found it
/// (`None`: none was given, it is derived); an edit adds what it did with it.
pub fn collision_from(summary: &ImportSummary, given: Option<String>) -> String {
    match (summary.mode.as_str(), given) {
        ("edit", Some(g)) => format!("{g}: {}", summary.collision_source),
        ("edit", None) => {
            "follows the tiles (new geometry's collision derived from the render mesh)".to_string()
        }
        (_, Some(g)) => g,
        (_, None) => "derived from the render mesh".to_string(),
    }
}

impl ImportError {
    /// The triangle an error is about: `("mesh" | "collision", index)`, where it names one.
    pub fn triangle(&self) -> (&'static str, Option<usize>) {
        match self {
            ImportError::NotFinite { what, index } => (what, Some(*index)),
            ImportError::OutsideGrid { index, .. } => ("mesh", Some(*index)),
            ImportError::BadGroup { index, .. } => ("collision", Some(*index)),
            ImportError::TooManyCells { what, index, .. } => (what, Some(*index)),
            _ => ("mesh", None),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(name: &str, extras: &[(&str, &str)]) -> Node {
        Node {
            name: name.into(),
            extras: extras
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            ..Node::default()
        }
    }

    #[test]
    fn tiles_from_names_and_extras() {
        let t = |n: &Node| tile_source(n).map(|s| (s.tile, s.model));
        assert_eq!(t(&node("tile_0012_m003", &[])), Some((12, Some(3))));
        assert_eq!(
            t(&node("tile_0012_m003_swap.001", &[])),
            Some((12, Some(3)))
        );
        // extras win over the name; a model extra is optional
        assert_eq!(
            t(&node("tile_0012_m003", &[("tile", " 7 ")])),
            Some((7, None))
        );
        assert_eq!(t(&node("Cube", &[])), None);
        assert!(is_swap("tile_0001_m002_swap.004"));
        assert!(!is_swap("tile_0001_m002"));
    }

    #[test]
    fn collision_names_give_material_and_group() {
        use crate::import::matching::collision_name;
        assert_eq!(collision_name("mat03_grp1"), Some((3, 1)));
        assert_eq!(collision_name("mat12_grp0.001"), Some((12, 0)));
        assert_eq!(collision_name("tile_0001_m002"), None);
        assert_eq!(collision_name("mat999_grp0"), None);
    }
}
