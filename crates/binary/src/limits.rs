//! How much memory a reader may ask for on behalf of a file (like image-rs/png's `Limits`).
//!
//! Every count a reader meets is checked against the bytes that remain before anything is
//! allocated ([`crate::Reader::count`]), so plain data can never make a reader allocate more
//! than the file could back. What is left is data that *expands*: compressed chunks (X-Ray
//! LZHUF) and run-length encoded pages, whose declared sizes are untrusted numbers. Those
//! decoders take a [`Limits`] and refuse a stream that would decode to more.

/// Allocation limits of the readers.
///
/// Mesh files (OBJ, glTF, GLB) and their companions obey them too: a mesh file or buffer is
/// at most `max_decoded` bytes, its primitives at most `max_triangles` triangles, the
/// flattened scene (instancing counted) at most `max_instanced_triangles`, an embedded image
/// at most `max_texture_pixels` (checked from its header, before decoding), and one triangle
/// may touch at most `max_cells_per_triangle` cells of a level's grid.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// The most bytes one decoded (decompressed) buffer may hold; also the largest mesh file
    /// or companion file (MTL, glTF buffer) read.
    pub max_decoded: usize,
    /// The most triangles the primitives of one mesh file may hold (each mesh counted once).
    pub max_triangles: usize,
    /// The most triangles a mesh file's scene may place (every node instancing a mesh counted).
    pub max_instanced_triangles: usize,
    /// The most pixels (width × height) an embedded image may have to be decoded.
    pub max_texture_pixels: u64,
    /// The most cells of a level's grid one triangle may touch (collision tiling).
    pub max_cells_per_triangle: u64,
}

impl Limits {
    /// The defaults: 1 GiB per decoded buffer, far above any real level (the largest
    /// S.T.A.L.K.E.R. `level.geom` is a few hundred MB), far below what would take a machine
    /// down; 2²² (4,194,304) triangles in a mesh file and as many placed (an X-Ray level has
    /// at most a few million, a WAD level tens of thousands); 2²⁶ pixels (8192 × 8192) per
    /// image; 2¹⁶ grid cells per triangle (a 256 × 256 square; the game's levels are 96 × 96
    /// cells, a tile is one cell).
    pub const DEFAULT: Limits = Limits {
        max_decoded: 1 << 30,
        max_triangles: 1 << 22,
        max_instanced_triangles: 1 << 22,
        max_texture_pixels: 1 << 26,
        max_cells_per_triangle: 1 << 16,
    };
}

impl Default for Limits {
    fn default() -> Self {
        Limits::DEFAULT
    }
}
