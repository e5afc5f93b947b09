//! The chunk container shared by every X-Ray file (`level`, `level.geom(x)`, OGF visuals).
//!
//! | offset | size | meaning |
//! |---|---|---|
//! | 0 | 4 | `raw_id`: chunk id in bits 0..31, bit 31 (`0x8000_0000`) = payload is LZHUF-compressed |
//! | 4 | 4 | `size`: payload bytes as stored (the compressed size when compressed) |
//! | 8 | size | payload; a compressed payload is `u32 uncompressed size` + LZHUF bits ([`crate::lzhuf`]) |
//!
//! Chunks follow each other without padding until the end of their parent; nested chunks use
//! the same header. A chunk is modelled as a [`Framed`] value: the typed payload plus how it was
//! stored (the raw id, and for a compressed chunk its original stored bytes, so an unchanged
//! chunk is written back byte for byte even though our encoder need not match the engine's).

use std::borrow::Cow;

use levelgeom_binary::{fit, ReadError, Reader, WriteError, Writer};
use rayon::prelude::*;

use crate::lzhuf;

/// Bit 31 of a chunk id: the payload is LZHUF-compressed (`CFS_CompressMark`).
pub const COMPRESSED: u32 = 0x8000_0000;

/// A chunk header as read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Head {
    /// The id word as stored (flag included).
    pub raw_id: u32,
    /// Absolute offset of the header.
    pub at: usize,
    /// Payload size as stored.
    pub size: u32,
}

impl Head {
    /// The id without the compression flag.
    pub fn id(&self) -> u32 {
        self.raw_id & !COMPRESSED
    }

    /// True when the payload is compressed.
    pub fn compressed(&self) -> bool {
        self.raw_id & COMPRESSED != 0
    }
}

/// A typed chunk payload plus how it was stored.
#[derive(Clone, Debug, PartialEq)]
pub struct Framed<T> {
    /// The id word (compression flag included).
    pub raw_id: u32,
    /// For a compressed chunk: the payload bytes as stored (size prefix + LZHUF stream).
    /// Written back unchanged while the typed value still serialises to what they decode to.
    pub stored: Option<Vec<u8>>,
    /// The decoded payload.
    pub value: T,
}

impl<T> Framed<T> {
    /// An uncompressed chunk.
    pub fn plain(id: u32, value: T) -> Self {
        Framed {
            raw_id: id,
            stored: None,
            value,
        }
    }

    /// The id without the compression flag.
    pub fn id(&self) -> u32 {
        self.raw_id & !COMPRESSED
    }
}

/// A chunk whose payload is not interpreted (kept verbatim, decompressed if it was compressed).
pub type RawChunk = Framed<Vec<u8>>;

/// Read the next chunk header; the reader must hold at least 8 bytes.
pub fn read_head(r: &mut Reader<'_>) -> Result<Head, ReadError> {
    let at = r.pos();
    let raw_id = r.u32()?;
    let size = r.u32()?;
    if size as usize > r.remaining() {
        return Err(r.invalid_at(
            at,
            format!(
                "chunk {} claims {size} bytes but only {} remain in its parent",
                raw_id & !COMPRESSED,
                r.remaining()
            ),
        ));
    }
    Ok(Head { raw_id, at, size })
}

/// Where a chunk list sits, which decides how its chunks are named (one table for error paths,
/// [`crate::locate`] and [`crate::chunks`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Context {
    /// Top level of `level.geom`/`level.geomx`.
    Geom,
    /// Top level of `level` (XRLC 13 and 14).
    Level,
    /// Top level of a `level` of XRLC version 4–12, whose chunk ids differ by version and,
    /// within XRLC 8, by xrLC date ([`Ids`](super::ids::level::Ids)).
    OldLevel(super::ids::level::Ids),
    /// Inside `fsL_VISUALS`: one chunk per visual.
    Visuals,
    /// Inside a visual (and inside its `OGF_FASTPATH`): OGF format 4.
    Visual,
    /// Inside an OGF format 3 visual (levels of XRLC 12 and older).
    VisualV3,
    /// Inside an OGF format 2 visual.
    VisualV2,
    /// Inside an OGF 3 `OGF_P_LODS`: one chunk per detail level, each an OGF 3 chunk list (read
    /// by [`crate::ogf`]; chunk listings stop at the level).
    Lods,
    /// Inside `fsL_SECTORS`: one chunk per sector.
    Sectors,
    /// Inside a sector.
    Sector,
    /// Any other chunk file (ids only); nested payloads are walked when they tile exactly.
    Chunks,
    /// Top level of `level.hom` ([`crate::occluders`]).
    Hom,
    /// Top level of `level.som` ([`crate::occluders`]).
    Som,
    /// Top level of `level.details` ([`crate::details`]).
    Details,
    /// Inside `FSD_MESHES` of `level.details`: one chunk per detail model.
    DetailModels,
}

