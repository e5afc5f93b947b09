//! The engine-neutral scene model that every exporter reads and every importer writes.
//!
//! Engines convert their file models into a [`Scene`] (`to_scene`), exporters (glTF, OBJ, PNG,
//! the preview renderer) only ever see a `Scene`. It is plain data with public fields and no I/O.
//!
//! # Conventions
//! * **Space**: glTF's — right-handed, +Y up, metres or game units as the engine has them.
//!   Engines do any mirroring (and the matching winding flip) in their `to_scene`.
//! * **Winding**: counter-clockwise triangles are front faces.
//! * **UV**: origin at the top-left of the image (glTF/D3D convention). The OBJ writer flips V.
//! * **Colours**: vertex colours ([`Primitive::colors`]) are **display values** 0..1 — what the
//!   game puts on screen, the numbers a modder sees in a paint program, i.e. sRGB-encoded.
//!   Writers convert where their format says otherwise: glTF's `COLOR_n` is linear, so the glTF
//!   writer stores [`colour::srgb_to_linear`] of each channel (alpha unchanged); OBJ keeps the
//!   display values (Blender reads OBJ colours as sRGB). A reader of our glTF files applies
//!   [`colour::linear_to_srgb`] to get the scene's values back. Material base colours are
//!   written as they are.
//! * Empty attribute vectors mean "absent"; a present attribute has one entry per vertex. A
//!   hollow primitive ([`Primitive::hollow`]) has all its vectors empty until its
//!   [`PrimitiveSource`] fills them; only writers that take a source (the GLB writer) are given
//!   one, and [`Primitive::vertex_count`] and the other counts answer from its [`Hollow`].
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod colour;
pub mod paint;
pub mod roots;

/// A whole exported level: a node tree over shared meshes, materials and textures.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Scene {
    /// Scene name (usually the input file's stem).
    pub name: String,
    /// All meshes; nodes refer to them by index, several nodes may share one (instancing).
    pub meshes: Vec<Mesh>,
    /// All materials; primitives refer to them by index.
    pub materials: Vec<Material>,
    /// All textures; materials refer to them by index.
    pub textures: Vec<Texture>,
    /// All nodes; `roots` and [`Node::children`] refer to them by index.
    pub nodes: Vec<Node>,
    /// Top-level nodes in display order.
    pub roots: Vec<usize>,
    /// Punctual lights; nodes place them with [`Node::light`] (glTF `KHR_lights_punctual`).
    pub lights: Vec<Light>,
    /// Things the conversion noticed but could not represent (shown to the user as warnings).
    pub warnings: Vec<String>,
}

/// A named set of primitives drawn together.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Mesh {
    /// Mesh name, unique within the scene.
    pub name: String,
    /// Primitives, one per material.
    pub primitives: Vec<Primitive>,
}

impl Mesh {
    /// Triangles over all primitives.
    pub fn triangle_count(&self) -> usize {
        self.primitives.iter().map(Primitive::triangle_count).sum()
    }
}

/// What a primitive's indices draw.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Topology {
    /// Three indices per triangle (glTF mode 4).
    #[default]
    Triangles,
    /// Two indices per line segment (glTF mode 1, OBJ `l`): paths, routes. Normals, tangents
    /// and UVs are not needed; importers of level geometry skip such primitives.
    Lines,
}

impl Topology {
    /// Indices per element: 3 for triangles, 2 for lines.
    pub fn arity(self) -> usize {
        match self {
            Topology::Triangles => 3,
            Topology::Lines => 2,
        }
    }
}

