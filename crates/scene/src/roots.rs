//! The named roots of a scene: one home for the names every engine writes, every writer splits
//! files by and every importer skips.
//!
//! A level's [`Scene`] keeps what the game draws under a root named [`LEVEL`] (or under its
//! visible roots) and the other things an export carries under roots of their own, one file
//! each (`collision.glb`, `swap.obj`, …): the names in [`NAMED`]. The Blender add-on
//! (`blender/levelgeom_addon/scene_io.py`, `NOT_LEVEL_ROOTS`) keeps a copy of [`NAMED`] in
//! Python; a test of this crate reads that file and fails when the two lists differ.

use crate::Scene;

/// The root of what the game draws (`level.glb`, `level.obj`).
pub const LEVEL: &str = "level";
/// Collision geometry (WAD collision polygons, X-Ray `level.cform`), hidden.
pub const COLLISION: &str = "collision";
/// The alternative states of WAD swap tiles.
pub const SWAP: &str = "swap";
/// WAD MAP objects placed in the level (`export --objects`).
pub const OBJECTS: &str = "objects";
/// WAD object models side by side, one per model (`export --objects`).
pub const OBJECTS_CATALOGUE: &str = "objects_catalogue";
/// X-Ray portal polygons, hidden.
pub const PORTALS: &str = "portals";
/// X-Ray occluder polygons (`level.hom`, `level.som`), hidden.
pub const OCCLUDERS: &str = "occluders";
/// X-Ray AI nodes (`level.ai`, `export --ai`), hidden.
pub const AI: &str = "ai";
/// X-Ray detail models (`level.details`, `export --details`), hidden.
pub const DETAILS: &str = "details";

/// The roots that are not level geometry, each written to a file of its own name besides
/// `level` (in this order), and skipped by an import that reads level geometry.
pub const NAMED: [&str; 8] = [
    COLLISION,
    SWAP,
    OBJECTS,
    OBJECTS_CATALOGUE,
    PORTALS,
    OCCLUDERS,
    AI,
    DETAILS,
];

/// The named roots whose OBJ files get one `g` group per node.
pub const GROUPED: [&str; 4] = [COLLISION, PORTALS, OCCLUDERS, DETAILS];

impl Scene {
    /// The index of the first root node called `name` (exactly; no Blender `.001` suffix).
    pub fn root(&self, name: &str) -> Option<usize> {
        self.roots
            .iter()
            .copied()
            .find(|&r| self.nodes.get(r).is_some_and(|n| n.name == name))
    }

    /// For every node: true when it is reachable from [`Scene::roots`] through
    /// [`crate::Node::children`] (indices past the node list are ignored).
    pub fn reachable(&self) -> Vec<bool> {
        let n = self.nodes.len();
        let mut out = vec![false; n];
        let mut stack: Vec<usize> = self.roots.clone();
        while let Some(x) = stack.pop() {
            if x < n && !std::mem::replace(&mut out[x], true) {
                stack.extend(self.nodes[x].children.iter().copied());
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Node;

    fn node(name: &str, children: Vec<usize>) -> Node {
        Node {
            name: name.into(),
            children,
            ..Node::default()
        }
    }

    #[test]
    fn root_finds_roots_only_and_reachable_follows_children() {
        // 0 level → 1; 2 collision (not a root); 3 collision (root) → 99 (past the end);
        // 4 orphan → 1; root 42 past the end
        let s = Scene {
            nodes: vec![
                node("level", vec![1]),
                node("tile", vec![]),
                node("collision", vec![]),
                node("collision", vec![99]),
                node("orphan", vec![1]),
            ],
            roots: vec![0, 3, 42],
            ..Scene::default()
        };
        assert_eq!(s.root(LEVEL), Some(0));
        assert_eq!(s.root(COLLISION), Some(3));
        assert_eq!(s.root("tile"), None);
        assert_eq!(s.reachable(), vec![true, true, false, true, false]);
    }

    /// The add-on's Python copy of [`NAMED`] (`NOT_LEVEL_ROOTS` in `scene_io.py`) names the
    /// same roots in the same order.
    #[test]
    fn the_addon_lists_the_same_named_roots() {
        let py = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../blender/levelgeom_addon/scene_io.py");
        let text = std::fs::read_to_string(&py).expect("the add-on's scene_io.py");
        let line = text
            .lines()
            .find(|l| l.starts_with("NOT_LEVEL_ROOTS = ("))
            .expect("NOT_LEVEL_ROOTS in scene_io.py");
        let inner = line
            .trim_start_matches("NOT_LEVEL_ROOTS = (")
            .trim_end_matches(')');
        let names: Vec<&str> = inner
            .split(',')
            .map(|s| s.trim().trim_matches('"'))
            .filter(|s| !s.is_empty())
            .collect();
        assert_eq!(names, NAMED);
    }
}
