//! Wavefront OBJ + MTL writer.
//!
//! # OBJ layout written
//! ```text
//! # levelgeom OBJ
//! mtllib level.mtl
//! o tile_0012                 (or `g tile_0012` with ObjOptions::groups), one per node with a mesh
//! v x y z [r g b]             per vertex, in world space (node world matrix applied)
//! vt u v'                     v' = 1 − v: the scene's UV origin is top-left, OBJ's bottom-left
//! vn x y z                    world-space unit normal (inverse-transpose of the world matrix)
//! usemtl page_03
//! f v/vt/vn v/vt/vn v/vt/vn   1-based, counting over the whole file (`v//vn`, `v/vt`, `v` when
//!                             UVs or normals are absent)
//! ```
//! Every primitive writes its own vertices (OBJ has no instancing; a mesh used by two nodes is
//! written twice, once per node). A node whose world matrix mirrors (negative determinant) gets
//! its triangles' winding reversed so front faces stay counter-clockwise, as a glTF viewer
//! would show them. Only `uvs[0]` is written (OBJ has one UV set); colours come from the set
//! [`ObjOptions::colour_set`] (alpha dropped: OBJ vertex colours are RGB).
//!
//! # Numbers
//! Floats are printed with Rust's `{}` for `f32`: the shortest decimal that reads back as the
//! same `f32`, never in exponent notation (`0.0000001`, not `1e-7`), so output is
//! deterministic and positions are exact to the bit of the transformed `f32`. Transforms are
//! computed in `f64` and rounded once.
//!
//! # MTL
//! One `newmtl` per material used by the written faces (scene order; `levelgeom_default` for
//! primitives without a material): `Kd` = base colour RGB, `Ks 0 0 0`, `d` = base colour alpha,
//! `illum 0` when unlit else `illum 1`, `map_Kd` (and `map_d` when the material is masked or
//! blended) = [`crate::texture_file_name`] or the external texture's uri.
//!
//! Names in `o`/`g`/`usemtl`/`newmtl` have whitespace (OBJ splits on it) and `#` (a comment
//! to many readers; X-Ray shader names contain it) replaced by `_`.

use std::fmt::Write as _;

use levelgeom_scene::{mul, AlphaMode, Scene, TextureSource, IDENTITY};

use crate::clean::{bake, clean_primitive, CleanPrimitive, Repairs};

/// Material name used for primitives without a material.
pub const DEFAULT_MATERIAL: &str = "levelgeom_default";

/// Options of the OBJ writer.
#[derive(Clone, Debug, PartialEq)]
pub struct ObjOptions {
    /// Nodes whose whole subtrees are written (hidden nodes included); `None` = every root that
    /// is not hidden, skipping hidden nodes (and their subtrees) below them too.
    pub roots: Option<Vec<usize>>,
    /// Name of the MTL file written into the `mtllib` line, e.g. `level.mtl`.
    pub mtl_file: String,
    /// Which [`levelgeom_scene::Primitive::colors`] set is written as `v x y z r g b`
    /// (primitives that lack it get plain `v x y z`).
    pub colour_set: usize,
    /// Write `g name` per node instead of `o name`.
    pub groups: bool,
}

impl Default for ObjOptions {
    fn default() -> Self {
        ObjOptions {
            roots: None,
            mtl_file: "level.mtl".to_string(),
            colour_set: 0,
            groups: false,
        }
    }
}

/// The text of an OBJ and its MTL.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ObjOutput {
    /// The `.obj` text.
    pub obj: String,
    /// The `.mtl` text.
    pub mtl: String,
    /// Scene texture indices the MTL refers to (ascending, decoded and external); write the
    /// decoded ones with [`crate::write_textures`].
    pub textures: Vec<usize>,
    /// Repairs made (non-finite floats replaced, bad primitives skipped, …), for the user.
    pub warnings: Vec<String>,
}

