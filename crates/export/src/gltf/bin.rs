//! The binary buffer (the GLB's BIN chunk, or the `.bin` file): its views written in order as
//! little-endian bytes, piece by piece.
//!
//! The bytes are made in pieces ([`Pieces`]): filled buffers (values converted or repaired, small
//! attributes gathered) and large slices of the scene's own memory passed on without a copy.
//! [`Direct`] writes each piece as it comes; [`queued`] makes them on a second thread while the
//! calling thread writes the GLB header and JSON chunk, then the pieces as they arrive, so
//! converting overlaps the kernel's copy into the file. The bytes are the same either way.

use std::io;
use std::sync::mpsc;

use crate::clean::{CleanPrimitive, Repair, Repairs, Unit};

use super::json::BufferViewJ;
use super::{Attr, ViewData};

/// Bytes gathered in a buffer before it is handed on: large enough that pieces are few,
/// small enough to stay in cache.
pub(super) const PIECE: usize = 128 * 1024;

/// A slice of the scene's memory at least this long is handed on as it is; a shorter one is
/// copied into the current buffer (one piece instead of many small ones).
const BORROW_FROM: usize = 32 * 1024;

/// Buffers a [`queued`] producer may have made and not yet seen written.
const IN_FLIGHT: usize = 3;

/// One piece of the buffer, in order.
pub(super) enum Piece<'p> {
    /// A filled buffer (given back for reuse once written).
    Filled(Vec<u8>),
    /// Memory of the plan (the scene's attributes, PNG bytes), written without a copy.
    Borrowed(&'p [u8]),
}

/// Where the pieces go, in order.
pub(super) trait Pieces<'p> {
    /// Take a filled buffer; give back an empty one to fill next.
    fn filled(&mut self, buf: Vec<u8>) -> io::Result<Vec<u8>>;
    /// Take a slice that lives as long as the plan.
    fn borrowed(&mut self, bytes: &'p [u8]) -> io::Result<()>;
}

/// Pieces written straight to a writer, on the calling thread.
pub(super) struct Direct<'w>(pub &'w mut dyn io::Write);

impl<'p> Pieces<'p> for Direct<'_> {
    fn filled(&mut self, mut buf: Vec<u8>) -> io::Result<Vec<u8>> {
        self.0.write_all(&buf)?;
        buf.clear();
        Ok(buf)
    }

    fn borrowed(&mut self, bytes: &'p [u8]) -> io::Result<()> {
        self.0.write_all(bytes)
    }
}

/// Pieces sent to the thread that writes them ([`queued`]); written buffers come back.
struct Queue<'p> {
    to: mpsc::SyncSender<Piece<'p>>,
    back: mpsc::Receiver<Vec<u8>>,
}

/// The writer stopped taking pieces (it failed; its own error is the one reported).
fn writer_gone() -> io::Error {
    io::Error::other("the GLB writer stopped")
}

impl<'p> Pieces<'p> for Queue<'p> {
    fn filled(&mut self, buf: Vec<u8>) -> io::Result<Vec<u8>> {
        self.to
            .send(Piece::Filled(buf))
            .map_err(|_| writer_gone())?;
        // a written buffer when one is back, else a new one: at most IN_FLIGHT + 2 exist at
        // once (in the channel, being written, being filled)
        Ok(self
            .back
            .try_recv()
            .unwrap_or_else(|_| Vec::with_capacity(PIECE + 64)))
    }

    fn borrowed(&mut self, bytes: &'p [u8]) -> io::Result<()> {
        self.to
            .send(Piece::Borrowed(bytes))
            .map_err(|_| writer_gone())
    }
}

/// Make the pieces with `make` on a second thread while `write` runs on this one with the
/// receiving end (it writes what comes before the pieces, then [`write_pieces`]). Returns
/// `write`'s error first, then `make`'s.
pub(super) fn queued<'p, T: Send>(
    make: impl FnOnce(&mut dyn Pieces<'p>) -> io::Result<T> + Send,
    write: impl FnOnce(Received<'p>) -> io::Result<()>,
) -> io::Result<T> {
    let (to, from) = mpsc::sync_channel(IN_FLIGHT);
    let (give_back, back) = mpsc::channel();
    std::thread::scope(|s| {
        let maker = s.spawn(move || make(&mut Queue { to, back }));
        // dropping the receiving end (in `write`, on return) stops a maker still sending
        let wrote = write(Received { from, give_back });
        let made = maker
            .join()
            .unwrap_or_else(|_| Err(io::Error::other("the GLB buffer thread failed")));
        wrote.and(made)
    })
}

/// The receiving end of [`queued`]: the pieces in order.
pub(super) struct Received<'p> {
    from: mpsc::Receiver<Piece<'p>>,
    give_back: mpsc::Sender<Vec<u8>>,
}

