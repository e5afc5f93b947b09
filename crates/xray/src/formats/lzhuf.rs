//! LZHUF, the codec of X-Ray's compressed chunks (bit 31 of a chunk id set).
//!
//! It is Yoshizaki/Okumura's LZSS + adaptive Huffman scheme of 1988 with X-Ray's parameters
//! (xray-16 `src/xrCore/LzHuf.cpp`), implemented here from the algorithm:
//!
//! | parameter | value | meaning |
//! |---|---|---|
//! | `N` | 4096 | ring buffer size (match distances 1..=4096) |
//! | `F` | 60 | longest match |
//! | `THRESHOLD` | 2 | matches of at most 2 bytes are sent as literals |
//! | `N_CHAR` | 314 | alphabet: 256 literals + 58 match lengths (3..=60) |
//! | `MAX_FREQ` | 0x4000 | the Huffman tree is rebuilt (frequencies halved) at this root frequency |
//!
//! Stream layout: `u32 LE uncompressed size`, then the bit stream (MSB first). Each symbol is
//! an adaptive Huffman code; a match symbol is followed by the match position: its upper 6 bits
//! with a static prefix code (3..8 bits, tables `P_LEN`/`P_CODE` below), then 6 raw bits. The
//! ring buffer starts filled with spaces (0x20) and writing starts at `N - F`.
//!
//! The encoder reproduces the reference binary-tree match finder (longest match, the nearest
//! one on ties), so its output is the reference program's output for the same input.

/// Ring buffer size.
const N: usize = 4096;
/// Longest match.
const F: usize = 60;
/// Longest match sent as literals.
const THRESHOLD: usize = 2;
/// Symbols: literals and match lengths.
const N_CHAR: usize = 256 - THRESHOLD + F;
/// Nodes of the Huffman tree.
const T: usize = N_CHAR * 2 - 1;
/// The root node.
const R: usize = T - 1;
/// Root frequency at which the tree is rebuilt.
const MAX_FREQ: u32 = 0x4000;
/// "No node" in the match-finder tree.
const NIL: usize = N;

/// Code lengths of the upper 6 bits of a match position.
const P_LEN: [u8; 64] = {
    let mut t = [0u8; 64];
    let mut i = 0;
    while i < 64 {
        t[i] = match i {
            0 => 3,
            1..=3 => 4,
            4..=11 => 5,
            12..=23 => 6,
            24..=47 => 7,
            _ => 8,
        };
        i += 1;
    }
    t
};

/// Canonical codes (left-aligned in a byte) for the upper 6 bits of a match position.
const P_CODE: [u8; 64] = {
    let mut t = [0u8; 64];
    let mut code = 0u32;
    let mut i = 0;
    while i < 64 {
        t[i] = code as u8;
        code += 1 << (8 - P_LEN[i]);
        i += 1;
    }
    t
};

/// For every byte value: which upper-position value its prefix code is (inverse of `P_CODE`).
const D_CODE: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut i = 0;
    while i < 64 {
        let start = P_CODE[i] as usize;
        let n = 1usize << (8 - P_LEN[i]);
        let mut k = 0;
        while k < n {
            t[start + k] = i as u8;
            k += 1;
        }
        i += 1;
    }
    t
};

/// The adaptive Huffman tree shared by encoder and decoder.
struct Huff {
    freq: [u32; T + 1],
    prnt: [usize; T + N_CHAR],
    son: [usize; T],
}

impl Huff {
    fn new() -> Box<Huff> {
        let mut h = Box::new(Huff {
            freq: [0; T + 1],
            prnt: [0; T + N_CHAR],
            son: [0; T],
        });
        for i in 0..N_CHAR {
            h.freq[i] = 1;
            h.son[i] = i + T;
            h.prnt[i + T] = i;
        }
        let mut i = 0;
        let mut j = N_CHAR;
        while j <= R {
            h.freq[j] = h.freq[i] + h.freq[i + 1];
            h.son[j] = i;
            h.prnt[i] = j;
            h.prnt[i + 1] = j;
            i += 2;
            j += 1;
        }
        h.freq[T] = 0xFFFF;
        h.prnt[R] = 0;
        h
    }

