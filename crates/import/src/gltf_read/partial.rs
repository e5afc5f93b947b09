//! A GLB read in part: its header and JSON chunk, then only the bufferViews a deferred read
//! uses ([`super::deferred`]), but for the accessors read straight from the file into their
//! destination ([`super::direct`]). The file's bytes are laid out in a zeroed buffer of the file's
//! size, each part read into its place, so the reader's offsets, checks and messages are
//! those of the whole file; the parts never read are never touched (the zeroed buffer's
//! pages are not faulted in: an unedited X-Ray import of the 2,000-visual generated level
//! reads 11.5 MB of its 38.6 MB GLB, the positions and indices, each straight into its
//! vector, and faults in none of the buffer's pages past the JSON chunk).
//!
//! Only the plain layout is read so (the glTF 2.0 specification's GLB: a 12-byte header
//! `glTF`, version 2 and the file's length; the JSON chunk first; here the BIN chunk second and
//! ending the file; every accessor without a sparse part); any other file is read whole, and
//! the reader gives its errors and warnings.

use std::io;

use levelgeom_binary::RegularFile;

/// From how many bytes on [`PartialGlb::fetch`] reads on two threads.
const SPLIT_FROM: usize = 4 << 20;

/// Read the BIN chunk's `ranges` (offsets into the chunk, which starts at `at` in the file)
/// into `buf`, the part of the file's buffer that starts at `buf_at`.
fn read_ranges(
    file: &RegularFile,
    buf: &mut [u8],
    buf_at: usize,
    at: usize,
    ranges: &[(usize, usize)],
) -> io::Result<()> {
    for &(start, end) in ranges {
        let (from, to) = (at + start - buf_at, at + end - buf_at);
        file.read_exact_at((at + start) as u64, &mut buf[from..to])?;
    }
    Ok(())
}

/// A GLB of the plain layout, its header and JSON chunk read.
pub(crate) struct PartialGlb {
    file: RegularFile,
    /// The file's size: what was read in place, zeros elsewhere.
    bytes: Vec<u8>,
    /// Where the BIN chunk's payload starts, and its length.
    bin: (usize, usize),
}

impl PartialGlb {
    /// Read the header and JSON chunk of `file` (of at most the reader's cap: the caller
    /// checked) when it is a GLB of the plain layout; `Err(file)` otherwise (to be read whole).
    ///
    /// # Errors
    /// I/O while reading the header.
    pub(crate) fn open(file: RegularFile) -> io::Result<Result<PartialGlb, RegularFile>> {
        let Ok(len) = usize::try_from(file.len()) else {
            return Ok(Err(file));
        };
        if len < 28 {
            return Ok(Err(file));
        }
        let mut head = [0u8; 20];
        file.read_exact_at(0, &mut head)?;
        let u32_at = |b: &[u8], o: usize| u32::from_le_bytes([b[o], b[o + 1], b[o + 2], b[o + 3]]);
        let json_len = u32_at(&head, 12) as usize;
        let plain = &head[..4] == b"glTF"
            && u32_at(&head, 4) == 2
            && u32_at(&head, 8) as usize == len
            && &head[16..20] == b"JSON";
        let Some(bin_head) = json_len.checked_add(20).filter(|&b| plain && b + 8 <= len) else {
            return Ok(Err(file));
        };
        let mut chunk = [0u8; 8];
        file.read_exact_at(bin_head as u64, &mut chunk)?;
        let bin_len = u32_at(&chunk, 0) as usize;
        if &chunk[4..8] != b"BIN\0" || bin_head + 8 + bin_len != len {
            return Ok(Err(file));
        }
        // zeroed, not written: its pages are faulted in only where a part is read
        let mut bytes = vec![0u8; len];
        file.read_exact_at(0, &mut bytes[..bin_head + 8])?;
        Ok(Ok(PartialGlb {
            file,
            bytes,
            bin: (bin_head + 8, bin_len),
        }))
    }

