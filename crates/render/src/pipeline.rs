//! The geometry stages: which primitives are drawn, world and clip transforms, clipping,
//! culling, projection to fixed-point screen coordinates, and triangle setup.
//!
//! Everything here runs per draw item (a primitive placed by a node) and produces triangles in
//! scene order: items in depth-first node order (roots, then children, in the order the scene
//! lists them), triangles in index order, clipped pieces in fan order. Work is split over items
//! with rayon and collected in that order, so the result never depends on scheduling.

use glam::{Mat4, Vec3, Vec4};
use levelgeom_scene::{AlphaMode, Material, Primitive, Scene, TextureSource, Topology};
use rayon::prelude::*;

/// Sub-pixel precision of screen coordinates: 1/256 pixel.
pub(crate) const SUBPIXEL_BITS: u32 = 8;
const SUB: i64 = 1 << SUBPIXEL_BITS;
/// Guard band: geometry is clipped to `|x|, |y| ≤ GUARD · w` besides the near and far planes,
/// which keeps screen coordinates small enough for exact 64-bit edge functions.
const GUARD: f32 = 2.0;

/// A primitive placed in the world by its node's world matrix.
pub(crate) struct DrawItem<'a> {
    pub prim: &'a Primitive,
    pub matrix: Mat4,
}

/// Which nodes [`draw_items`] lists.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Which {
    /// Those that are not hidden nor under a hidden node.
    Visible,
    /// Every node.
    All,
    /// Only the hidden nodes and those under them (a WAD's or X-Ray's `collision` tree).
    Hidden,
}

impl Which {
    /// [`Which::All`] when `show_hidden`, else [`Which::Visible`].
    pub(crate) fn from_show_hidden(show_hidden: bool) -> Which {
        if show_hidden {
            Which::All
        } else {
            Which::Visible
        }
    }
}

/// The primitives to draw, in depth-first node order, of the nodes `which` says. A node
/// reachable twice is drawn once (as [`Scene::world_matrices`] places it).
pub(crate) fn draw_items(scene: &Scene, which: Which) -> Vec<DrawItem<'_>> {
    let worlds = scene.world_matrices();
    let n = scene.nodes.len();
    let mut seen = vec![false; n];
    // (node, under a hidden node)
    let mut stack: Vec<(usize, bool)> = scene.roots.iter().rev().map(|&r| (r, false)).collect();
    let mut items = Vec::new();
    while let Some((i, above_hidden)) = stack.pop() {
        if i >= n || seen[i] {
            continue;
        }
        seen[i] = true;
        let node = &scene.nodes[i];
        let hidden = above_hidden || node.hidden;
        if hidden && which == Which::Visible {
            continue;
        }
        let drawn = which == Which::All || hidden == (which == Which::Hidden);
        if let Some(mesh) = node
            .mesh
            .and_then(|m| scene.meshes.get(m))
            .filter(|_| drawn)
        {
            let matrix = Mat4::from_cols_array(&worlds[i]);
            for prim in &mesh.primitives {
                // line primitives (routes, paths) are not drawn: triangles only
                if prim.topology == Topology::Triangles
                    && prim.indices.len() >= 3
                    && !prim.positions.is_empty()
                {
                    items.push(DrawItem { prim, matrix });
                }
            }
        }
        stack.extend(node.children.iter().rev().map(|&c| (c, hidden)));
    }
    items
}

/// How a material treats alpha, as the rasterizer needs it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Mode {
    Opaque,
    /// Discard below this alpha (never below 0.5/255, so alpha 0 always goes).
    Mask(f32),
    Blend,
}

/// A decoded RGBA8 texture.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Tex<'a> {
    pub w: i32,
    pub h: i32,
    pub px: &'a [u8],
}

/// A material resolved for drawing.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Mat<'a> {
    pub base: [f32; 4],
    pub tex: Option<Tex<'a>>,
    pub mode: Mode,
    pub double_sided: bool,
    /// Face-normal shading applies (lit materials, and any whose texture is not decoded).
    pub shaded: bool,
}

/// Smallest alpha that paints (blend) or survives a mask: half a step of 8 bits.
pub(crate) const MIN_ALPHA: f32 = 0.5 / 255.0;