/// How a chunk is named in paths: a static name, an optional index, and the context of the
/// chunks nested in its payload (`None` when the payload is not a chunk list).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Name {
    /// `fsL_VISUALS`, `visual`, `OGF_GCONTAINER`, `chunk`, …
    pub name: &'static str,
    /// The index shown in brackets (`visual[3]`, `chunk[12]`).
    pub index: Option<usize>,
    /// What the payload holds, if it is itself a chunk list.
    pub children: Option<Context>,
}

impl Name {
    /// The path segment as text (`visual[3]`).
    pub fn segment(&self) -> String {
        match self.index {
            Some(i) => format!("{}[{i}]", self.name),
            None => self.name.to_string(),
        }
    }
}

/// The name of chunk `id` (compression flag removed) in `ctx`.
pub fn name(ctx: Context, id: u32) -> Name {
    use super::ids::{geom, level, ogf};
    let named = |name: &'static str, children: Option<Context>| Name {
        name,
        index: None,
        children,
    };
    let indexed = |name: &'static str, children: Option<Context>| Name {
        name,
        index: Some(id as usize),
        children,
    };
    match ctx {
        Context::Geom => match id {
            geom::HEADER => named("fsL_HEADER", None),
            geom::VB => named("fsL_VB", None),
            geom::IB => named("fsL_IB", None),
            geom::SWIS => named("fsL_SWIS", None),
            _ => indexed("chunk", None),
        },
        Context::Level => match id {
            level::HEADER => named("fsL_HEADER", None),
            level::SHADERS => named("fsL_SHADERS", None),
            level::VISUALS => named("fsL_VISUALS", Some(Context::Visuals)),
            level::PORTALS => named("fsL_PORTALS", None),
            level::LIGHT_DYNAMIC => named("fsL_LIGHT_DYNAMIC", None),
            level::GLOWS => named("fsL_GLOWS", None),
            level::SECTORS => named("fsL_SECTORS", Some(Context::Sectors)),
            _ => indexed("chunk", None),
        },
        Context::OldLevel(ids) => {
            use level::Part;
            let v = ids.version;
            match ids.part(id) {
                Some(Part::Header) => named("fsL_HEADER", None),
                Some(Part::Shaders) => named("fsL_SHADERS", None),
                Some(Part::Textures) => named("fsL_TEXTURES", None),
                Some(Part::Visuals) => named("fsL_VISUALS", Some(Context::Visuals)),
                Some(Part::VertexBuffers) => named("fsL_VB", None),
                Some(Part::FvfBuffers) if v == 9 => named("fsL_VB_OLD", None),
                Some(Part::FvfBuffers) => named("fsL_VB", None),
                Some(Part::IndexBuffers) => named("fsL_IB", None),
                Some(Part::Swis) => named("fsL_SWIS", None),
                Some(Part::Cform) => named("fsL_CFORM", None),
                Some(Part::Portals) => named("fsL_PORTALS", None),
                Some(Part::LightControl) => named("fsL_LIGHT_CONTROL", None),
                Some(Part::Lights) => named("fsL_LIGHT_DYNAMIC", None),
                Some(Part::LightKeyFrames) => named("fsL_LIGHT_KEY_FRAMES", None),
                Some(Part::Glows) => named("fsL_GLOWS", None),
                Some(Part::Sectors) => named("fsL_SECTORS", Some(Context::Sectors)),
                None => indexed("chunk", None),
            }
        }
        Context::VisualV3 | Context::VisualV2 => {
            use ogf::Kind;
            let dialect = if ctx == Context::VisualV3 { 3 } else { 2 };
            match ogf::kind_of(dialect, id) {
                Some(Kind::Header) => named("OGF_HEADER", None),
                Some(Kind::Texture) => named("OGF_TEXTURE", None),
                Some(Kind::TextureL) => named("OGF_TEXTURE_L", None),
                Some(Kind::ChildRefs) => named("OGF_CHILD_REFS", None),
                Some(Kind::Bbox) => named("OGF_BBOX", None),
                Some(Kind::Vertices) => named("OGF_VERTICES", None),
                Some(Kind::Indices) => named("OGF_INDICES", None),
                Some(Kind::SwiData) => named("OGF_SWIDATA", None),
                Some(Kind::VContainer) => named("OGF_VCONTAINER", None),
                Some(Kind::IContainer) => named("OGF_ICONTAINER", None),
                Some(Kind::BSphere) => named("OGF_BSPHERE", None),
                Some(Kind::ChildrenL) => named("OGF_CHILDREN_L", None),
                Some(Kind::LodDef) => named("OGF_LODDEF2", None),
                Some(Kind::TreeDef) => named("OGF_TREEDEF2", None),
                Some(Kind::DPatch) => named("OGF_DPATCH", None),
                Some(Kind::PLods) => named("OGF_P_LODS", Some(Context::Lods)),
                _ => indexed("chunk", None),
            }
        }
        // (not walked further: the nesting of OGF_P_LODS is not bounded by the format)
        Context::Lods => indexed("lod", None),
        Context::Visuals => indexed("visual", Some(Context::Visual)),
        Context::Visual => match id {
            ogf::HEADER => named("OGF_HEADER", None),
            ogf::TEXTURE => named("OGF_TEXTURE", None),
            ogf::SWIDATA => named("OGF_SWIDATA", None),
            ogf::VCONTAINER => named("OGF_VCONTAINER", None),
            ogf::ICONTAINER => named("OGF_ICONTAINER", None),
            ogf::CHILDREN_L => named("OGF_CHILDREN_L", None),
            ogf::LODDEF2 => named("OGF_LODDEF2", None),
            ogf::TREEDEF2 => named("OGF_TREEDEF2", None),
            ogf::SWICONTAINER => named("OGF_SWICONTAINER", None),
            ogf::GCONTAINER => named("OGF_GCONTAINER", None),
            ogf::FASTPATH => named("OGF_FASTPATH", Some(Context::Visual)),
            _ => indexed("chunk", None),
        },
        Context::Sectors => indexed("sector", Some(Context::Sector)),
        Context::Sector => match id {
            1 => named("fsP_Portals", None),
            2 => named("fsP_Root", None),
            _ => indexed("chunk", None),
        },
        Context::Chunks => indexed("chunk", Some(Context::Chunks)),
        // xray_re-tools xr_level_hom.h / xr_level_som.h
        Context::Hom => match id {
            0 => named("HOM_CHUNK_VERSION", None),
            1 => named("HOM_CHUNK_POLYGONS", None),
            _ => indexed("chunk", None),
        },
        Context::Som => match id {
            0 => named("SOM_CHUNK_VERSION", None),
            1 => named("SOM_CHUNK_POLYGONS", None),
            _ => indexed("chunk", None),
        },
        // xray_re-tools xr_details.h (FSD_HEADER, FSD_MESHES, FSD_SLOTS)
        Context::Details => match id {
            0 => named("FSD_HEADER", None),
            1 => named("FSD_MESHES", Some(Context::DetailModels)),
            2 => named("FSD_SLOTS", None),
            _ => indexed("chunk", None),
        },
        Context::DetailModels => indexed("model", None),
    }
}

