//! MAP objects where they stand (`export --objects`): every 58-byte MAP object record
//! ([`MapObject`]) becomes a node at its world position and yaw, and the STPC meshes its
//! definition references are instanced under it. The strat records that name an object's
//! definition are in its extras ([`strat_extras`]); the routes are a `routes` group under the
//! same root ([`super::routes`]).
//!
//! # What is confirmed and what is not
//! * **Record layout** (docs/formats/argonaut-wad.md §8, §13; ENG-RE `map_full_chunk.py` `MapObjectRecord`, which
//!   follows the loader `sub_42AC50`): `u16 rot[3]` (4096ths of a turn), `i32 pos[3]` (20.12
//!   fixed point, game space), `u32` definition offset (STPC-relative: the loader makes it
//!   `STPC base + offset`), eight `u32`, two `u16`. Our [`MapObject`] reads exactly these 58
//!   bytes, and the generated and independent WADs round-trip. **\[M\]**: not yet seen in a real
//!   file by us; every field is kept verbatim in the node's extras.
//! * **Position**: game space is export space with z negated (MAP tile records B store
//!   `−z·4096`; the independent generator stores objects the same way), so
//!   `X = x/4096, Y = y/4096, Z = −z/4096`. ENG-RE's rebuild (`world_rebuild.py`) uses the same
//!   sign (`object_z_sign = −1`) before its own final mirror.
//! * **Rotation: unconfirmed.** Only the yaw `rot[1]` is applied, as ENG-RE's rebuild does
//!   ("experimental yaw"); `rot[0]` and `rot[2]` are kept in extras, not applied (their axis
//!   order and sign are unknown).
//! * **Mesh orientation: unconfirmed.** ENG-RE's rebuild negates an STPC mesh's local z
//!   (`local_z_sign = −1`, its "validated coordinate-basis fix", found by eye) and then turns it
//!   like a tile: `P = (X, Y, Z) + (lx·cos a − lz·sin a, vy, lx·sin a + lz·cos a)` with
//!   `lx = vx, lz = −vz, a = rot[1]/4096·2π`. We do the same, as the node matrix
//!   `T(X, Y, Z) · R(a) · S(1, 1, −1)` (a reflection: glTF viewers and our OBJ writer reverse
//!   the winding for it, so the game's front faces stay front faces).
//! * **Mesh references** ([`mesh_references`], the `0x00B2` rule of ENG-RE's rebuild, bounded
//!   the same way; **\[M\]**, the strat VM is only partly decoded): the definition window of an
//!   object runs from its definition offset to the first of: 2048 bytes further, the next
//!   larger definition offset of any object, the end of the STPC payload. At every byte
//!   position `p` of the window with `p + 8 ≤ end` where the `u16` at `p` is `0x00B2`, the `u32`
//!   at `p + 4` is an operand; an operand equal to the offset of an STPC model record names
//!   that mesh. An object without such an operand follows each of its other operands that lie
//!   inside the payload one level (that offset's own window), ordered by where the operand
//!   stands in the object's window. Each mesh counts once per object. An object with no mesh
//!   gets a small marker (an octahedron 0.25 units across, material `object_marker`).

use std::collections::BTreeMap;

use levelgeom_scene::{Mesh, Node, Primitive, Scene};

use super::material::MaterialKey;
use super::placement::yaw;
use super::{model_mesh, Looks, ModelPart, SceneOptions};
use crate::map::{Map, MapObject, StratRecord};
use crate::stpc::Stpc;

/// The opcode word that introduces a mesh operand in a definition.
pub const MESH_OPCODE: u16 = 0x00B2;
/// The longest definition window, in bytes.
pub const DEFINITION_WINDOW: usize = 2048;
/// Half the size of the marker of an object without a mesh.
pub const MARKER_RADIUS: f32 = 0.125;

/// One STPC mesh an object's definition references.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MeshRef {
    /// Index of the STPC model.
    pub model: usize,
    /// The operand's value: the model record's offset in the STPC payload.
    pub model_offset: u32,
    /// Where the operand's opcode word stands in the STPC payload.
    pub operand_offset: usize,
    /// Found by following one of the object's own operands into another definition.
    pub delegated: bool,
}

