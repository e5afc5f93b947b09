//! STPC: object ("strat") models, their animations, the optional cutscene tail and the
//! strat script area.
//!
//! # Layout
//!
//! | Part | Size | Meaning |
//! |---|---|---|
//! | `u32 n` | 4 | model count **N** (the number of model records, not N − 1; docs/formats/argonaut-wad.md §12.2) |
//! | models | n × (0x8C + arrays) | each 0x8C header is followed by its own arrays ([`crate::model`]); skinned models start their arrays with `bone_count × u16` vertices per bone |
//! | `u32 n2` | 4 | animation record count |
//! | animations | … | n2 × ([`AnimHeader`] + data), header and data alternating (docs/formats/argonaut-wad.md §12.3) |
//! | tail | … | only if `WFPC & 0x100`: `u32 n3`, then per cutscene a 16-byte [`CutsceneHead`], `count × 8` info bytes, and `count` animation records stored TRAK-style (all headers, then all data) |
//! | scripts | rest | the strat/script area, referenced by offsets from MAP; kept raw |
//!
//! ## Animation record (docs/formats/argonaut-wad.md §12.3)
//!
//! 32-byte header: +0x00 nA, +0x08 nFrames, +0x0C 0 when a frame table follows, +0x10 nDelta,
//! +0x18 nBones; the other words are pointers (0 in files). Then: `nA × 4` bytes;
//! `nFrames × 8` bytes if +0x0C is 0; a `nFrames × 4` delta-pointer table if nDelta ≠ 0; a
//! `nFrames × 4` matrix-pointer table; then per frame f its deltas (f = 0: nDelta × 8 bytes,
//! f > 0: nDelta × 2 bytes + 2 if nDelta is odd) followed by `nBones × 64` bytes of 4×4 f32
//! matrices.
//!
//! ## N vs N − 1, and how trouble is detected
//!
//! The stored model count is taken as N records (the game's loader `sub_42AB50` relocates N,
//! the seed counts 33 models for a stored 33; docs/formats/argonaut-wad.md §12.2). The bytes decide it as well: the
//! words after the last model must be the animation count and well-formed animation records,
//! which is what the round trip of every test file shows. Were a file written with N − 1
//! semantics, the N-th "header" would be read from the animation count and the animation data
//! that follow the real records. Its counts are validated against the remaining bytes before
//! anything is allocated, so usually this is a [`ReadError`] naming `STPC/models[N−1]`; if the
//! bytes happen to fit, the header's pointer words (+0x70, +0x74, +0x80, +0x88, always 0 in
//! files) hold animation data, and [`crate::check`] reports them; and the animations after it
//! no longer fit, which [`crate::level::Level::read`] reports as a warning.
//!
//! The animation layout is read from code only (confidence \[M\]). To stay byte-exact on files that do
//! not follow it, the reader parses records one at a time on a copy of the cursor; the first
//! record that does not fit stops parsing, and everything from there to the chunk end (the
//! remaining animations, the tail and the scripts) is kept verbatim in [`Stpc::rest`]. Then
//! `animations.len() < animation_count` tells that parsing stopped early
//! ([`Stpc::animations_complete`]). The same fallback applies to the cutscene tail.

use crate::model::{Model, ModelHeader, STPC_HEADER_SIZE};
use levelgeom_binary::{fit, ReadError, Reader, WriteError, Writer};

/// WFPC bit: STPC carries the cutscene tail.
pub const WFPC_STPC_TAIL: u32 = 0x100;
/// Size of an animation header.
pub const ANIM_HEADER_SIZE: usize = 32;
/// Size of a cutscene head in the tail.
pub const CUTSCENE_HEAD_SIZE: usize = 16;

/// The 32-byte animation header, all eight words kept raw.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AnimHeader {
    /// The eight u32 words: +0x00 nA, +0x04 pointer, +0x08 nFrames, +0x0C frame-table word
    /// (0 = a frame table follows), +0x10 nDelta, +0x14 pointer, +0x18 nBones, +0x1C pointer.
    pub words: [u32; 8],
}

