//! A CPU software rasterizer for [`levelgeom_scene::Scene`]: previews of levels as RGBA8
//! images and PNG files, with no GPU and no window.
//!
//! # Example
//!
//! ```
//! use levelgeom_render::{render, RenderOptions, View};
//! use levelgeom_scene::Scene;
//!
//! let scene = Scene::default(); // an empty scene renders as background only
//! let image = render(&scene, &RenderOptions { width: 64, height: 48, view: View::Top, show_hidden: false });
//! assert_eq!(image.pixel(0, 0), levelgeom_render::BACKGROUND);
//! let png: Vec<u8> = image.to_png().unwrap();
//! assert_eq!(&png[1..4], b"PNG");
//! ```
//!
//! # API structure
//! * [`render`]: a scene with one of the fitted [`View`]s ([`Camera::for_view`] over
//!   [`bounds`]).
//! * [`render_with_camera`]: a scene through any [`Camera`] (a glam view and projection).
//! * [`render_overlay`]: as [`render`], with the hidden geometry (the collision) tinted over
//!   the visible one, so that collision under the level's surfaces can be seen.
//! * [`Image`]: the RGBA8 result, [`Image::to_png`] encodes it.
//!
//! # What is drawn
//! * The nodes reachable from [`Scene::roots`], each primitive placed by its node's world
//!   matrix ([`Scene::world_matrices`]). Hidden nodes and everything under them (e.g. a WAD's
//!   `collision` tree) are left out unless [`RenderOptions::show_hidden`].
//! * Z-buffered triangles (nearest wins; at equal depth the first drawn), clipped against the
//!   near and far planes (a triangle crossing the near plane is cut, never wrapped around).
//!   Line primitives ([`levelgeom_scene::Topology::Lines`], e.g. WAD routes) are not drawn and
//!   do not count towards the camera's bounds.
//! * Back faces are culled unless the material is double-sided; front faces are the
//!   counter-clockwise ones (the scene's and glTF's convention).
//! * Colour = base colour × vertex colour (`COLOR` set 0; white without it) × texel. Texels are
//!   looked up perspective-correct, nearest texel, coordinates wrapping (repeat), from
//!   `TEXCOORD` set 0. Colours are used as they are (display values 0..1, no sRGB conversion).
//! * Alpha (the product of the three alphas): ignored for [`AlphaMode::Opaque`]; for
//!   [`AlphaMode::Mask`] pixels below the cutoff are discarded (alpha 0 always is);
//!   [`AlphaMode::Blend`] triangles are drawn after all others, back to front by the view depth
//!   of their centroid (ties in scene order), blended `src·a + dst·(1 − a)`, depth-tested but
//!   not writing depth, and pixels with alpha below 0.5/255 do not paint at all (so an
//!   invisible water plane hides nothing).
//! * Shading: materials that are `unlit` and whose texture (if any) is decoded are drawn as
//!   they are. Lit materials, and any material whose texture is not decoded RGBA8 (X-Ray's
//!   `External`/`Unresolved` textures: drawn in base colour × vertex colour, untextured) are
//!   multiplied by `AMBIENT + DIFFUSE · max(0, n · LIGHT_DIR)`, `n` the face normal on the
//!   side seen, so levels without textures still read as shapes.
//! * The background is [`BACKGROUND`]; every output pixel has alpha 255.
//!
//! # Determinism
//! The same scene and options give the same bytes on any number of threads: the work is split
//! with rayon into vertex work per primitive (collected in order) and pixel work per 64×64
//! screen tile, each tile drawn by one task from a triangle list in a fixed order.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod camera;
mod pipeline;
mod raster;

use std::fmt;
use std::str::FromStr;

pub use camera::{bounds, Camera, ELEVATION_DEG, FOV_Y_DEG, TOP_MARGIN};
/// The glam version [`Camera`] is built from, for callers placing their own cameras.
pub use glam;
use levelgeom_scene::Scene;

#[cfg(doc)]
use levelgeom_scene::AlphaMode;

/// Background colour, RGBA8: a light grey-blue sky.
pub const BACKGROUND: [u8; 4] = [158, 178, 200, 255];
/// Direction towards the light of the face-normal shading (normalised before use): from above,
/// slightly towards +x and +z, so the faces the [`View::Persp`] camera sees are lit differently.
pub const LIGHT_DIR: [f32; 3] = [0.3, 1.0, 0.5];
/// Shading floor: a face turned away from the light keeps this fraction of its colour.
pub const AMBIENT: f32 = 0.35;
/// Shading slope: `AMBIENT + DIFFUSE · max(0, n · l)`.
pub const DIFFUSE: f32 = 0.65;

