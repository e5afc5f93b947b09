//! Cutting the world mesh into tile models (docs/formats/argonaut-wad.md §21.1–21.3).
//!
//! * **Cell**: a triangle belongs to the cell of its centroid, `(floor(x), floor(−z))`; it is
//!   not clipped, so a model may reach beyond its cell (real models reach up to ±2.4 units; the
//!   engine draws per tile and culls by the model's box, so that is harmless). Collision is
//!   separate ([`super::collision`]) and does go into every cell it covers.
//! * **Tile frame**: the cell centre `(cx + 0.5, 0, −cz − 0.5)` with rotation 0, so the
//!   exporter's placement is a translation and `local = world − origin` is its exact inverse
//!   (computed in f64, rounded once). Render vertices are stored in export space (only
//!   collision is in game space), so there is no z flip here.
//! * **Faces**: stored in the given (counter-clockwise, glTF front) order, up to the cyclic
//!   rotation the UV fit chose, with the plane [`author::face_plane`] of that order, so the
//!   stored normal is the glTF front and the exporter writes the same winding back. Faces are
//!   sorted (stably) by render state, then batch flags are set ([`author::set_batch_flags`]).
//! * **Vertices**: shared between faces of the same model with equal local position and
//!   colour (a corner with another colour needs its own vertex, since colours are per model
//!   vertex in MAP); normals smoothed from the faces ([`author::smooth_normals`]).
//! * **Limits**: a model takes at most [`MAX_MODEL_VERTICES`] vertices and 65,535 faces; a
//!   cell with more gets several models (and tiles) in the same cell.
//! * **Degenerate** triangles (no plane in their stored f32 local coordinates) are dropped.

use std::collections::HashMap;

use super::BOX_MARGIN;
use crate::author;
use crate::check::MAX_MODEL_VERTICES;
use crate::model::{Face, Model, Vertex};

/// A triangle ready for a model: world corners in stored order and its face data.
#[derive(Clone, Debug, PartialEq)]
pub struct PreparedFace {
    /// World (export-space) corners in stored order.
    pub world: [[f32; 3]; 3],
    /// MAP colour words of the corners (byte 3 = 0).
    pub colours: [u32; 3],
    /// Texture entry.
    pub texture: u16,
    /// Face flags without the batch flag.
    pub flags: u16,
    /// Render state of the entry ([`crate::check::render_state`]).
    pub state: u32,
}

/// A model built for one cell and its vertex colours (one set).
#[derive(Clone, Debug, PartialEq)]
pub struct CellModel {
    /// The model.
    pub model: Model,
    /// One colour per vertex.
    pub colours: Vec<u32>,
}

/// The tile origin of cell (cx, cz) at height `y`.
pub fn cell_origin(cx: u32, cz: u32, y: f32) -> [f32; 3] {
    [cx as f32 + 0.5, y, -(cz as f32) - 0.5]
}

/// World → tile-local for a tile at `origin` with rotation 0 (f64, rounded once).
pub fn to_local(p: [f32; 3], origin: [f32; 3]) -> [f32; 3] {
    [0, 1, 2].map(|k| (f64::from(p[k]) - f64::from(origin[k])) as f32)
}

/// Build the models of one cell; returns them and the number of degenerate faces dropped.
pub fn build_models(origin: [f32; 3], faces: &mut [PreparedFace]) -> (Vec<CellModel>, usize) {
    faces.sort_by_key(|f| f.state);
    let mut degenerate = 0usize;
    let mut out = Vec::new();
    let mut cur = Builder::default();
    for f in faces.iter() {
        let local = f.world.map(|p| to_local(p, origin));
        let Some((normal, d)) = author::face_plane(local[0], local[1], local[2]) else {
            degenerate += 1;
            continue;
        };
        let new_vertices = (0..3)
            .filter(|&k| !cur.index.contains_key(&key(local[k], f.colours[k])))
            .count();
        if cur.vertices.len() + new_vertices > MAX_MODEL_VERTICES
            || cur.faces.len() >= usize::from(u16::MAX)
        {
            out.push(std::mem::take(&mut cur).finish());
        }
        let mut idx = [0u16; 3];
        for k in 0..3 {
            idx[k] = cur.vertex(local[k], f.colours[k]);
        }
        cur.faces.push(Face {
            flags: f.flags,
            indices: idx,
            texture: f.texture,
            unknown_0a: 0,
            normal,
            d,
        });
        cur.states.push(f.state);
    }
    if !cur.faces.is_empty() {
        out.push(cur.finish());
    }
    (out, degenerate)
}

type Key = ([u32; 3], u32);

fn key(p: [f32; 3], colour: u32) -> Key {
    (p.map(f32::to_bits), colour)
}

#[derive(Default)]
struct Builder {
    vertices: Vec<Vertex>,
    colours: Vec<u32>,
    faces: Vec<Face>,
    states: Vec<u32>,
    index: HashMap<Key, u16>,
}

impl Builder {
    fn vertex(&mut self, p: [f32; 3], colour: u32) -> u16 {
        let next = self.vertices.len() as u16; // at most MAX_MODEL_VERTICES, checked above
        let vertices = &mut self.vertices;
        let colours = &mut self.colours;
        *self.index.entry(key(p, colour)).or_insert_with(|| {
            vertices.push(Vertex {
                pos: p,
                normal: [0.0, 1.0, 0.0],
            });
            colours.push(colour);
            next
        })
    }

    fn finish(mut self) -> CellModel {
        author::smooth_normals(&mut self.vertices, &self.faces);
        author::set_batch_flags(&mut self.faces, &self.states);
        let mut model = Model {
            vertices: self.vertices,
            faces: self.faces,
            ..Model::default()
        };
        model.sync_header(BOX_MARGIN);
        CellModel {
            model,
            colours: self.colours,
        }
    }
}
