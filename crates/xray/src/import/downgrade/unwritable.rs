//! What a conversion to an old build (XRLC 4, 5, 8–12) cannot write in that build: the cause
//! of [`crate::import::ImportError::OldBuild`], which names the build.

use levelgeom_binary::WriteError;

use crate::level::Part;
use crate::ogf::model_type;

/// What the XRLC 13 level holds that the target build has no form for (or that is broken in
/// the 13 level, so that no form of it can be written).
#[derive(Debug, thiserror::Error)]
pub enum Unwritable {
    /// The build has no chunk id for a part of `level` it must hold.
    #[error("no chunk id for {0:?}")]
    NoChunkId(Part),
    /// A vertex buffer's declaration is none xrLC writes (lightmapped, vertex-lit, tree).
    #[error(
        "level.geom vertex buffer {buffer} has a layout ({elements} elements, {stride} bytes) \
         that is neither lightmapped, vertex-lit nor a tree's: no layout of this build holds it"
    )]
    VertexLayout {
        /// The 13 level's vertex buffer.
        buffer: usize,
        /// Elements of its declaration.
        elements: usize,
        /// Its vertex size in bytes.
        stride: usize,
    },
    /// A vertex buffer does not fit the build's FVF buffer.
    #[error("vertex buffer {buffer}: {source}")]
    FvfBuffer {
        /// The 13 level's vertex buffer.
        buffer: usize,
        /// What does not fit.
        #[source]
        source: WriteError,
    },
    /// A visual without `OGF_HEADER`.
    #[error("visual {visual} has no OGF_HEADER")]
    NoHeader {
        /// The visual.
        visual: usize,
    },
    /// A visual with geometry but no `OGF_GCONTAINER`.
    #[error(
        "visual {visual}: a {} visual without OGF_GCONTAINER",
        model_type::name(*model_type)
    )]
    NoGContainer {
        /// The visual.
        visual: usize,
        /// Its model type (format 4).
        model_type: u8,
    },
    /// A tree visual without `OGF_TREEDEF2`.
    #[error("visual {visual}: a tree without OGF_TREEDEF2")]
    NoTreeDef {
        /// The visual.
        visual: usize,
    },
    /// A visual's model type has no form in the build's levels.
    #[error(
        "visual {visual} is of model type {model_type} ({}), which levels of this build do not \
         hold",
        model_type::name(*model_type)
    )]
    ModelType {
        /// The visual.
        visual: usize,
        /// Its model type (format 4).
        model_type: u8,
    },
    /// A visual's index range lies outside its index buffer.
    #[error("visual {visual}: its index range {offset}+{count} is outside index buffer {buffer}")]
    IndexRange {
        /// The visual.
        visual: usize,
        /// First index.
        offset: u32,
        /// Indices.
        count: u32,
        /// The index buffer.
        buffer: u32,
    },
    /// A visual's vertex buffer is not written (a tree buffer where trees become statics).
    #[error("visual {visual}: vertex buffer {buffer} has no place")]
    BufferLeftOut {
        /// The visual.
        visual: usize,
        /// The 13 level's vertex buffer.
        buffer: u32,
    },
    /// A visual names a vertex buffer the level does not have.
    #[error("visual {visual}: no vertex buffer {buffer}")]
    NoVertexBuffer {
        /// The visual.
        visual: usize,
        /// The vertex buffer named.
        buffer: u32,
    },
    /// A visual's vertex range lies outside its vertex buffer.
    #[error("visual {visual}: its vertex range is outside vertex buffer {buffer}")]
    VertexRange {
        /// The visual.
        visual: usize,
        /// The vertex buffer.
        buffer: u32,
    },
    /// The world-space copies of the tree instances (XRLC ≤ 8) exceed one FVF buffer.
    #[error("the world-space tree copies exceed 2^32 vertices")]
    TreeCopies,
}
