//! Hand-built scenes and cameras.

use levelgeom_render::glam::camera::rh::proj::directx::orthographic;
use levelgeom_render::glam::camera::rh::view::look_to_mat4;
use levelgeom_render::glam::Vec3;
use levelgeom_render::{Camera, RenderOptions, View};
use levelgeom_scene::{AlphaMode, Material, Mesh, Node, Primitive, Scene, Texture, TextureSource};

/// Straight down on the unit square x ∈ [0, 1], z ∈ [−1, 0]: +x right, −z up, the square
/// filling the image exactly (so pixel (i, j) of an n×n image covers x ∈ [i/n, (i+1)/n),
/// z ∈ [−1 + j/n, −1 + (j+1)/n)). Sees y from 9 down to −10.
pub fn unit_top_camera() -> Camera {
    let view = look_to_mat4(Vec3::new(0.5, 10.0, -0.5), Vec3::NEG_Y, Vec3::NEG_Z);
    let proj = orthographic(-0.5, 0.5, -0.5, 0.5, 1.0, 20.0);
    Camera::new(view, proj)
}

pub fn opts(w: u32, h: u32) -> RenderOptions {
    RenderOptions {
        width: w,
        height: h,
        view: View::Top,
        show_hidden: false,
    }
}

/// The unit square at height `y`, front (counter-clockwise) facing up, uv (x, 1 + z) so the
/// texture's top row is at z = −1 (the image's top).
pub fn square(y: f32, material: usize) -> Primitive {
    Primitive {
        material: Some(material),
        positions: vec![[0.0, y, 0.0], [1.0, y, 0.0], [1.0, y, -1.0], [0.0, y, -1.0]],
        uvs: vec![vec![[0.0, 1.0], [1.0, 1.0], [1.0, 0.0], [0.0, 0.0]]],
        indices: vec![0, 1, 2, 0, 2, 3],
        ..Primitive::default()
    }
}

/// A flat unlit colour material.
pub fn flat(rgba: [f32; 4]) -> Material {
    Material {
        base_color: rgba,
        unlit: true,
        ..Material::default()
    }
}

pub fn rgba8(width: u32, height: u32, pixels: Vec<u8>) -> Texture {
    Texture {
        name: "t".into(),
        source: TextureSource::Rgba8 {
            width,
            height,
            pixels,
        },
    }
}

pub fn textured(texture: usize, alpha: AlphaMode) -> Material {
    Material {
        texture: Some(texture),
        alpha,
        unlit: true,
        ..Material::default()
    }
}

/// Add a root node drawing `prims` as one mesh; returns the node index.
pub fn add(scene: &mut Scene, prims: Vec<Primitive>) -> usize {
    let m = scene.add_mesh(Mesh {
        name: format!("m{}", scene.meshes.len()),
        primitives: prims,
    });
    let n = scene.add_node(Node {
        name: format!("n{}", scene.nodes.len()),
        mesh: Some(m),
        ..Node::default()
    });
    scene.roots.push(n);
    n
}

/// `f32` colour as the byte the renderer should write (round to nearest).
pub fn byte(v: f32) -> u8 {
    (v.clamp(0.0, 1.0) * 255.0 + 0.5) as u8
}
