//! The typed level: every chunk of a WAD parsed into its model.
//!
//! [`Level::read`] walks the container ([`crate::container::Layout`]) and parses every
//! chunk's payload with a reader bounded to that payload, with the chunk tag on the error path
//! (`at 0x0001A2F0 in MAP/tiles[17]: …`), and requires each model to consume its payload
//! exactly. Chunks that depend on earlier ones get what they need: SPRT and STPC the WFPC flags,
//! MAP the WFPC flags and the TRAK vertex counts (docs/formats/argonaut-wad.md §2.7); a MAP before WFPC or TRAK is an
//! error. Tags without a typed model (RIMG, PRLT, unknown printable tags) are kept raw.
//!
//! Every [`Chunk`] remembers the absolute offset of its header in the file it was read from
//! ([`Chunk::offset`]), so a caller holding a level can list chunk offsets without walking the
//! container again.
//!
//! [`Level::to_bytes`] re-encodes every chunk and frames them with the container writer
//! ([`crate::container::write_wad`]). The size field is the declared size when the encoded
//! payload has its original length (this keeps quirks such as a MAP declared 4 bytes too
//! large) and the real length otherwise. The file header keeps its bias: verbatim when the
//! total length is unchanged, else `new_len − 4 + bias`. Writing fails with a
//! [`WriteError`] naming the field when an edited value does not fit the format (a model with
//! 70,000 vertices, a face naming a vertex that does not exist); an unchanged level always
//! writes.
//!
//! ```
//! use levelgeom_wad::Level;
//! let bytes = levelgeom_wad::generate::demo_level().unwrap();
//! let (level, warnings) = Level::read(&bytes).unwrap();
//! assert!(warnings.is_empty());
//! assert_eq!(level.chunks[0].offset, Some(4));
//! assert_eq!(level.to_bytes().unwrap(), bytes);
//! ```

use levelgeom_binary::{fit, ReadError, Reader, Warning, WriteError, Writer};

use crate::ampc::Ampc;
use crate::container::{write_wad, Layout};
use crate::font::Font;
use crate::lght::Lght;
use crate::lgpc::Lgpc;
use crate::lnfo::Lnfo;
use crate::map::Map;
use crate::name::Name;
use crate::smpc::Smpc;
use crate::sprt::Sprt;
use crate::srpc::Srpc;
use crate::stpc::Stpc;
use crate::tags::Tag;
use crate::text::Text;
use crate::trak::Trak;
use crate::wfpc::Wfpc;

/// A chunk's typed content.
// The variants are as large as their models (MAP holds its 256-byte zone table inline); a level
// has about twenty chunks, so boxing would only add indirection to every accessor.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq)]
pub enum ChunkData {
    /// `INFO`, raw (4 bytes, value 1 in Croc 2 PC).
    Info(Vec<u8>),
    /// `VERS`, raw.
    Vers(Vec<u8>),
    /// `WFPC`.
    Wfpc(Wfpc),
    /// `TEXT`.
    Text(Text),
    /// `FONT`.
    Font(Font),
    /// `SPRT`.
    Sprt(Sprt),
    /// `NAME`.
    Name(Name),
    /// `SMPC`.
    Smpc(Smpc),
    /// `AMPC`.
    Ampc(Ampc),
    /// `SRPC`.
    Srpc(Srpc),
    /// `TRAK`.
    Trak(Trak),
    /// `STPC`.
    Stpc(Stpc),
    /// `MAP `.
    Map(Map),
    /// `LGHT`.
    Lght(Lght),
    /// `LNFO`.
    Lnfo(Lnfo),
    /// `LGPC`.
    Lgpc(Lgpc),
    /// `END `, its payload (normally empty).
    End(Vec<u8>),
    /// Any other tag (RIMG, PRLT, unknown), raw.
    Unknown(Vec<u8>),
}