/// Write every piece received to `out`, in order, until the maker is done.
pub(super) fn write_pieces(r: Received<'_>, out: &mut dyn io::Write) -> io::Result<()> {
    for piece in r.from.iter() {
        match piece {
            Piece::Filled(mut buf) => {
                out.write_all(&buf)?;
                buf.clear();
                // the maker may be done and gone: the buffer is then simply dropped
                let _ = r.give_back.send(buf);
            }
            Piece::Borrowed(bytes) => out.write_all(bytes)?,
        }
    }
    Ok(())
}

/// Little-endian bytes of a stream of values, gathered in a buffer handed on when full.
struct Sink<'s, 'p> {
    to: &'s mut dyn Pieces<'p>,
    buf: Vec<u8>,
    /// The colours' conversions to linear already made, for the next `COLOR_n` views.
    linear: LinearMemo,
}

/// Slots of [`LinearMemo`]: a level's colours are few distinct values (a WAD's are bytes,
/// 129 values), repeated over every vertex.
const LINEAR_SLOTS: usize = 256;

/// A direct-mapped memo of [`levelgeom_scene::colour::srgb_to_linear`] by the value's bits:
/// each distinct channel value is converted (two `f64` divisions and a `powf`) once, not once
/// per vertex; the results are the function's own.
#[derive(Default)]
struct LinearMemo {
    /// Per slot: the bits of the value, and of its conversion (`None`: empty; no slots: no
    /// memo, every value converted).
    slots: Vec<Option<(u32, u32)>>,
}

impl LinearMemo {
    fn new() -> Self {
        LinearMemo {
            slots: vec![None; LINEAR_SLOTS],
        }
    }

    /// `srgb_to_linear(c)`, from the memo when it holds `c`'s bits.
    #[inline]
    fn channel(&mut self, c: f32) -> f32 {
        let bits = c.to_bits();
        // the hash of the OBJ writer's float cache (obj/text.rs): Fibonacci hashing
        let slot =
            (bits.wrapping_mul(0x9E37_79B1) >> (32 - LINEAR_SLOTS.trailing_zeros())) as usize;
        match self.slots.get_mut(slot) {
            Some(Some((key, l))) if *key == bits => f32::from_bits(*l),
            Some(s) => {
                let l = levelgeom_scene::colour::srgb_to_linear(c);
                *s = Some((bits, l.to_bits()));
                l
            }
            None => levelgeom_scene::colour::srgb_to_linear(c),
        }
    }

    /// [`levelgeom_scene::colour::rgba_to_linear`] through the memo.
    #[inline]
    fn rgba(&mut self, c: [f32; 4]) -> [f32; 4] {
        [
            self.channel(c[0]),
            self.channel(c[1]),
            self.channel(c[2]),
            c[3],
        ]
    }
}

