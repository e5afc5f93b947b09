//! What `levelgeom info` shows about one X-Ray file: a typed, serialisable summary ([`Info`]),
//! printed as text by its `Display` and as JSON through serde.
//!
//! JSON: `{"file", "size", "format", "chunks": [{"path", "id", "offset", "size", "compressed",
//! "depth", "decoded_size"?}], …}` plus per format `xray-geom` (`version`, `quality`,
//! `vertex_buffers`, `index_buffers`, `swis`), `xray-level` (`version`, `quality` (null up to XRLC 12), `name` (XRLC 4–10), `shaders`,
//! `visuals`, `portals`, `lights`, `glows`, `sectors`, `build`), `xray-cform` (`version`, `vertices`,
//! `faces`), `xray-hom` / `xray-som` (`version`, `polygons`, `two_sided`, `bbox`, and for the SOM
//! `occlusion`: `[{"factor", "polygons"}]`), `xray-ai` ([`crate::ai::AiInfo`]), `xray-details`
//! ([`crate::details::DetailsInfo`]) or `xray-chunks` (the chunk list only); `warnings` when
//! there are any.

use std::fmt;

use levelgeom_binary::{ReadError, Warning};
use serde::Serialize;

use crate::cform::Cform;
use crate::chunk::ChunkEntry;
use crate::decl::{DeclType, Usage};
use crate::files::Opened;
use crate::geom::Geom;
use crate::level::Level;

/// The summary of one file.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Info {
    /// The path as the caller displays it.
    pub file: String,
    /// File size in bytes.
    pub size: u64,
    /// Format-specific part, tagged by `format`.
    #[serde(flatten)]
    pub body: Body,
    /// Every chunk (nested ones included), or the regions of a `level.cform`.
    pub chunks: Vec<ChunkEntry>,
    /// Read warnings, as text.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

/// The format-specific part of [`Info`].
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "format")]
pub enum Body {
    /// `level.geom` / `level.geomx`.
    #[serde(rename = "xray-geom")]
    Geom(GeomInfo),
    /// `level`.
    #[serde(rename = "xray-level")]
    Level(LevelInfo),
    /// `level.cform`.
    #[serde(rename = "xray-cform")]
    Cform(CformInfo),
    /// `level.hom`.
    #[serde(rename = "xray-hom")]
    Hom(crate::occluders::OccludersInfo),
    /// `level.som`.
    #[serde(rename = "xray-som")]
    Som(crate::occluders::OccludersInfo),
    /// `level.ai`.
    #[serde(rename = "xray-ai")]
    Ai(Box<crate::ai::AiInfo>),
    /// `level.details`.
    #[serde(rename = "xray-details")]
    Details(crate::details::DetailsInfo),
    /// Another chunk file.
    #[serde(rename = "xray-chunks")]
    Chunks {},
}

impl Body {
    /// The `format` name.
    pub fn format(&self) -> &'static str {
        match self {
            Body::Geom(_) => "xray-geom",
            Body::Level(_) => "xray-level",
            Body::Cform(_) => "xray-cform",
            Body::Hom(_) => "xray-hom",
            Body::Som(_) => "xray-som",
            Body::Ai(_) => "xray-ai",
            Body::Details(_) => "xray-details",
            Body::Chunks {} => "xray-chunks",
        }
    }
}

/// One element of a vertex declaration.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct LayoutInfo {
    /// Byte offset in the vertex.
    pub offset: u16,
    /// `D3DDECLTYPE` code.
    #[serde(rename = "type")]
    pub ty: u8,
    /// Its name (`FLOAT3`, `?` when unknown).
    pub type_name: &'static str,
    /// `D3DDECLUSAGE` code.
    pub usage: u8,
    /// Its name (`POSITION`, `?`).
    pub usage_name: &'static str,
    /// Usage index.
    pub usage_index: u8,
}

/// One vertex buffer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct VertexBufferInfo {
    /// Vertex count.
    pub vertices: u32,
    /// Bytes per vertex.
    pub stride: usize,
    /// The declaration.
    pub layout: Vec<LayoutInfo>,
}

/// One index buffer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct IndexBufferInfo {
    /// Index count.
    pub indices: usize,
}

/// One SWI item.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SwiInfo {
    /// Number of windows.
    pub windows: usize,
}

