//! The model format shared by TRAK (world tiles) and STPC (object models).
//!
//! A model is a header followed by its arrays. TRAK stores every header of the chunk first and
//! then the arrays of each model in order; STPC stores header and arrays alternately. The
//! header is 0x84 bytes in TRAK and 0x8C bytes in STPC (three extra fields at the end).
//!
//! # Header
//!
//! | Offset | Size | Meaning |
//! |---|---|---|
//! | 0x00 | 3 × f32 | bounding-box centre |
//! | 0x0C | 8 × 3 × f32 | box corners, order (−x−y+z)(+x−y+z)(−x+y+z)(+x+y+z)(−x−y−z)(+x−y−z)(−x+y−z)(+x+y−z) |
//! | 0x6C | u16 | vertex count |
//! | 0x6E | u16 | face (triangle) count |
//! | 0x70 | u32 | vertex pointer (0 in files; set by the loader) |
//! | 0x74 | u32 | face pointer (0 in files) |
//! | 0x78 | 3 × u16 | collision polygon counts of three groups (the engine always uses their sum) |
//! | 0x7E | u16 | unknown, usually 0 (11 seen in a real STPC record), kept |
//! | 0x80 | u32 | collision pointer (0 in files) |
//! | 0x84 | u16 | STPC only: vertex count of rigid models, 0 for skinned ones |
//! | 0x86 | u16 | STPC only: bone count of skinned models |
//! | 0x88 | u32 | STPC only: bone-table pointer (0 in files) |
//!
//! # Arrays, in this order
//!
//! 1. STPC only: `bone_count × u16` vertices per bone (their sum is the vertex count);
//! 2. vertices, 24 bytes: `f32 x, y, z; f32 nx, ny, nz` (smoothed normals);
//! 3. faces, 28 bytes: `u16 flags; u16 v0, v1, v2; u16 texture; u16 unknown (0); f32 nx, ny, nz, d`
//!    with `n = normalize((v1 − v0) × (v2 − v0))` and `d = n · v0`;
//! 4. collision polygons, 32 bytes: `u8 type; u8 material; 5 × {i8 nx, ny, nz; u8 pad; i16 d}`.
//!    Plane 0 is the surface, planes 1..4 the inward edges; `type & 1` marks a quad (4 edges),
//!    otherwise a triangle whose fifth plane is zero. Collision data is in game space (z
//!    mirrored against the render vertices). The engine evaluates `32·n_q·p − d` in 20.12
//!    fixed point (docs/formats/argonaut-wad.md §12.4), so a plane's surface is `n̂·p = d / (32·|n_q|)`.
//!
//! Every field is kept as read (f32 bit patterns included), so an unmodified model writes back
//! byte for byte. Counts in the header are kept as stored; [`Model::sync_header`] recomputes
//! them (and the bounding box) after an edit, and [`crate::check`] reports any mismatch.

use levelgeom_binary::{fit, ReadError, Reader, WriteError, Writer};

/// Size of a TRAK model header.
pub const TRAK_HEADER_SIZE: usize = 0x84;
/// Size of an STPC model header.
pub const STPC_HEADER_SIZE: usize = 0x8C;
/// Size of one vertex record.
pub const VERTEX_SIZE: usize = 24;
/// Size of one face record.
pub const FACE_SIZE: usize = 28;
/// Size of one collision polygon record.
pub const COLLISION_SIZE: usize = 32;

/// Face flag: start a new render batch (reload page and blend state from this face).
pub const FACE_BATCH: u16 = 0x0008;
/// Face flag: UV corner selection, second half of a quad (with [`FACE_UV_QUAD`]).
pub const FACE_UV_SECOND: u16 = 0x0010;
/// Face flag: mirror U.
pub const FACE_UV_MIRROR: u16 = 0x0020;
/// Face flag: the face is half of a texture quad (UV corner selection).
pub const FACE_UV_QUAD: u16 = 0x0800;
/// Face flag: no back-face culling (double-sided).
pub const FACE_DOUBLE_SIDED: u16 = 0x0400;
/// Face flag: ignore vertex colours (draw white).
pub const FACE_NO_VERTEX_COLOUR: u16 = 0x4000;
/// Face flags 0x1 and 0x2: special render modes (sorting/transparency), meaning uncertain.
pub const FACE_SPECIAL_MODES: u16 = 0x0003;

