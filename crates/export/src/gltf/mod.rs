//! glTF 2.0 writer: binary `.glb` (everything embedded) or `.gltf` JSON + `.bin`.
//!
//! # Mapping from the scene
//! | scene | glTF |
//! |---|---|
//! | [`Scene::nodes`] | `nodes`, same indices; `matrix` = the node's local matrix, omitted when identity, so parent × child gives the scene's world matrices (see *Repairs* for matrices glTF cannot hold) |
//! | [`Scene::roots`] | `scenes[0].nodes` |
//! | [`levelgeom_scene::Mesh`] | one `mesh` each (nodes sharing a mesh share it: instancing); a mesh with nothing drawable is left out and its nodes lose the reference |
//! | [`levelgeom_scene::Primitive`] | one primitive each, mode triangles (no `mode`), lines `mode: 1`; empty ones skipped |
//! | positions / normals / tangents | `POSITION` (with `min`/`max`) / `NORMAL` (normalised) / `TANGENT` (vec4, `w` = ±1) |
//! | `uvs[k]`, `colors[k]` | `TEXCOORD_k` (vec2 float), `COLOR_k` (vec4 float; RGB converted from the scene's display values to linear with [`levelgeom_scene::colour::srgb_to_linear`], as glTF defines `COLOR_n`; alpha as it is) |
//! | `scalars` | custom attribute, name with a leading `_` added when missing (`HEMI` → `_HEMI`) |
//! | `vectors` | custom VEC4 float attribute, named likewise, values as they are |
//! | indices | `UNSIGNED_SHORT` when the primitive has < 65536 vertices, else `UNSIGNED_INT` |
//! | [`levelgeom_scene::Material`] | `materials`, same indices: `baseColorFactor`, `baseColorTexture`, `metallicFactor` 0, `doubleSided`, `alphaMode`/`alphaCutoff`, `KHR_materials_unlit` when unlit, `extras` |
//! | [`levelgeom_scene::Texture`] | `textures`/`images` (same order); decoded pixels as PNG (in a GLB: a bufferView; in `.gltf`: the file [`crate::texture_file_name`]), external ones by `uri`; one sampler, nearest filtering (pixel art), repeat wrap |
//! | node `extras`, `hidden` | node `extras` (string values, `"hidden": true`) |
//!
//! # Buffer layout
//! One buffer. Every accessor has its own tightly packed bufferView (no interleaving), each
//! starting at a multiple of 4 bytes and carrying its `target` (ARRAY_BUFFER for vertex data,
//! ELEMENT_ARRAY_BUFFER for indices; none for PNG images). Order: the embedded PNGs in texture
//! order, then per mesh and primitive: POSITION, NORMAL, TANGENT, TEXCOORD_*, COLOR_*, custom
//! attributes, indices. The buffer is zero-padded to a multiple of 4 and `byteLength` is the
//! padded length, which equals the GLB BIN chunk length.
//!
//! # Repairs
//! The validator rejects NaN, out-of-range indices, unequal attribute counts, a textured
//! material on a primitive without `TEXCOORD_0`, a node with two parents. Primitives are
//! repaired as described in the crate's `clean` module; in addition a textured primitive
//! without UVs gets zero UVs, `baseColorFactor` is clamped to 0..1, a non-finite node matrix
//! becomes identity, and node links that would give a node a second parent (or close a cycle)
//! are dropped. A node `matrix` must decompose into translation · rotation · scale (the
//! validator's `NODE_MATRIX_NON_TRS`: bottom row exactly `0 0 0 1`, non-zero determinant, no
//! shear); a node whose matrix does not is written without one, its mesh replaced by a copy
//! with the matrix applied to the vertices (appended after the scene's meshes), and the matrix
//! pre-multiplied into its children's. Every repair is reported in the warnings.

mod bin;
mod build;
mod glb;
mod json;
mod stream;

use std::borrow::Cow;

use levelgeom_scene::{Light, LightKind, PrimitiveSource, Scene, Topology};

use crate::clean::{CleanPrimitive, Repairs};
use crate::ExportError;
use bin::Bin;
use build::build;
use json::*;