/// `level.geom` / `level.geomx`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct GeomInfo {
    /// XRLC version from the header.
    pub version: Option<u16>,
    /// Header quality word.
    pub quality: Option<u16>,
    /// Vertex buffers.
    pub vertex_buffers: Vec<VertexBufferInfo>,
    /// Index buffers.
    pub index_buffers: Vec<IndexBufferInfo>,
    /// SWI items.
    pub swis: Vec<SwiInfo>,
}

/// One visual of a level.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct VisualInfo {
    /// Model type name (`normal`, `hierarchy`, …; `unknown`).
    #[serde(rename = "type")]
    pub ty: &'static str,
    /// Model type code (255 without a header).
    pub type_id: u8,
    /// Shader table index.
    pub shader_id: u16,
    /// The shader table entry (empty when out of range).
    pub shader: String,
    /// Ids of its chunks in file order.
    pub chunks: Vec<u32>,
    /// `vb_index, vb_offset, vb_count, ib_index, ib_offset, ib_count`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gcontainer: Option<[u32; 6]>,
    /// Inline SWI windows.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub swi_windows: Option<usize>,
    /// Child visuals.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub children: Option<Vec<u32>>,
    /// OGF format version from the header (2, 3 or 4; `None` without a header).
    pub ogf_version: Option<u8>,
}

/// One sector.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SectorInfo {
    /// Root visual.
    pub root: Option<u32>,
    /// Portal ids.
    pub portals: Vec<u16>,
}

/// `level`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct LevelInfo {
    /// XRLC version.
    pub version: Option<u16>,
    /// Build quality (`None` for XRLC 4–12, whose header has no quality field).
    pub quality: Option<u16>,
    /// The level's name in an XRLC 4–10 header (`None` for a 4-byte header).
    pub name: Option<String>,
    /// Shader table entries as text.
    pub shaders: Vec<String>,
    /// Visuals.
    pub visuals: Vec<VisualInfo>,
    /// Portal count.
    pub portals: usize,
    /// Dynamic light count.
    pub lights: usize,
    /// Glow count.
    pub glows: usize,
    /// Sectors.
    pub sectors: Vec<SectorInfo>,
    /// Builds of the game known to have written this XRLC version ([`crate::level::build_hint`]).
    pub build: Option<String>,
}

/// `level.cform`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CformInfo {
    /// Version (4).
    pub version: u32,
    /// Vertex count.
    pub vertices: usize,
    /// Triangle count.
    pub faces: usize,
}

fn geom_info(g: &Geom) -> GeomInfo {
    let h = g.header();
    GeomInfo {
        version: h.map(|h| h.version),
        quality: h.map(|h| h.quality),
        vertex_buffers: g
            .vertex_buffers()
            .unwrap_or(&[])
            .iter()
            .map(|vb| VertexBufferInfo {
                vertices: vb.count,
                stride: vb.stride(),
                layout: vb
                    .decl
                    .elements
                    .iter()
                    .map(|e| LayoutInfo {
                        offset: e.offset,
                        ty: e.ty,
                        type_name: DeclType::from_code(e.ty).map_or("?", DeclType::name),
                        usage: e.usage,
                        usage_name: Usage::from_code(e.usage).map_or("?", Usage::name),
                        usage_index: e.usage_index,
                    })
                    .collect(),
            })
            .collect(),
        index_buffers: g
            .index_buffers()
            .unwrap_or(&[])
            .iter()
            .map(|ib| IndexBufferInfo { indices: ib.len() })
            .collect(),
        swis: g
            .swis()
            .iter()
            .map(|s| SwiInfo {
                windows: s.windows.len(),
            })
            .collect(),
    }
}

/// The chunks of a `level.geom` as [`geom_summary`] reads them: only what [`GeomInfo`] shows.
enum Walked {
    Header(crate::geom::Header),
    VertexBuffers(Vec<VertexBufferInfo>),
    IndexBuffers(Vec<IndexBufferInfo>),
    Swis(Vec<SwiInfo>),
    Other,
}

fn layout(decl: &crate::decl::Declaration) -> Vec<LayoutInfo> {
    decl.elements
        .iter()
        .map(|e| LayoutInfo {
            offset: e.offset,
            ty: e.ty,
            type_name: DeclType::from_code(e.ty).map_or("?", DeclType::name),
            usage: e.usage,
            usage_name: Usage::from_code(e.usage).map_or("?", Usage::name),
            usage_index: e.usage_index,
        })
        .collect()
}

