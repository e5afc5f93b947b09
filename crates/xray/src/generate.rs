//! Small, self-consistent generated levels for tests: what the real fixture lacks.
//!
//! [`level()`] builds a `level` + `level.geom` pair with:
//!
//! | visual | type | geometry |
//! |---|---|---|
//! | 0 | MT_NORMAL | a 2 × 2 m quad at y = 0 (4 vertices, 2 triangles) |
//! | 1 | MT_PROGRESSIVE | a 3 × 3-vertex grid (8 triangles) + a 2-triangle coarse window on its 4 corners; OGF_SWIDATA `sw[0]` = full, `sw[1]` = coarse |
//! | 2, 3 | MT_TREE_PM | one shared pyramid (5 vertices, 4 triangles + 2-triangle coarse window) at two TREEDEF2 matrices; windows in level.geom SWIS item 0 |
//! | 4 | MT_HIERRARHY | children 0, 1, 2, 3 |
//!
//! Version 14 uses the xrLC layouts (SHORT2 base UV with fraction bytes); version 13 the
//! FLOAT2 base-UV layout. With `compress`, the level's shader chunk and the geom's SWIS chunk
//! are written LZHUF-compressed.

use crate::chunk::{Framed, COMPRESSED};
use crate::decl::{self, Declaration};
use crate::geom::{self, Geom, GeomChunk, Header, SlideWindow, SwiItem, VertexBuffer};
use crate::level::{self, Level, LevelChunk};
use crate::ogf::{self, model_type, GContainer, OgfChunk, OgfHeader, TreeDef, Visual};
use crate::sectors::{Sector, SectorChunk};
use crate::shaders::ShaderEntry;
use crate::vertex::Vertices;

/// What to generate.
#[derive(Clone, Copy, Debug)]
pub struct Options {
    /// XRLC version: 14 (SHORT2 base UVs) or 13 (FLOAT2 base UVs).
    pub version: u16,
    /// Write the shader chunk and the SWIS chunk compressed.
    pub compress: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            version: 14,
            compress: false,
        }
    }
}

/// The translations of the two tree instances (X-Ray space).
pub const TREE_OFFSETS: [[f32; 3]; 2] = [[10.0, 0.0, 5.0], [-4.0, 1.0, -6.0]];

fn static_vertices(pos: &[[f32; 3]]) -> Vertices {
    let n = pos.len();
    Vertices {
        count: n,
        positions: pos.to_vec(),
        normals: vec![[0.0, 1.0, 0.0]; n],
        hemi: vec![0.8; n],
        tangents: vec![[1.0, 0.0, 0.0]; n],
        binormals: vec![[0.0, 0.0, 1.0]; n],
        uv: pos
            .iter()
            .map(|p| [p[0] * 0.25 + 0.5, p[2] * 0.25 + 0.5])
            .collect(),
        lightmap: pos
            .iter()
            .map(|p| [p[0] * 0.125 + 0.5, p[2] * 0.125 + 0.5])
            .collect(),
        ..Vertices::default()
    }
}

