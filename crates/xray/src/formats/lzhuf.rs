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
//! The adaptive Huffman coder is the reference's tree and update, with node numbers in `u16`
//! tables indexed without bounds checks, and the encoder's two walks from the leaf (the
//! code, then the update) made one up to the first node that moves; the bits are written and
//! read 32 and 64 at a time. Its streams are the reference coder's bit for bit (a test keeps
//! the reference's transcription as the oracle).
//!
//! The encoder finds its matches with hash chains of bounded length ([`Matcher`]) instead of
//! the reference's binary tree, whose search degenerates into a list walk on sorted data such as
//! index buffers; its streams decode everywhere the reference's do, but are not the same bits.
//! Unchanged chunks keep their stored bytes ([`crate::chunk::write`]).

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
const MAX_FREQ: u16 = 0x4000;

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

/// Node numbers (`0..T`, and `T + symbol` for the leaves of [`Huff::son`]).
type Node = u16;
const T16: Node = T as Node;
const R16: Node = R as Node;

/// A table indexed by node number: one slot for every `u16`, so that indexing by a [`Node`]
/// needs no bounds check; only the first `T + N_CHAR` slots are ever touched (the rest are
/// zero pages the system never maps).
type Table = Box<[u16; 1 << 16]>;

fn table() -> Table {
    let v = vec![0u16; 1 << 16].into_boxed_slice();
    // a boxed slice of 2^16 elements is a boxed array of 2^16
    match v.try_into() {
        Ok(t) => t,
        Err(_) => unreachable!("a vector of 2^16 slots"),
    }
}

/// The adaptive Huffman tree shared by encoder and decoder.
///
/// Nodes `0..T` are ordered by frequency (the sibling property), `R` is the root; `son[i]` is
/// the first of node `i`'s two children (the second is `son[i] + 1`), or `T + symbol` for a
/// leaf; `prnt[i]` is node `i`'s parent and `prnt[T + symbol]` a leaf symbol's node;
/// `freq[T]` is a sentinel above every frequency. A node's parity is which child of its parent
/// it is: the bit of its branch.
struct Huff {
    freq: Table,
    prnt: Table,
    son: Table,
}