/// The [`GeomInfo`] of a `level.geom` / `level.geomx` without decoding or copying its buffers:
/// the chunks are walked, declarations and counts read, vertex and index data only checked
/// against the bytes that hold them and skipped. The checks are [`Geom::read`]'s (counts
/// against the remaining bytes, zero strides, chunk ends, both buffer chunks present), so the
/// same files are refused.
pub fn geom_summary(bytes: &[u8], limits: levelgeom_binary::Limits) -> Result<GeomInfo, ReadError> {
    use crate::chunk::{self, Context};
    use crate::geom;
    let mut r = levelgeom_binary::Reader::with_limits(bytes, limits);
    let chunks = chunk::read_all(&mut r, Context::Geom, |h, b| {
        Ok(match h.id() {
            geom::HEADER => Walked::Header(geom::Header::read(b)?),
            geom::VB => {
                let n = b.u32_count(12)?;
                let mut out = Vec::with_capacity(n);
                for i in 0..n {
                    b.push("vb", Some(i));
                    let decl = crate::decl::Declaration::read(b)?;
                    let stride = decl.stride();
                    let at = b.pos();
                    let count = b.u32()?;
                    let len = b.count(count, stride).map_err(|mut e| {
                        e.offset = at as u64;
                        e
                    })?;
                    b.skip(len * stride)?;
                    if stride == 0 && count > 0 {
                        return Err(b.invalid_at(at, "vertices declared with a zero-byte stride"));
                    }
                    out.push(VertexBufferInfo {
                        vertices: count,
                        stride,
                        layout: layout(&decl),
                    });
                    b.pop();
                }
                b.finish()?;
                Walked::VertexBuffers(out)
            }
            geom::IB => {
                let n = b.u32_count(4)?;
                let mut out = Vec::with_capacity(n);
                for i in 0..n {
                    b.push("ib", Some(i));
                    let k = b.u32_count(2)?;
                    b.skip(k * 2)?;
                    out.push(IndexBufferInfo { indices: k });
                    b.pop();
                }
                b.finish()?;
                Walked::IndexBuffers(out)
            }
            geom::SWIS => Walked::Swis(
                geom::read_swis(b)?
                    .iter()
                    .map(|s| SwiInfo {
                        windows: s.windows.len(),
                    })
                    .collect(),
            ),
            _ => {
                b.take_rest();
                Walked::Other
            }
        })
    })?;
    let mut info = GeomInfo {
        version: None,
        quality: None,
        vertex_buffers: Vec::new(),
        index_buffers: Vec::new(),
        swis: Vec::new(),
    };
    let (mut header, mut vb, mut ib, mut sw) = (false, false, false, false);
    // the first chunk of each kind counts, as Geom's accessors take the first
    for c in chunks {
        match c.value {
            Walked::Header(h) if !header => {
                header = true;
                info.version = Some(h.version);
                info.quality = Some(h.quality);
            }
            Walked::VertexBuffers(v) if !vb => {
                vb = true;
                info.vertex_buffers = v;
            }
            Walked::IndexBuffers(v) if !ib => {
                ib = true;
                info.index_buffers = v;
            }
            Walked::Swis(v) if !sw => {
                sw = true;
                info.swis = v;
            }
            _ => {}
        }
    }
    if !vb || !ib {
        return Err(ReadError::invalid(
            0,
            Default::default(),
            "not a level.geom: vertex buffer chunk 9 or index buffer chunk 10 is missing",
        ));
    }
    Ok(info)
}

fn level_info(l: &Level) -> LevelInfo {
    let h = l.header();
    let shaders = l.shaders().unwrap_or(&[]);
    LevelInfo {
        version: h.map(|h| h.version),
        // up to XRLC 12 the second u16 is the version word's high half, not a quality
        quality: h.filter(|h| h.version >= 13).map(|h| h.quality),
        name: l.header_name(),
        shaders: shaders.iter().map(|s| s.text()).collect(),
        visuals: l
            .visuals()
            .iter()
            .map(|v| {
                let hd = v.header();
                // OGF 2/3 (XRLC 4–12): the short header's code as stored, named by type_name
                let short = v.short_header();
                let t = hd.map_or(short.map_or(u8::MAX, |s| s.1), |h| h.model_type);
                let sid = hd.map_or(short.map_or(0, |s| s.2), |h| h.shader_id);
                VisualInfo {
                    ogf_version: hd.map(|h| h.format_version).or(short.map(|s| s.0)),
                    ty: v.type_name(),
                    type_id: t,
                    shader_id: sid,
                    shader: shaders
                        .get(usize::from(sid))
                        .map(|s| s.text())
                        .unwrap_or_default(),
                    chunks: v.chunks.iter().map(|c| c.id()).collect(),
                    gcontainer: v.gcontainer().map(|g| {
                        [
                            g.vb_index,
                            g.vb_offset,
                            g.vb_count,
                            g.ib_index,
                            g.ib_offset,
                            g.ib_count,
                        ]
                    }),
                    swi_windows: v.swidata().map(|s| s.windows.len()),
                    children: Some(v.children().to_vec()).filter(|c| !c.is_empty()),
                }
            })
            .collect(),
        portals: l.portals().len(),
        lights: l.lights().len() + l.old_lights().len(),
        glows: l.glows().len() + l.old_glows().len(),
        sectors: l
            .sectors()
            .iter()
            .map(|s| SectorInfo {
                root: s.value.root(),
                portals: s.value.portals().to_vec(),
            })
            .collect(),
        build: h.and_then(|h| crate::level::build_hint(h.version)),
    }
}

