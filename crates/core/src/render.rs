//! Pictures of a level: `render` and the previews `export --preview` writes.

use crate::error::{Error, Result};
use crate::level::LevelFile;
use crate::options::EngineOptions;

pub use levelgeom_render::{Image, View};

/// The size of the previews `export --preview` writes.
pub const PREVIEW_SIZE: (u32, u32) = (1024, 768);

/// What [`LevelFile::render`] draws.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RenderOptions {
    /// The camera.
    pub view: View,
    /// Image width in pixels.
    pub width: u32,
    /// Image height in pixels.
    pub height: u32,
    /// Also draw the collision (hidden in exports and previews) of either engine, over the
    /// level so it can be seen (see [`crate::LevelFile::render`]).
    pub collision: bool,
    /// Also draw an X-Ray level's occluders (`level.hom`, `level.som`; hidden in exports and
    /// previews) over the level, tinted as the collision is.
    pub occluders: bool,
    /// A WAD: draw each tile in its zone's colour ([`levelgeom_wad::map::zones::PALETTE`],
    /// the colours of `zones.png`), shaded by the light direction, untextured.
    pub zones: bool,
}

impl Default for RenderOptions {
    fn default() -> Self {
        RenderOptions {
            view: View::Persp,
            width: PREVIEW_SIZE.0,
            height: PREVIEW_SIZE.1,
            collision: false,
            occluders: false,
            zones: false,
        }
    }
}

impl LevelFile {
    /// Draw the level (see [`levelgeom_render`] for the views): the scene as exported; with
    /// `collision` (or `occluders`), the collision (the occluders) tinted over it
    /// ([`levelgeom_render::render_overlay`]: seen even where it lies under the level's
    /// surfaces), or alone when it is all there is.
    ///
    /// # Errors
    /// As [`LevelFile::to_scene`] (with `collision`: an X-Ray level without its `level.cform`;
    /// with `occluders`: a WAD, or an X-Ray level with neither `level.hom` nor `level.som`;
    /// with `zones`: an X-Ray level).
    ///
    /// With `zones`, the WAD conversion gives every tile node its zone's colour
    /// ([`levelgeom_wad::scene::SceneOptions::zones`]) and the scene is painted in those colours
    /// ([`levelgeom_scene::paint::paint_by_extra`]) before it is drawn.
    pub fn render(&self, opts: &RenderOptions) -> Result<Image> {
        let engine = EngineOptions {
            collision: opts.collision,
            xray: opts.occluders.then(|| crate::options::XrayOptions {
                occluders: true,
                ..crate::options::XrayOptions::default()
            }),
            wad: opts.zones.then(|| crate::options::WadOptions {
                zones: true,
                ..crate::options::WadOptions::default()
            }),
        };
        let mut scene = self.to_scene(&engine)?;
        if opts.zones {
            levelgeom_scene::paint::paint_by_extra(&mut scene, "zone_colour");
        }
        Ok(draw(&scene, opts))
    }
}

/// Draw a scene: its visible nodes; with `opts.collision` or `opts.occluders` its hidden ones
/// (the collision, the occluders) tinted over them. A scene whose geometry is all hidden (an export of the collision alone)
/// is drawn whole either way, never as an empty picture.
pub fn draw(scene: &levelgeom_scene::Scene, opts: &RenderOptions) -> Image {
    let ro = levelgeom_render::RenderOptions {
        width: opts.width,
        height: opts.height,
        view: opts.view,
        show_hidden: false,
    };
    if opts.collision || opts.occluders || levelgeom_render::bounds(scene, false).is_none() {
        levelgeom_render::render_overlay(scene, &ro)
    } else {
        levelgeom_render::render(scene, &ro)
    }
}

/// `preview_top.png` and `preview_persp.png` of a scene, as PNG bytes.
pub(crate) fn previews(scene: &levelgeom_scene::Scene) -> Result<Vec<(String, Vec<u8>)>> {
    let mut out = Vec::new();
    for view in [View::Top, View::Persp] {
        let image = draw(
            scene,
            &RenderOptions {
                view,
                ..RenderOptions::default()
            },
        );
        let png = image.to_png().map_err(|source| Error::Preview {
            file: scene.name.clone(),
            view: view.name(),
            source,
        })?;
        out.push((format!("preview_{}.png", view.name()), png));
    }
    Ok(out)
}
