//! Wavefront OBJ + MTL writer.
//!
//! # OBJ layout written
//! ```text
//! # levelgeom OBJ
//! mtllib level.mtl
//! o tile_0012                 (or `g tile_0012` with ObjOptions::groups), one per node with a mesh
//! v x y z [r g b]             per vertex, in world space (node world matrix applied)
//! vt u v'                     v' = 1 − v: the scene's UV origin is top-left, OBJ's bottom-left
//! vn x y z                    world-space unit normal (inverse-transpose of the world matrix)
//! usemtl page_03
//! f v/vt/vn v/vt/vn v/vt/vn   1-based, counting over the whole file (`v//vn`, `v/vt`, `v` when
//!                             UVs or normals are absent)
//! l v v                       per segment of a line primitive (Topology::Lines), vertex only
//! ```
//! Every primitive writes its own vertices (OBJ has no instancing; a mesh used by two nodes is
//! written twice, once per node). A node whose world matrix mirrors (negative determinant) gets
//! its triangles' winding reversed so front faces stay counter-clockwise, as a glTF viewer
//! would show them. Only `uvs[0]` is written (OBJ has one UV set); colours come from the set
//! [`ObjOptions::colour_set`] (alpha dropped: OBJ vertex colours are RGB).
//!
//! # Numbers
//! Floats are printed with Rust's `{}` for `f32`: the shortest decimal that reads back as the
//! same `f32`, never in exponent notation (`0.0000001`, not `1e-7`), so output is
//! deterministic and positions are exact to the bit of the transformed `f32`. Transforms are
//! computed in `f64` and rounded once.
//!
//! # MTL
//! One `newmtl` per material used by the written faces (scene order; `levelgeom_default` for
//! primitives without a material): `Kd` = base colour RGB, `Ks 0 0 0`, `d` = base colour alpha,
//! `illum 0` when unlit else `illum 1`, `map_Kd` (and `map_d` when the material is masked or
//! blended) = [`crate::texture_file_name`] or the external texture's uri.
//!
//! Names in `o`/`g`/`usemtl`/`newmtl` have whitespace (OBJ splits on it) and `#` (a comment
//! to many readers; X-Ray shader names contain it) replaced by `_`.

use std::fmt::Write as _;
use std::io::Write;

use levelgeom_scene::{mul, AlphaMode, Scene, TextureSource, Topology, IDENTITY};

use crate::clean::{clean_primitive, CleanPrimitive, Repairs, Transform};

mod text;

use text::{Scratch, Text};

/// Material name used for primitives without a material.
pub const DEFAULT_MATERIAL: &str = "levelgeom_default";

/// Options of the OBJ writer.
#[derive(Clone, Debug, PartialEq)]
pub struct ObjOptions {
    /// Nodes whose whole subtrees are written (hidden nodes included); `None` = every root that
    /// is not hidden, skipping hidden nodes (and their subtrees) below them too.
    pub roots: Option<Vec<usize>>,
    /// Name of the MTL file written into the `mtllib` line, e.g. `level.mtl`.
    pub mtl_file: String,
    /// Which [`levelgeom_scene::Primitive::colors`] set is written as `v x y z r g b`
    /// (primitives that lack it get plain `v x y z`).
    pub colour_set: usize,
    /// Write `g name` per node instead of `o name`.
    pub groups: bool,
}

impl Default for ObjOptions {
    fn default() -> Self {
        ObjOptions {
            roots: None,
            mtl_file: "level.mtl".to_string(),
            colour_set: 0,
            groups: false,
        }
    }
}

/// The text of an OBJ and its MTL.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ObjOutput {
    /// The `.obj` text.
    pub obj: String,
    /// The `.mtl` text.
    pub mtl: String,
    /// Scene texture indices the MTL refers to (ascending, decoded and external); write the
    /// decoded ones with [`crate::write_textures`].
    pub textures: Vec<usize>,
    /// Repairs made (non-finite floats replaced, bad primitives skipped, …), for the user.
    pub warnings: Vec<String>,
}