fn cform_info(c: &Cform) -> CformInfo {
    CformInfo {
        version: c.version,
        vertices: c.vertices.len(),
        faces: c.tris.len(),
    }
}

impl Info {
    /// Read `bytes` (any X-Ray file) and summarise it; `file` is how the caller names it.
    pub fn read(file: &str, bytes: &[u8]) -> Result<Info, ReadError> {
        // XRLC 4–12 keep their buffers inside `level`: walked, not decoded
        if crate::kind(bytes) == Some(crate::Kind::Level)
            && matches!(crate::level::version_of(bytes), Some(4..=12))
        {
            let l = Level::read_summary(bytes, levelgeom_binary::Limits::DEFAULT)?;
            return Info::new(file, bytes, &Opened::Level(l), &[]);
        }
        let (opened, warnings) = Opened::read(bytes).unwrap_or_else(|| {
            Err(ReadError::invalid(
                0,
                Default::default(),
                "not an X-Ray level file",
            ))
        })?;
        Info::new(file, bytes, &opened, &warnings)
    }

    /// The summary of a `level.geom` / `level.geomx` read by [`geom_summary`] (no buffer
    /// decoded or copied): the same value as [`Info::new`] of the parsed file.
    pub fn read_geom(
        file: &str,
        bytes: &[u8],
        limits: levelgeom_binary::Limits,
    ) -> Result<Info, ReadError> {
        Ok(Info {
            file: file.to_string(),
            size: bytes.len() as u64,
            body: Body::Geom(geom_summary(bytes, limits)?),
            chunks: crate::chunks(bytes)?,
            warnings: Vec::new(),
        })
    }

    /// Summarise a file already opened from `bytes`.
    pub fn new(
        file: &str,
        bytes: &[u8],
        opened: &Opened,
        warnings: &[Warning],
    ) -> Result<Info, ReadError> {
        let body = match opened {
            Opened::Geom(g) => Body::Geom(geom_info(g)),
            Opened::Level(l) => Body::Level(level_info(l)),
            Opened::Cform(c) => Body::Cform(cform_info(c)),
            Opened::Hom(h) => Body::Hom(h.info()),
            Opened::Som(s) => Body::Som(s.info()),
            Opened::Ai(a) => Body::Ai(Box::new(a.info())),
            Opened::Details(d) => Body::Details(d.info()),
            Opened::Chunks(_) => Body::Chunks {},
        };
        Ok(Info {
            file: file.to_string(),
            size: bytes.len() as u64,
            body,
            chunks: crate::chunks(bytes)?,
            warnings: warnings.iter().map(ToString::to_string).collect(),
        })
    }
}

/// `n thing` / `n things`.
fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

impl fmt::Display for Info {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{}: {}", self.file, self.body.format())?;
        self.write_version(f)?;
        self.write_chunks(f)?;
        match &self.body {
            Body::Geom(g) => write_geom(f, g)?,
            Body::Level(l) => write_level(f, l)?,
            Body::Cform(c) => writeln!(
                f,
                "  {}, {}",
                count(c.vertices, "vertex", "vertices"),
                count(c.faces, "face", "faces")
            )?,
            Body::Hom(o) | Body::Som(o) => write_occluders(f, o)?,
            Body::Ai(a) => write_ai(f, a)?,
            Body::Details(d) => write_details(f, d)?,
            Body::Chunks {} => {}
        }
        for w in &self.warnings {
            writeln!(f, "  warning: {w}")?;
        }
        if !self.warnings.is_empty() {
            writeln!(f, "  {}", count(self.warnings.len(), "warning", "warnings"))?;
        }
        Ok(())
    }
}

