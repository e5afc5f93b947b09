//! glTF 2.0 / GLB reader over the `gltf` crate's document model (its `import` feature is off:
//! buffers and images are resolved here). Conventions: see the crate docs.

use std::borrow::Cow;

use gltf::accessor::{DataType, Dimensions};
use gltf::mesh::{Mode, Semantic};
use levelgeom_scene::{
    AlphaMode, Material, Mesh, Node, Primitive, Scene, Texture, TextureSource, IDENTITY,
};

use crate::files::{data_uri, percent_decode, safe_relative, stem, FileSource};
use crate::{ImportError, Imported, MeshOptions};

mod deferred;
mod direct;
mod meshes;
mod partial;

pub(crate) use deferred::read_partial;
pub use deferred::{read_gltf_deferred, Deferred};
pub(crate) use partial::PartialGlb;

/// Most components an accessor without a bufferView (all zeros) may declare: there is no data
/// to check its count against.
const MAX_ZERO_COMPONENTS: usize = 1 << 26;

/// Read glTF JSON or GLB bytes (told apart by the GLB magic). `file` names the file in errors
/// and warnings, its stem names the scene when the glTF scene has no name; external buffers
/// and images (relative `uri`s, never leaving the folder) are read from `files`.
///
/// # Errors
/// [`ImportError::Gltf`] with the GLB part, JSON path or accessor: truncated GLB, bad JSON, a
/// document the `gltf` crate rejects (indices out of range, unsupported required extensions),
/// a buffer that is missing or shorter than its `byteLength`, a bufferView or accessor past
/// its data, attribute counts that differ, an index past the vertices.
pub fn read_gltf(
    bytes: &[u8],
    file: &str,
    files: &dyn FileSource,
) -> Result<Imported, ImportError> {
    read_gltf_with(bytes, file, files, &MeshOptions::default())
}

/// [`read_gltf`] with `opts`: the [`Limits`](crate::Limits) are checked before anything is
/// allocated (buffer bytes, accessor values, triangles and vertices of all primitives,
/// image pixels), and embedded images are decoded only when `opts.decode_images`.
///
/// # Errors
/// As [`read_gltf`]; [`ImportError::Limit`] naming the accessor or primitive, the count and
/// the limit.
pub fn read_gltf_with(
    bytes: &[u8],
    file: &str,
    files: &dyn FileSource,
    opts: &MeshOptions,
) -> Result<Imported, ImportError> {
    read_document(bytes, file, files, opts, false).map(|(imported, _)| imported)
}

/// [`read_gltf_with`], and with `defer` the attributes other than POSITION of a file whose
/// buffers are all the GLB's BIN chunk left unread ([`Attrs::Positions`]): the document is
/// returned then, for [`deferred::Deferred`] to read them later.
fn read_document(
    bytes: &[u8],
    file: &str,
    files: &dyn FileSource,
    opts: &MeshOptions,
    defer: bool,
) -> Result<(Imported, Option<gltf::Document>), ImportError> {
    let (document, warnings) = parse(bytes, file)?;
    let attrs = attrs_of(&document, bytes, defer);
    let imported = build(
        &document,
        FileBytes::Whole(bytes),
        file,
        files,
        opts,
        attrs,
        warnings,
    )?;
    Ok((imported, (attrs == Attrs::Positions).then_some(document)))
}

/// The attributes a read with `defer` reads first: [`Attrs::Positions`] only for a GLB whose
/// buffers are all its BIN chunk (nothing outside the file's own bytes is needed to finish).
fn attrs_of(doc: &gltf::Document, bytes: &[u8], defer: bool) -> Attrs {
    let glb = bytes.starts_with(b"glTF");
    if defer
        && glb
        && doc.buffers().len() > 0
        && doc
            .buffers()
            .all(|b| matches!(b.source(), gltf::buffer::Source::Bin))
    {
        Attrs::Positions
    } else {
        Attrs::All
    }
}

/// The document of glTF JSON or GLB `bytes` (its BIN chunk is not looked at), and the
/// warnings of reading it.
fn parse(bytes: &[u8], file: &str) -> Result<(gltf::Document, Vec<String>), ImportError> {
    let err = |path: &str, message: String| ImportError::Gltf {
        file: file.to_string(),
        path: path.to_string(),
        message,
    };
    let mut warnings = Vec::new();
    let (json, json_at) = if bytes.starts_with(b"glTF") {
        let (j, _) = split_glb(bytes, &mut warnings).map_err(|(p, m)| err(&p, m))?;
        (j, 20usize)
    } else {
        (bytes, 0usize)
    };
    // `Root::from_slice` is compiled once, in gltf-json; calling serde_json's generic
    // `from_slice::<Root>` here would compile the whole glTF schema's deserializer a second
    // time into this crate (the same function, the same `serde_json::Error`). Parsing the
    // accessors on a thread of their own beside the rest cost about what it saved on the
    // 2-core machine (docs/benchmarks.md, "Round 7 (glbdirect)"): not done
    let mut root = gltf::json::Root::from_slice(json).map_err(|e| {
        let at = json_at + json_offset(json, e.line(), e.column());
        let what = if json_at > 0 {
            format!("JSON chunk, at file offset 0x{at:08X}")
        } else {
            format!("JSON, at byte offset 0x{at:08X}")
        };
        err(&what, e.to_string())
    })?;
    prevalidate(&mut root, &mut warnings).map_err(|(p, m)| err(&p, m))?;
    let document = gltf::Document::from_json(root).map_err(|e| match e {
        gltf::Error::Validation(errs) => {
            let (p, first) = errs
                .first()
                .map(|(p, e)| (p.as_str().to_string(), e.to_string()))
                .unwrap_or_default();
            let more = if errs.len() > 1 {
                format!(" (and {} more problems)", errs.len() - 1)
            } else {
                String::new()
            };
            err(&p, format!("{first}{more}"))
        }
        e => err("document", e.to_string()),
    })?;
    Ok((document, warnings))
}

