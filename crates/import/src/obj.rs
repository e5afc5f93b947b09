//! Wavefront OBJ (+ MTL) reader over tobj. Conventions: see the crate docs.
//!
//! tobj does the parsing and the triangulation. Around it this module
//! * scans the text first, so that every index is checked against the data with its line
//!   number (tobj reports neither the line nor, for some bad indices, fails cleanly), numbers
//!   are checked, `l` elements are dropped, and a file where only some vertices have colours
//!   is read without colours (tobj would shift them onto the wrong vertices);
//! * hands tobj the `usemtl` names as its material list, so that material names survive
//!   without an MTL file (tobj drops names it did not find in a library);
//! * reads the MTL libraries itself (tobj's MTL parser can panic on short `Kd` lines).

use std::cell::Cell;
use std::io::{BufRead, Read};

use levelgeom_scene::{AlphaMode, Material, Mesh, Node, Primitive, Scene, Texture, TextureSource};

use crate::files::{safe_relative, stem, FileSource};
use crate::{ImportError, Imported, MeshOptions};

/// Material name the project's OBJ writer uses for primitives without a material; read back
/// as "no material".
pub const DEFAULT_MATERIAL: &str = "levelgeom_default";

/// The first line handed to tobj, so that it asks for our material list before any `usemtl`.
const SENTINEL: &str = "mtllib levelgeom-import-materials\n";

/// Read OBJ text. `file` names the file in errors and warnings, its stem names the scene and
/// the root node; `mtllib` libraries are read from `files` (paths that leave the folder are
/// refused with a warning).
///
/// # Errors
/// [`ImportError::Obj`] with the line: invalid UTF-8, a number that does not parse, an index
/// that is 0 or points past the data, anything tobj rejects.
pub fn read_obj(bytes: &[u8], file: &str, files: &dyn FileSource) -> Result<Imported, ImportError> {
    read_obj_with(bytes, file, files, &MeshOptions::default())
}

/// [`read_obj`] with `opts`: the triangles the faces make are counted (with their line)
/// against [`Limits::max_triangles`](crate::Limits) before tobj reads the file.
///
/// Line ends may be LF, CR LF or a lone CR (old Mac files): a CR not followed by LF ends a
/// line too, so such a file is not read as one long line.
///
/// # Errors
/// As [`read_obj`]; [`ImportError::Limit`] naming the line where the count passed the limit.
pub fn read_obj_with(
    bytes: &[u8],
    file: &str,
    files: &dyn FileSource,
    opts: &MeshOptions,
) -> Result<Imported, ImportError> {
    let text = obj_text(bytes, file)?;
    let mut warnings = Vec::new();
    let scan = prescan(&text, opts.limits.max_triangles as u64).map_err(|e| match e {
        ScanError::Bad(l, m) => obj_error(file, Some(l), m),
        ScanError::Limit { line, count, limit } => ImportError::Limit {
            file: file.to_string(),
            at: format!("line {line}"),
            what: "triangles of the faces".into(),
            count,
            limit,
            field: "max_triangles",
        },
    })?;
    warnings.extend(scan.warnings.iter().map(|w| format!("{file}: {w}")));
    let models = run_tobj(&text, &scan, file)?;
    let mtl = read_mtllibs(&scan, file, files, &mut warnings);

    let name = stem(file);
    let mut scene = Scene {
        name: name.clone(),
        ..Scene::default()
    };
    let mat_map = add_materials(&mut scene, &scan, &mtl, file, &mut warnings);
    let root = scene.add_node(Node {
        name,
        ..Node::default()
    });
    scene.roots.push(root);
    // which OBJ line each triangle came from: tobj emits the faces in file order, each fan
    // triangulated (k corners → k − 2 triangles), so triangle g of all models in order is
    // the g-th of the prescan's expanded face list — when the totals agree
    let total: u64 = models
        .iter()
        .map(|m| (m.mesh.indices.len() / 3) as u64)
        .sum();
    let mut objects = Objects {
        scene,
        root,
        file,
        mat_map,
        warnings,
        lines: (total == scan.triangles).then(|| FaceLines {
            faces: scan.faces.clone(),
            segments: Vec::new(),
        }),
        last_name: None,
    };
    let mut global = 0u64;
    for model in models {
        let model_start = global;
        global += (model.mesh.indices.len() / 3) as u64;
        objects.add(&model, model_start);
    }
    Ok(Imported {
        scene: objects.scene,
        warnings: objects.warnings,
        inputs: Vec::new(),
        obj_lines: objects.lines,
    })
}

