//! Small hand-made scenes with known pixels.

use levelgeom_render::glam::camera::rh::proj::directx::perspective;
use levelgeom_render::glam::camera::rh::view::look_to_mat4;
use levelgeom_render::glam::Vec3;
use levelgeom_render::{
    render, render_with_camera, Camera, Image, RenderOptions, View, AMBIENT, BACKGROUND, DIFFUSE,
    LIGHT_DIR,
};
use levelgeom_scene::{AlphaMode, Material, Node, Primitive, Scene, Texture, TextureSource};

use crate::common::*;

const RED: [u8; 4] = [255, 0, 0, 255];
const GREEN: [u8; 4] = [0, 255, 0, 255];
const BLUE: [u8; 4] = [0, 0, 255, 255];
const YELLOW: [u8; 4] = [255, 255, 0, 255];

fn four_colour_texture() -> Texture {
    // row-major from the top-left: red green / blue yellow
    rgba8(2, 2, [RED, GREEN, BLUE, YELLOW].concat())
}

fn count(img: &Image, c: [u8; 4]) -> usize {
    img.pixels.chunks_exact(4).filter(|p| *p == c).count()
}

#[test]
fn textured_square_fills_four_quadrants_with_its_texels() {
    let mut s = Scene::default();
    s.textures.push(four_colour_texture());
    s.materials.push(textured(0, AlphaMode::Opaque));
    add(&mut s, vec![square(0.0, 0)]);
    let img = render_with_camera(&s, &unit_top_camera(), &opts(8, 8));
    for y in 0..8 {
        for x in 0..8 {
            // pixel centre ((x+0.5)/8, −1 + (y+0.5)/8): u = x', v = 1 + z' → texel (x/4, y/4)
            let want = match (x / 4, y / 4) {
                (0, 0) => RED,
                (1, 0) => GREEN,
                (0, 1) => BLUE,
                _ => YELLOW,
            };
            assert_eq!(img.pixel(x, y), want, "pixel ({x}, {y})");
        }
    }
}

#[test]
fn texture_coordinates_wrap() {
    // uv 0..2 repeats the 2×2 texture twice each way: 2×2-pixel blocks on a 8×8 image
    let mut s = Scene::default();
    s.textures.push(four_colour_texture());
    s.materials.push(textured(0, AlphaMode::Opaque));
    let mut q = square(0.0, 0);
    q.uvs[0] = vec![[0.0, 2.0], [2.0, 2.0], [2.0, 0.0], [0.0, 0.0]];
    add(&mut s, vec![q]);
    let img = render_with_camera(&s, &unit_top_camera(), &opts(8, 8));
    for y in 0..8 {
        for x in 0..8 {
            let want = [RED, GREEN, BLUE, YELLOW][((y / 2) % 2 * 2 + (x / 2) % 2) as usize];
            assert_eq!(img.pixel(x, y), want, "pixel ({x}, {y})");
        }
    }
}

#[test]
fn shared_diagonal_is_drawn_exactly_once() {
    // A half-transparent square over the background: a pixel drawn twice (or missed) on the
    // diagonal both triangles share would differ. Pixel centres with x + y = 7 lie exactly on it.
    let mut s = Scene::default();
    s.materials.push(Material {
        alpha: AlphaMode::Blend,
        ..flat([1.0, 1.0, 1.0, 0.5])
    });
    add(&mut s, vec![square(0.0, 0)]);
    let img = render_with_camera(&s, &unit_top_camera(), &opts(8, 8));
    let bg = BACKGROUND.map(|b| f32::from(b) / 255.0);
    let want = [
        byte(0.5 + bg[0] * 0.5),
        byte(0.5 + bg[1] * 0.5),
        byte(0.5 + bg[2] * 0.5),
        255,
    ];
    assert_eq!(count(&img, want), 64);
}