/// The context of the chunks inside a payload whose [`Name::children`] is `ctx`: a visual's
/// chunk ids depend on its OGF format, read here from its `OGF_HEADER` (the first byte of
/// chunk 1; OGF 3 and 2 visuals have their own ids). Other contexts are returned unchanged.
pub fn refine(ctx: Context, body: &[u8]) -> Context {
    if ctx != Context::Visual {
        return ctx;
    }
    let mut pos = 0usize;
    while let Some(h) = body.get(pos..pos.saturating_add(8)) {
        let id = u32::from_le_bytes([h[0], h[1], h[2], h[3]]);
        let size = u32::from_le_bytes([h[4], h[5], h[6], h[7]]) as usize;
        if id == 1 {
            return match body.get(pos + 8) {
                Some(3) if size >= 1 => Context::VisualV3,
                Some(2) if size >= 1 => Context::VisualV2,
                _ => Context::Visual,
            };
        }
        pos = pos.saturating_add(8).saturating_add(size);
    }
    Context::Visual
}

/// Read every chunk until the end of `r`, handing each payload to `f` (inside the path segment
/// that [`name`] gives for its id in `ctx`). Compressed payloads are decompressed first; errors
/// inside them carry offsets within the decompressed bytes and a `lzhuf` path segment.
pub fn read_all<T>(
    r: &mut Reader<'_>,
    ctx: Context,
    mut f: impl FnMut(Head, &mut Reader<'_>) -> Result<T, ReadError>,
) -> Result<Vec<Framed<T>>, ReadError> {
    let mut out = Vec::new();
    while !r.is_empty() {
        let (_, head, mut body) = enter(r, ctx)?;
        let framed = read_body(head, &mut body, &mut f)?;
        r.pop();
        out.push(framed);
    }
    Ok(out)
}

/// Decode one chunk body (already bounded to its payload).
pub fn read_body<T>(
    head: Head,
    body: &mut Reader<'_>,
    f: &mut impl FnMut(Head, &mut Reader<'_>) -> Result<T, ReadError>,
) -> Result<Framed<T>, ReadError> {
    if head.compressed() {
        let stored = body.take_rest().to_vec();
        let plain = lzhuf::decompress_with(&stored, &body.limits())
            .map_err(|e| body.invalid_at(head.at + 8, format!("LZHUF: {e}")))?;
        let mut inner = Reader::with_limits(&plain, body.limits());
        for seg in body.path().0 {
            inner.push(seg.name, seg.index);
        }
        inner.push("lzhuf", None);
        let value = f(head, &mut inner)?;
        Ok(Framed {
            raw_id: head.raw_id,
            stored: Some(stored),
            value,
        })
    } else {
        let value = f(head, body)?;
        Ok(Framed {
            raw_id: head.raw_id,
            stored: None,
            value,
        })
    }
}

/// Write one chunk: header, then `payload` (compressed if the id says so; the original stored
/// bytes are reused when they still decode to `payload`). A payload over 4 GiB is an error
/// naming `chunk size` (or `uncompressed size`); callers put the chunk's path in front.
pub fn write(
    w: &mut Writer,
    raw_id: u32,
    stored: Option<&[u8]>,
    payload: &[u8],
) -> Result<(), WriteError> {
    if raw_id & COMPRESSED == 0 {
        let size: u32 = fit(payload.len(), || "chunk size".into())?;
        w.u32(raw_id);
        w.u32(size);
        w.bytes(payload);
        return Ok(());
    }
    let body = match kept(stored, payload) {
        Some(s) => Cow::Borrowed(s),
        None => Cow::Owned(lzhuf::compress(payload)?),
    };
    let size: u32 = fit(body.len(), || "chunk size".into())?;
    w.u32(raw_id);
    w.u32(size);
    w.bytes(&body);
    Ok(())
}

/// A chunk's value with its payload LZHUF-compressed ahead of time (on another thread, while
/// the file it goes into was still being made): [`write_all_framed`] uses the packed bytes for
/// a compressed chunk without a stored payload whose value is equal to `value`, without
/// serialising that chunk again. Equal values serialise to the same payload (the same `body`
/// writes both), so the bytes are the ones packing the chunk would give.
#[derive(Clone, Debug)]
pub struct Packed<T> {
    value: T,
    stored: Vec<u8>,
}

impl<T> Packed<T> {
    /// `value`'s payload (serialised by `body`, the file's chunk writer) LZHUF-compressed
    /// ([`lzhuf::compress`]).
    ///
    /// # Errors
    /// What `body` refuses; a payload of 4 GiB or more (`uncompressed size`).
    pub fn new(
        value: T,
        body: impl FnOnce(&T, &mut Writer) -> Result<(), WriteError>,
    ) -> Result<Packed<T>, WriteError> {
        let mut plain = Writer::new();
        body(&value, &mut plain)?;
        let stored = lzhuf::compress(plain.as_slice())?;
        Ok(Packed { value, stored })
    }
}

/// The stored payload of a compressed chunk of value `value`: `stored` when it still decodes
/// to the chunk's payload, else the bytes of the one of `ahead` packed from an equal value,
/// else the payload (`body` of `value`) LZHUF-compressed.
fn pack<'a, T: PartialEq>(
    stored: Option<&'a [u8]>,
    value: &T,
    ahead: &'a [Packed<T>],
    body: impl Fn(&T, &mut Writer) -> Result<(), WriteError>,
) -> Result<Cow<'a, [u8]>, WriteError> {
    let packed_ahead = || ahead.iter().find(|p| p.value == *value);
    if stored.is_none() {
        // nothing to keep: an equal value packed ahead needs no payload
        if let Some(p) = packed_ahead() {
            return Ok(Cow::Borrowed(&p.stored));
        }
    }
    let mut inner = Writer::new();
    body(value, &mut inner)?;
    let payload = inner.as_slice();
    if let Some(s) = kept(stored, payload) {
        return Ok(Cow::Borrowed(s));
    }
    match packed_ahead() {
        Some(p) => Ok(Cow::Borrowed(&p.stored)),
        None => Ok(Cow::Owned(lzhuf::compress(payload)?)),
    }
}

