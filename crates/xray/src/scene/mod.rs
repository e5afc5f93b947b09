//! Conversion of a `level` + `level.geom` into the engine-neutral [`Scene`] for export.
//!
//! * One mesh per visual with geometry (GCONTAINER into `level.geom`); progressive visuals at
//!   full detail (`sw[0]` of OGF_SWIDATA / the SWICONTAINER item). Visuals drawing the same
//!   range with the same shader share one mesh.
//! * Trees (MT_TREE_ST/PM) that share one geometry range become one mesh in model space and one
//!   node per visual carrying its OGF_TREEDEF2 matrix (composed with the pivot).
//! * Hierarchy and LOD visuals become nodes whose children are their OGF_CHILDREN_L visuals;
//!   visuals nobody lists are the children of the root `level`. LOD billboards become meshes
//!   only with [`SceneOptions::lods`] (their material double-sided: the 8 quads stand in the
//!   tree's axis).
//! * Pivots ([`crate::pivot`]): each visual's node translation is at its own bounding-box
//!   centre, its vertices relative to it; world positions are those of the level.
//! * Extras of each visual's node: `visual` (index), `model_type`, `shader_id`, `shader` (the
//!   entry's text, when the id is not 0) and `sector` (comma-separated sector indices, absent
//!   when no sector reaches the visual).
//! * Lights and glows ([`crate::lights`]) under `level` as the groups `lights`, `glows`;
//!   portals ([`crate::portals`]) as a hidden root with [`SceneOptions::portals`].
//! * Materials: one per shader-table entry used, named after its diffuse texture
//!   ([`crate::names`]: at most 63 bytes, unique), with the diffuse texture referenced by name
//!   (`<tex0 with '/'>.<ext>`); extras `engine_shader`, `texture_0`, `texture_1`, …, `shader`
//!   (the whole entry, `engine/tex0,tex1…`) and `shader_id`.
//! * Attributes: base UV → `uvs[0]`, lightmap UV → `uvs[1]`, the vertex "colour" — baked
//!   light, not albedo — → the custom attribute `_LIGHT` (RGBA; with
//!   [`SceneOptions::vertex_light`] `colors[0]` instead, for the baked look), hemi/sun → scalars
//!   `_HEMI`/`_SUN`, tree wind → `_WIND`; normals and tangents normalised.
//! * Space (docs/formats/xray-level.md §2.4): X-Ray is left-handed; every position, normal, tangent and matrix is
//!   mirrored in z (`(x, y, −z)`, matrices conjugated by `diag(1, 1, −1)`) and every triangle's
//!   winding reversed, so faces stay front faces in glTF's right-handed frame. UVs are not
//!   flipped (D3D and glTF share the top-left origin).

pub mod collision;
pub mod dds;
pub mod lights;
pub mod names;
pub mod pivot;
pub mod portals;
mod range;
pub mod textures;

use std::collections::{HashMap, HashSet};

use rayon::prelude::*;

use levelgeom_scene::{Material, Mesh, Node, Primitive, Scene, Texture, TextureSource};

use crate::geom::{Geom, SlideWindow, VertexBuffer};
use crate::index_data::IndexData;
use crate::level::Level;
use crate::ogf::{model_type, GContainer, Visual};
use crate::shaders::ShaderEntry;
use range::{range_of, Range};

/// Choices for [`to_scene`].
#[derive(Clone, Debug)]
pub struct SceneOptions {
    /// Scene name.
    pub name: String,
    /// Also make meshes of the LOD billboard quads.
    pub lods: bool,
    /// Write the baked vertex light as the vertex colour (`colors[0]` → glTF `COLOR_0`, which
    /// viewers multiply into the texture) instead of the custom attribute `_LIGHT`.
    pub vertex_light: bool,
    /// Also convert the `level.cform` beside the level into a hidden `collision` tree
    /// ([`crate::collision`]); used by [`crate::LevelFiles::to_scene`].
    pub collision: bool,
    /// Also convert the `level.hom` / `level.som` beside the level into a hidden `occluders`
    /// tree ([`crate::occluders::scene`]); used by [`crate::LevelFiles::to_scene`].
    pub occluders: bool,
    /// Also convert the `level.ai` beside the level into a hidden `ai` tree
    /// ([`crate::ai::scene`]); used by [`crate::LevelFiles::to_scene`].
    pub ai: bool,
    /// Also convert the `level.details` models beside the level into a hidden `details` tree
    /// ([`crate::details::scene`]); used by [`crate::LevelFiles::to_scene`].
    pub details: bool,
    /// File extension appended to texture names in URIs (`dds` by default).
    pub texture_extension: String,
    /// Prefix put before texture URIs (e.g. a relative path to gamedata/textures).
    pub texture_prefix: String,
    /// Also add the portal polygons as a hidden root `portals` ([`crate::portals`]).
    pub portals: bool,
    /// Convert only one kind of visual ([`Only`]); lights and glows are then left out.
    pub only: Option<Only>,
    /// Decode only the vertices' positions and normals (and the triangles): the meshes have
    /// no tangents, UV sets, colours or scalars. What an import compares an edited file with
    /// ([`crate::import`]); the positions and normals are those of the full decode.
    pub geometry_only: bool,
}