impl AnimHeader {
    /// +0x00: count of 4-byte `A` entries.
    pub fn a_count(&self) -> u32 {
        self.words[0]
    }
    /// +0x08: frame count.
    pub fn frame_count(&self) -> u32 {
        self.words[2]
    }
    /// True when +0x0C is 0, i.e. an `nFrames × 8` frame table follows.
    pub fn has_frame_table(&self) -> bool {
        self.words[3] == 0
    }
    /// +0x10: count of compressed vertex deltas per frame.
    pub fn delta_count(&self) -> u32 {
        self.words[4]
    }
    /// +0x18: bones (one 4×4 matrix per bone and frame).
    pub fn bone_count(&self) -> u32 {
        self.words[6]
    }

    /// Read the 32-byte header.
    pub fn read(r: &mut Reader<'_>) -> Result<AnimHeader, ReadError> {
        let mut words = [0u32; 8];
        for w in &mut words {
            *w = r.u32()?;
        }
        Ok(AnimHeader { words })
    }

    /// Write the 32-byte header.
    pub fn write(&self, w: &mut Writer) {
        for &x in &self.words {
            w.u32(x);
        }
    }
}

/// One animation frame: compressed vertex deltas, then one matrix per bone.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AnimFrame {
    /// The delta bytes (frame 0: nDelta × 8; later frames nDelta × 2, padded to 4).
    pub deltas: Vec<u8>,
    /// One 4×4 f32 matrix per bone (bit patterns kept).
    pub matrices: Vec<[f32; 16]>,
}

/// One skeletal/vertex animation record.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Animation {
    /// The header.
    pub header: AnimHeader,
    /// `nA × 4` bytes.
    pub a_block: Vec<u8>,
    /// `nFrames × 8` bytes, present when the header's +0x0C word is 0.
    pub frame_table: Option<Vec<u8>>,
    /// `nFrames × 4` delta-pointer table (0s in files), present when nDelta ≠ 0.
    pub delta_pointers: Option<Vec<u8>>,
    /// `nFrames × 4` matrix-pointer table (0s in files).
    pub matrix_pointers: Vec<u8>,
    /// The frames.
    pub frames: Vec<AnimFrame>,
}

fn raw(r: &mut Reader<'_>, count: u32, size: usize) -> Result<Vec<u8>, ReadError> {
    let n = r.count(count, size)?;
    // n * size fits: count() checked it against the remaining bytes.
    Ok(r.bytes(n * size)?.to_vec())
}

impl Animation {
    /// Read the data that follows a header.
    pub fn read_data(r: &mut Reader<'_>, header: AnimHeader) -> Result<Animation, ReadError> {
        let frames_n = header.frame_count();
        let a_block = raw(r, header.a_count(), 4)?;
        let frame_table = if header.has_frame_table() {
            Some(raw(r, frames_n, 8)?)
        } else {
            None
        };
        let delta_n = header.delta_count();
        let delta_pointers = if delta_n != 0 {
            Some(raw(r, frames_n, 4)?)
        } else {
            None
        };
        let matrix_pointers = raw(r, frames_n, 4)?;
        let bones = header.bone_count();
        // Each frame holds at least its matrices; with neither deltas nor bones a frame is
        // empty, so bound the count by what the header's tables already proved.
        let nf = matrix_pointers.len() / 4;
        let mut frames = Vec::with_capacity(nf);
        for f in 0..nf {
            let deltas = if f == 0 {
                raw(r, delta_n, 8)?
            } else {
                let mut d = raw(r, delta_n, 2)?;
                if delta_n % 2 == 1 {
                    d.extend_from_slice(r.bytes(2)?);
                }
                d
            };
            let nb = r.count(bones, 64)?;
            let mut matrices = Vec::with_capacity(nb);
            for _ in 0..nb {
                matrices.push(r.f32s::<16>()?);
            }
            frames.push(AnimFrame { deltas, matrices });
        }
        Ok(Animation {
            header,
            a_block,
            frame_table,
            delta_pointers,
            matrix_pointers,
            frames,
        })
    }