/// The stored bytes of a compressed chunk, if they still decode to its payload.
fn kept<'a>(stored: Option<&'a [u8]>, payload: &[u8]) -> Option<&'a [u8]> {
    stored.filter(|s| lzhuf::decompress(s).is_ok_and(|p| p == payload))
}

/// [`write_framed`] for every chunk of `chunks` in order, with the compressed ones serialised
/// and packed in parallel first: an LZHUF stream is sequential, so a file's several packed
/// chunks (vertex, index and SWI buffers of XRLC 12) are where the parallelism is. A
/// compressed chunk equal to one of `ahead` takes that one's packed bytes.
pub fn write_all_framed<T: Sync + PartialEq>(
    w: &mut Writer,
    ctx: Context,
    chunks: &[Framed<T>],
    ahead: &[Packed<T>],
    body: impl Fn(&T, &mut Writer) -> Result<(), WriteError> + Sync,
) -> Result<(), WriteError> {
    let packed = chunks
        .par_iter()
        .map(|c| {
            if c.raw_id & COMPRESSED == 0 {
                return Ok(None);
            }
            let seg = || name(ctx, c.id()).segment();
            pack(c.stored.as_deref(), &c.value, ahead, &body)
                .map(Some)
                .map_err(|e| e.within(&seg()))
        })
        .collect::<Result<Vec<_>, WriteError>>()?;
    for (c, packed) in chunks.iter().zip(packed) {
        match packed {
            Some(p) => {
                let size: u32 = fit(p.len(), || "chunk size".into())
                    .map_err(|e| e.within(&name(ctx, c.id()).segment()))?;
                w.u32(c.raw_id);
                w.u32(size);
                w.bytes(&p);
            }
            None => write_framed(w, ctx, c, &body)?,
        }
    }
    Ok(())
}