/// The bytes a document was parsed from: the whole file's, or a GLB read in part.
#[derive(Clone, Copy)]
enum FileBytes<'a> {
    Whole(&'a [u8]),
    Partial(&'a PartialGlb),
}

/// The scene of `doc` (parsed from `bytes` with `warnings` by [`parse`]), its primitives'
/// attributes as `attrs` says.
fn build(
    doc: &gltf::Document,
    bytes: FileBytes,
    file: &str,
    files: &dyn FileSource,
    opts: &MeshOptions,
    attrs: Attrs,
    warnings: Vec<String>,
) -> Result<Imported, ImportError> {
    let (bytes, glb) = match bytes {
        FileBytes::Whole(b) => (b, None),
        FileBytes::Partial(p) => (p.bytes(), Some(p)),
    };
    // split again for the BIN chunk (`parse` checked the layout and gave its warnings)
    let bin = if bytes.starts_with(b"glTF") {
        split_glb(bytes, &mut Vec::new()).ok().and_then(|(_, b)| b)
    } else {
        None
    };
    let buffers = load_buffers(doc, bin, file, files)?;
    let mut cx = Ctx {
        file,
        opts: *opts,
        triangles: 0,
        vertices: 0,
        buffers: &buffers,
        glb,
        warnings: warnings
            .into_iter()
            .map(|w| format!("{file}: {w}"))
            .collect(),
    };

    let mut scene = Scene {
        name: stem(file),
        ..Scene::default()
    };
    for tex in doc.textures() {
        let t = cx.texture(&tex)?;
        scene.textures.push(t);
    }
    for mat in doc.materials() {
        let i = mat.index().unwrap_or(scene.materials.len());
        scene.materials.push(cx.material(&mat, i));
    }
    scene.meshes = cx.meshes(doc, attrs)?;
    let mut skinned = false;
    for node in doc.nodes() {
        let i = node.index();
        let label = format!("nodes[{i}]");
        let cols = node.transform().matrix();
        let mut matrix = IDENTITY;
        for (c, col) in cols.iter().enumerate() {
            matrix[c * 4..c * 4 + 4].copy_from_slice(col);
        }
        if matrix.iter().any(|v| !v.is_finite()) {
            cx.warn(format!("{label}: non-finite transform; identity used"));
            matrix = IDENTITY;
        }
        skinned |= node.skin().is_some();
        let (extras, hidden) = cx.extras(node.extras(), &label, true);
        scene.nodes.push(Node {
            name: node
                .name()
                .map(str::to_string)
                .unwrap_or_else(|| format!("node_{i}")),
            mesh: node.mesh().map(|m| m.index()),
            matrix,
            children: node.children().map(|c| c.index()).collect(),
            hidden,
            extras,
            // lights are not geometry: an import keeps none
            light: None,
        });
    }
    if skinned {
        cx.warn("skins ignored: skinned meshes are read in their bind pose".into());
    }
    if doc.animations().next().is_some() {
        cx.warn("animations ignored".into());
    }
    match doc.default_scene().or_else(|| doc.scenes().next()) {
        Some(s) => {
            if let Some(n) = s.name() {
                scene.name = n.to_string();
            }
            scene.roots = s.nodes().map(|n| n.index()).collect();
        }
        None => {
            let mut has_parent = vec![false; scene.nodes.len()];
            for n in &scene.nodes {
                for &c in &n.children {
                    if let Some(h) = has_parent.get_mut(c) {
                        *h = true;
                    }
                }
            }
            scene.roots = (0..scene.nodes.len()).filter(|&i| !has_parent[i]).collect();
        }
    }
    Ok(Imported {
        scene,
        warnings: cx.warnings,
        inputs: Vec::new(),
        obj_lines: None,
    })
}

/// Which attributes of a primitive [`Ctx::attributes`] reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Attrs {
    /// Every attribute.
    All,
    /// POSITION only; the others are checked as reading them would check them (element
    /// counts, shapes, bytes within their bufferViews, the limits), warned about as reading
    /// them would warn, and left unread ([`deferred`]).
    Positions,
    /// Every attribute but POSITION, into a primitive read with [`Attrs::Positions`].
    Rest,
}

/// Checks the `gltf` crate's validation relies on before it runs (it indexes the POSITION
/// accessor unchecked), and the one leniency: a POSITION accessor without `min`/`max` (required
/// by glTF, unused here) is read with a warning instead of refused.
fn prevalidate(
    root: &mut gltf::json::Root,
    warnings: &mut Vec<String>,
) -> Result<(), (String, String)> {
    use gltf::json::validation::Checked;
    let n = root.accessors.len();
    let mut patch = Vec::new();
    for (mi, mesh) in root.meshes.iter().enumerate() {
        for (pi, prim) in mesh.primitives.iter().enumerate() {
            let Some(a) = prim.attributes.get(&Checked::Valid(Semantic::Positions)) else {
                continue;
            };
            let a = a.value();
            if a >= n {
                return Err((
                    format!("meshes[{mi}].primitives[{pi}].attributes.POSITION"),
                    format!("accessor {a} does not exist ({n} accessors)"),
                ));
            }
            patch.push(a);
        }
    }
    patch.sort_unstable();
    patch.dedup();
    for a in patch {
        let acc = &mut root.accessors[a];
        if acc.min.is_none() || acc.max.is_none() {
            warnings.push(format!(
                "accessors[{a}]: POSITION accessor without min/max (glTF requires them); read anyway"
            ));
            acc.min
                .get_or_insert_with(|| serde_json::json!([0.0, 0.0, 0.0]));
            acc.max
                .get_or_insert_with(|| serde_json::json!([0.0, 0.0, 0.0]));
        }
    }
    Ok(())
}

/// A GLB's JSON chunk and its BIN chunk, if any.
type GlbParts<'a> = (&'a [u8], Option<&'a [u8]>);

/// Split a GLB into its JSON chunk and optional BIN chunk; `Err((part, message))`.
fn split_glb<'a>(
    bytes: &'a [u8],
    warnings: &mut Vec<String>,
) -> Result<GlbParts<'a>, (String, String)> {
    let u32_at = |o: usize| -> Option<u32> {
        bytes
            .get(o..o + 4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    };
    let header = || "GLB header".to_string();
    let (Some(version), Some(length)) = (u32_at(4), u32_at(8)) else {
        return Err((
            header(),
            format!(
                "file is {} bytes, shorter than the 12-byte header",
                bytes.len()
            ),
        ));
    };
    if version != 2 {
        return Err((header(), format!("version {version}, only 2 is supported")));
    }
    let length = length as usize;
    if length > bytes.len() {
        return Err((
            header(),
            format!(
                "declares {length} bytes but the file has {} (truncated?)",
                bytes.len()
            ),
        ));
    }
    if length < 12 {
        return Err((
            header(),
            format!("declares {length} bytes, less than the header"),
        ));
    }
    if length < bytes.len() {
        warnings.push(format!(
            "{} bytes after the GLB's declared length ignored",
            bytes.len() - length
        ));
    }
    let data = &bytes[..length];
    let mut off = 12usize;
    let mut json = None;
    let mut bin = None;
    let mut k = 0usize;
    while off < length {
        let part = format!("GLB chunk {k} at 0x{off:08X}");
        let (Some(cl), Some(ty)) = (
            data.get(off..off + 4)
                .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize),
            data.get(off + 4..off + 8),
        ) else {
            return Err((part, "chunk header runs past the end of the file".into()));
        };
        let start = off + 8;
        let Some(payload) = start.checked_add(cl).and_then(|end| data.get(start..end)) else {
            return Err((
                part,
                format!(
                    "declared length {cl} runs past the end of the file ({} bytes left)",
                    length - start
                ),
            ));
        };
        match (k, ty) {
            (0, b"JSON") => json = Some(payload),
            (0, _) => return Err((part, "first chunk is not JSON".into())),
            (1, b"BIN\0") => bin = Some(payload),
            _ => warnings.push(format!("{part}: chunk type {ty:?} ignored")),
        }
        off = start + cl;
        k += 1;
    }
    match json {
        Some(j) => Ok((j, bin)),
        None => Err((header(), "no JSON chunk".into())),
    }
}