/// A triangle list (or, with [`Topology::Lines`], a line list) with one material and
/// per-vertex attributes (structure of arrays).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Primitive {
    /// Index into [`Scene::materials`]; `None` means the exporter's default material.
    pub material: Option<usize>,
    /// Triangles (the default) or lines.
    pub topology: Topology,
    /// Vertex positions.
    pub positions: Vec<[f32; 3]>,
    /// Unit vertex normals, or empty.
    pub normals: Vec<[f32; 3]>,
    /// Tangents `xyz` plus handedness `w` = ±1 (glTF convention), or empty.
    pub tangents: Vec<[f32; 4]>,
    /// Texture coordinate sets: `uvs[0]` = base (TEXCOORD_0), `uvs[1]` = lightmap (TEXCOORD_1), …
    pub uvs: Vec<Vec<[f32; 2]>>,
    /// Vertex colour sets RGBA 0..1: `colors[0]` = COLOR_0, `colors[1]` = COLOR_1, …
    pub colors: Vec<Vec<[f32; 4]>>,
    /// Extra named scalar attributes (e.g. X-Ray `_HEMI`, `_SUN`); glTF custom attributes.
    pub scalars: Vec<(String, Vec<f32>)>,
    /// Extra named four-component attributes, written as they are (no colour conversion;
    /// e.g. X-Ray's baked vertex light `_LIGHT`, which is not albedo); glTF custom attributes.
    pub vectors: Vec<(String, Vec<[f32; 4]>)>,
    /// Three indices per triangle (two per line segment with [`Topology::Lines`]) into the
    /// vertex arrays.
    pub indices: Vec<u32>,
    /// `Some` for a hollow primitive: its vectors are empty and a [`PrimitiveSource`] fills
    /// them when a writer needs them ([`Hollow`] says what they will hold); `None` for a
    /// primitive that holds its data.
    pub hollow: Option<Hollow>,
}

/// What a hollow primitive ([`Primitive::hollow`]) holds once its [`PrimitiveSource`] has filled
/// it, known without the data: enough for a writer to lay out its file before any vertex is
/// decoded (the glTF writer's JSON precedes its binary buffer).
///
/// A source keeps these promises for the primitive it fills: `vertices` positions, every
/// other attribute listed here with one entry per vertex (and none that is not listed),
/// `indices` indices (a multiple of the topology's arity), each below `vertices`. Values may
/// still be non-finite (writers repair those as for any primitive).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Hollow {
    /// What the source knows the primitive by ([`PrimitiveSource::fill`]).
    pub key: usize,
    /// Number of vertices.
    pub vertices: usize,
    /// Number of indices.
    pub indices: usize,
    /// Whether it has normals.
    pub normals: bool,
    /// Whether it has tangents.
    pub tangents: bool,
    /// Number of UV sets.
    pub uvs: usize,
    /// Number of colour sets.
    pub colors: usize,
    /// Names of the scalar attributes, in order.
    pub scalars: Vec<String>,
    /// Names of the four-component attributes, in order.
    pub vectors: Vec<String>,
    /// The smallest and largest coordinates of the positions, each non-finite coordinate
    /// counted as 0 (what the writers put in its place); the fold of [`position_bounds`].
    pub bounds: ([f64; 3], [f64; 3]),
}

/// Where the data of hollow primitives ([`Primitive::hollow`]) comes from: an engine's decoder
/// over its still-open file, filling one primitive at a time into a buffer the caller reuses.
pub trait PrimitiveSource: Sync {
    /// Fill the primitive known as `key` into `out`: its vectors are cleared and reused (their
    /// capacity kept), its `material`, `topology` and `hollow` left as they are. The result
    /// keeps the promises of the primitive's [`Hollow`].
    ///
    /// # Errors
    /// A message saying why the data cannot be had (the source checked it before it made the
    /// hollow primitive, so this is not expected).
    fn fill(&self, key: usize, out: &mut Primitive) -> Result<(), String>;
}

/// The bounds of positions as written (see [`Hollow::bounds`]): per coordinate, the smallest and
/// largest value in `f64`, a non-finite value counted as 0, folded in order from ±infinity.
/// One fold for every writer and source, so that a hollow primitive's bounds are the bits a
/// writer computes from its data.
#[inline]
pub fn position_bounds(points: impl Iterator<Item = [f32; 3]>) -> ([f64; 3], [f64; 3]) {
    let mut lo = [f64::INFINITY; 3];
    let mut hi = [f64::NEG_INFINITY; 3];
    for p in points {
        for k in 0..3 {
            let v = if p[k].is_finite() { p[k] } else { 0.0 };
            lo[k] = lo[k].min(v as f64);
            hi[k] = hi[k].max(v as f64);
        }
    }
    (lo, hi)
}

impl Primitive {
    /// Number of vertices (a hollow primitive's once filled).
    pub fn vertex_count(&self) -> usize {
        self.hollow
            .as_ref()
            .map_or(self.positions.len(), |h| h.vertices)
    }

