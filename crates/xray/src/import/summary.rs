//! What an import did, for the user: text ([`std::fmt::Display`]) and JSON (serde).

use std::fmt;

use serde::Serialize;

/// A visual the import added.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Added {
    /// Its index in the new level.
    pub visual: usize,
    /// The node it came from.
    pub node: String,
    /// `new mesh` or `copy of visual N` (N in the base level).
    pub from: String,
    /// The base level's visual it copies (`None` for a new mesh).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub copy_of: Option<usize>,
    /// Its model type (`normal`, `tree_st`, …).
    pub model_type: String,
}

/// Vertex attributes a written visual did not get from the mesh file.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Defaulted {
    /// The visual (index in the new level).
    pub visual: usize,
    /// The node.
    pub node: String,
    /// `normal` (recomputed), `uv`, `lightmap uv`, `light`, `hemi`, `sun` (neutral values).
    pub attributes: Vec<String>,
}

/// Collision triangles the import added for one new visual.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct FacesAdded {
    /// The visual (index in the new level).
    pub visual: usize,
    /// The node it came from.
    pub node: String,
    /// Triangles added.
    pub faces: usize,
    /// The game material id of the triangles (a copy: the most common one of its original's;
    /// a reshaped visual: that of its old triangles, see `source`).
    pub material: u32,
    /// Where they came from: `copy of visual N` (its original's triangles, transformed), or
    /// for a new mesh how its game material was chosen: `extra game_material` or
    /// `nearest face N` (the base cform triangle nearest to the mesh's centre), or
    /// `new shape of visual N: …` (a reshaped visual's, with how its material was chosen).
    pub source: String,
}

/// What happened to `level.cform`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct CollisionSummary {
    /// `none` (the level has no cform), `kept`, `followed` (faces of moved/removed visuals
    /// moved/removed, faces added for copied and new visuals) or `replaced` (from the
    /// collision mesh).
    pub mode: String,
    /// Triangles before.
    pub faces_before: usize,
    /// Triangles after.
    pub faces_after: usize,
    /// Triangles moved with their visual.
    pub moved: usize,
    /// Triangles removed with their visual.
    pub removed: usize,
    /// Triangles of edited (reshaped) visuals removed with their old shape; the triangles of
    /// their new shape are counted in `added` (and listed in `added_faces`).
    pub replaced: usize,
    /// Triangles near several visuals that were not treated alike: kept where they were.
    pub ambiguous: usize,
    /// The first ambiguous triangles' indices (at most 20).
    pub ambiguous_faces: Vec<usize>,
    /// Triangles added for copied, new and reshaped visuals.
    pub added: usize,
    /// Those, per visual.
    pub added_faces: Vec<FacesAdded>,
}

/// What happened to `level.hom` or `level.som` ([`super::occluders::follow`]).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct OccluderSummary {
    /// `none` (the level has no such file), `kept`, `followed` (polygons of moved, removed,
    /// copied and reshaped visuals moved, removed, copied and dropped) or `replaced` (from the
    /// mesh file's `occluders` tree).
    pub mode: String,
    /// Polygons before.
    pub polygons_before: usize,
    /// Polygons after (0 when the file is not written).
    pub polygons_after: usize,
    /// Polygons moved with their visual.
    pub moved: usize,
    /// Polygons removed with their visual.
    pub removed: usize,
    /// Polygons appended for copied visuals.
    pub copied: usize,
    /// Polygons of reshaped visuals dropped (new occluders cannot be guessed).
    pub dropped: usize,
    /// Polygons owned by several visuals not changed alike: kept in place.
    pub ambiguous: usize,
    /// The first ambiguous polygons' indices (at most 20).
    pub ambiguous_polygons: Vec<usize>,
    /// Why the file was not written (the target build's engine does not read it), else empty.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub note: String,
}

/// What [`super::import`] did.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Summary {
    /// The base level's XRLC build.
    pub build_in: u16,
    /// The build written (the base's, or `--to-version`).
    pub build_out: u16,
    /// Visuals in the base level.
    pub visuals_before: usize,
    /// Visuals in the new level.
    pub visuals_after: usize,
    /// Base visuals written back byte for byte (including those not in the mesh file).
    pub kept: usize,
    /// Of those, visuals with geometry that the mesh file does not hold (a partial export):
    /// kept.
    pub kept_absent: usize,
    /// Base visuals moved (indices in the base level).
    pub moved: Vec<usize>,
    /// Base visuals whose geometry was edited.
    pub edited: Vec<usize>,
    /// Base visuals removed.
    pub removed: Vec<usize>,
    /// Visuals added.
    pub added: Vec<Added>,
    /// Shader entries added to the table.
    pub shaders_added: Vec<String>,
    /// Vertex data defaulted.
    pub defaulted: Vec<Defaulted>,
    /// The collision.
    pub collision: CollisionSummary,
    /// `level.hom` (set by [`super::occluders::follow`]).
    pub hom: OccluderSummary,
    /// `level.som` (set by [`super::occluders::follow`]).
    pub som: OccluderSummary,
    /// Everything else worth telling.
    pub warnings: Vec<String>,
    /// What the edit left stale in `level.ai` and `level.details` ([`super::stale`]), when
    /// the level has either.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stale: Option<super::stale::StaleReport>,
    /// The build conversion (`--to-version`), when one was made.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub conversion: Option<super::Conversion>,
}

