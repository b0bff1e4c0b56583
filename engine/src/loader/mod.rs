//! The bulk loader: files of a source, read by `nereid-loader-formats`,
//! applied as one transaction through the store, with each load's state
//! kept for the front ends that ask (`POST /loader`, later `neptune.load`).
//!
//! Why the store's bulk path with a checkpoint, and not one logged
//! transaction: a load's rows are applied column-wise per partition as one
//! commit (readers see none or all of it, a bad row with `failOnError`
//! leaves nothing), and made durable by a checkpoint taken before any later
//! commit is logged, instead of a log record holding every row
//! (docs/adr/0096-bulk-load-by-checkpoint.md). The bulk path checks the
//! constraints against the load and the graph (ADR 0106).
//!
//! Invariant: loads run one at a time, on the loader's own thread, in the
//! order they were submitted. Two transactions creating nodes with the same
//! user id concurrently are not detected by the store, so keyed creation
//! must not run in parallel.

mod apply;
mod bulk;
mod bulk_csv;
mod bulk_rdf;
mod export;
mod history;
mod id_index;
mod jobs;
mod mode;
mod number_table;
mod parse;
mod progress;
mod rdf_edges;
mod s3_source;
mod source;
mod user_id;

#[cfg(test)]
mod mode_tests;
#[cfg(test)]
mod pieces_tests;
#[cfg(test)]
mod rdf_set_tests;
#[cfg(test)]
mod rdf_tests;
#[cfg(test)]
mod tests;

pub use export::RdfExport;
pub use jobs::Loader;
pub use mode::LoadMode;
pub use nereid_loader_formats::{Format, InputFormat, RdfSyntax, FORMAT_NAMES};
pub use progress::{LoadErrorEntry, LoadPhase, LoadState, LoadStatus, LOAD_ERRORS_KEPT};
pub(crate) use s3_source::{is_s3, open_object, S3Settings};
pub(crate) use source::resolve as resolve_source;
pub use user_id::user_key;

/// What to load.
#[derive(Clone, Debug)]
pub struct LoadRequest {
    /// `file:///absolute/path` (a file, or a directory whose files of the
    /// format's extension, `*.csv` / `*.nt` / `*.nq` / `*.ttl`, plain or
    /// `.gz` / `.zst`, are loaded), inside the import directory; or
    /// `file:///relative` under it, as Neo4j's `LOAD CSV`; or
    /// `s3://bucket/key`, one object or every object under `key/` of the
    /// format's extension (`s3_source.rs`).
    pub source: String,
    pub format: InputFormat,
    /// Stop at the first bad row and keep nothing (`true`), or report bad
    /// rows and load the rest (`false`).
    pub fail_on_error: bool,
    /// Which files of the source to take, given earlier loads of it.
    pub mode: LoadMode,
}
