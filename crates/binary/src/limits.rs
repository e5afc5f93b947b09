//! How much memory a reader may ask for on behalf of a file (like image-rs/png's `Limits`).
//!
//! Every count a reader meets is checked against the bytes that remain before anything is
//! allocated ([`crate::Reader::count`]), so plain data can never make a reader allocate more
//! than the file could back. What is left is data that *expands*: compressed chunks (X-Ray
//! LZHUF) and run-length encoded pages, whose declared sizes are untrusted numbers. Those
//! decoders take a [`Limits`] and refuse a stream that would decode to more.

/// Allocation limits of the readers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// The most bytes one decoded (decompressed) buffer may hold.
    pub max_decoded: usize,
}

impl Limits {
    /// The default: 1 GiB per decoded buffer, far above any real level (the largest
    /// S.T.A.L.K.E.R. `level.geom` is a few hundred MB), far below what would take a machine
    /// down.
    pub const DEFAULT: Limits = Limits {
        max_decoded: 1 << 30,
    };
}

impl Default for Limits {
    fn default() -> Self {
        Limits::DEFAULT
    }
}