/// Collision type bit: the polygon is a quad (four edge planes).
pub const COLLISION_QUAD: u8 = 0x01;
/// Collision type bit (probable): the surface normal points down (ceiling, overhang).
pub const COLLISION_DOWNWARD: u8 = 0x04;
/// Collision material: the water / death plane under the islands (probable).
pub const MATERIAL_WATER: u8 = 0x1E;

/// A 3-vector of `f32` as stored.
pub type Vec3 = [f32; 3];

/// The STPC-only tail of a model header (+0x84..+0x8C).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct StpcHeaderExtra {
    /// +0x84: the vertex count for rigid models, 0 for skinned ones.
    pub rigid_vertex_count: u16,
    /// +0x86: the bone count (skinned models); that many u16 per-bone vertex counts precede
    /// the vertices.
    pub bone_count: u16,
    /// +0x88: bone-table pointer, 0 in files (kept raw).
    pub bone_ptr: u32,
}

/// A model header (0x84 bytes in TRAK, 0x8C with [`StpcHeaderExtra`] in STPC).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ModelHeader {
    /// +0x00: bounding-box centre.
    pub centre: Vec3,
    /// +0x0C: the 8 box corners in the order
    /// (−x−y+z)(+x−y+z)(−x+y+z)(+x+y+z)(−x−y−z)(+x−y−z)(−x+y−z)(+x+y−z).
    pub corners: [Vec3; 8],
    /// +0x6C: vertex count as stored.
    pub vertex_count: u16,
    /// +0x6E: face count as stored.
    pub face_count: u16,
    /// +0x70: vertex pointer, 0 in files (kept raw).
    pub vertex_ptr: u32,
    /// +0x74: face pointer, 0 in files (kept raw).
    pub face_ptr: u32,
    /// +0x78/+0x7A/+0x7C: collision polygon counts of the three groups, as stored.
    pub collision_counts: [u16; 3],
    /// +0x7E: unknown, usually 0 (kept).
    pub unknown_7e: u16,
    /// +0x80: collision pointer, 0 in files (kept raw).
    pub collision_ptr: u32,
    /// +0x84..+0x8C: present in STPC headers only.
    pub stpc: Option<StpcHeaderExtra>,
}

/// One vertex (24 bytes): position and smoothed normal in export space.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Vertex {
    /// Position, model-local export space (y up).
    pub pos: Vec3,
    /// Smoothed vertex normal.
    pub normal: Vec3,
}

/// One triangle (28 bytes).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Face {
    /// Face flags (`FACE_*` constants).
    pub flags: u16,
    /// Vertex indices v0, v1, v2.
    pub indices: [u16; 3],
    /// Index into the TEXT texture-entry table.
    pub texture: u16,
    /// +0x0A: unknown, usually 0 (kept).
    pub unknown_0a: u16,
    /// Plane normal `normalize((v1 − v0) × (v2 − v0))`.
    pub normal: Vec3,
    /// Plane distance `n · v0`.
    pub d: f32,
}

/// One collision plane (6 bytes): `i8 nx, ny, nz; u8 pad; i16 d`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CollisionPlane {
    /// Normal × 127 (game space).
    pub normal: [i8; 3],
    /// Padding byte, usually 0 (kept).
    pub pad: u8,
    /// Distance; the engine tests `32·n·p − d ≥ −tolerance` in 20.12 fixed point.
    pub d: i16,
}

/// One collision polygon (32 bytes).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CollisionPoly {
    /// Type bits ([`COLLISION_QUAD`], [`COLLISION_DOWNWARD`]).
    pub kind: u8,
    /// Ground material (0 normal, 0x1E water / death plane, …).
    pub material: u8,
    /// Plane 0 = the surface, planes 1..4 = inward edge planes (plane 4 zero for triangles).
    pub planes: [CollisionPlane; 5],
}

