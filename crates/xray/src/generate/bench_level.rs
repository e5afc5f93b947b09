//! A large generated level for benchmarks: [`large`]`(visuals)` builds the `level` and
//! `level.geom` bytes of a v14 level of real game size, made only through the crate's public
//! types (as a tool outside the crate would).
//!
//! Every geometry visual owns one range of 256 vertices (a 16 × 16 grid with a little relief)
//! and 450 triangles, as xrLC's output averages; the kinds are mixed like a real level's:
//!
//! | visual `i` (`i % 10`) | type | buffers | detail |
//! |---|---|---|---|
//! | 0–5 | MT_NORMAL | static (`r1_lmap`, 32 bytes) | all 450 triangles |
//! | 6, 7 | MT_PROGRESSIVE | static | OGF_SWIDATA: `sw[0]` the 450 triangles, `sw[1]` 2 triangles on the 4 corners (the first 4 vertices) |
//! | 8, 9 | MT_TREE_PM | tree (`mu_model`, 32 bytes) | TREEDEF2 matrix, SWICONTAINER into level.geom's SWIS |
//!
//! Vertex buffers are split as xrLC splits them: a buffer takes ranges until the next one
//! would pass 65,535 vertices, then a new buffer (and its own index buffer) begins. Above the
//! geometry visuals, one MT_HIERRARHY per 64 of them, and one root hierarchy over those, which
//! the single sector names as its root. 16 shaders for static geometry, 4 for trees.
//!
//! 2,000 visuals give 512,000 vertices, 900,000 triangles (+ the coarse windows) and a
//! `level.geom` of about 21.9 MB; the size grows linearly with `visuals`.

use levelgeom_binary::WriteError;

use super::ogf_header;
use crate::chunk::Framed;
use crate::decl::{self, Declaration};
use crate::geom::{self, Geom, GeomChunk, Header, SlideWindow, SwiItem, VertexBuffer};
use crate::level::{self, Level, LevelChunk};
use crate::ogf::{self, model_type, GContainer, OgfChunk, TreeDef, Visual};
use crate::sectors::{Sector, SectorChunk};
use crate::shaders::ShaderEntry;
use crate::vertex::Vertices;

/// Grid side of one visual: 16 × 16 = 256 vertices, 15 × 15 × 2 = 450 triangles.
const SIDE: usize = 16;
/// Vertices per visual.
pub const VERTICES_PER_VISUAL: usize = SIDE * SIDE;
/// Triangles per visual at full detail.
pub const TRIANGLES_PER_VISUAL: usize = (SIDE - 1) * (SIDE - 1) * 2;
/// The most vertices one buffer takes (u16 indices).
const MAX_BUFFER: usize = 65_535;
const STATIC_SHADERS: usize = 16;
const TREE_SHADERS: usize = 4;

/// The generated files.
#[derive(Clone, Debug)]
pub struct LargeLevel {
    /// The `level` file.
    pub level: Vec<u8>,
    /// The `level.geom` file.
    pub geom: Vec<u8>,
    /// Geometry visuals (hierarchies not counted).
    pub visuals: usize,
    /// Vertices in `level.geom`.
    pub vertices: usize,
    /// Triangles the visuals draw at full detail.
    pub triangles: usize,
}

/// Vertex order within a visual: the four corners first (the coarse window uses a prefix of
/// the vertices), then the rest row by row. `order[k]` = grid cell `(x, z)` of vertex `k`.
fn vertex_order() -> Vec<(usize, usize)> {
    let last = SIDE - 1;
    let corners = [(0, 0), (last, 0), (last, last), (0, last)];
    let mut out = corners.to_vec();
    for z in 0..SIDE {
        for x in 0..SIDE {
            if !corners.contains(&(x, z)) {
                out.push((x, z));
            }
        }
    }
    out
}

/// The 450 triangles (local indices), clockwise seen from +y (X-Ray's front face up), then the
/// 2-triangle coarse window on the corners.
fn triangles(order: &[(usize, usize)]) -> (Vec<u16>, Vec<u16>) {
    let mut local = vec![0u16; SIDE * SIDE];
    for (k, &(x, z)) in order.iter().enumerate() {
        local[z * SIDE + x] = k as u16;
    }
    let at = |x: usize, z: usize| local[z * SIDE + x];
    let mut full = Vec::with_capacity(TRIANGLES_PER_VISUAL * 3);
    for z in 0..SIDE - 1 {
        for x in 0..SIDE - 1 {
            let (a, b, c, d) = (at(x, z), at(x + 1, z), at(x + 1, z + 1), at(x, z + 1));
            full.extend([a, d, c, a, c, b]);
        }
    }
    (full, vec![0, 3, 2, 0, 2, 1])
}

