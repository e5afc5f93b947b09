//! PNG encoding decoded with the png crate.