fn u16_at(b: &[u8], p: usize) -> Option<u16> {
    Some(u16::from_le_bytes(b.get(p..p + 2)?.try_into().ok()?))
}

fn u32_at(b: &[u8], p: usize) -> Option<u32> {
    Some(u32::from_le_bytes(b.get(p..p + 4)?.try_into().ok()?))
}

/// Where `0x00B2` words stand in a payload, found once, so that every window is a range query.
struct Operands<'a> {
    stpc: &'a [u8],
    at: Vec<usize>,
}

impl<'a> Operands<'a> {
    fn new(stpc: &'a [u8]) -> Operands<'a> {
        let at = (0..stpc.len().saturating_sub(7))
            .filter(|&p| u16_at(stpc, p) == Some(MESH_OPCODE))
            .collect();
        Operands { stpc, at }
    }

    /// Every `(position, operand)` of a `0x00B2` word in `[start, end)` whose operand ends
    /// inside the window (`p + 8 ≤ end`).
    fn within(&self, start: usize, end: usize) -> impl Iterator<Item = (usize, u32)> + '_ {
        let lo = self.at.partition_point(|&p| p < start);
        let hi = self.at.partition_point(|&p| p + 8 <= end);
        self.at[lo..hi.max(lo)]
            .iter()
            .filter_map(|&p| Some((p, u32_at(self.stpc, p + 4)?)))
    }
}

/// At most this many of an object's own operands are followed into other definitions (a
/// bound against hostile files; ENG-RE's rule has none, real definitions have a few operands).
pub const MAX_FOLLOWED: usize = 64;

/// The STPC meshes each object's definition references (see the module docs for the rule),
/// in the order the rule finds them: `stpc` is the STPC payload, `model_offsets` the offset of
/// each model record in it ([`Stpc::encode_with_model_offsets`]).
pub fn mesh_references(
    stpc: &[u8],
    model_offsets: &[u32],
    objects: &[MapObject],
) -> Vec<Vec<MeshRef>> {
    let model_at: BTreeMap<u32, usize> = model_offsets
        .iter()
        .enumerate()
        .map(|(i, &o)| (o, i))
        .collect();
    let ops = Operands::new(stpc);
    let mut defs: Vec<usize> = objects
        .iter()
        .map(|o| o.script_offset as usize)
        .filter(|&d| d < stpc.len())
        .collect();
    defs.sort_unstable();
    defs.dedup();
    let window_end = |start: usize| {
        let mut end = stpc.len().min(start.saturating_add(DEFINITION_WINDOW));
        let next = defs.partition_point(|&d| d <= start);
        if let Some(&d) = defs.get(next) {
            end = end.min(d);
        }
        end
    };
    objects
        .iter()
        .map(|o| {
            let start = o.script_offset as usize;
            if start >= stpc.len() || model_at.is_empty() {
                return Vec::new();
            }
            let direct: Vec<(usize, u32)> = ops.within(start, window_end(start)).collect();
            // (position in the object's window, operand position, model offset, delegated)
            let mut found: Vec<(usize, usize, u32, bool)> = direct
                .iter()
                .filter(|(_, t)| model_at.contains_key(t))
                .map(|&(p, t)| (p - start, p, t, false))
                .collect();
            if found.is_empty() {
                let follow = direct
                    .iter()
                    .filter(|(_, t)| (*t as usize) < stpc.len())
                    .take(MAX_FOLLOWED);
                for &(p, t) in follow {
                    let t_at = t as usize;
                    for (q, u) in ops.within(t_at, window_end(t_at)) {
                        if model_at.contains_key(&u) {
                            found.push((p - start, q, u, true));
                        }
                    }
                }
            }
            found.sort_unstable();
            let mut refs: Vec<MeshRef> = Vec::new();
            for (_, q, t, delegated) in found {
                let model = model_at[&t];
                if refs.iter().all(|r| r.model != model) {
                    refs.push(MeshRef {
                        model,
                        model_offset: t,
                        operand_offset: q,
                        delegated,
                    });
                }
            }
            refs
        })
        .collect()
}