/// The vertices of visual `i`, placed on a 64-wide field of 20 m cells.
fn visual_vertices(i: usize, order: &[(usize, usize)], tree: bool) -> Vertices {
    let (ox, oz) = ((i % 64) as f32 * 20.0, (i / 64) as f32 * 20.0);
    let n = order.len();
    let mut v = Vertices {
        count: n,
        ..Vertices::default()
    };
    for &(x, z) in order {
        let (fx, fz) = (x as f32 / (SIDE - 1) as f32, z as f32 / (SIDE - 1) as f32);
        let h = ((fx * 6.3 + i as f32).sin() * (fz * 4.1).cos()) * 0.75;
        let p = if tree {
            // a cone of leaves in model space, cut below its apex (a point would make the
            // top row's triangles zero-area, which `check` reports); TREEDEF2 places it
            let r = 2.0 * (1.0 - 0.9 * fz);
            let a = fx * std::f32::consts::TAU;
            [r * a.cos(), fz * 8.0, r * a.sin()]
        } else {
            [ox + fx * 16.0, h, oz + fz * 16.0]
        };
        v.positions.push(p);
        let nrm = [-0.3 * (fx - 0.5), 0.9, -0.3 * (fz - 0.5)];
        v.normals.push(nrm);
        v.tangents.push([0.95, 0.3 * (fx - 0.5), 0.0]);
        v.binormals.push([0.0, 0.3 * (fz - 0.5), 0.95]);
        v.hemi.push(0.5 + 0.4 * fx);
        v.uv.push([fx * 4.0, fz * 4.0]);
        if tree {
            v.tangent_alpha.push(0.0);
            v.binormal_alpha.push(0.0);
            v.wind.push([fz * 0.5, 0.0]);
        } else {
            v.lightmap
                .push([(i % 32) as f32 / 32.0 + fx / 33.0, fz * 0.97]);
        }
    }
    v
}

fn append(all: &mut Vertices, v: Vertices) {
    all.count += v.count;
    all.positions.extend(v.positions);
    all.normals.extend(v.normals);
    all.tangents.extend(v.tangents);
    all.binormals.extend(v.binormals);
    all.hemi.extend(v.hemi);
    all.uv.extend(v.uv);
    all.tangent_alpha.extend(v.tangent_alpha);
    all.binormal_alpha.extend(v.binormal_alpha);
    all.wind.extend(v.wind);
    all.lightmap.extend(v.lightmap);
}

/// Buffers of one kind (static or tree) being filled, split at [`MAX_BUFFER`] vertices.
struct Buffers {
    decl: Declaration,
    /// The buffers so far (the last one being filled): vertices and their indices.
    parts: Vec<(Vertices, Vec<u16>)>,
}

impl Buffers {
    /// Add one range; returns (buffer part, vertex offset, index offset) within that part.
    fn add(&mut self, v: Vertices, indices: &[u16]) -> (usize, u32, u32) {
        let need_new = match self.parts.last() {
            None => true,
            Some((vs, _)) => vs.count + v.count > MAX_BUFFER,
        };
        if need_new {
            self.parts.push((Vertices::default(), Vec::new()));
        }
        let k = self.parts.len() - 1;
        let (vs, ib) = &mut self.parts[k];
        let (vo, io) = (vs.count as u32, ib.len() as u32);
        append(vs, v);
        ib.extend_from_slice(indices);
        (k, vo, io)
    }
}

fn gcontainer(vb: usize, vo: u32, io: u32, ic: usize, ib: usize) -> Framed<OgfChunk> {
    Framed::plain(
        ogf::GCONTAINER,
        OgfChunk::GContainer(GContainer {
            vb_index: vb as u32,
            vb_offset: vo,
            vb_count: VERTICES_PER_VISUAL as u32,
            ib_index: ib as u32,
            ib_offset: io,
            ib_count: ic as u32,
        }),
    )
}