impl<'p> Sink<'_, 'p> {
    /// `put` of every value, `size` bytes each, written into the buffer block by block: each
    /// block as many values as the buffer has room for before [`PIECE`] (at least one), the
    /// block's bytes reserved at once and filled in place (no push, and no length check, per
    /// value), the buffer handed on when full.
    #[inline]
    fn blocks<T: Copy>(
        &mut self,
        values: &[T],
        size: usize,
        mut put: impl FnMut(&mut [u8], T),
    ) -> io::Result<()> {
        let mut rest = values;
        while !rest.is_empty() {
            let room = (PIECE.saturating_sub(self.buf.len()) / size).max(1);
            let (now, later) = rest.split_at(room.min(rest.len()));
            let start = self.buf.len();
            self.buf.resize(start + now.len() * size, 0);
            for (dst, &v) in self.buf[start..].chunks_exact_mut(size).zip(now) {
                put(dst, v);
            }
            if self.buf.len() >= PIECE {
                self.hand_on()?;
            }
            rest = later;
        }
        Ok(())
    }

    /// `f` of every value, as little-endian floats.
    #[inline]
    fn f32s<T: Copy, const N: usize>(
        &mut self,
        values: &[T],
        mut f: impl FnMut(T) -> [f32; N],
    ) -> io::Result<()> {
        self.blocks(values, 4 * N, |dst, v| {
            for (d, x) in dst.chunks_exact_mut(4).zip(f(v)) {
                d.copy_from_slice(&x.to_le_bytes());
            }
        })
    }

    /// A slice of plain floats (or arrays of them) as little-endian bytes: on a little-endian
    /// machine the memory itself, passed on by `pass` ([`Sink::bytes`] or [`Sink::copy`]).
    fn floats<'c, T: bytemuck::Pod>(
        &mut self,
        values: &'c [T],
        pass: Pass<'c, 'p>,
    ) -> io::Result<()> {
        if cfg!(target_endian = "little") {
            pass(self, bytemuck::cast_slice(values))
        } else {
            let floats: &[f32] = bytemuck::cast_slice(values);
            self.f32s(floats, |v| [v])
        }
    }

    /// Normals or tangents, repaired here when they need it (see the crate's `clean` module).
    fn units<'c, const N: usize>(
        &mut self,
        units: Option<&'c Unit<'_, [f32; N]>>,
        pass: Pass<'c, 'p>,
    ) -> io::Result<()>
    where
        [f32; N]: Repair + bytemuck::Pod,
    {
        let Some(u) = units else { return Ok(()) };
        let (exact, repaired) = u.split();
        self.floats(exact, pass)?;
        self.f32s(repaired, Repair::repaired)
    }

    /// Bytes of a reused buffer (a filled hollow primitive): copied into the pieces.
    fn copy(&mut self, mut b: &[u8]) -> io::Result<()> {
        while !b.is_empty() {
            let room = PIECE.saturating_sub(self.buf.len()).max(1);
            let (now, later) = b.split_at(room.min(b.len()));
            self.buf.extend_from_slice(now);
            if self.buf.len() >= PIECE {
                self.hand_on()?;
            }
            b = later;
        }
        Ok(())
    }

    /// Bytes of the plan: handed on as they are when long, else gathered.
    fn bytes(&mut self, b: &'p [u8]) -> io::Result<()> {
        if b.len() < BORROW_FROM {
            self.buf.extend_from_slice(b);
            if self.buf.len() >= PIECE {
                self.hand_on()?;
            }
            return Ok(());
        }
        self.hand_on()?;
        self.to.borrowed(b)
    }

    fn zeros(&mut self, n: usize) {
        self.buf.resize(self.buf.len() + n, 0);
    }

    /// Hand the gathered bytes on (nothing when there are none).
    fn hand_on(&mut self) -> io::Result<()> {
        if !self.buf.is_empty() {
            let full = std::mem::take(&mut self.buf);
            self.buf = self.to.filled(full)?;
        }
        Ok(())
    }
}

/// How a slice of memory becomes part of the buffer: [`Sink::bytes`] for memory of the plan
/// (passed on without a copy when long), [`Sink::copy`] for a reused buffer's.
type Pass<'c, 'p> = fn(&mut Sink<'_, 'p>, &'c [u8]) -> io::Result<()>;

/// What the binary buffer is made of: the views (offsets, lengths) and what each holds.
pub(super) struct Bin<'p, 'a> {
    pub views: Vec<BufferViewJ>,
    pub data: &'p [ViewData],
    /// The padded buffer length.
    pub bin_len: usize,
    /// The primitives written, in buffer order.
    pub prims: &'p [CleanPrimitive<'a>],
    /// Embedded PNGs, in image order.
    pub images: &'p [std::borrow::Cow<'a, [u8]>],
}

/// The primitive a view belongs to, if it holds one's data.
fn prim_of(data: &ViewData) -> Option<usize> {
    match *data {
        ViewData::Image(_) => None,
        ViewData::Attr { prim, .. } | ViewData::Indices { prim, .. } => Some(prim),
    }
}

/// Write one view of primitive `c`, its slices passed on by `pass`.
fn prim_view<'c, 'p>(
    sink: &mut Sink<'_, 'p>,
    c: &'c CleanPrimitive<'_>,
    data: ViewData,
    pass: Pass<'c, 'p>,
) -> io::Result<()> {
    match data {
        ViewData::Image(_) => Ok(()),
        ViewData::Indices { short: false, .. } if cfg!(target_endian = "little") => {
            pass(sink, bytemuck::cast_slice(&c.indices))
        }
        // every index < vertex count < 65536 when short (checked by clean_primitive)
        ViewData::Indices { short: true, .. } => sink.blocks(&c.indices, 2, |d, i| {
            d.copy_from_slice(&(i as u16).to_le_bytes())
        }),
        ViewData::Indices { short: false, .. } => {
            sink.blocks(&c.indices, 4, |d, i| d.copy_from_slice(&i.to_le_bytes()))
        }
        ViewData::Attr { attr, .. } => match attr {
            Attr::Position => sink.floats(&c.positions, pass),
            Attr::Normal => sink.units(c.normals.as_ref(), pass),
            Attr::Tangent => sink.units(c.tangents.as_ref(), pass),
            Attr::Uv(k) => sink.floats(&c.uvs[k], pass),
            Attr::Color(k) => {
                // out of the sink while the sink writes (an empty memo meanwhile)
                let mut memo = std::mem::take(&mut sink.linear);
                let written = sink.f32s(&c.colors[k], |v| memo.rgba(v));
                sink.linear = memo;
                written
            }
            Attr::Scalar(k) => sink.floats(&c.scalars[k].1, pass),
            Attr::Vector(k) => sink.floats(&c.vectors[k].1, pass),
        },
    }
}

