//! The X-Ray file formats, each read and written byte-exact: the chunk container ([`chunk`],
//! [`lzhuf`] its codec), `level` ([`level`], its [`ogf`] visuals, [`shaders`], [`sectors`],
//! the build table [`builds`]), `level.geom(x)` ([`geom`] with [`decl`], [`fvf`], [`vertex`],
//! [`vertex_data`], [`index_data`]), `level.cform` ([`cform`]) and the 13/14-shaped view of old
//! levels ([`flat`]).

pub mod builds;
pub mod cform;
pub mod chunk;
pub mod decl;
pub mod flat;
pub mod fvf;
pub mod geom;
pub mod ids;
pub mod index_data;
pub mod level;
pub mod lzhuf;
pub mod ogf;
pub mod sectors;
pub mod shaders;
pub mod vertex;
pub mod vertex_data;