/// A name usable after `o`, `g`, `usemtl`, `newmtl`: no whitespace, no `#` (which starts a
/// comment for many readers), not empty.
fn obj_name(name: &str, fallback: impl FnOnce() -> String) -> String {
    let s: String = name
        .chars()
        .map(|c| {
            if c.is_whitespace() || c.is_control() || c == '#' {
                '_'
            } else {
                c
            }
        })
        .collect();
    if s.is_empty() {
        fallback()
    } else {
        s
    }
}

/// Export the chosen subtrees of `scene` as OBJ + MTL text (see the module docs).
pub fn to_obj(scene: &Scene, opts: &ObjOptions) -> ObjOutput {
    let mut bytes = Vec::new();
    // writing into a Vec cannot fail
    let mut out = write_obj(scene, opts, &mut bytes).unwrap_or_default();
    out.obj = String::from_utf8(bytes)
        .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
    out
}

/// Text gathered before the formatted pieces are handed to the writer in order: enough work
/// for every core, bounded memory. The texts are formatted into the buffers of the batches
/// already written ([`Texts`]), so about two batches' worth of text memory is faulted in.
const BATCH: usize = 1 << 20;

/// What one piece of the OBJ text is made of: a line of its own, or one primitive's `v`, `vt`,
/// `vn`, `usemtl` and `f` lines.
enum Piece<'a> {
    Line(String),
    Prim {
        c: &'a CleanPrimitive<'a>,
        t: Box<Transform>,
        /// Vertices, UVs and normals before it in the file.
        base: [usize; 3],
        material: String,
    },
}

impl Piece<'_> {
    /// Rough size of its text, for batching.
    fn estimate(&self) -> usize {
        match self {
            Piece::Line(l) => l.len(),
            Piece::Prim { c, .. } => c.positions.len() * 100 + c.indices.len() * 24,
        }
    }

    /// Append its text to `out`; non-finite transformed positions (replaced by 0) counted in
    /// `rep`. Numbers go through the thread's float cache and the line layout of
    /// [`text::Text`].
    fn format(&self, colour_set: usize, rep: &mut Repairs, scratch: &mut Scratch, out: &mut Text) {
        let (c, t, base, material) = match self {
            Piece::Line(l) => return out.bytes(l.as_bytes()),
            Piece::Prim {
                c,
                t,
                base,
                material,
            } => (*c, t, *base, material),
        };
        out.reserve(self.estimate());
        let Scratch {
            floats: cache,
            corners,
        } = scratch;
        // world space; winding reversed for mirroring matrices
        let colours = c.colors.get(colour_set);
        for (k, &p) in c.positions.iter().enumerate() {
            out.two(b"v ");
            out.floats3(t.position(p, rep), cache);
            if let Some(col) = colours.and_then(|set| set.get(k)) {
                for &v in &col[..3] {
                    out.byte(b' ');
                    out.float(v, cache);
                }
            }
            out.byte(b'\n');
        }
        let uv = c.uvs.first();
        if let Some(set) = uv {
            for t in set.iter() {
                out.bytes(b"vt ");
                out.float(t[0], cache);
                out.byte(b' ');
                out.float((1.0 - t[1] as f64) as f32, cache);
                out.byte(b'\n');
            }
        }
        if let Some(normals) = &c.normals {
            for u in normals.iter() {
                out.bytes(b"vn ");
                out.floats3(t.normal(u), cache);
                out.byte(b'\n');
            }
        }
        out.bytes(b"usemtl ");
        out.bytes(material.as_bytes());
        out.byte(b'\n');
        if c.topology == Topology::Lines {
            let mut iv = itoa::Buffer::new();
            for seg in c.indices.chunks_exact(2) {
                out.byte(b'l');
                for &i in seg {
                    out.byte(b' ');
                    out.bytes(iv.format(base[0] + i as usize + 1).as_bytes());
                }
                out.byte(b'\n');
            }
            return;
        }
        // each vertex's ` v/vt/vn` formatted once (a vertex is a corner of several triangles)
        let (has_uv, has_n) = (uv.is_some(), c.normals.is_some());
        corners.clear();
        corners.extend((0..c.positions.len()).map(|i| text::corner(i, base, has_uv, has_n)));
        for tri in c.indices.chunks_exact(3) {
            out.byte(b'f');
            let tri = if t.mirrored {
                [tri[0], tri[2], tri[1]]
            } else {
                [tri[0], tri[1], tri[2]]
            };
            for i in tri {
                let i = i as usize;
                match corners.get(i) {
                    Some(k) => out.corner(k),
                    None => out.corner(&text::corner(i, base, has_uv, has_n)),
                }
            }
            out.byte(b'\n');
        }
    }
}

