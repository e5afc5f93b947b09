//! Cameras: a view and a projection matrix, and the three fitted views of [`crate::View`].

use glam::camera::rh::proj::directx::{orthographic, perspective};
use glam::camera::rh::view::{look_at_mat4, look_to_mat4};
use glam::{Mat4, Vec3};
use levelgeom_scene::Scene;

use crate::pipeline;

/// Elevation of the [`crate::View::Persp`] and [`crate::View::Iso`] cameras above the horizon.
pub const ELEVATION_DEG: f32 = 35.0;
/// Vertical field of view of the [`crate::View::Persp`] camera.
pub const FOV_Y_DEG: f32 = 45.0;
/// How much larger than the geometry the [`crate::View::Top`] window is on its tighter axis
/// (the geometry's extent times this fills the image): a margin of about 2.4 % on each side.
pub const TOP_MARGIN: f32 = 1.05;

/// A camera: world → view space (`view`) and view → clip space (`proj`), both glam
/// column-major matrices.
///
/// Conventions (those of glam's `camera::rh` view and `camera::rh::proj::directx` projection functions): view space is right-handed, the camera
/// looks down −Z with +Y up; clip space keeps `0 ≤ z ≤ w` (depth 0 at the near plane, 1 at the
/// far plane) and `−w ≤ x, y ≤ w`, with NDC +x to the right of the image and +y to its top.
/// Geometry outside `0 ≤ z ≤ w` is clipped (triangles that cross the near plane are cut, not
/// dropped). Front faces are the ones that appear counter-clockwise in NDC, i.e. the scene's
/// counter-clockwise faces when the camera is a proper (non-mirroring) one.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Camera {
    /// World → view space.
    pub view: Mat4,
    /// View → clip space.
    pub proj: Mat4,
}

impl Camera {
    /// A camera from its two matrices.
    pub fn new(view: Mat4, proj: Mat4) -> Camera {
        Camera { view, proj }
    }

    /// `proj · view`: world → clip space.
    pub fn view_proj(&self) -> Mat4 {
        self.proj * self.view
    }

    /// The camera of `view` fitted to the bounds `lo..=hi` for an image of `width × height`
    /// pixels (see [`Camera::top`], [`Camera::persp`], [`Camera::iso`]).
    pub fn for_view(view: crate::View, lo: Vec3, hi: Vec3, width: u32, height: u32) -> Camera {
        match view {
            crate::View::Top => Camera::top(lo, hi, width, height),
            crate::View::Persp => Camera::persp(lo, hi, width, height),
            crate::View::Iso => Camera::iso(lo, hi, width, height),
        }
    }

    /// Orthographic, straight down (−Y), world +x to the right of the image and world −z to
    /// its top (the map view of Blender's top view after glTF import).
    ///
    /// With `c` the centre of the bounds and `e` their extent, the scale is
    /// `s = min(width / e.x, height / e.z) / TOP_MARGIN` pixels per unit and a world point
    /// `(x, y, z)` lands at image position (from the top-left corner, in pixels, pixel `(i, j)`
    /// covering `[i, i+1) × [j, j+1)`):
    ///
    /// ```text
    /// px = width / 2 + (x − c.x) · s
    /// py = height / 2 + (z − c.z) · s
    /// ```
    ///
    /// So for a WAD level (cells at x ∈ [0, W), z ∈ (−H, 0]) the z = 0 edge is at the bottom
    /// of the image and z = −H at the top. Near and far planes enclose `lo.y..=hi.y` with room.
    pub fn top(lo: Vec3, hi: Vec3, width: u32, height: u32) -> Camera {
        let c = (lo + hi) * 0.5;
        let e = (hi - lo).max(Vec3::ZERO);
        let tiny = 1e-6 * (1.0 + e.max_element());
        let (w, h) = (width.max(1) as f32, height.max(1) as f32);
        let s = (w / e.x.max(tiny)).min(h / e.z.max(tiny)) / TOP_MARGIN;
        let (half_w, half_h) = (w / (2.0 * s), h / (2.0 * s));
        let pad = 1.0 + 0.01 * e.max_element();
        let eye = Vec3::new(c.x, hi.y + pad, c.z);
        let view = look_to_mat4(eye, Vec3::NEG_Y, Vec3::NEG_Z);
        let proj = orthographic(-half_w, half_w, -half_h, half_h, 0.5 * pad, e.y + 1.5 * pad);
        Camera { view, proj }
    }

