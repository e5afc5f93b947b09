//! PSX (SPU) ADPCM, the codec of SMPC `cvg ` sounds (docs/formats/argonaut-wad.md §5, §7; ENG-RE `smpc_chunk.py`;
//! FFmpeg `argo_cvg.c` uses `ADPCM_PSX` for the PS1 CVG files).
//!
//! ```text
//! 16-byte block → 28 samples
//!   byte 0   shift (bits 0–3) | filter (bits 4–7; values above 4 act as 4)
//!   byte 1   flags (bit 0 loop end, bit 1 loop repeat, bit 2 loop start)
//!   2..16    28 nibbles, the low nibble of each byte first
//! sample = clamp16((sign_extend4(nibble) << 12 >> shift) + ((f1·s₋₁ + f2·s₋₂ + 32) >> 6))
//! filters (f1, f2): (0, 0) (60, 0) (115, −52) (98, −55) (122, −60)
//! ```
//!
//! As in ENG-RE's decoder, a block whose flag bits (`byte 1 & 7`) are all set decodes to
//! silence (and that silence is the history of the next block), and the decoder state runs on
//! across blocks. Bytes after the last whole block are not audio.
//!
//! [`encode`] is the decoder's inverse by search: for every block it tries each of the five
//! filters with every shift 0..=12, quantises each residual to the nearest nibble (clamped to
//! −8..=7) against the *decoded* history (closed loop, exactly the arithmetic above, clamping
//! included), and keeps the combination with the smallest squared error. A sample of a block
//! with step `Δ = 2^(12 − shift)` that fits the nibble range is therefore within `Δ/2` of the
//! input.

/// Bytes per block.
pub const BLOCK_BYTES: usize = 16;
/// Samples per block.
pub const BLOCK_SAMPLES: usize = 28;
/// The prediction filters `(f1, f2)` in 64ths.
pub const FILTERS: [(i32, i32); 5] = [(0, 0), (60, 0), (115, -52), (98, -55), (122, -60)];

/// Decoder history: the last two samples.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct History {
    s1: i32,
    s2: i32,
}

fn predict(h: History, filter: usize) -> i32 {
    let (f1, f2) = FILTERS[filter.min(4)];
    (f1 * h.s1 + f2 * h.s2 + 32) >> 6
}

fn sample(nibble: u8, shift: u8, pred: i32) -> i32 {
    let n = i32::from(((nibble << 4) as i8) >> 4);
    (((n << 12) >> shift) + pred).clamp(-32768, 32767)
}

/// Decode a stream of blocks (a trailing partial block is ignored).
pub fn decode(bytes: &[u8]) -> Vec<i16> {
    let mut out = Vec::with_capacity(bytes.len() / BLOCK_BYTES * BLOCK_SAMPLES);
    let mut h = History::default();
    for b in bytes.chunks_exact(BLOCK_BYTES) {
        let shift = b[0] & 0x0F;
        let filter = usize::from(b[0] >> 4);
        let silent = b[1] & 7 == 7;
        for &byte in &b[2..] {
            for nibble in [byte & 0x0F, byte >> 4] {
                let s = if silent {
                    0
                } else {
                    sample(nibble, shift, predict(h, filter))
                };
                h = History { s1: s, s2: h.s1 };
                out.push(s as i16);
            }
        }
    }
    out
}

/// The flag bytes (byte 1) an encoded stream carries.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BlockFlags {
    /// Byte 1 of the first block.
    pub first: u8,
    /// Byte 1 of the last block (wins over `first` for a one-block stream).
    pub last: u8,
}

impl BlockFlags {
    /// The first and last flag bytes of an existing stream (to carry its loop marks over to a
    /// replacement); both 0 for an empty one.
    pub fn of(bytes: &[u8]) -> BlockFlags {
        let blocks: Vec<&[u8]> = bytes.chunks_exact(BLOCK_BYTES).collect();
        BlockFlags {
            first: blocks.first().map_or(0, |b| b[1]),
            last: blocks.last().map_or(0, |b| b[1]),
        }
    }
}

