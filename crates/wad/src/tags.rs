//! Chunk tags.
//!
//! groove.exe reads a chunk's four tag bytes as a little-endian `u32` and compares it with C
//! multi-character constants such as `'STPC'` (= 0x53545043). The bytes in the file therefore
//! read backwards: the STPC chunk starts with the bytes `43 50 54 53` = `"CPTS"`. [`Tag`] holds the
//! on-disk bytes; [`Tag::name`] gives the readable (reversed) name every tool displays.
//!
//! | Tag    | On disk | Loader in groove.exe                      | Size used by the game? |
//! |--------|---------|-------------------------------------------|------------------------|
//! | `INFO` | `OFNI`  | skipped                                   | yes (skip)             |
//! | `VERS` | `SREV`  | skipped                                   | yes (skip)             |
//! | `WFPC` | `CPFW`  | one `u32` of feature flags                | no                     |
//! | `TEXT` | `TXET`  | reads `size` bytes                        | yes                    |
//! | `FONT` | `TNOF`  | 256 × 4 × `u16`                           | no                     |
//! | `SPRT` | `TRPS`  | `u32` (+ table if `WFPC & 0x100000`)      | no                     |
//! | `NAME` | `EMAN`  | skipped                                   | yes (skip)             |
//! | `SMPC` | `CPMS`  | sound samples                             | only with audio off    |
//! | `AMPC` | `CPMA`  | ambient sound                             | only with audio off    |
//! | `SRPC` | `CPRS`  | speech references                         | only with audio off    |
//! | `TRAK` | `KART`  | reads `size` bytes                        | yes                    |
//! | `STPC` | `CPTS`  | reads `size` bytes                        | yes                    |
//! | `MAP ` | ` PAM`  | stream                                    | no                     |
//! | `LGHT` | `THGL`  | stream                                    | no                     |
//! | `LNFO` | `OFNL`  | 2 × `u32`                                 | no                     |
//! | `LGPC` | `CPGL`  | stream                                    | no                     |
//! | `RIMG` | `GMIR`  | stream                                    | no                     |
//! | `END ` | ` DNE`  | stop                                      | no                     |
//! | `PRLT` | `TLRP`  | (Aladdin only)                            | —                      |
//!
//! Chunks whose size the game never looks at ("streamed") are the ones whose declared size can
//! be wrong in shipped Croc 2 files (MAP by +4); see [`Tag::is_streamed`].

use std::fmt;

/// A chunk tag as the 4 bytes stored in the file (`"CPTS"` for STPC).
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Tag(pub [u8; 4]);

impl Tag {
    /// `INFO`: 4 bytes, skipped by the game.
    pub const INFO: Tag = Tag::from_name(*b"INFO");
    /// `VERS`: 4 bytes, skipped by the game.
    pub const VERS: Tag = Tag::from_name(*b"VERS");
    /// `WFPC`: level feature flags.
    pub const WFPC: Tag = Tag::from_name(*b"WFPC");
    /// `TEXT`: palettes, texture pages, texture entries, effects.
    pub const TEXT: Tag = Tag::from_name(*b"TEXT");
    /// `FONT`: 256-glyph font table.
    pub const FONT: Tag = Tag::from_name(*b"FONT");
    /// `SPRT`: sprite material base (+ optional table).
    pub const SPRT: Tag = Tag::from_name(*b"SPRT");
    /// `NAME`: level name, skipped by the game.
    pub const NAME: Tag = Tag::from_name(*b"NAME");
    /// `SMPC`: `cvg ` sound samples.
    pub const SMPC: Tag = Tag::from_name(*b"SMPC");
    /// `AMPC`: ambient sound data.
    pub const AMPC: Tag = Tag::from_name(*b"AMPC");
    /// `SRPC`: speech references into `ENGLISH.CVS`.
    pub const SRPC: Tag = Tag::from_name(*b"SRPC");
    /// `TRAK`: world tile models.
    pub const TRAK: Tag = Tag::from_name(*b"TRAK");
    /// `STPC`: object models, animations, strat scripts.
    pub const STPC: Tag = Tag::from_name(*b"STPC");
    /// `MAP `: the tile grid and everything placed on it.
    pub const MAP: Tag = Tag::from_name(*b"MAP ");
    /// `LGHT`: lights.
    pub const LGHT: Tag = Tag::from_name(*b"LGHT");
    /// `LNFO`: two `u32`s of unknown meaning.
    pub const LNFO: Tag = Tag::from_name(*b"LNFO");
    /// `LGPC`: the language string table.
    pub const LGPC: Tag = Tag::from_name(*b"LGPC");
    /// `RIMG`: raw image surfaces (interface WADs).
    pub const RIMG: Tag = Tag::from_name(*b"RIMG");
    /// `END `: the terminator.
    pub const END: Tag = Tag::from_name(*b"END ");
    /// `PRLT`: Aladdin only; not dispatched by groove.exe.
    pub const PRLT: Tag = Tag::from_name(*b"PRLT");