/// The glTF buffers of `doc`: the GLB's BIN chunk `bin` borrowed from the file's bytes (read
/// once, never copied), other buffers (data URIs, files in `files`) owned; each cut to its
/// `byteLength`.
fn load_buffers<'a>(
    doc: &gltf::Document,
    bin: Option<&'a [u8]>,
    file: &str,
    files: &dyn FileSource,
) -> Result<Vec<Cow<'a, [u8]>>, ImportError> {
    let err = |path: String, message: String| ImportError::Gltf {
        file: file.to_string(),
        path,
        message,
    };
    let mut buffers = Vec::new();
    for b in doc.buffers() {
        let path = format!("buffers[{}]", b.index());
        let data: Cow<'a, [u8]> = match b.source() {
            gltf::buffer::Source::Bin => match bin {
                Some(d) => Cow::Borrowed(d),
                None => {
                    return Err(err(
                        path,
                        "has no uri and there is no GLB BIN chunk to refer to".into(),
                    ))
                }
            },
            gltf::buffer::Source::Uri(uri) => Cow::Owned(match data_uri(uri) {
                Some(Ok((_, d))) => d,
                Some(Err(e)) => return Err(err(path + ".uri", e)),
                None => {
                    let rel = safe_relative(&percent_decode(uri))
                        .map_err(|e| err(format!("{path}.uri"), e))?;
                    files
                        .read(&rel)
                        .map_err(|e| err(format!("{path}.uri"), e))?
                }
            }),
        };
        let len = b.length();
        if data.len() < len {
            return Err(err(
                path,
                format!("byteLength is {len} but the data has {} bytes", data.len()),
            ));
        }
        buffers.push(match data {
            Cow::Borrowed(d) => Cow::Borrowed(&d[..len]),
            Cow::Owned(mut d) => {
                d.truncate(len);
                Cow::Owned(d)
            }
        });
    }
    Ok(buffers)
}

struct Ctx<'a> {
    file: &'a str,
    opts: MeshOptions,
    /// Triangles and vertices of the primitives read so far (checked against the limits).
    triangles: u64,
    vertices: u64,
    /// The glTF buffers ([`load_buffers`]), shared by the contexts reading meshes in parallel.
    buffers: &'a [Cow<'a, [u8]>],
    /// The GLB read in part whose BIN chunk `buffers` holds only as far as it was fetched:
    /// the accessors [`direct`] names are read from its file instead.
    glb: Option<&'a PartialGlb>,
    warnings: Vec<String>,
}

/// An accessor checked by [`Ctx::layout`]: its components per element, its elements, and its
/// bufferView's bytes with the stride (none: all zeros).
struct Layout<'s> {
    comps: usize,
    count: usize,
    data: Option<(&'s [u8], usize)>,
}

/// An accessor's elements as floats (normalized integers already divided), flattened.
struct Values {
    data: Vec<f32>,
    comps: usize,
}

impl Values {
    /// VEC3 or VEC4 elements as 4-vectors, a missing fourth component 1 (opaque colour).
    fn vec4s(&self) -> Vec<[f32; 4]> {
        if self.comps == 3 {
            self.data
                .chunks_exact(3)
                .map(|c| [c[0], c[1], c[2], 1.0])
                .collect()
        } else {
            self.data
                .chunks_exact(4)
                .map(|c| [c[0], c[1], c[2], c[3]])
                .collect()
        }
    }
}

impl<'a> Ctx<'a> {
    fn err(&self, path: impl Into<String>, message: impl Into<String>) -> ImportError {
        ImportError::Gltf {
            file: self.file.to_string(),
            path: path.into(),
            message: message.into(),
        }
    }

    fn io(&self, source: std::io::Error) -> ImportError {
        ImportError::Io {
            file: self.file.to_string(),
            source,
        }
    }

    fn warn(&mut self, w: String) {
        self.warnings.push(format!("{}: {w}", self.file));
    }

    fn limit(
        &self,
        at: impl Into<String>,
        what: &str,
        count: u64,
        limit: u64,
        field: &'static str,
    ) -> ImportError {
        ImportError::Limit {
            file: self.file.to_string(),
            at: at.into(),
            what: what.into(),
            count,
            limit,
            field,
        }
    }

    /// An empty vector with room for `n` elements of `elem` bytes: refused over
    /// `Limits::max_decoded` bytes, reserved fallibly.
    fn reserve<T>(&self, n: usize, elem: usize, at: At) -> Result<Vec<T>, ImportError> {
        self.within_decoded(n, elem, at)?;
        let bytes = (n as u64).saturating_mul(elem as u64);
        let max = self.opts.limits.max_decoded as u64;
        let mut v = Vec::new();
        v.try_reserve_exact(n).map_err(|_| {
            self.limit(
                at(),
                "decoded bytes (allocation failed)",
                bytes,
                max,
                "max_decoded",
            )
        })?;
        Ok(v)
    }

    /// `n` elements of `elem` bytes refused over `Limits::max_decoded` bytes (as
    /// [`Ctx::reserve`] refuses them, without reserving).
    fn within_decoded(&self, n: usize, elem: usize, at: At) -> Result<(), ImportError> {
        let bytes = (n as u64).saturating_mul(elem as u64);
        let max = self.opts.limits.max_decoded as u64;
        if bytes > max {
            return Err(self.limit(at(), "decoded bytes", bytes, max, "max_decoded"));
        }
        Ok(())
    }