impl Default for SceneOptions {
    fn default() -> Self {
        SceneOptions {
            name: "level".into(),
            lods: false,
            vertex_light: false,
            collision: false,
            occluders: false,
            ai: false,
            details: false,
            texture_extension: "dds".into(),
            texture_prefix: String::new(),
            portals: false,
            only: None,
            geometry_only: false,
        }
    }
}

/// Why a level could not be converted at all.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SceneError {
    /// The geom file has no vertex or index buffers.
    #[error("level.geom has no vertex or index buffer chunk")]
    NoBuffers,
    /// The level's XRLC version is none this crate reads (4, 5, 8–14).
    #[error("XRLC version {0}; export reads versions 4, 5 and 8–14")]
    Version(u16),
    /// An XRLC 4–12 level has no 13/14-shaped view ([`crate::flat::flatten`]).
    #[error("the XRLC 13/14 view of the old level: {0}")]
    View(#[source] levelgeom_binary::WriteError),
}

/// Mirror a point or direction into glTF space.
pub fn mirror(p: [f32; 3]) -> [f32; 3] {
    [p[0], p[1], -p[2]]
}

/// The OGF_TREEDEF2 matrix (row-major D3D, row vectors) as a glTF column-major matrix in the
/// mirrored frame. The D3D array read in order *is* the column-major matrix for column vectors;
/// mirroring conjugates it by `diag(1,1,−1)`, negating the entries with exactly one z index.
pub fn tree_matrix(xform: &[f32; 16]) -> [f32; 16] {
    let mut m = *xform;
    for i in [2, 6, 14, 8, 9, 11] {
        m[i] = -m[i];
    }
    m
}

/// What [`Run::decode_ranges`] made of a range ahead of the visuals' loop.
enum Built<'g> {
    /// Its primitive, decoded.
    Full(Primitive),
    /// Its range, for a hollow primitive, with its pivot and bounds
    /// ([`Range::pivot_and_bounds`]).
    Hollow(Range<'g>, [f32; 3], ([f64; 3], [f64; 3])),
}

/// The source of a scene's hollow primitives ([`to_hollow_scene`]): every hollow primitive's
/// checked range of `level.geom`, decoded when the writer asks for it
/// ([`levelgeom_scene::PrimitiveSource`]) with the code that fills the full scene's, then moved
/// by its mesh's pivot and given `_LIGHT` as [`to_scene`] does.
pub struct GeomSource<'g> {
    /// By key: the range and its mesh's pivot.
    ranges: Vec<(Range<'g>, [f32; 3])>,
    /// The meshes of `ranges`, to read their pivots once placed.
    meshes: Vec<usize>,
    vertex_light: bool,
}

impl GeomSource<'_> {
    /// A source of no primitive (for a scene without hollow ones).
    pub fn none() -> Self {
        GeomSource {
            ranges: Vec::new(),
            meshes: Vec::new(),
            vertex_light: false,
        }
    }

    /// How many hollow primitives it fills.
    pub fn len(&self) -> usize {
        self.ranges.len()
    }

    /// Whether it fills none (the scene is then a full one).
    pub fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }

    /// The range of the hollow primitive `key` and its mesh's pivot.
    fn range(&self, key: usize) -> Result<&(Range<'_>, [f32; 3]), String> {
        self.ranges
            .get(key)
            .ok_or_else(|| format!("no geometry range {key} in this level"))
    }

    /// The positions and triangles of the hollow primitive `key`, those [`GeomSource::fill`]
    /// gives bit for bit (moved by the mesh's pivot), into `positions` and `indices` (cleared
    /// first, their capacity kept), without decoding its other attributes: what an import
    /// compares an unchanged node with ([`crate::import`]).
    ///
    /// # Errors
    /// As [`levelgeom_scene::PrimitiveSource::fill`]: no such primitive.
    pub fn fill_shape(
        &self,
        key: usize,
        positions: &mut Vec<[f32; 3]>,
        indices: &mut Vec<u32>,
    ) -> Result<(), String> {
        let (range, c) = self.range(key)?;
        range.shape_into(positions, indices);
        pivot::recentre(positions, *c);
        Ok(())
    }
}