    /// Rebuild the tree with halved frequencies.
    fn reconst(&mut self) {
        let mut j = 0;
        for i in 0..T {
            if self.son[i] >= T {
                self.freq[j] = self.freq[i].div_ceil(2);
                self.son[j] = self.son[i];
                j += 1;
            }
        }
        let mut i = 0;
        let mut j = N_CHAR;
        while j < T {
            let f = self.freq[i] + self.freq[i + 1];
            self.freq[j] = f;
            let mut k = j - 1;
            while f < self.freq[k] {
                k -= 1;
            }
            k += 1;
            self.freq.copy_within(k..j, k + 1);
            self.freq[k] = f;
            self.son.copy_within(k..j, k + 1);
            self.son[k] = i;
            i += 2;
            j += 1;
        }
        for i in 0..T {
            let k = self.son[i];
            if k >= T {
                self.prnt[k] = i;
            } else {
                self.prnt[k] = i;
                self.prnt[k + 1] = i;
            }
        }
    }

    /// Count one more occurrence of symbol `c` and restore the sibling property.
    fn update(&mut self, c: usize) {
        if self.freq[R] == MAX_FREQ {
            self.reconst();
        }
        let mut c = self.prnt[c + T];
        loop {
            self.freq[c] += 1;
            let k = self.freq[c];
            let mut l = c + 1;
            if k > self.freq[l] {
                loop {
                    l += 1;
                    if k <= self.freq[l] {
                        break;
                    }
                }
                l -= 1;
                self.freq[c] = self.freq[l];
                self.freq[l] = k;
                let i = self.son[c];
                self.prnt[i] = l;
                if i < T {
                    self.prnt[i + 1] = l;
                }
                let j = self.son[l];
                self.son[l] = i;
                self.prnt[j] = c;
                if j < T {
                    self.prnt[j + 1] = c;
                }
                self.son[c] = j;
                c = l;
            }
            c = self.prnt[c];
            if c == 0 {
                break;
            }
        }
    }
}

/// Why a compressed stream could not be decoded.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LzhufError {
    /// Fewer than the 4 bytes of the size prefix.
    #[error("compressed data is {0} bytes, shorter than its 4-byte size prefix")]
    NoSize(usize),
    /// The bit stream ended before the stated number of bytes was produced.
    #[error("compressed stream ends after {produced} of {expected} bytes")]
    Truncated {
        /// Bytes decoded so far.
        produced: usize,
        /// Bytes the size prefix promised.
        expected: usize,
    },
    /// The size prefix promises more than the reader's limit allows.
    #[error("compressed stream declares {declared} bytes, more than the limit of {limit} bytes")]
    TooLarge {
        /// Bytes the size prefix promised.
        declared: usize,
        /// [`levelgeom_binary::Limits::max_decoded`].
        limit: usize,
    },
}

struct BitReader<'a> {
    data: &'a [u8],
    pos: usize,
    buf: u32,
    len: u32,
    /// Bytes consumed beyond the end (read as 0, as the reference does at EOF).
    overrun: usize,
}

impl BitReader<'_> {
    fn fill(&mut self) {
        while self.len <= 8 {
            let b = match self.data.get(self.pos) {
                Some(&b) => b,
                None => {
                    self.overrun += 1;
                    0
                }
            };
            self.pos += 1;
            self.buf |= u32::from(b) << (8 - self.len);
            self.len += 8;
        }
    }

    fn bit(&mut self) -> usize {
        self.fill();
        let i = self.buf;
        self.buf = (self.buf << 1) & 0xFFFF;
        self.len -= 1;
        ((i >> 15) & 1) as usize
    }

    fn byte(&mut self) -> usize {
        self.fill();
        let i = self.buf;
        self.buf = (self.buf << 8) & 0xFFFF;
        self.len -= 8;
        ((i >> 8) & 0xFF) as usize
    }
}

/// The most [`decompress`] reserves before decoding (it grows beyond if the data does).
const RESERVE_LIMIT: usize = 1 << 24;

/// Decode a compressed chunk payload (`u32` size prefix + bit stream).
///
/// Never reads past `data` (missing bits count as zero, as in the reference, but a stream that
/// needs more than two bytes beyond its end is refused) and never allocates more than the
/// stream could expand to.
pub fn decompress(data: &[u8]) -> Result<Vec<u8>, LzhufError> {
    decompress_with(data, &levelgeom_binary::Limits::DEFAULT)
}