const ARRAY_BUFFER: u32 = 34962;
const ELEMENT_ARRAY_BUFFER: u32 = 34963;
const FLOAT: u32 = 5126;
const UNSIGNED_SHORT: u32 = 5123;
const UNSIGNED_INT: u32 = 5125;
const NEAREST: u32 = 9728;
const REPEAT: u32 = 10497;

/// Options of the glTF writer.
#[derive(Clone, Debug, PartialEq)]
pub struct GltfOptions {
    /// `asset.generator`, e.g. `levelgeom 0.1.0`.
    pub generator: String,
}

impl Default for GltfOptions {
    fn default() -> Self {
        GltfOptions {
            generator: format!("levelgeom {}", env!("CARGO_PKG_VERSION")),
        }
    }
}

/// A `.glb` file and what the writer had to repair on the way.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Glb {
    /// The complete GLB file.
    pub bytes: Vec<u8>,
    /// Repairs made (non-finite floats replaced, bad primitives skipped, …), for the user.
    pub warnings: Vec<String>,
}

/// A `.gltf` JSON document with its separate binary buffer.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GltfFiles {
    /// The JSON document (UTF-8).
    pub json: String,
    /// The contents of the buffer file the JSON refers to (empty, and not referenced, when
    /// there is no geometry).
    pub bin: Vec<u8>,
    /// Repairs made, as in [`Glb::warnings`].
    pub warnings: Vec<String>,
}

/// Export `scene` as one GLB: geometry in the BIN chunk, every [`TextureSource::Rgba8`]
/// texture embedded as PNG, external textures referenced by `uri`. Warnings are discarded; use
/// [`to_glb_with_warnings`] to show them.
///
/// # Errors
/// [`ExportError::TooLarge`] when the file would exceed the 4 GiB GLB limit.
pub fn to_glb(scene: &Scene, opts: &GltfOptions) -> Result<Vec<u8>, ExportError> {
    Ok(to_glb_with_warnings(scene, opts)?.bytes)
}

/// Like [`to_glb`], also returning the warnings.
///
/// # Errors
/// As [`to_glb`].
pub fn to_glb_with_warnings(scene: &Scene, opts: &GltfOptions) -> Result<Glb, ExportError> {
    let mut bytes = Vec::new();
    let warnings = write_glb(scene, opts, &[], &mut bytes)?;
    Ok(Glb { bytes, warnings })
}

/// Write `scene` as a GLB (the bytes of [`to_glb`]) into `out`, as a stream: the layout of the
/// buffer is computed first and the JSON text serialised (its large arrays in parallel runs,
/// the JSON structures then dropped), then the JSON chunk is written, then the BIN chunk
/// accessor by accessor, converted to little-endian bytes in pieces of 128 KiB — no copy of
/// the whole file or of any attribute is made (positions, UVs, colours and custom attributes
/// that need repairs excepted; normals and tangents are repaired as they are written, see the
/// crate's `clean` module). With a buffer of 4 MiB or more, the pieces are made on a second
/// thread while this one writes the JSON chunk, then the pieces, into `out` (a few pieces in
/// flight at most). Give `out` a buffered writer.
///
/// `encoded` may hold the PNG bytes of some textures already encoded (by scene texture index,
/// as [`crate::png::encode_rgba8`] gives them for that texture's pixels), so that a texture
/// written both into the GLB and as a file is encoded once; textures not in it (or `None`) are
/// encoded here. Returns the warnings.
///
/// # Errors
/// As [`to_glb`]; [`ExportError::Write`] when writing to `out` fails.
pub fn write_glb(
    scene: &Scene,
    opts: &GltfOptions,
    encoded: &[Option<&[u8]>],
    out: &mut dyn std::io::Write,
) -> Result<Vec<String>, ExportError> {
    write_glb_from(scene, None, opts, encoded, out)
}