fn list(v: &[usize]) -> String {
    if v.is_empty() {
        return String::new();
    }
    let shown: Vec<String> = v.iter().take(20).map(ToString::to_string).collect();
    let more = if v.len() > 20 { ", …" } else { "" };
    format!(" ({}{more})", shown.join(", "))
}

impl fmt::Display for Summary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.build_in == self.build_out {
            writeln!(
                f,
                "build: XRLC {} (written in the same build)",
                self.build_in
            )?;
        } else {
            writeln!(
                f,
                "build: XRLC {} in, XRLC {} out",
                self.build_in, self.build_out
            )?;
        }
        writeln!(
            f,
            "visuals: {} before, {} after",
            self.visuals_before, self.visuals_after
        )?;
        writeln!(
            f,
            "kept {}{}",
            self.kept,
            if self.kept_absent > 0 {
                format!(" ({} not in the mesh file)", self.kept_absent)
            } else {
                String::new()
            }
        )?;
        writeln!(f, "moved {}{}", self.moved.len(), list(&self.moved))?;
        writeln!(f, "edited {}{}", self.edited.len(), list(&self.edited))?;
        writeln!(f, "removed {}{}", self.removed.len(), list(&self.removed))?;
        writeln!(f, "added {}", self.added.len())?;
        for a in &self.added {
            writeln!(
                f,
                "  visual {} ({}) from node {:?}: {}",
                a.visual, a.model_type, a.node, a.from
            )?;
        }
        for s in &self.shaders_added {
            writeln!(f, "shader entry added: {s}")?;
        }
        for d in &self.defaulted {
            writeln!(
                f,
                "visual {} (node {:?}): defaulted {}",
                d.visual,
                d.node,
                d.attributes.join(", ")
            )?;
        }
        if let Some(v) = &self.conversion {
            writeln!(
                f,
                "converted XRLC {} to {}: {} level.geom buffer(s), {} vertices, {} level.geomx buffer(s) re-encoded; largest base-UV error {:.3e}",
                v.from, v.to, v.vertex_buffers, v.vertices, v.geomx_buffers, v.max_uv_error
            )?;
            for l in &v.lost {
                writeln!(f, "  lost (--allow-loss): {l}")?;
            }
            for n in &v.notes {
                writeln!(f, "  {n}")?;
            }
        }
        let c = &self.collision;
        match c.mode.as_str() {
            "none" | "" => writeln!(f, "collision: no level.cform")?,
            mode => {
                writeln!(
                    f,
                    "collision: {mode}, {} triangles before, {} after ({} moved, {} removed, {} replaced by new shapes, {} added, {} ambiguous kept in place{})",
                    c.faces_before,
                    c.faces_after,
                    c.moved,
                    c.removed,
                    c.replaced,
                    c.added,
                    c.ambiguous,
                    list(&c.ambiguous_faces)
                )?;
                for a in &c.added_faces {
                    writeln!(
                        f,
                        "  visual {} (node {:?}): {} triangle(s) added, game material {} ({})",
                        a.visual, a.node, a.faces, a.material, a.source
                    )?;
                }
            }
        }
        for (file, s) in [("level.hom", &self.hom), ("level.som", &self.som)] {
            match s.mode.as_str() {
                "" => {}
                "none" => writeln!(f, "{file}: none beside the level")?,
                "replaced" => writeln!(
                    f,
                    "{file}: replaced by the mesh file's occluders tree, {} polygons before, {} after",
                    s.polygons_before, s.polygons_after
                )?,
                mode => writeln!(
                    f,
                    "{file}: {mode}, {} polygons before, {} after ({} moved, {} removed, {} copied, {} dropped with reshaped visuals, {} ambiguous kept in place{})",
                    s.polygons_before,
                    s.polygons_after,
                    s.moved,
                    s.removed,
                    s.copied,
                    s.dropped,
                    s.ambiguous,
                    list(&s.ambiguous_polygons)
                )?,
            }
            if !s.note.is_empty() {
                writeln!(f, "  {file} {}", s.note)?;
            }
        }
        if let Some(s) = &self.stale {
            write!(f, "{s}")?;
        }
        Ok(())
    }
}
