//! Pinned output hashes kept in one data file per test, re-recorded only on purpose.
//!
//! A pin file holds one line per pinned output, `SHA256 DETAIL KEY`: the SHA-256 of the bytes in
//! lowercase hex, a detail that must match too (the byte size, or an image's `WxH`), and the key
//! the test names the output by (`demo/level.glb`). A test [`Pins::load`]s its file, calls
//! [`Pins::check`] for every output it makes, then [`Pins::finish`], which fails naming every
//! output whose hash or detail differs, every pinned key the run did not produce and every key it
//! produced that has no pin.
//!
//! With `LEVELGEOM_RECORD_PINS=1` in the environment, [`Pins::finish`] instead rewrites the file
//! with this run's values (the keys sorted, the file replaced through a temporary file beside it)
//! and prints what changed. That is for a change of the output made on purpose: run the test
//! once with the variable set, review the diff of the data file, and say why in the commit.
//!
//! ```sh
//! LEVELGEOM_RECORD_PINS=1 cargo test -p levelgeom-core --test core before_after::
//! git diff crates/core/tests/data/before/
//! ```

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

/// The environment variable that turns checking into re-recording.
pub const RECORD_VAR: &str = "LEVELGEOM_RECORD_PINS";

/// The SHA-256 of `bytes` in lowercase hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Whether this run re-records the pins ([`RECORD_VAR`] is `1`).
pub fn recording() -> bool {
    std::env::var(RECORD_VAR).is_ok_and(|v| v == "1")
}

/// One pin file and what the running test produced against it.
#[derive(Debug)]
pub struct Pins {
    path: PathBuf,
    pinned: BTreeMap<String, (String, String)>,
    got: BTreeMap<String, (String, String)>,
}

impl Pins {
    /// Reads the pin file at `path` (`SHA256 DETAIL KEY` per line). A missing file is an empty
    /// set of pins only while recording; a malformed line panics naming the file and line.
    pub fn load(path: impl Into<PathBuf>) -> Pins {
        let path = path.into();
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound && recording() => String::new(),
            Err(e) => panic!("cannot read the pin file {}: {e}", path.display()),
        };
        let pinned = parse(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        Pins {
            path,
            pinned,
            got: BTreeMap::new(),
        }
    }

    /// The pinned `(SHA-256, detail)` of `key`, if any.
    pub fn get(&self, key: &str) -> Option<(&str, &str)> {
        self.pinned.get(key).map(|(h, d)| (h.as_str(), d.as_str()))
    }

    /// Notes the bytes produced for `key`, pinned with their size as the detail.
    pub fn check(&mut self, key: &str, bytes: &[u8]) {
        self.check_hash(key, sha256_hex(bytes), bytes.len().to_string());
    }

    /// Notes an already computed SHA-256 (hex) and detail for `key`.
    pub fn check_hash(&mut self, key: &str, sha256: String, detail: String) {
        let old = self.got.insert(key.to_string(), (sha256, detail));
        assert!(
            old.is_none(),
            "{key} checked twice against {}",
            self.path.display()
        );
    }

    /// Fails naming every difference between the run and the pins; with `LEVELGEOM_RECORD_PINS=1`
    /// rewrites the file with the run's values instead. Returns how many outputs were compared.
    pub fn finish(self) -> usize {
        let diffs = differences(&self.pinned, &self.got);
        if recording() {
            if !diffs.is_empty() {
                std::fs::write(tmp_path(&self.path), format(&self.got))
                    .and_then(|()| std::fs::rename(tmp_path(&self.path), &self.path))
                    .unwrap_or_else(|e| panic!("cannot write {}: {e}", self.path.display()));
                eprintln!(
                    "{RECORD_VAR}=1: re-recorded {} ({} pins):\n  {}",
                    self.path.display(),
                    self.got.len(),
                    diffs.join("\n  ")
                );
            }
            return self.got.len();
        }
        assert!(
            diffs.is_empty(),
            "{} differ from the pins in {}:\n  {}\n(a change made on purpose: re-record with \
             {RECORD_VAR}=1, review the diff, say why in the commit)",
            diffs.len(),
            self.path.display(),
            diffs.join("\n  ")
        );
        self.got.len()
    }
}

