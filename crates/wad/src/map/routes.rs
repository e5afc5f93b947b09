//! MAP section 4: the 34-byte route nodes and the routes they chain into
//! (docs/formats/argonaut-wad.md §18.5).
//!
//! Layout from the game's MAP loader, ENG-RE `REVERSED/decompiled/sub_42AC50.c` (the third
//! loop after the tile records: `n × 0x30` bytes allocated, each record read with
//! `sub_415AB0` (u32) and `sub_415AF0` (u16, widened to u32 in memory), so 34 bytes on disk
//! become 48 in memory). Names follow what the loader does; ENG-RE's Python
//! (`WAD/eng_wad/map_full_chunk.py`, `MapSection4Record`) calls the three words at 0x0e
//! `route_x, route_y, route_z` and the middle u16 `yaw_units`.
//!
//! | file | runtime | type | field |
//! |---|---|---|---|
//! | 0x00 | 0x00 | u32 | `next`: non-zero = the following record continues the route (the loader replaces it by a pointer to that record); 0 ends the route |
//! | 0x04 | 0x04 | u32 | `prev`: kept as stored; the loader overwrites it in memory with a pointer to the previous record when that one's `next` is non-zero |
//! | 0x08 | 0x08, 0x0c, 0x10 | 3 × u16 | `rot`: rotation in 4096ths of a turn, like the objects' (`rot[1]` the yaw) |
//! | 0x0e | 0x18, 0x1c, 0x20 | 3 × i32 | `pos`: position, 20.12 fixed point, game space (docs/formats/argonaut-wad.md §15) |
//! | 0x1a | 0x28 | u32 | `unknown_0x1a` |
//! | 0x1e | 0x2c | u32 | `unknown_0x1e` |
//!
//! A **route** is a run of consecutive records chained by `next`: it starts at record 0 or
//! after a record whose `next` is 0, and ends at the first record whose `next` is 0 (or at the
//! last record). An object's `section4_index` (docs/formats/argonaut-wad.md §8) names the
//! record its route starts at; the loader walks the chain from there to the route's last
//! record and stores that in the object.

use std::ops::Range;

use levelgeom_binary::{ReadError, Reader, Writer};

/// Size of a route node in the file.
pub const ROUTE_NODE_SIZE: usize = 34;

/// One 34-byte MAP section-4 record (see the module docs for the layout and its source).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RouteNode {
    /// Non-zero when the next record continues this route.
    pub next: u32,
    /// The stored previous-link word (the loader replaces it in memory).
    pub prev: u32,
    /// Rotation, 3 × u16 in 4096ths of a turn.
    pub rot: [u16; 3],
    /// Position, 3 × i32 in 20.12 fixed point, game space.
    pub pos: [i32; 3],
    /// File offset 0x1a, meaning unknown.
    pub unknown_0x1a: u32,
    /// File offset 0x1e, meaning unknown.
    pub unknown_0x1e: u32,
}

/// Byte offset of [`RouteNode::pos`] inside a record.
pub const ROUTE_POS_OFFSET: usize = 0x0e;

impl RouteNode {
    /// Read one 34-byte record.
    pub fn read(r: &mut Reader<'_>) -> Result<RouteNode, ReadError> {
        Ok(RouteNode {
            next: r.u32()?,
            prev: r.u32()?,
            rot: [r.u16()?, r.u16()?, r.u16()?],
            pos: [r.i32()?, r.i32()?, r.i32()?],
            unknown_0x1a: r.u32()?,
            unknown_0x1e: r.u32()?,
        })
    }

    /// Write the 34 bytes in file order.
    pub fn write(&self, w: &mut Writer) {
        w.u32(self.next);
        w.u32(self.prev);
        for v in self.rot {
            w.u16(v);
        }
        for v in self.pos {
            w.i32(v);
        }
        w.u32(self.unknown_0x1a);
        w.u32(self.unknown_0x1e);
    }

    /// The position in export space: `(x, y, −z) / 4096` (docs/formats/argonaut-wad.md §15).
    pub fn export_position(&self) -> [f64; 3] {
        [
            f64::from(self.pos[0]) / 4096.0,
            f64::from(self.pos[1]) / 4096.0,
            -f64::from(self.pos[2]) / 4096.0,
        ]
    }
}

/// The routes of a node list: the index range of each chain (see the module docs), in order.
/// Every node belongs to exactly one route.
pub fn routes(nodes: &[RouteNode]) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut start = 0;
    for (i, n) in nodes.iter().enumerate() {
        if n.next == 0 {
            out.push(start..i + 1);
            start = i + 1;
        }
    }
    if start < nodes.len() {
        out.push(start..nodes.len());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(next: u32) -> RouteNode {
        RouteNode {
            next,
            ..RouteNode::default()
        }
    }

    #[test]
    fn chains_split_where_next_is_zero() {
        let n = [node(1), node(1), node(0), node(0), node(7), node(1)];
        assert_eq!(routes(&n), vec![0..3, 3..4, 4..6]);
        assert!(routes(&[]).is_empty());
    }
}