impl ChunkData {
    /// Encode the payload. Fails, naming the field (`TRAK/models[3]/vertex count`), when an
    /// edited value does not fit the format.
    pub fn encode(&self) -> Result<Vec<u8>, WriteError> {
        let mut w = Writer::new();
        match self {
            ChunkData::Info(b) | ChunkData::Vers(b) | ChunkData::End(b) | ChunkData::Unknown(b) => {
                w.bytes(b)
            }
            ChunkData::Wfpc(c) => c.write(&mut w),
            ChunkData::Text(c) => c.write(&mut w)?,
            ChunkData::Font(c) => c.write(&mut w),
            ChunkData::Sprt(c) => c.write(&mut w)?,
            ChunkData::Name(c) => c.write(&mut w),
            ChunkData::Smpc(c) => c.write(&mut w)?,
            ChunkData::Ampc(c) => c.write(&mut w),
            ChunkData::Srpc(c) => c.write(&mut w)?,
            ChunkData::Trak(c) => c.write(&mut w)?,
            ChunkData::Stpc(c) => c.write(&mut w)?,
            ChunkData::Map(c) => c.write(&mut w)?,
            ChunkData::Lght(c) => c.write(&mut w)?,
            ChunkData::Lnfo(c) => c.write(&mut w),
            ChunkData::Lgpc(c) => c.write(&mut w),
        }
        Ok(w.into_inner())
    }

    /// One line saying what the chunk holds (the `contents` column of `levelgeom info`), e.g.
    /// `32 models, 1423 vertices, 1528 faces, 1062 collision polygons`.
    pub fn summary(&self) -> String {
        use crate::text::Effects;
        match self {
            ChunkData::Info(b) | ChunkData::Vers(b) => format!("{} bytes (kept raw)", b.len()),
            ChunkData::Wfpc(w) => format!("flags 0x{:08X}", w.flags),
            ChunkData::Text(t) => {
                let count =
                    |name: &str| t.pages.iter().filter(|p| p.storage_name() == name).count();
                let effects = match &t.effects {
                    Effects::Absent => "no effects".to_string(),
                    Effects::List(l) => format!("{} effects", l.len()),
                    Effects::Raw(b) => format!("{} bytes of unparsed effects", b.len()),
                };
                format!(
                    "{} palettes, {} pages ({} rle, {} raw16, {} 8-bit), {} texture entries, {}",
                    t.palettes.len(),
                    t.pages.len(),
                    count("rle"),
                    count("raw16"),
                    count("8-bit"),
                    t.entries.len(),
                    effects
                )
            }
            ChunkData::Font(f) => plural(f.glyphs.len(), "glyph"),
            ChunkData::Sprt(s) => match &s.table {
                Some(t) => format!("material base {}, table of {}", s.material_base, t.len()),
                None => format!("material base {}", s.material_base),
            },
            ChunkData::Name(n) => format!("\"{}\"", n.text().escape_default()),
            ChunkData::Smpc(s) => plural(s.sounds.len(), "sound"),
            ChunkData::Ampc(a) => match a.count() {
                Some(n) => format!("{n} entries, {} bytes (kept raw)", a.raw.len()),
                None => format!("{} bytes (kept raw)", a.raw.len()),
            },
            ChunkData::Srpc(s) => plural(s.refs.len(), "speech reference"),
            ChunkData::Trak(t) => format!(
                "{}, {}, {}, {}",
                plural(t.models.len(), "model"),
                plural(
                    t.models.iter().map(|m| m.vertices.len()).sum::<usize>(),
                    "vertex"
                ),
                plural(
                    t.models.iter().map(|m| m.faces.len()).sum::<usize>(),
                    "face"
                ),
                plural(
                    t.models.iter().map(|m| m.collision.len()).sum::<usize>(),
                    "collision polygon"
                ),
            ),
            ChunkData::Stpc(s) => format!(
                "{}, {}, {} bytes of script data",
                plural(s.models.len(), "model"),
                plural(
                    usize::try_from(s.animation_count).unwrap_or(usize::MAX),
                    "animation"
                ),
                s.rest.len()
            ),
            ChunkData::Map(m) => format!(
                "{}×{} grid, {}, {}, {}",
                m.grid_w,
                m.grid_h,
                plural(m.tiles.len(), "tile"),
                plural(m.swaps.as_ref().map_or(0, |s| s.len()), "tile swap"),
                plural(m.objects.len(), "object")
            ),
            ChunkData::Lght(l) => plural(l.lights.len(), "light"),
            ChunkData::Lnfo(l) => format!("values {} {}", l.values[0], l.values[1]),
            ChunkData::Lgpc(l) => format!("{} rows × {} strings", l.rows(), l.cols),
            ChunkData::End(b) => format!("end, {} payload bytes", b.len()),
            ChunkData::Unknown(b) => format!("{} bytes (kept raw)", b.len()),
        }
    }
}