/// Write a [`Framed`] value whose payload `body` serialises; errors get the chunk's path
/// segment (its [`name`] in `ctx`) in front.
pub fn write_framed<T>(
    w: &mut Writer,
    ctx: Context,
    c: &Framed<T>,
    body: impl FnOnce(&T, &mut Writer) -> Result<(), WriteError>,
) -> Result<(), WriteError> {
    let seg = || name(ctx, c.id()).segment();
    if c.raw_id & COMPRESSED == 0 {
        // in place: header with a size patched after the payload, no payload copy
        w.u32(c.raw_id);
        let at = w.len();
        w.u32(0);
        body(&c.value, w).map_err(|e| e.within(&seg()))?;
        let size: u32 =
            fit(w.len() - at - 4, || "chunk size".into()).map_err(|e| e.within(&seg()))?;
        w.patch_u32(at, size);
        return Ok(());
    }
    let mut inner = Writer::new();
    body(&c.value, &mut inner).map_err(|e| e.within(&seg()))?;
    write(w, c.raw_id, c.stored.as_deref(), inner.as_slice()).map_err(|e| e.within(&seg()))
}

/// Read a file (or payload) as a list of raw chunks, for unknown chunk files.
pub fn read_raw(r: &mut Reader<'_>) -> Result<Vec<RawChunk>, ReadError> {
    read_all(r, Context::Chunks, |_, b| Ok(b.take_rest().to_vec()))
}

