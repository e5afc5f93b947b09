//! Conversion of a `level` + `level.geom` into the engine-neutral [`Scene`] for export.
//!
//! * One mesh per visual with geometry (GCONTAINER into `level.geom`); progressive visuals at
//!   full detail (`sw[0]` of OGF_SWIDATA / the SWICONTAINER item).
//! * Trees (MT_TREE_ST/PM) that share one geometry range become one mesh in model space and one
//!   node per visual carrying its OGF_TREEDEF2 matrix.
//! * Hierarchy and LOD visuals become nodes whose children are their OGF_CHILDREN_L visuals;
//!   visuals nobody lists are roots. LOD billboards become meshes only with [`SceneOptions::lods`]
//!   (their material double-sided: the 8 quads stand in the tree's axis).
//! * Materials: one per shader-table entry used, named after the entry (`engine/tex0,tex1…`),
//!   with the diffuse texture referenced by name (`<tex0 with '/'>.<ext>`).
//! * Attributes: base UV → `uvs[0]`, lightmap UV → `uvs[1]`, the vertex "colour" — baked
//!   light, not albedo — → the custom attribute `_LIGHT` (RGBA; with
//!   [`SceneOptions::vertex_light`] `colors[0]` instead, for the baked look), hemi/sun → scalars
//!   `_HEMI`/`_SUN`, tree wind → `_WIND`; normals and tangents normalised.
//! * Space (spec §2.4): X-Ray is left-handed; every position, normal, tangent and matrix is
//!   mirrored in z (`(x, y, −z)`, matrices conjugated by `diag(1, 1, −1)`) and every triangle's
//!   winding reversed, so faces stay front faces in glTF's right-handed frame. UVs are not
//!   flipped (D3D and glTF share the top-left origin).

use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};

use levelgeom_scene::{Material, Mesh, Node, Primitive, Scene, Texture, TextureSource};

use crate::geom::{Geom, SlideWindow};
use crate::level::Level;
use crate::ogf::{model_type, GContainer, Visual};
use crate::vertex::Vertices;

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
    /// File extension appended to texture names in URIs (`dds` by default).
    pub texture_extension: String,
    /// Prefix put before texture URIs (e.g. a relative path to gamedata/textures).
    pub texture_prefix: String,
}