    /// The bytes of a bufferView, checked against its buffer.
    fn view<'s>(&'s self, v: &gltf::buffer::View) -> Result<&'s [u8], ImportError> {
        let path = || format!("bufferViews[{}]", v.index());
        let buf = self
            .buffers
            .get(v.buffer().index())
            .ok_or_else(|| self.err(path(), "buffer not loaded"))?;
        v.offset()
            .checked_add(v.length())
            .and_then(|end| buf.get(v.offset()..end))
            .ok_or_else(|| {
                self.err(
                    path(),
                    format!(
                        "bytes {}..{}+{} are past the end of buffer {} ({} bytes)",
                        v.offset(),
                        v.offset(),
                        v.length(),
                        v.buffer().index(),
                        buf.len()
                    ),
                )
            })
    }

    /// An accessor of tightly read `f32` elements of `N` components (no sparse part, not
    /// normalized) straight into `N`-arrays, one pass over its bytes; `None` for any other
    /// accessor, which [`Ctx::values`] reads. Checked as `values` checks. With `direct` (the
    /// accessor is one [`direct::position`] names) the elements of a GLB read in part are
    /// read from its file into the arrays.
    fn f32_arrays<const N: usize>(
        &self,
        acc: &gltf::Accessor,
        direct: bool,
    ) -> Result<Option<Vec<[f32; N]>>, ImportError> {
        let comps = match acc.dimensions() {
            Dimensions::Scalar => 1,
            Dimensions::Vec2 => 2,
            Dimensions::Vec3 => 3,
            Dimensions::Vec4 => 4,
            _ => 0,
        };
        let Some(v) = acc.view() else {
            return Ok(None);
        };
        if comps != N || acc.data_type() != DataType::F32 || acc.sparse().is_some() {
            return Ok(None);
        }
        let elem = 4 * N;
        let stride = v.stride().unwrap_or(elem);
        let bytes = self.view(&v)?;
        let count = acc.count();
        let fits = stride >= elem
            && (count == 0
                || (count - 1)
                    .checked_mul(stride)
                    .and_then(|x| x.checked_add(elem))
                    .and_then(|x| x.checked_add(acc.offset()))
                    .is_some_and(|n| n <= bytes.len()));
        if !fits {
            // `values` names the problem
            return Ok(None);
        }
        if count == 0 {
            // nothing to read (its byteOffset may even lie past the view)
            return Ok(Some(Vec::new()));
        }
        let mut out: Vec<[f32; N]> = self.reserve(count, elem, &|| accessor_path(acc))?;
        if let Some(glb) = self.glb.filter(|_| direct) {
            out.resize(count, [0.0; N]);
            let into = bytemuck::cast_slice_mut(out.as_flattened_mut());
            glb.read_bin(v.offset() + acc.offset(), into)
                .map_err(|e| self.io(e))?;
            return Ok(Some(out));
        }
        let data = &bytes[acc.offset()..];
        let element = |e: &[u8]| -> [f32; N] {
            std::array::from_fn(|c| {
                f32::from_le_bytes([e[4 * c], e[4 * c + 1], e[4 * c + 2], e[4 * c + 3]])
            })
        };
        if stride == elem {
            out.extend(data[..count * elem].chunks_exact(elem).map(element));
        } else {
            out.extend((0..count).map(|e| element(&data[e * stride..e * stride + elem])));
        }
        Ok(Some(out))
    }

    /// An accessor's shape and bytes, checked: a type `values` reads, every element within
    /// its bufferView (or, without one, not too many zeros).
    fn layout<'s>(&'s self, acc: &gltf::Accessor) -> Result<Layout<'s>, ImportError> {
        let path = || accessor_path(acc);
        let comps = match acc.dimensions() {
            Dimensions::Scalar => 1,
            Dimensions::Vec2 => 2,
            Dimensions::Vec3 => 3,
            Dimensions::Vec4 => 4,
            d => return Err(self.err(path(), format!("type {d:?} is not supported here"))),
        };
        let elem = comps * comp_size(acc.data_type());
        let count = acc.count();
        let data = match acc.view() {
            Some(v) => {
                let bytes = self.view(&v)?;
                let stride = v.stride().unwrap_or(elem);
                if stride < elem {
                    return Err(self.err(
                        path(),
                        format!("byteStride {stride} is less than the element size {elem}"),
                    ));
                }
                let need = if count == 0 {
                    Some(0)
                } else {
                    (count - 1)
                        .checked_mul(stride)
                        .and_then(|x| x.checked_add(elem))
                        .and_then(|x| x.checked_add(acc.offset()))
                };
                match need {
                    Some(n) if n <= bytes.len() => {}
                    _ => {
                        return Err(self.err(
                            path(),
                            format!(
                                "{count} elements of {elem} bytes (stride {stride}) from byteOffset {} run past bufferView {} ({} bytes)",
                                acc.offset(),
                                v.index(),
                                bytes.len()
                            ),
                        ))
                    }
                }
                Some((bytes, stride))
            }
            None => {
                if count.saturating_mul(comps) > MAX_ZERO_COMPONENTS {
                    return Err(self.err(
                        path(),
                        format!("count {count} without a bufferView is too large"),
                    ));
                }
                None
            }
        };
        Ok(Layout { comps, count, data })
    }

    /// Read an accessor's elements as floats (sparse substitution applied).
    fn values(&self, acc: &gltf::Accessor) -> Result<Values, ImportError> {
        let Layout { comps, count, data } = self.layout(acc)?;
        let path = || accessor_path(acc);
        let ct = acc.data_type();
        let csize = comp_size(ct);
        let elem = comps * csize;
        let norm = acc.normalized();
        let mut data = match data {
            Some((bytes, stride)) => {
                let mut out = self.reserve(count.saturating_mul(comps), 4, &path)?;
                for e in 0..count {
                    let base = acc.offset() + e * stride;
                    for c in 0..comps {
                        let o = base + c * csize;
                        out.push(component(ct, &bytes[o..o + csize], norm));
                    }
                }
                out
            }
            None => {
                let mut out = self.reserve(count * comps, 4, &path)?;
                out.resize(count * comps, 0.0);
                out
            }
        };
        if let Some(sp) = acc.sparse() {
            let sp_path = format!("{}.sparse", path());
            let n = sp.count();
            if n > count {
                return Err(self.err(
                    &sp_path,
                    format!("count {n} exceeds the accessor's {count}"),
                ));
            }
            let ind = sp.indices();
            let ict = match ind.index_type() {
                gltf::accessor::sparse::IndexType::U8 => DataType::U8,
                gltf::accessor::sparse::IndexType::U16 => DataType::U16,
                gltf::accessor::sparse::IndexType::U32 => DataType::U32,
            };
            let isz = comp_size(ict);
            let ibytes = self.view(&ind.view())?;
            let vals = sp.values();
            let vbytes = self.view(&vals.view())?;
            let ok_i = n
                .checked_mul(isz)
                .and_then(|x| x.checked_add(ind.offset()))
                .is_some_and(|x| x <= ibytes.len());
            let ok_v = n
                .checked_mul(elem)
                .and_then(|x| x.checked_add(vals.offset()))
                .is_some_and(|x| x <= vbytes.len());
            if !ok_i || !ok_v {
                return Err(self.err(
                    &sp_path,
                    format!("{n} sparse indices or values run past their bufferViews"),
                ));
            }
            for s in 0..n {
                let io = ind.offset() + s * isz;
                let target = component(ict, &ibytes[io..io + isz], false) as usize;
                if target >= count {
                    return Err(self.err(
                        &sp_path,
                        format!("index {target} is past the accessor's {count} elements"),
                    ));
                }
                for c in 0..comps {
                    let o = vals.offset() + s * elem + c * csize;
                    data[target * comps + c] = component(ct, &vbytes[o..o + csize], norm);
                }
            }
        }
        Ok(Values { data, comps })
    }

    /// Read one mesh: its primitives of TRIANGLES with a POSITION, counted against the limits.
    fn mesh(&mut self, mesh: &gltf::Mesh, attrs: Attrs) -> Result<Mesh, ImportError> {
        let mi = mesh.index();
        let mut out = Mesh {
            name: mesh
                .name()
                .map(str::to_string)
                .unwrap_or_else(|| format!("mesh_{mi}")),
            primitives: Vec::new(),
        };
        for prim in mesh.primitives() {
            let path = format!("meshes[{mi}].primitives[{}]", prim.index());
            if prim.mode() != Mode::Triangles {
                self.warn(format!(
                    "{path}: mode {:?} skipped (only TRIANGLES is read)",
                    prim.mode()
                ));
                continue;
            }
            if prim.morph_targets().next().is_some() {
                self.warn(format!("{path}: morph targets ignored"));
            }
            let Some(pos_acc) = prim.get(&Semantic::Positions) else {
                self.warn(format!("{path}: no POSITION; skipped"));
                continue;
            };
            let n = pos_acc.count();
            self.count_primitive(&prim, &pos_acc, &path)?;
            let mut p = Primitive {
                material: prim.material().index(),
                ..Primitive::default()
            };
            self.attributes(&prim, n, &path, &mut p, attrs)?;
            p.indices = self.primitive_indices(&prim, n, &path)?;
            if p.indices.len() % 3 != 0 {
                self.warn(format!(
                    "{path}: {} indices is not a multiple of 3; the last {} dropped",
                    p.indices.len(),
                    p.indices.len() % 3
                ));
                p.indices.truncate(p.indices.len() / 3 * 3);
            }
            out.primitives.push(p);
        }
        Ok(out)
    }

    /// Add the primitive's triangles and vertices to the file's counts, refused past
    /// the `max_triangles` limit.
    fn count_primitive(
        &mut self,
        prim: &gltf::Primitive,
        pos_acc: &gltf::Accessor,
        path: &str,
    ) -> Result<(), ImportError> {
        let n = pos_acc.count();
        let (tris, verts) = meshes::primitive_counts(prim, pos_acc);
        self.triangles = self.triangles.saturating_add(tris);
        self.vertices = self.vertices.saturating_add(verts);
        let (max_triangles, max_vertices) = meshes::caps(&self.opts.limits);
        if self.triangles > max_triangles {
            let at = match prim.indices() {
                Some(a) => format!(
                    "{path}.indices (accessors[{}] count {})",
                    a.index(),
                    a.count()
                ),
                None => format!(
                    "{path}.attributes.POSITION (accessors[{}] count {n})",
                    pos_acc.index()
                ),
            };
            return Err(self.limit(
                at,
                "triangles of the file's primitives",
                self.triangles,
                max_triangles,
                "max_triangles",
            ));
        }
        if self.vertices > max_vertices {
            return Err(self.limit(
                format!(
                    "{path}.attributes.POSITION (accessors[{}] count {n})",
                    pos_acc.index()
                ),
                "vertices of the file's primitives",
                self.vertices,
                max_vertices,
                "max_triangles (× 3 vertices)",
            ));
        }
        Ok(())
    }

    /// Read the primitive's attributes (`n` elements each) into `p`, those `attrs` names;
    /// skinning attributes and custom ones of other shapes are ignored with a warning.
    fn attributes(
        &mut self,
        prim: &gltf::Primitive,
        n: usize,
        path: &str,
        p: &mut Primitive,
        attrs: Attrs,
    ) -> Result<(), ImportError> {
        let mut uvs: Vec<(u32, Vec<[f32; 2]>)> = Vec::new();
        let mut colors: Vec<(u32, Vec<[f32; 4]>)> = Vec::new();
        for (sem, acc) in prim.attributes() {
            let apath = || format!("{path}.attributes.{}", semantic_name(&sem));
            if acc.count() != n {
                return Err(self.err(
                    apath(),
                    format!(
                        "accessor {} has {} elements, POSITION has {n}",
                        acc.index(),
                        acc.count()
                    ),
                ));
            }
            let want = |comps: &[usize], v: &Values| -> Result<(), ImportError> {
                if comps.contains(&v.comps) {
                    Ok(())
                } else {
                    Err(self.err(
                        apath(),
                        format!(
                            "accessor {} has {} components per element",
                            acc.index(),
                            v.comps
                        ),
                    ))
                }
            };
            let position = sem == Semantic::Positions;
            if attrs == Attrs::Positions && !position {
                self.check_attribute(&sem, &acc, &apath)?;
                match &sem {
                    Semantic::TexCoords(k) => uvs.push((*k, Vec::new())),
                    Semantic::Colors(k) => colors.push((*k, Vec::new())),
                    _ => {}
                }
                continue;
            }
            if attrs == Attrs::Rest && position {
                continue;
            }
            match &sem {
                Semantic::Positions => {
                    p.positions = match self.f32_arrays::<3>(&acc, direct::position(&acc))? {
                        Some(a) => a,
                        None => {
                            let v = self.values(&acc)?;
                            want(&[3], &v)?;
                            v.data.chunks_exact(3).map(|c| [c[0], c[1], c[2]]).collect()
                        }
                    };
                }
                Semantic::Normals => {
                    p.normals = match self.f32_arrays::<3>(&acc, false)? {
                        Some(a) => a,
                        None => {
                            let v = self.values(&acc)?;
                            want(&[3], &v)?;
                            v.data.chunks_exact(3).map(|c| [c[0], c[1], c[2]]).collect()
                        }
                    };
                }
                Semantic::Tangents => {
                    p.tangents = match self.f32_arrays::<4>(&acc, false)? {
                        Some(a) => a,
                        None => {
                            let v = self.values(&acc)?;
                            want(&[4], &v)?;
                            v.data
                                .chunks_exact(4)
                                .map(|c| [c[0], c[1], c[2], c[3]])
                                .collect()
                        }
                    };
                }
                Semantic::TexCoords(k) => {
                    let set = match self.f32_arrays::<2>(&acc, false)? {
                        Some(a) => a,
                        None => {
                            let v = self.values(&acc)?;
                            want(&[2], &v)?;
                            v.data.chunks_exact(2).map(|c| [c[0], c[1]]).collect()
                        }
                    };
                    uvs.push((*k, set));
                }
                Semantic::Colors(k) => {
                    let v = self.values(&acc)?;
                    want(&[3, 4], &v)?;
                    colors.push((*k, v.vec4s()));
                }
                Semantic::Extras(custom) => match acc.dimensions() {
                    Dimensions::Scalar => {
                        let v = self.values(&acc)?;
                        p.scalars.push((format!("_{custom}"), v.data));
                    }
                    // VEC4 as our exporter writes them (X-Ray `_LIGHT`), VEC3 with w = 1
                    Dimensions::Vec3 | Dimensions::Vec4 => {
                        let set = match self.f32_arrays::<4>(&acc, false)? {
                            Some(a) => a,
                            None => self.values(&acc)?.vec4s(),
                        };
                        p.vectors.push((format!("_{custom}"), set));
                    }
                    _ => {
                        self.warn(format!(
                            "{}: custom attribute is not SCALAR, VEC3 or VEC4; ignored",
                            apath()
                        ));
                    }
                },
                Semantic::Joints(_) | Semantic::Weights(_) => {
                    self.warn(format!("{}: skinning attribute ignored", apath()));
                }
            }
        }
        let uvs = self.contiguous_sets(uvs, path, "TEXCOORD");
        let colors = self.contiguous_sets(colors, path, "COLOR");
        // unread sets are no sets (never sets shorter than the positions)
        if attrs != Attrs::Positions {
            p.uvs = uvs;
            p.colors = colors;
        }
        Ok(())
    }

    /// Check an attribute that [`Attrs::Positions`] leaves unread as reading it would: its
    /// shape, its bytes ([`Ctx::layout`]) and decoded size; the warnings reading gives about
    /// attributes that are ignored.
    fn check_attribute(
        &mut self,
        sem: &Semantic,
        acc: &gltf::Accessor,
        apath: At,
    ) -> Result<(), ImportError> {
        let comps: &[usize] = match sem {
            Semantic::Positions | Semantic::Normals => &[3],
            Semantic::Tangents => &[4],
            Semantic::TexCoords(_) => &[2],
            Semantic::Colors(_) => &[3, 4],
            Semantic::Extras(_) => match acc.dimensions() {
                Dimensions::Scalar | Dimensions::Vec3 | Dimensions::Vec4 => &[1, 3, 4],
                _ => {
                    self.warn(format!(
                        "{}: custom attribute is not SCALAR, VEC3 or VEC4; ignored",
                        apath()
                    ));
                    return Ok(());
                }
            },
            Semantic::Joints(_) | Semantic::Weights(_) => {
                self.warn(format!("{}: skinning attribute ignored", apath()));
                return Ok(());
            }
        };
        let got = if acc.sparse().is_some() {
            // rare: read (and dropped) for its checks
            self.values(acc)?.comps
        } else {
            let l = self.layout(acc)?;
            self.within_decoded(l.count.saturating_mul(l.comps), 4, &|| accessor_path(acc))?;
            l.comps
        };
        if comps.contains(&got) {
            Ok(())
        } else {
            Err(self.err(
                apath(),
                format!("accessor {} has {got} components per element", acc.index()),
            ))
        }
    }

    /// The primitive's triangle indices (`0..n` without an index accessor), checked against
    /// its `n` vertices.
    fn primitive_indices(
        &self,
        prim: &gltf::Primitive,
        n: usize,
        path: &str,
    ) -> Result<Vec<u32>, ImportError> {
        Ok(match prim.indices() {
            None => {
                let Ok(n32) = u32::try_from(n) else {
                    return Err(self.err(path, "too many vertices"));
                };
                (0..n32).collect()
            }
            Some(acc) => {
                let ipath = format!("{path}.indices");
                if acc.dimensions() != Dimensions::Scalar
                    || !matches!(
                        acc.data_type(),
                        DataType::U8 | DataType::U16 | DataType::U32
                    )
                {
                    return Err(self.err(
                        &ipath,
                        format!("accessor {} is not SCALAR u8/u16/u32", acc.index()),
                    ));
                }
                // indices are never normalized; read raw (the f32 conversion above
                // is exact only below 2^24, so read integers directly)
                let idx = self.indices(&acc)?;
                if let Some((k, &bad)) = idx.iter().enumerate().find(|(_, &i)| i as usize >= n) {
                    return Err(self.err(
                        format!("accessors[{}]", acc.index()),
                        format!("index {k} is {bad}, past the {n} vertices of {path}"),
                    ));
                }
                idx
            }
        })
    }

    /// Index accessor as u32 (bounds checked like [`Ctx::values`]; no sparse support needed
    /// beyond what `values` does, so sparse index accessors go through it).
    fn indices(&self, acc: &gltf::Accessor) -> Result<Vec<u32>, ImportError> {
        let path = || accessor_path(acc);
        if acc.sparse().is_some() || acc.view().is_none() {
            // rare: fall back to the float path, exact below 2^24
            let v = self.values(acc)?;
            return Ok(v.data.iter().map(|&f| f as u32).collect());
        }
        let Some(view) = acc.view() else {
            return Ok(Vec::new());
        };
        let bytes = self.view(&view)?;
        let csize = comp_size(acc.data_type());
        let stride = view.stride().unwrap_or(csize).max(csize);
        let count = acc.count();
        let need = if count == 0 {
            Some(0)
        } else {
            (count - 1)
                .checked_mul(stride)
                .and_then(|x| x.checked_add(csize))
                .and_then(|x| x.checked_add(acc.offset()))
        };
        if need.is_none_or(|n| n > bytes.len()) {
            return Err(self.err(
                path(),
                format!(
                    "{count} indices of {csize} bytes from byteOffset {} run past bufferView {} ({} bytes)",
                    acc.offset(),
                    view.index(),
                    bytes.len()
                ),
            ));
        }
        let mut out = self.reserve(count, 4, &path)?;
        if let (Some(glb), Some(width), true) = (self.glb, direct::indices(acc), count > 0) {
            let at = view.offset() + acc.offset();
            match width {
                direct::IndexWidth::U32 => {
                    out.resize(count, 0);
                    glb.read_bin(at, bytemuck::cast_slice_mut(&mut out))
                }
                direct::IndexWidth::U16 => read_u16s(glb, at, count, &mut out),
            }
            .map_err(|e| self.io(e))?;
            return Ok(out);
        }
        // one loop per index size (the size decided once, not per index)
        let at = |e: usize| acc.offset() + e * stride;
        match csize {
            1 => out.extend((0..count).map(|e| u32::from(bytes[at(e)]))),
            2 => out.extend((0..count).map(|e| {
                let o = at(e);
                u32::from(u16::from_le_bytes([bytes[o], bytes[o + 1]]))
            })),
            _ => out.extend((0..count).map(|e| {
                let o = at(e);
                u32::from_le_bytes([bytes[o], bytes[o + 1], bytes[o + 2], bytes[o + 3]])
            })),
        }
        Ok(out)
    }

    /// Attribute sets 0, 1, … in order; a set after a gap is dropped with a warning.
    fn contiguous_sets<T>(&mut self, mut sets: Vec<(u32, T)>, path: &str, what: &str) -> Vec<T> {
        sets.sort_by_key(|(k, _)| *k);
        let mut out = Vec::new();
        for (k, s) in sets {
            if k as usize == out.len() {
                out.push(s);
            } else {
                self.warn(format!(
                    "{path}: {what}_{k} ignored ({what}_{} is missing)",
                    out.len()
                ));
            }
        }
        out
    }

    fn material(&mut self, m: &gltf::Material, i: usize) -> Material {
        let label = format!("materials[{i}]");
        let pbr = m.pbr_metallic_roughness();
        let texture = pbr.base_color_texture().map(|t| {
            if t.tex_coord() != 0 {
                self.warn(format!(
                    "{label}: base colour texture uses TEXCOORD_{}; the scene assumes TEXCOORD_0",
                    t.tex_coord()
                ));
            }
            t.texture().index()
        });
        let (extras, _) = self.extras(m.extras(), &label, false);
        Material {
            name: m
                .name()
                .map(str::to_string)
                .unwrap_or_else(|| format!("material_{i}")),
            base_color: pbr.base_color_factor(),
            texture,
            double_sided: m.double_sided(),
            alpha: match m.alpha_mode() {
                gltf::material::AlphaMode::Opaque => AlphaMode::Opaque,
                gltf::material::AlphaMode::Mask => AlphaMode::Mask(m.alpha_cutoff().unwrap_or(0.5)),
                gltf::material::AlphaMode::Blend => AlphaMode::Blend,
            },
            unlit: m.unlit(),
            extras,
        }
    }

    fn texture(&mut self, t: &gltf::Texture) -> Result<Texture, ImportError> {
        let i = t.index();
        let img = t.source();
        let name = t
            .name()
            .or(img.name())
            .map(str::to_string)
            .unwrap_or_else(|| format!("texture_{i}"));
        let label = format!("images[{}]", img.index());
        let embedded: Option<Vec<u8>> = match img.source() {
            gltf::image::Source::View { view, .. } if self.opts.decode_images => {
                Some(self.view(&view)?.to_vec())
            }
            gltf::image::Source::View { .. } => None,
            gltf::image::Source::Uri { uri, .. } => match data_uri(uri) {
                Some(Ok((_, b))) => Some(b),
                Some(Err(e)) => {
                    self.warn(format!("{label}: {e}; texture left unresolved"));
                    return Ok(Texture {
                        source: TextureSource::Unresolved { uri: name.clone() },
                        name,
                    });
                }
                None => {
                    return Ok(Texture {
                        name,
                        source: TextureSource::External {
                            uri: percent_decode(uri),
                        },
                    })
                }
            },
        };
        if !self.opts.decode_images {
            // the caller does not use pixels: never decoded (a 712-byte PNG may claim 16 GiB)
            return Ok(Texture {
                source: TextureSource::Unresolved { uri: name.clone() },
                name,
            });
        }
        let bytes = embedded.unwrap_or_default();
        let source = match decode_png(&bytes, self.opts.limits.max_texture_pixels) {
            Ok((width, height, pixels)) => TextureSource::Rgba8 {
                width,
                height,
                pixels,
            },
            Err(e) => {
                self.warn(format!(
                    "{label}: embedded image not decoded ({e}); left unresolved"
                ));
                TextureSource::Unresolved { uri: name.clone() }
            }
        };
        Ok(Texture { name, source })
    }

    /// `extras` that are an object: string, number and boolean values as text, in file order.
    /// With `hidden_flag`, `"hidden": true`/`"true"` is returned as the flag instead.
    fn extras(
        &mut self,
        raw: &gltf::json::Extras,
        label: &str,
        hidden_flag: bool,
    ) -> (Vec<(String, String)>, bool) {
        let Some(raw) = raw else {
            return (Vec::new(), false);
        };
        let pairs: Pairs = match serde_json::from_str(raw.get()) {
            Ok(p) => p,
            Err(_) => {
                self.warn(format!("{label}: extras is not an object; ignored"));
                return (Vec::new(), false);
            }
        };
        let mut out = Vec::new();
        let mut hidden = false;
        for (k, v) in pairs.0 {
            let text = match v {
                serde_json::Value::String(s) => s,
                serde_json::Value::Number(n) => n.to_string(),
                serde_json::Value::Bool(b) => b.to_string(),
                _ => {
                    self.warn(format!(
                        "{label}: extras.{k} is not a string, number or boolean; ignored"
                    ));
                    continue;
                }
            };
            if hidden_flag && k == "hidden" {
                hidden = text == "true";
                continue;
            }
            if !out.iter().any(|(ok, _): &(String, String)| *ok == k) {
                out.push((k, text));
            }
        }
        (out, hidden)
    }
}