impl levelgeom_scene::PrimitiveSource for GeomSource<'_> {
    fn fill(&self, key: usize, out: &mut Primitive) -> Result<(), String> {
        let (range, c) = self.range(key)?;
        range.fill_into(out);
        pivot::recentre(&mut out.positions, *c);
        if !self.vertex_light {
            light_to_vector(out);
        }
        Ok(())
    }
}

/// What a visual draws: its range, its window (offset, triangles, vertices) and its shader.
type Drawn = (GContainer, Option<(u32, u16, u16)>, u16);

fn drawn(g: GContainer, window: Option<SlideWindow>, sid: u16) -> Drawn {
    (g, window.map(|w| (w.offset, w.num_tris, w.num_verts)), sid)
}

/// The window a visual of model type `t` is drawn with (full detail, `sw[0]`, for progressive
/// visuals; `None`: the whole range), and a warning when a progressive visual has none.
///
/// xrLC puts MT_PROGRESSIVE windows inline (OGF_SWIDATA) and MT_TREE_PM ones in level.geom
/// (OGF_SWICONTAINER), but a TREE_PM variant with inline SWIDATA exists (xray_re parse_lev), so
/// either source is honoured for both.
fn full_window(v: &Visual, t: u8, geom: &Geom) -> (Option<SlideWindow>, Option<&'static str>) {
    let progressive = matches!(t, model_type::PROGRESSIVE | model_type::TREE_PM);
    let mut items = v.swidata().into_iter().chain(
        v.swi_container()
            .and_then(|si| geom.swis().get(si as usize)),
    );
    match items.next() {
        Some(s) if progressive => match s.windows.first() {
            Some(w) => (Some(*w), None),
            None => (
                None,
                Some("progressive visual without windows; exported whole"),
            ),
        },
        None if progressive => (
            None,
            Some("progressive visual without sliding windows; exported whole"),
        ),
        _ => (None, None),
    }
}

fn lod_primitive(v: &Visual) -> Option<Primitive> {
    let quads = v.lod_quads()?;
    let mut p = Primitive::default();
    let mut uv = Vec::new();
    let mut col = Vec::new();
    let mut hemi = Vec::new();
    let mut sun = Vec::new();
    for q in quads {
        let base = p.positions.len() as u32;
        for lv in q {
            p.positions.push(mirror(lv.pos));
            uv.push(lv.uv);
            let c = lv.rgb_hemi;
            let ch = |s: u32| ((c >> s) & 0xFF) as f32 / 255.0;
            col.push([ch(16), ch(8), ch(0), 1.0]);
            hemi.push(ch(24));
            sun.push(f32::from(lv.sun) / 255.0);
        }
        // quad 0-1-2-3 as two triangles, reversed for the mirror
        p.indices
            .extend([0, 2, 1, 0, 3, 2].iter().map(|k| base + k));
    }
    p.uvs.push(uv);
    p.colors.push(col);
    p.scalars.push(("_HEMI".into(), hemi));
    p.scalars.push(("_SUN".into(), sun));
    Some(p)
}

/// Which kind of visual [`SceneOptions::only`] keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Only {
    /// Static geometry: MT_NORMAL and MT_PROGRESSIVE visuals.
    Static,
    /// Trees: MT_TREE_ST and MT_TREE_PM visuals (the multiple-usage objects).
    Trees,
    /// LOD billboards (MT_LOD), as meshes whether or not [`SceneOptions::lods`] is set.
    Lods,
    /// No visual, light or glow: only the collision, which [`crate::LevelFiles::to_scene`] adds
    /// when [`SceneOptions::collision`] is set (the CLI and `levelgeom-core` set it for this).
    Collision,
}

impl Only {
    /// Whether a visual of model type `t` is of this kind.
    pub fn keeps(self, t: u8) -> bool {
        match self {
            Only::Static => matches!(t, model_type::NORMAL | model_type::PROGRESSIVE),
            Only::Trees => matches!(t, model_type::TREE_ST | model_type::TREE_PM),
            Only::Lods => t == model_type::LOD,
            Only::Collision => false,
        }
    }
}