thread_local! {
    /// Each formatting thread's float texts and room for corners, kept across primitives and
    /// batches.
    static SCRATCH: std::cell::RefCell<Scratch> = std::cell::RefCell::new(Scratch::new());
}

/// Tasks a batch is cut into per thread: runs of consecutive pieces, each formatted into one
/// text, enough of them that no core waits long for the last.
const TASKS_PER_THREAD: usize = 4;

/// Texts formatted and not yet written, each with the non-finite values it replaced.
type Formatted = Vec<(Vec<u8>, usize)>;

/// The batches' texts: the formatted batch waiting to be written, and the emptied buffers of
/// the batches written before it, which the next batch is formatted into. The ~100 MB of a
/// large OBJ's text thus pass through a few MB of memory, faulted in once.
#[derive(Default)]
struct Texts {
    ready: Formatted,
    spare: Vec<Vec<u8>>,
}

/// Format a batch of pieces in parallel while the texts of the previous batch
/// (`texts.ready`) are written in order, so that writing overlaps formatting; the batch's
/// texts become `texts.ready`, the written ones go back to `texts.spare`.
fn flush_batch(
    batch: &mut Vec<Piece<'_>>,
    colour_set: usize,
    rep: &mut Repairs,
    out: &mut (dyn Write + Send),
    texts: &mut Texts,
) -> std::io::Result<()> {
    use rayon::prelude::*;
    let prev = std::mem::take(&mut texts.ready);
    let tasks = rayon::current_num_threads() * TASKS_PER_THREAD;
    let per_task = batch.len().div_ceil(tasks).max(1);
    let buffers: Vec<Vec<u8>> = batch
        .chunks(per_task)
        .map(|_| texts.spare.pop().unwrap_or_default())
        .collect();
    let (written, formatted) = rayon::join(
        || write_formatted(prev, out),
        || -> Formatted {
            batch
                .par_chunks(per_task)
                .zip(buffers)
                .map(|(pieces, buffer)| {
                    let mut r = Repairs::default();
                    let mut text = Text::after(buffer);
                    SCRATCH.with(|scratch| {
                        let scratch = &mut scratch.borrow_mut();
                        for p in pieces {
                            p.format(colour_set, &mut r, scratch, &mut text);
                        }
                    });
                    (text.finish(), r.non_finite)
                })
                .collect()
        },
    );
    let (non_finite, emptied) = written?;
    rep.non_finite += non_finite;
    texts.spare.extend(emptied);
    texts.ready = formatted;
    batch.clear();
    Ok(())
}

/// Write formatted texts in order; returns the non-finite values they replaced and the
/// emptied buffers, for reuse.
fn write_formatted(
    texts: Formatted,
    out: &mut (dyn Write + Send),
) -> std::io::Result<(usize, Vec<Vec<u8>>)> {
    let mut non_finite = 0;
    let mut emptied = Vec::with_capacity(texts.len());
    for (mut text, n) in texts {
        non_finite += n;
        out.write_all(&text)?;
        text.clear();
        emptied.push(text);
    }
    Ok((non_finite, emptied))
}

/// Write the OBJ text of [`to_obj`] into `out` (give it a buffered writer); the returned
/// [`ObjOutput`] has the MTL, the textures and the warnings, and an empty `obj`.
///
/// The numbers are formatted without `core::fmt` (see [`push_f32`]), the primitives in
/// parallel (rayon) in batches of about a megabyte, each batch written in order while the next
/// is formatted into the emptied buffers of the ones before: the bytes are the same whatever
/// the number of threads.
///
/// # Errors
/// Only what writing to `out` gives.
pub fn write_obj(
    scene: &Scene,
    opts: &ObjOptions,
    out: &mut (dyn Write + Send),
) -> std::io::Result<ObjOutput> {
    let mut rep = Repairs::default();
    let order = node_order(scene, opts, &mut rep);
    let (cache, nodes) = check_meshes(scene, &order, &mut rep);
    let used = write_nodes(scene, opts, &nodes, &cache, &mut rep, out)?;
    let (mtl, textures) = write_mtl(scene, &used, &mut rep);
    Ok(ObjOutput {
        obj: String::new(),
        mtl,
        textures,
        warnings: rep.finish(),
    })
}

