//! The PC per-texture RLE16 scheme (docs/formats/argonaut-wad.md §6.1; groove.exe `sub_406A10`).
//!
//! A stream is a sequence of little-endian `u16` words forming packets:
//!
//! ```text
//! control c (i16) | then            | writes
//! ----------------+-----------------+------------------------------
//! c < 0           | one word v      | v, −c times (a run, at most 32768)
//! c >= 0          | c words         | the c words as they are (a literal, at most 32767)
//! ```
//!
//! The game's decoder writes into a `w·h` buffer and **stops as soon as `N − 1` pixels are
//! written** (`N = w·h`, an off-by-one in the original), so a final packet that would start at
//! pixel `N − 1` is never read, and for `N == 1` nothing at all is written. It has no bounds
//! checks and ignores the stored byte count.
//!
//! # Decisions of this implementation
//! * [`decode`] never writes out of bounds. A packet that would go past `N` is **clamped** and
//!   [`Decoded::overrun`] is set (the game would scribble past its buffer; the visible texture
//!   is the clamped one). A stream that runs out before `N − 1` pixels are written is an
//!   [`RleError`] (the game would read whatever bytes follow the stream).
//! * A pixel the decoder leaves unwritten (the last one when no packet covers it, or the only
//!   pixel of a 1×1 page) is returned as `0` (transparent); in the game it keeps whatever the
//!   buffer held.
//! * [`encode`] follows the rules of docs/formats/argonaut-wad.md §6.1: runs and literals within their limits, never past
//!   `N`, and never a final packet starting at pixel `N − 1` (the last pixel is folded into the
//!   packet before it). For `N <= 1` it emits an empty stream, since the game writes nothing.
//!   The original encoder's choices are unknown, so unchanged pages keep their stored bytes and
//!   only edited pages are re-encoded.

use std::fmt;

/// Longest literal packet (control word 0x7FFF).
pub const MAX_LITERAL: usize = 32767;
/// Longest run packet (control word −32768 = 0x8000).
pub const MAX_RUN: usize = 32768;

/// The result of [`decode`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decoded {
    /// Exactly `N` pixels.
    pub pixels: Vec<u16>,
    /// Stream words consumed by the decoder.
    pub words_read: usize,
    /// True when a packet went past `N` and was clamped.
    pub overrun: bool,
}

/// A stream that ends before the decoder is done.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RleError {
    /// Pixels written when the stream ran out.
    pub written: usize,
    /// Pixels the decoder needed (`N − 1`).
    pub needed: usize,
    /// Byte offset in the stream where a word was missing.
    pub at_byte: usize,
}

impl fmt::Display for RleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "RLE stream ends at byte {} after {} of the {} pixels the game decodes",
            self.at_byte, self.written, self.needed
        )
    }
}

impl std::error::Error for RleError {}

fn word(stream: &[u8], i: usize) -> Option<u16> {
    let at = i.checked_mul(2)?;
    let b = stream.get(at..at.checked_add(2)?)?;
    Some(u16::from_le_bytes([b[0], b[1]]))
}

/// Decode `stream` into `n` pixels the way the game does (see the module docs).
pub fn decode(stream: &[u8], n: usize) -> Result<Decoded, RleError> {
    // n is bounded by the caller (a page's checked pixel count); the output is n words anyway
    let mut out: Vec<u16> = Vec::with_capacity(n);
    let (words_read, overrun) = walk(stream, n, |span| match span {
        Span::Run { word, count } => out.resize(out.len() + count, word),
        Span::Literal(words) => out.extend(
            words
                .chunks_exact(2)
                .map(|w| u16::from_le_bytes([w[0], w[1]])),
        ),
    })?;
    out.resize(n, 0);
    Ok(Decoded {
        pixels: out,
        words_read,
        overrun,
    })
}

/// Pixels [`walk`] hands over, in order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Span<'a> {
    /// `count` copies of `word` (a run packet, clamped to the pixels left).
    Run {
        /// The repeated word.
        word: u16,
        /// How many pixels.
        count: usize,
    },
    /// Words as stored, little-endian byte pairs (a literal packet's words up to the pixels
    /// left).
    Literal(&'a [u8]),
}

