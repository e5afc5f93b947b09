//! Sample geometry to import (docs/formats/argonaut-wad.md §23 `geom_demo`): two blocks and a ramp, optionally on a
//! paved square, built from texture-tile quads of the base level's own texture entries.
//!
//! Every quad shows one whole texture entry: its two triangles carry exactly the corner UVs
//! the engine gives faces with flags 0x800 and 0x800|0x10 ([`crate::scene::uv::corners`]), and
//! the material name is the exporter's (`page_NN[_blendK]`), so [`crate::import::import`] fits
//! every triangle with zero UV error. Triangles run counter-clockwise seen from outside.
//!
//! Layout ([`sample_blocks`]), around the anchor `(ax, az) = (⌊W/2⌋, −⌊H/2⌋)` of the base's
//! W × H grid:
//! * block 0: x ∈ [ax − 2, ax − 1], z ∈ [az − 1, az], y ∈ [0, 2.5];
//! * block 1: x ∈ [ax, ax + 2], z ∈ [az − 1, az], y ∈ [0, 3.5] (two cells wide);
//! * a ramp in front of block 0 (x ∈ [ax − 2, ax − 1]) rising from y = 0 at z = az − 3 to
//!   y = 2.5 at z = az − 1, with its two side walls;
//! * with `plaza`: a square of 8 × 8 one-cell paving quads at y = 0, x ∈ [ax − 4, ax + 4],
//!   z ∈ [az − 5, az + 3].
//!
//! Blocks have no bottom face. The grid must be at least 8 × 8 cells for everything to lie
//! inside it (smaller grids grow on import).

use levelgeom_scene::{Material, Mesh, Node, Primitive, Scene};

use crate::import::MeshTriangle;
use crate::level::Level;
use crate::model::{FACE_UV_QUAD, FACE_UV_SECOND};
use crate::scene::material::{make, MaterialKey};
use crate::scene::uv::{corners, UvRect};

/// An axis-aligned block of the sample.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SampleBlock {
    /// Minimum corner (export space).
    pub min: [f32; 3],
    /// Maximum corner.
    pub max: [f32; 3],
}

/// The height of the ramp's top end (= block 0's top).
pub const RAMP_TOP: f32 = 2.5;

/// The anchor `(ax, az)` of the layout.
pub fn anchor(base: &Level) -> (f32, f32) {
    let (w, h) = base.map().map_or((16, 16), |m| (m.grid_w, m.grid_h));
    ((w / 2) as f32, -((h / 2) as f32))
}

/// The two blocks of the layout (see the module docs).
pub fn sample_blocks(base: &Level) -> [SampleBlock; 2] {
    let (ax, az) = anchor(base);
    [
        SampleBlock {
            min: [ax - 2.0, 0.0, az - 1.0],
            max: [ax - 1.0, RAMP_TOP, az],
        },
        SampleBlock {
            min: [ax, 0.0, az - 1.0],
            max: [ax + 2.0, 3.5, az],
        },
    ]
}

/// A texture entry to pave with: material name and rectangle.
#[derive(Clone, Debug)]
struct Paint {
    material: String,
    rect: Option<UvRect>,
}

/// Up to `n` paints from the base's textured entries with blend mode 0 (any textured entries
/// when there are none of those; a `sample` material without UVs when there are no textured
/// entries at all).
fn paints(base: &Level, n: usize) -> Vec<Paint> {
    let mut out = Vec::new();
    if let Some(text) = base.text() {
        for pass in 0..2 {
            for e in &text.entries {
                if e.is_flat_colour() || (pass == 0 && e.blend_mode() != 0) {
                    continue;
                }
                let Some(p) = text.pages.get(usize::from(e.page)) else {
                    continue;
                };
                let key = MaterialKey::Page {
                    page: usize::from(e.page),
                    blend: e.blend_mode(),
                    double_sided: false,
                };
                out.push(Paint {
                    material: make(key, None, false).name,
                    rect: Some(UvRect::new(e.u0, e.u1, e.v0, e.v1, p.width, p.height)),
                });
                if out.len() == n {
                    return out;
                }
            }
            if !out.is_empty() {
                break;
            }
        }
    }
    if out.is_empty() {
        out.push(Paint {
            material: "sample".into(),
            rect: None,
        });
    }
    while out.len() < n {
        out.push(out[out.len() % out.len().max(1)].clone());
    }
    out
}

fn tri(p: [[f32; 3]; 3], paint: &Paint, flags: u16) -> MeshTriangle {
    MeshTriangle {
        positions: p,
        uvs: paint.rect.map(|r| corners(flags, &r)),
        colours: None,
        material: paint.material.clone(),
    }
}

fn normal(p: &[[f32; 3]; 3]) -> [f32; 3] {
    let u = [0, 1, 2].map(|k| p[1][k] - p[0][k]);
    let v = [0, 1, 2].map(|k| p[2][k] - p[0][k]);
    [
        u[1] * v[2] - u[2] * v[1],
        u[2] * v[0] - u[0] * v[2],
        u[0] * v[1] - u[1] * v[0],
    ]
}

fn facing(p: &[[f32; 3]; 3], out: [f32; 3]) -> bool {
    let n = normal(p);
    n[0] * out[0] + n[1] * out[1] + n[2] * out[2] > 0.0
}

/// A quad (corners in order around it) as two triangles facing `out`, one whole entry.
fn quad(q: [[f32; 3]; 4], out: [f32; 3], paint: &Paint, tris: &mut Vec<MeshTriangle>) {
    let q = if facing(&[q[0], q[1], q[2]], out) {
        q
    } else {
        [q[0], q[3], q[2], q[1]]
    };
    tris.push(tri([q[0], q[1], q[2]], paint, FACE_UV_QUAD));
    tris.push(tri(
        [q[2], q[3], q[0]],
        paint,
        FACE_UV_QUAD | FACE_UV_SECOND,
    ));
}