fn header(t: u8, shader_id: u16, lo: [f32; 3], hi: [f32; 3]) -> Framed<OgfChunk> {
    let c = [
        (lo[0] + hi[0]) / 2.0,
        (lo[1] + hi[1]) / 2.0,
        (lo[2] + hi[2]) / 2.0,
    ];
    let d = [hi[0] - c[0], hi[1] - c[1], hi[2] - c[2]];
    Framed::plain(
        ogf::HEADER,
        OgfChunk::Header(OgfHeader {
            format_version: 4,
            model_type: t,
            shader_id,
            bbox_min: lo,
            bbox_max: hi,
            sphere_center: c,
            sphere_radius: (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt(),
        }),
    )
}

fn gc(vb: u32, vo: u32, vc: u32, io: u32, ic: u32) -> Framed<OgfChunk> {
    Framed::plain(
        ogf::GCONTAINER,
        OgfChunk::GContainer(GContainer {
            vb_index: vb,
            vb_offset: vo,
            vb_count: vc,
            ib_index: 0,
            ib_offset: io,
            ib_count: ic,
        }),
    )
}

/// Generate a `(level, level.geom)` pair as typed models.
pub fn level(opts: Options) -> (Level, Geom) {
    // --- static buffer: quad (4) + progressive grid (9, corners first)
    let quad = [
        [-1.0, 0.0, -1.0],
        [1.0, 0.0, -1.0],
        [1.0, 0.0, 1.0],
        [-1.0, 0.0, 1.0],
    ];
    let mut grid: Vec<[f32; 3]> = vec![
        [3.0, 0.0, -1.0],
        [5.0, 0.0, -1.0],
        [5.0, 0.0, 1.0],
        [3.0, 0.0, 1.0],
    ];
    grid.extend([
        [4.0, 0.0, -1.0],
        [5.0, 0.0, 0.0],
        [4.0, 0.0, 1.0],
        [3.0, 0.0, 0.0],
        [4.0, 0.0, 0.0],
    ]);
    let mut statics = quad.to_vec();
    statics.extend(&grid);
    let mut sv = static_vertices(&statics);
    let sdecl = if opts.version == 13 {
        decl::v13_lmap()
    } else {
        decl::r1_lmap()
    };
    if opts.version == 13 {
        // FLOAT2 keeps any value; use ones SHORT2 could not hold exactly
        for uv in &mut sv.uv {
            uv[0] += 1.0 / 3.0;
        }
    }
    // clockwise seen from +y in X-Ray's left-handed frame = front face up
    let mut ib: Vec<u16> = vec![0, 3, 2, 0, 2, 1];
    let g = |k: u16| k; // grid-local indices: 0..3 corners, 4 top-mid, 5 right-mid, 6 bottom-mid, 7 left-mid, 8 centre
    let grid_tris: [[u16; 3]; 8] = [
        [0, 7, 8],
        [0, 8, 4],
        [4, 8, 5],
        [4, 5, 1],
        [7, 3, 6],
        [7, 6, 8],
        [8, 6, 2],
        [8, 2, 5],
    ];
    let grid_start = ib.len() as u32;
    for t in grid_tris {
        ib.extend(t.iter().map(|&k| g(k)));
    }
    ib.extend([0, 3, 2, 0, 2, 1]); // coarse window on the corners
    let grid_count = ib.len() as u32 - grid_start;

    // --- tree buffer: pyramid, apex last so the coarse window uses the 4 base vertices
    let tree = [
        [-0.5, 0.0, -0.5],
        [0.5, 0.0, -0.5],
        [0.5, 0.0, 0.5],
        [-0.5, 0.0, 0.5],
        [0.0, 2.0, 0.0],
    ];
    let tv = Vertices {
        count: tree.len(),
        positions: tree.to_vec(),
        normals: tree.iter().map(|p| [p[0], 0.5, p[2]]).collect(),
        hemi: vec![1.0; 5],
        tangents: vec![[1.0, 0.0, 0.0]; 5],
        binormals: vec![[0.0, 1.0, 0.0]; 5],
        tangent_alpha: vec![0.0; 5],
        binormal_alpha: vec![0.0; 5],
        uv: tree
            .iter()
            .map(|p| [p[0] + 0.5, 1.0 - p[1] * 0.5])
            .collect(),
        wind: tree.iter().map(|p| [p[1] * 0.5, 0.0]).collect(),
        ..Vertices::default()
    };
    let tree_start = ib.len() as u32;
    ib.extend([0, 4, 1, 1, 4, 2, 2, 4, 3, 3, 4, 0]);
    ib.extend([0, 2, 1, 0, 3, 2]); // coarse: the base, seen from below
    let tree_count = ib.len() as u32 - tree_start;

    let swis = vec![SwiItem {
        reserved: [0, 0, 0, 0],
        windows: vec![
            SlideWindow {
                offset: 0,
                num_tris: 4,
                num_verts: 5,
            },
            SlideWindow {
                offset: 12,
                num_tris: 2,
                num_verts: 4,
            },
        ],
    }];
    let swis_id = if opts.compress {
        geom::SWIS | COMPRESSED
    } else {
        geom::SWIS
    };
    let geom = Geom {
        chunks: vec![
            Framed::plain(
                geom::HEADER,
                GeomChunk::Header(Header {
                    version: opts.version,
                    quality: 0,
                }),
            ),
            Framed::plain(
                geom::VB,
                GeomChunk::VertexBuffers(vec![
                    small_buffer(sdecl, &sv),
                    small_buffer(decl::mu_model(), &tv),
                ]),
            ),
            Framed::plain(geom::IB, GeomChunk::IndexBuffers(vec![ib])),
            Framed::plain(swis_id, GeomChunk::Swis(swis)),
        ],
    };

    // --- visuals
    let tree_def = |t: [f32; 3]| TreeDef {
        xform: [
            1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, t[0], t[1], t[2], 1.0,
        ],
        c_scale: [1.0, 1.0, 1.0, 1.0, 1.0],
        c_bias: [0.0; 5],
    };
    let mut visuals = vec![
        Visual {
            chunks: vec![
                gc(0, 0, 4, 0, 6),
                header(model_type::NORMAL, 1, [-1.0, 0.0, -1.0], [1.0, 0.0, 1.0]),
            ],
        },
        Visual {
            chunks: vec![
                gc(0, 4, 9, grid_start, grid_count),
                Framed::plain(
                    ogf::SWIDATA,
                    OgfChunk::SwiData(SwiItem {
                        reserved: [0xDEAD_BEEF, 0, 0, 7],
                        windows: vec![
                            SlideWindow {
                                offset: 0,
                                num_tris: 8,
                                num_verts: 9,
                            },
                            SlideWindow {
                                offset: 24,
                                num_tris: 2,
                                num_verts: 4,
                            },
                        ],
                    }),
                ),
                header(
                    model_type::PROGRESSIVE,
                    1,
                    [3.0, 0.0, -1.0],
                    [5.0, 0.0, 1.0],
                ),
            ],
        },
    ];
    for t in TREE_OFFSETS {
        visuals.push(Visual {
            chunks: vec![
                gc(1, 0, 5, tree_start, tree_count),
                Framed::plain(ogf::TREEDEF2, OgfChunk::TreeDef(tree_def(t))),
                header(
                    model_type::TREE_PM,
                    2,
                    [t[0] - 0.5, t[1], t[2] - 0.5],
                    [t[0] + 0.5, t[1] + 2.0, t[2] + 0.5],
                ),
                Framed::plain(ogf::SWICONTAINER, OgfChunk::SwiContainer(0)),
            ],
        });
    }
    visuals.push(Visual {
        chunks: vec![
            header(
                model_type::HIERARCHY,
                0,
                [-5.0, 0.0, -7.0],
                [11.0, 3.0, 6.0],
            ),
            Framed::plain(ogf::CHILDREN_L, OgfChunk::Children(vec![0, 1, 2, 3])),
        ],
    });
    let shaders = vec![
        ShaderEntry(Vec::new()),
        ShaderEntry(b"default/ston\\ston_01,lmap#1_1,lmap#1_2".to_vec()),
        ShaderEntry(b"flora\\leaf_wave/trees\\trees_elka".to_vec()),
    ];
    let shader_id = if opts.compress {
        level::SHADERS | COMPRESSED
    } else {
        level::SHADERS
    };
    let level = Level {
        chunks: vec![
            Framed::plain(
                level::HEADER,
                LevelChunk::Header(Header {
                    version: opts.version,
                    quality: 1,
                }),
            ),
            Framed::plain(
                level::VISUALS,
                LevelChunk::Visuals(
                    visuals
                        .into_iter()
                        .enumerate()
                        .map(|(i, v)| Framed::plain(i as u32, v))
                        .collect(),
                ),
            ),
            Framed::plain(shader_id, LevelChunk::Shaders(shaders)),
            Framed::plain(
                level::SECTORS,
                LevelChunk::Sectors(vec![Framed::plain(
                    0,
                    Sector {
                        chunks: vec![
                            Framed::plain(1, SectorChunk::Portals(Vec::new())),
                            Framed::plain(2, SectorChunk::Root(4)),
                        ],
                    },
                )]),
            ),
        ],
    };
    (level, geom)
}

/// Encode one of the generator's buffers (a few dozen vertices, so the counts always fit).
fn small_buffer(decl: Declaration, v: &Vertices) -> VertexBuffer {
    VertexBuffer::encode(decl, v).expect("generated buffers hold a few dozen vertices")
}

/// Generate and serialise: `(level bytes, level.geom bytes)`.
pub fn level_bytes(opts: Options) -> (Vec<u8>, Vec<u8>) {
    let (l, g) = level(opts);
    // every count of the generated level is tiny; nothing can fail to fit
    let l = l.to_bytes().expect("generated level fits its fields");
    let g = g.to_bytes().expect("generated geom fits its fields");
    (l, g)
}