/// A JSON object's entries in file order (serde_json's `Map` sorts them).
struct Pairs(Vec<(String, serde_json::Value)>);

impl<'de> serde::Deserialize<'de> for Pairs {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Pairs;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut m: A) -> Result<Pairs, A::Error> {
                let mut out = Vec::new();
                while let Some((k, v)) = m.next_entry::<String, serde_json::Value>()? {
                    out.push((k, v));
                }
                Ok(Pairs(out))
            }
        }
        d.deserialize_map(V)
    }
}

/// `count` u16 indices from the BIN chunk's offset `at` of `glb`, widened onto `out`, read
/// through a small buffer (the indices of a few thousand vertices at a time).
fn read_u16s(glb: &PartialGlb, at: usize, count: usize, out: &mut Vec<u32>) -> std::io::Result<()> {
    let mut buf = [0u8; 8192];
    let mut done = 0;
    while done < count {
        let n = (count - done).min(buf.len() / 2);
        let part = &mut buf[..2 * n];
        glb.read_bin(at + 2 * done, part)?;
        out.extend(
            part.chunks_exact(2)
                .map(|b| u32::from(u16::from_le_bytes([b[0], b[1]]))),
        );
        done += n;
    }
    Ok(())
}

/// Where a count was read (an accessor, a primitive), named only when an error needs it.
type At<'p> = &'p dyn Fn() -> String;

