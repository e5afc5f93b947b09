//! The chunk ids of the X-Ray chunk files in one table: `level` ([`level`]), `level.geom(x)`
//! ([`geom`]) and OGF visuals of formats 2, 3 and 4 ([`ogf`]). The chunk naming
//! ([`crate::chunk::name`]) reads them here, so the container knows no format module; each
//! format module re-exports its own ids (`crate::level::SHADERS` is `ids::level::SHADERS`).

/// Top-level chunks of `level` (the XRLC 13/14 ids; older builds' ids by
/// [`crate::level::part`]).
pub mod level {
    /// `fsL_HEADER`.
    pub const HEADER: u32 = 1;
    /// `fsL_SHADERS`.
    pub const SHADERS: u32 = 2;
    /// `fsL_VISUALS`.
    pub const VISUALS: u32 = 3;
    /// `fsL_PORTALS`.
    pub const PORTALS: u32 = 4;
    /// `fsL_LIGHT_DYNAMIC`.
    pub const LIGHT_DYNAMIC: u32 = 6;
    /// `fsL_GLOWS`.
    pub const GLOWS: u32 = 7;
    /// `fsL_SECTORS`.
    pub const SECTORS: u32 = 8;
}

/// Top-level chunks of `level.geom` / `level.geomx`.
pub mod geom {
    /// Chunk id of the header.
    pub const HEADER: u32 = 1;
    /// Chunk id of the vertex buffers.
    pub const VB: u32 = 9;
    /// Chunk id of the index buffers.
    pub const IB: u32 = 10;
    /// Chunk id of the sliding-window items.
    pub const SWIS: u32 = 11;
}

/// Chunks of an OGF visual (xray-16 `FMesh.hpp`; formats 2 and 3 as blender-xray's
/// `Chunks_v2` / `Chunks_v3`).
pub mod ogf {
    /// `OGF_HEADER`.
    pub const HEADER: u32 = 1;
    /// `OGF_TEXTURE`.
    pub const TEXTURE: u32 = 2;
    /// `OGF_SWIDATA`.
    pub const SWIDATA: u32 = 6;
    /// `OGF_CHILDREN_L`.
    pub const CHILDREN_L: u32 = 10;
    /// `OGF_LODDEF2`.
    pub const LODDEF2: u32 = 11;
    /// `OGF_TREEDEF2`.
    pub const TREEDEF2: u32 = 12;
    /// `OGF_SWICONTAINER`.
    pub const SWICONTAINER: u32 = 20;
    /// `OGF_GCONTAINER`.
    pub const GCONTAINER: u32 = 21;
    /// `OGF_FASTPATH`.
    pub const FASTPATH: u32 = 22;
    /// `OGF_VCONTAINER` of format-4 visuals (XRLC 12, 2004-08-19 .. 2005-01; `Fmesh.h` `8e15ee2845`).
    pub const VCONTAINER: u32 = 7;
    /// `OGF_ICONTAINER` of format-4 visuals (XRLC 12; `Fmesh.h` `8e15ee2845`).
    pub const ICONTAINER: u32 = 8;

    /// Chunk ids of OGF 2 visuals (XRLC 4, 5) where they differ from format 4 (blender-xray
    /// `Chunks_v2`).
    pub mod v2 {
        /// `OGF_TEXTURE_L`: (texture, shader) indices.
        pub const TEXTURE_L: u32 = 3;
        /// `OGF_BBOX`.
        pub const BBOX: u32 = 6;
        /// `OGF_INDICES`: the visual's own indices.
        pub const INDICES: u32 = 8;
        /// `OGF_VCONTAINER`.
        pub const VCONTAINER: u32 = 11;
        /// `OGF_BSPHERE`.
        pub const BSPHERE: u32 = 12;
        /// `OGF_CHILDREN_L`.
        pub const CHILDREN_L: u32 = 13;
    }

