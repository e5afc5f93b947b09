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

pub mod bench_level;

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
    /// XRLC version: 14 (SHORT2 base UVs), 13 (FLOAT2 base UVs), or 4, 5, 8–12 (geometry
    /// inside `level`, [`old_level`]).
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

/// The generators' `OGF_HEADER` (format 4) of a visual of model type `t` whose bounding box is
/// `lo..hi`, with the sphere through the box's corners ([`sphere_around`]).
pub fn ogf_header(t: u8, shader_id: u16, lo: [f32; 3], hi: [f32; 3]) -> Framed<OgfChunk> {
    ogf_header_with_sphere(t, shader_id, [lo, hi], sphere_around(lo, hi))
}

/// The generators' `OGF_HEADER` (format 4) with a given bounding box `[min, max]` and sphere
/// `(centre, radius)`.
pub fn ogf_header_with_sphere(
    t: u8,
    shader_id: u16,
    [lo, hi]: [[f32; 3]; 2],
    (center, radius): ([f32; 3], f32),
) -> Framed<OgfChunk> {
    Framed::plain(
        ogf::HEADER,
        OgfChunk::Header(OgfHeader {
            format_version: 4,
            model_type: t,
            shader_id,
            bbox_min: lo,
            bbox_max: hi,
            sphere_center: center,
            sphere_radius: radius,
        }),
    )
}