/// [`write_glb`] of a scene that may hold hollow primitives
/// ([`levelgeom_scene::Primitive::hollow`]), filled by `source` when the BIN chunk reaches them:
/// the layout and the JSON come from what each promises, and the BIN chunk is written from a
/// few reused buffers that the thread pool fills a batch ahead of the writer (see the `stream`
/// module), from the moment the primitives are cleaned (their order in the buffer is then
/// known), so the first batches are filled while the meshes are laid out and the JSON written.
/// The bytes and the warnings are those of [`write_glb`] of the same scene with the primitives
/// filled.
///
/// # Errors
/// As [`write_glb`]; [`ExportError::NeedsData`] before anything is written when a hollow
/// mesh would need its vertices up front (a node matrix baked into it), or there is no
/// source; [`ExportError::Source`] when the source fails or breaks its promises.
pub fn write_glb_from(
    scene: &Scene,
    source: Option<&dyn PrimitiveSource>,
    opts: &GltfOptions,
    encoded: &[Option<&[u8]>],
    out: &mut dyn std::io::Write,
) -> Result<Vec<String>, ExportError> {
    let prepared = build::prepare(scene, opts, None, encoded)?;
    let keys = prepared.hollow_keys();
    match source {
        // the pool fills the first batches while the meshes are laid out and the JSON written
        Some(source) if !keys.is_empty() => {
            stream::filled(source, &keys, |f| write_prepared(prepared, Some(f), out))
        }
        None if !keys.is_empty() => Err(ExportError::NeedsData {
            what: "the GLB writer without a source".into(),
        }),
        _ => write_prepared(prepared, None, out),
    }
}

/// Finish the plan of a GLB and write it into `out`, the hollow primitives taken from
/// `filled` in buffer order; returns the warnings.
fn write_prepared(
    prepared: build::Prepared<'_, '_>,
    filled: Option<&mut stream::Filled>,
    out: &mut dyn std::io::Write,
) -> Result<Vec<String>, ExportError> {
    let plan = prepared.finish()?;
    let total = plan.json_len as u64 + 3 + plan.bin_len as u64 + 28;
    if total > u64::from(u32::MAX) {
        return Err(ExportError::TooLarge {
            what: "GLB file".to_string(),
        });
    }
    let Plan {
        json,
        json_len,
        views,
        bin_len,
        layout,
        prims,
        images,
        mut rep,
    } = plan;
    let bin = Bin {
        views,
        data: &layout.data,
        bin_len,
        prims: &prims,
        images: &images,
    };
    let head = |out: &mut dyn std::io::Write| {
        glb::write_head(out, json_len, bin_len, |w| {
            // each segment dropped once written
            json.into_iter().try_for_each(|s| w.write_all(&s))
        })
    };
    let counted = if bin_len >= QUEUED_FROM {
        // the buffer made on a second thread (the pool filling it) while this one writes the
        // header and the JSON, then the buffer's pieces
        bin::queued(
            |to| bin.write(to, filled),
            |pieces| {
                head(out)?;
                bin::write_pieces(pieces, out)
            },
        )
    } else {
        head(out).and_then(|()| bin.write(&mut bin::Direct(out), filled))
    }
    .map_err(stream::export_error)?;
    rep.absorb(counted);
    Ok(rep.finish())
}

/// Export `scene` as a `.gltf` JSON document whose buffer is the file `bin_uri` (relative to the
/// JSON, e.g. `level.bin`); decoded textures are referenced as [`crate::texture_file_name`]
/// (write them with [`crate::write_textures`]).
///
/// # Errors
/// As [`to_glb`] (the same 4 GiB limit applies to the buffer).
pub fn to_gltf(scene: &Scene, opts: &GltfOptions, bin_uri: &str) -> Result<GltfFiles, ExportError> {
    let plan = build(scene, opts, Some(bin_uri), &[])?;
    if plan.prims.iter().any(|c| c.hollow.is_some()) {
        return Err(ExportError::NeedsData {
            what: "the .gltf writer".into(),
        });
    }
    let Plan {
        json,
        views,
        bin_len,
        layout,
        prims,
        images,
        mut rep,
        ..
    } = plan;
    let mut bin = Vec::with_capacity(bin_len);
    let counted = Bin {
        views,
        data: &layout.data,
        bin_len,
        prims: &prims,
        images: &images,
    }
    .write(&mut bin::Direct(&mut bin), None)
    .map_err(ExportError::Write)?;
    rep.absorb(counted);
    // serde_json writes UTF-8; map the impossible anyway
    let json = String::from_utf8(json.concat()).map_err(|e| ExportError::TooLarge {
        what: format!("glTF JSON ({e})"),
    })?;
    Ok(GltfFiles {
        json,
        bin,
        warnings: rep.finish(),
    })
}