    /// Number of indices (a hollow primitive's once filled).
    pub fn index_count(&self) -> usize {
        self.hollow
            .as_ref()
            .map_or(self.indices.len(), |h| h.indices)
    }

    /// Number of triangles (0 for a line primitive).
    pub fn triangle_count(&self) -> usize {
        match self.topology {
            Topology::Triangles => self.index_count() / 3,
            Topology::Lines => 0,
        }
    }

    /// Number of line segments (0 for a triangle primitive).
    pub fn line_count(&self) -> usize {
        match self.topology {
            Topology::Triangles => 0,
            Topology::Lines => self.index_count() / 2,
        }
    }

    /// Axis-aligned bounds of the positions, or `None` when empty.
    pub fn bounds(&self) -> Option<([f32; 3], [f32; 3])> {
        let first = *self.positions.first()?;
        let mut lo = first;
        let mut hi = first;
        for p in &self.positions {
            for k in 0..3 {
                lo[k] = lo[k].min(p[k]);
                hi[k] = hi[k].max(p[k]);
            }
        }
        Some((lo, hi))
    }
}

/// How a material's alpha is used.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum AlphaMode {
    /// Alpha ignored.
    #[default]
    Opaque,
    /// Texels below the cutoff are discarded (1-bit transparency).
    Mask(f32),
    /// Alpha blended.
    Blend,
}

/// A surface description, kept to what glTF and MTL can both say.
#[derive(Clone, Debug, PartialEq)]
pub struct Material {
    /// Material name, unique within the scene.
    pub name: String,
    /// Base colour factor RGBA (multiplies the texture and vertex colours).
    pub base_color: [f32; 4],
    /// Index into [`Scene::textures`] for the base colour, if any.
    pub texture: Option<usize>,
    /// Draw both sides (no back-face culling).
    pub double_sided: bool,
    /// Alpha handling.
    pub alpha: AlphaMode,
    /// The engine does no lighting for it (baked colours): glTF `KHR_materials_unlit`.
    pub unlit: bool,
    /// Engine-specific facts worth keeping as glTF `extras` (e.g. `("blend_mode", "2")`).
    pub extras: Vec<(String, String)>,
}

impl Default for Material {
    fn default() -> Self {
        Material {
            name: String::new(),
            base_color: [1.0; 4],
            texture: None,
            double_sided: false,
            alpha: AlphaMode::Opaque,
            unlit: false,
            extras: Vec::new(),
        }
    }
}

/// An image a material samples.
#[derive(Clone, Debug, PartialEq)]
pub struct Texture {
    /// Name, also the file stem used by exporters (`page_03` → `page_03.png`).
    pub name: String,
    /// The pixels or where to find them.
    pub source: TextureSource,
}

/// Where a texture's pixels come from.
#[derive(Clone, Debug, PartialEq)]
pub enum TextureSource {
    /// Decoded pixels, row-major from the top-left, 4 bytes RGBA8 per pixel.
    Rgba8 {
        /// Width in pixels.
        width: u32,
        /// Height in pixels.
        height: u32,
        /// `width * height * 4` bytes.
        pixels: Vec<u8>,
    },
    /// A file the exporter references but does not embed (a game texture found on disk).
    External {
        /// Relative path as it should appear in the output (forward slashes, not
        /// percent-encoded: the glTF writer encodes it for its `uri`).
        uri: String,
    },
    /// A texture known only by name, whose file was not found (e.g. a game texture without
    /// `--textures`). OBJ/MTL still name it (`map_Kd uri`) so it can be fixed by hand; glTF
    /// leaves it out, since a glTF reader fails on a missing file.
    Unresolved {
        /// The path the game would load it from, as OBJ/MTL should name it.
        uri: String,
    },
}

impl Texture {
    /// True when any pixel has alpha below 255 (only for decoded pixels).
    pub fn has_transparency(&self) -> bool {
        match &self.source {
            // pixels AND-ed as little-endian words a block at a time (a loop without an exit
            // per pixel, vectorised): a block has an alpha (the top byte) below 255 exactly
            // when the top byte of their AND is not 255; the bytes of a partial pixel at the
            // end are not read, as before
            TextureSource::Rgba8 { pixels, .. } => {
                const ALPHA: u32 = 0xFF00_0000;
                pixels.chunks(1024).any(|block| {
                    let and = block.chunks_exact(4).fold(u32::MAX, |a, p| {
                        a & u32::from_le_bytes([p[0], p[1], p[2], p[3]])
                    });
                    and & ALPHA != ALPHA
                })
            }
            TextureSource::External { .. } | TextureSource::Unresolved { .. } => false,
        }
    }
}