/// An [`ImportError::Obj`] of `file`.
fn obj_error(file: &str, line: Option<usize>, message: String) -> ImportError {
    ImportError::Obj {
        file: file.to_string(),
        line,
        message,
    }
}

/// The OBJ text: UTF-8, with a lone CR ending a line (CR-only files would otherwise be one
/// line, and read as empty).
fn obj_text<'a>(bytes: &'a [u8], file: &str) -> Result<std::borrow::Cow<'a, str>, ImportError> {
    let text = std::str::from_utf8(bytes).map_err(|e| {
        let line = line_of(&bytes[..e.valid_up_to()]);
        obj_error(file, Some(line), "not UTF-8 text".into())
    })?;
    Ok(if text.contains('\r') {
        std::borrow::Cow::Owned(text.replace("\r\n", "\n").replace('\r', "\n"))
    } else {
        std::borrow::Cow::Borrowed(text)
    })
}

/// tobj over the scanned text, with our material list and a line-counting reader; its
/// errors name the line and the statement there (`text`: the file's text).
fn run_tobj(text: &str, scan: &Prescan, file: &str) -> Result<Vec<tobj::Model>, ImportError> {
    let tobj_materials: Vec<tobj::Material> = scan
        .materials
        .iter()
        .map(|name| tobj::Material {
            name: name.clone(),
            ..Default::default()
        })
        .collect();
    let asked = Cell::new(false);
    let mut reader = LineReader {
        data: scan.text.as_bytes(),
        pos: 0,
        newlines: 0,
    };
    let opts = tobj::LoadOptions {
        single_index: true,
        triangulate: true,
        ignore_points: true,
        ignore_lines: true,
    };
    let result = tobj::load_obj_buf(&mut reader, &opts, |_| {
        if asked.replace(true) {
            Ok((Vec::new(), Default::default()))
        } else {
            let map = scan
                .materials
                .iter()
                .enumerate()
                .map(|(i, n)| (n.clone(), i))
                .collect();
            Ok((tobj_materials.clone(), map))
        }
    });
    let (models, _) = result.map_err(|e| {
        // the sentinel line is line 1 of what tobj read
        let line = reader.newlines.saturating_sub(1).max(1);
        // tobj names no token: name the statement of that line (its first words)
        let statement: String = text
            .lines()
            .nth(line - 1)
            .unwrap_or("")
            .split_whitespace()
            .take(4)
            .collect::<Vec<_>>()
            .join(" ");
        let statement: String = statement.chars().take(60).collect();
        obj_error(file, Some(line), format!("{e} (in {statement:?})"))
    })?;
    Ok(models)
}

/// The materials of the MTL libraries the file names (the first of each name kept); a
/// library that cannot be read is a warning.
fn read_mtllibs(
    scan: &Prescan,
    file: &str,
    files: &dyn FileSource,
    warnings: &mut Vec<String>,
) -> Vec<MtlMaterial> {
    let mut mtl: Vec<MtlMaterial> = Vec::new();
    for (line, lib) in &scan.mtllibs {
        let rel = match safe_relative(lib) {
            Ok(r) => r,
            Err(e) => {
                warnings.push(format!("{file}: line {line}: mtllib {e}; not read"));
                continue;
            }
        };
        match files.read(&rel) {
            Ok(b) => {
                let (mats, w) = parse_mtl(&b);
                warnings.extend(w.into_iter().map(|w| format!("{rel}: {w}")));
                for m in mats {
                    if !mtl.iter().any(|o| o.name == m.name) {
                        mtl.push(m);
                    }
                }
            }
            Err(e) => warnings.push(format!(
                "{file}: line {line}: material library {rel:?} not read ({e}); materials keep only their names"
            )),
        }
    }
    mtl
}