/// An accessor as errors name it: `accessors[i]`.
fn accessor_path(acc: &gltf::Accessor) -> String {
    format!("accessors[{}]", acc.index())
}

fn comp_size(ct: DataType) -> usize {
    match ct {
        DataType::I8 | DataType::U8 => 1,
        DataType::I16 | DataType::U16 => 2,
        DataType::U32 | DataType::F32 => 4,
    }
}

/// One component (little-endian `b`, exactly its size) as f32, normalized integers divided
/// as glTF says (`c / 255`, `max(c / 127, −1)`, …; computed in f64, rounded once).
fn component(ct: DataType, b: &[u8], norm: bool) -> f32 {
    let (v, scale) = match ct {
        DataType::F32 => return f32::from_le_bytes([b[0], b[1], b[2], b[3]]),
        DataType::U8 => (f64::from(b[0]), 255.0),
        DataType::I8 => (f64::from(b[0] as i8), 127.0),
        DataType::U16 => (f64::from(u16::from_le_bytes([b[0], b[1]])), 65535.0),
        DataType::I16 => (f64::from(i16::from_le_bytes([b[0], b[1]])), 32767.0),
        DataType::U32 => (
            f64::from(u32::from_le_bytes([b[0], b[1], b[2], b[3]])),
            4294967295.0,
        ),
    };
    if norm {
        (v / scale).max(-1.0) as f32
    } else {
        v as f32
    }
}