/// The centre of a LOD visual's billboard quads in glTF space (its pivot point).
fn lod_centre(v: &Visual) -> Option<[f32; 3]> {
    let pts: Vec<[f32; 3]> = v
        .lod_quads()?
        .iter()
        .flat_map(|q| q.iter().map(|lv| mirror(lv.pos)))
        .collect();
    (!pts.is_empty()).then(|| pivot::centre(&pts))
}

/// The centre of a visual's OGF_HEADER box in glTF space, when the box is finite.
fn header_centre(v: &Visual) -> Option<[f32; 3]> {
    let h = v.header()?;
    let pts = [mirror(h.bbox_min), mirror(h.bbox_max)];
    pts.iter()
        .flatten()
        .all(|c| c.is_finite())
        .then(|| pivot::centre(&pts))
}

/// Convert a level and its `level.geom` into a scene.
///
/// Levels of XRLC 4–12 are read through [`crate::flat`]; other unknown versions are refused
/// ([`SceneError::Version`]). Game textures are [`TextureSource::Unresolved`]
/// (`<prefix><name>.<ext>`); [`crate::resolve_textures`] links the ones
/// found in a textures folder.
///
/// The node tree: one root `level` holding the visuals no other visual lists (the sector roots),
/// their OGF_CHILDREN_L visuals below them, then the group nodes `lights` ([`crate::lights`]) and
/// `glows`; with [`SceneOptions::portals`] a hidden root `portals` ([`crate::portals`]). Nodes
/// `0..n` are the `n` visuals in file order unless [`SceneOptions::only`] leaves some out. Each
/// visual's node sits at its own pivot ([`crate::pivot`]) and carries the extras `visual`,
/// `model_type`, `shader_id`, `shader` and `sector` (see the README's extras contract).
pub fn to_scene(level: &Level, geom: &Geom, opts: &SceneOptions) -> Result<Scene, SceneError> {
    convert(level, geom, opts, false).map(|(scene, _)| scene)
}

/// [`to_scene`] with the primitives of the visuals' geometry ranges hollow
/// ([`levelgeom_scene::Primitive::hollow`]): each range checked (the same warnings for a bad
/// one) and its positions read once for the mesh's pivot and bounds, nothing decoded or
/// allocated for its vertices; the returned [`GeomSource`] decodes each when a writer asks
/// for it (the GLB writer, [`levelgeom_scene::PrimitiveSource`]), into the writer's buffer.
/// Filled, the scene is [`to_scene`]'s. Levels of XRLC 4–12 (read through a view made
/// here), LOD billboards and ranges whose declaration repeats a role get full primitives.
///
/// # Errors
/// As [`to_scene`].
pub fn to_hollow_scene<'g>(
    level: &'g Level,
    geom: &'g Geom,
    opts: &SceneOptions,
) -> Result<(Scene, GeomSource<'g>), SceneError> {
    convert(level, geom, opts, true)
}

/// [`to_scene`], or with `hollow` [`to_hollow_scene`].
fn convert<'g>(
    level: &'g Level,
    geom: &'g Geom,
    opts: &SceneOptions,
    hollow: bool,
) -> Result<(Scene, GeomSource<'g>), SceneError> {
    if let Some(v) = level.version().filter(|v| !crate::level::known_version(*v)) {
        return Err(SceneError::Version(v));
    }
    // XRLC 4–12 keep their buffers inside `level`: read them through the 13/14-shaped view
    // (made here, so its primitives are full ones)
    let flat = (level.is_old() && geom.vertex_buffers().is_none())
        .then(|| crate::flat::flatten(level))
        .transpose()
        .map_err(SceneError::View)?;
    let old_lights = level.old_lights();
    match &flat {
        Some(f) => {
            let (scene, _) = convert_view(&f.level, &f.geom, old_lights, &f.warnings, opts, false)?;
            Ok((scene, GeomSource::none()))
        }
        None => convert_view(level, geom, old_lights, &[], opts, hollow),
    }
}

