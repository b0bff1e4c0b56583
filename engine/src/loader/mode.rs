//! Neptune's load modes: which files of a source a load takes, given the
//! loads of the same source before it in this process.
//!
//! A load here is one transaction, so a load that failed or was cancelled
//! applied none of its files, and one that completed applied all of them
//! (with `failOnError: false`, a file whose stream broke had its rows up
//! to the break applied: it counts as loaded, since reading it again would
//! add those rows twice). What a load has loaded is therefore the files it
//! completed plus what the loads of the source before it had loaded;
//! `RESUME` (and `AUTO`, when there is an earlier load) takes the source's
//! files that are not among them: after a failure, all of them again;
//! after a completed load, the files added to the directory or prefix
//! since. `NEW` takes every file. The record lives as long as the process
//! (like the loads' statuses): after a restart there is nothing to resume,
//! and a load killed midway left nothing behind to resume from.

use std::collections::BTreeSet;
use std::sync::Arc;

/// Which files of the source a load takes.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum LoadMode {
    /// Every file, whatever loads of the source came before.
    #[default]
    New,
    /// As `Resume` when an earlier load of the source exists, else `New`
    /// (Neptune's default for its loader endpoint).
    Auto,
    /// The files the last earlier load of the same source and format has
    /// not loaded; refused when there is no such load.
    Resume,
}

impl LoadMode {
    /// `NEW`, `AUTO` or `RESUME`, in any case.
    pub fn from_name(name: &str) -> Option<LoadMode> {
        [LoadMode::New, LoadMode::Auto, LoadMode::Resume]
            .into_iter()
            .find(|mode| mode.name().eq_ignore_ascii_case(name))
    }

    pub fn name(self) -> &'static str {
        match self {
            LoadMode::New => "NEW",
            LoadMode::Auto => "AUTO",
            LoadMode::Resume => "RESUME",
        }
    }
}

/// The files (by name) the loads of one source have applied so far.
pub(crate) type Loaded = Arc<BTreeSet<String>>;