    /// Every tag of the PC chunk set, in the table order above.
    pub const KNOWN: [Tag; 19] = [
        Tag::INFO,
        Tag::VERS,
        Tag::WFPC,
        Tag::TEXT,
        Tag::FONT,
        Tag::SPRT,
        Tag::NAME,
        Tag::SMPC,
        Tag::AMPC,
        Tag::SRPC,
        Tag::TRAK,
        Tag::STPC,
        Tag::MAP,
        Tag::LGHT,
        Tag::LNFO,
        Tag::LGPC,
        Tag::RIMG,
        Tag::END,
        Tag::PRLT,
    ];

    /// The tag for a readable name: `Tag::from_name(*b"STPC").0 == *b"CPTS"`.
    pub const fn from_name(name: [u8; 4]) -> Tag {
        Tag([name[3], name[2], name[1], name[0]])
    }

    /// The tag for a readable name given as text: `"STPC"`, or `"MAP"` / `"MAP "` (names shorter
    /// than 4 bytes are padded with spaces). `None` for names longer than 4 bytes.
    pub fn from_text(name: &str) -> Option<Tag> {
        let b = name.as_bytes();
        if b.len() > 4 {
            return None;
        }
        let mut n = [b' '; 4];
        n[..b.len()].copy_from_slice(b);
        Some(Tag::from_name(n))
    }

    /// The readable name as 4 bytes (`*b"STPC"`).
    pub const fn name_bytes(&self) -> [u8; 4] {
        [self.0[3], self.0[2], self.0[1], self.0[0]]
    }

    /// The readable name for display (`"MAP "`, with non-printable bytes as `\xNN`).
    pub fn name(&self) -> String {
        let mut s = String::new();
        for b in self.name_bytes() {
            if b.is_ascii_graphic() || b == b' ' {
                s.push(char::from(b));
            } else {
                s.push_str(&format!("\\x{b:02X}"));
            }
        }
        s
    }

    /// True for the tags of the table above.
    pub fn is_known(&self) -> bool {
        Tag::KNOWN.contains(self)
    }

    /// True when all four bytes are upper-case ASCII letters, digits or spaces: a plausible
    /// tag of a chunk type we do not know yet (unknown chunks are skipped by size in the game).
    pub fn is_printable(&self) -> bool {
        self.0
            .iter()
            .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || *b == b' ')
    }

    /// True for chunks the game reads as a stream without looking at their size, so a wrong
    /// declared size goes unnoticed by the game (docs/formats/argonaut-wad.md §2.6): WFPC, FONT, SPRT, MAP, LGHT, LNFO,
    /// LGPC, RIMG.
    pub fn is_streamed(&self) -> bool {
        [
            Tag::WFPC,
            Tag::FONT,
            Tag::SPRT,
            Tag::MAP,
            Tag::LGHT,
            Tag::LNFO,
            Tag::LGPC,
            Tag::RIMG,
        ]
        .contains(self)
    }

    /// A static name for chunk paths in errors (`"MAP"`); `"chunk"` for tags we do not know.
    pub fn path_name(&self) -> &'static str {
        match self.name_bytes().as_slice() {
            b"INFO" => "INFO",
            b"VERS" => "VERS",
            b"WFPC" => "WFPC",
            b"TEXT" => "TEXT",
            b"FONT" => "FONT",
            b"SPRT" => "SPRT",
            b"NAME" => "NAME",
            b"SMPC" => "SMPC",
            b"AMPC" => "AMPC",
            b"SRPC" => "SRPC",
            b"TRAK" => "TRAK",
            b"STPC" => "STPC",
            b"MAP " => "MAP",
            b"LGHT" => "LGHT",
            b"LNFO" => "LNFO",
            b"LGPC" => "LGPC",
            b"RIMG" => "RIMG",
            b"END " => "END",
            b"PRLT" => "PRLT",
            _ => "chunk",
        }
    }
}

impl fmt::Display for Tag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name())
    }
}

impl fmt::Debug for Tag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Tag({:?})", self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_are_stored_reversed() {
        assert_eq!(Tag::STPC.0, *b"CPTS");
        assert_eq!(Tag::MAP.0, *b" PAM");
        assert_eq!(Tag::END.0, *b" DNE");
        // the engine compares the LE u32 with 'STPC' = 0x53545043 (docs/formats/argonaut-wad.md §2.2)
        assert_eq!(u32::from_le_bytes(Tag::STPC.0), 0x5354_5043);
        assert_eq!(u32::from_le_bytes(Tag::MAP.0), 0x4D41_5020);
        assert_eq!(Tag::MAP.name(), "MAP ");
        assert_eq!(Tag::MAP.path_name(), "MAP");
        assert!(Tag::LGPC.is_known());
        assert!(!Tag(*b"ABCD").is_known());
        assert!(Tag(*b"ABCD").is_printable());
        assert!(!Tag([0, 1, 2, 3]).is_printable());
        assert_eq!(Tag([0x41, 0, 0x42, 0x43]).name(), "CB\\x00A");
        assert_eq!(Tag::from_text("MAP"), Some(Tag::MAP));
        assert_eq!(Tag::from_text("STPC"), Some(Tag::STPC));
        assert_eq!(Tag::from_text("TOOLONG"), None);
    }
}