/// An object's world position in export space: `(x, y, −z) / 4096` (see the module docs).
pub fn object_position(o: &MapObject) -> [f64; 3] {
    [
        f64::from(o.pos[0]) / 4096.0,
        f64::from(o.pos[1]) / 4096.0,
        -f64::from(o.pos[2]) / 4096.0,
    ]
}

/// The node matrix (column-major) that places an STPC mesh at an object: translation to
/// [`object_position`], the yaw `rot[1]` as a tile turns, the mesh's local z negated; with
/// `mirror_z` the whole is mirrored like the rest of the export.
pub fn object_matrix(o: &MapObject, mirror_z: bool) -> [f32; 16] {
    let (c, s) = yaw(u32::from(o.rot[1]));
    let [x, y, z] = object_position(o);
    // columns of T · R(a) · S(1, 1, −1): x' = c·lx + s·vz, z' = s·lx − c·vz
    let m = if mirror_z {
        [
            c, 0.0, -s, 0.0, 0.0, 1.0, 0.0, 0.0, s, 0.0, c, 0.0, x, y, -z, 1.0,
        ]
    } else {
        [
            c, 0.0, s, 0.0, 0.0, 1.0, 0.0, 0.0, s, 0.0, -c, 0.0, x, y, z, 1.0,
        ]
    };
    m.map(|v| v as f32)
}

/// The raw fields of an object as node extras (names by record offset: ENG-RE and Rartrin
/// disagree on their meaning).
pub fn object_extras(i: usize, o: &MapObject, refs: &[MeshRef]) -> Vec<(String, String)> {
    let mut e: Vec<(String, String)> = vec![
        ("map_object".into(), i.to_string()),
        ("rot_x".into(), o.rot[0].to_string()),
        ("rot_y".into(), o.rot[1].to_string()),
        ("rot_z".into(), o.rot[2].to_string()),
        ("pos_x".into(), o.pos[0].to_string()),
        ("pos_y".into(), o.pos[1].to_string()),
        ("pos_z".into(), o.pos[2].to_string()),
        ("definition_offset".into(), o.script_offset.to_string()),
    ];
    for (k, f) in o.fields.iter().enumerate() {
        e.push((format!("u32_{:02x}", 0x16 + 4 * k), f.to_string()));
    }
    e.push(("u16_36".into(), o.flags.to_string()));
    e.push(("u16_38".into(), o.extra.to_string()));
    let models: Vec<String> = refs.iter().map(|r| r.model.to_string()).collect();
    e.push(("stpc_models".into(), models.join(",")));
    let how = match refs.first() {
        None => "none",
        Some(r) if r.delegated => "delegated",
        Some(_) => "direct",
    };
    e.push(("mesh_reference".into(), how.into()));
    e
}

/// The strat records (MAP section 3, [`StratRecord`]) whose script offset is the object's
/// definition offset (0 names nothing), as extras: `strat_records` (their numbers) and each
/// record's fields as `strat_record_K.FIELD`.
pub fn strat_extras(o: &MapObject, records: &[StratRecord]) -> Vec<(String, String)> {
    let mine: Vec<(usize, &StratRecord)> = records
        .iter()
        .enumerate()
        .filter(|(_, s)| s.script_offset != 0 && s.script_offset == o.script_offset)
        .collect();
    if mine.is_empty() {
        return Vec::new();
    }
    let list: Vec<String> = mine.iter().map(|(k, _)| k.to_string()).collect();
    let mut e = vec![("strat_records".to_string(), list.join(","))];
    for (k, s) in mine {
        for (field, v) in s.fields() {
            e.push((format!("strat_record_{k}.{field}"), v));
        }
    }
    e
}