/// A name usable after `o`, `g`, `usemtl`, `newmtl`: no whitespace, no `#` (which starts a
/// comment for many readers), not empty.
fn obj_name(name: &str, fallback: impl FnOnce() -> String) -> String {
    let s: String = name
        .chars()
        .map(|c| {
            if c.is_whitespace() || c.is_control() || c == '#' {
                '_'
            } else {
                c
            }
        })
        .collect();
    if s.is_empty() {
        fallback()
    } else {
        s
    }
}

/// Export the chosen subtrees of `scene` as OBJ + MTL text (see the module docs).
pub fn to_obj(scene: &Scene, opts: &ObjOptions) -> ObjOutput {
    let mut rep = Repairs::default();
    let n = scene.nodes.len();

    // World matrices: the scene's own for nodes reachable from its roots; a start node that is
    // not reachable is placed by its local matrix. Below a start node, parent × local.
    let world = scene.world_matrices();
    let mut reachable = vec![false; n];
    let mut stack: Vec<usize> = scene.roots.iter().copied().filter(|&r| r < n).collect();
    while let Some(x) = stack.pop() {
        if !reachable[x] {
            reachable[x] = true;
            stack.extend(scene.nodes[x].children.iter().copied().filter(|&c| c < n));
        }
    }
    let skip_hidden = opts.roots.is_none();
    let starts: Vec<usize> = match &opts.roots {
        Some(list) => list.clone(),
        None => scene.roots.clone(),
    };

    // Nodes to write, pre-order, each once, with its world matrix.
    let mut order: Vec<(usize, [f32; 16])> = Vec::new();
    let mut seen = vec![false; n];
    for &s in &starts {
        if s >= n {
            rep.warn(format!("root {s} does not exist; skipped"));
            continue;
        }
        let m0 = if reachable[s] {
            world[s]
        } else {
            scene.nodes[s].matrix
        };
        let mut stack = vec![(s, m0)];
        while let Some((x, m)) = stack.pop() {
            if seen[x] || (skip_hidden && scene.nodes[x].hidden) {
                continue;
            }
            seen[x] = true;
            order.push((x, m));
            for &c in scene.nodes[x].children.iter().rev() {
                if c < n {
                    stack.push((c, mul(&m, &scene.nodes[c].matrix)));
                }
            }
        }
    }

    let mut obj = String::new();
    obj.push_str("# levelgeom OBJ\n");
    let _ = writeln!(obj, "mtllib {}", opts.mtl_file);
    let (mut nv, mut nvt, mut nvn) = (0usize, 0usize, 0usize);
    let mut used_materials = vec![false; scene.materials.len()];
    let mut used_default = false;
    let keyword = if opts.groups { "g" } else { "o" };
    let mut cache: Vec<Option<Vec<Option<CleanPrimitive>>>> = vec![None; scene.meshes.len()];
    for (x, m) in order {
        let node = &scene.nodes[x];
        let Some(mi) = node.mesh else { continue };
        let Some(mesh) = scene.meshes.get(mi) else {
            rep.warn(format!(
                "node {x} {:?}: mesh {mi} does not exist; skipped",
                node.name
            ));
            continue;
        };
        let m = if m.iter().any(|v| !v.is_finite()) {
            rep.warn(format!(
                "node {x} {:?}: non-finite world matrix; used identity",
                node.name
            ));
            IDENTITY
        } else {
            m
        };
        let m64 = m.map(|v| v as f64);
        let _ = writeln!(
            obj,
            "{keyword} {}",
            obj_name(&node.name, || format!("node_{x}"))
        );
        // Each mesh is checked once, however many nodes instance it.
        let cleaned = cache[mi].get_or_insert_with(|| {
            mesh.primitives
                .iter()
                .enumerate()
                .map(|(pi, p)| {
                    let label = format!("mesh {mi} {:?} primitive {pi}", mesh.name);
                    clean_primitive(p, scene.materials.len(), &label, &mut rep)
                })
                .collect()
        });
        for c in cleaned.iter().flatten() {
            // world space; winding already reversed for mirroring matrices
            let c = bake(c, &m64, &mut rep);
            let colours = c.colors.get(opts.colour_set);
            for (k, w) in c.positions.iter().enumerate() {
                let [wx, wy, wz] = *w;
                match colours.and_then(|set| set.get(k)) {
                    Some(col) => {
                        let _ = writeln!(obj, "v {wx} {wy} {wz} {} {} {}", col[0], col[1], col[2]);
                    }
                    None => {
                        let _ = writeln!(obj, "v {wx} {wy} {wz}");
                    }
                }
            }
            let uv = c.uvs.first();
            if let Some(set) = uv {
                for t in set.iter() {
                    let v = (1.0 - t[1] as f64) as f32;
                    let _ = writeln!(obj, "vt {} {}", t[0], v);
                }
            }
            if let Some(normals) = &c.normals {
                for u in normals.iter() {
                    let _ = writeln!(obj, "vn {} {} {}", u[0], u[1], u[2]);
                }
            }
            match c.material {
                Some(mat) => {
                    used_materials[mat] = true;
                    let name = obj_name(&scene.materials[mat].name, || format!("material_{mat}"));
                    let _ = writeln!(obj, "usemtl {name}");
                }
                None => {
                    used_default = true;
                    let _ = writeln!(obj, "usemtl {DEFAULT_MATERIAL}");
                }
            }
            let has_uv = uv.is_some();
            let has_n = c.normals.is_some();
            for t in c.indices.chunks_exact(3) {
                obj.push('f');
                for &i in t {
                    let i = i as usize + 1;
                    let _ = match (has_uv, has_n) {
                        (true, true) => write!(obj, " {}/{}/{}", nv + i, nvt + i, nvn + i),
                        (true, false) => write!(obj, " {}/{}", nv + i, nvt + i),
                        (false, true) => write!(obj, " {}//{}", nv + i, nvn + i),
                        (false, false) => write!(obj, " {}", nv + i),
                    };
                }
                obj.push('\n');
            }
            nv += c.positions.len();
            if has_uv {
                nvt += c.positions.len();
            }
            if has_n {
                nvn += c.positions.len();
            }
        }
    }

    // MTL for the materials used.
    let mut mtl = String::from("# levelgeom MTL\n");
    let mut textures = Vec::new();
    if used_default {
        let _ = writeln!(
            mtl,
            "\nnewmtl {DEFAULT_MATERIAL}\nKd 1 1 1\nKs 0 0 0\nd 1\nillum 1"
        );
    }
    for (i, mat) in scene.materials.iter().enumerate() {
        if !used_materials[i] {
            continue;
        }
        let c = mat.base_color;
        let (r, g, b, a) = (rep.f(c[0]), rep.f(c[1]), rep.f(c[2]), rep.f(c[3]));
        let _ = writeln!(
            mtl,
            "\nnewmtl {}\nKd {r} {g} {b}\nKs 0 0 0\nd {a}\nillum {}",
            obj_name(&mat.name, || format!("material_{i}")),
            if mat.unlit { 0 } else { 1 }
        );
        if let Some(t) = mat.texture {
            match scene.textures.get(t) {
                None => rep.warn(format!(
                    "material {i} {:?}: texture {t} does not exist; left untextured",
                    mat.name
                )),
                Some(tex) => {
                    let file = match &tex.source {
                        TextureSource::Rgba8 { .. } => crate::texture_file_name(tex),
                        TextureSource::External { uri } | TextureSource::Unresolved { uri } => {
                            uri.clone()
                        }
                    };
                    let _ = writeln!(mtl, "map_Kd {file}");
                    if !matches!(mat.alpha, AlphaMode::Opaque) {
                        let _ = writeln!(mtl, "map_d {file}");
                    }
                    textures.push(t);
                }
            }
        }
    }
    textures.sort_unstable();
    textures.dedup();
    ObjOutput {
        obj,
        mtl,
        textures,
        warnings: rep.finish(),
    }
}