/// Encode samples into blocks (the last block padded with silence to 28 samples); flag bytes
/// from `flags` on the first and last block, 0 elsewhere. A flag byte with all three low bits
/// set would make the decoder play silence, so its block is encoded as silence.
pub fn encode(samples: &[i16], flags: &BlockFlags) -> Vec<u8> {
    let blocks = samples.len().div_ceil(BLOCK_SAMPLES);
    let mut out = Vec::with_capacity(blocks * BLOCK_BYTES);
    let mut h = History::default();
    for k in 0..blocks {
        let mut x = [0i32; BLOCK_SAMPLES];
        for (i, v) in x.iter_mut().enumerate() {
            *v = i32::from(samples.get(k * BLOCK_SAMPLES + i).copied().unwrap_or(0));
        }
        let flag = if k + 1 == blocks {
            flags.last
        } else if k == 0 {
            flags.first
        } else {
            0
        };
        let mut block = [0u8; BLOCK_BYTES];
        block[1] = flag;
        if flag & 7 == 7 {
            h = History::default();
            out.extend_from_slice(&block);
            continue;
        }
        let mut best: Option<(i64, u8, usize, [u8; BLOCK_SAMPLES], History)> = None;
        for filter in 0..FILTERS.len() {
            for shift in 0..=12u8 {
                let mut hh = h;
                let mut err = 0i64;
                let mut nib = [0u8; BLOCK_SAMPLES];
                for (i, &xi) in x.iter().enumerate() {
                    let pred = predict(hh, filter);
                    let step = f64::from(1i32 << (12 - shift));
                    let q = ((f64::from(xi - pred) / step).round() as i32).clamp(-8, 7);
                    let n = (q & 0x0F) as u8;
                    let s = sample(n, shift, pred);
                    let d = i64::from(s - xi);
                    err += d * d;
                    nib[i] = n;
                    hh = History { s1: s, s2: hh.s1 };
                }
                if best.as_ref().is_none_or(|b| err < b.0) {
                    best = Some((err, shift, filter, nib, hh));
                }
            }
        }
        let (_, shift, filter, nib, hh) = best.expect("at least one combination");
        block[0] = shift | ((filter as u8) << 4);
        for i in 0..BLOCK_SAMPLES / 2 {
            block[2 + i] = nib[2 * i] | (nib[2 * i + 1] << 4);
        }
        h = hh;
        out.extend_from_slice(&block);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hand_decoded_block() {
        // shift 12, filter 1 (60/64): nibbles 1, 2, then zeros.
        // s0 = 1 + (0 + 32)>>6 = 1; s1 = 2 + (60 + 32)>>6 = 3; s2 = 0 + (180+32)>>6 = 3;
        // s3 = (180 + 32) >> 6 = 3 (stays: 3·60/64 rounds back to 3)
        let mut b = [0u8; 16];
        b[0] = 0x1C;
        b[2] = 0x21;
        let s = decode(&b);
        assert_eq!(&s[..4], &[1, 3, 3, 3]);
        // shift 0: nibble −8 (0x8) → −8 << 12 = −32768; filter 0
        let mut c = [0u8; 16];
        c[2] = 0x08;
        assert_eq!(decode(&c)[0], -32768);
        // all three flag bits: silence whatever the nibbles say
        let mut d = [0x7Fu8; 16];
        d[1] = 7;
        assert!(decode(&d).iter().all(|&v| v == 0));
        assert_eq!(decode(&[0u8; 20]).len(), 28, "partial block ignored");
    }

    #[test]
    fn encode_decode_is_exact_for_what_the_decoder_can_say() {
        // a decoded stream (small enough that no sample clamps) re-encodes exactly: with the
        // same history, the block's own filter, shift and nibbles give zero error
        let x: Vec<i16> = (0..28 * 8)
            .map(|i| {
                let t = f64::from(i);
                (3000.0 * (t * 0.05).sin() + 900.0 * (t * 0.9).sin()) as i16
            })
            .collect();
        let pcm = decode(&encode(&x, &BlockFlags::default()));
        assert_eq!(decode(&encode(&pcm, &BlockFlags::default())), pcm);
    }

    #[test]
    fn flags_go_on_the_first_and_last_block_and_padding_is_silence() {
        let e = encode(&[1000; 60], &BlockFlags { first: 4, last: 1 });
        assert_eq!(e.len(), 3 * 16);
        assert_eq!([e[1], e[17], e[33]], [4, 0, 1]);
        let d = decode(&e);
        assert_eq!(d.len(), 84);
        assert!(d[60..].iter().all(|&v| v.abs() < 64), "{:?}", &d[60..]);
    }
}