    /// Chunk ids of OGF 3 visuals (XRLC 8–12) where they differ from format 4 (blender-xray
    /// `Chunks_v3`).
    pub mod v3 {
        /// `OGF_TEXTURE`: texture and shader names.
        pub const TEXTURE: u32 = 2;
        /// `OGF_TEXTURE_L`: (texture, shader) indices.
        pub const TEXTURE_L: u32 = 3;
        /// `OGF_CHILD_REFS`.
        pub const CHILD_REFS: u32 = 5;
        /// `OGF_BBOX`.
        pub const BBOX: u32 = 6;
        /// `OGF_VERTICES`: the visual's own FVF vertices.
        pub const VERTICES: u32 = 7;
        /// `OGF_INDICES`: the visual's own indices.
        pub const INDICES: u32 = 8;
        /// `OGF_SWIDATA` (vertex splits).
        pub const SWIDATA: u32 = 9;
        /// `OGF_VCONTAINER`.
        pub const VCONTAINER: u32 = 10;
        /// `OGF_BSPHERE`.
        pub const BSPHERE: u32 = 11;
        /// `OGF_CHILDREN_L`.
        pub const CHILDREN_L: u32 = 12;
        /// `OGF_DPATCH`: detail patch sprites (xr_3da `Fmesh.h` `b4385f03b0`).
        pub const DPATCH: u32 = 15;
        /// `OGF_P_LODS`: the detail levels of `MT_PROGRESSIVE_STRIPS` (xr_3da `Fmesh.h`
        /// `b4385f03b0`).
        pub const P_LODS: u32 = 16;
        /// `OGF_ICONTAINER`.
        pub const ICONTAINER: u32 = 19;
        /// `OGF_LODDEF2`.
        pub const LODDEF2: u32 = 21;
        /// `OGF_TREEDEF2`.
        pub const TREEDEF2: u32 = 22;
    }

    /// What a visual chunk holds, across OGF formats.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    #[allow(missing_docs)]
    pub enum Kind {
        Header,
        Texture,
        TextureL,
        ChildRefs,
        Bbox,
        Vertices,
        Indices,
        SwiData,
        VContainer,
        IContainer,
        BSphere,
        ChildrenL,
        LodDef,
        TreeDef,
        SwiContainer,
        GContainer,
        FastPath,
        DPatch,
        PLods,
    }

    /// What chunk `id` of an OGF `format` (2, 3, 4) visual holds.
    pub fn kind_of(format: u8, id: u32) -> Option<Kind> {
        use Kind::*;
        Some(match (format, id) {
            (_, HEADER) => Header,
            (2, v2::TEXTURE_L) => TextureL,
            (2, v2::BBOX) => Bbox,
            (2, v2::INDICES) => Indices,
            (2, v2::VCONTAINER) => VContainer,
            (2, v2::BSPHERE) => BSphere,
            (2, v2::CHILDREN_L) => ChildrenL,
            (2, _) => return None,
            (3, v3::TEXTURE) => Texture,
            (3, v3::TEXTURE_L) => TextureL,
            (3, v3::CHILD_REFS) => ChildRefs,
            (3, v3::BBOX) => Bbox,
            (3, v3::VERTICES) => Vertices,
            (3, v3::INDICES) => Indices,
            (3, v3::SWIDATA) => SwiData,
            (3, v3::VCONTAINER) => VContainer,
            (3, v3::BSPHERE) => BSphere,
            (3, v3::CHILDREN_L) => ChildrenL,
            (3, v3::ICONTAINER) => IContainer,
            (3, v3::DPATCH) => DPatch,
            (3, v3::P_LODS) => PLods,
            (3, v3::LODDEF2) => LodDef,
            (3, v3::TREEDEF2) => TreeDef,
            (3, _) => return None,
            (_, TEXTURE) => Texture,
            (_, SWIDATA) => SwiData,
            (_, CHILDREN_L) => ChildrenL,
            (_, LODDEF2) => LodDef,
            (_, TREEDEF2) => TreeDef,
            (_, SWICONTAINER) => SwiContainer,
            (_, GCONTAINER) => GContainer,
            (_, FASTPATH) => FastPath,
            _ => return None,
        })
    }
}