fn resolve<'a>(scene: &'a Scene, m: &Material) -> Mat<'a> {
    let tex = m
        .texture
        .and_then(|t| scene.textures.get(t))
        .and_then(|t| match &t.source {
            TextureSource::Rgba8 {
                width,
                height,
                pixels,
            } => {
                let (w, h) = (i32::try_from(*width).ok()?, i32::try_from(*height).ok()?);
                let len = usize::try_from(*width)
                    .ok()?
                    .checked_mul(usize::try_from(*height).ok()?)?
                    .checked_mul(4)?;
                (w > 0 && h > 0 && pixels.len() >= len).then_some(Tex { w, h, px: pixels })
            }
            TextureSource::External { .. } | TextureSource::Unresolved { .. } => None,
        });
    let mode = match m.alpha {
        AlphaMode::Opaque => Mode::Opaque,
        AlphaMode::Mask(c) => Mode::Mask(if c.is_nan() { 0.5 } else { c.max(MIN_ALPHA) }),
        AlphaMode::Blend => Mode::Blend,
    };
    // A texture that exists but is not decoded (an X-Ray `External`/`Unresolved` one) would
    // have given the surface its detail; shade it so the shapes still read.
    let undecoded = m.texture.is_some() && tex.is_none();
    Mat {
        base: m.base_color,
        tex,
        mode,
        double_sided: m.double_sided,
        shaded: !m.unlit || undecoded,
    }
}

/// The scene's materials resolved, plus the default material (index `materials.len()`) for
/// primitives without one or with an index out of range.
pub(crate) fn materials(scene: &Scene) -> Vec<Mat<'_>> {
    let default = Material::default();
    let mut out: Vec<Mat<'_>> = scene.materials.iter().map(|m| resolve(scene, m)).collect();
    let d = resolve(scene, &default);
    out.push(Mat {
        tex: None,
        shaded: true,
        ..d
    });
    out
}

/// Fixed light direction (towards the light) of the face-normal shading.
pub(crate) fn light_dir() -> Vec3 {
    Vec3::from_array(crate::LIGHT_DIR).normalize()
}

/// Interpolated attributes: u, v, r, g, b, a.
const NA: usize = 6;

/// A triangle ready for rasterization: counter-clockwise on screen as y grows downwards
/// (positive edge-function area), with its attributes divided by w.
#[derive(Clone, Debug)]
pub(crate) struct Tri {
    /// Fixed-point screen x (1/256 pixel, origin at the image's top-left corner).
    pub x: [i64; 3],
    /// Fixed-point screen y.
    pub y: [i64; 3],
    /// NDC depth at vertex 0 and its differences to vertices 1 and 2.
    pub z0: f32,
    pub dz: [f32; 2],
    /// 1/w at vertex 0 and differences.
    pub iw0: f32,
    pub diw: [f32; 2],
    /// attributes/w at vertex 0 and differences to vertices 1 and 2.
    pub a0: [f32; NA],
    pub da1: [f32; NA],
    pub da2: [f32; NA],
    /// Material index into [`materials`].
    pub mat: u32,
    /// Shading factor applied to the colour (1 when not shaded).
    pub shade: f32,
    /// View-space depth of the source triangle's centroid (sort key for blending).
    pub depth: f32,
    /// Pixel bounding box, inclusive, clamped to the image: x0, y0, x1, y1.
    pub bbox: [i32; 4],
}

/// A clip-space vertex with its attributes.
#[derive(Clone, Copy, Debug)]
struct Cv {
    c: Vec4,
    a: [f32; NA],
}

const PLANES: [Vec4; 6] = [
    Vec4::new(0.0, 0.0, 1.0, 0.0),    // near: z ≥ 0
    Vec4::new(0.0, 0.0, -1.0, 1.0),   // far: z ≤ w
    Vec4::new(1.0, 0.0, 0.0, GUARD),  // x ≥ −G·w
    Vec4::new(-1.0, 0.0, 0.0, GUARD), // x ≤ G·w
    Vec4::new(0.0, 1.0, 0.0, GUARD),  // y ≥ −G·w
    Vec4::new(0.0, -1.0, 0.0, GUARD), // y ≤ G·w
];

fn outcode(c: Vec4) -> u8 {
    let mut m = 0u8;
    for (k, p) in PLANES.iter().enumerate() {
        // NaN counts as outside.
        if p.dot(c).is_nan() || p.dot(c) < 0.0 {
            m |= 1 << k;
        }
    }
    m
}

/// Lexicographic order of the clip coordinates, so that an edge shared by two triangles is
/// cut at bit-identical points whichever way round each triangle walks it.
fn before(a: &Cv, b: &Cv) -> bool {
    a.c.to_array()
        .iter()
        .zip(b.c.to_array().iter())
        .map(|(x, y)| x.total_cmp(y))
        .find(|o| o.is_ne())
        .is_some_and(|o| o.is_lt())
}

fn intersect(a: &Cv, b: &Cv, plane: Vec4) -> Cv {
    let (p, q) = if before(a, b) { (a, b) } else { (b, a) };
    let dp = plane.dot(p.c);
    let dq = plane.dot(q.c);
    let t = dp / (dp - dq);
    let mut out = Cv {
        c: p.c + (q.c - p.c) * t,
        a: [0.0; NA],
    };
    for k in 0..NA {
        out.a[k] = p.a[k] + (q.a[k] - p.a[k]) * t;
    }
    out
}