/// The PNG file name exporters give a texture named `name`: `{name}.png`, with every character
/// other than ASCII letters, digits, `_`, `-` and `.` (path separators, spaces, `#`, …) turned
/// into `_`, so the name can never leave the output folder; an empty or all-dots name becomes
/// `texture`. One rule for every writer and every engine that names the files beforehand.
pub fn texture_file_name(name: &str) -> String {
    let mut s: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '.' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if s.is_empty() || s.chars().all(|c| c == '.') {
        s = "texture".to_string();
    }
    s.push_str(".png");
    s
}

/// A node of the scene tree: an optional mesh placed by a transform, and children.
#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    /// Node name (e.g. `tile_0012_m034`).
    pub name: String,
    /// Index into [`Scene::meshes`].
    pub mesh: Option<usize>,
    /// Column-major 4×4 local transform (glTF `matrix` order).
    pub matrix: [f32; 16],
    /// Child node indices.
    pub children: Vec<usize>,
    /// Hidden by default (e.g. collision geometry); written as glTF `extras.hidden`.
    pub hidden: bool,
    /// Engine-specific facts kept as glTF `extras` (e.g. `("swap_state", "alternative")`).
    pub extras: Vec<(String, String)>,
    /// Index into [`Scene::lights`]: the light this node places. As in glTF, a light shines
    /// along the node's local −Z axis (spot and directional lights).
    pub light: Option<usize>,
}

/// What kind of punctual light, as glTF `KHR_lights_punctual` names them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum LightKind {
    /// Shines in every direction from the node's origin.
    Point,
    /// A cone along local −Z; angles in radians from the axis, `0 ≤ inner < outer ≤ π/2`.
    Spot {
        /// Angle where the falloff starts.
        inner_cone: f32,
        /// Angle where the light ends.
        outer_cone: f32,
    },
    /// Parallel rays along local −Z (the sun).
    Directional,
}

/// A punctual light (glTF `KHR_lights_punctual`).
#[derive(Clone, Debug, PartialEq)]
pub struct Light {
    /// Light name.
    pub name: String,
    /// Point, spot or directional.
    pub kind: LightKind,
    /// Linear RGB colour, each channel 0..=1 (the glTF convention; convert display values
    /// with [`colour::srgb_to_linear`]).
    pub color: [f32; 3],
    /// Brightness: candela for point and spot lights, lux for directional ones (glTF units).
    pub intensity: f32,
    /// Distance where the light reaches zero; `None` = unlimited.
    pub range: Option<f32>,
    /// Engine-specific facts kept as glTF `extras` (the raw record's fields).
    pub extras: Vec<(String, String)>,
}

/// The identity matrix, column-major.
pub const IDENTITY: [f32; 16] = [
    1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0,
];

impl Default for Node {
    fn default() -> Self {
        Node {
            name: String::new(),
            mesh: None,
            matrix: IDENTITY,
            children: Vec::new(),
            hidden: false,
            extras: Vec::new(),
            light: None,
        }
    }
}

impl Scene {
    /// Add a node, returning its index (it is not made a root or a child).
    pub fn add_node(&mut self, node: Node) -> usize {
        self.nodes.push(node);
        self.nodes.len() - 1
    }

    /// Add a mesh, returning its index.
    pub fn add_mesh(&mut self, mesh: Mesh) -> usize {
        self.meshes.push(mesh);
        self.meshes.len() - 1
    }

    /// Triangles of all meshes, each mesh counted once however many nodes place it.
    pub fn mesh_triangle_count(&self) -> usize {
        self.meshes.iter().map(Mesh::triangle_count).sum()
    }

    /// World matrix of every node (column-major), by walking from the roots.
    pub fn world_matrices(&self) -> Vec<[f32; 16]> {
        let mut out = vec![IDENTITY; self.nodes.len()];
        let mut stack: Vec<(usize, [f32; 16])> =
            self.roots.iter().map(|&r| (r, IDENTITY)).collect();
        let mut seen = vec![false; self.nodes.len()];
        while let Some((n, parent)) = stack.pop() {
            if n >= self.nodes.len() || seen[n] {
                continue;
            }
            seen[n] = true;
            let m = mul(&parent, &self.nodes[n].matrix);
            out[n] = m;
            for &c in &self.nodes[n].children {
                stack.push((c, m));
            }
        }
        out
    }
}