impl Huff {
    fn new() -> Huff {
        let mut h = Huff {
            freq: table(),
            prnt: table(),
            son: table(),
        };
        // node numbers are below T + N_CHAR < 2^16, frequencies at most MAX_FREQ: all fit
        for i in 0..N_CHAR {
            h.freq[i] = 1;
            h.son[i] = (i + T) as Node;
            h.prnt[i + T] = i as Node;
        }
        let mut i = 0;
        let mut j = N_CHAR;
        while j <= R {
            h.freq[j] = h.freq[i] + h.freq[i + 1];
            h.son[j] = i as Node;
            h.prnt[i] = j as Node;
            h.prnt[i + 1] = j as Node;
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
            if self.son[i] >= T16 {
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
            // after the last node of frequency at most f; nodes 0..j are in frequency order,
            // so this is the reference's linear search back from j - 1
            let k = self.freq[..j].partition_point(|&g| g <= f);
            self.freq.copy_within(k..j, k + 1);
            self.freq[k] = f;
            self.son.copy_within(k..j, k + 1);
            self.son[k] = i as Node;
            i += 2;
            j += 1;
        }
        for i in 0..T16 {
            let k = self.son[usize::from(i)];
            self.prnt[usize::from(k)] = i;
            if k < T16 {
                self.prnt[usize::from(k + 1)] = i;
            }
        }
    }

    fn freq(&self, n: Node) -> u16 {
        self.freq[usize::from(n)]
    }

    fn prnt(&self, n: Node) -> Node {
        self.prnt[usize::from(n)]
    }

    /// The code of the node `n`'s branch and its ancestors' below the root, right-aligned
    /// above `code`'s `len` bits: `(code, len)`.
    fn code_from(&self, mut n: Node, mut code: u64, mut len: u32) -> (u64, u32) {
        // frequencies of at most MAX_FREQ keep the tree far less than 64 levels deep (a
        // Fibonacci bound: about 20)
        while n != R16 {
            code |= u64::from(n & 1) << (len & 63);
            len += 1;
            n = self.prnt(n);
        }
        (code, len)
    }

    /// Node `c` (not the root) has frequency `k`, above that of node `c + 1`: move it past the
    /// last node of lower frequency (the sentinel ends the scan), swapping the two subtrees.
    /// Returns the node it moved to.
    fn swap_up(&mut self, c: Node, k: u16) -> Node {
        let mut l = c.wrapping_add(1);
        while k > self.freq(l.wrapping_add(1)) {
            l = l.wrapping_add(1);
        }
        self.freq[usize::from(c)] = self.freq(l);
        self.freq[usize::from(l)] = k;
        let i = self.son[usize::from(c)];
        self.prnt[usize::from(i)] = l;
        if i < T16 {
            self.prnt[usize::from(i.wrapping_add(1))] = l;
        }
        let j = self.son[usize::from(l)];
        self.son[usize::from(l)] = i;
        self.prnt[usize::from(j)] = c;
        if j < T16 {
            self.prnt[usize::from(j.wrapping_add(1))] = c;
        }
        self.son[usize::from(c)] = j;
        l
    }

    /// Count one more occurrence at node `c` and its ancestors, restoring the sibling property.
    fn update_from(&mut self, mut c: Node) {
        loop {
            let k = self.freq(c) + 1;
            self.freq[usize::from(c)] = k;
            if k > self.freq(c.wrapping_add(1)) {
                c = self.swap_up(c, k);
            }
            c = self.prnt(c);
            if c == 0 {
                break;
            }
        }
    }

    /// Count one more occurrence of `symbol` and restore the sibling property.
    fn update(&mut self, symbol: usize) {
        if self.freq[R] == MAX_FREQ {
            self.reconst();
        }
        self.update_from(self.prnt[(symbol + T) & 0xFFFF]);
    }

    /// The code of `symbol` in the current tree (right-aligned, the root's branch highest) and
    /// its length in bits, then [`update`](Self::update) for it. One walk up from the leaf
    /// does both until the first node that moves; the code's part above it is read before the
    /// update goes on from where the node moved to.
    fn encode(&mut self, symbol: usize) -> (u64, u32) {
        let leaf = self.prnt[(symbol + T) & 0xFFFF];
        if self.freq[R] == MAX_FREQ {
            let code = self.code_from(leaf, 0, 0);
            self.update(symbol);
            return code;
        }
        let mut code = 0u64;
        let mut len = 0u32;
        let mut c = leaf;
        loop {
            code |= u64::from(c & 1) << (len & 63);
            len += 1;
            let k = self.freq(c) + 1;
            self.freq[usize::from(c)] = k;
            if k > self.freq(c.wrapping_add(1)) {
                // the moves below change only the moved nodes' children, never c's ancestors
                let (code, len) = self.code_from(self.prnt(c), code, len);
                let l = self.swap_up(c, k);
                self.update_from(self.prnt(l));
                return (code, len);
            }
            c = self.prnt(c);
            if c == R16 {
                self.freq[R] += 1;
                return (code, len);
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

/// The bit stream, MSB first, read through a 64-bit window; bytes past the end read as zeros.
struct BitReader<'a> {
    data: &'a [u8],
    /// Bytes loaded into the window so far (past the end included).
    pos: usize,
    /// The next bits, the first one highest; only the top `have` are the stream's.
    window: u64,
    have: u32,
}

impl BitReader<'_> {
    /// Load whole bytes until the window holds at least 56 bits.
    fn refill(&mut self) {
        if let Some(b) = self.data.get(self.pos..self.pos + 8) {
            let next = u64::from_be_bytes(b.try_into().unwrap_or([0; 8]));
            // the bits of a partly loaded byte are the stream's: loading it again ORs the same
            self.window |= next >> self.have;
            let take = (63 - self.have) / 8;
            self.pos += take as usize;
            self.have += take * 8;
        } else {
            while self.have <= 56 {
                let b = self.data.get(self.pos).copied().unwrap_or(0);
                self.window |= u64::from(b) << (56 - self.have);
                self.pos += 1;
                self.have += 8;
            }
        }
    }

    /// Drop the next `n` bits (at most `have`).
    fn skip(&mut self, n: u32) {
        self.window <<= n;
        self.have -= n;
    }

    /// Bits consumed so far.
    fn consumed(&self) -> usize {
        self.pos * 8 - self.have as usize
    }

    /// True when the reads so far needed more than two bytes past the end: the reference
    /// reader, which fetches a byte whenever 8 or fewer bits are left before a read, would have
    /// fetched `ceil(consumed / 8) + 1` bytes after its last read.
    fn overran(&self) -> bool {
        self.consumed().div_ceil(8) > self.data.len() + 1
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
        window: 0,
        have: 0,
    };
    while out.len() < expected {
        if br.overran() {
            return Err(LzhufError::Truncated {
                produced: out.len(),
                expected,
            });
        }
        br.refill();
        let mut c = h.son[R];
        while c < T16 {
            if br.have == 0 {
                br.refill();
            }
            c = h.son[usize::from(c.wrapping_add((br.window >> 63) as Node))];
            br.skip(1);
        }
        let c = usize::from(c - T16);
        h.update(c);
        if c < 256 {
            out.push(c as u8);
            text[r] = c as u8;
            r = (r + 1) & (N - 1);
        } else {
            if br.have < 14 {
                br.refill();
            }
            // the upper 6 bits' prefix code (3..8 bits), then the lower 6 bits
            let peek = (br.window >> 50) as usize;
            let upper = usize::from(D_CODE[peek >> 6]);
            let bits = u32::from(P_LEN[upper]) + 6;
            let pos = upper << 6 | (peek >> (14 - bits)) & 0x3F;
            br.skip(bits);
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
    if br.overran() {
        return Err(LzhufError::Truncated {
            produced: out.len(),
            expected,
        });
    }
    Ok(out)
}

/// The bit stream, MSB first, gathered in a 64-bit word and written 32 bits at a time.
struct BitWriter {
    out: Vec<u8>,
    /// The bits not yet written are its low `len` bits, the first one highest.
    acc: u64,
    len: u32,
}

impl BitWriter {
    /// Append the low `n` bits of `bits` (`n` at most 32), the highest first.
    fn put(&mut self, n: u32, bits: u64) {
        self.acc = self.acc << n | bits;
        self.len += n;
        if self.len >= 32 {
            self.len -= 32;
            self.out
                .extend_from_slice(&((self.acc >> self.len) as u32).to_be_bytes());
        }
    }

    /// Write the bits left, the last byte padded with zero bits.
    fn end(&mut self) {
        if self.len > 0 {
            let top = (self.acc << (64 - self.len)).to_be_bytes();
            self.out
                .extend_from_slice(&top[..self.len.div_ceil(8) as usize]);
            self.len = 0;
        }
    }
}

/// Farthest back a match may start. The decoder's ring holds `N` bytes, but the reference
/// encoder keeps its `F`-byte lookahead in the same ring and so never refers further back than
/// `N - F - 1`; staying inside that keeps every stream one the reference encoder could emit.
const MAX_DIST: usize = N - F - 1;
/// Bits of the hash of a match's first three bytes.
const HASH_BITS: u32 = 15;
/// Candidates tried per match search (most recent first). Longer chains gain little on vertex
/// and index data (measured in `docs/benchmarks.md`, round 3) and bound the worst case.
const MAX_CHAIN: usize = 32;
/// "No earlier position" in the hash chains.
const NONE: u32 = u32::MAX;

/// Hash-chain match finder over the whole input: for each position, the earlier positions
/// (within [`MAX_DIST`]) whose next three bytes hash alike, newest first. Greedy LZSS as in
/// the reference encoder, but searched in bounded time per position instead of the
/// reference's binary tree, which degenerates into lists on sorted data such as index buffers.
struct Matcher<'a> {
    data: &'a [u8],
    /// Newest position per hash.
    head: Box<[u32; 1 << HASH_BITS]>,
    /// Previous position with the same hash, indexed by position modulo `N`.
    prev: Box<[u32; N]>,
}

impl<'a> Matcher<'a> {
    fn new(data: &'a [u8]) -> Matcher<'a> {
        Matcher {
            data,
            head: Box::new([NONE; 1 << HASH_BITS]),
            prev: Box::new([NONE; N]),
        }
    }

    fn hash(&self, i: usize) -> usize {
        let d = &self.data[i..i + 3];
        hash3(d[0], d[1], d[2])
    }

    /// Enter positions `from..to` into their chains (positions with fewer than three bytes
    /// left are not).
    fn insert_run(&mut self, from: usize, to: usize) {
        let end = to.min(self.data.len().saturating_sub(2));
        if from >= end {
            return;
        }
        for (k, d) in (from..end).zip(self.data[from..end + 2].windows(3)) {
            let h = hash3(d[0], d[1], d[2]);
            self.prev[k & (N - 1)] = self.head[h];
            // positions fit in u32: `compress` refuses inputs of 4 GiB and more
            self.head[h] = k as u32;
        }
    }

    /// The longest match for position `i` (at most `F` bytes and the bytes left), the nearest
    /// of equally long ones: `(length, distance)`, length 0 when there is none of 3 bytes.
    fn longest(&self, i: usize) -> (usize, usize) {
        let limit = F.min(self.data.len() - i);
        if limit <= THRESHOLD {
            return (0, 0);
        }
        let here = &self.data[i..i + limit];
        let mut best = (0, 0);
        let mut cand = self.head[self.hash(i)];
        for _ in 0..MAX_CHAIN {
            if cand == NONE {
                break;
            }
            let p = cand as usize;
            let dist = i - p;
            if dist > MAX_DIST {
                break;
            }
            // matches may run on into the bytes being encoded, as the decoder copies bytewise
            let there = &self.data[p..p + limit];
            if best.0 == 0 || there[best.0] == here[best.0] {
                let len = common_prefix(here, there);
                if len > best.0 && len > THRESHOLD {
                    best = (len, dist);
                    if len == limit {
                        break;
                    }
                }
            }
            cand = self.prev[p & (N - 1)];
        }
        best
    }
}

/// The hash chain of three bytes: [`HASH_BITS`] bits.
fn hash3(a: u8, b: u8, c: u8) -> usize {
    let v = u32::from(a) | u32::from(b) << 8 | u32::from(c) << 16;
    (v.wrapping_mul(0x9E37_79B1) >> (32 - HASH_BITS)) as usize
}

/// Length of the common prefix of two slices of equal length.
fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    let mut n = 0;
    for (x, y) in a.chunks_exact(8).zip(b.chunks_exact(8)) {
        let x = u64::from_le_bytes(x.try_into().unwrap_or([0; 8]));
        let y = u64::from_le_bytes(y.try_into().unwrap_or([0; 8]));
        let diff = x ^ y;
        if diff != 0 {
            return n + (diff.trailing_zeros() / 8) as usize;
        }
        n += 8;
    }
    n + a[n..]
        .iter()
        .zip(&b[n..])
        .take_while(|(x, y)| x == y)
        .count()
}

/// The prefix code of a match position's upper 6 bits, right-aligned, above its lower 6
/// bits: `(code, length in bits)` for every position `0..N`'s upper value.
const POSITION: [(u16, u8); 64] = {
    let mut t = [(0u16, 0u8); 64];
    let mut i = 0;
    while i < 64 {
        t[i] = ((P_CODE[i] >> (8 - P_LEN[i])) as u16, P_LEN[i] + 6);
        i += 1;
    }
    t
};

fn encode_char(h: &mut Huff, bw: &mut BitWriter, c: usize) {
    let (code, len) = h.encode(c);
    // 314 leaves of frequency at least 1 under a root of at most MAX_FREQ keep codes within
    // about 16 bits (the reference gathers them in a 16-bit word); longer ones would still be
    // written whole
    if len <= 32 {
        bw.put(len, code);
    } else {
        bw.put(len - 32, code >> 32);
        bw.put(32, code & 0xFFFF_FFFF);
    }
}

fn encode_position(bw: &mut BitWriter, c: usize) {
    let (code, len) = POSITION[(c >> 6) & 63];
    bw.put(u32::from(len), u64::from(code) << 6 | (c & 0x3F) as u64);
}

/// Inputs from this size on are matched on one thread and Huffman-coded on another.
const THREADED_FROM: usize = 1 << 20;
/// Tokens handed from the matching thread to the coding thread at a time.
const BLOCK: usize = 1 << 15;

/// Compress `data` into a chunk payload (`u32` size prefix + bit stream); data over 4 GiB
/// cannot be described by the prefix and is an error naming `uncompressed size`.
///
/// The stream is what every LZHUF decoder reads (ours, the engine's, blender-xray's), but not
/// bit for bit the reference encoder's: its match finder is [`Matcher`] (greedy, longest match
/// within the reference's window, nearest on ties, bounded search), not the reference's binary
/// tree. From [`THREADED_FROM`] bytes on, matching and coding run on two threads; the bytes
/// are the same either way.
pub fn compress(data: &[u8]) -> Result<Vec<u8>, levelgeom_binary::WriteError> {
    compress_with(data, data.len() >= THREADED_FROM)
}

fn compress_with(data: &[u8], threaded: bool) -> Result<Vec<u8>, levelgeom_binary::WriteError> {
    let size: u32 = levelgeom_binary::fit(data.len(), || "uncompressed size".into())?;
    let mut bw = BitWriter {
        out: Vec::with_capacity(data.len() / 2 + 16),
        acc: 0,
        len: 0,
    };
    bw.out.extend_from_slice(&size.to_le_bytes());
    let mut h = Huff::new();
    if threaded {
        std::thread::scope(|s| {
            let (full, full_rx) = std::sync::mpsc::sync_channel::<Vec<u32>>(4);
            let (empty, empty_rx) = std::sync::mpsc::channel::<Vec<u32>>();
            s.spawn(move || {
                let mut block = Vec::with_capacity(BLOCK);
                tokens(data, |t| {
                    block.push(t);
                    if block.len() == BLOCK {
                        let next = empty_rx.try_recv().unwrap_or_else(|_| Vec::new());
                        // the coder only stops receiving when this thread is done
                        let _ = full.send(std::mem::replace(&mut block, next));
                    }
                });
                let _ = full.send(block);
            });
            for mut block in full_rx {
                for &t in &block {
                    encode_token(&mut h, &mut bw, t);
                }
                block.clear();
                let _ = empty.send(block);
            }
        });
    } else {
        tokens(data, |t| encode_token(&mut h, &mut bw, t));
    }
    if !data.is_empty() {
        bw.end();
    }
    Ok(bw.out)
}

/// The greedy parse of `data` as tokens: a literal is its byte, a match is its symbol
/// (`253 + length`) shifted left by 12 above its position code (`distance - 1`).
fn tokens(data: &[u8], mut emit: impl FnMut(u32)) {
    let mut m = Matcher::new(data);
    let mut i = 0;
    while i < data.len() {
        let (len, dist) = m.longest(i);
        let step = if len > THRESHOLD {
            // len ≤ F and dist ≤ MAX_DIST < N: both fit their fields
            emit(((255 - THRESHOLD + len) as u32) << 12 | (dist - 1) as u32);
            len
        } else {
            emit(u32::from(data[i]));
            1
        };
        m.insert_run(i, i + step);
        i += step;
    }
}

fn encode_token(h: &mut Huff, bw: &mut BitWriter, t: u32) {
    if t < 256 {
        encode_char(h, bw, t as usize);
    } else {
        encode_char(h, bw, (t >> 12) as usize);
        encode_position(bw, (t & 0xFFF) as usize);
    }
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
    fn threaded_and_single_threaded_streams_are_the_same_bytes() {
        // vertex-like data: a few repeated float patterns among pseudo-random ones, long
        // enough for several token blocks
        let mut x: u32 = 99;
        let mut v = Vec::new();
        for i in 0..300_000u32 {
            x = x.wrapping_mul(1103515245).wrapping_add(12345);
            let f: f32 = if i % 3 == 0 {
                1.0
            } else {
                (x >> 8) as f32 / 4096.0
            };
            v.extend_from_slice(&f.to_le_bytes());
        }
        let one = compress_with(&v, false).unwrap();
        let two = compress_with(&v, true).unwrap();
        assert_eq!(one, two);
        assert_eq!(decompress(&two).unwrap(), v);
        assert!(one.len() < v.len() * 3 / 4);
    }

    /// The coder as the reference transcribes it (Okumura's `LZHUF.C`, xray-16
    /// `src/xrCore/LzHuf.cpp`): `u32` frequencies, a code gathered into a 16-bit word leaf to
    /// root, a 16-bit bit buffer flushed byte by byte, a bit reader filling 8 bits at a time;
    /// the oracle the fused walk, the tables and the 64-bit bit I/O are compared with.
    mod reference {
        use super::super::{D_CODE, MAX_FREQ, N, N_CHAR, P_CODE, P_LEN, R, T, THRESHOLD};

        struct Huff {
            freq: [u32; T + 1],
            prnt: [usize; T + N_CHAR],
            son: [usize; T],
        }

        impl Huff {
            fn new() -> Huff {
                let mut h = Huff {
                    freq: [0; T + 1],
                    prnt: [0; T + N_CHAR],
                    son: [0; T],
                };
                for i in 0..N_CHAR {
                    h.freq[i] = 1;
                    h.son[i] = i + T;
                    h.prnt[i + T] = i;
                }
                let (mut i, mut j) = (0, N_CHAR);
                while j <= R {
                    h.freq[j] = h.freq[i] + h.freq[i + 1];
                    h.son[j] = i;
                    h.prnt[i] = j;
                    h.prnt[i + 1] = j;
                    i += 2;
                    j += 1;
                }
                h.freq[T] = 0xFFFF;
                h
            }

            fn reconst(&mut self) {
                let mut j = 0;
                for i in 0..T {
                    if self.son[i] >= T {
                        self.freq[j] = self.freq[i].div_ceil(2);
                        self.son[j] = self.son[i];
                        j += 1;
                    }
                }
                let (mut i, mut j) = (0, N_CHAR);
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
                    self.prnt[k] = i;
                    if k < T {
                        self.prnt[k + 1] = i;
                    }
                }
            }

            fn update(&mut self, c: usize) {
                if self.freq[R] == u32::from(MAX_FREQ) {
                    self.reconst();
                }
                let mut c = self.prnt[c + T];
                loop {
                    self.freq[c] += 1;
                    let k = self.freq[c];
                    let mut l = c + 1;
                    if k > self.freq[l] {
                        while k > self.freq[l + 1] {
                            l += 1;
                        }
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

        #[derive(Default)]
        struct Writer {
            out: Vec<u8>,
            buf: u32,
            len: u32,
        }

        impl Writer {
            /// Putcode: the top `l` bits of the 16-bit `c`.
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
        }

        /// The stream of `tokens` ([`super::super::tokens`]) for `size` bytes.
        pub fn encode(size: usize, tokens: &[u32]) -> Vec<u8> {
            let mut h = Huff::new();
            let mut w = Writer::default();
            w.out.extend_from_slice(&(size as u32).to_le_bytes());
            let char = |h: &mut Huff, w: &mut Writer, c: usize| {
                let (mut code, mut len, mut k) = (0u32, 0u32, h.prnt[c + T]);
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
                w.put(len, code);
                h.update(c);
            };
            for &t in tokens {
                if t < 256 {
                    char(&mut h, &mut w, t as usize);
                } else {
                    char(&mut h, &mut w, (t >> 12) as usize);
                    let c = (t & 0xFFF) as usize;
                    let i = c >> 6;
                    w.put(u32::from(P_LEN[i]), u32::from(P_CODE[i]) << 8);
                    w.put(6, ((c & 0x3F) as u32) << 10);
                }
            }
            if w.len > 0 {
                w.out.push((w.buf >> 8) as u8);
            }
            w.out
        }

        /// The 16-bit reader: 8 more bits whenever 8 or fewer are left, zeros past the end.
        struct Reader<'a> {
            bits: &'a [u8],
            pos: usize,
            buf: u32,
            len: u32,
            overrun: usize,
        }

        impl Reader<'_> {
            fn get(&mut self, n: u32) -> usize {
                while self.len <= 8 {
                    let b = match self.bits.get(self.pos) {
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
                let v = self.buf;
                self.buf = (self.buf << n) & 0xFFFF;
                self.len -= n;
                (v >> (16 - n)) as usize
            }
        }

        /// The decoded bytes, or `None` where the reader fetched more than two bytes past the
        /// end before a symbol or at the end.
        pub fn decode(data: &[u8]) -> Option<Vec<u8>> {
            let expected = u32::from_le_bytes(data.get(..4)?.try_into().ok()?) as usize;
            let mut rd = Reader {
                bits: &data[4..],
                pos: 0,
                buf: 0,
                len: 0,
                overrun: 0,
            };
            let mut out = Vec::new();
            let mut text = [0x20u8; N];
            let mut r = N - super::super::F;
            let mut h = Huff::new();
            while out.len() < expected {
                if rd.overrun > 2 {
                    return None;
                }
                let mut c = h.son[R];
                while c < T {
                    c += rd.get(1);
                    c = h.son[c];
                }
                c -= T;
                h.update(c);
                if c < 256 {
                    out.push(c as u8);
                    text[r] = c as u8;
                    r = (r + 1) & (N - 1);
                } else {
                    let mut i = rd.get(8);
                    let upper = usize::from(D_CODE[i]) << 6;
                    for _ in 0..usize::from(P_LEN[usize::from(D_CODE[i])]) - 2 {
                        i = (i << 1) + rd.get(1);
                    }
                    let start = (r + N - (upper | (i & 0x3F)) - 1) & (N - 1);
                    for k in 0..c + THRESHOLD + 1 - 256 {
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
            (rd.overrun <= 2).then_some(out)
        }
    }

    /// Inputs for the comparisons with the reference: vertex-like floats, index-like runs,
    /// pseudo-random bytes, long repeats (every match length and distance class), text.
    fn samples() -> Vec<Vec<u8>> {
        let mut x: u32 = 2024;
        let mut next = move || {
            x = x.wrapping_mul(1103515245).wrapping_add(12345);
            x >> 8
        };
        let mut floats = Vec::new();
        for i in 0..60_000u32 {
            let f = if i % 5 == 0 {
                0.5
            } else {
                (next() % 5000) as f32 / 64.0
            };
            floats.extend_from_slice(&f.to_le_bytes());
        }
        let indices: Vec<u8> = (0..40_000u16)
            .flat_map(|i| (i / 3 + i % 3).to_le_bytes())
            .collect();
        let random: Vec<u8> = (0..30_000).map(|_| next() as u8).collect();
        let mut repeats = Vec::new();
        for len in 1..=70usize {
            let back = (next() as usize % 4200).min(repeats.len());
            let from = repeats.len() - back;
            for k in 0..len {
                let b = repeats.get(from + k).copied().unwrap_or(next() as u8);
                repeats.push(b);
            }
            repeats.push(next() as u8);
        }
        let text = b"the quick brown fox jumps over the lazy dog; ".repeat(500);
        vec![
            Vec::new(),
            b"x".to_vec(),
            floats,
            indices,
            random,
            repeats,
            text,
        ]
    }

    #[test]
    fn streams_are_the_reference_coders_bytes() {
        for s in samples() {
            let mut tokens_of = Vec::new();
            tokens(&s, |t| tokens_of.push(t));
            let ours = compress(&s).unwrap();
            assert_eq!(
                ours,
                reference::encode(s.len(), &tokens_of),
                "{} bytes",
                s.len()
            );
            assert_eq!(reference::decode(&ours).as_deref(), Some(s.as_slice()));
            assert_eq!(decompress(&ours).unwrap(), s);
        }
    }

    #[test]
    fn decoding_accepts_and_refuses_what_the_reference_reader_does() {
        // every cut of a stream near its end (where the zero bits past the end and the limit
        // of two bytes decide), and corrupted streams
        let plain: Vec<u8> = (0..3000u32).map(|i| (i * i % 253) as u8).collect();
        let c = compress(&plain).unwrap();
        let mut x: u32 = 5;
        let (mut accepted, mut refused) = (0, 0);
        for cut in (4..=c.len()).rev().take(40) {
            let mut d = c[..cut].to_vec();
            let ours = decompress(&d).ok();
            assert!(ours == reference::decode(&d), "cut at {cut}");
            if ours.is_some() {
                accepted += 1;
            } else {
                refused += 1;
            }
            // more bytes declared than the bits hold: decoding runs on into the zero bits
            for extra in [1u32, 3, 10, 40, 200] {
                let mut e = d.clone();
                e[..4].copy_from_slice(&(plain.len() as u32 + extra).to_le_bytes());
                let ours = decompress(&e).ok();
                assert!(ours == reference::decode(&e), "cut at {cut}, {extra} more");
                if ours.is_some() {
                    accepted += 1;
                } else {
                    refused += 1;
                }
            }
            x = x.wrapping_mul(1103515245).wrapping_add(12345);
            let at = 4 + (x >> 8) as usize % (cut - 4).max(1);
            if at < d.len() {
                d[at] ^= 1 << (x % 8);
                assert!(decompress(&d).ok() == reference::decode(&d), "flip at {at}");
            }
        }
        // both sides of the limit were reached
        assert!(
            accepted > 0 && refused > 0,
            "{accepted} accepted, {refused} refused"
        );
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
