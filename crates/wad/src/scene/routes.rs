//! MAP routes where they run (`export --objects`): the section-4 route nodes
//! ([`crate::map::routes`], docs/formats/argonaut-wad.md §18.5) as line primitives under a
//! `routes` group of the `objects` root, and the same nodes' stored words (position, rotation,
//! links) as `routes.json`, the file `replace --routes` takes back.
//!
//! * One node per route (`route_000`, …), identity matrix, its mesh one line primitive
//!   ([`Topology::Lines`]) through the route's node positions in order, converted as the
//!   objects' are (docs/formats/argonaut-wad.md §15): `(x, y, −z) / 4096`, z negated again with
//!   `--mirror-z`. A route of one node has no segment: its node gets no mesh.
//! * The node's extras: `route` (its number), `first_node`, `node_count`, `next` and `prev`
//!   (the stored link words, comma-separated), `rotations` (`rx,ry,rz` per node, `;`
//!   between nodes, 4096ths of a turn), `positions` (the stored 20.12 words, same layout),
//!   `unknown_0x1a` and `unknown_0x1e` (per node), and `objects`: the MAP objects whose
//!   `section4_index` names the route's first node.
//! * Lines have no material (the exporter's default) and are not drawn by `render`.

use levelgeom_scene::{Mesh, Node, Primitive, Scene, Topology};
use serde_json::{json, Value};

use super::SceneOptions;
use crate::map::routes::routes;
use crate::map::{Map, RouteNode};

/// The name of the group node of the routes, under the `objects` root.
pub const ROUTES_GROUP: &str = "routes";

fn joined<T>(nodes: &[RouteNode], f: impl Fn(&RouteNode) -> T) -> String
where
    T: std::fmt::Display,
{
    nodes
        .iter()
        .map(|n| f(n).to_string())
        .collect::<Vec<_>>()
        .join(",")
}

fn triples<T: std::fmt::Display>(nodes: &[RouteNode], f: impl Fn(&RouteNode) -> [T; 3]) -> String {
    nodes
        .iter()
        .map(|n| {
            let [a, b, c] = f(n);
            format!("{a},{b},{c}")
        })
        .collect::<Vec<_>>()
        .join(";")
}

/// A route node's position in the export's space (`mirror_z` negates z once more).
pub fn route_position(n: &RouteNode, mirror_z: bool) -> [f32; 3] {
    let [x, y, z] = n.export_position();
    let z = if mirror_z { -z } else { z };
    [x as f32, y as f32, z as f32]
}

/// Add the `routes` group (see the module docs); returns its node index (not yet a child of
/// anything).
pub(super) fn routes_group(scene: &mut Scene, map: &Map, opts: &SceneOptions) -> usize {
    let mut group = Node {
        name: ROUTES_GROUP.into(),
        ..Node::default()
    };
    for (k, range) in routes(&map.route_nodes).into_iter().enumerate() {
        let nodes = &map.route_nodes[range.clone()];
        let mesh = (nodes.len() >= 2).then(|| {
            let prim = Primitive {
                topology: Topology::Lines,
                positions: nodes
                    .iter()
                    .map(|n| route_position(n, opts.mirror_z))
                    .collect(),
                indices: (1..nodes.len() as u32).flat_map(|i| [i - 1, i]).collect(),
                ..Primitive::default()
            };
            scene.add_mesh(Mesh {
                name: format!("route_{k:03}"),
                primitives: vec![prim],
            })
        });
        let objects: Vec<String> = map
            .objects
            .iter()
            .enumerate()
            .filter(|(_, o)| o.section4_index() as usize == range.start)
            .map(|(i, _)| i.to_string())
            .collect();
        let extras = vec![
            ("route".into(), k.to_string()),
            ("first_node".into(), range.start.to_string()),
            ("node_count".into(), nodes.len().to_string()),
            ("next".into(), joined(nodes, |n| n.next)),
            ("prev".into(), joined(nodes, |n| n.prev)),
            ("rotations".into(), triples(nodes, |n| n.rot)),
            ("positions".into(), triples(nodes, |n| n.pos)),
            ("unknown_0x1a".into(), joined(nodes, |n| n.unknown_0x1a)),
            ("unknown_0x1e".into(), joined(nodes, |n| n.unknown_0x1e)),
            ("objects".into(), objects.join(",")),
        ];
        let node = scene.add_node(Node {
            name: format!("route_{k:03}"),
            mesh,
            extras,
            ..Node::default()
        });
        group.children.push(node);
    }
    scene.add_node(group)
}

/// The `routes.json` of a MAP: `{"units", "routes": [{"id", "first_node", "nodes": [{"node",
/// "position": [x, y, z], "rotation": [rx, ry, rz], "next", "prev"}]}]}`, the words as stored:
/// positions 20.12 fixed point integers in game space (4096 per cell, z = −export z),
/// rotations in 4096ths of a turn, the link words (docs/formats/argonaut-wad.md §18.5).
pub fn routes_json(map: &Map) -> Value {
    let list: Vec<Value> = routes(&map.route_nodes)
        .into_iter()
        .enumerate()
        .map(|(k, range)| {
            let nodes: Vec<Value> = range
                .clone()
                .map(|i| {
                    let n = &map.route_nodes[i];
                    json!({
                        "node": i,
                        "position": n.pos,
                        "rotation": n.rot,
                        "next": n.next,
                        "prev": n.prev,
                    })
                })
                .collect();
            json!({"id": k, "first_node": range.start, "nodes": nodes})
        })
        .collect();
    json!({
        "units": "position: game space, 20.12 fixed point: 4096 = one grid cell; x and y as in the export, z = -(export z); rotation: 4096ths of a turn; next: non-zero = the following node continues the route",
        "routes": list,
    })
}