/// The fitted cameras of [`render`] (all fitted to [`bounds`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum View {
    /// A map: orthographic straight down, +x right, −z up ([`Camera::top`]).
    Top,
    /// Perspective from above the (+x, +z) corner, 35° elevation, 45° vertical field of view,
    /// the bounding sphere in frame ([`Camera::persp`]).
    #[default]
    Persp,
    /// Orthographic from the same direction as `Persp` ([`Camera::iso`]).
    Iso,
}

impl View {
    /// All views, in the order the CLI lists them.
    pub const ALL: [View; 3] = [View::Top, View::Persp, View::Iso];

    /// The view's name: `top`, `persp` or `iso`.
    pub fn name(self) -> &'static str {
        match self {
            View::Top => "top",
            View::Persp => "persp",
            View::Iso => "iso",
        }
    }
}

impl fmt::Display for View {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for View {
    type Err = RenderError;

    fn from_str(s: &str) -> Result<View, RenderError> {
        View::ALL
            .into_iter()
            .find(|v| v.name() == s)
            .ok_or_else(|| RenderError::UnknownView(s.to_string()))
    }
}

/// What to render.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RenderOptions {
    /// Image width in pixels (up to 16384).
    pub width: u32,
    /// Image height in pixels (up to 16384).
    pub height: u32,
    /// The camera [`render`] fits (ignored by [`render_with_camera`]).
    pub view: View,
    /// Also draw hidden nodes and their subtrees (and count them in the fit).
    pub show_hidden: bool,
}

impl Default for RenderOptions {
    /// 1024×768, [`View::Persp`], hidden nodes not drawn.
    fn default() -> Self {
        RenderOptions {
            width: 1024,
            height: 768,
            view: View::Persp,
            show_hidden: false,
        }
    }
}

/// Largest width or height rendered; larger values are clamped to it.
pub const MAX_SIZE: u32 = 16384;

/// A rendered picture.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Image {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// RGBA8, row-major from the top-left corner, `width * height * 4` bytes.
    pub pixels: Vec<u8>,
}

impl Image {
    /// The RGBA of pixel `(x, y)` (from the top-left).
    ///
    /// # Panics
    /// When `(x, y)` is outside the image.
    pub fn pixel(&self, x: u32, y: u32) -> [u8; 4] {
        assert!(
            x < self.width && y < self.height,
            "pixel ({x}, {y}) outside the image"
        );
        let o = (y as usize * self.width as usize + x as usize) * 4;
        [
            self.pixels[o],
            self.pixels[o + 1],
            self.pixels[o + 2],
            self.pixels[o + 3],
        ]
    }

    /// Encode as an 8-bit RGBA PNG (deterministic bytes).
    ///
    /// # Errors
    /// [`RenderError::Png`] when the encoder refuses the image (e.g. zero width or height).
    pub fn to_png(&self) -> Result<Vec<u8>, RenderError> {
        let mut out = Vec::new();
        {
            let mut enc = png::Encoder::new(&mut out, self.width, self.height);
            enc.set_color(png::ColorType::Rgba);
            enc.set_depth(png::BitDepth::Eight);
            let mut w = enc.write_header()?;
            w.write_image_data(&self.pixels)?;
            w.finish()?;
        }
        Ok(out)
    }
}

/// What can go wrong around rendering (rendering itself cannot fail).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RenderError {
    /// PNG encoding failed.
    #[error("PNG encoding failed: {0}")]
    Png(#[from] png::EncodingError),
    /// A view name that is not `top`, `persp` or `iso`.
    #[error("unknown view {0:?} (expected top, persp or iso)")]
    UnknownView(String),
}

/// Render `scene` with the camera of `opts.view` fitted to the drawn geometry's [`bounds`]
/// ([`Camera::for_view`]; a scene with nothing to draw gives the background only).
pub fn render(scene: &Scene, opts: &RenderOptions) -> Image {
    let (w, h) = (opts.width.min(MAX_SIZE), opts.height.min(MAX_SIZE));
    let (lo, hi) = bounds(scene, opts.show_hidden)
        .unwrap_or((glam::Vec3::splat(-1.0), glam::Vec3::splat(1.0)));
    let camera = Camera::for_view(opts.view, lo, hi, w, h);
    render_with_camera(scene, &camera, opts)
}