/// Generate a level of `visuals` geometry visuals (see the module docs).
///
/// # Errors
/// Only when a count does not fit its field, which the buffer split prevents (a bug).
pub fn large(visuals: usize) -> Result<LargeLevel, WriteError> {
    let order = vertex_order();
    let (full, coarse) = triangles(&order);
    let mut statics = Buffers {
        decl: decl::r1_lmap(),
        parts: Vec::new(),
    };
    let mut trees = Buffers {
        decl: decl::mu_model(),
        parts: Vec::new(),
    };
    // (kind, part, vertex offset, index offset, index count, shader, swis item) per visual
    struct Placed {
        t: u8,
        tree: bool,
        part: usize,
        vo: u32,
        io: u32,
        ic: usize,
        shader: u16,
        swis: Option<u32>,
    }
    let mut placed = Vec::with_capacity(visuals);
    let mut swis = Vec::new();
    for i in 0..visuals {
        let kind = i % 10;
        let (t, tree) = match kind {
            0..=5 => (model_type::NORMAL, false),
            6 | 7 => (model_type::PROGRESSIVE, false),
            _ => (model_type::TREE_PM, true),
        };
        let v = visual_vertices(i, &order, tree);
        let mut idx = full.clone();
        if t != model_type::NORMAL {
            idx.extend_from_slice(&coarse);
        }
        let (part, vo, io) = if tree {
            trees.add(v, &idx)
        } else {
            statics.add(v, &idx)
        };
        let shader = if tree {
            (1 + STATIC_SHADERS + i % TREE_SHADERS) as u16
        } else {
            (1 + i % STATIC_SHADERS) as u16
        };
        let item = tree.then(|| {
            swis.push(windows());
            (swis.len() - 1) as u32
        });
        placed.push(Placed {
            t,
            tree,
            part,
            vo,
            io,
            ic: idx.len(),
            shader,
            swis: item,
        });
    }

    // buffers: the static parts first, then the tree parts; index buffer k belongs to vertex
    // buffer k
    let static_parts = statics.parts.len();
    let mut vbs = Vec::new();
    let mut ibs = Vec::new();
    let mut vertices = 0;
    for b in [&statics, &trees] {
        for (v, ib) in &b.parts {
            vertices += v.count;
            vbs.push(VertexBuffer::encode(b.decl.clone(), v)?);
            ibs.push(ib.clone().into());
        }
    }
    let geom = Geom {
        chunks: vec![
            Framed::plain(
                geom::HEADER,
                GeomChunk::Header(Header {
                    version: 14,
                    quality: 0,
                }),
            ),
            Framed::plain(geom::VB, GeomChunk::VertexBuffers(vbs)),
            Framed::plain(geom::IB, GeomChunk::IndexBuffers(ibs)),
            Framed::plain(geom::SWIS, GeomChunk::Swis(swis)),
        ],
    };

    let mut out: Vec<Visual> = Vec::with_capacity(visuals + visuals / 64 + 2);
    for (i, p) in placed.iter().enumerate() {
        let buffer = if p.tree {
            static_parts + p.part
        } else {
            p.part
        };
        let mut chunks = vec![gcontainer(buffer, p.vo, p.io, p.ic, buffer)];
        let (ox, oz) = ((i % 64) as f32 * 20.0, (i / 64) as f32 * 20.0);
        match p.t {
            model_type::PROGRESSIVE => {
                chunks.push(Framed::plain(ogf::SWIDATA, OgfChunk::SwiData(windows())));
                chunks.push(ogf_header(
                    p.t,
                    p.shader,
                    [ox, -0.75, oz],
                    [ox + 16.0, 0.75, oz + 16.0],
                ));
            }
            model_type::TREE_PM => {
                let xform = [
                    1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, ox, 0.0, oz, 1.0,
                ];
                chunks.push(Framed::plain(
                    ogf::TREEDEF2,
                    OgfChunk::TreeDef(TreeDef {
                        xform,
                        c_scale: [1.0; 5],
                        c_bias: [0.0; 5],
                    }),
                ));
                chunks.push(ogf_header(
                    p.t,
                    p.shader,
                    [ox - 2.0, 0.0, oz - 2.0],
                    [ox + 2.0, 8.0, oz + 2.0],
                ));
                chunks.push(Framed::plain(
                    ogf::SWICONTAINER,
                    OgfChunk::SwiContainer(p.swis.unwrap_or(0)),
                ));
            }
            _ => chunks.push(ogf_header(
                p.t,
                p.shader,
                [ox, -0.75, oz],
                [ox + 16.0, 0.75, oz + 16.0],
            )),
        }
        out.push(Visual { chunks });
    }
    // hierarchies: one per 64 visuals, then the root over them
    let rows = visuals.div_ceil(64).max(1);
    let extent = [64.0 * 20.0, rows as f32 * 20.0];
    let mut groups = Vec::new();
    for g in 0..visuals.div_ceil(64) {
        let children: Vec<u32> = (g * 64..((g + 1) * 64).min(visuals))
            .map(|c| c as u32)
            .collect();
        groups.push(out.len() as u32);
        out.push(Visual {
            chunks: vec![
                ogf_header(
                    model_type::HIERARCHY,
                    0,
                    [0.0, -1.0, g as f32 * 20.0 - 2.0],
                    [extent[0], 8.0, g as f32 * 20.0 + 18.0],
                ),
                Framed::plain(ogf::CHILDREN_L, OgfChunk::Children(children)),
            ],
        });
    }
    let root = out.len() as u32;
    out.push(Visual {
        chunks: vec![
            ogf_header(
                model_type::HIERARCHY,
                0,
                [-2.0, -1.0, -2.0],
                [extent[0], 8.0, extent[1]],
            ),
            Framed::plain(ogf::CHILDREN_L, OgfChunk::Children(groups)),
        ],
    });

    let mut shaders = vec![ShaderEntry(Vec::new())];
    for k in 0..STATIC_SHADERS {
        shaders.push(ShaderEntry(
            format!("default/ston\\ston_{k:02},lmap#{k}_1,lmap#{k}_2").into_bytes(),
        ));
    }
    for k in 0..TREE_SHADERS {
        shaders.push(ShaderEntry(
            format!("flora\\leaf_wave/trees\\trees_{k:02}").into_bytes(),
        ));
    }
    let level = Level {
        chunks: vec![
            Framed::plain(
                level::HEADER,
                LevelChunk::Header(Header {
                    version: 14,
                    quality: 1,
                }),
            ),
            Framed::plain(
                level::VISUALS,
                LevelChunk::Visuals(
                    out.into_iter()
                        .enumerate()
                        .map(|(i, v)| Framed::plain(i as u32, v))
                        .collect(),
                ),
            ),
            Framed::plain(level::SHADERS, LevelChunk::Shaders(shaders)),
            Framed::plain(
                level::SECTORS,
                LevelChunk::Sectors(vec![Framed::plain(
                    0,
                    Sector {
                        chunks: vec![
                            Framed::plain(1, SectorChunk::Portals(Vec::new())),
                            Framed::plain(2, SectorChunk::Root(root)),
                        ],
                    },
                )]),
            ),
        ],
    };
    Ok(LargeLevel {
        level: level.to_bytes()?,
        geom: geom.to_bytes()?,
        visuals,
        vertices,
        triangles: visuals * TRIANGLES_PER_VISUAL,
    })
}