/// The scene's materials in first-use order; returns the scene material of each `usemtl`
/// name (the default material's name maps back to `None`).
fn add_materials(
    scene: &mut Scene,
    scan: &Prescan,
    mtl: &[MtlMaterial],
    file: &str,
    warnings: &mut Vec<String>,
) -> Vec<Option<usize>> {
    let mut mat_map: Vec<Option<usize>> = Vec::with_capacity(scan.materials.len());
    for m in &scan.materials {
        if m == DEFAULT_MATERIAL {
            mat_map.push(None);
            continue;
        }
        let mut mat = Material {
            name: m.clone(),
            ..Material::default()
        };
        match mtl.iter().find(|x| &x.name == m) {
            Some(x) => {
                mat.base_color = [x.kd[0], x.kd[1], x.kd[2], x.d];
                mat.unlit = x.illum == Some(0);
                mat.alpha = if x.d < 1.0 {
                    AlphaMode::Blend
                } else if x.map_d {
                    AlphaMode::Mask(0.5)
                } else {
                    AlphaMode::Opaque
                };
                if let Some(uri) = &x.map_kd {
                    let t = match scene.textures.iter().position(
                        |t| matches!(&t.source, TextureSource::External { uri: u } if u == uri),
                    ) {
                        Some(t) => t,
                        None => {
                            scene.textures.push(Texture {
                                name: stem(uri),
                                source: TextureSource::External { uri: uri.clone() },
                            });
                            scene.textures.len() - 1
                        }
                    };
                    mat.texture = Some(t);
                }
            }
            None if !scan.mtllibs.is_empty() => warnings.push(format!(
                "{file}: material {m:?} is in no material library read; default values used"
            )),
            None => {}
        }
        scene.materials.push(mat);
        mat_map.push(Some(scene.materials.len() - 1));
    }
    mat_map
}

/// The scene being built from tobj's models: one node and mesh per object name (consecutive
/// models of one name share them), one primitive per material.
struct Objects<'a> {
    scene: Scene,
    root: usize,
    file: &'a str,
    /// The scene material of each tobj material.
    mat_map: Vec<Option<usize>>,
    warnings: Vec<String>,
    lines: Option<FaceLines>,
    last_name: Option<String>,
}

/// One tobj model's vertex attributes, checked: a set only some corners have is dropped.
struct Part {
    n: usize,
    positions: Vec<[f32; 3]>,
    uvs: Option<Vec<[f32; 2]>>,
    normals: Vec<[f32; 3]>,
    colours: Option<Vec<[f32; 4]>>,
}

impl Objects<'_> {
    /// Add `model` (its first triangle the `model_start`-th of the file's).
    fn add(&mut self, model: &tobj::Model, model_start: u64) {
        let m = &model.mesh;
        let n = m.positions.len() / 3;
        if m.indices.is_empty() || n == 0 {
            return;
        }
        let scene = &mut self.scene;
        if self.last_name.as_deref() != Some(model.name.as_str()) {
            let mesh = scene.add_mesh(Mesh {
                name: model.name.clone(),
                primitives: Vec::new(),
            });
            let node = scene.add_node(Node {
                name: model.name.clone(),
                mesh: Some(mesh),
                ..Node::default()
            });
            scene.nodes[self.root].children.push(node);
            self.last_name = Some(model.name.clone());
        }
        let mesh_index = scene.meshes.len() - 1;
        let label = format!("{}: object {:?}", self.file, model.name);
        let material = m
            .material_id
            .and_then(|i| self.mat_map.get(i).copied().flatten());
        let part = part(m, &label, &mut self.warnings);
        let prims = &mut scene.meshes[mesh_index].primitives;
        let pi = match prims.iter().position(|p| p.material == material) {
            Some(i) => i,
            None => {
                prims.push(Primitive {
                    material,
                    ..Primitive::default()
                });
                prims.len() - 1
            }
        };
        let p = &mut prims[pi];
        if let Some(l) = &mut self.lines {
            l.segments.push(Segment {
                mesh: mesh_index,
                primitive: pi,
                first: (p.indices.len() / 3) as u64,
                count: (m.indices.len() / 3) as u64,
                global: model_start,
            });
        }
        let base = p.positions.len() as u32;
        append(p, part, &label, &mut self.warnings);
        p.indices.extend(m.indices.iter().map(|&i| base + i));
    }
}