/// Which attribute of a primitive a bufferView holds.
#[derive(Clone, Copy, Debug)]
enum Attr {
    Position,
    Normal,
    Tangent,
    Uv(usize),
    Color(usize),
    Scalar(usize),
    Vector(usize),
}

/// What one bufferView holds, to be written when the BIN chunk is streamed.
#[derive(Clone, Copy, Debug)]
enum ViewData {
    /// PNG bytes of image `i` (index into [`Plan::images`]).
    Image(usize),
    /// An attribute of written primitive `prim`.
    Attr { prim: usize, attr: Attr },
    /// The indices of written primitive `prim`, as u16 or u32.
    Indices { prim: usize, short: bool },
}

/// The layout of the binary buffer: views and accessors with their offsets, and what each
/// view holds; nothing is copied until [`Plan::write_bin`].
#[derive(Default)]
struct Layout {
    /// Buffer length so far (unpadded end of the last view).
    len: usize,
    views: Vec<BufferViewJ>,
    data: Vec<ViewData>,
    accessors: Vec<AccessorJ>,
}

impl Layout {
    /// Room for `n` more views and accessors (one view each).
    fn reserve(&mut self, n: usize) {
        self.views.reserve(n);
        self.data.reserve(n);
        self.accessors.reserve(n);
    }

    /// A new bufferView of `byte_length` bytes starting at a multiple of 4; returns its index.
    fn view(&mut self, byte_length: usize, target: Option<u32>, data: ViewData) -> usize {
        let pad = (4 - self.len % 4) % 4;
        self.len += pad;
        self.views.push(BufferViewJ {
            buffer: 0,
            byte_offset: self.len,
            byte_length,
            target,
        });
        self.data.push(data);
        self.len += byte_length;
        self.views.len() - 1
    }

    /// A float accessor over `count` elements of `comps` components.
    fn floats(
        &mut self,
        count: usize,
        comps: usize,
        kind: &'static str,
        data: ViewData,
        bounds: Option<Bounds>,
    ) -> usize {
        let view = self.view(count * comps * 4, Some(ARRAY_BUFFER), data);
        let (min, max) = bounds.map(|(lo, hi)| (Box::new(lo), Box::new(hi))).unzip();
        self.accessors.push(AccessorJ {
            buffer_view: view,
            component_type: FLOAT,
            count,
            kind,
            min,
            max,
        });
        self.accessors.len() - 1
    }

    /// The index accessor: u16 for fewer than 65536 vertices, else u32.
    fn indices(&mut self, prim: usize, count: usize, vertex_count: usize) -> usize {
        let short = vertex_count < 65536;
        let (size, component_type) = if short {
            (2, UNSIGNED_SHORT)
        } else {
            (4, UNSIGNED_INT)
        };
        let view = self.view(
            count * size,
            Some(ELEMENT_ARRAY_BUFFER),
            ViewData::Indices { prim, short },
        );
        self.accessors.push(AccessorJ {
            buffer_view: view,
            component_type,
            count,
            kind: "SCALAR",
            min: None,
            max: None,
        });
        self.accessors.len() - 1
    }
}

/// A binary buffer at least this long is made on a second thread while the JSON and the buffer
/// are written ([`bin::queued`]); a shorter one is not worth the thread.
const QUEUED_FROM: usize = 4 << 20;

/// `extras` from key/value strings, keeping the first of duplicate keys.
fn extras(
    pairs: &[(String, String)],
    label: &dyn std::fmt::Display,
    rep: &mut Repairs,
) -> Ordered<serde_json::Value> {
    let mut out: Vec<(String, serde_json::Value)> = Vec::with_capacity(pairs.len());
    for (k, v) in pairs {
        if out.iter().any(|(ok, _)| ok == k) {
            rep.warn(format!(
                "{label}: duplicate extras key {k:?}; kept the first"
            ));
        } else {
            out.push((k.clone(), serde_json::Value::String(v.clone())));
        }
    }
    Ordered(out)
}