/// [`convert`] of a level of XRLC 13/14 shape (`warnings` first: those of making it).
fn convert_view<'g>(
    level: &'g Level,
    geom: &'g Geom,
    old_lights: &[crate::level::OldLight],
    warnings: &[String],
    opts: &SceneOptions,
    hollow: bool,
) -> Result<(Scene, GeomSource<'g>), SceneError> {
    let shaders = level.shaders().unwrap_or(&[]);
    let visuals = level.visuals();
    let mut run = Run {
        geom,
        vbs: geom.vertex_buffers().ok_or(SceneError::NoBuffers)?,
        ibs: geom.index_buffers().ok_or(SceneError::NoBuffers)?,
        shaders,
        sectors: level.visual_sectors(),
        opts,
        materials: Materials::new(shaders, opts),
        built: HashMap::new(),
        shared: HashMap::new(),
        point: Vec::with_capacity(visuals.len()),
        hollow,
        source: GeomSource {
            ranges: Vec::new(),
            meshes: Vec::new(),
            vertex_light: opts.vertex_light,
        },
        known: Vec::new(),
    };
    let mut scene = Scene {
        name: opts.name.clone(),
        ..Scene::default()
    };
    scene.warnings.extend(warnings.iter().cloned());

    run.decode_ranges(&visuals);
    let mut node_of = Vec::with_capacity(visuals.len());
    for (i, v) in visuals.iter().enumerate() {
        let node = run.visual_node(&mut scene, i, v);
        node_of.push(scene.add_node(node));
    }
    let parent = link_children(&mut scene, &visuals, &node_of);
    let centres = pivot::place(&mut scene, &node_of, &parent, &run.point, &run.known);
    // each hollow primitive moved by its mesh's pivot as placed (the centre its positions
    // gave, unless the mesh was left in place)
    let mut source = run.source;
    for ((_, c), &m) in source.ranges.iter_mut().zip(&source.meshes) {
        *c = centres.get(m).copied().unwrap_or([0.0; 3]);
    }
    let keep = keep_only(&mut scene, opts.only, &node_of, &parent);
    if opts.only != Some(Only::Collision) {
        let roots = kept_roots(&keep, &parent);
        add_level_root(&mut scene, level, old_lights, roots, opts.only.is_none());
    }
    if opts.portals {
        portals::add_portals(&mut scene, level.portals());
    }
    if !opts.vertex_light {
        light_as_vector(&mut scene);
    }
    Ok((scene, source))
}

/// The materials of one conversion: one per used shader id, one texture per diffuse name.
struct Materials<'a> {
    shaders: &'a [ShaderEntry],
    names: Vec<String>,
    opts: &'a SceneOptions,
    of_shader: HashMap<u16, usize>,
    of_texture: HashMap<String, usize>,
}

impl<'a> Materials<'a> {
    fn new(shaders: &'a [ShaderEntry], opts: &'a SceneOptions) -> Self {
        Materials {
            shaders,
            names: names::material_names(shaders),
            opts,
            of_shader: HashMap::new(),
            of_texture: HashMap::new(),
        }
    }

    /// The material of shader id `sid`, added to `scene` on first use; `None` for id 0 and
    /// ids past the shader table.
    fn get(&mut self, scene: &mut Scene, sid: u16) -> Option<usize> {
        if sid == 0 {
            return None;
        }
        if let Some(&m) = self.of_shader.get(&sid) {
            return Some(m);
        }
        let entry = self.shaders.get(usize::from(sid))?;
        let name = self.names[usize::from(sid)].clone();
        let opts = self.opts;
        let texture = entry.diffuse().map(|t| {
            let stem = t.replace('\\', "/");
            *self.of_texture.entry(stem.clone()).or_insert_with(|| {
                scene.textures.push(Texture {
                    name: stem.clone(),
                    source: TextureSource::Unresolved {
                        uri: format!("{}{stem}.{}", opts.texture_prefix, opts.texture_extension),
                    },
                });
                scene.textures.len() - 1
            })
        });
        let mut extras = vec![("engine_shader".to_string(), entry.engine_shader())];
        for (k, t) in entry.textures().iter().enumerate() {
            extras.push((format!("texture_{k}"), t.clone()));
        }
        extras.push(("shader".to_string(), entry.text()));
        extras.push(("shader_id".to_string(), sid.to_string()));
        scene.materials.push(Material {
            name,
            texture,
            extras,
            ..Material::default()
        });
        self.of_shader.insert(sid, scene.materials.len() - 1);
        Some(scene.materials.len() - 1)
    }
}

/// How many batches [`Run::decode_ranges`] reserves the ranges in (the pool decodes one while
/// the next is reserved).
const RANGE_BATCHES: usize = 32;