/// The vertex attributes of tobj mesh `m` (object `label`).
fn part(m: &tobj::Mesh, label: &str, warnings: &mut Vec<String>) -> Part {
    let n = m.positions.len() / 3;
    let positions: Vec<[f32; 3]> = m
        .positions
        .chunks_exact(3)
        .map(|c| [c[0], c[1], c[2]])
        .collect();
    let uvs: Option<Vec<[f32; 2]>> = match m.texcoords.len() {
        0 => None,
        l if l == 2 * n => Some(
            m.texcoords
                .chunks_exact(2)
                .map(|c| [c[0], (1.0 - f64::from(c[1])) as f32])
                .collect(),
        ),
        _ => {
            warnings.push(format!(
                "{label}: only some corners have texture coordinates; UVs dropped"
            ));
            None
        }
    };
    let normals: Vec<[f32; 3]> = match m.normals.len() {
        0 => Vec::new(),
        l if l == 3 * n => m
            .normals
            .chunks_exact(3)
            .map(|c| [c[0], c[1], c[2]])
            .collect(),
        _ => {
            warnings.push(format!(
                "{label}: only some corners have normals; normals dropped"
            ));
            Vec::new()
        }
    };
    let colours: Option<Vec<[f32; 4]>> = (m.vertex_color.len() == 3 * n).then(|| {
        m.vertex_color
            .chunks_exact(3)
            .map(|c| [c[0], c[1], c[2], 1.0])
            .collect()
    });
    Part {
        n,
        positions,
        uvs,
        normals,
        colours,
    }
}

/// Append a part's vertices to a primitive: an attribute present on one part only is
/// dropped (a warning naming `label`).
fn append(p: &mut Primitive, part: Part, label: &str, warnings: &mut Vec<String>) {
    let mut to = Appending {
        fresh: p.positions.is_empty(),
        old: p.positions.len(),
        n: part.n,
        label,
        warnings,
    };
    p.positions.extend_from_slice(&part.positions);
    to.merge_set(&mut p.uvs, part.uvs, "UVs");
    to.merge_set(&mut p.colors, part.colours, "colours");
    let (fresh, old, n) = (to.fresh, to.old, to.n);
    if fresh {
        p.normals = part.normals;
    } else if p.normals.len() == old && part.normals.len() == n {
        p.normals.extend_from_slice(&part.normals);
    } else if !p.normals.is_empty() || !part.normals.is_empty() {
        warnings.push(format!("{label}: normals on only some faces; dropped"));
        p.normals.clear();
    }
}

/// One part being appended to a primitive that had `old` vertices (`fresh`: none), `n` new.
struct Appending<'a> {
    fresh: bool,
    old: usize,
    n: usize,
    label: &'a str,
    warnings: &'a mut Vec<String>,
}