/// A small fixed-capacity polygon (a triangle clipped by 6 planes has at most 9 corners).
struct Poly {
    v: [Cv; 12],
    n: usize,
}

impl Poly {
    fn push(&mut self, v: Cv) {
        if self.n < self.v.len() {
            self.v[self.n] = v;
            self.n += 1;
        }
    }
}

/// Sutherland–Hodgman against the planes flagged in `mask`.
fn clip(tri: [Cv; 3], mask: u8) -> Poly {
    let empty = Cv {
        c: Vec4::ZERO,
        a: [0.0; NA],
    };
    let mut cur = Poly {
        v: [empty; 12],
        n: 0,
    };
    for v in tri {
        cur.push(v);
    }
    for (k, plane) in PLANES.iter().enumerate() {
        if mask & (1 << k) == 0 {
            continue;
        }
        let mut next = Poly {
            v: [empty; 12],
            n: 0,
        };
        for i in 0..cur.n {
            let a = cur.v[i];
            let b = cur.v[(i + 1) % cur.n];
            let (da, db) = (plane.dot(a.c), plane.dot(b.c));
            let (ina, inb) = (da >= 0.0, db >= 0.0);
            if ina {
                next.push(a);
            }
            if ina != inb {
                next.push(intersect(&a, &b, *plane));
            }
        }
        cur = next;
        if cur.n < 3 {
            cur.n = 0;
            break;
        }
    }
    cur
}

/// A vertex projected to the screen.
#[derive(Clone, Copy, Debug)]
struct Sv {
    x: i64,
    y: i64,
    z: f32,
    iw: f32,
    a: [f32; NA],
}

fn project(v: &Cv, w: f32, h: f32) -> Option<Sv> {
    if v.c.w.is_nan() || v.c.w <= 0.0 {
        return None;
    }
    let iw = 1.0 / v.c.w;
    let sx = (v.c.x * iw * 0.5 + 0.5) * w;
    let sy = (0.5 - v.c.y * iw * 0.5) * h;
    let (fx, fy) = ((sx * SUB as f32).round(), (sy * SUB as f32).round());
    if !(fx.is_finite() && fy.is_finite()) {
        return None;
    }
    let mut a = v.a;
    for x in &mut a {
        *x *= iw;
    }
    Some(Sv {
        x: fx as i64,
        y: fy as i64,
        z: v.c.z * iw,
        iw,
        a,
    })
}

fn ceil_div(n: i64, d: i64) -> i64 {
    -((-n).div_euclid(d))
}

/// Geometry stage output for the whole scene.
pub(crate) struct Setup {
    /// All triangles in scene order.
    pub tris: Vec<Tri>,
}

/// Everything the triangle stage needs besides the item.
struct Ctx<'m> {
    mats: &'m [Mat<'m>],
    view_proj: Mat4,
    view: Mat4,
    width: u32,
    height: u32,
    light: Vec3,
    /// Leave the vertex colours out (white), as the overlay's flat colour wants.
    no_vertex_colours: bool,
}