impl Info {
    /// The version line (with the build or quality where the file has one).
    fn write_version(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (version, quality) = match &self.body {
            Body::Geom(g) => (g.version.map(u32::from), g.quality),
            Body::Level(l) => (l.version.map(u32::from), l.quality),
            Body::Cform(c) => (Some(c.version), None),
            Body::Hom(o) | Body::Som(o) => (o.version, None),
            Body::Ai(a) => (Some(a.version), None),
            Body::Details(d) => (d.version, None),
            Body::Chunks {} => (None, None),
        };
        match (version, quality) {
            (Some(v), None) if matches!(self.body, Body::Level(_)) => {
                // XRLC 4–12: no quality field; the name where the header has one
                let mut line = format!("  XRLC version {v}");
                if let Body::Level(l) = &self.body {
                    if let Some(b) = &l.build {
                        line += &format!(" ({b})");
                    }
                    if let Some(n) = &l.name {
                        line += &format!(", name {n:?}");
                    }
                }
                writeln!(f, "{line}")?
            }
            (Some(v), Some(q)) => {
                // the builds of an old XRLC version (13/14 lines stay as they were)
                let build = match &self.body {
                    Body::Level(LevelInfo { build: Some(b), .. }) if v <= 12 => format!(" ({b})"),
                    _ => String::new(),
                };
                writeln!(f, "  XRLC version {v}{build}, quality {q}")?
            }
            (Some(v), None) => writeln!(f, "  version {v}")?,
            _ => {}
        }
        Ok(())
    }

    /// The chunk table.
    fn write_chunks(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "  {:<10}  {:>10}  {:<11}  {:>10}  path",
            "offset", "size", "compression", "decoded"
        )?;
        for c in &self.chunks {
            let (comp, decoded) = match (c.compressed, c.decoded_size) {
                (true, Some(d)) => ("LZHUF", d.to_string()),
                (true, None) => ("LZHUF", "?".to_string()),
                (false, _) => ("-", String::new()),
            };
            writeln!(
                f,
                "  0x{:08X}  {:>10}  {comp:<11}  {decoded:>10}  {}",
                c.offset, c.size, c.path
            )?;
        }
        Ok(())
    }
}

/// The vertex and index buffers of a `level.geom`.
fn write_geom(f: &mut fmt::Formatter<'_>, g: &GeomInfo) -> fmt::Result {
    for (i, vb) in g.vertex_buffers.iter().enumerate() {
        let layout: Vec<String> = vb
            .layout
            .iter()
            .map(|e| {
                format!(
                    "{}:{} {}{}",
                    e.offset, e.type_name, e.usage_name, e.usage_index
                )
            })
            .collect();
        writeln!(
            f,
            "  vertex buffer {i}: {} × {} bytes [{}]",
            count(vb.vertices as usize, "vertex", "vertices"),
            vb.stride,
            layout.join(", ")
        )?;
    }
    for (i, ib) in g.index_buffers.iter().enumerate() {
        writeln!(
            f,
            "  index buffer {i}: {}",
            count(ib.indices, "index", "indices")
        )?;
    }
    writeln!(f, "  SWI items: {}", g.swis.len())?;
    Ok(())
}

/// The shaders, visuals and counts of a `level`.
fn write_level(f: &mut fmt::Formatter<'_>, l: &LevelInfo) -> fmt::Result {
    writeln!(f, "  shaders: {}", l.shaders.len())?;
    for (i, s) in l.shaders.iter().enumerate() {
        writeln!(f, "    {i}: {s}")?;
    }
    writeln!(f, "  visuals: {}", l.visuals.len())?;
    for (i, v) in l.visuals.iter().enumerate() {
        let children = v
            .children
            .as_ref()
            .map(|c| {
                let ids: Vec<String> = c.iter().map(u32::to_string).collect();
                format!(" children [{}]", ids.join(","))
            })
            .unwrap_or_default();
        writeln!(f, "    {i}: {} shader {}{children}", v.ty, v.shader_id)?;
    }
    writeln!(
        f,
        "  portals {}, lights {}, glows {}, sectors {}",
        l.portals,
        l.lights,
        l.glows,
        l.sectors.len()
    )?;
    Ok(())
}