#[test]
fn nearer_triangle_hides_farther_one_in_either_order() {
    for near_first in [false, true] {
        let mut s = Scene::default();
        s.materials.push(flat([1.0, 0.0, 0.0, 1.0])); // far: red, y = 0
        s.materials.push(flat([0.0, 0.0, 1.0, 1.0])); // near: blue, y = 1 (camera above)
        let far = square(0.0, 0);
        let mut near = square(1.0, 1);
        // the near one covers only the left half x < 0.5
        near.positions = vec![
            [0.0, 1.0, 0.0],
            [0.5, 1.0, 0.0],
            [0.5, 1.0, -1.0],
            [0.0, 1.0, -1.0],
        ];
        if near_first {
            add(&mut s, vec![near, far]);
        } else {
            add(&mut s, vec![far, near]);
        }
        let img = render_with_camera(&s, &unit_top_camera(), &opts(8, 8));
        for y in 0..8 {
            for x in 0..8 {
                let want = if x < 4 { BLUE } else { RED };
                assert_eq!(img.pixel(x, y), want, "near_first {near_first} ({x}, {y})");
            }
        }
    }
}

#[test]
fn masked_transparent_texel_shows_what_is_behind() {
    let mut s = Scene::default();
    // 2×1: left texel fully transparent (its colour must not show), right texel opaque blue
    s.textures
        .push(rgba8(2, 1, vec![255, 0, 255, 0, 0, 0, 255, 255]));
    s.materials.push(textured(0, AlphaMode::Mask(0.5)));
    s.materials.push(flat([0.0, 1.0, 0.0, 1.0]));
    add(&mut s, vec![square(1.0, 0), square(0.0, 1)]);
    let img = render_with_camera(&s, &unit_top_camera(), &opts(8, 8));
    for y in 0..8 {
        for x in 0..8 {
            let want = if x < 4 { GREEN } else { BLUE };
            assert_eq!(img.pixel(x, y), want, "({x}, {y})");
        }
    }
}

#[test]
fn back_face_is_culled_unless_double_sided() {
    for double_sided in [false, true] {
        let mut s = Scene::default();
        s.materials.push(Material {
            double_sided,
            ..flat([1.0, 0.0, 0.0, 1.0])
        });
        let mut q = square(0.0, 0);
        q.indices = vec![0, 2, 1, 0, 3, 2]; // clockwise from above: front faces down
        add(&mut s, vec![q]);
        let img = render_with_camera(&s, &unit_top_camera(), &opts(4, 4));
        let want = if double_sided { RED } else { BACKGROUND };
        assert_eq!(count(&img, want), 16, "double_sided {double_sided}");
    }
}

#[test]
fn vertex_colour_half_halves_the_texel() {
    let mut s = Scene::default();
    s.textures.push(rgba8(1, 1, vec![200, 100, 40, 255]));
    s.materials.push(textured(0, AlphaMode::Opaque));
    let mut q = square(0.0, 0);
    q.colors = vec![vec![[0.5, 0.5, 0.5, 1.0]; 4]];
    add(&mut s, vec![q]);
    let img = render_with_camera(&s, &unit_top_camera(), &opts(4, 4));
    assert_eq!(count(&img, [100, 50, 20, 255]), 16);
}

#[test]
fn flat_material_is_base_colour_times_vertex_colour() {
    let mut s = Scene::default();
    s.materials.push(flat([1.0, 0.8, 0.4, 1.0]));
    let mut q = square(0.0, 0);
    q.colors = vec![vec![[0.5, 0.5, 1.0, 1.0]; 4]];
    add(&mut s, vec![q]);
    let img = render_with_camera(&s, &unit_top_camera(), &opts(4, 4));
    assert_eq!(count(&img, [byte(0.5), byte(0.4), byte(0.4), 255]), 16);
}

#[test]
fn untextured_and_undecoded_materials_are_shaded_by_the_face_normal() {
    // face normal +Y: shade = AMBIENT + DIFFUSE · (l · +Y) = AMBIENT + DIFFUSE · l.y / |l|
    let l = LIGHT_DIR;
    let ly = l[1] / (l[0] * l[0] + l[1] * l[1] + l[2] * l[2]).sqrt();
    let shade = AMBIENT + DIFFUSE * ly;
    let want = [byte(shade), byte(0.5 * shade), 0, 255];
    for texture in [None, Some(0)] {
        let mut s = Scene::default();
        s.textures.push(Texture {
            name: "x".into(),
            source: TextureSource::Unresolved {
                uri: "terrain/x.dds".into(),
            },
        });
        s.materials.push(Material {
            base_color: [1.0, 0.5, 0.0, 1.0],
            texture,
            unlit: texture.is_some(), // undecoded textures are shaded even when unlit
            ..Material::default()
        });
        add(&mut s, vec![square(0.0, 0)]);
        let img = render_with_camera(&s, &unit_top_camera(), &opts(4, 4));
        assert_eq!(count(&img, want), 16, "texture {texture:?}");
    }
}

