//! The pixel stages: binning triangles to screen tiles, and rasterizing each tile.
//!
//! The image is cut into [`TILE`]×[`TILE`] tiles. Every triangle is listed in each tile its
//! pixel bounding box touches, opaque and masked triangles in scene order, blended ones after
//! them in back-to-front order (view depth of the source triangle's centroid, farthest first,
//! ties by scene order). Each tile is then drawn by one rayon task, with its own colour and
//! depth buffers, in that fixed order, so the bytes never depend on the number of threads.
//!
//! Coverage is decided exactly, on integer edge functions over 1/256-pixel fixed-point vertex
//! positions, sampling at pixel centres, with the top-left fill rule: a pixel centre on an edge
//! belongs to the triangle to whose interior the edge is a top or left edge. Two triangles
//! sharing an edge therefore cover every pixel along it exactly once.

use rayon::prelude::*;

use crate::pipeline::{Mat, Mode, Setup, Tri, MIN_ALPHA, SUBPIXEL_BITS};

/// Tile edge length in pixels.
pub(crate) const TILE: u32 = 64;
const SUB: i64 = 1 << SUBPIXEL_BITS;

/// Rasterize all triangles into an RGBA8 image of `width × height` over `background`.
pub(crate) fn rasterize(
    setup: &Setup,
    mats: &[Mat<'_>],
    width: u32,
    height: u32,
    background: [u8; 4],
) -> Vec<u8> {
    let tris = &setup.tris;
    let nx = width.div_ceil(TILE) as usize;
    let ny = height.div_ceil(TILE) as usize;
    let mut blend: Vec<u32> = Vec::new();
    let mut opaque: Vec<Vec<u32>> = vec![Vec::new(); nx * ny];
    for (i, t) in tris.iter().enumerate() {
        if mats[t.mat as usize].mode == Mode::Blend {
            blend.push(i as u32);
        } else {
            bin(&mut opaque, nx, t, i as u32);
        }
    }
    // Back to front; ties (and NaN, ordered by total_cmp) by scene order.
    blend.sort_by(|&a, &b| {
        let (da, db) = (tris[a as usize].depth, tris[b as usize].depth);
        db.total_cmp(&da).then(a.cmp(&b))
    });
    let mut blended: Vec<Vec<u32>> = vec![Vec::new(); nx * ny];
    for &i in &blend {
        bin(&mut blended, nx, &tris[i as usize], i);
    }
    let bg = background.map(|b| f32::from(b) / 255.0);
    let tiles: Vec<Vec<u8>> = (0..nx * ny)
        .into_par_iter()
        .map(|k| {
            let rect = tile_rect(k, nx, width, height);
            draw_tile(rect, tris, &opaque[k], &blended[k], mats, bg, background[3])
        })
        .collect();
    let row_bytes = width as usize * 4;
    let mut pixels = vec![0u8; row_bytes * height as usize];
    for (k, tile) in tiles.iter().enumerate() {
        let [x0, y0, x1, _] = tile_rect(k, nx, width, height);
        let tw = (x1 - x0 + 1) as usize * 4;
        for (r, src) in tile.chunks_exact(tw).enumerate() {
            let o = (y0 as usize + r) * row_bytes + x0 as usize * 4;
            pixels[o..o + tw].copy_from_slice(src);
        }
    }
    pixels
}

fn bin(bins: &mut [Vec<u32>], nx: usize, t: &Tri, i: u32) {
    let [x0, y0, x1, y1] = t.bbox.map(|v| v as u32 / TILE);
    for ty in y0..=y1 {
        for tx in x0..=x1 {
            bins[ty as usize * nx + tx as usize].push(i);
        }
    }
}

/// Inclusive pixel rectangle of tile `k`: x0, y0, x1, y1.
fn tile_rect(k: usize, nx: usize, width: u32, height: u32) -> [i32; 4] {
    let (tx, ty) = ((k % nx) as u32, (k / nx) as u32);
    let (x0, y0) = (tx * TILE, ty * TILE);
    let x1 = (x0 + TILE).min(width) - 1;
    let y1 = (y0 + TILE).min(height) - 1;
    [x0 as i32, y0 as i32, x1 as i32, y1 as i32]
}

fn draw_tile(
    rect: [i32; 4],
    tris: &[Tri],
    opaque: &[u32],
    blend: &[u32],
    mats: &[Mat<'_>],
    bg: [f32; 4],
    bg_alpha: u8,
) -> Vec<u8> {
    let tw = (rect[2] - rect[0] + 1) as usize;
    let th = (rect[3] - rect[1] + 1) as usize;
    let mut buf = Buffers {
        color: vec![[bg[0], bg[1], bg[2]]; tw * th],
        depth: vec![f32::INFINITY; tw * th],
        rect,
        tw,
    };
    for &i in opaque.iter().chain(blend) {
        let t = &tris[i as usize];
        draw_tri(t, &mats[t.mat as usize], &mut buf);
    }
    let mut out = Vec::with_capacity(tw * th * 4);
    for c in &buf.color {
        out.extend(c.map(to_byte));
        out.push(bg_alpha);
    }
    out
}

/// A 0..1 value as a byte, rounded to nearest.
fn to_byte(v: f32) -> u8 {
    (v.clamp(0.0, 1.0) * 255.0 + 0.5) as u8
}

struct Buffers {
    color: Vec<[f32; 3]>,
    depth: Vec<f32>,
    rect: [i32; 4],
    tw: usize,
}

/// One edge function `E(p) = dx·(p.y − a.y) − dy·(p.x − a.x)` stepped across the tile.
#[derive(Clone, Copy)]
struct Edge {
    row: i64,
    step_x: i64,
    step_y: i64,
    bias: i64,
}

fn draw_tri(t: &Tri, m: &Mat<'_>, buf: &mut Buffers) {
    let [rx0, ry0, rx1, ry1] = buf.rect;
    let x0 = t.bbox[0].max(rx0);
    let y0 = t.bbox[1].max(ry0);
    let x1 = t.bbox[2].min(rx1);
    let y1 = t.bbox[3].min(ry1);
    if x0 > x1 || y0 > y1 {
        return;
    }
    let area = (t.x[1] - t.x[0]) * (t.y[2] - t.y[0]) - (t.y[1] - t.y[0]) * (t.x[2] - t.x[0]);
    if area <= 0 {
        return;
    }
    let inv_area = 1.0 / area as f32;
    let px = i64::from(x0) * SUB + SUB / 2;
    let py = i64::from(y0) * SUB + SUB / 2;
    // Edge k is opposite vertex k, so its value is vertex k's (unnormalised) barycentric weight.
    let edge = |k: usize| {
        let (a, b) = ((k + 1) % 3, (k + 2) % 3);
        let dx = t.x[b] - t.x[a];
        let dy = t.y[b] - t.y[a];
        // Interior is E > 0; a left edge goes up the screen (dy < 0), a top edge is horizontal
        // going right (interior below it). Pixel centres exactly on other edges are left out.
        let top_left = dy < 0 || (dy == 0 && dx > 0);
        Edge {
            row: dx * (py - t.y[a]) - dy * (px - t.x[a]),
            step_x: -dy * SUB,
            step_y: dx * SUB,
            bias: if top_left { 0 } else { -1 },
        }
    };
    let mut e = [edge(0), edge(1), edge(2)];
    let tex = m.tex;
    let shade = t.shade;
    for yy in y0..=y1 {
        let mut w = [e[0].row, e[1].row, e[2].row];
        let line = (yy - ry0) as usize * buf.tw;
        for xx in x0..=x1 {
            if (w[0] + e[0].bias) | (w[1] + e[1].bias) | (w[2] + e[2].bias) >= 0 {
                let l1 = w[1] as f32 * inv_area;
                let l2 = w[2] as f32 * inv_area;
                let z = t.z0 + l1 * t.dz[0] + l2 * t.dz[1];
                let idx = line + (xx - rx0) as usize;
                if z < buf.depth[idx] {
                    let iw = t.iw0 + l1 * t.diw[0] + l2 * t.diw[1];
                    let pw = 1.0 / iw;
                    let at = |k: usize| (t.a0[k] + l1 * t.da1[k] + l2 * t.da2[k]) * pw;
                    let mut c = [
                        m.base[0] * at(2),
                        m.base[1] * at(3),
                        m.base[2] * at(4),
                        m.base[3] * at(5),
                    ];
                    if let Some(tx) = tex {
                        let u = ((at(0) * tx.w as f32).floor() as i32).rem_euclid(tx.w);
                        let v = ((at(1) * tx.h as f32).floor() as i32).rem_euclid(tx.h);
                        let o = (v as usize * tx.w as usize + u as usize) * 4;
                        let p = &tx.px[o..o + 4];
                        for (ck, pk) in c.iter_mut().zip(p) {
                            *ck *= f32::from(*pk) * (1.0 / 255.0);
                        }
                    }
                    let rgb = [c[0] * shade, c[1] * shade, c[2] * shade];
                    match m.mode {
                        Mode::Opaque => {
                            buf.color[idx] = rgb;
                            buf.depth[idx] = z;
                        }
                        Mode::Mask(cut) => {
                            if c[3] >= cut {
                                buf.color[idx] = rgb;
                                buf.depth[idx] = z;
                            }
                        }
                        Mode::Blend => {
                            if c[3] >= MIN_ALPHA {
                                let a = c[3].min(1.0);
                                let d = &mut buf.color[idx];
                                for k in 0..3 {
                                    d[k] = rgb[k] * a + d[k] * (1.0 - a);
                                }
                            }
                        }
                    }
                }
            }
            w[0] += e[0].step_x;
            w[1] += e[1].step_x;
            w[2] += e[2].step_x;
        }
        for ek in &mut e {
            ek.row += ek.step_y;
        }
    }
}