/// The nodes to write, pre-order, each once, with its world matrix: the scene's own for
/// nodes reachable from its roots; a start node that is not reachable is placed by its local
/// matrix. Below a start node, parent × local.
fn node_order(scene: &Scene, opts: &ObjOptions, rep: &mut Repairs) -> Vec<(usize, [f32; 16])> {
    let n = scene.nodes.len();
    let world = scene.world_matrices();
    let reachable = scene.reachable();
    let skip_hidden = opts.roots.is_none();
    let starts: Vec<usize> = match &opts.roots {
        Some(list) => list.clone(),
        None => scene.roots.clone(),
    };
    let mut order: Vec<(usize, [f32; 16])> = Vec::new();
    let mut seen = vec![false; n];
    for &s in &starts {
        if s >= n {
            rep.warn(format!("root {s} does not exist; skipped"));
            continue;
        }
        let m0 = if reachable[s] {
            world[s]
        } else {
            scene.nodes[s].matrix
        };
        let mut stack = vec![(s, m0)];
        while let Some((x, m)) = stack.pop() {
            if seen[x] || (skip_hidden && scene.nodes[x].hidden) {
                continue;
            }
            seen[x] = true;
            order.push((x, m));
            for &c in scene.nodes[x].children.iter().rev() {
                if c < n {
                    stack.push((c, mul(&m, &scene.nodes[c].matrix)));
                }
            }
        }
    }
    order
}

/// A mesh's primitives, checked ([`clean_primitive`]); `None` where a mesh is not used.
type CheckedMeshes<'a> = Vec<Option<Vec<Option<CleanPrimitive<'a>>>>>;

/// Each mesh is checked once, however many nodes instance it (in the order nodes need them,
/// so the warnings come in the order of the file). Returns the checked meshes and the nodes
/// with a mesh: (node, world matrix, mesh).
fn check_meshes<'a>(
    scene: &'a Scene,
    order: &[(usize, [f32; 16])],
    rep: &mut Repairs,
) -> (CheckedMeshes<'a>, Vec<(usize, [f32; 16], usize)>) {
    let mut cache: CheckedMeshes<'_> = vec![None; scene.meshes.len()];
    let mut nodes: Vec<(usize, [f32; 16], usize)> = Vec::new();
    for &(x, m) in order {
        let node = &scene.nodes[x];
        let Some(mi) = node.mesh else { continue };
        let Some(mesh) = scene.meshes.get(mi) else {
            rep.warn(format!(
                "node {x} {:?}: mesh {mi} does not exist; skipped",
                node.name
            ));
            continue;
        };
        let m = if m.iter().any(|v| !v.is_finite()) {
            rep.warn(format!(
                "node {x} {:?}: non-finite world matrix; used identity",
                node.name
            ));
            IDENTITY
        } else {
            m
        };
        if cache[mi].is_none() {
            cache[mi] = Some(
                mesh.primitives
                    .iter()
                    .enumerate()
                    .map(|(pi, p)| {
                        let label = format!("mesh {mi} {:?} primitive {pi}", mesh.name);
                        clean_primitive(p, scene.materials.len(), &label, rep)
                    })
                    .collect(),
            );
        }
        nodes.push((x, m, mi));
    }
    (cache, nodes)
}

/// The materials the written primitives use: per scene material, and the default one.
struct UsedMaterials {
    materials: Vec<bool>,
    default: bool,
}