/// [`decompress`] with explicit allocation limits: a stream whose size prefix declares more
/// than `limits.max_decoded` bytes is refused before anything is decoded.
pub fn decompress_with(
    data: &[u8],
    limits: &levelgeom_binary::Limits,
) -> Result<Vec<u8>, LzhufError> {
    let Some(size) = data.get(..4) else {
        return Err(LzhufError::NoSize(data.len()));
    };
    let expected = u32::from_le_bytes([size[0], size[1], size[2], size[3]]) as usize;
    if expected > limits.max_decoded {
        return Err(LzhufError::TooLarge {
            declared: expected,
            limit: limits.max_decoded,
        });
    }
    let bits = &data[4..];
    // Every symbol needs at least one bit and yields at most F bytes.
    let bound = bits.len().saturating_add(2).saturating_mul(8 * F);
    if expected > bound {
        return Err(LzhufError::Truncated {
            produced: 0,
            expected,
        });
    }
    // Reserve only what is plausible up front; the vector grows if the stream really is that
    // productive (a declared size is an untrusted number).
    let mut out = Vec::with_capacity(expected.min(RESERVE_LIMIT));
    let mut text = [0x20u8; N];
    let mut r = N - F;
    let mut h = Huff::new();
    let mut br = BitReader {
        data: bits,
        pos: 0,
        buf: 0,
        len: 0,
        overrun: 0,
    };
    while out.len() < expected {
        if br.overrun > 2 {
            return Err(LzhufError::Truncated {
                produced: out.len(),
                expected,
            });
        }
        let mut c = h.son[R];
        while c < T {
            c += br.bit();
            c = h.son[c];
        }
        c -= T;
        h.update(c);
        if c < 256 {
            out.push(c as u8);
            text[r] = c as u8;
            r = (r + 1) & (N - 1);
        } else {
            let mut i = br.byte();
            let upper = usize::from(D_CODE[i]) << 6;
            let extra = usize::from(P_LEN[usize::from(D_CODE[i])]) - 2;
            for _ in 0..extra {
                i = (i << 1) + br.bit();
            }
            let pos = upper | (i & 0x3F);
            let start = (r + N - pos - 1) & (N - 1);
            let len = c + THRESHOLD + 1 - 256;
            for k in 0..len {
                if out.len() == expected {
                    break;
                }
                let b = text[(start + k) & (N - 1)];
                out.push(b);
                text[r] = b;
                r = (r + 1) & (N - 1);
            }
        }
    }
    if br.overrun > 2 {
        return Err(LzhufError::Truncated {
            produced: out.len(),
            expected,
        });
    }
    Ok(out)
}

struct BitWriter {
    out: Vec<u8>,
    buf: u32,
    len: u32,
}

impl BitWriter {
    /// Append the top `l` bits of the 16-bit `c`.
    fn put(&mut self, l: u32, c: u32) {
        self.buf |= c >> self.len;
        self.buf &= 0xFFFF;
        self.len += l;
        if self.len >= 8 {
            self.out.push((self.buf >> 8) as u8);
            self.len -= 8;
            if self.len >= 8 {
                self.out.push(self.buf as u8);
                self.len -= 8;
                self.buf = (c << (l - self.len)) & 0xFFFF;
            } else {
                self.buf = (self.buf << 8) & 0xFFFF;
            }
        }
    }

    fn end(&mut self) {
        if self.len > 0 {
            self.out.push((self.buf >> 8) as u8);
        }
    }
}

/// The reference binary-tree match finder.
struct Tree {
    text: Vec<u8>,
    lson: Vec<usize>,
    rson: Vec<usize>,
    dad: Vec<usize>,
    match_position: usize,
    match_length: usize,
}

impl Tree {
    fn new() -> Tree {
        Tree {
            text: vec![0u8; N + F - 1],
            lson: vec![NIL; N + 1],
            rson: vec![NIL; N + 257],
            dad: vec![NIL; N + 1],
            match_position: 0,
            match_length: 0,
        }
    }