impl Default for SceneOptions {
    fn default() -> Self {
        SceneOptions {
            name: "level".into(),
            lods: false,
            vertex_light: false,
            collision: false,
            texture_extension: "dds".into(),
            texture_prefix: String::new(),
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

fn normalize(v: [f32; 3], fallback: [f32; 3]) -> [f32; 3] {
    let v = glam::Vec3::from_array(v);
    let l = v.length();
    if l > 1e-6 && l.is_finite() {
        (v / l).to_array()
    } else {
        fallback
    }
}

fn cross(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    glam::Vec3::from_array(a)
        .cross(glam::Vec3::from_array(b))
        .to_array()
}

fn dot(a: [f32; 3], b: [f32; 3]) -> f32 {
    glam::Vec3::from_array(a).dot(glam::Vec3::from_array(b))
}

/// Build one primitive from a buffer range; `None` with a reason when the range is bad.
fn primitive(
    verts: &Vertices,
    ib: &[u16],
    g: &GContainer,
    window: Option<SlideWindow>,
) -> Result<Primitive, String> {
    let vb0 = g.vb_offset as usize;
    let (idx_start, idx_len, nverts) = match window {
        Some(w) => (
            (g.ib_offset as usize).saturating_add(w.offset as usize),
            usize::from(w.num_tris) * 3,
            usize::from(w.num_verts).min(g.vb_count as usize),
        ),
        None => (
            g.ib_offset as usize,
            g.ib_count as usize,
            g.vb_count as usize,
        ),
    };
    if vb0.saturating_add(nverts) > verts.count {
        return Err(format!(
            "vertices {vb0}..{} outside the buffer's {}",
            vb0 + nverts,
            verts.count
        ));
    }
    let idx = ib
        .get(idx_start..idx_start.saturating_add(idx_len))
        .ok_or_else(|| {
            format!(
                "indices {idx_start}..+{idx_len} outside the buffer's {}",
                ib.len()
            )
        })?;
    if let Some(&bad) = idx.iter().find(|&&i| usize::from(i) >= nverts) {
        return Err(format!("index {bad} not below the {nverts} vertices used"));
    }
    let range = vb0..vb0 + nverts;
    let sl = |v: &[[f32; 3]]| v.get(range.clone()).map(<[_]>::to_vec).unwrap_or_default();
    let mut p = Primitive {
        positions: sl(&verts.positions).into_iter().map(mirror).collect(),
        ..Primitive::default()
    };
    if p.positions.len() != nverts {
        return Err("the vertex buffer has no FLOAT3 position".into());
    }
    let normals: Vec<[f32; 3]> = sl(&verts.normals)
        .into_iter()
        .map(|n| mirror(normalize(n, [0.0, 1.0, 0.0])))
        .collect();
    let tangents = sl(&verts.tangents);
    let binormals = sl(&verts.binormals);
    if tangents.len() == nverts && binormals.len() == nverts && normals.len() == nverts {
        p.tangents = (0..nverts)
            .map(|i| {
                let n = normals[i];
                let t = mirror(normalize(tangents[i], [1.0, 0.0, 0.0]));
                // Gram-Schmidt against the normal so glTF gets an orthogonal unit tangent
                let d = dot(n, t);
                let t = normalize([t[0] - n[0] * d, t[1] - n[1] * d, t[2] - n[2] * d], {
                    let a = if n[0].abs() < 0.9 {
                        [1.0, 0.0, 0.0]
                    } else {
                        [0.0, 1.0, 0.0]
                    };
                    normalize(cross(n, a), [1.0, 0.0, 0.0])
                });
                let b = mirror(binormals[i]);
                let w = if dot(cross(n, t), b) < 0.0 { -1.0 } else { 1.0 };
                [t[0], t[1], t[2], w]
            })
            .collect();
    }
    if normals.len() == nverts {
        p.normals = normals;
    }
    let uv = verts
        .uv
        .get(range.clone())
        .map(<[_]>::to_vec)
        .unwrap_or_default();
    if uv.len() == nverts {
        p.uvs.push(uv);
        let lm = verts
            .lightmap
            .get(range.clone())
            .map(<[_]>::to_vec)
            .unwrap_or_default();
        if lm.len() == nverts {
            p.uvs.push(lm);
        }
    }
    let colors = verts.colors.get(range.clone()).unwrap_or_default();
    if colors.len() == nverts {
        p.colors
            .push(colors.iter().map(|c| [c[0], c[1], c[2], 1.0]).collect());
    }
    let scalar = |v: &[f32]| {
        v.get(range.clone())
            .map(<[_]>::to_vec)
            .filter(|s| s.len() == nverts)
    };
    if let Some(h) = scalar(&verts.hemi) {
        p.scalars.push(("_HEMI".into(), h));
    }
    if let Some(s) = scalar(&verts.sun) {
        p.scalars.push(("_SUN".into(), s));
    }
    let wind: Vec<f32> = verts.wind.iter().map(|w| w[0]).collect();
    if let Some(w) = scalar(&wind) {
        p.scalars.push(("_WIND".into(), w));
    }
    p.indices = idx
        .chunks_exact(3)
        .flat_map(|t| [u32::from(t[0]), u32::from(t[2]), u32::from(t[1])])
        .collect();
    Ok(p)
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

/// Convert a level and its `level.geom` into a scene.
///
/// Levels of XRLC 4–12 are read through [`crate::flat`]; other unknown versions are refused
/// ([`SceneError::Version`]). Game textures are
/// [`TextureSource::Unresolved`] (`<prefix><name>.<ext>`); [`resolve_textures`] links the ones
/// found in a textures folder.
pub fn to_scene(level: &Level, geom: &Geom, opts: &SceneOptions) -> Result<Scene, SceneError> {
    if let Some(v) = level.version().filter(|v| !crate::level::known_version(*v)) {
        return Err(SceneError::Version(v));
    }
    // XRLC 4–12 keep their buffers inside `level`: read them through the 13/14-shaped view
    let flat =
        (level.is_old() && geom.vertex_buffers().is_none()).then(|| crate::flat::flatten(level));
    let (level, geom) = flat.as_ref().map_or((level, geom), |f| (&f.level, &f.geom));
    let vbs = geom.vertex_buffers().ok_or(SceneError::NoBuffers)?;
    let ibs = geom.index_buffers().ok_or(SceneError::NoBuffers)?;
    let decoded: Vec<Vertices> = vbs.iter().map(|vb| vb.decode()).collect();
    let shaders = level.shaders().unwrap_or(&[]);
    let visuals = level.visuals();
    let mut scene = Scene {
        name: opts.name.clone(),
        ..Scene::default()
    };
    scene
        .warnings
        .extend(flat.iter().flat_map(|f| f.warnings.iter().cloned()));

    // materials, one per used shader id
    let mut material_of: HashMap<u16, usize> = HashMap::new();
    let mut texture_of: HashMap<String, usize> = HashMap::new();
    let mut material = |scene: &mut Scene, sid: u16| -> Option<usize> {
        if sid == 0 {
            return None;
        }
        if let Some(&m) = material_of.get(&sid) {
            return Some(m);
        }
        let entry = shaders.get(usize::from(sid))?;
        let mut name = entry.text();
        if scene.materials.iter().any(|m| m.name == name) {
            name = format!("{name}#{sid}");
        }
        let texture = entry.diffuse().map(|t| {
            let stem = t.replace('\\', "/");
            *texture_of.entry(stem.clone()).or_insert_with(|| {
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
        scene.materials.push(Material {
            name,
            texture,
            extras,
            ..Material::default()
        });
        material_of.insert(sid, scene.materials.len() - 1);
        Some(scene.materials.len() - 1)
    };

    // one node per visual
    type Drawn = (GContainer, Option<(u32, u16, u16)>, u16);
    let mut shared: HashMap<Drawn, usize> = HashMap::new();
    let mut node_of = Vec::with_capacity(visuals.len());
    for (i, v) in visuals.iter().enumerate() {
        let h = v.header();
        let t = v.model_type().unwrap_or(u8::MAX);
        let sid = h.map_or(0, |h| h.shader_id);
        let mut node = Node {
            name: format!("visual_{i:04}_{}", model_type::name(t)),
            ..Node::default()
        };
        node.extras
            .push(("model_type".into(), model_type::name(t).into()));
        if let Some(e) = shaders.get(usize::from(sid)).filter(|_| sid != 0) {
            node.extras.push(("shader".into(), e.text()));
        }
        let is_tree = matches!(t, model_type::TREE_ST | model_type::TREE_PM);
        if let Some(g) = v.gcontainer() {
            // Progressive visuals draw one window of their index range; sw[0] is full
            // detail. xrLC puts MT_PROGRESSIVE windows inline (OGF_SWIDATA) and MT_TREE_PM
            // ones in level.geom (OGF_SWICONTAINER), but a TREE_PM variant with inline
            // SWIDATA exists (xray_re parse_lev), so either source is honoured for both.
            let progressive = matches!(t, model_type::PROGRESSIVE | model_type::TREE_PM);
            let mut items = v.swidata().into_iter().chain(
                v.swi_container()
                    .and_then(|si| geom.swis().get(si as usize)),
            );
            let window = match items.next() {
                Some(s) if progressive => match s.windows.first() {
                    Some(w) => Some(*w),
                    None => {
                        scene.warnings.push(format!(
                            "visual {i}: progressive visual without windows; exported whole"
                        ));
                        None
                    }
                },
                None if progressive => {
                    scene.warnings.push(format!(
                        "visual {i}: progressive visual without sliding windows; exported whole"
                    ));
                    None
                }
                _ => None,
            };
            // instances share a mesh when they draw the same range with the same material
            let key = (g, window.map(|w| (w.offset, w.num_tris, w.num_verts)), sid);
            let reuse = if is_tree {
                shared.get(&key).copied()
            } else {
                None
            };
            let mesh = match reuse {
                Some(m) => Some(m),
                None => {
                    let built = match (
                        decoded.get(g.vb_index as usize),
                        ibs.get(g.ib_index as usize),
                    ) {
                        (Some(vs), Some(ib)) => primitive(vs, ib, &g, window),
                        _ => Err(format!(
                            "buffer {} / {} does not exist",
                            g.vb_index, g.ib_index
                        )),
                    };
                    match built {
                        Ok(mut prim) => {
                            prim.material = material(&mut scene, sid);
                            let m = scene.add_mesh(Mesh {
                                name: format!("mesh_{i:04}"),
                                primitives: vec![prim],
                            });
                            if is_tree {
                                shared.insert(key, m);
                            }
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
            };
            node.mesh = mesh;
            if is_tree {
                if let Some(td) = v.treedef() {
                    node.matrix = tree_matrix(&td.xform);
                }
            }
        } else if t == model_type::LOD && opts.lods {
            if let Some(mut prim) = lod_primitive(v) {
                prim.material = material(&mut scene, sid);
                // billboards through the tree's axis, chosen by view direction: both sides
                if let Some(m) = prim.material.and_then(|m| scene.materials.get_mut(m)) {
                    m.double_sided = true;
                }
                node.mesh = Some(scene.add_mesh(Mesh {
                    name: format!("lod_{i:04}"),
                    primitives: vec![prim],
                }));
            }
        }
        node_of.push(scene.add_node(node));
    }

    // hierarchy: each visual gets its first parent; cycles and repeats are cut
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
    scene.roots = (0..n)
        .filter(|&i| parent[i].is_none())
        .map(|i| node_of[i])
        .collect();
    if !opts.vertex_light {
        // the baked light is not albedo: viewers multiply COLOR_0 into the base colour (black
        // where the light is 0), so it is kept as a custom attribute instead
        for p in scene
            .meshes
            .iter_mut()
            .flat_map(|m| m.primitives.iter_mut())
        {
            if !p.colors.is_empty() {
                let light = p.colors.remove(0);
                p.vectors.push(("_LIGHT".into(), light));
            }
        }
    }
    Ok(scene)
}

/// Why a texture name is never looked up on disk: it could name a file outside the textures
/// folder (absolute, a drive letter, `..`, an empty or `.` component).
fn unsafe_name(name: &str) -> Option<&'static str> {
    if name.is_empty() {
        return Some("the name is empty");
    }
    if name.starts_with('/') || name.starts_with('\\') {
        return Some("it is an absolute path");
    }
    if name.contains(':') {
        return Some("it has a drive letter or `:`");
    }
    if name.contains('\0') {
        return Some("it has a NUL byte");
    }
    for part in name.split(['/', '\\']) {
        match part {
            ".." => return Some("it has a `..` component"),
            "" | "." => return Some("it has an empty or `.` component"),
            _ => {}
        }
    }
    if Path::new(name)
        .components()
        .any(|c| !matches!(c, Component::Normal(_)))
    {
        return Some("it is not a plain relative path");
    }
    None
}

/// Find `name` (a game texture path with `/`) in `dir` with a usual image extension: PNG and
/// JPEG first (the formats glTF viewers read, e.g. converted copies), then the game's DDS/TGA.
/// The name is tried as written and lower-cased (game archives unpack to lower case).
fn find_texture(dir: &Path, name: &str) -> Option<PathBuf> {
    let lower = name.to_lowercase();
    let names: &[&str] = if lower == name {
        &[name]
    } else {
        &[name, &lower]
    };
    names.iter().find_map(|n| {
        ["png", "jpg", "jpeg", "dds", "tga"]
            .iter()
            .map(|ext| dir.join(format!("{n}.{ext}")))
            .find(|p| p.is_file())
    })
}

/// `target` as a path relative to the folder `base` (both made absolute first), with `/`
/// separators, so an export folder and its textures can be moved together; the absolute path
/// when no relative one exists (another drive).
fn relative_path(base: &Path, target: &Path) -> String {
    let abs = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    let (b, t) = (abs(base), abs(target));
    let bc: Vec<_> = b.components().collect();
    let tc: Vec<_> = t.components().collect();
    let common = bc.iter().zip(&tc).take_while(|(x, y)| x == y).count();
    if common == 0 {
        return t.to_string_lossy().replace('\\', "/");
    }
    let mut parts: Vec<String> = vec!["..".into(); bc.len() - common];
    parts.extend(
        tc[common..]
            .iter()
            .map(|c| c.as_os_str().to_string_lossy().into_owned()),
    );
    parts.join("/")
}

/// Link the game textures of `scene` (the [`TextureSource::Unresolved`] ones [`to_scene`]
/// makes) to the files found in `textures_dir`: a found file becomes
/// [`TextureSource::External`] with its path relative to `outdir` (`/` separators, not
/// percent-encoded); a missing one stays unresolved. Returns the warnings: one per missing
/// texture, one per name that is not looked up because it could leave `textures_dir`
/// (absolute, a drive letter, `..`, or a file that resolves outside it through a symlink),
/// and one when some textures were found only as DDS/TGA, which glTF viewers cannot read.
pub fn resolve_textures(scene: &mut Scene, textures_dir: &Path, outdir: &Path) -> Vec<String> {
    let mut warnings = Vec::new();
    let root = std::fs::canonicalize(textures_dir).ok();
    let mut not_gltf = Vec::new();
    for t in &mut scene.textures {
        if !matches!(t.source, TextureSource::Unresolved { .. }) {
            continue;
        }
        if let Some(why) = unsafe_name(&t.name) {
            warnings.push(format!(
                "texture {} is not looked up in the --textures folder: {why}",
                t.name
            ));
            continue;
        }
        let Some(root) = &root else {
            warnings.push(format!(
                "texture {} not found in the --textures folder",
                t.name
            ));
            continue;
        };
        let Some(found) = find_texture(textures_dir, &t.name) else {
            warnings.push(format!(
                "texture {} not found in the --textures folder",
                t.name
            ));
            continue;
        };
        match std::fs::canonicalize(&found) {
            Ok(real) if real.starts_with(root) => {}
            _ => {
                warnings.push(format!(
                    "texture {} resolves outside the --textures folder (through a link); not linked",
                    t.name
                ));
                continue;
            }
        }
        let ext = found
            .extension()
            .map(|e| e.to_string_lossy().to_lowercase());
        if !matches!(ext.as_deref(), Some("png" | "jpg" | "jpeg")) {
            not_gltf.push(t.name.clone());
        }
        t.source = TextureSource::External {
            uri: relative_path(outdir, &found),
        };
    }
    if let Some(first) = not_gltf.first() {
        let n = not_gltf.len();
        warnings.push(format!(
            "{n} texture{} found only as DDS/TGA ({first}{}), which glTF viewers cannot read; \
             put PNG copies beside {} to have those linked instead",
            if n == 1 { "" } else { "s" },
            if n == 1 { "" } else { ", …" },
            if n == 1 { "it" } else { "them" },
        ));
    }
    warnings
}
