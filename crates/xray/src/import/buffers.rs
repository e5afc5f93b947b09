//! Reading and writing vertex ranges of `level.geom`/`level.geomx`, and appending new
//! vertices and indices the way xrLC fills its buffers: into the last vertex buffer of the same
//! declaration while it stays at most [`MAX_VB_VERTICES`] vertices, else into a new buffer
//! appended after the others (no existing index changes); indices into the last index buffer
//! while it stays at most [`MAX_IB_INDICES`], else into a new one.
//!
//! Buffers never shrink: the ranges of deleted visuals stay in the file unused (the engine
//! only draws what visuals point at).

use levelgeom_binary::WriteError;

use crate::decl::Declaration;
use crate::geom::{Geom, GeomChunk, VertexBuffer};
use crate::index_data::IndexData;
use crate::ogf::GContainer;
use crate::vertex::{self, Vertices};

pub use crate::geom::MAX_VB_VERTICES;
/// New index buffers are started past this many indices.
pub const MAX_IB_INDICES: usize = 3 * 65_535;

/// Decode `count` vertices of buffer `vb` from `offset`; `None` when out of range.
pub(crate) fn read_range(
    g: &Geom,
    vb: u32,
    offset: u32,
    count: u32,
) -> Option<(Declaration, Vertices)> {
    let b = g.vertex_buffers()?.get(vb as usize)?;
    let s = b.stride();
    let start = (offset as usize).checked_mul(s)?;
    let end = start.checked_add((count as usize).checked_mul(s)?)?;
    let raw = b.data.get(start..end)?;
    Some((b.decl.clone(), vertex::decode(&b.decl, raw)))
}

/// Encode `v` over the vertices of buffer `vb` from `offset` (in place; the range must exist).
pub(crate) fn write_range(g: &mut Geom, vb: u32, offset: u32, v: &Vertices) -> bool {
    let Some(b) = g
        .vertex_buffers_mut()
        .and_then(|bs| bs.get_mut(vb as usize))
    else {
        return false;
    };
    let bytes = vertex::encode(&b.decl, v);
    let start = offset as usize * b.stride();
    match b.data.get_mut(start..start + bytes.len()) {
        Some(dst) => {
            dst.copy_from_slice(&bytes);
            true
        }
        None => false,
    }
}

/// Append `v` to a buffer with declaration `decl` (see the module docs): `(vb index, first
/// vertex)`.
pub(crate) fn append_vertices(
    g: &mut Geom,
    decl: &Declaration,
    v: &Vertices,
) -> Result<(u32, u32), WriteError> {
    if v.count > MAX_VB_VERTICES {
        return Err(WriteError::invalid(
            "fsL_VB",
            format!(
                "a mesh of {} vertices; one visual holds at most {MAX_VB_VERTICES} (split it)",
                v.count
            ),
        ));
    }
    let bytes = vertex::encode(decl, v);
    let vbs = match g.vertex_buffers_mut() {
        Some(b) => b,
        None => {
            return Err(WriteError::invalid(
                "fsL_VB",
                "level.geom has no vertex buffers",
            ))
        }
    };
    let room = vbs
        .iter()
        .rposition(|b| b.decl == *decl)
        .filter(|&i| vbs[i].count as usize + v.count <= MAX_VB_VERTICES);
    let index = match room {
        Some(i) => i,
        None => {
            vbs.push(VertexBuffer {
                decl: decl.clone(),
                count: 0,
                data: Vec::new().into(),
            });
            vbs.len() - 1
        }
    };
    let b = &mut vbs[index];
    let first = b.count;
    b.data.extend_from_slice(&bytes);
    b.count += v.count as u32;
    Ok((index as u32, first))
}

/// The index buffers, mutable.
fn index_buffers_mut(g: &mut Geom) -> Option<&mut Vec<IndexData>> {
    g.chunks.iter_mut().find_map(|c| match &mut c.value {
        GeomChunk::IndexBuffers(v) => Some(v),
        _ => None,
    })
}

/// Append indices (see the module docs): `(ib index, first index)`.
pub(crate) fn append_indices(g: &mut Geom, idx: &[u16]) -> Result<(u32, u32), WriteError> {
    let ibs = index_buffers_mut(g)
        .ok_or_else(|| WriteError::invalid("fsL_IB", "level.geom has no index buffers"))?;
    let fits = ibs
        .last()
        .is_some_and(|ib| ib.len() + idx.len() <= MAX_IB_INDICES);
    if !fits {
        ibs.push(IndexData::default());
    }
    let i = ibs.len() - 1;
    let first = ibs[i].len() as u32;
    ibs[i].extend_from_slice(idx);
    Ok((i as u32, first))
}

/// Append `v` and its indices `idx` (see [`append_vertices`], [`append_indices`]): the
/// `OGF_GCONTAINER` that names the new range.
pub(crate) fn append_range(
    g: &mut Geom,
    decl: &Declaration,
    v: &Vertices,
    idx: &[u16],
) -> Result<GContainer, WriteError> {
    let (vb_index, vb_offset) = append_vertices(g, decl, v)?;
    let (ib_index, ib_offset) = append_indices(g, idx)?;
    Ok(GContainer {
        vb_index,
        vb_offset,
        vb_count: v.count as u32,
        ib_index,
        ib_offset,
        ib_count: idx.len() as u32,
    })
}

/// The indices `[offset, offset + count)` of buffer `ib`.
pub(crate) fn indices(g: &Geom, ib: u32, offset: u32, count: u32) -> Option<Vec<u16>> {
    let b = g.index_buffers()?.get(ib as usize)?;
    let start = offset as usize;
    Some(b.get(start..start.checked_add(count as usize)?)?.to_vec())
}

/// Overwrite indices from `offset` of buffer `ib` (the range must exist).
pub(crate) fn write_indices(g: &mut Geom, ib: u32, offset: u32, idx: &[u16]) -> bool {
    let Some(b) = index_buffers_mut(g).and_then(|b| b.get_mut(ib as usize)) else {
        return false;
    };
    let start = offset as usize;
    match b.get_mut(start..start + idx.len()) {
        Some(dst) => {
            dst.copy_from_slice(idx);
            true
        }
        None => false,
    }
}