/// The polygons of a `level.hom` / `level.som`.
fn write_occluders(f: &mut fmt::Formatter<'_>, o: &crate::occluders::OccludersInfo) -> fmt::Result {
    writeln!(
        f,
        "  {} ({} two-sided)",
        count(o.polygons, "polygon", "polygons"),
        o.two_sided
    )?;
    if let Some([lo, hi]) = o.bbox {
        writeln!(f, "  bounds {lo:?} – {hi:?}")?;
    }
    if let Some(occ) = &o.occlusion {
        let list: Vec<String> = occ
            .iter()
            .map(|o| format!("{} × {}", o.factor, o.polygons))
            .collect();
        writeln!(f, "  occlusion factors: {}", list.join(", "))?;
    }
    Ok(())
}

/// The header and node statistics of a `level.ai`.
fn write_ai(f: &mut fmt::Formatter<'_>, a: &crate::ai::AiInfo) -> fmt::Result {
    if let Some(b) = a.builds {
        writeln!(f, "  builds {b}")?;
    }
    writeln!(
        f,
        "  {} of cell {} m, height range {} m, grid {} × {}",
        count(a.count as usize, "node", "nodes"),
        a.cell_size,
        a.size_y,
        a.grid[0],
        a.grid[1]
    )?;
    writeln!(f, "  bounds {:?} – {:?}", a.bbox[0], a.bbox[1])?;
    if let Some(g) = &a.guid {
        writeln!(f, "  guid {g}")?;
    }
    match (a.node_size, a.decoded) {
        (Some(s), Some(d)) => writeln!(f, "  {d} nodes decoded, {s} bytes each")?,
        _ => writeln!(
            f,
            "  nodes not decoded (no peer reads this version's nodes)"
        )?,
    }
    if let Some(l) = &a.light {
        writeln!(f, "  nodes per light 0–15: {l:?}")?;
    }
    if let Some(c) = &a.mean_cover {
        writeln!(f, "  nodes per mean cover 0–15: {c:?}")?;
    }
    Ok(())
}

/// The models and slots of a `level.details`.
fn write_details(f: &mut fmt::Formatter<'_>, d: &crate::details::DetailsInfo) -> fmt::Result {
    writeln!(
        f,
        "  {}",
        count(d.models.len(), "detail model", "detail models")
    )?;
    for (i, m) in d.models.iter().enumerate() {
        writeln!(
            f,
            "    {i}: {} / {}, {}, {}, scale {}–{}, flags {}",
            m.shader,
            m.texture,
            count(m.vertices, "vertex", "vertices"),
            count(m.triangles, "triangle", "triangles"),
            m.scale[0],
            m.scale[1],
            m.flags
        )?;
    }
    if let (Some([x, z]), Some([ox, oz])) = (d.grid, d.offset) {
        writeln!(f, "  slot grid {x} × {z} (offset {ox}, {oz}), 2 m slots")?;
    }
    if let Some([lo, hi]) = d.area {
        writeln!(f, "  area x {} … {}, z {} … {}", lo[0], hi[0], lo[1], hi[1])?;
    }
    if let (Some(s), Some(o)) = (d.slots, d.occupied) {
        writeln!(
            f,
            "  {} ({o} with detail objects)",
            count(s, "slot", "slots")
        )?;
    }
    Ok(())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use levelgeom_binary::Limits;

    fn full(bytes: &[u8]) -> Result<Info, ReadError> {
        let (g, w) = Geom::read(bytes)?;
        Info::new("g", bytes, &Opened::Geom(g), &w)
    }

    #[test]
    fn walked_geom_summary_equals_the_parsed_one() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/xray-v14-micro");
        let mut files = vec![
            std::fs::read(format!("{dir}/level.geom")).unwrap(),
            std::fs::read(format!("{dir}/level.geomx")).unwrap(),
            crate::bench_level::large(40).unwrap().geom,
        ];
        for compress in [false, true] {
            let opts = crate::generate::Options {
                compress,
                ..Default::default()
            };
            files.push(crate::generate::level_bytes(opts).1);
        }
        for bytes in &files {
            assert_eq!(
                Info::read_geom("g", bytes, Limits::DEFAULT).unwrap(),
                full(bytes).unwrap()
            );
            // damaged copies are refused alike: the same offset and message
            let step = (bytes.len() / 97).max(1);
            for cut in (0..bytes.len()).step_by(step) {
                let a = Info::read_geom("g", &bytes[..cut], Limits::DEFAULT);
                let b = full(&bytes[..cut]);
                match (a, b) {
                    (Ok(a), Ok(b)) => assert_eq!(a, b),
                    (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string(), "cut {cut}"),
                    (a, b) => panic!("cut {cut}: {a:?} vs {b:?}"),
                }
            }
        }
    }
}