fn semantic_name(s: &Semantic) -> String {
    match s {
        Semantic::Positions => "POSITION".into(),
        Semantic::Normals => "NORMAL".into(),
        Semantic::Tangents => "TANGENT".into(),
        Semantic::Colors(k) => format!("COLOR_{k}"),
        Semantic::TexCoords(k) => format!("TEXCOORD_{k}"),
        Semantic::Joints(k) => format!("JOINTS_{k}"),
        Semantic::Weights(k) => format!("WEIGHTS_{k}"),
        Semantic::Extras(n) => format!("_{n}"),
    }
}

/// Decode a PNG into RGBA8 (any colour type and depth; 16-bit channels are reduced to 8).
/// The header's width × height is checked against `max_pixels` before anything is decoded,
/// and the buffers are reserved fallibly.
fn decode_png(bytes: &[u8], max_pixels: u64) -> Result<(u32, u32, Vec<u8>), String> {
    if !bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        return Err("not a PNG".into());
    }
    // IHDR is the first chunk (PNG spec 11.2.2): width and height big-endian at 16 and 20
    let be = |o: usize| {
        bytes
            .get(o..o + 4)
            .map(|b| u64::from(u32::from_be_bytes([b[0], b[1], b[2], b[3]])))
    };
    let (Some(w), Some(h)) = (be(16), be(20)) else {
        return Err("PNG shorter than its header".into());
    };
    if w.saturating_mul(h) > max_pixels {
        return Err(format!(
            "its header says {w} × {h} pixels, more than the limit of {max_pixels} (Limits::max_texture_pixels)"
        ));
    }
    let mut dec = png::Decoder::new_with_limits(
        std::io::Cursor::new(bytes),
        png::Limits {
            bytes: usize::try_from(max_pixels.saturating_mul(8)).unwrap_or(usize::MAX),
        },
    );
    dec.set_transformations(png::Transformations::normalize_to_color8());
    let mut reader = dec.read_info().map_err(|e| e.to_string())?;
    let size = reader
        .output_buffer_size()
        .ok_or_else(|| "image too large".to_string())?;
    let mut buf = Vec::new();
    buf.try_reserve_exact(size)
        .map_err(|_| format!("could not allocate {size} bytes to decode it"))?;
    buf.resize(size, 0u8);
    let info = reader.next_frame(&mut buf).map_err(|e| e.to_string())?;
    let (w, h) = (info.width as usize, info.height as usize);
    let samples = match info.color_type {
        png::ColorType::Grayscale => 1,
        png::ColorType::GrayscaleAlpha => 2,
        png::ColorType::Rgb => 3,
        png::ColorType::Rgba => 4,
        png::ColorType::Indexed => return Err("palette not expanded".into()),
    };
    let mut out = Vec::new();
    out.try_reserve_exact(w * h * 4)
        .map_err(|_| "could not allocate the decoded image".to_string())?;
    for y in 0..h {
        let row = buf
            .get(y * info.line_size..y * info.line_size + w * samples)
            .ok_or_else(|| "short image data".to_string())?;
        for px in row.chunks_exact(samples) {
            match samples {
                1 => out.extend_from_slice(&[px[0], px[0], px[0], 255]),
                2 => out.extend_from_slice(&[px[0], px[0], px[0], px[1]]),
                3 => out.extend_from_slice(&[px[0], px[1], px[2], 255]),
                _ => out.extend_from_slice(px),
            }
        }
    }
    Ok((info.width, info.height, out))
}

/// The byte offset in `json` of serde_json's 1-based `line` and `column` (0 when unknown).
fn json_offset(json: &[u8], line: usize, column: usize) -> usize {
    if line == 0 {
        return 0;
    }
    let start = if line == 1 {
        0
    } else {
        json.iter()
            .enumerate()
            .filter(|(_, &b)| b == b'\n')
            .nth(line - 2)
            .map_or(json.len(), |(i, _)| i + 1)
    };
    (start + column.saturating_sub(1)).min(json.len())
}