    /// Read a header and its data (the alternating form of the main animation list).
    pub fn read(r: &mut Reader<'_>) -> Result<Animation, ReadError> {
        let h = AnimHeader::read(r)?;
        Animation::read_data(r, h)
    }

    /// Write the data (not the header).
    pub fn write_data(&self, w: &mut Writer) {
        w.bytes(&self.a_block);
        if let Some(t) = &self.frame_table {
            w.bytes(t);
        }
        if let Some(t) = &self.delta_pointers {
            w.bytes(t);
        }
        w.bytes(&self.matrix_pointers);
        for f in &self.frames {
            w.bytes(&f.deltas);
            for m in &f.matrices {
                w.f32s(m);
            }
        }
    }

    /// Write header and data.
    pub fn write(&self, w: &mut Writer) {
        self.header.write(w);
        self.write_data(w);
    }
}

/// The 16-byte head of a cutscene in the WFPC & 0x100 tail.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CutsceneHead {
    /// +0x00: four bytes (a name or file extension in Croc 2), kept raw.
    pub tag: [u8; 4],
    /// +0x04: object count (info entries and animation records).
    pub count: u32,
    /// +0x08: info-list pointer, 0 in files.
    pub info_ptr: u32,
    /// +0x0C: object-list pointer, 0 in files.
    pub object_ptr: u32,
}

/// One cutscene of the tail.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Cutscene {
    /// The head.
    pub head: CutsceneHead,
    /// `count` 8-byte info entries (two u32 each: morph count, bone count in Croc 2).
    pub infos: Vec<[u8; 8]>,
    /// `count` animation records (all headers first, then all data).
    pub animations: Vec<Animation>,
}

/// The WFPC & 0x100 tail.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StpcTail {
    /// The cutscenes (`u32 n3` of them).
    pub cutscenes: Vec<Cutscene>,
}

impl StpcTail {
    /// Read the tail.
    pub fn read(r: &mut Reader<'_>) -> Result<StpcTail, ReadError> {
        let n = r.u32_count(CUTSCENE_HEAD_SIZE)?;
        let mut cutscenes = Vec::with_capacity(n);
        for i in 0..n {
            cutscenes.push(r.within("cutscenes", Some(i), |r| {
                let head = CutsceneHead {
                    tag: r.array::<4>()?,
                    count: r.u32()?,
                    info_ptr: r.u32()?,
                    object_ptr: r.u32()?,
                };
                let k = r.count(head.count, 8 + ANIM_HEADER_SIZE)?;
                let mut infos = Vec::with_capacity(k);
                for _ in 0..k {
                    infos.push(r.array::<8>()?);
                }
                let mut headers = Vec::with_capacity(k);
                for _ in 0..k {
                    headers.push(AnimHeader::read(r)?);
                }
                let mut animations = Vec::with_capacity(k);
                for (j, h) in headers.into_iter().enumerate() {
                    animations
                        .push(r.within("animations", Some(j), |r| Animation::read_data(r, h))?);
                }
                Ok(Cutscene {
                    head,
                    infos,
                    animations,
                })
            })?);
        }
        Ok(StpcTail { cutscenes })
    }

    /// Write the tail.
    pub fn write(&self, w: &mut Writer) -> Result<(), WriteError> {
        w.u32(fit(self.cutscenes.len(), || {
            "STPC/tail/cutscene count".into()
        })?);
        for c in &self.cutscenes {
            w.bytes(&c.head.tag);
            w.u32(c.head.count);
            w.u32(c.head.info_ptr);
            w.u32(c.head.object_ptr);
            for i in &c.infos {
                w.bytes(i);
            }
            for a in &c.animations {
                a.header.write(w);
            }
            for a in &c.animations {
                a.write_data(w);
            }
        }
        Ok(())
    }
}