/// A single triangle facing `out` with a plain (no 0x800) half of an entry.
fn single(p: [[f32; 3]; 3], out: [f32; 3], paint: &Paint, tris: &mut Vec<MeshTriangle>) {
    let p = if facing(&p, out) {
        p
    } else {
        [p[0], p[2], p[1]]
    };
    tris.push(tri(p, paint, 0));
}

fn block(b: &SampleBlock, top: &Paint, side: &Paint, tris: &mut Vec<MeshTriangle>) {
    let ([x0, y0, z0], [x1, y1, z1]) = (b.min, b.max);
    quad(
        [[x0, y1, z0], [x1, y1, z0], [x1, y1, z1], [x0, y1, z1]],
        [0.0, 1.0, 0.0],
        top,
        tris,
    );
    quad(
        [[x0, y0, z1], [x1, y0, z1], [x1, y1, z1], [x0, y1, z1]],
        [0.0, 0.0, 1.0],
        side,
        tris,
    );
    quad(
        [[x0, y0, z0], [x1, y0, z0], [x1, y1, z0], [x0, y1, z0]],
        [0.0, 0.0, -1.0],
        side,
        tris,
    );
    quad(
        [[x0, y0, z0], [x0, y0, z1], [x0, y1, z1], [x0, y1, z0]],
        [-1.0, 0.0, 0.0],
        side,
        tris,
    );
    quad(
        [[x1, y0, z0], [x1, y0, z1], [x1, y1, z1], [x1, y1, z0]],
        [1.0, 0.0, 0.0],
        side,
        tris,
    );
}

/// The sample mesh for `base` (see the module docs).
pub fn sample(base: &Level, plaza: bool) -> Vec<MeshTriangle> {
    let p = paints(base, 4);
    let (ax, az) = anchor(base);
    let mut tris = Vec::new();
    if plaza {
        for j in 0..8 {
            for i in 0..8 {
                let x = ax - 4.0 + i as f32;
                let z = az + 3.0 - j as f32;
                quad(
                    [
                        [x, 0.0, z],
                        [x + 1.0, 0.0, z],
                        [x + 1.0, 0.0, z - 1.0],
                        [x, 0.0, z - 1.0],
                    ],
                    [0.0, 1.0, 0.0],
                    &p[3],
                    &mut tris,
                );
            }
        }
    }
    for b in &sample_blocks(base) {
        block(b, &p[0], &p[1], &mut tris);
    }
    // The ramp in front of block 0.
    let (x0, x1) = (ax - 2.0, ax - 1.0);
    let (zl, zh) = (az - 3.0, az - 1.0);
    quad(
        [
            [x0, 0.0, zl],
            [x1, 0.0, zl],
            [x1, RAMP_TOP, zh],
            [x0, RAMP_TOP, zh],
        ],
        [0.0, 1.0, -1.0],
        &p[2],
        &mut tris,
    );
    single(
        [[x0, 0.0, zl], [x0, 0.0, zh], [x0, RAMP_TOP, zh]],
        [-1.0, 0.0, 0.0],
        &p[1],
        &mut tris,
    );
    single(
        [[x1, 0.0, zl], [x1, 0.0, zh], [x1, RAMP_TOP, zh]],
        [1.0, 0.0, 0.0],
        &p[1],
        &mut tris,
    );
    tris
}

/// A scene of `tris` (one node `sample`, one primitive per material) whose materials and
/// textures are those of `base` (the level's own scene, [`crate::scene::build`]) with the same
/// names, so an OBJ written from it names the page PNGs.
pub fn scene(base: &Scene, tris: &[MeshTriangle]) -> Scene {
    let mut scene = Scene {
        name: "sample".into(),
        ..Scene::default()
    };
    let mut prims: Vec<(String, Primitive)> = Vec::new();
    for t in tris {
        let i = match prims.iter().position(|(m, _)| *m == t.material) {
            Some(i) => i,
            None => {
                prims.push((t.material.clone(), Primitive::default()));
                prims.len() - 1
            }
        };
        let p = &mut prims[i].1;
        let base_index = p.positions.len() as u32;
        p.positions.extend_from_slice(&t.positions);
        if let Some(uv) = t.uvs {
            if p.uvs.is_empty() {
                p.uvs.push(Vec::new());
            }
            p.uvs[0].extend_from_slice(&uv);
        }
        if let Some(c) = t.colours {
            if p.colors.is_empty() {
                p.colors.push(Vec::new());
            }
            p.colors[0].extend_from_slice(&c);
        }
        p.indices
            .extend_from_slice(&[base_index, base_index + 1, base_index + 2]);
    }
    let mut primitives = Vec::new();
    for (name, mut p) in prims {
        let material = base.materials.iter().find(|m| m.name == name).cloned();
        let mut material = material.unwrap_or_else(|| Material {
            name: name.clone(),
            ..Material::default()
        });
        if let Some(t) = material.texture.and_then(|t| base.textures.get(t)) {
            let ti = match scene.textures.iter().position(|x| x.name == t.name) {
                Some(i) => i,
                None => {
                    scene.textures.push(t.clone());
                    scene.textures.len() - 1
                }
            };
            material.texture = Some(ti);
        }
        scene.materials.push(material);
        p.material = Some(scene.materials.len() - 1);
        primitives.push(p);
    }
    let mesh = scene.add_mesh(Mesh {
        name: "sample".into(),
        primitives,
    });
    let node = scene.add_node(Node {
        name: "sample".into(),
        mesh: Some(mesh),
        ..Node::default()
    });
    scene.roots.push(node);
    scene
}