/// The state of one [`to_scene`] run over the visuals.
struct Run<'a, 'g> {
    geom: &'g Geom,
    vbs: &'g [VertexBuffer],
    ibs: &'g [IndexData],
    shaders: &'a [ShaderEntry],
    sectors: Vec<Vec<u16>>,
    opts: &'a SceneOptions,
    materials: Materials<'a>,
    /// Primitives decoded ahead (or ranges checked ahead for hollow ones), by range
    /// ([`Run::decode_ranges`]).
    built: HashMap<Drawn, Result<Built<'g>, String>>,
    /// The mesh made of each range.
    shared: HashMap<Drawn, usize>,
    /// Each visual's pivot point, if it has one of its own ([`pivot::place`]).
    point: Vec<Option<[f32; 3]>>,
    /// Make hollow primitives of the ranges ([`to_hollow_scene`]).
    hollow: bool,
    /// The hollow primitives' source, filled as their meshes are made.
    source: GeomSource<'g>,
    /// The pivot of each hollow mesh, by mesh ([`pivot::place`]'s `known`).
    known: Vec<Option<[f32; 3]>>,
}

impl<'g> Run<'_, 'g> {
    /// Whether `--only` converts visuals of model type `t`.
    fn keeps(&self, t: u8) -> bool {
        self.opts.only.is_none_or(|o| o.keeps(t))
    }

    /// Decode the primitives of every distinct range in parallel (each from its own slice of
    /// its buffer); they are collected in visual order later, so the scene is the
    /// single-threaded one.
    fn decode_ranges(&mut self, visuals: &[&Visual]) {
        let mut todo: Vec<(Drawn, GContainer, Option<SlideWindow>)> = Vec::new();
        let mut seen: HashSet<Drawn> = HashSet::new();
        for v in visuals {
            let t = v.model_type().unwrap_or(u8::MAX);
            if let (Some(g), true) = (v.gcontainer(), self.keeps(t)) {
                let (window, _) = full_window(v, t, self.geom);
                let key = drawn(g, window, v.header().map_or(0, |h| h.shader_id));
                if seen.insert(key) {
                    todo.push((key, g, window));
                }
            }
        }
        let (vbs, ibs, geo) = (self.vbs, self.ibs, self.opts.geometry_only);
        if self.hollow {
            // nothing reserved: checked, then each range's positions-only pass (a buffer per
            // task) in parallel; a range that cannot promise its counts is decoded whole
            self.built = todo
                .par_iter()
                .map_init(Vec::new, |scratch, (key, g, window)| {
                    let built = range_of(vbs, ibs, g, *window, geo).map(|r| {
                        if r.repeated {
                            Built::Full(r.fill())
                        } else {
                            let (c, bounds) = r.pivot_and_bounds(scratch);
                            Built::Hollow(r, c, bounds)
                        }
                    });
                    (*key, built)
                })
                .collect();
            return;
        }
        // Checked and reserved on this thread, one batch after the other (reserving touches
        // most of the new pages: the page faults are here); each batch decoded in parallel
        // by the pool while the next is reserved.
        let batch = todo.len().div_ceil(RANGE_BATCHES).max(1);
        type Reserved<'g> = (Drawn, Result<(Range<'g>, Primitive), String>);
        let (to_fill, batches) = std::sync::mpsc::channel::<Vec<Reserved>>();
        self.built = std::thread::scope(|s| {
            let filler = s.spawn(move || {
                let mut built = HashMap::new();
                for ranges in batches {
                    built.par_extend(ranges.into_par_iter().map(|(key, range)| {
                        let prim = range.map(|(range, mut prim)| {
                            range.fill_into(&mut prim);
                            Built::Full(prim)
                        });
                        (key, prim)
                    }));
                }
                built
            });
            for chunk in todo.chunks(batch) {
                let ranges = chunk
                    .iter()
                    .map(|(key, g, window)| {
                        let range = range_of(vbs, ibs, g, *window, geo).map(|r| {
                            let prim = r.reserve();
                            (r, prim)
                        });
                        (*key, range)
                    })
                    .collect();
                if to_fill.send(ranges).is_err() {
                    break;
                }
            }
            drop(to_fill);
            filler
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
        });
    }

    /// The node of visual `i`, with its extras and mesh (added to `scene`).
    fn visual_node(&mut self, scene: &mut Scene, i: usize, v: &Visual) -> Node {
        let t = v.model_type().unwrap_or(u8::MAX);
        let sid = v.header().map_or(0, |h| h.shader_id);
        let mut node = Node {
            name: format!("visual_{i:04}_{}", model_type::name(t)),
            ..Node::default()
        };
        node.extras.push(("visual".into(), i.to_string()));
        node.extras
            .push(("model_type".into(), model_type::name(t).into()));
        node.extras.push(("shader_id".into(), sid.to_string()));
        if let Some(e) = self.shaders.get(usize::from(sid)).filter(|_| sid != 0) {
            node.extras.push(("shader".into(), e.text()));
        }
        if let Some(s) = self.sectors.get(i).filter(|s| !s.is_empty()) {
            let list: Vec<String> = s.iter().map(u16::to_string).collect();
            node.extras.push(("sector".into(), list.join(",")));
        }
        self.point.push(if t == model_type::LOD {
            lod_centre(v)
        } else {
            header_centre(v)
        });
        let only = self.opts.only;
        if let (Some(g), true) = (v.gcontainer(), self.keeps(t)) {
            node.mesh = self.range_mesh(scene, i, v, g);
            let is_tree = matches!(t, model_type::TREE_ST | model_type::TREE_PM);
            if is_tree && node.mesh.is_some() {
                if let Some(td) = v.treedef() {
                    node.matrix = tree_matrix(&td.xform);
                }
            }
        } else if t == model_type::LOD
            && self.keeps(t)
            && (self.opts.lods || only == Some(Only::Lods))
        {
            node.mesh = self.lod_mesh(scene, i, v, sid);
        }
        node
    }

    /// The mesh of visual `i`'s range `g`, shared by visuals that draw the same range with the
    /// same material (tree instances; the pivot is the same, being the range's own centre).
    fn range_mesh(
        &mut self,
        scene: &mut Scene,
        i: usize,
        v: &Visual,
        g: GContainer,
    ) -> Option<usize> {
        let t = v.model_type().unwrap_or(u8::MAX);
        let sid = v.header().map_or(0, |h| h.shader_id);
        let (window, warning) = full_window(v, t, self.geom);
        if let Some(why) = warning {
            scene.warnings.push(format!("visual {i}: {why}"));
        }
        let key = drawn(g, window, sid);
        if let Some(m) = self.shared.get(&key).copied() {
            return Some(m);
        }
        let built = self.built.remove(&key).unwrap_or_else(|| {
            range_of(self.vbs, self.ibs, &g, window, self.opts.geometry_only)
                .map(|r| Built::Full(r.fill()))
        });
        let mesh = scene.meshes.len();
        let prim = built.map(|b| match b {
            Built::Full(prim) => prim,
            Built::Hollow(range, c, bounds) => {
                let key = self.source.ranges.len();
                let hollow = range.hollow(key, bounds, self.opts.vertex_light);
                self.source.ranges.push((range, c));
                self.source.meshes.push(mesh);
                self.known.resize(mesh + 1, None);
                self.known[mesh] = Some(c);
                Primitive {
                    hollow: Some(hollow),
                    ..Primitive::default()
                }
            }
        });
        match prim {
            Ok(mut prim) => {
                prim.material = self.materials.get(scene, sid);
                let m = scene.add_mesh(Mesh {
                    name: format!("mesh_{i:04}"),
                    primitives: vec![prim],
                });
                self.shared.insert(key, m);
                Some(m)
            }
            Err(why) => {
                scene
                    .warnings
                    .push(format!("visual {i}: skipped its geometry: {why}"));
                None
            }
        }
    }

    /// The billboard mesh of LOD visual `i`, if it has one.
    fn lod_mesh(&mut self, scene: &mut Scene, i: usize, v: &Visual, sid: u16) -> Option<usize> {
        let mut prim = lod_primitive(v)?;
        prim.material = self.materials.get(scene, sid);
        // billboards through the tree's axis, chosen by view direction: both sides
        if let Some(m) = prim.material.and_then(|m| scene.materials.get_mut(m)) {
            m.double_sided = true;
        }
        Some(scene.add_mesh(Mesh {
            name: format!("lod_{i:04}"),
            primitives: vec![prim],
        }))
    }
}

