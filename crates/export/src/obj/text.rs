//! The OBJ writer's text buffer: lines laid out with fixed-size copies (a few register moves,
//! no `memcpy` call per number) cut back to the number's length, a per-thread cache of the
//! floats' formatted text, and per-primitive face corners formatted once per vertex.
//!
//! The text is the same as formatting every number with [`push_f32`] and `itoa`: the cache
//! holds exactly what [`push_f32`] gave for those bits, and a corner what the face loop wrote.

use super::push_f32;

/// Bytes of a cached float's text; longer texts (tiny values such as `0.00000000000000000001`)
/// are formatted each time.
const FLOAT_TEXT: usize = 27;

/// log2 of the cache's slots: 4,096 slots of 32 bytes stay in the core's L2 cache.
const CACHE_BITS: u32 = 12;

/// One cached float: its bits and text (`len == 0`: empty slot, since no text is empty).
#[derive(Clone, Copy)]
struct Entry {
    key: u32,
    len: u8,
    text: [u8; FLOAT_TEXT],
}

/// A direct-mapped cache of float texts, one per formatting thread. Grid coordinates, UVs and
/// unit normals repeat across a primitive's vertices, so most numbers are copied, not formatted.
pub(super) struct FloatCache {
    entries: Vec<Entry>,
    scratch: Vec<u8>,
}

impl FloatCache {
    pub(super) fn new() -> Self {
        FloatCache {
            entries: vec![
                Entry {
                    key: 0,
                    len: 0,
                    text: [0; FLOAT_TEXT],
                };
                1 << CACHE_BITS
            ],
            scratch: Vec::with_capacity(64),
        }
    }
}

/// Bytes of a face corner's text (` v/vt/vn`, at most 1 + 3 × 20 + 2 = 63) and its length.
const CORNER: usize = 64;

/// One corner's text in its first bytes, its length in the last.
pub(super) type Corner = [u8; CORNER];

/// What a formatting thread keeps from one primitive to the next: its float cache and the
/// room for a primitive's face corners (reused, so that no primitive faults in fresh pages
/// for them).
pub(super) struct Scratch {
    pub(super) floats: FloatCache,
    pub(super) corners: Vec<Corner>,
}

impl Scratch {
    pub(super) fn new() -> Self {
        Scratch {
            floats: FloatCache::new(),
            corners: Vec::new(),
        }
    }
}

/// The text ` v`, ` v/vt`, ` v//vn` or ` v/vt/vn` of 0-based vertex `i` of a primitive whose
/// vertices, UVs and normals start after `base` (the 1-based indices count over the file).
pub(super) fn corner(i: usize, base: [usize; 3], has_uv: bool, has_n: bool) -> Corner {
    let mut c = [0u8; CORNER];
    let mut n = 0;
    // the three indices are often the same number (every primitive with UVs and normals):
    // its digits are formatted once
    let mut b = itoa::Buffer::new();
    let mut last: Option<(usize, std::ops::Range<usize>)> = None;
    let mut num = |c: &mut Corner, n: &mut usize, sep: &[u8], value: usize| {
        for &s in sep {
            c[*n] = s;
            *n += 1;
        }
        let at = *n;
        *n += match &last {
            Some((v, digits)) if *v == value => {
                c.copy_within(digits.clone(), at);
                digits.len()
            }
            _ => {
                let digits = b.format(value).as_bytes();
                c[at..at + digits.len()].copy_from_slice(digits);
                last = Some((value, at..at + digits.len()));
                digits.len()
            }
        };
    };
    num(&mut c, &mut n, b" ", base[0] + i + 1);
    if has_uv {
        num(&mut c, &mut n, b"/", base[1] + i + 1);
    }
    if has_n {
        num(
            &mut c,
            &mut n,
            if has_uv { b"/" } else { b"//" },
            base[2] + i + 1,
        );
    }
    c[CORNER - 1] = n as u8;
    c
}

/// A growing text written with fixed-size copies: a whole array is appended (a few register
/// moves, no `memcpy` call) and the bytes past the text's length cut off again.
pub(super) struct Text {
    buf: Vec<u8>,
}

impl Text {
    /// An empty text with room for `n` bytes.
    #[cfg(test)]
    pub(super) fn with_capacity(n: usize) -> Self {
        Text {
            buf: Vec::with_capacity(n),
        }
    }

    /// A text appended to `buf` (its bytes kept, its memory reused).
    pub(super) fn after(buf: Vec<u8>) -> Self {
        Text { buf }
    }

    /// Make room for `n` more bytes.
    pub(super) fn reserve(&mut self, n: usize) {
        self.buf.reserve(n);
    }

