//! The engines levelgeom reads, and the one way a file's engine is told from its bytes.
//!
//! Every call that all engines have matches on [`Engine`] (or on the per-engine content of a
//! [`LevelFile`]) without a wildcard arm, so that a third engine is a compile error at each of
//! them, not a silent fall-through to one of the two. The list of those places is in
//! `docs/development.md` (*Adding an engine*).

use crate::error::{Error, Result};
use crate::level::{Content, LevelFile};

/// A game engine whose level files levelgeom reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Engine {
    /// Argonaut (The Emperor's New Groove): level WADs.
    Wad,
    /// X-Ray (S.T.A.L.K.E.R.): `level`, `level.geom`, `level.cform`, … chunk files.
    Xray,
}

impl Engine {
    /// Every engine, in the order [`Engine::sniff`] asks them.
    pub const ALL: [Engine; 2] = [Engine::Wad, Engine::Xray];

    /// The engine's name as the options of the command line are grouped (`WAD`, `X-Ray`).
    pub fn name(self) -> &'static str {
        match self {
            Engine::Wad => "WAD",
            Engine::Xray => "X-Ray",
        }
    }

    /// True when this engine's own `sniff` recognises `bytes` (a whole file, or at least its
    /// first 12 bytes).
    pub fn recognises(self, bytes: &[u8]) -> bool {
        match self {
            Engine::Wad => levelgeom_wad::sniff(bytes),
            Engine::Xray => levelgeom_xray::sniff(bytes),
        }
    }

    /// The engine whose signature `bytes` carry, each engine asked through its own `sniff`
    /// in the order of [`Engine::ALL`]: the WAD's (a chunk tag of capital letters at offset 4)
    /// first, since in an X-Ray file those bytes are a size or count, and four capital letters
    /// would make it over 1 GB.
    pub fn sniff(bytes: &[u8]) -> Option<Engine> {
        Engine::ALL.into_iter().find(|e| e.recognises(bytes))
    }
}

impl LevelFile {
    /// The engine of the opened file.
    pub fn engine(&self) -> Engine {
        match self.content {
            Content::Wad(_) => Engine::Wad,
            Content::XrayLevel(_) | Content::Xray(_) => Engine::Xray,
        }
    }

    /// Refuse options of another engine than the file's: `wad` and `xray` are the options of
    /// each engine the caller was given, as the user wrote them (`--rebuild`, `--lods`); the
    /// file's own engine's are let through.
    ///
    /// # Errors
    /// [`Error::OptionsOfAnotherEngine`] naming the options of the other engine.
    pub fn refuse_other_engines_options(
        &self,
        wad: &[&'static str],
        xray: &[&'static str],
    ) -> Result<()> {
        let (given, engine) = match self.engine() {
            Engine::Wad => (xray, Engine::Xray),
            Engine::Xray => (wad, Engine::Wad),
        };
        if given.is_empty() {
            return Ok(());
        }
        Err(Error::OptionsOfAnotherEngine {
            options: given.to_vec(),
            engine,
            file: self.display_name(),
            format: self.format().description(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sniff_asks_each_engine() {
        // a WAD: u32 length, then a chunk tag of capital letters at offset 4
        let wad = [12, 0, 0, 0, b'C', b'P', b'F', b'W', 0, 0, 0, 0];
        assert_eq!(Engine::sniff(&wad), Some(Engine::Wad));
        // an X-Ray file: the header chunk 1 of 4 bytes first (XRLC 14)
        let xray = [1, 0, 0, 0, 4, 0, 0, 0, 14, 0, 0, 0];
        assert_eq!(Engine::sniff(&xray), Some(Engine::Xray));
        assert_eq!(Engine::sniff(b"hello world, not a level"), None);
    }

    #[test]
    fn options_of_the_other_engine_are_refused_with_the_clis_words() {
        let demo = crate::demo();
        assert_eq!(demo.engine(), Engine::Wad);
        assert!(demo
            .refuse_other_engines_options(&["--rebuild"], &[])
            .is_ok());
        let e = demo
            .refuse_other_engines_options(&["--rebuild"], &["--lods", "--portals"])
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "--lods and --portals are X-Ray options; demo.wad is an Argonaut WAD, so they do \
             not apply"
        );
        let e = demo
            .refuse_other_engines_options(&[], &["--allow-loss"])
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "--allow-loss is an X-Ray option; demo.wad is an Argonaut WAD, so it does not apply"
        );
    }
}