/// One light as glTF JSON, or `None` (with a warning) when glTF cannot hold it: non-finite
/// values, negative colour/intensity, a range ≤ 0, or spot angles outside 0 ≤ inner < outer ≤ π/2.
fn light_json(l: &Light, label: &str, rep: &mut Repairs) -> Option<LightJ> {
    let finite = l
        .color
        .iter()
        .chain([&l.intensity])
        .all(|v| v.is_finite() && *v >= 0.0);
    if !finite {
        rep.warn(format!(
            "{label}: colour or intensity not finite and ≥ 0; left out"
        ));
        return None;
    }
    if l.range.is_some_and(|r| !(r.is_finite() && r > 0.0)) {
        rep.warn(format!("{label}: range {:?} not > 0; left out", l.range));
        return None;
    }
    let (kind, spot) = match l.kind {
        LightKind::Point => ("point", None),
        LightKind::Directional => ("directional", None),
        LightKind::Spot {
            inner_cone,
            outer_cone,
        } => {
            let ok = inner_cone >= 0.0
                && inner_cone < outer_cone
                && outer_cone <= std::f32::consts::FRAC_PI_2;
            if !ok {
                rep.warn(format!(
                    "{label}: spot cone {inner_cone}..{outer_cone} not within 0 ≤ inner < outer ≤ π/2; left out"
                ));
                return None;
            }
            (
                "spot",
                Some(SpotJ {
                    inner_cone_angle: inner_cone,
                    outer_cone_angle: outer_cone,
                }),
            )
        }
    };
    Some(LightJ {
        name: l.name.clone(),
        kind,
        color: l.color,
        intensity: l.intensity,
        // glTF: directional lights have no range
        range: if kind == "directional" { None } else { l.range },
        spot,
        extras: extras(&l.extras, &label, rep),
    })
}

/// One export planned: the JSON text, the layout of the buffer and what it is made of.
struct Plan<'a> {
    /// The compact JSON text of the document, in segments ([`Root::into_segments`]).
    json: Vec<Vec<u8>>,
    /// Length of `json` in all.
    json_len: usize,
    /// The document's bufferViews (the buffer's layout).
    views: Vec<BufferViewJ>,
    /// The padded buffer length (`buffers[0].byteLength`; 0 when there is no buffer).
    bin_len: usize,
    layout: Layout,
    /// The primitives written, in buffer order.
    prims: Vec<CleanPrimitive<'a>>,
    /// Embedded PNGs, in image order.
    images: Vec<std::borrow::Cow<'a, [u8]>>,
    /// The repairs so far (the hollow primitives' are counted when the buffer is written).
    rep: Repairs,
}

/// The smallest and largest position components (POSITION's `min` and `max`).
type Bounds = ([f64; 3], [f64; 3]);

/// The [`Bounds`] of a cleaned primitive's positions (a hollow one's from what it promises).
fn bounds(c: &CleanPrimitive) -> Bounds {
    match c.hollow {
        Some(h) => h.bounds,
        None => levelgeom_scene::position_bounds(c.positions.iter().copied()),
    }
}

/// The semantics of the first UV and colour sets (others are formatted).
const TEXCOORD: [&str; 4] = ["TEXCOORD_0", "TEXCOORD_1", "TEXCOORD_2", "TEXCOORD_3"];
const COLOR: [&str; 4] = ["COLOR_0", "COLOR_1", "COLOR_2", "COLOR_3"];