/// A model: header plus arrays.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Model {
    /// The header as stored.
    pub header: ModelHeader,
    /// STPC skinned models: vertices per bone (`header.stpc.bone_count` entries).
    pub bone_vertex_counts: Vec<u16>,
    /// Vertices.
    pub vertices: Vec<Vertex>,
    /// Triangles.
    pub faces: Vec<Face>,
    /// Collision polygons of all three groups, group 0 first.
    pub collision: Vec<CollisionPoly>,
}

fn vec3(r: &mut Reader<'_>) -> Result<Vec3, ReadError> {
    r.f32s::<3>()
}

impl ModelHeader {
    /// Read a header; `stpc` selects the 0x8C-byte STPC form.
    pub fn read(r: &mut Reader<'_>, stpc: bool) -> Result<ModelHeader, ReadError> {
        let centre = vec3(r)?;
        let mut corners = [[0f32; 3]; 8];
        for c in &mut corners {
            *c = vec3(r)?;
        }
        let vertex_count = r.u16()?;
        let face_count = r.u16()?;
        let vertex_ptr = r.u32()?;
        let face_ptr = r.u32()?;
        let collision_counts = [r.u16()?, r.u16()?, r.u16()?];
        let unknown_7e = r.u16()?;
        let collision_ptr = r.u32()?;
        let stpc = if stpc {
            Some(StpcHeaderExtra {
                rigid_vertex_count: r.u16()?,
                bone_count: r.u16()?,
                bone_ptr: r.u32()?,
            })
        } else {
            None
        };
        Ok(ModelHeader {
            centre,
            corners,
            vertex_count,
            face_count,
            vertex_ptr,
            face_ptr,
            collision_counts,
            unknown_7e,
            collision_ptr,
            stpc,
        })
    }

    /// Write the header (0x84 bytes, or 0x8C when [`Self::stpc`] is set).
    pub fn write(&self, w: &mut Writer) {
        w.f32s(&self.centre);
        for c in &self.corners {
            w.f32s(c);
        }
        w.u16(self.vertex_count);
        w.u16(self.face_count);
        w.u32(self.vertex_ptr);
        w.u32(self.face_ptr);
        for c in self.collision_counts {
            w.u16(c);
        }
        w.u16(self.unknown_7e);
        w.u32(self.collision_ptr);
        if let Some(x) = &self.stpc {
            w.u16(x.rigid_vertex_count);
            w.u16(x.bone_count);
            w.u32(x.bone_ptr);
        }
    }

    /// Total collision polygons of the three groups (as `usize`, cannot overflow).
    pub fn collision_total(&self) -> usize {
        self.collision_counts.iter().map(|&c| usize::from(c)).sum()
    }
}

/// Little-endian fields of one fixed-size record, by byte offset (the caller hands over a
/// slice of the record's size, so every offset is inside it).
#[inline]
fn u16_at(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([b[at], b[at + 1]])
}