impl Appending<'_> {
    /// Append the part's set `new` to the primitive's first set (UVs or colours), dropping it
    /// when only some parts have it.
    fn merge_set<T: Copy>(&mut self, sets: &mut Vec<Vec<T>>, new: Option<Vec<T>>, what: &str) {
        if self.fresh {
            if let Some(v) = new {
                *sets = vec![v];
            }
            return;
        }
        match (sets.first_mut(), new) {
            (Some(s), Some(v)) if s.len() == self.old && v.len() == self.n => {
                s.extend_from_slice(&v)
            }
            (None, None) => {}
            _ => {
                self.warnings.push(format!(
                    "{}: {what} on only some faces; dropped",
                    self.label
                ));
                sets.clear();
            }
        }
    }
}

/// The OBJ line of each triangle of an OBJ file's scene ([`Imported::obj_lines`]), for errors
/// found after reading (a triangle outside a level's grid names its `f` line).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FaceLines {
    /// Per `f` statement with at least three corners, in file order: its line and the number
    /// of triangles before it.
    faces: Vec<(usize, u64)>,
    segments: Vec<Segment>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct Segment {
    mesh: usize,
    primitive: usize,
    /// First triangle of the part in the primitive, and how many.
    first: u64,
    count: u64,
    /// Its first triangle's number among all of the file's triangles.
    global: u64,
}

impl FaceLines {
    /// The 1-based line of the `f` statement that made triangle `triangle` of
    /// `meshes[mesh].primitives[primitive]`.
    pub fn line(&self, mesh: usize, primitive: usize, triangle: usize) -> Option<usize> {
        let t = triangle as u64;
        let seg = self.segments.iter().find(|s| {
            s.mesh == mesh && s.primitive == primitive && (s.first..s.first + s.count).contains(&t)
        })?;
        let g = seg.global + (t - seg.first);
        let k = self.faces.partition_point(|&(_, before)| before <= g);
        self.faces.get(k.checked_sub(1)?).map(|&(line, _)| line)
    }
}

/// A `BufRead` over bytes that counts the newlines consumed (tobj reads line by line, so on
/// an error the count is the line it failed on).
struct LineReader<'a> {
    data: &'a [u8],
    pos: usize,
    newlines: usize,
}

impl Read for LineReader<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let rest = &self.data[self.pos..];
        let n = rest.len().min(buf.len());
        buf[..n].copy_from_slice(&rest[..n]);
        self.consume(n);
        Ok(n)
    }
}

impl BufRead for LineReader<'_> {
    fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
        Ok(&self.data[self.pos..])
    }
    fn consume(&mut self, amt: usize) {
        let end = (self.pos + amt).min(self.data.len());
        self.newlines += self.data[self.pos..end]
            .iter()
            .filter(|&&b| b == b'\n')
            .count();
        self.pos = end;
    }
}

/// What the scan found, and the text handed to tobj (the sentinel line first, then one line
/// per input line: trimmed, `mtllib` and `l` lines blanked, colours stripped when partial).
struct Prescan {
    text: String,
    /// `f` statements of 3+ corners: line, triangles before it; and the triangles in all.
    faces: Vec<(usize, u64)>,
    triangles: u64,
    materials: Vec<String>,
    mtllibs: Vec<(usize, String)>,
    warnings: Vec<String>,
}

/// The 1-based line of the end of `bytes` (LF, CR LF or lone CR line ends).
fn line_of(bytes: &[u8]) -> usize {
    let mut line = 1;
    for (i, &b) in bytes.iter().enumerate() {
        if b == b'\n' || (b == b'\r' && bytes.get(i + 1) != Some(&b'\n')) {
            line += 1;
        }
    }
    line
}

/// Why [`prescan`] refused the text.
enum ScanError {
    /// A bad statement: its line and what is wrong.
    Bad(usize, String),
    /// The faces make more triangles than the limit (at `line`).
    Limit { line: usize, count: u64, limit: u64 },
}

impl From<(usize, String)> for ScanError {
    fn from((l, m): (usize, String)) -> ScanError {
        ScanError::Bad(l, m)
    }
}