/// The hierarchy: each visual gets its first parent; cycles and repeats are cut (with a
/// warning). Returns each visual's parent.
fn link_children(scene: &mut Scene, visuals: &[&Visual], node_of: &[usize]) -> Vec<Option<usize>> {
    let n = visuals.len();
    let mut parent: Vec<Option<usize>> = vec![None; n];
    for (i, v) in visuals.iter().enumerate() {
        for &c in v.children() {
            let c = c as usize;
            if c >= n || c == i || parent[c].is_some() {
                if c < n && parent[c].is_some() && parent[c] != Some(i) {
                    scene.warnings.push(format!(
                        "visual {c} has several parents; kept under visual {:?}",
                        parent[c]
                    ));
                }
                continue;
            }
            // refuse a link that would close a cycle
            let mut a = Some(i);
            let mut cyc = false;
            while let Some(x) = a {
                if x == c {
                    cyc = true;
                    break;
                }
                a = parent[x];
            }
            if cyc {
                scene
                    .warnings
                    .push(format!("visual {i} → {c} would make a cycle; cut"));
                continue;
            }
            parent[c] = Some(i);
            let cn = node_of[c];
            scene.nodes[node_of[i]].children.push(cn);
        }
    }
    parent
}

/// `--only`: keep the visuals of the kind that got a mesh, and their ancestors as group nodes
/// ([`compact`]). Returns which visuals are kept (all without `--only`).
fn keep_only(
    scene: &mut Scene,
    only: Option<Only>,
    node_of: &[usize],
    parent: &[Option<usize>],
) -> Vec<bool> {
    let mut keep = vec![only.is_none(); node_of.len()];
    if only.is_some() {
        for (i, &ni) in node_of.iter().enumerate() {
            if scene.nodes[ni].mesh.is_some() {
                let mut a = Some(i);
                while let Some(x) = a {
                    if std::mem::replace(&mut keep[x], true) {
                        break;
                    }
                    a = parent[x];
                }
            }
        }
        compact(scene, &keep);
    }
    keep
}

