//! The chunk ids of the X-Ray chunk files in one table: `level` ([`level`], the 13/14 ids and
//! the per-build layouts [`level::Ids`] of XRLC 4–12), `level.geom(x)` ([`geom`]) and OGF
//! visuals of formats 2, 3 and 4 ([`ogf`]). The chunk naming ([`crate::chunk::name`]) reads
//! them here, so the container knows no format module; each format module re-exports its own
//! ids (`crate::level::SHADERS` is `ids::level::SHADERS`, `crate::level::Ids` is
//! `ids::level::Ids`).

/// Top-level chunks of `level`: the XRLC 13/14 ids, and what each id holds in every build
/// ([`Part`](level::Part) by [`Ids`](level::Ids)).
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

    /// What a top-level chunk of `level` holds; which id means what depends on the version.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub enum Part {
        /// `fsL_HEADER`.
        Header,
        /// `fsL_SHADERS`.
        Shaders,
        /// `fsL_TEXTURES` (XRLC 4, 5).
        Textures,
        /// `fsL_VISUALS`.
        Visuals,
        /// `fsL_VB`: D3D9-declared vertex buffers (XRLC 9–12).
        VertexBuffers,
        /// `fsL_VB` / `fsL_VB_OLD`: FVF vertex buffers (XRLC 4–9).
        FvfBuffers,
        /// `fsL_IB` (XRLC 9–12; `fsL_IBUFFERS` of late XRLC 8).
        IndexBuffers,
        /// `fsL_SWIS` (XRLC 12).
        Swis,
        /// `fsL_CFORM`: the collision inside `level` (XRLC 4–9; kept raw).
        Cform,
        /// `fsL_PORTALS`.
        Portals,
        /// `fsL_LIGHT_CONTROL` (XRLC 9: chunk 7, 10/11: chunk 5; kept raw): the light
        /// controllers, `{char name[64]; u32 count; u32 data[count]}` until the chunk's end
        /// (`xr_3da/xrRender_R1/FLightsController.cpp` `CLightDB_Static::Load`, 2003-06-20
        /// `6e603975e5`; xrLC copies the editor's table, `xrLC/xrSaveLights.cpp`). xray_re names
        /// 9's chunk 7 `FSL9_SHADER_CONSTANT // ???`; the engine's `xrLevel.h` of XRLC 9
        /// (`b61b6efa96`, 2002-12-26) says `fsL_LIGHT_CONTROL`.
        LightControl,
        /// `fsL_LIGHT_DYNAMIC`.
        Lights,
        /// `fsL_LIGHT_KEY_FRAMES` (XRLC 4, 5; kept raw).
        LightKeyFrames,
        /// `fsL_GLOWS`.
        Glows,
        /// `fsL_SECTORS`.
        Sectors,
    }

    /// The chunk ids of one `level`: its XRLC version's, and whether it is XRLC 8 in the light
    /// layout of xrLC 2002-09-30, whose ids 7 and 8 the version alone does not tell.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
    pub struct Ids {
        /// XRLC version (`fsL_HEADER`).
        pub version: u16,
        /// XRLC 8 as xrLC wrote it on 2002-09-30 (xray-engine-repo `0b46184139`, one day before
        /// XRLC 9): `xrLevel.h` renames ids 7 and 8 to `fsL_LIGHT_CONTROL` and
        /// `fsL_LIGHT_DYNAMIC`, and `xrLC/xrSaveLights.cpp` writes the editor's controller table
        /// (`EB_Light_control`, copied raw) into 7 and `{u32 controller_ID; Flight data}`
        /// (108 bytes) per light into 8: the 9 layout of both chunks under version 8.
        /// [`crate::level::ids_of`] decides it by chunk 8 being present.
        pub light_control: bool,
    }

    impl Ids {
        /// The ids of XRLC `version` in the layout our writers write (for XRLC 8 the lights in
        /// chunk 7, [`crate::level::OldLightTail::Build8`] records).
        pub fn of_version(version: u16) -> Ids {
            Ids {
                version,
                light_control: false,
            }
        }

        /// What chunk `id` holds, `None` for an id the layout does not use.
        pub fn part(self, id: u32) -> Option<Part> {
            use Part::*;
            if self.light_control && self.version == 8 {
                match id {
                    7 => return Some(LightControl),
                    8 => return Some(Lights),
                    _ => {}
                }
            }
            Some(match (self.version, id) {
                (_, 1) => Header,
                (4 | 5, 2) => Textures,
                (4 | 5, 3) => Shaders,
                (4 | 5, 4) => Visuals,
                (4 | 5, 5) => FvfBuffers,
                (4 | 5, 6) => Cform,
                (4 | 5, 7) => Portals,
                (4 | 5, 8) => Lights,
                (4 | 5, 9) => LightKeyFrames,
                (4 | 5, 10) => Glows,
                (4 | 5, 11) => Sectors,
                (4 | 5, _) => return None,
                (8 | 9, 2) => Shaders,
                (8 | 9, 3) => Visuals,
                (8 | 9, 4) => FvfBuffers,
                (8 | 9, 5) => Cform,
                (8 | 9, 6) => Portals,
                (8, 7) => Lights,
                (9, 7) => LightControl,
                (9, 8) => Lights,
                (8 | 9, 9) => Glows,
                (8 | 9, 10) => Sectors,
                // late XRLC 8 (xrLC from 2002-08-30, `66fe78212a`): fsL_IBUFFERS, the layout of 9's
                // (FStaticRender_Loader.cpp `LoadBuffers`: u32 count; count × {u32 n; u16[n]}),
                // opened only when present, so early-8 levels without it load too
                (8 | 9, 11) => IndexBuffers,
                (9, 12) => VertexBuffers,
                (8 | 9, _) => return None,
                (10 | 11, 5) => LightControl,
                (10..=12, 9) => IndexBuffers,
                (10..=12, 10) => VertexBuffers,
                (12, 11) => Swis,
                (_, 2) => Shaders,
                (_, 3) => Visuals,
                (_, 4) => Portals,
                (_, 6) => Lights,
                (_, 7) => Glows,
                (_, 8) => Sectors,
                _ => return None,
            })
        }

        /// The chunk id that holds `p` (the inverse of [`Self::part`]), `None` when the layout has
        /// no such chunk.
        pub fn id_of(self, p: Part) -> Option<u32> {
            (1..=12).find(|&i| self.part(i) == Some(p))
        }

        /// True when the lights are 108-byte `{u32 controller; Flight}` records ([`crate::level::Light`]):
        /// XRLC 9–14 and the 2002-09-30 XRLC 8 ([`Self::light_control`]).
        pub fn controller_lights(self) -> bool {
            self.version >= 9 || self.light_control
        }
    }
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