/// The sphere through the corners of the box `lo..hi`: centred in it, radius half its diagonal.
pub fn sphere_around(lo: [f32; 3], hi: [f32; 3]) -> ([f32; 3], f32) {
    let c = [0, 1, 2].map(|k| (lo[k] + hi[k]) / 2.0);
    let d = [0, 1, 2].map(|k| hi[k] - c[k]);
    (c, (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt())
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

/// Generate a `(level, level.geom)` pair as typed models; for XRLC 4–12 the geometry is
/// inside the level ([`old_level`]) and the geom is empty.
pub fn level(opts: Options) -> (Level, Geom) {
    if opts.version <= 12 {
        return (old_level(opts), Geom { chunks: Vec::new() });
    }
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
            Framed::plain(geom::IB, GeomChunk::IndexBuffers(vec![ib.into()])),
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
                ogf_header(model_type::NORMAL, 1, [-1.0, 0.0, -1.0], [1.0, 0.0, 1.0]),
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
                ogf_header(
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
                ogf_header(
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
            ogf_header(
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
    // (an old level's geom is empty: no `level.geom` file)
    (l, g)
}

// ------------------------------------------------------------------------------------------
// XRLC 4–12: geometry inside `level`

/// The quad of static visual 0 (lightmapped), X-Ray space.
pub const OLD_QUAD: [[f32; 3]; 4] = [
    [-1.0, 0.0, -1.0],
    [1.0, 0.0, -1.0],
    [1.0, 0.0, 1.0],
    [-1.0, 0.0, 1.0],
];
/// The quad of static visual 1 (vertex-lit), X-Ray space.
pub const OLD_QUAD_LIT: [[f32; 3]; 4] = [
    [3.0, 0.0, -1.0],
    [5.0, 0.0, -1.0],
    [5.0, 0.0, 1.0],
    [3.0, 0.0, 1.0],
];
/// The tree pyramid (model space), apex last.
pub const OLD_TREE: [[f32; 3]; 5] = [
    [-0.5, 0.0, -0.5],
    [0.5, 0.0, -0.5],
    [0.5, 0.0, 0.5],
    [-0.5, 0.0, 0.5],
    [0.0, 2.0, 0.0],
];
/// Both quads' triangles (clockwise from +y = front face up in X-Ray's frame).
pub const OLD_QUAD_TRIS: [u16; 6] = [0, 3, 2, 0, 2, 1];
/// The pyramid's four side triangles.
pub const OLD_TREE_TRIS: [u16; 12] = [0, 4, 1, 1, 4, 2, 2, 4, 3, 3, 4, 0];

/// What an old generated level holds, by version: `(trees and LOD, OGF format)`. The format is
/// what each build's engine loads ([`crate::ogf::format_of_build`]).
pub fn old_features(version: u16) -> (bool, u8) {
    (version >= 9, crate::ogf::format_of_build(version))
}

/// Base UV of a generated static vertex (hand-known: `x/4 + 1/2`, `z/4 + 1/2`).
pub fn old_uv(p: [f32; 3]) -> [f32; 2] {
    [p[0] * 0.25 + 0.5, p[2] * 0.25 + 0.5]
}

/// Lightmap UV of a generated static vertex (`x/8 + 1/2`, `z/8 + 1/2`).
pub fn old_lightmap(p: [f32; 3]) -> [f32; 2] {
    [p[0] * 0.125 + 0.5, p[2] * 0.125 + 0.5]
}

/// Base UV of a generated tree vertex (`x + 1/2`, `1 − y/2`).
pub fn old_tree_uv(p: [f32; 3]) -> [f32; 2] {
    [p[0] + 0.5, 1.0 - p[1] * 0.5]
}

fn old_static(pos: &[[f32; 3]], lit: bool) -> Vertices {
    let n = pos.len();
    let mut v = Vertices {
        count: n,
        positions: pos.to_vec(),
        normals: vec![[0.0, 1.0, 0.0]; n],
        hemi: vec![0.8; n],
        uv: pos.iter().map(|&p| old_uv(p)).collect(),
        ..Vertices::default()
    };
    if lit {
        v.colors = vec![[0.5, 0.25, 1.0]; n];
        v.sun = vec![0.5; n];
    } else {
        v.lightmap = pos.iter().map(|&p| old_lightmap(p)).collect();
    }
    v
}

fn old_tree_vertices() -> Vertices {
    let n = OLD_TREE.len();
    Vertices {
        count: n,
        positions: OLD_TREE.to_vec(),
        normals: OLD_TREE.iter().map(|p| [p[0], 0.5, p[2]]).collect(),
        hemi: vec![1.0; n],
        tangents: vec![[1.0, 0.0, 0.0]; n],
        binormals: vec![[0.0, 1.0, 0.0]; n],
        tangent_alpha: vec![0.0; n],
        binormal_alpha: vec![0.0; n],
        uv: OLD_TREE.iter().map(|&p| old_tree_uv(p)).collect(),
        wind: OLD_TREE.iter().map(|p| [p[1] * 0.5, 0.0]).collect(),
        ..Vertices::default()
    }
}

fn bbox_of(pts: &[[f32; 3]]) -> ([f32; 3], [f32; 3]) {
    let mut lo = [f32::MAX; 3];
    let mut hi = [f32::MIN; 3];
    for p in pts {
        for k in 0..3 {
            lo[k] = lo[k].min(p[k]);
            hi[k] = hi[k].max(p[k]);
        }
    }
    (lo, hi)
}

/// The tree matrices of the old generator: a translation, and for the second instance a
/// quarter turn about +y as well (`x → −z`), so a wrong matrix order shows.
pub fn old_tree_xform(k: usize) -> [f32; 16] {
    let t = TREE_OFFSETS[k];
    if k == 0 {
        [
            1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, t[0], t[1], t[2], 1.0,
        ]
    } else {
        // rows i, j, k: i = (0, 0, −1), j = (0, 1, 0), k = (1, 0, 0)
        [
            0.0, 0.0, -1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, t[0], t[1], t[2], 1.0,
        ]
    }
}

/// The LOD billboard quads of the old generator (world space): quad `q` stands at `x = 20 + q`.
pub fn old_lod_quads() -> Vec<[ogf::LodVertex; 4]> {
    (0..8)
        .map(|q| {
            let x = 20.0 + q as f32;
            let corner = |dx: f32, y: f32, u: f32, v: f32| ogf::LodVertex {
                pos: [x + dx, y, 0.0],
                uv: [u, v],
                rgb_hemi: 0x80FF_FFFF,
                sun: 200,
                pad: [1, 2, 3],
            };
            [
                corner(0.0, 0.0, 0.0, 1.0),
                corner(0.5, 0.0, 1.0, 1.0),
                corner(0.5, 1.0, 1.0, 0.0),
                corner(0.0, 1.0, 0.0, 0.0),
            ]
        })
        .collect()
}

fn oc(id: u32, c: OgfChunk) -> Framed<OgfChunk> {
    Framed::plain(id, c)
}

fn short_header(format: u8, t: u8, sid: u16) -> OgfChunk {
    OgfChunk::ShortHeader {
        format_version: format,
        model_type: t,
        shader_id: sid,
        rest: Vec::new(),
    }
}

/// The version-2 collision that XRLC 4–9 embed in `level` (`fsL_CFORM`): visual 0's quad.
pub fn old_cform(version: u32) -> crate::cform::Cform {
    use crate::cform::{Cform, OldTri, Tri};
    let old = (version != crate::cform::VERSION).then_some(OldTri {
        raw: [0, 0, 0],
        raw16: 0,
        sector: 0,
        material: 3,
    });
    Cform {
        version,
        bbox_min: [-1.0, 0.0, -1.0],
        bbox_max: [1.0, 0.0, 1.0],
        vertices: OLD_QUAD.to_vec(),
        tris: vec![
            Tri {
                verts: [0, 3, 2],
                dummy: if old.is_some() { 0 } else { 3 },
                old,
            },
            Tri {
                verts: [0, 2, 1],
                dummy: if old.is_some() { 0 } else { 3 },
                old,
            },
        ],
    }
}

/// The portal of [`old_level`]: sector 0 to sector 0, the quad `x = 0, y 0..3, z −7..6`
/// (4 vertices used; the two unused slots hold `9, 9, 9`).
pub const OLD_PORTAL: crate::sectors::Portal = crate::sectors::Portal {
    sector_front: 0,
    sector_back: 0,
    poly: [
        [0.0, 0.0, -7.0],
        [0.0, 3.0, -7.0],
        [0.0, 3.0, 6.0],
        [0.0, 0.0, 6.0],
        [9.0, 9.0, 9.0],
        [9.0, 9.0, 9.0],
    ],
    count: 4,
};

/// Position of [`old_level`]'s glow (X-Ray space).
pub const OLD_GLOW_POSITION: [f32; 3] = [1.0, 2.0, 3.0];
/// Radius of [`old_level`]'s glow.
pub const OLD_GLOW_RADIUS: f32 = 0.75;

/// The light chunk of [`old_level`]: one light at `(2, 3, −4)`, diffuse `(1, 0.5, 0.25, 1)`,
/// specular `(0.1, 0.2, 0.3, 0.4)`, ambient 0, direction `(0, −1, 0)`, range 10, falloff 1,
/// attenuation `(1, 0.1, 0.01)`, theta 0.5, phi 1; a spot light in XRLC 8, a point light
/// elsewhere. XRLC 4/5 tail: frame 7, flags 3, time 0.25, speed 2, keys 0 + 0; XRLC 8 tail:
/// frame 7, flags 5, name `torch_01` (byte 63 of the name field 0xCC, after the NUL);
/// XRLC 9–12: controller 2.
pub fn old_light_chunk(v: u16) -> LevelChunk {
    use crate::level::{D3dLight, Light, OldLight, OldLightTail};
    let light_type = if v == 8 { 2 } else { 1 };
    let mut name = [0u8; 64];
    name[..8].copy_from_slice(b"torch_01");
    name[63] = 0xCC;
    let old = OldLight {
        d3d: D3dLight {
            light_type,
            diffuse: [1.0, 0.5, 0.25, 1.0],
            specular: [0.1, 0.2, 0.3, 0.4],
            ambient: [0.0; 4],
            position: [2.0, 3.0, -4.0],
            direction: [0.0, -1.0, 0.0],
            range: 10.0,
            falloff: 1.0,
            attenuation: [1.0, 0.1, 0.01],
            theta: 0.5,
            phi: 1.0,
        },
        tail: if v == 8 {
            OldLightTail::Build8 {
                frame: 7,
                flags: 5,
                name,
            }
        } else {
            OldLightTail::Build5 {
                frame: 7,
                flags: 3,
                current_time: 0.25,
                speed: 2.0,
                key_start: 0,
                key_count: 0,
            }
        },
    };
    if v <= 8 {
        LevelChunk::OldLights(vec![old])
    } else {
        LevelChunk::Lights(vec![Light {
            controller: 2,
            ..old.to_light()
        }])
    }
}

/// The name [`old_level`] writes into the 128-byte header of XRLC 4–10.
pub const OLD_LEVEL_NAME: &str = "gen_old_level";

/// Generate a `level` of XRLC 4, 5, 8, 9, 10, 11 or 12 (the geometry inside it):
///
/// | visual | type | geometry |
/// |---|---|---|
/// | 0 | normal | [`OLD_QUAD`], lightmapped |
/// | 1 | normal | [`OLD_QUAD_LIT`], vertex-lit |
/// | 2, 3 | tree (XRLC ≥ 9) | [`OLD_TREE`] shared, at [`old_tree_xform`] |
/// | 4 | LOD (XRLC ≥ 9) | [`old_lod_quads`], children 2, 3 |
/// | last | hierarchy | children 0, 1 (and 4) |
///
/// Layouts: XRLC 4/5 FVF buffers `XYZ|NORMAL|TEX2` (lightmap set first) and `XYZ|DIFFUSE|TEX1`,
/// visuals with `OGF_VCONTAINER` + inline `OGF_INDICES` (OGF 2 in 4, OGF 3 in 5,
/// [`old_features`]); 8 the same with OGF 3 and the texture set first; 9 FVF buffers in `fsL_VB_OLD` (trees `XYZ|NORMAL|TEX1`) and an index
/// buffer chunk; 10/11 D3D9 `FLOAT3, D3DCOLOR NORMAL, SHORT4 TEXCOORD0` shared by the static
/// quad (`u·1024, v·1024, lu·32768, lv·32768`) and the trees (`u·2048, v·2048, wind, 0`),
/// the vertex-lit quad `FLOAT3, NORMAL, COLOR, FLOAT2`; 12 the late-v12 36-byte layouts with
/// `FLOAT2` base UVs and the tree `mu_model` layout, VB/IB/SWIS LZHUF-compressed. Materials:
/// `OGF_TEXTURE_L` into the tables before 12, the header's shader id from 12. XRLC ≤ 9 embed
/// [`old_cform`], LZHUF-packed as xrLC wrote it; 4–10 have the 128-byte header named
/// [`OLD_LEVEL_NAME`], 11 and 12 the `u32` one; 9–11 the light controller table
/// ([`crate::level::light_control`]). 8 is the early layout (indices in the visuals) and 11 the
/// latest record sizes; [`old_level_era`] gives the other dated layouts. `compress` also
/// compresses the shader chunk. Every build has one portal
/// ([`OLD_PORTAL`], listed by sector 0), one light ([`old_light_chunk`]'s values) and one glow
/// at [`OLD_GLOW_POSITION`] with [`OLD_GLOW_RADIUS`], shader `effects\glow` and texture
/// `glow\glow_04` (their own table entries, appended after the visuals' ones).
pub fn old_level(opts: Options) -> Level {
    old_level_tables(opts, opts.version <= 11)
}

/// [`old_level`] with the material tables of XRLC 8–11 (`paired`: one string table, each
/// visual's `OGF_TEXTURE_L` and each 24-byte glow naming a texture and a shader string by
/// index, the OGF header's third field 0) or those of XRLC 12 from 2003-10-20 (`"shader/
/// textures"` entries named by the OGF header's shader id, 18-byte glows).
fn old_level_tables(opts: Options, paired: bool) -> Level {
    use crate::fvf::{self, FvfBuffer, UvOrder};
    use crate::level::Part;
    let v = opts.version;
    let (trees, format) = old_features(v);
    let id = |p: Part| -> u32 {
        crate::level::id_of(v, p).expect("every generated part has an id in its version")
    };
    let fvf_era = v <= 9;
    let order = UvOrder::for_version(v);
    let lmap = old_static(&OLD_QUAD, false);
    let lit = old_static(&OLD_QUAD_LIT, true);
    let tree = old_tree_vertices();
    // the build's header form: 128 bytes with the name up to XRLC 10, then the u32 version
    let mut chunks = vec![Framed::plain(
        1,
        crate::level::header_chunk(v, 0, OLD_LEVEL_NAME.as_bytes()),
    )];
    // --- tables
    let texture_l = |tex: u32, sh: u32| {
        oc(
            3,
            OgfChunk::TextureL {
                texture: tex,
                shader: sh,
            },
        )
    };
    let e = |s: &str| ShaderEntry(s.as_bytes().to_vec());
    let shaders_id = if opts.compress {
        id(Part::Shaders) | COMPRESSED
    } else {
        id(Part::Shaders)
    };
    if v <= 5 {
        chunks.push(Framed::plain(
            id(Part::Textures),
            LevelChunk::Textures(vec![
                e("lmap#1,ston\\ston_01"),
                e("ston\\ston_02"),
                e("glow\\glow_04"),
            ]),
        ));
        chunks.push(Framed::plain(
            shaders_id,
            LevelChunk::Shaders(vec![
                e("default"),
                e("def_shaders\\def_vertex"),
                e("effects\\glow"),
            ]),
        ));
    } else if paired {
        chunks.push(Framed::plain(
            shaders_id,
            LevelChunk::Shaders(
                [
                    "",
                    "default",
                    "ston\\ston_01,lmap#1",
                    "def_shaders\\def_vertex",
                    "ston\\ston_02",
                    "flora\\leaf_wave",
                    "trees\\trees_elka",
                    "details\\lod",
                    "level_lods",
                    "effects\\glow",
                    "glow\\glow_04",
                ]
                .map(e)
                .to_vec(),
            ),
        ));
    } else {
        chunks.push(Framed::plain(
            shaders_id,
            LevelChunk::Shaders(
                [
                    "",
                    "default/ston\\ston_01,lmap#1_1,lmap#1_2",
                    "def_shaders\\def_vertex/ston\\ston_02",
                    "flora\\leaf_wave/trees\\trees_elka",
                    "details\\lod/level_lods",
                    "effects\\glow/glow\\glow_04",
                ]
                .map(e)
                .to_vec(),
            ),
        ));
    }
    // (texture, shader) per material: v ≤ 5 into the two tables, 8–11 into the shared one; from
    // 12 the header's shader id
    let mat = |k: usize| -> (u32, u32, u16) {
        match (v, k) {
            (..=5, 0) => (0, 0, 0),
            (..=5, _) => (1, 1, 0),
            (_, k) if paired => (2 + 2 * k as u32, 1 + 2 * k as u32, 0),
            (_, k) => (0, 0, k as u16 + 1),
        }
    };
    // --- buffers
    let mut ib: Vec<u16> = Vec::new();
    ib.extend(OLD_QUAD_TRIS);
    ib.extend(OLD_QUAD_TRIS);
    let tree_start = ib.len() as u32;
    ib.extend(OLD_TREE_TRIS);
    let fvf_of = |vs: &Vertices, code: u32| {
        FvfBuffer::encode(code, order, vs).expect("generated FVF buffers are tiny")
    };
    // (vb index, vb offset) of the static quad, the lit quad and the tree
    let (q0, q1, qt): ((u32, u32), (u32, u32), (u32, u32));
    if fvf_era {
        let mut bufs = vec![
            fvf_of(&lmap, fvf::XYZ | fvf::NORMAL | fvf::TEX2),
            fvf_of(&lit, fvf::XYZ | fvf::DIFFUSE | fvf::TEX1),
        ];
        if trees {
            bufs.push(fvf_of(&tree, fvf::XYZ | fvf::NORMAL | fvf::TEX1));
        }
        (q0, q1, qt) = ((0, 0), (1, 0), (2, 0));
        chunks.push(Framed::plain(
            id(Part::FvfBuffers),
            LevelChunk::FvfBuffers(bufs),
        ));
    } else if v <= 11 {
        use crate::decl::{DeclType::*, Element, Usage};
        let shared = Declaration::new(vec![
            Element::new(0, Float3, Usage::Position, 0),
            Element::new(12, D3dColor, Usage::Normal, 0),
            Element::new(16, Short4, Usage::TexCoord, 0),
        ]);
        let split = Declaration::new(vec![
            Element::new(0, Float3, Usage::Position, 0),
            Element::new(12, D3dColor, Usage::Normal, 0),
            Element::new(16, Short2, Usage::TexCoord, 0),
            Element::new(20, Short2, Usage::TexCoord, 1),
        ]);
        let mut data = crate::vertex::encode(&split, &lmap);
        data.extend(crate::vertex::encode(&shared, &tree));
        let vb0 = VertexBuffer {
            decl: shared,
            count: (lmap.count + tree.count) as u32,
            data: data.into(),
        };
        let litdecl = Declaration::new(vec![
            Element::new(0, Float3, Usage::Position, 0),
            Element::new(12, D3dColor, Usage::Normal, 0),
            Element::new(16, D3dColor, Usage::Color, 0),
            Element::new(20, Float2, Usage::TexCoord, 0),
        ]);
        (q0, q1, qt) = ((0, 0), (1, 0), (0, 4));
        chunks.push(Framed::plain(
            id(Part::VertexBuffers),
            LevelChunk::VertexBuffers(vec![vb0, small_buffer(litdecl, &lit)]),
        ));
    } else {
        use crate::decl::{DeclType::*, Element, Usage};
        let base = |last: Vec<Element>| {
            let mut e = vec![
                Element::new(0, Float3, Usage::Position, 0),
                Element::new(12, D3dColor, Usage::Normal, 0),
                Element::new(16, D3dColor, Usage::Tangent, 0),
                Element::new(20, D3dColor, Usage::Binormal, 0),
            ];
            e.extend(last);
            Declaration::new(e)
        };
        let l12 = base(vec![
            Element::new(24, Float2, Usage::TexCoord, 0),
            Element::new(32, Short2, Usage::TexCoord, 1),
        ]);
        let v12 = base(vec![
            Element::new(24, D3dColor, Usage::Color, 0),
            Element::new(28, Float2, Usage::TexCoord, 0),
        ]);
        let with_basis = |mut x: Vertices| {
            x.tangents = vec![[1.0, 0.0, 0.0]; x.count];
            x.binormals = vec![[0.0, 0.0, 1.0]; x.count];
            x.tangent_alpha = vec![0.0; x.count];
            x.binormal_alpha = vec![0.0; x.count];
            x
        };
        (q0, q1, qt) = ((0, 0), (1, 0), (2, 0));
        chunks.push(Framed::plain(
            id(Part::VertexBuffers) | COMPRESSED,
            LevelChunk::VertexBuffers(vec![
                small_buffer(l12, &with_basis(lmap.clone())),
                small_buffer(v12, &with_basis(lit.clone())),
                small_buffer(decl::mu_model(), &tree),
            ]),
        ));
    }
    let has_ib = v >= 9;
    if has_ib {
        let ibid = id(Part::IndexBuffers) | if v == 12 { COMPRESSED } else { 0 };
        chunks.push(Framed::plain(
            ibid,
            LevelChunk::IndexBuffers(vec![ib.into()]),
        ));
    }
    if v == 12 {
        chunks.push(Framed::plain(
            id(Part::Swis) | COMPRESSED,
            LevelChunk::Swis(vec![SwiItem {
                reserved: [0; 4],
                windows: vec![SlideWindow {
                    offset: 0,
                    num_tris: 4,
                    num_verts: 5,
                }],
            }]),
        ));
    }
    // --- visuals (OGF 2: BSPHERE 12, VCONTAINER 11, CHILDREN_L 13; OGF 3: 11, 10, 12)
    let (bsphere_id, vcont_id, children_id) = if format == 2 {
        (12, 11, 13)
    } else {
        (11, 10, 12)
    };
    let bounds = |pts: &[[f32; 3]]| {
        let (lo, hi) = bbox_of(pts);
        let c = [
            (lo[0] + hi[0]) / 2.0,
            (lo[1] + hi[1]) / 2.0,
            (lo[2] + hi[2]) / 2.0,
        ];
        let d = [hi[0] - c[0], hi[1] - c[1], hi[2] - c[2]];
        [
            oc(6, OgfChunk::Bbox { min: lo, max: hi }),
            oc(
                bsphere_id,
                OgfChunk::BSphere {
                    center: c,
                    radius: (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt(),
                },
            ),
        ]
    };
    let geometry = |vb: (u32, u32), count: u32, io: u32, tris: &[u16]| {
        let mut out = vec![oc(vcont_id, OgfChunk::VContainer([vb.0, vb.1, count]))];
        if has_ib {
            out.push(oc(19, OgfChunk::IContainer([0, io, tris.len() as u32])));
        } else {
            out.push(oc(8, OgfChunk::Indices(tris.to_vec())));
        }
        out
    };
    let t3 = |t4: u8| -> u8 {
        match t4 {
            model_type::LOD => ogf::model_type_v3::LOD,
            model_type::TREE_ST => ogf::model_type_v3::TREE,
            x => x,
        }
    };
    let mut visuals: Vec<Visual> = Vec::new();
    for (k, (pos, vb)) in [(&OLD_QUAD, q0), (&OLD_QUAD_LIT, q1)]
        .into_iter()
        .enumerate()
    {
        let (tex, sh, sid) = mat(k);
        let mut c = vec![oc(1, short_header(format, 0, sid))];
        if paired {
            c.push(texture_l(tex, sh));
        }
        c.extend(bounds(pos));
        c.extend(geometry(vb, 4, 6 * k as u32, &OLD_QUAD_TRIS));
        visuals.push(Visual { chunks: c });
    }
    if trees {
        let (tex, sh, sid) = mat(2);
        for k in 0..2 {
            let xf = old_tree_xform(k);
            let td = TreeDef {
                xform: xf,
                c_scale: [1.0, 1.0, 1.0, 1.0, 1.0],
                c_bias: [0.0; 5],
            };
            let world: Vec<[f32; 3]> = OLD_TREE.iter().map(|&p| td.transform(p)).collect();
            let mut c = vec![oc(1, short_header(format, t3(model_type::TREE_ST), sid))];
            if paired {
                c.push(texture_l(tex, sh));
            }
            c.extend(bounds(&world));
            c.extend(geometry(qt, 5, tree_start, &OLD_TREE_TRIS));
            let tchunk = if v <= 10 {
                OgfChunk::TreeDefOld(td)
            } else {
                OgfChunk::TreeDef(td)
            };
            c.push(oc(22, tchunk));
            visuals.push(Visual { chunks: c });
        }
        let (tex, sh, sid) = mat(3);
        let quads = old_lod_quads();
        let pts: Vec<[f32; 3]> = quads.iter().flatten().map(|q| q.pos).collect();
        let mut c = vec![oc(1, short_header(format, t3(model_type::LOD), sid))];
        if paired {
            c.push(texture_l(tex, sh));
        }
        c.extend(bounds(&pts));
        c.push(oc(children_id, OgfChunk::Children(vec![2, 3])));
        let lod = if v <= 10 {
            OgfChunk::LodDefOld(
                quads
                    .iter()
                    .map(|q| {
                        q.map(|x| ogf::LodVertex {
                            sun: 255,
                            pad: [0; 3],
                            ..x
                        })
                    })
                    .collect(),
            )
        } else {
            OgfChunk::LodDef(quads)
        };
        c.push(oc(21, lod));
        visuals.push(Visual { chunks: c });
    }
    let mut kids = vec![0, 1];
    if trees {
        kids.push(4);
    }
    let mut c = vec![oc(1, short_header(format, model_type::HIERARCHY, 0))];
    c.extend(bounds(&[[-1.0, 0.0, -7.0], [28.0, 3.0, 6.0]]));
    c.push(oc(children_id, OgfChunk::Children(kids)));
    visuals.push(Visual { chunks: c });
    let root = visuals.len() as u32 - 1;
    chunks.push(Framed::plain(
        id(Part::Visuals),
        LevelChunk::Visuals(
            visuals
                .into_iter()
                .enumerate()
                .map(|(i, v)| Framed::plain(i as u32, v))
                .collect(),
        ),
    ));
    if v <= 9 {
        let cf = old_cform(2)
            .to_bytes()
            .expect("the generated collision is two triangles");
        // LZHUF-packed, as xrLC wrote it: `fs.write_chunk(fsL_CFORM|CFS_CompressMark, …)`
        // (xrLC/xrBuildCForm.cpp, 2002-01-15 `05d999e07a` to 2003-06-13 `bf250a46c8`)
        chunks.push(Framed::plain(
            id(Part::Cform) | COMPRESSED,
            LevelChunk::Raw(cf),
        ));
    }
    let portal = OLD_PORTAL;
    let portals = if v >= 8 {
        LevelChunk::Portals(vec![portal])
    } else {
        LevelChunk::PortalsV5(vec![portal])
    };
    chunks.push(Framed::plain(id(Part::Portals), portals));
    if let Some(lc) = crate::level::id_of(v, Part::LightControl) {
        // 9–11: the controller table their renderers open unconditionally, before the lights
        chunks.push(Framed::plain(
            lc,
            LevelChunk::Raw(crate::level::light_control(2)),
        ));
    }
    chunks.push(Framed::plain(id(Part::Lights), old_light_chunk(v)));
    let (glow_shader, glow_texture) = match v {
        4 | 5 => (2, 2),
        _ if paired => (9, 10),
        _ => (5, 5),
    };
    let glows = if !paired {
        LevelChunk::Glows(vec![crate::level::Glow {
            position: OLD_GLOW_POSITION,
            radius: OLD_GLOW_RADIUS,
            shader: glow_shader as u16,
        }])
    } else {
        LevelChunk::OldGlows(vec![crate::level::OldGlow {
            position: OLD_GLOW_POSITION,
            radius: OLD_GLOW_RADIUS,
            texture: glow_texture,
            shader: glow_shader,
        }])
    };
    chunks.push(Framed::plain(id(Part::Glows), glows));
    chunks.push(Framed::plain(
        id(Part::Sectors),
        LevelChunk::Sectors(vec![Framed::plain(
            0,
            Sector {
                chunks: vec![
                    Framed::plain(1, SectorChunk::Portals(vec![0])),
                    Framed::plain(2, SectorChunk::Root(root)),
                ],
            },
        )]),
    ));
    Level { chunks }
}

// ------------------------------------------------------------------------------------------
// Visual layouts of particular eras (issue 22): OGF 4 in XRLC 12, progressive strips and
// detail patches of 2002

/// Which visual layout [`old_level_with`] writes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum OldVisuals {
    /// What [`old_level`] writes (OGF 2/3; in XRLC 12 the early OGF 3 layout).
    #[default]
    Plain,
    /// XRLC 12 only: the OGF 4 visuals of builds 1935–2218 (2004-08-19 .. 2005-01), see
    /// [`ogf4_visuals`].
    Ogf4,
    /// XRLC 5 and 8: [`old_level`] plus a progressive-strips visual and a detail patch visual
    /// of the 2002 engine, see [`strips_and_patches`].
    StripsAndPatches,
}

/// [`old_level`] in the visual layout `layout` (a layout that does not exist in the version,
/// e.g. OGF 4 before XRLC 12, gives [`old_level`] unchanged).
pub fn old_level_with(opts: Options, layout: OldVisuals) -> Level {
    let mut l = old_level(opts);
    match (layout, opts.version) {
        (OldVisuals::Ogf4, 12) => ogf4_visuals(&mut l),
        (OldVisuals::StripsAndPatches, 5 | 8) => strips_and_patches(&mut l),
        _ => {}
    }
    l
}

fn visuals_mut(l: &mut Level) -> Option<&mut Vec<Framed<Visual>>> {
    l.chunks.iter_mut().find_map(|c| match &mut c.value {
        LevelChunk::Visuals(v) => Some(v),
        _ => None,
    })
}

/// The sliding windows the OGF 4 generator gives the vertex-lit quad (made progressive):
/// `sw[0]` both triangles (full detail), `sw[1]` the second one.
pub const OGF4_QUAD_WINDOWS: [SlideWindow; 2] = [
    SlideWindow {
        offset: 0,
        num_tris: 2,
        num_verts: 4,
    },
    SlideWindow {
        offset: 3,
        num_tris: 1,
        num_verts: 4,
    },
];

/// Rewrite the XRLC 12 visuals of [`old_level`] as xrLC wrote them from 2004-08-19 on
/// (`xrLC/OGF_Face_Save.cpp` and `OGF_Face.cpp` at xray-engine-repo `a5f427d74b`, 2004-10-29;
/// chunk ids of `xr_3da/Fmesh.h` `8e15ee2845`): one 44-byte `OGF_HEADER` (format 4: bbox and
/// sphere inside it), `OGF_VCONTAINER` (7) + `OGF_ICONTAINER` (8) instead of the OGF 3 ids 10
/// and 19, `OGF_TREEDEF2` 12, `OGF_LODDEF2` 11, `OGF_CHILDREN_L` 10, format-4 model types.
/// Chunk order as xrLC's: normal `VCONTAINER, ICONTAINER, HEADER`; tree `VCONTAINER,
/// ICONTAINER, TREEDEF2, HEADER[, SWICONTAINER]`; hierarchy `HEADER, CHILDREN_L`; LOD `HEADER,
/// CHILDREN_L, LODDEF2`. Visual 1 (the vertex-lit quad) becomes `MT_PROGRESSIVE` with its
/// windows [`OGF4_QUAD_WINDOWS`] in `OGF_P_LODS` (6, the engine's `FProgressive::Load` of
/// `28af5534e8`); tree 2 becomes `MT_TREE_PM` on SWIS item 0 (`OGF_SWICONTAINER`, from
/// 2004-10-29), tree 3 stays `MT_TREE_ST`.
pub fn ogf4_visuals(l: &mut Level) {
    use crate::ogf::model_type_v3 as t3;
    let Some(vs) = visuals_mut(l) else { return };
    for (i, f) in vs.iter_mut().enumerate() {
        let v = &f.value;
        let Some((_, t, sid)) = v.short_header() else {
            continue;
        };
        let (lo, hi) = v
            .find_chunk(|c| match c {
                OgfChunk::Bbox { min, max } => Some((*min, *max)),
                _ => None,
            })
            .unwrap_or_default();
        let (c, r) = v
            .find_chunk(|c| match c {
                OgfChunk::BSphere { center, radius } => Some((*center, *radius)),
                _ => None,
            })
            .unwrap_or_default();
        let mut t4 = t3::to_v4(t);
        if t == t3::TREE && i == 2 {
            t4 = model_type::TREE_PM;
        }
        if t == t3::NORMAL && i == 1 {
            t4 = model_type::PROGRESSIVE;
        }
        let header = ogf_header_with_sphere(t4, sid, [lo, hi], (c, r));
        let mut out = Vec::new();
        for x in &v.chunks {
            match &x.value {
                OgfChunk::VContainer(r) => out.push(oc(ogf::VCONTAINER, OgfChunk::VContainer(*r))),
                OgfChunk::IContainer(r) => out.push(oc(ogf::ICONTAINER, OgfChunk::IContainer(*r))),
                OgfChunk::TreeDef(td) => out.push(oc(ogf::TREEDEF2, OgfChunk::TreeDef(*td))),
                _ => {}
            }
        }
        let children = v.children().to_vec();
        match t4 {
            model_type::HIERARCHY => {
                out.push(header);
                out.push(oc(ogf::CHILDREN_L, OgfChunk::Children(children)));
            }
            model_type::LOD => {
                out.push(header);
                out.push(oc(ogf::CHILDREN_L, OgfChunk::Children(children)));
                let q = v.lod_quads().unwrap_or(&[]).to_vec();
                out.push(oc(ogf::LODDEF2, OgfChunk::LodDef(q)));
            }
            model_type::PROGRESSIVE => {
                out.push(header);
                out.push(oc(
                    ogf::SWIDATA,
                    OgfChunk::SwiData(SwiItem {
                        reserved: [0; 4],
                        windows: OGF4_QUAD_WINDOWS.to_vec(),
                    }),
                ));
            }
            model_type::TREE_PM => {
                out.push(header);
                out.push(oc(ogf::SWICONTAINER, OgfChunk::SwiContainer(0)));
            }
            _ => out.push(header),
        }
        f.value = Visual { chunks: out };
    }
}

/// The quad of the progressive-strips visual ([`strips_and_patches`]), X-Ray space; drawn by
/// [`OLD_QUAD_TRIS`].
pub const OLD_QUAD_STRIPS: [[f32; 3]; 4] = [
    [6.0, 0.0, -1.0],
    [8.0, 0.0, -1.0],
    [8.0, 0.0, 1.0],
    [6.0, 0.0, 1.0],
];

/// The detail patches of [`strips_and_patches`]: one standing on +y at `(10, 0.25, 10)` with
/// half-size 0.25, one on −z at `(12, 0.5, 10)` with half-size 0.5.
pub fn old_dpatches() -> Vec<ogf::DPatch> {
    vec![
        ogf::DPatch {
            position: [10.0, 0.25, 10.0],
            normal: [0.0, 1.0, 0.0],
            size: 0.25,
            color: 0xFF80_C040,
        },
        ogf::DPatch {
            position: [12.0, 0.5, 10.0],
            normal: [0.0, 0.0, -1.0],
            size: 0.5,
            color: 0x8000_00FF,
        },
    ]
}

/// Add to an XRLC 5 or 8 [`old_level`] the two visual types of the engine of 2002 no peer
/// reads, appended after the hierarchy root (which lists them as children):
///
/// * `MT_PROGRESSIVE_STRIPS` (OGF 3 type 10) on [`OLD_QUAD_STRIPS`]: `OGF_TEXTURE_L`,
///   `OGF_BBOX`, `OGF_BSPHERE`, `OGF_P_LODS` with two detail levels as xrLC's
///   `Save_Progressive` (`05d999e07a`) writes them, each `{OGF_VCONTAINER, OGF_INDICES}` on its
///   own vertices in a vertex-lit FVF buffer appended to the level's: level 0 the corners 0, 2,
///   3 (one triangle), level 1 all four (both triangles, the full detail), then `OGF_HEADER`
///   last as xrLC writes it;
/// * `MT_DETAIL_PATCH` (type 6) with `OGF_DPATCH` holding [`old_dpatches`] (32-byte records of
///   `FDetailPatch.h`, `b4385f03b0`).
pub fn strips_and_patches(l: &mut Level) {
    use crate::fvf::{self, FvfBuffer, UvOrder};
    use crate::ogf::{model_type_v3 as t3, v3};
    let Some(version) = l.version() else { return };
    let (tex, sh) = if version <= 5 { (1, 1) } else { (4, 3) };
    // the strips' vertices: level 0 = corners 0, 2, 3; level 1 = all four
    let lod0 = [OLD_QUAD_STRIPS[0], OLD_QUAD_STRIPS[2], OLD_QUAD_STRIPS[3]];
    let mut pos = lod0.to_vec();
    pos.extend(OLD_QUAD_STRIPS);
    let verts = old_static(&pos, true);
    let buf = FvfBuffer::encode(
        fvf::XYZ | fvf::DIFFUSE | fvf::TEX1,
        UvOrder::for_version(version),
        &verts,
    )
    .expect("seven generated vertices");
    let mut vb_index = 0;
    for c in &mut l.chunks {
        if let LevelChunk::FvfBuffers(b) = &mut c.value {
            b.push(buf.clone());
            vb_index = b.len() as u32 - 1;
        }
    }
    let bounds = |pts: &[[f32; 3]]| {
        let (lo, hi) = bbox_of(pts);
        let c = [0, 1, 2].map(|k| (lo[k] + hi[k]) / 2.0);
        let d = [0, 1, 2].map(|k| hi[k] - c[k]);
        [
            oc(v3::BBOX, OgfChunk::Bbox { min: lo, max: hi }),
            oc(
                v3::BSPHERE,
                OgfChunk::BSphere {
                    center: c,
                    radius: (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt(),
                },
            ),
        ]
    };
    let level = |k: u32, first: u32, n: u32, ix: &[u16]| {
        Framed::plain(
            k,
            vec![
                oc(v3::VCONTAINER, OgfChunk::VContainer([vb_index, first, n])),
                oc(v3::INDICES, OgfChunk::Indices(ix.to_vec())),
            ],
        )
    };
    let mut strips = vec![oc(
        v3::TEXTURE_L,
        OgfChunk::TextureL {
            texture: tex,
            shader: sh,
        },
    )];
    strips.extend(bounds(&OLD_QUAD_STRIPS));
    strips.push(oc(
        v3::P_LODS,
        OgfChunk::PLods(vec![
            // (0, 3, 2) of the quad = local (0, 2, 1) over corners 0, 2, 3
            level(0, 0, 3, &[0, 2, 1]),
            level(1, 3, 4, &OLD_QUAD_TRIS),
        ]),
    ));
    strips.push(oc(ogf::HEADER, short_header(3, t3::PROGRESSIVE2, 0)));
    let patches = old_dpatches();
    let corners: Vec<[f32; 3]> = patches
        .iter()
        .flat_map(|p| crate::flat::dpatch_quad(p).map(|c| c.0))
        .collect();
    let mut dp = vec![
        oc(ogf::HEADER, short_header(3, t3::DETAIL_PATCH, 0)),
        oc(
            v3::TEXTURE_L,
            OgfChunk::TextureL {
                texture: tex,
                shader: sh,
            },
        ),
    ];
    dp.extend(bounds(&corners));
    dp.push(oc(v3::DPATCH, OgfChunk::DPatches(patches)));
    let Some(vs) = visuals_mut(l) else { return };
    let first = vs.len() as u32;
    if let Some(root) = vs.last_mut() {
        for c in &mut root.value.chunks {
            if let OgfChunk::Children(k) = &mut c.value {
                k.extend([first, first + 1]);
            }
        }
    }
    vs.push(Framed::plain(first, Visual { chunks: strips }));
    vs.push(Framed::plain(first + 1, Visual { chunks: dp }));
}

/// The record layouts xrLC changed within one XRLC version (issue 22): a generated level of
/// that version as xrLC wrote it on a given date, for [`old_level_era`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Era {
    /// XRLC 11 before 2003-09-02: 24-byte LOD vertices, 96-byte `OGF_TREEDEF2`.
    Xrlc11Early,
    /// XRLC 11, 2003-09-02..04: 24-byte LOD vertices, 112-byte `OGF_TREEDEF2` (`_tmp_` words).
    Xrlc11Tmp,
    /// XRLC 11, 2003-09-05..08: 28-byte LOD vertices, 112-byte `OGF_TREEDEF2`.
    Xrlc11TmpSun,
    /// XRLC 12 as xrLC wrote it on 2003-10-17 (`b58740e604`, the first XRLC 12): the
    /// material tables of XRLC 8–11, which xrLC changed only on 2003-10-20 (`2dd23ba610`).
    /// `xrLC/Build.cpp` writes each glow as `{f32 pos[3]; f32 radius; u32
    /// RegisterString(texture); u32 RegisterString(shader)}` (24 bytes) and
    /// `xrLC/OGF_Face_Save.cpp` each visual's `OGF_TEXTURE_L` as two `RegisterString` indices
    /// (textures, shader) into the one string table `fsL_SHADERS`, the OGF header's third
    /// field `flags = 0`; from 2003-10-20 one `"shader/textures"` entry per material, named by
    /// the header's `u16 shader_id`, and 18-byte glows with a `u16` shader. (Later on
    /// 2003-10-17, `3396df0237`, xrLC wrote one `u32` `OGF_SHADER_ID` (3) string
    /// `"textures/shader"` instead of `OGF_TEXTURE_L` for three days: not generated.)
    Xrlc12EarlyGlows,
    /// Late XRLC 8 (xrLC from 2002-08-30, `66fe78212a`): the visuals' indices in one
    /// `fsL_IBUFFERS` (chunk 11) buffer, each visual naming its range by `OGF_ICONTAINER`
    /// (19) instead of holding `OGF_INDICES`.
    Xrlc8Late,
    /// XRLC 8 as xrLC wrote it on 2002-09-30 (`0b46184139`, `xrLC/xrSaveLights.cpp`): the late
    /// layout with chunk 7 `fsL_LIGHT_CONTROL` (the editor's controller table copied raw; here
    /// [`crate::level::light_control`]`(2)`, the three standard names without keys) and chunk 8
    /// `fsL_LIGHT_DYNAMIC`, the light of [`old_light_chunk`]`(8)` as a 108-byte
    /// `{u32 controller_ID = 2; Flight}` record (its XRLC 8 tail gone, as xrLC wrote none).
    Xrlc8LightControl,
}

/// [`old_level`] (uncompressed) of the era's version with the era's record layouts: the same
/// positions and UVs, so every export's triangles equal the latest layout's (a 24-byte LOD
/// vertex has no sun byte: it reads 255, its padding 0; a 96-byte tree has no sun colour:
/// scale 1, bias 0, as generated). The `_tmp_` words are `0x11111111` and `0x22222222`.
/// Sources: xrLC/OGF_Face_Save.cpp (`3d8b88e0f9` 2003-09-02 `sizeof(c_scale)` of the 24-byte
/// `base_color`; `c0caf6bf27` 2003-09-09 `5*sizeof(float)`), LOD vertices 28 bytes from
/// 2003-09-05, xrLC/Build.cpp glows (`b58740e604` 2003-10-17 24 bytes, `2dd23ba610`
/// 2003-10-20 18 bytes).
pub fn old_level_era(era: Era) -> Level {
    let version = match era {
        Era::Xrlc12EarlyGlows => 12,
        Era::Xrlc8Late | Era::Xrlc8LightControl => 8,
        _ => 11,
    };
    // XRLC 12 before 2003-10-20 still has the 8–11 material tables (see [`Era`])
    let mut l = old_level_tables(
        Options {
            version,
            compress: false,
        },
        version <= 11 || era == Era::Xrlc12EarlyGlows,
    );
    if matches!(era, Era::Xrlc8Late | Era::Xrlc8LightControl) {
        let mut ib: Vec<u16> = Vec::new();
        for c in &mut l.chunks {
            if let LevelChunk::Visuals(vs) = &mut c.value {
                for v in vs.iter_mut() {
                    for oc in &mut v.value.chunks {
                        if let OgfChunk::Indices(x) = &oc.value {
                            let at = ib.len() as u32;
                            ib.extend_from_slice(x);
                            *oc = Framed::plain(
                                ogf::v3::ICONTAINER,
                                OgfChunk::IContainer([0, at, x.len() as u32]),
                            );
                        }
                    }
                }
            }
        }
        // after the vertex buffers, as the 9 layout has it
        let at = l
            .chunks
            .iter()
            .position(|c| matches!(c.value, LevelChunk::FvfBuffers(_)))
            .map_or(1, |k| k + 1);
        l.chunks.insert(
            at,
            Framed::plain(11, LevelChunk::IndexBuffers(vec![ib.into()])),
        );
    }
    if era == Era::Xrlc8LightControl {
        // xrSaveLights.cpp at `0b46184139`: write_chunk(fsL_LIGHT_CONTROL, …), then
        // fsL_LIGHT_DYNAMIC with `Wdword(controller_ID); write(&data, sizeof(Flight))`
        let lights = match old_light_chunk(8) {
            LevelChunk::OldLights(ls) => ls
                .iter()
                .map(|o| crate::level::Light {
                    controller: 2,
                    d3d: o.d3d,
                })
                .collect(),
            _ => Vec::new(),
        };
        if let Some(k) = l.chunks.iter().position(|c| c.id() == 7) {
            l.chunks.splice(
                k..=k,
                [
                    Framed::plain(7, LevelChunk::Raw(crate::level::light_control(2))),
                    Framed::plain(8, LevelChunk::Lights(lights)),
                ],
            );
        }
    }
    for c in &mut l.chunks {
        let LevelChunk::Visuals(vs) = &mut c.value else {
            continue;
        };
        for v in vs.iter_mut() {
            for oc in &mut v.value.chunks {
                oc.value = match (&oc.value, era) {
                    (OgfChunk::LodDef(q), Era::Xrlc11Early | Era::Xrlc11Tmp) => {
                        // no sun byte or padding in a 24-byte vertex: they read 255 and 0
                        let sunless = |v: &ogf::LodVertex| ogf::LodVertex {
                            sun: 255,
                            pad: [0; 3],
                            ..*v
                        };
                        OgfChunk::LodDefOld(q.iter().map(|x| x.each_ref().map(sunless)).collect())
                    }
                    (OgfChunk::TreeDef(t), Era::Xrlc11Early) => OgfChunk::TreeDefOld(*t),
                    (OgfChunk::TreeDef(t), Era::Xrlc11Tmp | Era::Xrlc11TmpSun) => {
                        OgfChunk::TreeDefTmp(*t, [[0x11; 4], [0x22; 4]])
                    }
                    (x, _) => x.clone(),
                };
            }
        }
    }
    l
}