/// The STPC chunk.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Stpc {
    /// The object models (N records for a stored N).
    pub models: Vec<Model>,
    /// The stored animation count `n2` (may exceed `animations.len()`, see the module docs).
    pub animation_count: u32,
    /// The animation records that parsed, in order.
    pub animations: Vec<Animation>,
    /// The WFPC & 0x100 tail, when the flag is set and the tail parsed.
    pub tail: Option<StpcTail>,
    /// Everything after the parsed parts: normally the strat/script area; if parsing stopped
    /// early, also the unparsed animations and tail. Kept verbatim.
    pub rest: Vec<u8>,
}

impl Stpc {
    /// Read an STPC payload. `wfpc` selects the optional tail.
    pub fn read(r: &mut Reader<'_>, wfpc: u32) -> Result<Stpc, ReadError> {
        let n = r.u32_count(STPC_HEADER_SIZE)?;
        let mut models = Vec::with_capacity(n);
        for i in 0..n {
            models.push(r.within("models", Some(i), |r| {
                let h = ModelHeader::read(r, true)?;
                Model::read_data(r, h)
            })?);
        }
        let animation_count = r.within("animations", None, |r| r.u32())?;
        let mut animations = Vec::new();
        let mut complete = true;
        for i in 0..animation_count {
            if r.remaining() < ANIM_HEADER_SIZE {
                complete = false;
                break;
            }
            let mut t = r.clone();
            t.push("animations", Some(i as usize));
            match Animation::read(&mut t) {
                Ok(a) => {
                    t.pop();
                    *r = t;
                    animations.push(a);
                }
                Err(_) => {
                    complete = false;
                    break;
                }
            }
        }
        let mut tail = None;
        if complete && wfpc & WFPC_STPC_TAIL != 0 {
            let mut t = r.clone();
            t.push("tail", None);
            if let Ok(x) = StpcTail::read(&mut t) {
                t.pop();
                *r = t;
                tail = Some(x);
            }
        }
        let rest = r.take_rest().to_vec();
        Ok(Stpc {
            models,
            animation_count,
            animations,
            tail,
            rest,
        })
    }

    /// True when every stored animation record parsed.
    pub fn animations_complete(&self) -> bool {
        self.animations.len() as u64 == u64::from(self.animation_count)
    }

    /// Write the payload. Fails, naming the field (`STPC/models[1]/faces[3]/v0`), when a
    /// model's arrays do not fit their fields or a face names a missing vertex.
    pub fn write(&self, w: &mut Writer) -> Result<(), WriteError> {
        self.write_noting(w, &mut Vec::new())
    }

    /// The payload as [`Stpc::write`] writes it, with the offset of every model record inside
    /// it (its `0x8C`-byte header): the offsets MAP object definitions and their `0x00B2`
    /// operands name (STPC-relative, docs/formats/argonaut-wad.md §2.7).
    pub fn encode_with_model_offsets(&self) -> Result<(Vec<u8>, Vec<u32>), WriteError> {
        let mut w = Writer::new();
        let mut offsets = Vec::with_capacity(self.models.len());
        self.write_noting(&mut w, &mut offsets)?;
        Ok((w.into_inner(), offsets))
    }

    fn write_noting(&self, w: &mut Writer, offsets: &mut Vec<u32>) -> Result<(), WriteError> {
        w.u32(fit(self.models.len(), || "STPC/model count".into())?);
        for (i, m) in self.models.iter().enumerate() {
            offsets.push(fit(w.len(), || "STPC/model offset".into())?);
            let mut h = m.header.clone();
            if h.stpc.is_none() {
                h.stpc = Some(Default::default());
            }
            h.write(w);
            m.write_data(w)
                .map_err(|e| e.within(&format!("STPC/models[{i}]")))?;
        }
        w.u32(self.animation_count);
        for a in &self.animations {
            a.write(w);
        }
        if let Some(t) = &self.tail {
            t.write(w)?;
        }
        w.bytes(&self.rest);
        Ok(())
    }
}