    fn insert(&mut self, r: usize) {
        let mut cmp: i32 = 1;
        let mut p = N + 1 + usize::from(self.text[r]);
        self.rson[r] = NIL;
        self.lson[r] = NIL;
        self.match_length = 0;
        loop {
            if cmp >= 0 {
                if self.rson[p] != NIL {
                    p = self.rson[p];
                } else {
                    self.rson[p] = r;
                    self.dad[r] = p;
                    return;
                }
            } else if self.lson[p] != NIL {
                p = self.lson[p];
            } else {
                self.lson[p] = r;
                self.dad[r] = p;
                return;
            }
            let mut i = 1;
            while i < F {
                cmp = i32::from(self.text[r + i]) - i32::from(self.text[p + i]);
                if cmp != 0 {
                    break;
                }
                i += 1;
            }
            if i > THRESHOLD {
                let dist = ((r + N - p) & (N - 1)).wrapping_sub(1) & (N - 1);
                if i > self.match_length {
                    self.match_position = dist;
                    self.match_length = i;
                    if i >= F {
                        break;
                    }
                }
                if i == self.match_length && dist < self.match_position {
                    self.match_position = dist;
                }
            }
        }
        self.dad[r] = self.dad[p];
        self.lson[r] = self.lson[p];
        self.rson[r] = self.rson[p];
        let (l, rs) = (self.lson[p], self.rson[p]);
        self.dad[l] = r;
        self.dad[rs] = r;
        let d = self.dad[p];
        if self.rson[d] == p {
            self.rson[d] = r;
        } else {
            self.lson[d] = r;
        }
        self.dad[p] = NIL;
    }

    fn delete(&mut self, p: usize) {
        if self.dad[p] == NIL {
            return;
        }
        let q;
        if self.rson[p] == NIL {
            q = self.lson[p];
        } else if self.lson[p] == NIL {
            q = self.rson[p];
        } else {
            let mut qq = self.lson[p];
            if self.rson[qq] != NIL {
                while self.rson[qq] != NIL {
                    qq = self.rson[qq];
                }
                let dq = self.dad[qq];
                self.rson[dq] = self.lson[qq];
                let lq = self.lson[qq];
                self.dad[lq] = dq;
                self.lson[qq] = self.lson[p];
                let lp = self.lson[p];
                self.dad[lp] = qq;
            }
            self.rson[qq] = self.rson[p];
            let rp = self.rson[p];
            self.dad[rp] = qq;
            q = qq;
        }
        self.dad[q] = self.dad[p];
        let d = self.dad[p];
        if self.rson[d] == p {
            self.rson[d] = q;
        } else {
            self.lson[d] = q;
        }
        self.dad[p] = NIL;
    }
}

fn encode_char(h: &mut Huff, bw: &mut BitWriter, c: usize) {
    let mut code: u32 = 0;
    let mut len: u32 = 0;
    let mut k = h.prnt[c + T];
    loop {
        code >>= 1;
        if k & 1 == 1 {
            code += 0x8000;
        }
        len += 1;
        k = h.prnt[k];
        if k == R {
            break;
        }
    }
    bw.put(len, code);
    h.update(c);
}

fn encode_position(bw: &mut BitWriter, c: usize) {
    let i = c >> 6;
    bw.put(u32::from(P_LEN[i]), u32::from(P_CODE[i]) << 8);
    bw.put(6, ((c & 0x3F) as u32) << 10);
}