impl<'p> Bin<'p, '_> {
    /// Make the binary buffer (views in order, zero padding between them and at the end to a
    /// multiple of 4): `bin_len` bytes, as pieces into `to`. The hollow primitives are taken
    /// from `filled` in order as their turn comes ([`super::stream`]); returns the repairs
    /// counted on their data.
    pub fn write(
        &self,
        to: &mut dyn Pieces<'p>,
        filled: Option<&mut super::stream::Filled>,
    ) -> io::Result<Repairs> {
        let mut sink = Sink {
            to,
            buf: Vec::with_capacity(PIECE + 64),
            linear: LinearMemo::new(),
        };
        let mut rep = Repairs::default();
        self.views_into(&mut sink, filled, &mut rep)?;
        Ok(rep)
    }

    /// Every view into `sink`, then the padding to `bin_len`; the hollow primitives' data
    /// taken from `filled` in order.
    fn views_into(
        &self,
        sink: &mut Sink<'_, 'p>,
        mut filled: Option<&mut super::stream::Filled>,
        rep: &mut Repairs,
    ) -> io::Result<()> {
        let prims: &'p [CleanPrimitive<'_>] = self.prims;
        let mut at = 0usize;
        let mut v = 0;
        while v < self.views.len() {
            let hollow = prim_of(&self.data[v]).filter(|&p| prims[p].hollow.is_some());
            let Some(prim) = hollow else {
                let view = &self.views[v];
                sink.zeros(view.byte_offset - at);
                match self.data[v] {
                    ViewData::Image(i) => sink.bytes(&self.images[i])?,
                    data @ (ViewData::Attr { prim, .. } | ViewData::Indices { prim, .. }) => {
                        prim_view(sink, &prims[prim], data, |s, b| s.bytes(b))?
                    }
                }
                at = view.byte_offset + view.byte_length;
                v += 1;
                continue;
            };
            // the views of a hollow primitive (they follow each other): filled, checked and
            // cleaned into a reused buffer, copied out
            let end = v + self.data[v..]
                .iter()
                .take_while(|d| prim_of(d) == Some(prim))
                .count();
            let f = filled.as_deref_mut().ok_or_else(|| {
                io::Error::other("hollow primitives to write and no source to fill them")
            })?;
            let mut buf = f.next()?;
            // what the source leaves alone: the buffer's own may be another primitive's
            buf.topology = prims[prim].topology;
            let c = crate::clean::check_filled(&buf, &prims[prim], rep)
                .map_err(|message| super::stream::failed(prim, &prims[prim], message))?;
            for (view, &data) in self.views[v..end].iter().zip(&self.data[v..end]) {
                sink.zeros(view.byte_offset - at);
                prim_view(sink, &c, data, |s, b| s.copy(b))?;
                at = view.byte_offset + view.byte_length;
            }
            drop(c);
            f.give_back(buf);
            v = end;
        }
        sink.zeros(self.bin_len - at);
        sink.hand_on()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Pieces made on the second thread arrive in order, whole, with long slices passed on and
    /// short ones gathered: the same bytes as writing directly.
    #[test]
    fn queued_pieces_are_the_direct_bytes() {
        let long: Vec<u8> = (0..BORROW_FROM as u32 * 3).map(|i| (i * 7) as u8).collect();
        let short: Vec<u8> = (0..1000u32).map(|i| (i * 13) as u8).collect();
        fn make<'p>(long: &'p [u8], short: &'p [u8], to: &mut dyn Pieces<'p>) -> io::Result<()> {
            let values: Vec<u32> = (0..5000).collect();
            let mut sink = Sink {
                to,
                buf: Vec::new(),
                linear: LinearMemo::new(),
            };
            for k in 0..40 {
                sink.bytes(if k % 3 == 0 { long } else { short })?;
                sink.zeros(k);
                sink.f32s(&values, |i| [i as f32, -0.5])?;
            }
            sink.hand_on()
        }
        let mut direct = Vec::new();
        make(&long, &short, &mut Direct(&mut direct)).unwrap_or_else(|e| panic!("{e}"));
        let mut got = Vec::new();
        queued(
            |to| make(&long, &short, to),
            |r| {
                got.extend_from_slice(b"head");
                write_pieces(r, &mut got)
            },
        )
        .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(&got[..4], b"head");
        assert_eq!(got[4..], direct[..]);
        // 40 × (one of the slices + k zeros + 5000 × 8 bytes), counted by hand
        let slices = 14 * long.len() + 26 * short.len();
        assert_eq!(direct.len(), slices + (0..40).sum::<usize>() + 40 * 40_000);
    }

    /// Values written block by block across the piece size: each index as its low 16 bits
    /// little-endian, each repaired unit vector as its floats, in order (bytes built by hand).
    #[test]
    fn blocks_write_every_value_in_order() {
        let indices: Vec<u32> = (0..PIECE as u32).map(|i| i * 7 % 65_536).collect();
        let units = [[3.0f32, 0.0, 4.0], [0.0, 0.0, 0.0], [f32::NAN, 2.0, 0.0]];
        let mut got = Vec::new();
        let mut sink = Sink {
            to: &mut Direct(&mut got),
            buf: Vec::new(),
            linear: LinearMemo::new(),
        };
        sink.zeros(3);
        sink.blocks(&indices, 2, |d, i| {
            d.copy_from_slice(&(i as u16).to_le_bytes())
        })
        .unwrap_or_else(|e| panic!("{e}"));
        sink.f32s(&units, Repair::repaired)
            .unwrap_or_else(|e| panic!("{e}"));
        sink.hand_on().unwrap_or_else(|e| panic!("{e}"));
        let mut want = vec![0u8; 3];
        for i in 0..PIECE as u32 {
            let v = (i * 7 % 65_536) as u16;
            want.extend_from_slice(&[v as u8, (v >> 8) as u8]);
        }
        // (3, 0, 4) / 5; zero length → (0, 0, 1); NaN → 0, then (0, 2, 0) / 2
        for f in [0.6f32, 0.0, 0.8, 0.0, 0.0, 1.0, 0.0, 1.0, 0.0] {
            want.extend_from_slice(&f.to_bits().to_le_bytes());
        }
        assert_eq!(got.len(), want.len());
        assert!(got == want);
    }

    /// A writer that fails stops the maker: the writer's error is the one returned.
    #[test]
    fn a_failed_write_stops_the_maker() {
        struct Fails;
        impl io::Write for Fails {
            fn write(&mut self, _: &[u8]) -> io::Result<usize> {
                Err(io::Error::other("disk full"))
            }
            fn flush(&mut self) -> io::Result<()> {
                Ok(())
            }
        }
        let big = vec![1u8; BORROW_FROM];
        let res = queued(
            |to| {
                for _ in 0..1000 {
                    to.borrowed(&big)?;
                }
                Ok(())
            },
            |r| write_pieces(r, &mut Fails),
        );
        let e = res.err().map(|e| e.to_string());
        assert_eq!(e.as_deref(), Some("disk full"));
    }

    /// The memo answers as the conversion itself, bit for bit: every WAD colour byte's value
    /// (`min(1, b/128)`, hand-checked anchors 0 → 0, 0.5 → 0.214 041 14, 1 → 1), values that
    /// share a slot, and the empty memo of a taken sink.
    #[test]
    fn memoised_colours_are_the_conversion() {
        use levelgeom_scene::colour::srgb_to_linear;
        let mut memo = LinearMemo::new();
        assert_eq!(memo.channel(0.0), 0.0);
        assert_eq!(memo.channel(1.0), 1.0);
        assert!((memo.channel(0.5) - 0.214_041_14).abs() < 1e-6);
        let mut x = 0x2468_ace1_u32;
        for round in 0..3 {
            for b in 0u8..=255 {
                let c = (f32::from(b) / 128.0).min(1.0);
                assert_eq!(
                    memo.channel(c).to_bits(),
                    srgb_to_linear(c).to_bits(),
                    "byte {b}"
                );
                // arbitrary values in 0..1: 256 slots cannot hold them all (collisions)
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                let v = f32::from_bits(x).abs() % 1.0;
                let want = srgb_to_linear(v).to_bits();
                assert_eq!(memo.channel(v).to_bits(), want, "round {round} value {v}");
                assert_eq!(
                    memo.channel(v).to_bits(),
                    want,
                    "round {round} value {v}, again"
                );
            }
        }
        let rgba = [0.25, 0.75, 1.0, 0.5];
        let want = levelgeom_scene::colour::rgba_to_linear(rgba);
        assert_eq!(memo.rgba(rgba), want);
        assert_eq!(LinearMemo::default().rgba(rgba), want);
    }
}