fn tmp_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".recording");
    path.with_file_name(name)
}

fn parse(text: &str) -> Result<BTreeMap<String, (String, String)>, String> {
    let mut out = BTreeMap::new();
    for (n, line) in text.lines().enumerate() {
        let mut it = line.splitn(3, ' ');
        let (Some(h), Some(d), Some(k)) = (it.next(), it.next(), it.next()) else {
            return Err(format!("line {}: not `SHA256 DETAIL KEY`: {line:?}", n + 1));
        };
        if h.len() != 64 || !h.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(format!("line {}: not a SHA-256 in hex: {h:?}", n + 1));
        }
        if out
            .insert(k.to_string(), (h.to_string(), d.to_string()))
            .is_some()
        {
            return Err(format!("line {}: {k} pinned twice", n + 1));
        }
    }
    Ok(out)
}

fn format(pins: &BTreeMap<String, (String, String)>) -> String {
    pins.iter()
        .map(|(k, (h, d))| format!("{h} {d} {k}\n"))
        .collect()
}

/// One line per key whose value differs, is missing from the run, or is not pinned.
fn differences(
    pinned: &BTreeMap<String, (String, String)>,
    got: &BTreeMap<String, (String, String)>,
) -> Vec<String> {
    let mut out = Vec::new();
    for (k, (h, d)) in got {
        match pinned.get(k) {
            None => out.push(format!("{k}: not pinned (got {h} {d})")),
            Some((_, pd)) if pd != d => out.push(format!("{k}: {d}, pinned {pd}")),
            Some((ph, _)) if ph != h => out.push(format!("{k}: SHA-256 {h}, pinned {ph}")),
            Some(_) => {}
        }
    }
    for k in pinned.keys().filter(|k| !got.contains_key(*k)) {
        out.push(format!("{k}: pinned, but the run did not produce it"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(lines: &[(&str, &str, &str)]) -> BTreeMap<String, (String, String)> {
        lines
            .iter()
            .map(|(k, h, d)| (k.to_string(), (h.to_string(), d.to_string())))
            .collect()
    }

    #[test]
    fn the_sha256_of_abc_is_the_fips_180_example() {
        // FIPS 180-2, appendix B.1
        assert_eq!(
            sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn a_pin_file_reads_back_as_written() {
        let h = "a".repeat(64);
        let h = h.as_str();
        let pins = map(&[("demo/level.glb", h, "12"), ("x/page 1.png", h, "8x8")]);
        assert_eq!(parse(&format(&pins)).unwrap(), pins);
        assert!(parse("abc 1 k\n").unwrap_err().contains("line 1"));
        assert!(parse(&format!("{h} 1\n"))
            .unwrap_err()
            .contains("not `SHA256"));
    }

    #[test]
    fn every_kind_of_difference_is_named() {
        let (a, b) = ("a".repeat(64), "b".repeat(64));
        let (a, b) = (a.as_str(), b.as_str());
        let pinned = map(&[
            ("same", a, "1"),
            ("hash", a, "1"),
            ("size", a, "1"),
            ("gone", a, "1"),
        ]);
        let got = map(&[
            ("same", a, "1"),
            ("hash", b, "1"),
            ("size", a, "2"),
            ("new", a, "1"),
        ]);
        let d = differences(&pinned, &got);
        assert_eq!(d.len(), 4, "{d:?}");
        assert!(d.iter().any(|l| l.starts_with("hash: SHA-256 bbb")));
        assert!(d.iter().any(|l| l == "size: 2, pinned 1"));
        assert!(d.iter().any(|l| l.starts_with("new: not pinned")));
        assert!(d.iter().any(|l| l.starts_with("gone: pinned, but")));
    }
}
