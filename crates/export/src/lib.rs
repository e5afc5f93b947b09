//! Exporters from the engine-neutral scene model.
#![forbid(unsafe_code)]
#![deny(missing_docs)]