/// Write raw chunks back.
pub fn write_raw(w: &mut Writer, chunks: &[RawChunk]) -> Result<(), WriteError> {
    for c in chunks {
        write_framed(w, Context::Chunks, c, |v, w| {
            w.bytes(v);
            Ok(())
        })?;
    }
    Ok(())
}

/// One chunk of a file as listed by [`list`] / [`crate::chunks`].
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct ChunkEntry {
    /// Path of names from the [`name`] table, e.g. `fsL_VISUALS/visual[3]/OGF_GCONTAINER`.
    pub path: String,
    /// The chunk id (compression flag removed); `None` for the regions of a `level.cform`.
    pub id: Option<u32>,
    /// Absolute file offset of the 8-byte header (of the region, for a `level.cform`).
    pub offset: u64,
    /// Payload bytes as stored (the compressed size for a compressed chunk).
    pub size: u64,
    /// Bit 31 of the id: the payload is LZHUF-compressed.
    pub compressed: bool,
    /// Nesting depth, 0 for top-level chunks.
    pub depth: usize,
    /// For a compressed chunk: the uncompressed size its payload declares (its `u32` prefix).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decoded_size: Option<u64>,
}

/// Step into the next chunk of `r`: its name in `ctx` pushed onto the path (the caller pops),
/// its header, and a reader bounded to its payload.
fn enter<'a>(r: &mut Reader<'a>, ctx: Context) -> Result<(Name, Head, Reader<'a>), ReadError> {
    if r.remaining() < 8 {
        return Err(r.invalid(format!(
            "{} stray bytes where a chunk header (8 bytes) should start",
            r.remaining()
        )));
    }
    let id = r.peek_array::<4>().map_or(0, u32::from_le_bytes) & !COMPRESSED;
    let n = name(ctx, id);
    r.push(n.name, n.index);
    let head = read_head(r)?;
    let body = r.sub(head.size as usize)?;
    Ok((n, head, body))
}

/// List every chunk of `r` (a whole chunk file read in `ctx`) with nested chunks, depth first.
/// Chunks inside compressed payloads are not listed (their offsets would not be file offsets);
/// in [`Context::Chunks`] a payload is walked only when it tiles into chunks exactly.
pub fn list(r: &mut Reader<'_>, ctx: Context) -> Result<Vec<ChunkEntry>, ReadError> {
    let mut out = Vec::new();
    list_into(r, ctx, 0, &mut out)?;
    Ok(out)
}

fn list_into(
    r: &mut Reader<'_>,
    ctx: Context,
    depth: usize,
    out: &mut Vec<ChunkEntry>,
) -> Result<(), ReadError> {
    while !r.is_empty() {
        let (n, head, mut body) = enter(r, ctx)?;
        let decoded_size = if head.compressed() {
            body.peek_array::<4>()
                .map(|b| u64::from(u32::from_le_bytes(b)))
        } else {
            None
        };
        out.push(ChunkEntry {
            path: r.path().to_string(),
            id: Some(head.id()),
            offset: head.at as u64,
            size: u64::from(head.size),
            compressed: head.compressed(),
            depth,
            decoded_size,
        });
        if let (Some(c), false) = (n.children, head.compressed()) {
            let c = refine(c, body.rest());
            if c != Context::Chunks || tiles(body.rest()) {
                list_into(&mut body, c, depth + 1, out)?;
            }
        }
        r.pop();
    }
    Ok(())
}

/// True when `bytes` split exactly into a sequence of chunk headers and payloads.
pub fn tiles(bytes: &[u8]) -> bool {
    let mut pos = 0usize;
    while pos < bytes.len() {
        let Some(h) = bytes.get(pos..pos.saturating_add(8)) else {
            return false;
        };
        let size = u32::from_le_bytes([h[4], h[5], h[6], h[7]]) as usize;
        match pos.checked_add(8).and_then(|p| p.checked_add(size)) {
            Some(next) if next <= bytes.len() => pos = next,
            _ => return false,
        }
    }
    !bytes.is_empty()
}