    /// The direction from the bounds' centre to the [`Camera::persp`] and [`Camera::iso`]
    /// eyes: above the (+x, +z) corner, [`ELEVATION_DEG`] above the horizon.
    pub fn corner_direction() -> Vec3 {
        let (s, c) = ELEVATION_DEG.to_radians().sin_cos();
        let h = c * std::f32::consts::FRAC_1_SQRT_2;
        Vec3::new(h, s, h)
    }

    /// Perspective, [`FOV_Y_DEG`] vertical field of view, looking at the bounds' centre from
    /// [`Camera::corner_direction`], +Y up, at the distance where the bounds' bounding sphere
    /// (centre `c`, radius `r = |hi − lo| / 2`) just fits the narrower field of view:
    /// `d = r / sin(min(fov_y, fov_x) / 2)`.
    pub fn persp(lo: Vec3, hi: Vec3, width: u32, height: u32) -> Camera {
        let (c, r) = sphere(lo, hi);
        let aspect = width.max(1) as f32 / height.max(1) as f32;
        let half_y = (FOV_Y_DEG * 0.5).to_radians();
        let half_x = (half_y.tan() * aspect).atan();
        let d = r / half_y.min(half_x).sin();
        let eye = c + Camera::corner_direction() * d;
        let view = look_at_mat4(eye, c, Vec3::Y);
        let proj = perspective(2.0 * half_y, aspect, 0.9 * (d - r), 1.1 * (d + r));
        Camera { view, proj }
    }

    /// Orthographic along [`Camera::corner_direction`] (towards the bounds' centre), +Y up,
    /// the bounding sphere just fitting the image's shorter side.
    pub fn iso(lo: Vec3, hi: Vec3, width: u32, height: u32) -> Camera {
        let (c, r) = sphere(lo, hi);
        let aspect = width.max(1) as f32 / height.max(1) as f32;
        let half_h = r * (1.0f32).max(1.0 / aspect);
        let half_w = half_h * aspect;
        let d = 2.0 * r;
        let eye = c + Camera::corner_direction() * d;
        let view = look_at_mat4(eye, c, Vec3::Y);
        let proj = orthographic(-half_w, half_w, -half_h, half_h, 0.5 * r, d + 1.5 * r);
        Camera { view, proj }
    }
}

/// Centre and radius (never 0) of the sphere around the bounds.
fn sphere(lo: Vec3, hi: Vec3) -> (Vec3, f32) {
    let c = (lo + hi) * 0.5;
    let r = ((hi - lo) * 0.5).length();
    (c, r.max(1e-3 * (1.0 + c.abs().max_element())))
}

/// World-space bounds `(lo, hi)` of the geometry [`crate::render`] draws: every vertex of every
/// primitive with at least one triangle, placed by its node's world matrix, of the nodes that
/// are not hidden (nor under a hidden node) unless `show_hidden`. `None` when nothing is drawn.
pub fn bounds(scene: &Scene, show_hidden: bool) -> Option<(Vec3, Vec3)> {
    let items = pipeline::draw_items(scene, pipeline::Which::from_show_hidden(show_hidden));
    let mut out: Option<(Vec3, Vec3)> = None;
    for item in &items {
        for p in &item.prim.positions {
            let w = item.matrix.transform_point3(Vec3::from_array(*p));
            if !w.is_finite() {
                continue;
            }
            out = Some(match out {
                None => (w, w),
                Some((lo, hi)) => (lo.min(w), hi.max(w)),
            });
        }
    }
    out
}