/// The node indices of the kept visuals without a parent, after [`compact`] (kept visuals in
/// order).
fn kept_roots(keep: &[bool], parent: &[Option<usize>]) -> Vec<usize> {
    let n = keep.len();
    let mut new_index = vec![usize::MAX; n];
    for (k, i) in (0..n).filter(|&i| keep[i]).enumerate() {
        new_index[i] = k;
    }
    (0..n)
        .filter(|&i| keep[i] && parent[i].is_none())
        .map(|i| new_index[i])
        .collect()
}

/// Add the root `level` over the visual roots `children`, and with `lights` the groups
/// `lights` and `glows`.
fn add_level_root(
    scene: &mut Scene,
    level: &Level,
    old_lights: &[crate::level::OldLight],
    mut children: Vec<usize>,
    lights: bool,
) {
    if lights {
        let first = scene.lights.len();
        children.extend(lights::add_lights(scene, level.lights()));
        // XRLC 4/5/8: the fields of the old record the 13/14 one has no place for
        for (l, o) in scene.lights[first..].iter_mut().zip(old_lights) {
            l.extras.extend(lights::old_tail_extras(o));
        }
        let shaders = level.shaders().unwrap_or(&[]);
        children.extend(lights::add_glows(scene, level.glows(), shaders));
    }
    let root = scene.add_node(Node {
        name: "level".into(),
        children,
        ..Node::default()
    });
    scene.roots.push(root);
}

/// Move the baked light out of `colors[0]`: it is not albedo (viewers multiply COLOR_0 into
/// the base colour, black where the light is 0), so it is kept as the custom attribute
/// `_LIGHT` instead ([`light_to_vector`] of every primitive).
fn light_as_vector(scene: &mut Scene) {
    for p in scene
        .meshes
        .iter_mut()
        .flat_map(|m| m.primitives.iter_mut())
    {
        light_to_vector(p);
    }
}

/// [`light_as_vector`] of one primitive.
fn light_to_vector(p: &mut Primitive) {
    if !p.colors.is_empty() {
        let light = p.colors.remove(0);
        p.vectors.push(("_LIGHT".into(), light));
    }
}

/// Keep only the visual nodes `keep[i]` (nodes `0..keep.len()` are the visuals, nothing else
/// exists yet), renumbering children; meshes are untouched (left-out visuals built none).
fn compact(scene: &mut Scene, keep: &[bool]) {
    let mut map = vec![None; scene.nodes.len()];
    let mut next = 0;
    for (i, m) in map.iter_mut().enumerate() {
        if keep.get(i).copied().unwrap_or(true) {
            *m = Some(next);
            next += 1;
        }
    }
    let nodes = std::mem::take(&mut scene.nodes);
    scene.nodes = nodes
        .into_iter()
        .enumerate()
        .filter(|(i, _)| map[*i].is_some())
        .map(|(_, mut node)| {
            node.children = node
                .children
                .iter()
                .filter_map(|&c| map.get(c).copied().flatten())
                .collect();
            node
        })
        .collect();
}