/// The sliding windows of a progressive visual: full detail, then the corners.
fn windows() -> SwiItem {
    SwiItem {
        reserved: [0; 4],
        windows: vec![
            SlideWindow {
                offset: 0,
                num_tris: TRIANGLES_PER_VISUAL as u16,
                num_verts: VERTICES_PER_VISUAL as u16,
            },
            SlideWindow {
                offset: (TRIANGLES_PER_VISUAL * 3) as u32,
                num_tris: 2,
                num_verts: 4,
            },
        ],
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn counts_buffers_and_a_clean_check() {
        let l = large(300).unwrap();
        assert_eq!(l.vertices, 300 * 256);
        assert_eq!(l.triangles, 300 * 450);
        let (level, _) = Level::read(&l.level).unwrap();
        let (geom, _) = Geom::read(&l.geom).unwrap();
        // 240 static visuals = 61,440 vertices (one buffer), 60 tree visuals (one buffer)
        let vbs = geom.vertex_buffers().unwrap();
        assert_eq!(vbs.len(), 2);
        assert_eq!(vbs[0].count, 240 * 256);
        assert_eq!(vbs[1].count, 60 * 256);
        assert!(vbs.iter().all(|vb| vb.count as usize <= MAX_BUFFER));
        // 300 geometry visuals + 5 groups + the root
        assert_eq!(level.visuals().len(), 306);
        assert!(crate::check::level(&level, Some(&geom), None).is_empty());
        assert!(crate::check::geom(&geom).is_empty());
        // the writer reproduces the bytes
        assert_eq!(level.to_bytes().unwrap(), l.level);
        assert_eq!(geom.to_bytes().unwrap(), l.geom);
    }

    #[test]
    fn buffers_split_below_65536_vertices() {
        // 2,000 visuals: 1,600 static ones = 409,600 vertices → 7 buffers of ≤ 255 visuals
        let l = large(2000).unwrap();
        let (geom, _) = Geom::read(&l.geom).unwrap();
        let vbs = geom.vertex_buffers().unwrap();
        let counts: Vec<u32> = vbs.iter().map(|v| v.count).collect();
        assert_eq!(counts.iter().map(|&c| c as usize).sum::<usize>(), 512_000);
        assert!(counts.iter().all(|&c| c <= 65_535 && c % 256 == 0));
        // 255 visuals of 256 vertices fill a buffer (65,280); static 1,600 → 7, trees 400 → 2
        assert_eq!(counts.len(), 9);
        assert_eq!(counts[0], 255 * 256);
        let scene = crate::to_scene(
            &Level::read(&l.level).unwrap().0,
            &geom,
            &crate::SceneOptions::default(),
        )
        .unwrap();
        assert_eq!(scene.mesh_triangle_count(), 900_000);
    }
}