/// Write the OBJ text of `nodes`, in batches formatted in parallel.
fn write_nodes(
    scene: &Scene,
    opts: &ObjOptions,
    nodes: &[(usize, [f32; 16], usize)],
    cache: &CheckedMeshes<'_>,
    rep: &mut Repairs,
    out: &mut (dyn Write + Send),
) -> std::io::Result<UsedMaterials> {
    out.write_all(b"# levelgeom OBJ\n")?;
    out.write_all(format!("mtllib {}\n", opts.mtl_file).as_bytes())?;
    let (mut nv, mut nvt, mut nvn) = (0usize, 0usize, 0usize);
    let mut used_materials = vec![false; scene.materials.len()];
    let mut used_default = false;
    let keyword = if opts.groups { "g" } else { "o" };
    let mut batch: Vec<Piece> = Vec::new();
    let mut texts = Texts::default();
    let mut pending = 0usize;
    for &(x, m, mi) in nodes {
        let node = &scene.nodes[x];
        batch.push(Piece::Line(format!(
            "{keyword} {}\n",
            obj_name(&node.name, || format!("node_{x}"))
        )));
        let t = Transform::new(&m.map(|v| v as f64));
        for c in cache[mi].iter().flatten().flatten() {
            let material = match c.material {
                Some(mat) => {
                    used_materials[mat] = true;
                    obj_name(&scene.materials[mat].name, || format!("material_{mat}"))
                }
                None => {
                    used_default = true;
                    DEFAULT_MATERIAL.to_string()
                }
            };
            let piece = Piece::Prim {
                c,
                t: Box::new(t),
                base: [nv, nvt, nvn],
                material,
            };
            pending += piece.estimate();
            batch.push(piece);
            nv += c.positions.len();
            if !c.uvs.is_empty() {
                nvt += c.positions.len();
            }
            if c.normals.is_some() {
                nvn += c.positions.len();
            }
            if pending >= BATCH {
                flush_batch(&mut batch, opts.colour_set, rep, out, &mut texts)?;
                pending = 0;
            }
        }
    }
    flush_batch(&mut batch, opts.colour_set, rep, out, &mut texts)?;
    rep.non_finite += write_formatted(texts.ready, out)?.0;
    Ok(UsedMaterials {
        materials: used_materials,
        default: used_default,
    })
}

/// The MTL text for the materials used, and the textures it names.
fn write_mtl(scene: &Scene, used: &UsedMaterials, rep: &mut Repairs) -> (String, Vec<usize>) {
    let mut mtl = String::from("# levelgeom MTL\n");
    let mut textures = Vec::new();
    if used.default {
        let _ = writeln!(
            mtl,
            "\nnewmtl {DEFAULT_MATERIAL}\nKd 1 1 1\nKs 0 0 0\nd 1\nillum 1"
        );
    }
    for (i, mat) in scene.materials.iter().enumerate() {
        if !used.materials[i] {
            continue;
        }
        let c = mat.base_color;
        let (r, g, b, a) = (rep.f(c[0]), rep.f(c[1]), rep.f(c[2]), rep.f(c[3]));
        let _ = writeln!(
            mtl,
            "\nnewmtl {}\nKd {r} {g} {b}\nKs 0 0 0\nd {a}\nillum {}",
            obj_name(&mat.name, || format!("material_{i}")),
            if mat.unlit { 0 } else { 1 }
        );
        if let Some(t) = mat.texture {
            match scene.textures.get(t) {
                None => rep.warn(format!(
                    "material {i} {:?}: texture {t} does not exist; left untextured",
                    mat.name
                )),
                Some(tex) => {
                    let file = match &tex.source {
                        TextureSource::Rgba8 { .. } => crate::texture_file_name(tex),
                        // a file we linked from the textures folder the user gave
                        TextureSource::External { uri } => uri.clone(),
                        // the level's own name: it must not lead a viewer out of the folder
                        TextureSource::Unresolved { uri } => {
                            let inside = crate::inside_reference(uri);
                            if inside != *uri {
                                rep.warn(format!(
                                    "material {i} {:?}: texture {:?} would be read from outside the export folder; the MTL names {inside:?}",
                                    mat.name, uri
                                ));
                            }
                            inside
                        }
                    };
                    let _ = writeln!(mtl, "map_Kd {file}");
                    if !matches!(mat.alpha, AlphaMode::Opaque) {
                        let _ = writeln!(mtl, "map_d {file}");
                    }
                    textures.push(t);
                }
            }
        }
    }
    textures.sort_unstable();
    textures.dedup();
    (mtl, textures)
}