/// The walk of [`decode`] without its output: `emit` receives the pixels in order, a packet
/// at a time, at most `n` in all and never one past the point where the game stops; pixels
/// left unwritten (see the module docs) are the caller's to fill. Returns the stream words
/// consumed and the overrun flag.
pub fn walk<'a>(
    stream: &'a [u8],
    n: usize,
    mut emit: impl FnMut(Span<'a>),
) -> Result<(usize, bool), RleError> {
    let target = n.saturating_sub(1);
    let mut written = 0usize;
    let mut i = 0usize;
    let mut overrun = false;
    let short = |written: usize, i: usize| RleError {
        written,
        needed: target,
        at_byte: i.saturating_mul(2),
    };
    while written < target {
        let c = word(stream, i).ok_or_else(|| short(written, i))? as i16;
        i += 1;
        if c < 0 {
            let v = word(stream, i).ok_or_else(|| short(written, i))?;
            i += 1;
            let k = usize::from(c.unsigned_abs());
            let room = n - written;
            if k > room {
                overrun = true;
            }
            emit(Span::Run {
                word: v,
                count: k.min(room),
            });
            written += k.min(room);
        } else {
            // the words present (the stream may end inside the packet), those that fit
            let c = usize::from(c.unsigned_abs());
            let avail = (stream.len() / 2).saturating_sub(i).min(c);
            let take = avail.min(n - written);
            if take > 0 {
                emit(Span::Literal(&stream[2 * i..2 * (i + take)]));
                written += take;
            }
            overrun |= avail > take;
            i += avail;
            if avail < c {
                return Err(short(written, i));
            }
        }
    }
    Ok((i, overrun))
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Packet {
    Run { start: usize, len: usize },
    Literal { start: usize, len: usize },
}

fn run_len(p: &[u16], i: usize) -> usize {
    let v = p[i];
    p[i..].iter().take(MAX_RUN).take_while(|&&x| x == v).count()
}

/// Encode `pixels` (`N = pixels.len()`) as an RLE16 stream obeying the rules of docs/formats/argonaut-wad.md §6.1.
pub fn encode(pixels: &[u16]) -> Vec<u8> {
    let n = pixels.len();
    if n <= 1 {
        return Vec::new();
    }
    let mut packets: Vec<Packet> = Vec::new();
    let mut i = 0;
    while i < n {
        let r = run_len(pixels, i);
        if r >= 3 {
            packets.push(Packet::Run { start: i, len: r });
            i += r;
        } else {
            let start = i;
            while i < n && i - start < MAX_LITERAL && run_len(pixels, i) < 3 {
                i += 1;
            }
            packets.push(Packet::Literal {
                start,
                len: i - start,
            });
        }
    }
    // The game never reads a packet that starts at pixel N − 1: fold the last pixel into the
    // packet before it.
    let k = packets.len();
    if k >= 2
        && packets[k - 1]
            == (Packet::Literal {
                start: n - 1,
                len: 1,
            })
    {
        match &mut packets[k - 2] {
            Packet::Literal { len, .. } if *len < MAX_LITERAL => {
                *len += 1;
                packets.pop();
            }
            Packet::Literal { len, .. } | Packet::Run { len, .. } => {
                // Shorten the previous packet by one; the last packet becomes 2 pixels.
                *len -= 1;
                packets[k - 1] = Packet::Literal {
                    start: n - 2,
                    len: 2,
                };
            }
        }
    }
    let mut out = Vec::new();
    for p in packets {
        match p {
            Packet::Run { start, len } => {
                out.extend_from_slice(&(-(len as i32) as i16).to_le_bytes());
                out.extend_from_slice(&pixels[start].to_le_bytes());
            }
            Packet::Literal { start, len } => {
                out.extend_from_slice(&(len as u16).to_le_bytes());
                for v in &pixels[start..start + len] {
                    out.extend_from_slice(&v.to_le_bytes());
                }
            }
        }
    }
    out
}

/// Where each packet of `stream` starts (in pixels), as the game walks it for `n` pixels;
/// used to check the "no final packet at `N − 1`" rule. Stops where the decoder stops.
pub fn packet_starts(stream: &[u8], n: usize) -> Vec<usize> {
    let target = n.saturating_sub(1);
    let mut starts = Vec::new();
    let mut written = 0usize;
    let mut i = 0usize;
    while written < target {
        let Some(c) = word(stream, i) else { break };
        let c = c as i16;
        starts.push(written);
        if c < 0 {
            written = written.saturating_add(usize::from(c.unsigned_abs()));
            i += 2;
        } else {
            written = written.saturating_add(c as usize);
            i += 1 + c as usize;
        }
    }
    starts
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Little-endian bytes of a list of words.
    fn words(w: &[u16]) -> Vec<u8> {
        w.iter().flat_map(|v| v.to_le_bytes()).collect()
    }

    #[test]
    fn literal_then_run() {
        // literal of 2 (0x1111, 0x2222), then run of 2 × 0x3333 (control −2 = 0xFFFE)
        let s = words(&[0x0002, 0x1111, 0x2222, 0xFFFE, 0x3333]);
        let d = decode(&s, 4).expect("decodes");
        assert_eq!(d.pixels, [0x1111, 0x2222, 0x3333, 0x3333]);
        assert_eq!(d.words_read, 5);
        assert!(!d.overrun);
    }

    #[test]
    fn decoder_stops_after_n_minus_1_pixels() {
        // N = 3: after the literal of 2 the decoder has written N − 1 and stops; the final
        // 1-pixel packet is never read and the last pixel stays unwritten (0 here).
        let s = words(&[0x0002, 0xAAAA, 0xBBBB, 0x0001, 0xCCCC]);
        let d = decode(&s, 3).expect("decodes");
        assert_eq!(d.pixels, [0xAAAA, 0xBBBB, 0]);
        assert_eq!(d.words_read, 3);
    }

    #[test]
    fn one_pixel_page_writes_nothing() {
        let s = words(&[0x0001, 0xABCD]);
        let d = decode(&s, 1).expect("decodes");
        assert_eq!(d.pixels, [0]);
        assert_eq!(d.words_read, 0);
        let d = decode(&[], 0).expect("decodes");
        assert!(d.pixels.is_empty());
    }

    #[test]
    fn zero_control_is_a_no_op_and_min_i16_is_a_run_of_32768() {
        let s = words(&[0x0000, 0xFFFD, 0x0707]);
        assert_eq!(decode(&s, 3).expect("decodes").pixels, [0x0707; 3]);
        // 0x8000 = −32768 → 32768 copies, then a literal of 2
        let s = words(&[0x8000, 0x0101, 0x0002, 0x0A0A, 0x0B0B]);
        let d = decode(&s, 32770).expect("decodes");
        assert!(d.pixels[..32768].iter().all(|&p| p == 0x0101));
        assert_eq!(d.pixels[32768..], [0x0A0A, 0x0B0B]);
    }

    #[test]
    fn runs_past_n_are_clamped_and_flagged() {
        // run of 5 into a 4-pixel page
        let s = words(&[0xFFFB, 0x1234]);
        let d = decode(&s, 4).expect("decodes");
        assert_eq!(d.pixels, [0x1234; 4]);
        assert!(d.overrun);
        // literal of 3 where only 2 pixels fit: all 3 words are consumed, 2 written
        let s = words(&[0x0001, 0x0001, 0x0003, 0x0002, 0x0003, 0x0004]);
        let d = decode(&s, 3).expect("decodes");
        assert_eq!(d.pixels, [1, 2, 3]);
        assert_eq!(d.words_read, 6);
        assert!(d.overrun);
    }

    #[test]
    fn short_stream_is_an_error() {
        let s = words(&[0x0001, 0x0042]);
        let e = decode(&s, 4).expect_err("too short");
        assert_eq!(
            e,
            RleError {
                written: 1,
                needed: 3,
                at_byte: 4
            }
        );
        // a run control without its value word
        let e = decode(&words(&[0xFFFE]), 4).expect_err("too short");
        assert_eq!(e.at_byte, 2);
        // a literal of 3 with 2 words left: both written, the third is missing at byte 6
        let e = decode(&words(&[0x0003, 0x000A, 0x000B]), 5).expect_err("too short");
        assert_eq!(
            e,
            RleError {
                written: 2,
                needed: 4,
                at_byte: 6
            }
        );
    }

    #[test]
    fn encoder_vectors() {
        // run of 4 × 5, then the literal [1, 2]
        assert_eq!(
            encode(&[5, 5, 5, 5, 1, 2]),
            words(&[0xFFFC, 5, 0x0002, 1, 2])
        );
        // [7,7,7,9]: a lone last pixel would start a packet at N − 1, so the run is shortened
        // and the last packet is the literal [7, 9]
        assert_eq!(encode(&[7, 7, 7, 9]), words(&[0xFFFE, 7, 0x0002, 7, 9]));
        // 70000 equal pixels: 32768 + 32768 + 4464 (−4464 = 0xEE90)
        assert_eq!(
            encode(&vec![3u16; 70000]),
            words(&[0x8000, 3, 0x8000, 3, 0xEE90, 3])
        );
        // 32769 equal pixels: the run of 32768 would leave 1 pixel at N − 1
        assert_eq!(
            encode(&vec![3u16; 32769]),
            words(&[0x8001, 3, 0x0002, 3, 3])
        );
        assert!(encode(&[9]).is_empty());
        assert!(encode(&[]).is_empty());
    }

    #[test]
    fn literal_limit_and_fold_into_full_literal() {
        // 32768 alternating pixels: one literal would need 32768 words; the limit is 32767 and
        // the remaining single pixel would start at N − 1, so it is 32766 + 2.
        let p: Vec<u16> = (0..32768u32).map(|i| (i % 2) as u16).collect();
        let s = encode(&p);
        assert_eq!(&s[..2], &32766u16.to_le_bytes());
        let second = 2 + 32766 * 2;
        assert_eq!(&s[second..second + 2], &2u16.to_le_bytes());
        assert_eq!(s.len(), 2 + 32766 * 2 + 2 + 4);
        let d = decode(&s, p.len()).expect("decodes");
        assert_eq!(d.pixels, p);
        assert_eq!(packet_starts(&s, p.len()), [0, 32766]);
    }

    #[test]
    fn encoder_round_trips_and_obeys_the_rules() {
        let mut seed = 0x1234_5678u32;
        for n in 2..400usize {
            let pixels: Vec<u16> = (0..n)
                .map(|_| {
                    seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
                    // few distinct values so runs happen
                    ((seed >> 28) % 3) as u16
                })
                .collect();
            let s = encode(&pixels);
            let d = decode(&s, n).expect("decodes");
            assert_eq!(d.pixels, pixels, "n = {n}");
            assert!(!d.overrun);
            assert_eq!(d.words_read * 2, s.len(), "whole stream read, n = {n}");
            let starts = packet_starts(&s, n);
            assert!(starts.last().is_some_and(|&l| l < n - 1), "n = {n}");
        }
    }
}