/// The ids of the top-level chunk headers of `bytes` (including a last one whose payload does
/// not fit), and whether the chunks tile the bytes exactly.
pub fn scan_ids(bytes: &[u8]) -> (Vec<u32>, bool) {
    let mut ids = Vec::new();
    let mut pos = 0usize;
    while let Some(h) = bytes.get(pos..pos.saturating_add(8)) {
        ids.push(u32::from_le_bytes([h[0], h[1], h[2], h[3]]) & !COMPRESSED);
        let size = u32::from_le_bytes([h[4], h[5], h[6], h[7]]) as usize;
        match pos.checked_add(8).and_then(|p| p.checked_add(size)) {
            Some(next) if next <= bytes.len() => pos = next,
            _ => return (ids, false),
        }
    }
    let ok = pos == bytes.len() && !bytes.is_empty();
    (ids, ok)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn packed_ahead_holds_the_packed_payload_of_its_value() {
        let p = Packed::new(b"abcabcabcabc".to_vec(), |v, w| {
            w.bytes(v);
            Ok(())
        })
        .unwrap();
        assert_eq!(lzhuf::decompress(&p.stored).unwrap(), b"abcabcabcabc");
    }

    #[test]
    fn a_chunk_packed_ahead_is_taken_only_for_its_own_payload() {
        // marker bytes no packing would make, to see which chunk took them
        let ahead = [Packed {
            value: b"vertex bytes".to_vec(),
            stored: b"MARK".to_vec(),
        }];
        // a chunk read with stored bytes that still decode to its payload keeps them
        let kept = lzhuf::compress(b"vertex bytes").unwrap();
        let chunks = vec![
            Framed::plain(9 | COMPRESSED, b"vertex bytes".to_vec()),
            Framed::plain(10 | COMPRESSED, b"vertex bytes!".to_vec()),
            Framed::plain(11, b"vertex bytes".to_vec()),
            Framed {
                raw_id: 12 | COMPRESSED,
                stored: Some(kept.clone()),
                value: b"vertex bytes".to_vec(),
            },
        ];
        let mut w = Writer::new();
        write_all_framed(&mut w, Context::Chunks, &chunks, &ahead, |v, w| {
            w.bytes(v);
            Ok(())
        })
        .unwrap();
        let file = w.into_inner();
        let packed = lzhuf::compress(b"vertex bytes!").unwrap();
        let mut want = Writer::new();
        for (id, body) in [
            (9 | COMPRESSED, &b"MARK"[..]),
            (10 | COMPRESSED, &packed[..]),
            (11, &b"vertex bytes"[..]),
            (12 | COMPRESSED, &kept[..]),
        ] {
            want.u32(id);
            want.u32(body.len() as u32);
            want.bytes(body);
        }
        assert_eq!(file, want.into_inner());
    }

    #[test]
    fn raw_chunks_round_trip_and_compressed_ones_keep_their_bytes() {
        let payload = b"hello hello hello hello".to_vec();
        let mut stored = lzhuf::compress(&payload).unwrap();
        let mut w = Writer::new();
        w.u32(7);
        w.u32(3);
        w.bytes(&[1, 2, 3]);
        w.u32(9 | COMPRESSED);
        w.u32(stored.len() as u32);
        w.bytes(&stored);
        let file = w.into_inner();
        let chunks = read_raw(&mut Reader::new(&file)).unwrap();
        assert_eq!(chunks.len(), 2);
        assert_eq!(chunks[0].value, vec![1, 2, 3]);
        assert_eq!(chunks[1].id(), 9);
        assert_eq!(chunks[1].value, payload);
        let mut w = Writer::new();
        write_raw(&mut w, &chunks).unwrap();
        assert_eq!(w.into_inner(), file);
        // a changed payload is re-compressed and still decodes
        let mut changed = chunks.clone();
        changed[1].value.push(b'!');
        let mut w = Writer::new();
        write_raw(&mut w, &changed).unwrap();
        let again = read_raw(&mut Reader::new(w.as_slice())).unwrap();
        assert_eq!(again[1].value, b"hello hello hello hello!");
        stored.clear();
    }

    #[test]
    fn oversized_chunk_is_an_error_with_offset() {
        let file = [
            1, 0, 0, 0, 4, 0, 0, 0, 14, 0, 0, 0, 2, 0, 0, 0, 50, 0, 0, 0, 1,
        ];
        let e = read_raw(&mut Reader::new(&file)).unwrap_err();
        assert_eq!(e.offset, 12);
        assert!(e.to_string().contains("chunk 2 claims 50 bytes"), "{e}");
        assert!(!tiles(&file));
        assert_eq!(scan_ids(&file), (vec![1, 2], false));
        assert_eq!(scan_ids(&file[..12]), (vec![1], true));
    }
}