/// Compress `data` into a chunk payload (`u32` size prefix + bit stream); data over 4 GiB
/// cannot be described by the prefix and is an error naming `uncompressed size`.
pub fn compress(data: &[u8]) -> Result<Vec<u8>, levelgeom_binary::WriteError> {
    let size: u32 = levelgeom_binary::fit(data.len(), || "uncompressed size".into())?;
    let mut bw = BitWriter {
        out: Vec::with_capacity(data.len() / 2 + 16),
        buf: 0,
        len: 0,
    };
    bw.out.extend_from_slice(&size.to_le_bytes());
    if data.is_empty() {
        return Ok(bw.out);
    }
    let mut h = Huff::new();
    let mut t = Tree::new();
    let mut input = data.iter().copied();
    let mut s = 0usize;
    let mut r = N - F;
    for b in &mut t.text[..r] {
        *b = b' ';
    }
    let mut len = 0usize;
    while len < F {
        match input.next() {
            Some(c) => {
                t.text[r + len] = c;
                len += 1;
            }
            None => break,
        }
    }
    for i in 1..=F {
        t.insert(r - i);
    }
    t.insert(r);
    loop {
        if t.match_length > len {
            t.match_length = len;
        }
        if t.match_length <= THRESHOLD {
            t.match_length = 1;
            let c = usize::from(t.text[r]);
            encode_char(&mut h, &mut bw, c);
        } else {
            encode_char(&mut h, &mut bw, 255 - THRESHOLD + t.match_length);
            let mp = t.match_position;
            encode_position(&mut bw, mp);
        }
        let last = t.match_length;
        let mut i = 0;
        while i < last {
            let Some(c) = input.next() else { break };
            t.delete(s);
            t.text[s] = c;
            if s < F - 1 {
                t.text[s + N] = c;
            }
            s = (s + 1) & (N - 1);
            r = (r + 1) & (N - 1);
            t.insert(r);
            i += 1;
        }
        while i < last {
            i += 1;
            t.delete(s);
            s = (s + 1) & (N - 1);
            r = (r + 1) & (N - 1);
            len -= 1;
            if len > 0 {
                t.insert(r);
            }
        }
        if len == 0 {
            break;
        }
    }
    bw.end();
    Ok(bw.out)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn position_tables_are_a_complete_prefix_code() {
        // Kraft sum of the 64 codes is exactly 1 and the canonical codes match the reference
        // table's first entries (0x00, 0x20, 0x30, 0x40, 0x50, 0x58).
        let kraft: u32 = P_LEN.iter().map(|&l| 256 >> l).sum();
        assert_eq!(kraft, 256);
        assert_eq!(&P_CODE[..6], &[0x00, 0x20, 0x30, 0x40, 0x50, 0x58]);
        assert_eq!(P_CODE[63], 0xFF);
        assert_eq!(D_CODE[0x1F], 0);
        assert_eq!(D_CODE[0x20], 1);
        assert_eq!(D_CODE[0xFF], 63);
    }

    #[test]
    fn round_trips_varied_data() {
        let mut samples: Vec<Vec<u8>> = vec![
            Vec::new(),
            b"a".to_vec(),
            b"abcabcabcabcabcabc".to_vec(),
            vec![0x20; 10000],
            vec![0; 70000],
        ];
        // pseudo-random bytes with some repetition
        let mut x: u32 = 12345;
        let mut v = Vec::new();
        for i in 0..50000u32 {
            x = x.wrapping_mul(1103515245).wrapping_add(12345);
            v.push(if i % 7 == 0 {
                (x >> 16) as u8
            } else {
                (i % 23) as u8
            });
        }
        samples.push(v);
        for s in samples {
            let c = compress(&s).unwrap();
            assert_eq!(&c[..4], &(s.len() as u32).to_le_bytes());
            assert_eq!(decompress(&c).unwrap(), s);
        }
    }

    #[test]
    fn repetitive_data_shrinks() {
        let s = vec![7u8; 4000];
        assert!(compress(&s).unwrap().len() < 200);
    }

    #[test]
    fn random_streams_never_panic() {
        let mut x: u32 = 7;
        for n in 0..300usize {
            let mut b = ((n * 37) as u32 % 5000).to_le_bytes().to_vec();
            for _ in 0..(n % 97) {
                x = x.wrapping_mul(1103515245).wrapping_add(12345);
                b.push((x >> 16) as u8);
            }
            if let Ok(v) = decompress(&b) {
                assert_eq!(v.len(), (n * 37) % 5000);
            }
        }
    }

    #[test]
    fn truncated_streams_are_errors() {
        let s: Vec<u8> = (0..5000u32).map(|i| (i * 7 % 251) as u8).collect();
        let c = compress(&s).unwrap();
        assert!(matches!(
            decompress(&c[..c.len() / 2]),
            Err(LzhufError::Truncated { .. })
        ));
        assert_eq!(decompress(&c[..3]), Err(LzhufError::NoSize(3)));
        // a size far beyond what the stream can hold is refused before allocating
        let mut big = c.clone();
        big[..4].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(decompress(&big).is_err());
    }

    #[test]
    fn limits_refuse_a_declared_size_before_decoding() {
        let plain: Vec<u8> = (0..5000u32).map(|i| (i * 7 % 251) as u8).collect();
        let c = compress(&plain).unwrap();
        let small = levelgeom_binary::Limits {
            max_decoded: 4999,
            ..levelgeom_binary::Limits::DEFAULT
        };
        assert_eq!(
            decompress_with(&c, &small),
            Err(LzhufError::TooLarge {
                declared: 5000,
                limit: 4999
            })
        );
        let enough = levelgeom_binary::Limits {
            max_decoded: 5000,
            ..levelgeom_binary::Limits::DEFAULT
        };
        assert_eq!(decompress_with(&c, &enough).unwrap(), plain);
    }
}
