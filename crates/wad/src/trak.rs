//! TRAK: the world's tile models.
//!
//! | Part | Size | Meaning |
//! |---|---|---|
//! | `u32 n` | 4 | model count |
//! | headers | n × 0x84 | every model header first ([`crate::model::ModelHeader`]) |
//! | data | … | then per model in order: vertices, faces, collision polygons |
//!
//! The game reads the chunk whole (its size field is used) and relocates the pointers in
//! place (`sub_42AAC0` → `sub_5563F0`).

use crate::model::{Model, ModelHeader, TRAK_HEADER_SIZE};
use levelgeom_binary::{fit, ReadError, Reader, WriteError, Writer};

/// The TRAK chunk: the tile models MAP places on its grid.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Trak {
    /// The models in file order (MAP refers to them by index).
    pub models: Vec<Model>,
}

impl Trak {
    /// Read a TRAK payload. `r` is bounded to the payload; the caller checks the end.
    pub fn read(r: &mut Reader<'_>) -> Result<Trak, ReadError> {
        let n = r.u32_count(TRAK_HEADER_SIZE)?;
        let mut headers = Vec::with_capacity(n);
        for i in 0..n {
            headers.push(r.within("models", Some(i), |r| ModelHeader::read(r, false))?);
        }
        let mut models = Vec::with_capacity(n);
        for (i, h) in headers.into_iter().enumerate() {
            models.push(r.within("models", Some(i), |r| Model::read_data(r, h))?);
        }
        Ok(Trak { models })
    }

    /// Write the payload: count, all headers, then the data of each model.
    /// Fails, naming the field (`TRAK/models[3]/vertex count`, `TRAK/models[3]/faces[17]/v1`),
    /// when a model's arrays do not fit their fields or a face names a missing vertex.
    pub fn write(&self, w: &mut Writer) -> Result<(), WriteError> {
        w.u32(fit(self.models.len(), || "TRAK/model count".into())?);
        for m in &self.models {
            let mut h = m.header.clone();
            h.stpc = None;
            h.write(w);
        }
        for (i, m) in self.models.iter().enumerate() {
            m.write_data(w)
                .map_err(|e| e.within(&format!("TRAK/models[{i}]")))?;
        }
        Ok(())
    }

    /// The vertex count of each model as stored in its header (what MAP's colour blocks are
    /// sized by).
    pub fn vertex_counts(&self) -> Vec<usize> {
        self.models
            .iter()
            .map(|m| usize::from(m.header.vertex_count))
            .collect()
    }
}