/// Scan the OBJ lines; errors for bad numbers and indices (with their line) and for more
/// triangles than `max_triangles`.
fn prescan(text: &str, max_triangles: u64) -> Result<Prescan, ScanError> {
    let lines: Vec<&str> = text.lines().collect();
    let (mut nv, mut nvt, mut nvn, mut ncol) = (0usize, 0usize, 0usize, 0usize);
    let mut triangles = 0u64;
    let mut faces: Vec<(usize, u64)> = Vec::new();
    // positive indices past what was defined so far (forward references), per kind, in file
    // order with their line: checked against the totals at the end, the first bad one reported
    let mut forward: [Vec<(usize, usize)>; 3] = [Vec::new(), Vec::new(), Vec::new()];
    let mut materials: Vec<String> = Vec::new();
    let mut mtllibs = Vec::new();
    let mut warnings = Vec::new();
    let mut lines_dropped = 0usize;
    let mut out: Vec<String> = Vec::with_capacity(lines.len());
    for (i, raw) in lines.iter().enumerate() {
        let ln = i + 1;
        let line = raw.trim();
        let mut words = line.split_whitespace();
        let kw = words.next().unwrap_or("");
        let mut emit = line.to_string();
        match kw {
            "v" => {
                let vals: Vec<&str> = words.collect();
                for w in &vals {
                    if w.parse::<f32>().is_err() {
                        return Err((ln, format!("bad number {w:?} in a vertex")).into());
                    }
                }
                if vals.len() < 3 {
                    return Err((ln, format!("vertex with {} coordinates", vals.len())).into());
                }
                nv += 1;
                if vals.len() >= 6 {
                    ncol += 1;
                }
            }
            "vt" => nvt += 1,
            "vn" => nvn += 1,
            "f" => {
                let corners = line.split_whitespace().count().saturating_sub(1) as u64;
                if corners >= 3 {
                    faces.push((ln, triangles));
                }
                triangles += corners.saturating_sub(2);
                if triangles > max_triangles {
                    return Err(ScanError::Limit {
                        line: ln,
                        count: triangles,
                        limit: max_triangles,
                    });
                }
                for w in words {
                    for (k, part) in w.split('/').enumerate().take(3) {
                        if part.is_empty() {
                            continue;
                        }
                        let Ok(x) = part.parse::<i64>() else {
                            return Err(
                                (ln, format!("bad index {part:?} in face vertex {w:?}")).into()
                            );
                        };
                        let (count, what) = match k {
                            0 => (nv, "vertex"),
                            1 => (nvt, "texture coordinate"),
                            _ => (nvn, "normal"),
                        };
                        if x == 0 {
                            return Err((ln, format!("{what} index 0 (OBJ counts from 1)")).into());
                        }
                        if x < 0 {
                            if x.unsigned_abs() > count as u64 {
                                return Err((
                                    ln,
                                    format!("relative {what} index {x} before the first one ({count} so far)"),
                                )
                                    .into());
                            }
                        } else if x as u64 > count as u64 {
                            forward[k].push((usize::try_from(x).unwrap_or(usize::MAX), ln));
                        }
                    }
                }
            }
            "l" => {
                lines_dropped += 1;
                emit.clear();
            }
            "usemtl" => {
                let name = line["usemtl".len()..].trim();
                if !name.is_empty() {
                    if !materials.iter().any(|m| m == name) {
                        materials.push(name.to_string());
                    }
                    emit = format!("usemtl {name}");
                }
            }
            "mtllib" => {
                let name = line["mtllib".len()..].trim();
                if !name.is_empty() {
                    mtllibs.push((ln, name.to_string()));
                }
                emit.clear();
            }
            _ => {}
        }
        out.push(emit);
    }
    for (k, (count, what)) in [(nv, "vertex"), (nvt, "texture coordinate"), (nvn, "normal")]
        .into_iter()
        .enumerate()
    {
        // the first face (in file order) naming one past the end of the file
        if let Some(&(x, ln)) = forward[k].iter().find(|&&(x, _)| x > count) {
            return Err((
                ln,
                format!("{what} index {x} out of range (the file has {count})"),
            )
                .into());
        }
    }
    if lines_dropped > 0 {
        warnings.push(format!("{lines_dropped} line element(s) (l) skipped"));
    }
    if ncol > 0 && ncol != nv {
        warnings.push(format!(
            "only {ncol} of {nv} vertices have colours; colours ignored"
        ));
        for (i, raw) in lines.iter().enumerate() {
            let w: Vec<&str> = raw.split_whitespace().collect();
            if w.first() == Some(&"v") && w.len() >= 7 {
                out[i] = format!("v {} {} {}", w[1], w[2], w[3]);
            }
        }
    }
    let mut text = String::with_capacity(text.len() + SENTINEL.len() + 1);
    text.push_str(SENTINEL);
    for l in out {
        text.push_str(&l);
        text.push('\n');
    }
    Ok(Prescan {
        text,
        faces,
        triangles,
        materials,
        mtllibs,
        warnings,
    })
}