#[test]
fn blended_triangles_are_drawn_back_to_front() {
    // Far red and near blue, both alpha 0.5, listed near first: sorted, the result is
    // blue·½ + (red·½ + bg·½)·½.
    let mut s = Scene::default();
    let half = |rgb: [f32; 3]| Material {
        alpha: AlphaMode::Blend,
        ..flat([rgb[0], rgb[1], rgb[2], 0.5])
    };
    s.materials.push(half([0.0, 0.0, 1.0]));
    s.materials.push(half([1.0, 0.0, 0.0]));
    add(&mut s, vec![square(1.0, 0), square(0.0, 1)]);
    let img = render_with_camera(&s, &unit_top_camera(), &opts(4, 4));
    let bg = BACKGROUND.map(|b| f32::from(b) / 255.0);
    let want = [
        byte(0.25 + bg[0] * 0.25),
        byte(bg[1] * 0.25),
        byte(0.5 + bg[2] * 0.25),
        255,
    ];
    assert_eq!(count(&img, want), 16);
}

#[test]
fn invisible_blend_surface_does_not_paint() {
    // An alpha-0 blended plane above a green floor, and a blended texture whose texels are all
    // transparent: neither changes a pixel.
    let mut s = Scene::default();
    s.materials.push(Material {
        alpha: AlphaMode::Blend,
        ..flat([1.0, 1.0, 1.0, 0.0])
    });
    s.textures.push(rgba8(1, 1, vec![255, 255, 255, 0]));
    s.materials.push(textured(0, AlphaMode::Blend));
    s.materials.push(flat([0.0, 1.0, 0.0, 1.0]));
    add(&mut s, vec![square(2.0, 0), square(1.0, 1), square(0.0, 2)]);
    let img = render_with_camera(&s, &unit_top_camera(), &opts(4, 4));
    assert_eq!(count(&img, GREEN), 16);
}

#[test]
fn hidden_nodes_are_drawn_only_when_asked() {
    let mut s = Scene::default();
    s.materials.push(flat([1.0, 0.0, 0.0, 1.0]));
    let n = add(&mut s, vec![square(0.0, 0)]);
    // Hide a parent: its child is hidden with it.
    s.roots.clear();
    let parent = s.add_node(Node {
        name: "collision".into(),
        children: vec![n],
        hidden: true,
        ..Node::default()
    });
    s.roots.push(parent);
    let mut o = opts(4, 4);
    let img = render_with_camera(&s, &unit_top_camera(), &o);
    assert_eq!(count(&img, BACKGROUND), 16);
    o.show_hidden = true;
    let img = render_with_camera(&s, &unit_top_camera(), &o);
    assert_eq!(count(&img, RED), 16);
}

#[test]
fn node_world_matrices_are_applied() {
    // The square's mesh is at x ∈ [−1, 0]; a parent translation by +1 in x brings it into view.
    let mut s = Scene::default();
    s.materials.push(flat([1.0, 0.0, 0.0, 1.0]));
    let mut q = square(0.0, 0);
    for p in &mut q.positions {
        p[0] -= 1.0;
    }
    let n = add(&mut s, vec![q]);
    s.roots.clear();
    let mut m = levelgeom_scene::IDENTITY;
    m[12] = 1.0;
    let parent = s.add_node(Node {
        matrix: m,
        children: vec![n],
        ..Node::default()
    });
    s.roots.push(parent);
    let img = render_with_camera(&s, &unit_top_camera(), &opts(4, 4));
    assert_eq!(count(&img, RED), 16);
}