/// Lay out one cleaned primitive's accessors; `prim` is its index among the written ones.
fn primitive(
    buf: &mut Layout,
    prim: usize,
    c: &CleanPrimitive,
    (lo, hi): Bounds,
    label: &dyn std::fmt::Display,
    rep: &mut Repairs,
) -> PrimitiveJ {
    let n = c.vertex_count();
    let attr = |attr| ViewData::Attr { prim, attr };
    let (scalar_names, vector_names) = (c.scalar_names(), c.vector_names());
    let mut attrs: Vec<(Cow<'static, str>, usize)> = Vec::with_capacity(
        3 + c.uv_sets() + c.colour_sets() + scalar_names.len() + vector_names.len(),
    );
    attrs.push((
        "POSITION".into(),
        buf.floats(n, 3, "VEC3", attr(Attr::Position), Some((lo, hi))),
    ));
    if c.has_normals() {
        attrs.push((
            "NORMAL".into(),
            buf.floats(n, 3, "VEC3", attr(Attr::Normal), None),
        ));
    }
    if c.has_tangents() {
        attrs.push((
            "TANGENT".into(),
            buf.floats(n, 4, "VEC4", attr(Attr::Tangent), None),
        ));
    }
    // every set of a cleaned primitive has one entry per vertex
    for k in 0..c.uv_sets() {
        attrs.push((
            TEXCOORD
                .get(k)
                .map_or_else(|| format!("TEXCOORD_{k}").into(), |s| Cow::Borrowed(*s)),
            buf.floats(n, 2, "VEC2", attr(Attr::Uv(k)), None),
        ));
    }
    for k in 0..c.colour_sets() {
        attrs.push((
            COLOR
                .get(k)
                .map_or_else(|| format!("COLOR_{k}").into(), |s| Cow::Borrowed(*s)),
            buf.floats(n, 4, "VEC4", attr(Attr::Color(k)), None),
        ));
    }
    // custom attributes: a leading `_` (glTF's rule for application-specific semantics)
    let scalars = scalar_names
        .iter()
        .enumerate()
        .map(|(k, name)| (*name, n, 1, "SCALAR", Attr::Scalar(k)));
    let vectors = vector_names
        .iter()
        .enumerate()
        .map(|(k, name)| (*name, n, 4, "VEC4", Attr::Vector(k)));
    for (name, count, width, ty, which) in scalars.chain(vectors) {
        let semantic = if name.starts_with('_') {
            name.to_string()
        } else {
            format!("_{name}")
        };
        if attrs.iter().any(|(a, _)| *a == semantic) {
            rep.warn(format!(
                "{label}: duplicate attribute {semantic}; kept the first"
            ));
            continue;
        }
        attrs.push((
            semantic.into(),
            buf.floats(count, width, ty, attr(which), None),
        ));
    }
    let indices = buf.indices(prim, c.index_count(), n);
    PrimitiveJ {
        attributes: Ordered(attrs),
        indices,
        material: c.material,
        mode: (c.topology == Topology::Lines).then_some(1),
    }
}

/// Children lists and scene roots forming a forest (every node at most one parent, no
/// cycles, roots parentless), as glTF requires. Links that break this are dropped with a
/// warning; the first parent to claim a node (in root order, then node order) keeps it.
fn forest(scene: &Scene, rep: &mut Repairs) -> (Vec<Vec<usize>>, Vec<usize>) {
    let n = scene.nodes.len();
    let mut children = vec![Vec::new(); n];
    let mut claimed = vec![false; n];
    let mut visit = |start: usize, claimed: &mut Vec<bool>, rep: &mut Repairs| {
        claimed[start] = true;
        let mut stack = vec![start];
        while let Some(x) = stack.pop() {
            for &c in &scene.nodes[x].children {
                if c >= n {
                    rep.warn(format!("node {x}: child {c} does not exist; dropped"));
                } else if claimed[c] {
                    rep.warn(format!(
                        "node {x}: child {c} already has a parent or closes a cycle; link dropped"
                    ));
                } else {
                    claimed[c] = true;
                    children[x].push(c);
                    stack.push(c);
                }
            }
        }
    };
    let mut roots = Vec::with_capacity(scene.roots.len());
    for &r in &scene.roots {
        if r >= n {
            rep.warn(format!("root {r} does not exist; dropped"));
        } else if claimed[r] {
            rep.warn(format!("root {r} is already in the tree; dropped as root"));
        } else {
            visit(r, &mut claimed, rep);
            roots.push(r);
        }
    }
    // Nodes outside the scene tree: start from those without an unclaimed parent, then break
    // any remaining cycles at their lowest index.
    let mut has_parent = vec![false; n];
    for (x, node) in scene.nodes.iter().enumerate() {
        if !claimed[x] {
            for &c in &node.children {
                if c < n && c != x {
                    has_parent[c] = true;
                }
            }
        }
    }
    for x in 0..n {
        if !claimed[x] && !has_parent[x] {
            visit(x, &mut claimed, rep);
        }
    }
    for x in 0..n {
        if !claimed[x] {
            visit(x, &mut claimed, rep);
        }
    }
    (children, roots)
}

/// Percent-encode a relative path for a glTF `uri` (RFC 3986: everything but unreserved
/// characters and `/`; an already encoded `%XX` is encoded again, as the path is a file name).
pub fn uri_encode(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for b in path.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/".contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}