    /// The file's bytes as far as they were read (zeros elsewhere).
    pub(crate) fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// Read the BIN chunk's ranges `(offset, length)` (offsets into the chunk; a range past
    /// the chunk is cut at its end, where the reader refuses it) into place; ranges that touch
    /// are read as one.
    ///
    /// # Errors
    /// I/O, or the file shrank.
    pub(crate) fn fetch(&mut self, mut ranges: Vec<(usize, usize)>) -> io::Result<()> {
        let (at, n) = self.bin;
        ranges.retain(|r| r.1 > 0 && r.0 < n);
        ranges.sort_unstable();
        let mut merged: Vec<(usize, usize)> = Vec::with_capacity(ranges.len());
        for (o, l) in ranges {
            let end = o.saturating_add(l).min(n);
            match merged.last_mut() {
                Some(last) if o <= last.1 => last.1 = last.1.max(end),
                _ => merged.push((o, end)),
            }
        }
        // from a few MiB on, the second half (by bytes) is read by a thread of its own: the
        // copy into fresh pages is most of the cost, and it runs on both cores
        let total: usize = merged.iter().map(|r| r.1 - r.0).sum();
        let mut read = 0;
        let half = merged
            .iter()
            .position(|r| {
                read += r.1 - r.0;
                read >= total / 2
            })
            .map_or(merged.len(), |k| k + 1);
        if total < SPLIT_FROM || half >= merged.len() {
            return read_ranges(&self.file, &mut self.bytes, 0, at, &merged);
        }
        let (first, second) = merged.split_at(half);
        let cut = at + second[0].0;
        let (low, high) = self.bytes.split_at_mut(cut);
        let file = &self.file;
        std::thread::scope(|s| {
            // the second half's buffer goes to the thread once it runs (without a thread, or
            // should it be gone, it comes back and is read here)
            let (give, take) = std::sync::mpsc::channel::<&mut [u8]>();
            let other = std::thread::Builder::new()
                .name("read GLB".into())
                .spawn_scoped(s, move || {
                    take.recv()
                        .map_or(Ok(()), |high| read_ranges(file, high, cut, at, second))
                });
            let (other, here) = match other {
                Ok(t) => (Some(t), give.send(high).err().map(|back| back.0)),
                Err(_) => (None, Some(high)),
            };
            let mine = read_ranges(file, low, 0, at, first);
            let here = here.map_or(Ok(()), |high| read_ranges(file, high, cut, at, second));
            let theirs = other.map_or(Ok(()), |t| {
                t.join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            });
            mine.and(here).and(theirs)
        })
    }

    /// Read the BIN chunk's bytes from its offset `at` into `out` straight from the file
    /// (not into place: the accessors [`super::direct`] reads); the caller checked that they
    /// lie within the chunk.
    ///
    /// # Errors
    /// I/O, or the file shrank.
    pub(crate) fn read_bin(&self, at: usize, out: &mut [u8]) -> io::Result<()> {
        self.file.read_exact_at((self.bin.0 + at) as u64, out)
    }

    /// Read the whole BIN chunk into place.
    ///
    /// # Errors
    /// As [`PartialGlb::fetch`].
    pub(crate) fn fetch_all(&mut self) -> io::Result<()> {
        self.fetch(vec![(0, self.bin.1)])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A plain GLB (header, a JSON chunk of spaces, a BIN chunk of `bin`), as bytes.
    fn glb(bin: &[u8]) -> Vec<u8> {
        let json = b"{}      ";
        let len = 12 + 8 + json.len() + 8 + bin.len();
        let mut out = Vec::with_capacity(len);
        out.extend_from_slice(b"glTF");
        out.extend_from_slice(&2u32.to_le_bytes());
        out.extend_from_slice(&(len as u32).to_le_bytes());
        out.extend_from_slice(&(json.len() as u32).to_le_bytes());
        out.extend_from_slice(b"JSON");
        out.extend_from_slice(json);
        out.extend_from_slice(&(bin.len() as u32).to_le_bytes());
        out.extend_from_slice(b"BIN\0");
        out.extend_from_slice(bin);
        out
    }

    /// The ranges asked for hold the file's bytes and every other byte of the BIN chunk is
    /// zero, whether the ranges are read on one thread (a few) or two (past `SPLIT_FROM`).
    #[test]
    fn fetched_ranges_hold_the_files_bytes_and_nothing_else_is_read() {
        let bin: Vec<u8> = (0..(SPLIT_FROM * 2 + 1000) as u32)
            .map(|i| (i % 251) as u8 + 1)
            .collect();
        let bytes = glb(&bin);
        let d = tempfile::tempdir().unwrap();
        let path = d.path().join("t.glb");
        std::fs::write(&path, &bytes).unwrap();
        let at = bytes.len() - bin.len();
        let small = vec![(10, 90), (100, 50), (5000, 1)];
        // many ranges with gaps, unsorted, touching and overlapping ones among them
        let mut large: Vec<(usize, usize)> = (0..2000)
            .map(|k| ((k * 4099) % (bin.len() - 4096), 3000))
            .collect();
        large.push((bin.len() - 10, 100)); // past the chunk's end: cut there
        large.push((0, 0));
        for ranges in [small, large] {
            let f = levelgeom_binary::RegularFile::open(&path).unwrap();
            let Ok(Ok(mut p)) = PartialGlb::open(f) else {
                panic!("a plain GLB")
            };
            p.fetch(ranges.clone()).unwrap();
            let mut want = vec![false; bin.len()];
            for (o, l) in &ranges {
                for w in want.iter_mut().skip(*o).take(*l) {
                    *w = true;
                }
            }
            let got = &p.bytes()[at..];
            let wrong = (0..bin.len()).find(|&i| got[i] != if want[i] { bin[i] } else { 0 });
            assert_eq!(wrong, None, "{} ranges", ranges.len());
            assert_eq!(&p.bytes()[..at], &bytes[..at], "header and JSON read");
        }
    }
}