/// Run the geometry stages over all items (in parallel, collected in order); with
/// `no_vertex_colours` every vertex is white.
pub(crate) fn setup(
    items: &[DrawItem<'_>],
    mats: &[Mat<'_>],
    camera: &crate::Camera,
    (width, height): (u32, u32),
    no_vertex_colours: bool,
) -> Setup {
    let ctx = Ctx {
        mats,
        view_proj: camera.view_proj(),
        view: camera.view,
        width,
        height,
        light: light_dir(),
        no_vertex_colours,
    };
    let per_item: Vec<Vec<Tri>> = items.par_iter().map(|it| setup_item(it, &ctx)).collect();
    let mut tris = Vec::with_capacity(per_item.iter().map(Vec::len).sum());
    for t in per_item {
        tris.extend(t);
    }
    Setup { tris }
}

fn setup_item(item: &DrawItem<'_>, ctx: &Ctx<'_>) -> Vec<Tri> {
    let prim = item.prim;
    let nv = prim.positions.len();
    let mat_index = prim
        .material
        .filter(|&m| m < ctx.mats.len() - 1)
        .unwrap_or(ctx.mats.len() - 1);
    let mat = &ctx.mats[mat_index];
    let world: Vec<Vec3> = prim
        .positions
        .iter()
        .map(|p| item.matrix.transform_point3(Vec3::from_array(*p)))
        .collect();
    let clip: Vec<Vec4> = world
        .iter()
        .map(|p| ctx.view_proj * p.extend(1.0))
        .collect();
    let codes: Vec<u8> = clip.iter().map(|c| outcode(*c)).collect();
    let uvs = prim.uvs.first().filter(|u| u.len() == nv);
    let colors = prim
        .colors
        .first()
        .filter(|c| c.len() == nv && !ctx.no_vertex_colours);
    let attr = |i: usize| -> [f32; NA] {
        let uv = uvs.map_or([0.0, 0.0], |u| u[i]);
        let c = colors.map_or([1.0; 4], |c| c[i]);
        [uv[0], uv[1], c[0], c[1], c[2], c[3]]
    };
    let (w, h) = (ctx.width as f32, ctx.height as f32);
    let (wi, hi) = (ctx.width as i64 - 1, ctx.height as i64 - 1);
    let blend = mat.mode == Mode::Blend;
    let mut out = Vec::new();
    for t in prim.indices.chunks_exact(3) {
        let ids = [t[0] as usize, t[1] as usize, t[2] as usize];
        if ids.iter().any(|&i| i >= nv) {
            continue;
        }
        let (c0, c1, c2) = (codes[ids[0]], codes[ids[1]], codes[ids[2]]);
        if c0 & c1 & c2 != 0 {
            continue; // wholly outside one plane
        }
        let cvs = ids.map(|i| Cv {
            c: clip[i],
            a: attr(i),
        });
        let poly = clip_or_keep(cvs, c0 | c1 | c2);
        if poly.n < 3 {
            continue;
        }
        let mut sv = [Sv {
            x: 0,
            y: 0,
            z: 0.0,
            iw: 0.0,
            a: [0.0; NA],
        }; 12];
        let mut ok = true;
        for (s, v) in sv.iter_mut().zip(&poly.v[..poly.n]) {
            match project(v, w, h) {
                Some(p) => *s = p,
                None => ok = false,
            }
        }
        if !ok {
            continue;
        }
        let (p0, p1, p2) = (world[ids[0]], world[ids[1]], world[ids[2]]);
        let (front_shade, back_shade) = if mat.shaded {
            let n = (p1 - p0).cross(p2 - p0).normalize_or_zero();
            let d = n.dot(ctx.light);
            (
                crate::AMBIENT + crate::DIFFUSE * d.max(0.0),
                crate::AMBIENT + crate::DIFFUSE * (-d).max(0.0),
            )
        } else {
            (1.0, 1.0)
        };
        let depth = if blend {
            let c = (p0 + p1 + p2) / 3.0;
            -(ctx.view * c.extend(1.0)).z
        } else {
            0.0
        };
        for k in 1..poly.n - 1 {
            let (a, mut b, mut c) = (sv[0], sv[k], sv[k + 1]);
            let area = (b.x - a.x) * (c.y - a.y) - (b.y - a.y) * (c.x - a.x);
            if area == 0 {
                continue;
            }
            // y grows downwards on screen, so a counter-clockwise (front) face has area < 0.
            let front = area < 0;
            if !front && !mat.double_sided {
                continue;
            }
            if front {
                std::mem::swap(&mut b, &mut c);
            }
            let min_x = a.x.min(b.x).min(c.x);
            let max_x = a.x.max(b.x).max(c.x);
            let min_y = a.y.min(b.y).min(c.y);
            let max_y = a.y.max(b.y).max(c.y);
            // pixel i's centre is at (i + 0.5) pixels
            let x0 = ceil_div(min_x - SUB / 2, SUB).max(0);
            let x1 = (max_x - SUB / 2).div_euclid(SUB).min(wi);
            let y0 = ceil_div(min_y - SUB / 2, SUB).max(0);
            let y1 = (max_y - SUB / 2).div_euclid(SUB).min(hi);
            if x0 > x1 || y0 > y1 {
                continue;
            }
            let mut da1 = [0.0; NA];
            let mut da2 = [0.0; NA];
            for i in 0..NA {
                da1[i] = b.a[i] - a.a[i];
                da2[i] = c.a[i] - a.a[i];
            }
            out.push(Tri {
                x: [a.x, b.x, c.x],
                y: [a.y, b.y, c.y],
                z0: a.z,
                dz: [b.z - a.z, c.z - a.z],
                iw0: a.iw,
                diw: [b.iw - a.iw, c.iw - a.iw],
                a0: a.a,
                da1,
                da2,
                mat: mat_index as u32,
                shade: if front { front_shade } else { back_shade },
                depth,
                bbox: [x0 as i32, y0 as i32, x1 as i32, y1 as i32],
            });
        }
    }
    out
}

fn clip_or_keep(cvs: [Cv; 3], any_out: u8) -> Poly {
    if any_out == 0 {
        let mut p = Poly {
            v: [cvs[0]; 12],
            n: 0,
        };
        for v in cvs {
            p.push(v);
        }
        p
    } else {
        clip(cvs, any_out)
    }
}
