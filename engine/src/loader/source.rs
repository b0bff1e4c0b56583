//! Which files a load reads: the source URI resolved inside the import
//! directory (symlinks and `..` resolved first, so neither leads out), a
//! directory listed, and every file's header read to put node files
//! before relationship files. Objects of an `s3://` source are listed by
//! `s3_source.rs` and opened here like files.

use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use nereid_errors::Status;
use nereid_loader_formats::{
    Error, FileKind, Format, InputFormat, Options, RdfReader, Reader, Record,
};

use nereid_wal::{ObjectStore, S3Store};

use crate::db::DbError;

pub(crate) fn refused(message: String) -> DbError {
    DbError {
        status: Status::ExternalResourceFailed,
        message,
    }
}

/// The file or directory `source` names, canonical and inside `import_dir`.
/// `file:///a/b` is the absolute path `/a/b` when that lies in the import
/// directory, else `a/b` under it (Neo4j's `LOAD CSV` reading).
pub(crate) fn resolve(source: &str, import_dir: &Path) -> Result<PathBuf, DbError> {
    let Some(path) = source.strip_prefix("file://") else {
        return Err(refused(format!(
            "source `{source}`: only file:// sources are supported"
        )));
    };
    let root = import_dir.canonicalize().map_err(|e| {
        refused(format!(
            "the import directory {} cannot be read: {e}",
            import_dir.display()
        ))
    })?;
    let absolute = Path::new(path).canonicalize().ok();
    let inside = |p: &PathBuf| p.starts_with(&root);
    if let Some(found) = absolute.filter(inside) {
        return Ok(found);
    }
    let relative = root.join(path.trim_start_matches('/'));
    match relative.canonicalize() {
        Ok(found) if inside(&found) => Ok(found),
        Ok(_) => Err(outside(source)),
        Err(_) if Path::new(path).exists() => Err(outside(source)),
        Err(e) => Err(refused(format!(
            "source `{source}` not found in the import directory: {e}"
        ))),
    }
}

fn outside(source: &str) -> DbError {
    refused(format!(
        "source `{source}` lies outside the import directory (--import-dir)"
    ))
}

/// The files of a source: the file itself, or a directory's files of the
/// format's extension (`*.csv`, `*.nt`, ...), plain, `.gz` or `.zst`, by
/// name (not recursing), each of which must itself resolve inside `root`
/// (a symlink out is refused).
pub(crate) fn list(path: &Path, root: &Path, format: InputFormat) -> Result<Vec<PathBuf>, DbError> {
    if !path.is_dir() {
        return Ok(vec![path.to_path_buf()]);
    }
    let entries =
        std::fs::read_dir(path).map_err(|e| refused(format!("{}: {e}", path.display())))?;
    let mut files = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| refused(format!("{}: {e}", path.display())))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if !has_extension(&name, format) {
            continue;
        }
        let file = entry
            .path()
            .canonicalize()
            .map_err(|e| refused(format!("{}: {e}", entry.path().display())))?;
        if !file.starts_with(root) || !file.is_file() {
            return Err(outside(&entry.path().display().to_string()));
        }
        files.push(file);
    }
    if files.is_empty() {
        return Err(none_listed(&path.display().to_string(), format, "files"));
    }
    files.sort();
    Ok(files)
}

/// Whether a directory's file (or a prefix's object) named `name` is one
/// of `format`'s inputs: its extension, before any `.gz` / `.zst`.
pub(crate) fn has_extension(name: &str, format: InputFormat) -> bool {
    let stem = name.trim_end_matches(".gz").trim_end_matches(".zst");
    format.extensions().iter().any(|ext| stem.ends_with(ext))
}

/// A directory (or prefix) holding no input of `format`.
pub(crate) fn none_listed(place: &str, format: InputFormat, what: &str) -> DbError {
    refused(format!(
        "{place}: no *{} {what} (plain, .gz or .zst)",
        format.extensions().join(", *")
    ))
}

/// One input of a load: a file, or an object of an `s3://` source.
#[derive(Clone)]
pub(crate) enum InputFile {
    Local(PathBuf),
    Object {
        /// The bucket's client, shared by the source's objects.
        store: Arc<S3Store>,
        key: String,
        size: u64,
    },
}

impl InputFile {
    /// How errors and the status name it: its path, or `s3://bucket/key`.
    pub(crate) fn name(&self) -> String {
        match self {
            InputFile::Local(path) => path.display().to_string(),
            InputFile::Object { store, key, .. } => store.location(key).display().to_string(),
        }
    }

    /// Its size in bytes (compressed, for a compressed input).
    pub(crate) fn size(&self) -> u64 {
        match self {
            InputFile::Local(path) => std::fs::metadata(path).map_or(0, |m| m.len()),
            InputFile::Object { size, .. } => *size,
        }
    }

    fn open(&self) -> std::io::Result<Box<dyn Read + Send>> {
        Ok(match self {
            InputFile::Local(path) => Box::new(File::open(path)?),
            InputFile::Object { store, key, .. } => Box::new(store.reader(key)),
        })
    }
}

/// A file's bytes, counted into the load's progress as they are read.
struct Counted {
    file: Box<dyn Read + Send>,
    bytes: Arc<AtomicU64>,
}

impl Read for Counted {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.file.read(buf)?;
        self.bytes.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

/// The records of one input file.
pub(crate) type Records = Box<dyn Iterator<Item = Result<Record, Error>> + Send>;

/// An opened input file (a CSV file's header read).
pub(crate) struct Input {
    pub(crate) name: String,
    pub(crate) reader: Records,
    /// Whether its records are nodes only (CSV node files go first).
    pub(crate) nodes_only: bool,
}

/// Opens every file and orders them node files first (each group by
/// name), so relationships find endpoints created by the same load. An
/// RDF document yields its vertices before its edges, so it needs no
/// order; its blank nodes are scoped by `blank_scope`.
pub(crate) fn open_all(
    files: &[InputFile],
    format: InputFormat,
    blank_scope: &str,
    bytes: &Arc<AtomicU64>,
) -> Result<Vec<Input>, Box<(String, Error)>> {
    let mut inputs = Vec::with_capacity(files.len());
    for input in files {
        let name = input.name();
        let io = |source| Error::Io {
            file: name.clone(),
            source,
        };
        let file = input.open().map_err(|e| Box::new((name.clone(), io(e))))?;
        let counted = Counted {
            file,
            bytes: bytes.clone(),
        };
        let failed = |e| Box::new((name.clone(), e));
        let input = match format {
            InputFormat::Csv(csv) => csv_input(&name, counted, csv).map_err(failed)?,
            InputFormat::Rdf(syntax) => Input {
                reader: Box::new(
                    RdfReader::new(&name, counted, syntax, blank_scope)
                        .map_err(failed)?
                        .with_length(input.size()),
                ),
                name,
                nodes_only: false,
            },
        };
        inputs.push(input);
    }
    inputs.sort_by_key(|input| !input.nodes_only);
    Ok(inputs)
}

fn csv_input(name: &str, input: Counted, format: Format) -> Result<Input, Error> {
    let reader = Reader::new(name, input, format, &Options::default())?;
    Ok(Input {
        name: name.to_owned(),
        nodes_only: reader.header().kind() == FileKind::Nodes,
        reader: Box::new(reader),
    })
}