#[test]
fn ground_crossing_behind_the_camera_is_clipped_not_wrapped() {
    // A camera 1 unit above a 200×200 ground looking horizontally along −z: the ground's
    // far edge (z = −100) is tan⁻¹(1/100) below the horizon, i.e. at NDC y = −0.01/tan(22.5°)
    // = −0.0241, 0.0241·32 = 0.77 px below the centre line of a 64-pixel-high image. Half the
    // ground's vertices are behind the camera. The edge is at y = 32.77: rows 0..=32 (centres
    // up to 32.5) must be sky, rows 33.. ground, and no ground may wrap into the sky.
    let mut s = Scene::default();
    s.materials.push(flat([0.0, 1.0, 0.0, 1.0]));
    let big = Primitive {
        material: Some(0),
        positions: vec![
            [-100.0, 0.0, 100.0],
            [100.0, 0.0, 100.0],
            [100.0, 0.0, -100.0],
            [-100.0, 0.0, -100.0],
        ],
        indices: vec![0, 1, 2, 0, 2, 3],
        ..Primitive::default()
    };
    add(&mut s, vec![big]);
    let view = look_to_mat4(Vec3::new(0.0, 1.0, 0.0), Vec3::NEG_Z, Vec3::Y);
    let proj = perspective(45f32.to_radians(), 1.0, 0.1, 1000.0);
    let img = render_with_camera(&s, &Camera::new(view, proj), &opts(64, 64));
    for y in 0..64 {
        for x in 0..64 {
            let want = if y <= 32 { BACKGROUND } else { GREEN };
            assert_eq!(img.pixel(x, y), want, "({x}, {y})");
        }
    }
}

#[test]
fn top_view_fit_follows_the_documented_formula() {
    // Geometry x ∈ [0, 4], z ∈ [−1, 0] in a 100×50 image: s = min(100/4, 50/1)/1.05 =
    // 23.81 px per unit; centre (2, −0.5) at pixel (50, 25). The square spans
    // px = 50 ± 2·23.81 = 2.38..97.62 and py = 25 ± 0.5·23.81 = 13.10..36.90.
    let mut s = Scene::default();
    s.materials.push(flat([1.0, 0.0, 0.0, 1.0]));
    let mut q = square(0.0, 0);
    for p in &mut q.positions {
        p[0] *= 4.0;
    }
    add(&mut s, vec![q]);
    let img = render(&s, &opts(100, 50));
    for y in 0..50 {
        for x in 0..100 {
            let (cx, cy) = (x as f32 + 0.5, y as f32 + 0.5);
            let inside = cx > 2.38 && cx < 97.62 && cy > 13.10 && cy < 36.90;
            let want = if inside { RED } else { BACKGROUND };
            assert_eq!(img.pixel(x, y), want, "({x}, {y})");
        }
    }
    // −z is up: a marker at the z = −1 edge (blue strip z ∈ [−1, −0.9]) is at the top.
    let mut marker = square(0.01, 0);
    marker.material = Some(1);
    marker.positions = vec![
        [0.0, 0.01, -0.9],
        [4.0, 0.01, -0.9],
        [4.0, 0.01, -1.0],
        [0.0, 0.01, -1.0],
    ];
    s.materials.push(flat([0.0, 0.0, 1.0, 1.0]));
    add(&mut s, vec![marker]);
    let img = render(&s, &opts(100, 50));
    assert_eq!(img.pixel(50, 14), BLUE);
    assert_eq!(img.pixel(50, 35), RED);
    // +x is right: the left end of the square is at the image's left.
    assert_eq!(img.pixel(3, 25), RED);
}

#[test]
fn views_parse_and_empty_scene_is_background() {
    for v in View::ALL {
        assert_eq!(v.name().parse::<View>().unwrap(), v);
        let img = render(
            &Scene::default(),
            &RenderOptions {
                view: v,
                ..opts(16, 8)
            },
        );
        assert_eq!(count(&img, BACKGROUND), 128);
    }
    assert!("side".parse::<View>().is_err());
    let png = render(&Scene::default(), &opts(3, 2)).to_png().unwrap();
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
}