/// The marker mesh: an octahedron of radius [`MARKER_RADIUS`], faces outward.
fn marker_mesh(material: usize) -> Mesh {
    let r = MARKER_RADIUS;
    let axes: [[f32; 3]; 6] = [
        [1.0, 0.0, 0.0],
        [-1.0, 0.0, 0.0],
        [0.0, 1.0, 0.0],
        [0.0, -1.0, 0.0],
        [0.0, 0.0, 1.0],
        [0.0, 0.0, -1.0],
    ];
    let mut prim = Primitive {
        material: Some(material),
        ..Primitive::default()
    };
    for a in axes {
        prim.positions.push(a.map(|c| c * r));
        prim.normals.push(a);
    }
    for sx in [0u32, 1] {
        for sy in [2u32, 3] {
            for sz in [4u32, 5] {
                // (x, y, z) runs counter-clockwise seen from outside when an even number of
                // the three axes are negative
                let negatives = sx + (sy - 2) + (sz - 4);
                let tri = if negatives % 2 == 0 {
                    [sx, sy, sz]
                } else {
                    [sx, sz, sy]
                };
                prim.indices.extend_from_slice(&tri);
            }
        }
    }
    Mesh {
        name: "object_marker".into(),
        primitives: vec![prim],
    }
}

/// Add the `objects` root: one node per MAP object (see the module docs).
pub(super) fn objects_in_place(
    scene: &mut Scene,
    looks: &mut Looks<'_>,
    warnings: &mut Vec<String>,
    stpc: Option<&Stpc>,
    map: &Map,
    opts: &SceneOptions,
) {
    let (payload, offsets) = match stpc.map(Stpc::encode_with_model_offsets) {
        Some(Ok(x)) => x,
        Some(Err(e)) => {
            warnings.push(format!(
                "STPC: cannot be encoded ({e}); objects get markers only"
            ));
            (Vec::new(), Vec::new())
        }
        None => (Vec::new(), Vec::new()),
    };
    let refs = mesh_references(&payload, &offsets, &map.objects);
    let mut meshes: BTreeMap<usize, Option<usize>> = BTreeMap::new();
    let mut marker: Option<usize> = None;
    let mut root = Node {
        name: levelgeom_scene::roots::OBJECTS.into(),
        ..Node::default()
    };
    for (i, (o, refs)) in map.objects.iter().zip(&refs).enumerate() {
        let name = format!("map_object_{i:03}");
        let mut children = Vec::new();
        for r in refs {
            let Some(model) = stpc.and_then(|s| s.models.get(r.model)) else {
                continue;
            };
            let mesh = *meshes.entry(r.model).or_insert_with(|| {
                let ctx = format!("STPC/models[{}]", r.model);
                model_mesh(
                    scene,
                    looks,
                    warnings,
                    &ModelPart {
                        name: format!("stpc_{:03}", r.model),
                        model,
                        place: &super::placement::Placement::IDENTITY,
                        sets: &[],
                        model_ctx: &ctx,
                        place_ctx: &ctx,
                    },
                )
            });
            match mesh {
                Some(mesh) => children.push(scene.add_node(Node {
                    name: format!("{name}_stpc_{:03}", r.model),
                    mesh: Some(mesh),
                    extras: vec![
                        ("stpc_model".into(), r.model.to_string()),
                        ("operand_offset".into(), r.operand_offset.to_string()),
                    ],
                    ..Node::default()
                })),
                None => warnings.push(format!(
                    "MAP/objects[{i}]: STPC model {} has no faces; a marker stands in",
                    r.model
                )),
            }
        }
        if children.is_empty() {
            let m = *marker.get_or_insert_with(|| {
                let mat = looks.materials.get(MaterialKey::Marker, None, false);
                scene.add_mesh(marker_mesh(mat))
            });
            children.push(scene.add_node(Node {
                name: format!("{name}_marker"),
                mesh: Some(m),
                ..Node::default()
            }));
        }
        let mut extras = object_extras(i, o, refs);
        extras.extend(strat_extras(o, &map.strat_records));
        let node = scene.add_node(Node {
            name,
            matrix: object_matrix(o, opts.mirror_z),
            children,
            extras,
            ..Node::default()
        });
        root.children.push(node);
    }
    if map.objects.is_empty() {
        warnings.push("MAP has no objects: objects.glb/.obj are empty".into());
    }
    if !map.route_nodes.is_empty() {
        let group = super::routes::routes_group(scene, map, opts);
        root.children.push(group);
    }
    let root = scene.add_node(root);
    scene.roots.push(root);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn obj(def: u32) -> MapObject {
        MapObject {
            script_offset: def,
            ..MapObject::default()
        }
    }

    fn op(v: &mut Vec<u8>, target: u32) {
        v.extend_from_slice(&MESH_OPCODE.to_le_bytes());
        v.extend_from_slice(&[0, 0]);
        v.extend_from_slice(&target.to_le_bytes());
    }

    #[test]
    fn direct_delegated_bounded_and_unaligned() {
        // payload: models "at" 4 and 100; definitions at 200 (direct, unaligned operand
        // after one padding byte, and model 4 twice), 240 (pointer to 300), 300 (names 100),
        // 400 (an operand that ends past the window: none)
        let mut p = vec![0u8; 200];
        p.push(0xEE);
        op(&mut p, 100);
        op(&mut p, 4);
        op(&mut p, 4);
        p.resize(240, 0);
        op(&mut p, 300);
        p.resize(300, 0);
        op(&mut p, 100);
        p.resize(400, 0);
        p.extend_from_slice(&[0xB2, 0, 0, 0, 4, 0, 0]); // 7 bytes: operand cut by the end
        let objects = [obj(200), obj(240), obj(300), obj(400), obj(9999)];
        let r = mesh_references(&p, &[4, 100], &objects);
        let models: Vec<Vec<(usize, bool)>> = r
            .iter()
            .map(|v| v.iter().map(|m| (m.model, m.delegated)).collect())
            .collect();
        assert_eq!(
            models,
            vec![
                vec![(1, false), (0, false)],
                vec![(1, true)],
                vec![(1, false)],
                vec![],
                vec![]
            ]
        );
        assert_eq!(r[0][0].operand_offset, 201);
        assert_eq!(r[1][0].operand_offset, 300);
    }

    #[test]
    fn the_next_definition_ends_the_window() {
        // object A at 0 would see object B's operand at 8 without the bound
        let mut p = vec![0u8; 8];
        op(&mut p, 32);
        p.resize(40, 0);
        let r = mesh_references(&p, &[32], &[obj(0), obj(8)]);
        assert!(r[0].is_empty());
        assert_eq!(r[1].len(), 1);
    }

    #[test]
    fn matrix_places_a_vertex_as_the_module_docs_say() {
        let o = MapObject {
            rot: [0, 1024, 0],
            pos: [4096 * 3, 4096, 4096 * 2],
            ..MapObject::default()
        };
        let m = object_matrix(&o, false);
        let v = [0.5f32, 0.25, 0.125];
        let p = levelgeom_scene::transform_point(&m, v);
        // a = 90°: lx = 0.5, lz = −0.125 → (3 + 0.125, 1.25, −2 + 0.5)
        let want = [3.125f32, 1.25, -1.5];
        for k in 0..3 {
            assert!((p[k] - want[k]).abs() < 1e-6, "{p:?}");
        }
        let mm = object_matrix(&o, true);
        let q = levelgeom_scene::transform_point(&mm, v);
        assert!((q[2] - 1.5).abs() < 1e-6 && (q[0] - 3.125).abs() < 1e-6);
    }

    #[test]
    fn marker_faces_point_outward() {
        let m = marker_mesh(0);
        let p = &m.primitives[0];
        assert_eq!(p.indices.len(), 24);
        for t in p.indices.chunks(3) {
            let [a, b, c] = [0, 1, 2].map(|k| glam::Vec3::from(p.positions[t[k] as usize]));
            let n = (b - a).cross(c - a);
            assert!(n.dot(a + b + c) > 0.0);
        }
    }
}