/// One chunk of a level.
///
/// Equality compares what the chunk writes (tag, size fields, content) and ignores
/// [`Chunk::offset`], which only says where it was read from: a level read back from the bytes
/// it wrote equals the level that wrote them.
#[derive(Clone, Debug)]
pub struct Chunk {
    /// The tag bytes as stored.
    pub tag: Tag,
    /// Absolute offset of the chunk's 8-byte header in the file it was read from
    /// ([`Level::read`]); `None` for chunks made with [`Chunk::new`].
    pub offset: Option<usize>,
    /// The size field as read (or, for new chunks, the payload length).
    pub declared_size: u32,
    /// The payload length when read; if the encoded payload still has this length,
    /// `declared_size` is written, otherwise the real length.
    pub original_len: usize,
    /// The content.
    pub data: ChunkData,
}

impl PartialEq for Chunk {
    fn eq(&self, other: &Chunk) -> bool {
        self.tag == other.tag
            && self.declared_size == other.declared_size
            && self.original_len == other.original_len
            && self.data == other.data
    }
}

impl Chunk {
    /// Absolute offset of the payload in the file it was read from (the header's offset +
    /// [`crate::container::CHUNK_HEADER`]); `None` for chunks made with [`Chunk::new`].
    pub fn payload_offset(&self) -> Option<usize> {
        self.offset
            .map(|o| o.saturating_add(crate::container::CHUNK_HEADER))
    }

    /// A new chunk whose size fields are set from its encoded payload (no offset). Fails
    /// when the data cannot be encoded or its payload does not fit the u32 size field.
    pub fn new(tag: Tag, data: ChunkData) -> Result<Chunk, WriteError> {
        let len = data.encode()?.len();
        Ok(Chunk {
            tag,
            offset: None,
            declared_size: fit(len, || format!("{}/size", tag.path_name()))?,
            original_len: len,
            data,
        })
    }
}

/// A parsed level WAD.
#[derive(Clone, Debug, PartialEq)]
pub struct Level {
    /// The u32 at offset 0 as read.
    pub header: u32,
    /// The length of the file the level was read from ([`Level::new`]: the length its chunks
    /// encode to). The header's bias is `header − (file_len − 4)`; [`Level::to_bytes`] keeps it
    /// however chunks are edited, added or removed.
    pub file_len: usize,
    /// The chunks in file order.
    pub chunks: Vec<Chunk>,
    /// Bytes after the END payload.
    pub trailing: Vec<u8>,
}