    /// Append the first `len` of the `N` bytes (`len ≤ N`).
    #[inline]
    fn put<const N: usize>(&mut self, bytes: &[u8; N], len: usize) {
        let end = self.buf.len() + len.min(N);
        self.buf.extend_from_slice(bytes);
        self.buf.truncate(end);
    }

    /// Append one byte.
    #[inline]
    pub(super) fn byte(&mut self, b: u8) {
        self.put(&[b], 1);
    }

    /// Append two bytes.
    #[inline]
    pub(super) fn two(&mut self, b: &[u8; 2]) {
        self.put(b, 2);
    }

    /// Append any bytes.
    pub(super) fn bytes(&mut self, s: &[u8]) {
        self.buf.extend_from_slice(s);
    }

    /// Append a face corner made by [`corner`].
    #[inline]
    pub(super) fn corner(&mut self, c: &Corner) {
        self.put(c, usize::from(c[CORNER - 1]));
    }

    /// Append `v` as [`push_f32`] writes it, from the cache when it holds `v`'s bits.
    #[inline]
    pub(super) fn float(&mut self, v: f32, cache: &mut FloatCache) {
        let bits = v.to_bits();
        let slot = (bits.wrapping_mul(0x9E37_79B1) >> (32 - CACHE_BITS)) as usize;
        let FloatCache { entries, scratch } = cache;
        let Some(e) = entries.get_mut(slot) else {
            return self.float_uncached(v, scratch);
        };
        // copied from the slot itself: a copy of the array on the stack first is written as two
        // overlapping stores and read back as one load, which stalls (no store forwarding)
        if e.len != 0 && e.key == bits {
            self.put(&e.text, usize::from(e.len));
            return;
        }
        scratch.clear();
        push_f32(scratch, v);
        if v.is_finite() && scratch.len() <= FLOAT_TEXT {
            e.key = bits;
            e.len = scratch.len() as u8;
            e.text[..scratch.len()].copy_from_slice(scratch);
            self.put(&e.text, scratch.len());
        } else {
            self.bytes(scratch);
        }
    }

    /// Append three floats separated by spaces (a `v` or `vn` line's numbers).
    #[inline]
    pub(super) fn floats3(&mut self, [x, y, z]: [f32; 3], cache: &mut FloatCache) {
        self.float(x, cache);
        self.byte(b' ');
        self.float(y, cache);
        self.byte(b' ');
        self.float(z, cache);
    }

    #[cold]
    fn float_uncached(&mut self, v: f32, scratch: &mut Vec<u8>) {
        scratch.clear();
        push_f32(scratch, v);
        self.bytes(scratch);
    }

    /// The text written.
    pub(super) fn finish(self) -> Vec<u8> {
        self.buf
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn cached_floats_and_corners_read_as_formatted_directly() {
        // the same values many times (cache hits) and colliding slots: the text is `{}`'s
        let mut cache = FloatCache::new();
        let mut text = Text::with_capacity(0);
        let mut want = String::new();
        let mut x = 0x1234_5678_u32;
        for k in 0..200_000u32 {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            let v = if k % 3 == 0 {
                f32::from_bits(x)
            } else {
                (k % 97) as f32 / 7.0
            };
            if !v.is_finite() {
                continue;
            }
            text.float(v, &mut cache);
            text.byte(b' ');
            want.push_str(&format!("{v} "));
        }
        assert_eq!(String::from_utf8(text.finish()).unwrap(), want);
        // corners: ` 13/8/20`, ` 13//20`, ` 13/8`, ` 13`, and the longest one
        let c = |i, b, uv, n| {
            let mut t = Text::with_capacity(0);
            t.corner(&corner(i, b, uv, n));
            String::from_utf8(t.finish()).unwrap()
        };
        assert_eq!(c(2, [10, 5, 17], true, true), " 13/8/20");
        assert_eq!(c(2, [10, 5, 17], false, true), " 13//20");
        assert_eq!(c(2, [10, 5, 17], true, false), " 13/8");
        assert_eq!(c(2, [10, 5, 17], false, false), " 13");
        // equal indices (their digits formatted once) next to different ones
        assert_eq!(c(2, [10, 10, 17], true, true), " 13/13/20");
        assert_eq!(c(2, [10, 17, 10], true, true), " 13/20/13");
        assert_eq!(c(2, [17, 10, 10], true, true), " 20/13/13");
        assert_eq!(c(2, [10, 5, 10], false, true), " 13//13");
        assert_eq!(c(97, [2, 2, 2], true, true), " 100/100/100");
        let big = usize::MAX / 2;
        assert_eq!(c(0, [big; 3], true, true), format!(" {0}/{0}/{0}", big + 1));
    }
}