/// The MTL statements this reader uses.
struct MtlMaterial {
    name: String,
    kd: [f32; 3],
    d: f32,
    illum: Option<u32>,
    map_kd: Option<String>,
    map_d: bool,
}

/// Parse an MTL library (lenient: a bad statement is a warning and is ignored). Warnings
/// name lines and keywords, never the content (the file may not be an MTL at all).
fn parse_mtl(bytes: &[u8]) -> (Vec<MtlMaterial>, Vec<String>) {
    let text = String::from_utf8_lossy(bytes);
    let mut mats: Vec<MtlMaterial> = Vec::new();
    let mut warnings = Vec::new();
    let mut before_newmtl = 0usize;
    let mut first_before: Option<usize> = None;
    for (i, raw) in text.lines().enumerate() {
        let ln = i + 1;
        let line = raw.trim();
        let Some(kw) = line.split_whitespace().next() else {
            continue;
        };
        let rest = line[kw.len()..].trim();
        let nums =
            || -> Option<Vec<f32>> { rest.split_whitespace().map(|w| w.parse().ok()).collect() };
        if kw == "newmtl" {
            mats.push(MtlMaterial {
                name: rest.to_string(),
                kd: [1.0; 3],
                d: 1.0,
                illum: None,
                map_kd: None,
                map_d: false,
            });
            continue;
        }
        let Some(m) = mats.last_mut() else {
            if !kw.starts_with('#') {
                before_newmtl += 1;
                first_before.get_or_insert(ln);
            }
            continue;
        };
        match kw {
            "Kd" => match nums().as_deref() {
                Some([r, g, b, ..]) => m.kd = [*r, *g, *b],
                Some([v]) => m.kd = [*v; 3],
                _ => warnings.push(format!("line {ln}: bad Kd value; ignored")),
            },
            "d" => match nums().as_deref() {
                Some([v, ..]) => m.d = *v,
                _ => warnings.push(format!("line {ln}: bad d value; ignored")),
            },
            "Tr" => match nums().as_deref() {
                Some([v, ..]) => m.d = 1.0 - *v,
                _ => warnings.push(format!("line {ln}: bad Tr value; ignored")),
            },
            "illum" => m.illum = rest.parse().ok(),
            // options (`-o 0 0`, …) before the file name are not interpreted: the last word
            // is not safe either (names may hold spaces), so the whole rest is the path
            "map_Kd" if !rest.is_empty() => m.map_kd = Some(rest.to_string()),
            "map_d" if !rest.is_empty() => m.map_d = true,
            _ => {}
        }
    }
    if let Some(first) = first_before {
        warnings.push(if mats.is_empty() {
            format!("not a material library (no newmtl statement; {before_newmtl} other line(s) from line {first}); not used")
        } else {
            format!("{before_newmtl} statement(s) before the first newmtl (from line {first}) ignored")
        });
    }
    (mats, warnings)
}