macro_rules! accessors {
    ($($(#[$doc:meta])* $name:ident, $name_mut:ident, $variant:ident, $ty:ty;)*) => {
        $(
            $(#[$doc])*
            pub fn $name(&self) -> Option<&$ty> {
                self.chunks.iter().find_map(|c| match &c.data {
                    ChunkData::$variant(x) => Some(x),
                    _ => None,
                })
            }
            /// Mutable form of the accessor of the same name.
            pub fn $name_mut(&mut self) -> Option<&mut $ty> {
                self.chunks.iter_mut().find_map(|c| match &mut c.data {
                    ChunkData::$variant(x) => Some(x),
                    _ => None,
                })
            }
        )*
    };
}

fn parse_chunk(
    bytes: &[u8],
    tag: Tag,
    payload_offset: usize,
    payload_len: usize,
    wfpc: Option<u32>,
    trak_counts: Option<&[usize]>,
    warnings: &mut Vec<Warning>,
) -> Result<ChunkData, ReadError> {
    let mut outer = Reader::new(bytes);
    outer.skip(payload_offset)?;
    outer.push(tag.path_name(), None);
    let mut r = outer.sub(payload_len)?;
    let wfpc_or_zero = |r: &Reader<'_>, warnings: &mut Vec<Warning>| match wfpc {
        Some(f) => f,
        None => {
            warnings.push(r.warning_at(
                payload_offset,
                "no WFPC chunk before this chunk: reading it with flags 0",
            ));
            0
        }
    };
    if (tag == Tag::INFO || tag == Tag::VERS) && r.rest() != [1, 0, 0, 0] {
        warnings.push(r.warning_at(
            payload_offset,
            format!(
                "{} bytes where Croc 2 PC has a u32 1 (the game skips this chunk; kept as is)",
                payload_len
            ),
        ));
    }
    let data = match tag {
        Tag::INFO => ChunkData::Info(r.take_rest().to_vec()),
        Tag::VERS => ChunkData::Vers(r.take_rest().to_vec()),
        Tag::WFPC => ChunkData::Wfpc(Wfpc::read(&mut r)?),
        Tag::TEXT => ChunkData::Text(Text::read(&mut r)?),
        Tag::FONT => ChunkData::Font(Font::read(&mut r)?),
        Tag::SPRT => {
            let f = wfpc_or_zero(&r, warnings);
            ChunkData::Sprt(Sprt::read(&mut r, f)?)
        }
        Tag::NAME => ChunkData::Name(Name::read(&mut r)?),
        Tag::SMPC => ChunkData::Smpc(Smpc::read(&mut r)?),
        Tag::AMPC => ChunkData::Ampc(Ampc::read(&mut r)?),
        Tag::SRPC => ChunkData::Srpc(Srpc::read(&mut r)?),
        Tag::TRAK => ChunkData::Trak(Trak::read(&mut r)?),
        Tag::STPC => {
            let f = wfpc_or_zero(&r, warnings);
            let s = Stpc::read(&mut r, f)?;
            if !s.animations_complete() {
                warnings.push(r.warning_at(
                    payload_offset,
                    format!(
                        "only {} of the {} animation records fit the known layout; the rest of the chunk ({} bytes) is kept verbatim",
                        s.animations.len(),
                        s.animation_count,
                        s.rest.len()
                    ),
                ));
            } else if f & crate::stpc::WFPC_STPC_TAIL != 0 && s.tail.is_none() {
                warnings.push(r.warning_at(
                    payload_offset,
                    format!(
                        "WFPC has 0x100 but the cutscene tail does not fit the known layout; the rest of the chunk ({} bytes) is kept verbatim",
                        s.rest.len()
                    ),
                ));
            }
            ChunkData::Stpc(s)
        }
        Tag::MAP => {
            let Some(f) = wfpc else {
                return Err(r.invalid(
                    "MAP needs a WFPC chunk before it (its layout depends on the flags)",
                ));
            };
            let Some(counts) = trak_counts else {
                return Err(r.invalid(
                    "MAP needs a TRAK chunk before it (its colour blocks are sized by the TRAK vertex counts)",
                ));
            };
            ChunkData::Map(Map::read(&mut r, f, counts)?)
        }
        Tag::LGHT => ChunkData::Lght(Lght::read(&mut r)?),
        Tag::LNFO => ChunkData::Lnfo(Lnfo::read(&mut r)?),
        Tag::LGPC => ChunkData::Lgpc(Lgpc::read(&mut r)?),
        Tag::END => ChunkData::End(r.take_rest().to_vec()),
        _ => ChunkData::Unknown(r.take_rest().to_vec()),
    };
    r.finish()?;
    Ok(data)
}

impl Level {
    /// Parse a whole WAD. Warnings are problems that do not stop reading (a MAP size 4 bytes
    /// off, bytes after END, no END, a chunk read before WFPC, STPC animation records or a
    /// cutscene tail that do not fit the known layout and are kept verbatim).
    pub fn read(bytes: &[u8]) -> Result<(Level, Vec<Warning>), ReadError> {
        // the walk's ranges, not copies: every payload is parsed in place
        let (layout, mut warnings) = Layout::walk(bytes)?;
        let mut wfpc = None;
        let mut trak_counts: Option<Vec<usize>> = None;
        let mut chunks = Vec::with_capacity(layout.chunks.len());
        for c in &layout.chunks {
            let data = parse_chunk(
                bytes,
                c.tag,
                c.payload.start,
                c.payload.len(),
                wfpc,
                trak_counts.as_deref(),
                &mut warnings,
            )?;
            match &data {
                ChunkData::Wfpc(w) => wfpc = Some(w.flags),
                ChunkData::Trak(t) => trak_counts = Some(t.vertex_counts()),
                _ => {}
            }
            chunks.push(Chunk {
                tag: c.tag,
                offset: Some(c.offset),
                declared_size: c.declared_size,
                original_len: c.payload.len(),
                data,
            });
        }
        Ok((
            Level {
                header: layout.header,
                file_len: bytes.len(),
                chunks,
                trailing: bytes[layout.trailing].to_vec(),
            },
            warnings,
        ))
    }

    /// A level from chunks (for writers): header = file length − 4, no trailing bytes.
    pub fn new(chunks: Vec<Chunk>) -> Level {
        let mut level = Level {
            header: 0,
            file_len: 0,
            chunks,
            trailing: Vec::new(),
        };
        level.file_len = level.original_len();
        level.header = (level.file_len as u32).wrapping_sub(4);
        level
    }

    /// The header's bias, `header − (file_len − 4)`: 0 for TENG files.
    pub fn bias(&self) -> i64 {
        crate::container::header_bias(self.header, self.file_len)
    }

    /// The file length implied by the chunks' original lengths (the file length when read, as
    /// long as no chunk was added or removed since).
    pub fn original_len(&self) -> usize {
        4 + self
            .chunks
            .iter()
            .map(|c| 8 + c.original_len)
            .sum::<usize>()
            + self.trailing.len()
    }

    /// Write the level (see the module docs for the size and header rules). Fails with the
    /// field named when an edited value does not fit the format.
    pub fn to_bytes(&self) -> Result<Vec<u8>, WriteError> {
        let mut framed = Vec::with_capacity(self.chunks.len());
        for c in &self.chunks {
            let p = c.data.encode()?;
            let size = if p.len() == c.original_len {
                c.declared_size
            } else {
                fit(p.len(), || format!("{}/size", c.tag.path_name()))?
            };
            framed.push((c.tag, size, p));
        }
        Ok(write_wad(
            self.header,
            self.file_len,
            framed.iter().map(|(t, s, p)| (*t, *s, p.as_slice())),
            &self.trailing,
        ))
    }

    /// The WFPC flags (0 when there is no WFPC chunk).
    pub fn wfpc(&self) -> u32 {
        self.chunks
            .iter()
            .find_map(|c| match &c.data {
                ChunkData::Wfpc(w) => Some(w.flags),
                _ => None,
            })
            .unwrap_or(0)
    }

    /// The first chunk with tag `tag`.
    pub fn chunk(&self, tag: Tag) -> Option<&Chunk> {
        self.chunks.iter().find(|c| c.tag == tag)
    }

    accessors! {
        /// The TEXT chunk.
        text, text_mut, Text, Text;
        /// The TRAK chunk.
        trak, trak_mut, Trak, Trak;
        /// The STPC chunk.
        stpc, stpc_mut, Stpc, Stpc;
        /// The MAP chunk.
        map, map_mut, Map, Map;
        /// The SPRT chunk.
        sprt, sprt_mut, Sprt, Sprt;
        /// The FONT chunk.
        font, font_mut, Font, Font;
        /// The LGPC chunk.
        lgpc, lgpc_mut, Lgpc, Lgpc;
        /// The LGHT chunk.
        lght, lght_mut, Lght, Lght;
        /// The SMPC chunk.
        smpc, smpc_mut, Smpc, Smpc;
        /// The SRPC chunk.
        srpc, srpc_mut, Srpc, Srpc;
        /// The NAME chunk.
        name, name_mut, Name, Name;
    }

    /// The file offset of the payload of the first chunk tagged `tag` (`None` when there is
    /// none, or it was not read from a file).
    pub fn payload_offset(&self, tag: Tag) -> Option<usize> {
        self.chunk(tag).and_then(Chunk::payload_offset)
    }
}

/// `1 sound` / `2 sounds` (`vertex` → `vertices`) for the chunk summaries.
fn plural(n: usize, thing: &str) -> String {
    match (n, thing.strip_suffix("ex")) {
        (1, _) => format!("1 {thing}"),
        (_, Some(stem)) => format!("{n} {stem}ices"),
        _ => format!("{n} {thing}s"),
    }
}