/// `5^k` for `k < 15`: the exact decimal digits of `m·2^-k` are those of `m·5^k`.
const POW5: [u64; 15] = {
    let mut t = [1u64; 15];
    let mut k = 1;
    while k < 15 {
        t[k] = t[k - 1] * 5;
        k += 1;
    }
    t
};

/// The number of significant digits of the exact decimal value of `v` when it has a fraction
/// and at most 20 of them (`None` otherwise): only such values can lie exactly halfway between
/// two shortest decimals (the exact expansion of `m·2^-k`, `m` odd, is `m·5^k` digits ending
/// in 5, which needs `5^k < 10^10` to be one digit longer than a 9-digit shortest form).
#[inline]
fn exact_digits(v: f32) -> Option<usize> {
    let bits = v.to_bits();
    let exp = ((bits >> 23) & 0xFF) as i32;
    let frac = bits & 0x7F_FFFF;
    let (mut m, mut q) = if exp == 0 {
        (frac, -149)
    } else {
        (frac | 0x80_0000, exp - 150)
    };
    if m == 0 {
        return None;
    }
    let tz = m.trailing_zeros();
    m >>= tz;
    q += tz as i32;
    if !(-14..0).contains(&q) {
        return None;
    }
    let n = u64::from(m) * POW5[(-q) as usize];
    Some(n.ilog10() as usize + 1)
}

/// True when `v` may lie exactly halfway between two shortest decimals, the one case where the
/// shortest-digit formatters (which take the even candidate) and Rust's `{}` (the larger)
/// differ. A value whose exact decimal expansion has at most 7 significant digits is its own
/// unique shortest form (any other decimal as short is at least `1/10^7` of it away, farther
/// than half an `f32` step, `2^-24` of it), so it is never such a case.
#[inline]
fn maybe_halfway(v: f32) -> bool {
    exact_digits(v).is_some_and(|n| n > 7)
}