#[inline]
fn f32_at(b: &[u8], at: usize) -> f32 {
    f32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

#[inline]
fn vec3_at(b: &[u8], at: usize) -> Vec3 {
    [f32_at(b, at), f32_at(b, at + 4), f32_at(b, at + 8)]
}

/// `n` records of `size` bytes decoded by `from_record`: the bytes taken at once (the count
/// was checked against the remaining bytes), each record decoded from its slice.
fn records<T>(
    r: &mut Reader<'_>,
    n: usize,
    size: usize,
    from_record: impl Fn(&[u8]) -> T,
) -> Result<Vec<T>, ReadError> {
    let bytes = r.bytes(n.saturating_mul(size))?;
    Ok(bytes.chunks_exact(size).map(from_record).collect())
}

impl Vertex {
    /// Read a 24-byte vertex.
    pub fn read(r: &mut Reader<'_>) -> Result<Vertex, ReadError> {
        r.bytes(VERTEX_SIZE).map(Vertex::from_record)
    }

    /// The vertex of a 24-byte record (docs/formats/argonaut-wad.md §16.2): position, then
    /// normal.
    fn from_record(b: &[u8]) -> Vertex {
        Vertex {
            pos: vec3_at(b, 0),
            normal: vec3_at(b, 12),
        }
    }

    /// Write a 24-byte vertex.
    pub fn write(&self, w: &mut Writer) {
        w.f32s(&self.pos);
        w.f32s(&self.normal);
    }
}

impl Face {
    /// Read a 28-byte face.
    pub fn read(r: &mut Reader<'_>) -> Result<Face, ReadError> {
        r.bytes(FACE_SIZE).map(Face::from_record)
    }

    /// The face of a 28-byte record (docs/formats/argonaut-wad.md §16.2, the fields as
    /// [`Face::write`] writes them).
    fn from_record(b: &[u8]) -> Face {
        Face {
            flags: u16_at(b, 0),
            indices: [u16_at(b, 2), u16_at(b, 4), u16_at(b, 6)],
            texture: u16_at(b, 8),
            unknown_0a: u16_at(b, 10),
            normal: vec3_at(b, 12),
            d: f32_at(b, 24),
        }
    }

    /// Write a 28-byte face.
    pub fn write(&self, w: &mut Writer) {
        w.u16(self.flags);
        for i in self.indices {
            w.u16(i);
        }
        w.u16(self.texture);
        w.u16(self.unknown_0a);
        w.f32s(&self.normal);
        w.f32(self.d);
    }
}

impl CollisionPoly {
    /// Read a 32-byte collision polygon.
    pub fn read(r: &mut Reader<'_>) -> Result<CollisionPoly, ReadError> {
        r.bytes(COLLISION_SIZE).map(CollisionPoly::from_record)
    }

    /// The polygon of a 32-byte record (docs/formats/argonaut-wad.md §16.2): kind, material,
    /// then five planes of 6 bytes, as [`CollisionPoly::write`] writes them.
    fn from_record(b: &[u8]) -> CollisionPoly {
        let mut planes = [CollisionPlane::default(); 5];
        for (k, p) in planes.iter_mut().enumerate() {
            let at = 2 + 6 * k;
            *p = CollisionPlane {
                normal: [b[at] as i8, b[at + 1] as i8, b[at + 2] as i8],
                pad: b[at + 3],
                d: u16_at(b, at + 4) as i16,
            };
        }
        CollisionPoly {
            kind: b[0],
            material: b[1],
            planes,
        }
    }

    /// Write a 32-byte collision polygon.
    pub fn write(&self, w: &mut Writer) {
        w.u8(self.kind);
        w.u8(self.material);
        for p in &self.planes {
            for n in p.normal {
                w.i8(n);
            }
            w.u8(p.pad);
            w.i16(p.d);
        }
    }

    /// Number of edge planes in use: 4 for quads, 3 for triangles.
    pub fn edge_count(&self) -> usize {
        if self.kind & COLLISION_QUAD != 0 {
            4
        } else {
            3
        }
    }
}

impl Model {
    /// Read the arrays of a model whose header was read already (bone counts for STPC
    /// skinned models, vertices, faces, collision polygons). Counts are validated against the
    /// remaining bytes before anything is allocated.
    pub fn read_data(r: &mut Reader<'_>, header: ModelHeader) -> Result<Model, ReadError> {
        let bones = header.stpc.map_or(0, |x| x.bone_count);
        let n = r.count(bones, 2)?;
        let mut bone_vertex_counts = Vec::with_capacity(n);
        for _ in 0..n {
            bone_vertex_counts.push(r.u16()?);
        }
        // each array's count checked against the bytes left, then its records decoded from
        // one slice (a record cannot be cut short)
        let n = r.count(header.vertex_count, VERTEX_SIZE)?;
        let vertices = records(r, n, VERTEX_SIZE, Vertex::from_record)?;
        let n = r.count(header.face_count, FACE_SIZE)?;
        let faces = records(r, n, FACE_SIZE, Face::from_record)?;
        let n = r.count(header.collision_total() as u64, COLLISION_SIZE)?;
        let collision = records(r, n, COLLISION_SIZE, CollisionPoly::from_record)?;
        Ok(Model {
            header,
            bone_vertex_counts,
            vertices,
            faces,
            collision,
        })
    }

    /// Check that the arrays fit the header's count fields and that every face's vertex
    /// indices point at a vertex: what new geometry (an import) must satisfy before it is
    /// written. The errors name the field relative to the model (`vertex count`,
    /// `faces[17]/v2`; callers put the model's path in front with [`WriteError::within`]).
    ///
    /// [`Self::write_data`] checks only the counts: a file read with a face index past its
    /// vertices (which `check` reports) still writes back byte for byte.
    pub fn check_writable(&self) -> Result<(), WriteError> {
        let nv = self.check_counts()?;
        for (j, f) in self.faces.iter().enumerate() {
            for (k, &ix) in f.indices.iter().enumerate() {
                if ix >= nv {
                    return Err(WriteError::index(format!("faces[{j}]/v{k}"), ix, nv));
                }
            }
        }
        Ok(())
    }

    /// The arrays' lengths fit their u16 count fields; returns the vertex count.
    fn check_counts(&self) -> Result<u16, WriteError> {
        let nv: u16 = fit(self.vertices.len(), || "vertex count".into())?;
        fit::<u16, _>(self.faces.len(), || "face count".into())?;
        if self.collision.len() > 3 * usize::from(u16::MAX) {
            fit::<u16, _>(self.collision.len(), || "collision counts".into())?;
        }
        if self.header.stpc.is_some() {
            fit::<u16, _>(self.bone_vertex_counts.len(), || "bone count".into())?;
        }
        Ok(nv)
    }

    /// Write the arrays (not the header) in file order; fails when a count does not fit its
    /// field (see [`Self::check_writable`] for what new geometry must satisfy besides).
    pub fn write_data(&self, w: &mut Writer) -> Result<(), WriteError> {
        self.check_counts()?;
        for &c in &self.bone_vertex_counts {
            w.u16(c);
        }
        for v in &self.vertices {
            v.write(w);
        }
        for f in &self.faces {
            f.write(w);
        }
        for c in &self.collision {
            c.write(w);
        }
        Ok(())
    }

    /// The size of the arrays in bytes.
    pub fn data_len(&self) -> usize {
        self.bone_vertex_counts.len() * 2
            + self.vertices.len() * VERTEX_SIZE
            + self.faces.len() * FACE_SIZE
            + self.collision.len() * COLLISION_SIZE
    }

    /// Recompute the header from the arrays after an edit: vertex and face counts, bounding
    /// box (centre and corners, grown by `margin` on every side), and for STPC models the
    /// bone count and the rigid vertex count. Collision group counts are left alone unless
    /// they no longer sum to the polygon count, in which case all polygons go to group 0.
    /// Counts saturate at `u16::MAX` ([`crate::check`] reports such models, and
    /// [`Self::write_data`] refuses to write them).
    pub fn sync_header(&mut self, margin: f32) {
        let h = &mut self.header;
        h.vertex_count = u16::try_from(self.vertices.len()).unwrap_or(u16::MAX);
        h.face_count = u16::try_from(self.faces.len()).unwrap_or(u16::MAX);
        if h.collision_total() != self.collision.len() {
            h.collision_counts = [
                u16::try_from(self.collision.len()).unwrap_or(u16::MAX),
                0,
                0,
            ];
        }
        if let Some(x) = &mut h.stpc {
            x.bone_count = u16::try_from(self.bone_vertex_counts.len()).unwrap_or(u16::MAX);
            x.rigid_vertex_count = if self.bone_vertex_counts.is_empty() {
                h.vertex_count
            } else {
                0
            };
        }
        if let Some((lo, hi)) = bounds(self.vertices.iter().map(|v| v.pos)) {
            let (lo, hi) = crate::author::grow(lo, hi, margin);
            h.centre = crate::author::box_centre(lo, hi);
            h.corners = box_corners(lo, hi);
        }
    }
}

// The box and plane computations live in [`crate::author`]; re-exported here where they were.
pub use crate::author::{bounds, box_corners, face_plane};