/// Multiply two column-major 4×4 matrices (`a · b`).
pub fn mul(a: &[f32; 16], b: &[f32; 16]) -> [f32; 16] {
    (glam::Mat4::from_cols_array(a) * glam::Mat4::from_cols_array(b)).to_cols_array()
}

/// Apply a column-major 4×4 matrix to a point.
pub fn transform_point(m: &[f32; 16], p: [f32; 3]) -> [f32; 3] {
    glam::Mat4::from_cols_array(m)
        .transform_point3(glam::Vec3::from_array(p))
        .to_array()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn world_matrices_compose_parent_then_child() {
        let mut s = Scene::default();
        let mut t = IDENTITY;
        t[12] = 10.0; // translate x by 10
        let mut sc = IDENTITY;
        sc[0] = 2.0; // scale x by 2
        let child = s.add_node(Node {
            matrix: sc,
            ..Node::default()
        });
        let root = s.add_node(Node {
            matrix: t,
            children: vec![child],
            ..Node::default()
        });
        s.roots.push(root);
        let w = s.world_matrices();
        assert_eq!(
            transform_point(&w[child], [1.0, 0.0, 0.0]),
            [12.0, 0.0, 0.0]
        );
    }

    #[test]
    fn triangle_counts_sum_primitives_and_count_shared_meshes_once() {
        let tri = |n: usize| Primitive {
            indices: vec![0; 3 * n],
            ..Default::default()
        };
        let mut s = Scene::default();
        let m = s.add_mesh(Mesh {
            name: "m".into(),
            primitives: vec![tri(2), tri(3)],
        });
        s.add_mesh(Mesh {
            name: "n".into(),
            primitives: vec![tri(1)],
        });
        for _ in 0..2 {
            let n = s.add_node(Node {
                mesh: Some(m),
                ..Node::default()
            });
            s.roots.push(n);
        }
        assert_eq!(s.meshes[m].triangle_count(), 5);
        assert_eq!(s.mesh_triangle_count(), 6);
    }

    #[test]
    fn bounds_and_transparency() {
        let p = Primitive {
            positions: vec![[1.0, -2.0, 3.0], [-1.0, 5.0, 0.0]],
            ..Default::default()
        };
        assert_eq!(p.bounds(), Some(([-1.0, -2.0, 0.0], [1.0, 5.0, 3.0])));
        let t = Texture {
            name: "t".into(),
            source: TextureSource::Rgba8 {
                width: 1,
                height: 2,
                pixels: vec![0, 0, 0, 255, 0, 0, 0, 0],
            },
        };
        assert!(t.has_transparency());
        // 100 opaque pixels (several blocks), then one alpha of 254 in a later block, then an
        // alpha 255 pixel with its colour bytes all 0 (only alpha counts)
        let mut pixels = [10u8, 20, 30, 255].repeat(100);
        let opaque = |pixels: &[u8]| Texture {
            name: "t".into(),
            source: TextureSource::Rgba8 {
                width: (pixels.len() / 4) as u32,
                height: 1,
                pixels: pixels.to_vec(),
            },
        };
        pixels.extend_from_slice(&[0, 0, 0, 255]);
        assert!(!opaque(&pixels).has_transparency());
        pixels[4 * 90 + 3] = 254;
        assert!(opaque(&pixels).has_transparency());
        // 1,000 pixels (four blocks of 256 pixels): opaque, then alpha 0 in the third block;
        // colour bytes of 0xFF with alpha 0 (only the top byte of a pixel's word counts), and
        // a partial pixel at the end (not a pixel: not read)
        let mut big = [255u8, 255, 255, 255].repeat(1000);
        big.extend_from_slice(&[1, 2, 3]);
        assert!(!opaque(&big).has_transparency());
        big[4 * 700 + 3] = 0;
        assert!(opaque(&big).has_transparency());
        big[4 * 700 + 3] = 255;
        big[4 * 999] = 0;
        assert!(!opaque(&big).has_transparency());
    }
}