/// Render `scene` through `camera` (`opts.view` is not used).
pub fn render_with_camera(scene: &Scene, camera: &Camera, opts: &RenderOptions) -> Image {
    let (w, h) = (opts.width.min(MAX_SIZE), opts.height.min(MAX_SIZE));
    if w == 0 || h == 0 {
        return Image {
            width: w,
            height: h,
            pixels: Vec::new(),
        };
    }
    let items = pipeline::draw_items(scene, pipeline::Which::from_show_hidden(opts.show_hidden));
    let mats = pipeline::materials(scene);
    let setup = pipeline::setup(&items, &mats, camera, (w, h), false);
    let pixels = raster::rasterize(&setup, &mats, w, h, BACKGROUND);
    Image {
        width: w,
        height: h,
        pixels,
    }
}

/// The colour of the hidden geometry [`render_overlay`] tints over the level (magenta, a colour
/// levels rarely have), before its face shading.
pub const OVERLAY_COLOUR: [f32; 3] = [1.0, 0.2, 0.8];
/// How much of [`OVERLAY_COLOUR`] (shaded) a covered pixel takes: `level·(1 − a) + overlay·a`.
pub const OVERLAY_ALPHA: f32 = 0.6;

/// Render `scene` with its hidden geometry (the `collision` tree) drawn so that it can be seen
/// even where it lies under the level, as collision usually does: the visible nodes are drawn
/// as [`render`] draws them, then every pixel a hidden triangle covers (the nearest one,
/// depth-tested among the hidden triangles only) is tinted towards [`OVERLAY_COLOUR`], shaded
/// by that triangle's facing, by [`OVERLAY_ALPHA`]. The camera of `opts.view` is fitted to all
/// the geometry, visible and hidden; `opts.show_hidden` is not used.
///
/// A scene with nothing visible (an export of the collision alone) is drawn as
/// [`render`] with `show_hidden` draws it: the hidden geometry in its own materials.
pub fn render_overlay(scene: &Scene, opts: &RenderOptions) -> Image {
    let all = RenderOptions {
        show_hidden: true,
        ..*opts
    };
    if bounds(scene, false).is_none() {
        return render(scene, &all);
    }
    let (w, h) = (opts.width.min(MAX_SIZE), opts.height.min(MAX_SIZE));
    let (lo, hi) = bounds(scene, true).unwrap_or((glam::Vec3::splat(-1.0), glam::Vec3::splat(1.0)));
    let camera = Camera::for_view(opts.view, lo, hi, w, h);
    let mut image = render_with_camera(
        scene,
        &camera,
        &RenderOptions {
            show_hidden: false,
            ..*opts
        },
    );
    if w == 0 || h == 0 {
        return image;
    }
    // The hidden geometry alone, every material replaced by one flat, double-sided, shaded
    // colour, over a black background: a covered pixel is never black (its darkest channel is
    // 0.2 · AMBIENT of full), so black marks the pixels no hidden triangle covers.
    let items = pipeline::draw_items(scene, pipeline::Which::Hidden);
    let flat = pipeline::Mat {
        base: [OVERLAY_COLOUR[0], OVERLAY_COLOUR[1], OVERLAY_COLOUR[2], 1.0],
        tex: None,
        mode: pipeline::Mode::Opaque,
        double_sided: true,
        shaded: true,
    };
    let mats = vec![flat; scene.materials.len() + 1];
    let setup = pipeline::setup(&items, &mats, &camera, (w, h), true);
    let over = raster::rasterize(&setup, &mats, w, h, [0, 0, 0, 255]);
    for (px, o) in image.pixels.chunks_exact_mut(4).zip(over.chunks_exact(4)) {
        if o[..3] == [0, 0, 0] {
            continue;
        }
        for (d, &v) in px[..3].iter_mut().zip(&o[..3]) {
            let mixed = f32::from(*d) * (1.0 - OVERLAY_ALPHA) + f32::from(v) * OVERLAY_ALPHA;
            *d = (mixed + 0.5).clamp(0.0, 255.0) as u8;
        }
    }
    image
}