/// Append `v` as Rust's `{}` prints an `f32` — the shortest decimal that reads back as the
/// same `f32`, never in exponent notation (`0.0000001`, `-0`, `100000000000000000000`) — but
/// without `core::fmt`: the shortest digits come from `zmij` (Schubfach, faster than `ryu`
/// with the same digits) and are laid out here. Non-finite values (which the writer never
/// prints: they are repaired first) go through `{}`.
pub fn push_f32(out: &mut Vec<u8>, v: f32) {
    if !v.is_finite() {
        out.extend_from_slice(v.to_string().as_bytes());
        return;
    }
    let mut buf = zmij::Buffer::new();
    let s = buf.format_finite(v).as_bytes();
    // zmij writes plain decimals for decimal exponents -6..=12: no `e` to look for in between
    let plain = (1e-5..1e12).contains(&v.abs()) || !s.contains(&b'e');
    if plain && !maybe_halfway(v) {
        // the common case: the plain decimal is `{}`'s but for the `.0` of whole numbers
        out.extend_from_slice(s.strip_suffix(b".0").unwrap_or(s));
        return;
    }
    let (neg, s) = match s.split_first() {
        Some((b'-', rest)) => (true, rest),
        _ => (false, s),
    };
    // mantissa digits (without the point) and the position of the point within them
    let (mant, exp) = match s.iter().position(|&c| c == b'e') {
        Some(i) => {
            let e = &s[i + 1..];
            let (minus, e) = match e.split_first() {
                Some((b'-', rest)) => (true, rest),
                Some((b'+', rest)) => (false, rest),
                _ => (false, e),
            };
            let mag = e
                .iter()
                .fold(0i32, |a, &d| a * 10 + i32::from(d.wrapping_sub(b'0')));
            (&s[..i], if minus { -mag } else { mag })
        }
        None => (s, 0),
    };
    let mut digits = [0u8; 24];
    let mut nd = 0usize;
    let mut point = mant.len() as i32;
    for (k, &c) in mant.iter().enumerate() {
        if c == b'.' {
            point = k as i32;
        } else if nd < digits.len() {
            digits[nd] = c;
            nd += 1;
        }
    }
    point += exp;
    // strip leading zeros (moving the point) and trailing zeros
    let mut start = 0;
    while start < nd && digits[start] == b'0' {
        start += 1;
        point -= 1;
    }
    while nd > start && digits[nd - 1] == b'0' {
        nd -= 1;
    }
    let d = &digits[start..nd];
    if exact_digits(v).is_some_and(|s| s == d.len() + 1) {
        // the value lies exactly halfway between two shortest candidates: the formatter takes the even
        // one, Rust's `{}` the larger magnitude
        out.extend_from_slice(v.to_string().as_bytes());
        return;
    }
    if neg {
        out.push(b'-');
    }
    if d.is_empty() {
        out.push(b'0');
    } else if point <= 0 {
        out.extend_from_slice(b"0.");
        out.resize(out.len() + (-point) as usize, b'0');
        out.extend_from_slice(d);
    } else if point as usize >= d.len() {
        out.extend_from_slice(d);
        out.resize(out.len() + point as usize - d.len(), b'0');
    } else {
        out.extend_from_slice(&d[..point as usize]);
        out.push(b'.');
        out.extend_from_slice(&d[point as usize..]);
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use levelgeom_scene::{Mesh, Node, Primitive};

    fn fmt(v: f32) -> String {
        let mut out = Vec::new();
        push_f32(&mut out, v);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn numbers_print_as_rust_display_does() {
        // Rust's `{}` is the independent reference: same text for edge cases and for a million
        // pseudo-random bit patterns over the whole f32 range
        for v in [
            0.0f32,
            -0.0,
            1.0,
            -1.0,
            0.5,
            0.1,
            1e-7,
            1.5e-7,
            1e-45,
            f32::MIN_POSITIVE,
            f32::MAX,
            f32::MIN,
            16_777_216.0,
            1e16,
            1e20,
            123_456.79,
            0.000_123_4,
        ] {
            assert_eq!(fmt(v), format!("{v}"), "{v:e}");
        }
        let mut x = 0x9E37_79B9_u32;
        let mut tested = 0;
        for _ in 0..1_000_000 {
            // xorshift32
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            let v = f32::from_bits(x);
            if v.is_finite() {
                assert_eq!(fmt(v), format!("{v}"), "bits {x:#010x}");
                tested += 1;
            }
        }
        assert!(tested > 990_000);
        // the values that can lie halfway between two shortest decimals (few mantissa bits,
        // a short binary fraction: `m·2^-k`), where the shortest-digit formatters and `{}`
        // differ, and every power of two with its neighbours (uneven gaps below and above)
        for k in 1..=14 {
            for m in (1u32..1 << 15)
                .step_by(2)
                .chain(((1 << 24) - 4097..1 << 24).step_by(2))
            {
                let v = m as f32 / (1u32 << k) as f32;
                assert_eq!(fmt(v), format!("{v}"), "{m}/2^{k}");
                assert_eq!(fmt(-v), format!("{}", -v), "-{m}/2^{k}");
            }
        }
        for e in 0..255u32 {
            for bits in [e << 23, (e << 23) | 1, (e << 23).wrapping_sub(1)] {
                let v = f32::from_bits(bits);
                if v.is_finite() {
                    assert_eq!(fmt(v), format!("{v}"), "bits {bits:#010x}");
                }
            }
        }
        // every number parses back to the same f32
        assert_eq!(fmt(0.1).parse::<f32>().unwrap(), 0.1);
    }

    /// A grid of `side × side` vertices with normals, UVs and colours, placed twice (once
    /// mirrored) so that windings and transforms are exercised.
    fn grid_scene(side: usize) -> Scene {
        let mut p = Primitive {
            uvs: vec![Vec::new()],
            colors: vec![Vec::new()],
            ..Primitive::default()
        };
        for z in 0..side {
            for x in 0..side {
                let (fx, fz) = (x as f32 / 7.0, z as f32 / 3.0);
                p.positions.push([fx, (fx * fz).sin(), -fz]);
                p.normals.push([0.1 * fx.cos(), 1.0, 0.2]);
                p.uvs[0].push([fx * 0.37, fz * 0.11]);
                p.colors[0].push([0.25, fx.fract(), 1.0, 1.0]);
            }
        }
        for z in 0..side - 1 {
            for x in 0..side - 1 {
                let a = (z * side + x) as u32;
                let s = side as u32;
                p.indices.extend([a, a + s, a + 1, a + 1, a + s, a + s + 1]);
            }
        }
        let mut scene = Scene::default();
        let mesh = scene.add_mesh(Mesh {
            name: "grid".into(),
            primitives: vec![p],
        });
        let mut mirror = IDENTITY;
        mirror[0] = -1.0;
        mirror[12] = 3.5;
        for (name, matrix) in [("a", IDENTITY), ("b", mirror)] {
            let n = scene.add_node(Node {
                name: name.into(),
                mesh: Some(mesh),
                matrix,
                ..Node::default()
            });
            scene.roots.push(n);
        }
        scene
    }

    #[test]
    fn output_is_the_same_for_one_and_several_threads() {
        // 2 × 160,000 vertices: about 30 MB of text, several batches
        let scene = grid_scene(400);
        let run = |threads| {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            pool.install(|| to_obj(&scene, &ObjOptions::default()))
        };
        let one = run(1);
        let three = run(3);
        assert!(one.obj.len() > 3 * BATCH, "{} bytes", one.obj.len());
        assert_eq!(one, three);
        // the second node's faces count on from the first node's vertices, reversed winding
        let n = 400 * 400;
        let s = 400;
        let b = n + 1; // first vertex of node b, 1-based
        let tri = format!("f {b}/{b}/{b} {0}/{0}/{0} {1}/{1}/{1}\n", b + 1, b + s);
        assert!(one.obj.contains(&tri), "{tri}");
        // a vertex line as `{}` prints it, the mirrored x = 3.5 − x
        let x = (3.5 - f64::from(1.0f32 / 7.0)) as f32;
        let v = format!("v {x} 0 0"); // -0 + 0·x = +0 in the transform
        let at = one.obj.find("\no b\n").unwrap();
        assert!(
            one.obj[at..].contains(&format!("\n{v} 0.25 ")),
            "{v} in {}",
            &one.obj[at..at + 200]
        );
    }

    #[test]
    fn texture_references_stay_inside_the_export_folder() {
        use levelgeom_scene::{Material, Texture};
        // the names an X-Ray shader table gives (`..\..\..\secret04`, backslashes made `/`
        // and `.dds` added by the X-Ray scene), an absolute one, a drive letter, a fine one
        let names = [
            ("../../../secret04.dds", ".._.._.._secret04.dds"),
            ("/etc/passwd.dds", "_etc_passwd.dds"),
            ("c:/windows/x.dds", "c__windows_x.dds"),
            ("levels/l01/floor.dds", "levels/l01/floor.dds"),
            ("..", "_.."),
        ];
        let mut scene = Scene::default();
        let mut prims = Vec::new();
        for (k, (uri, _)) in names.iter().enumerate() {
            scene.textures.push(Texture {
                name: format!("t{k}"),
                source: TextureSource::Unresolved {
                    uri: (*uri).to_string(),
                },
            });
            scene.materials.push(Material {
                name: format!("m{k}"),
                texture: Some(k),
                ..Material::default()
            });
            prims.push(Primitive {
                material: Some(k),
                positions: vec![[0.0; 3], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]],
                indices: vec![0, 1, 2],
                ..Primitive::default()
            });
        }
        let mesh = scene.add_mesh(Mesh {
            name: "m".into(),
            primitives: prims,
        });
        let n = scene.add_node(Node {
            name: "n".into(),
            mesh: Some(mesh),
            ..Node::default()
        });
        scene.roots.push(n);
        let o = to_obj(&scene, &ObjOptions::default());
        let maps: Vec<&str> = o
            .mtl
            .lines()
            .filter_map(|l| l.strip_prefix("map_Kd "))
            .collect();
        assert_eq!(maps, names.map(|(_, want)| want));
        assert_eq!(o.warnings.len(), 4, "{:?}", o.warnings);
        assert!(o.warnings[0].contains("\"../../../secret04.dds\" would be read from outside"));
    }
}
