//! Which files a load reads: the source URI resolved inside the import
//! directory (symlinks and `..` resolved first, so neither leads out), a
//! directory listed, and every file's header read to put node files
//! before relationship files. Objects of an `s3://` source are listed by
//! `s3_source.rs` and opened here like files.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

use nereid_errors::Status;
use nereid_loader_formats::{
    piece_starts, Error, FileKind, InputFormat, IriNumbers, Options, RdfReader, Reached, Reader,
    Record,
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

    /// Its bytes from `offset` on (a local file's: only those are read in
    /// pieces).
    fn open_at(&self, offset: u64) -> std::io::Result<Box<dyn Read + Send>> {
        let InputFile::Local(path) = self else {
            return Err(std::io::Error::other("only a local file is read in pieces"));
        };
        let mut file = File::open(path)?;
        file.seek(SeekFrom::Start(offset))?;
        Ok(Box::new(file))
    }
}

/// A file's bytes, counted into the load's progress as they are read,
/// up to `left` (a piece's reader reads a little past its piece's end).
struct Counted {
    file: Box<dyn Read + Send>,
    bytes: Arc<AtomicU64>,
    left: u64,
}

impl Read for Counted {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.file.read(buf)?;
        let counted = self.left.min(n as u64);
        self.left -= counted;
        self.bytes.fetch_add(counted, Ordering::Relaxed);
        Ok(n)
    }
}

/// Bytes of an uncompressed local CSV file per piece read by one parse
/// worker at most (`nereid_loader_formats::piece_starts`): a file larger
/// than this is cut into a multiple of the workers' number of pieces, so
/// its pieces alone share the cores evenly. Files of SNB SF0.1 run to
/// 18 MB; every piece costs a row vector (and its last huge page) and a
/// header read, so smaller pieces only add to that
/// (docs/adr/0203-load-read-in-pieces-largest-first.md).
const PIECE_BYTES: u64 = 8 << 20;

/// One piece of a file read in pieces: where it starts, and (filled by
/// its reader) where the reader stopped, which tells whether the next
/// piece began at a row and on which line (`parse::stitch`).
#[derive(Clone)]
pub(crate) struct Piece {
    /// Its place among the file's pieces (0 reads the header).
    pub(crate) index: usize,
    pub(crate) start: u64,
    pub(crate) reached: Arc<OnceLock<Reached>>,
}

/// How the bulk path reads CSV files: relationship ends in canonical
/// decimal as numbers, and files larger than `piece_bytes` in pieces, as
/// many as a multiple of `workers`.
#[derive(Clone, Copy)]
pub(crate) struct Bulk {
    pub(crate) piece_bytes: u64,
    pub(crate) workers: u64,
}

impl Default for Bulk {
    fn default() -> Self {
        let workers = std::thread::available_parallelism().map_or(1, |n| n.get());
        Bulk {
            piece_bytes: PIECE_BYTES,
            workers: workers as u64,
        }
    }
}

/// What a piece's reader needs beyond its [`Piece`]: the later pieces'
/// starts, and the bytes it counts.
struct PieceRead {
    piece: Piece,
    later: Vec<u64>,
    len: u64,
}

/// The records of one input file.
pub(crate) type Records = Box<dyn Iterator<Item = Result<Record, Error>> + Send>;

/// An input file ready to be read (a CSV file's header already checked).
pub(crate) struct Input {
    pub(crate) name: String,
    /// Opens the file when first pulled (see [`open_all`]).
    pub(crate) reader: Deferred,
    /// Whether its records are nodes only (CSV node files go first).
    pub(crate) nodes_only: bool,
    /// Its size in bytes, as listed (a piece's, of a file read in
    /// pieces): the larger inputs are read first (`nereid_fan_out`).
    pub(crate) size: u64,
    /// Which piece of its file it is, if the file is read in pieces.
    pub(crate) piece: Option<Piece>,
    /// A bulk-path CSV relationship file's: its records come without
    /// them (`Reader::end_spaces_apart`).
    pub(crate) end_spaces: EndSpaces,
}

/// The id spaces of a relationship file's start and end columns, the
/// same for all its rows (`nereid_loader_formats::Header::end_spaces`).
#[derive(Clone, Default)]
pub(crate) struct EndSpaces {
    pub(crate) names: [Option<Arc<str>>; 2],
    /// Where the load's id index keeps each space's numbered vertices
    /// (`LoadKeys::number_slot`; `None` inside: the load has none there),
    /// once the loader looked them up: once per file instead of a scan of
    /// the spaces by name per end (benches/RESULTS.md, session 38).
    pub(crate) slots: Option<[Option<usize>; 2]>,
}

/// Checks every file and orders them node files first (each group by
/// name), so relationships find endpoints created by the same load. An
/// RDF document yields its vertices before its edges, so it needs no
/// order; its blank nodes are scoped by `blank_scope`.
///
/// A CSV file's header is read here, to order the files and to refuse a
/// bad header before anything is applied; the file is then closed and
/// opened again when its records are first pulled. So a load holds open
/// only the files its readers are reading (one per parse worker), not
/// every file of the source: an `s3://` prefix of thousands of objects
/// would otherwise keep thousands of connections waiting, which servers
/// drop, and a directory of thousands of files would run out of file
/// descriptors.
///
/// With `fail_on_error`, an RDF document's records come as each piece of
/// it is parsed (`RdfReader::streamed`): an error fails the whole load,
/// so the records yielded before it are never applied. With `numbers`,
/// RDF records are numbered by that dictionary (`RdfReader::numbered`).
/// With `bulk` (the bulk path, which looks such ids up by number),
/// CSV relationship ends in canonical decimal come as numbers
/// (`Reader::decimal_ends`) and without their id spaces, kept once in
/// [`Input::end_spaces`] (`Reader::end_spaces_apart`), and an uncompressed local CSV file larger
/// than its `piece_bytes` is read in pieces, one input each, in order (its
/// rows put together again by `parse::stitch`).
pub(crate) fn open_all(
    files: &[InputFile],
    format: InputFormat,
    blank_scope: &str,
    bytes: &Arc<AtomicU64>,
    fail_on_error: bool,
    numbers: Option<Arc<IriNumbers>>,
    bulk: Option<Bulk>,
) -> Result<Vec<Input>, Box<(String, Error)>> {
    let decimal_ends = bulk.is_some();
    let mut inputs = Vec::with_capacity(files.len());
    for input in files {
        let name = input.name();
        let failed = |e| Box::new((name.clone(), e));
        let size = input.size();
        let mut pieces = Vec::new();
        let mut end_spaces = EndSpaces::default();
        let nodes_only = match format {
            InputFormat::Csv(csv) => {
                let file = input.open().map_err(|source| failed(io(&name, source)))?;
                let header = Reader::new(&name, file, csv, &Options::default()).map_err(failed)?;
                if let Some(bulk) = bulk.filter(|_| !header.is_compressed()) {
                    pieces =
                        piece_starts_of(input, size, bulk).map_err(|e| failed(io(&name, e)))?;
                }
                if decimal_ends {
                    end_spaces.names = header.header().end_spaces();
                }
                header.header().kind() == FileKind::Nodes
            }
            InputFormat::Rdf(_) => false,
        };
        let opener = |piece| {
            Deferred::Closed(Box::new(Opener {
                input: input.clone(),
                name: name.clone(),
                format,
                blank_scope: blank_scope.to_owned(),
                bytes: bytes.clone(),
                streamed: fail_on_error,
                numbers: numbers.clone(),
                decimal_ends,
                piece,
            }))
        };
        if pieces.is_empty() {
            inputs.push(Input {
                reader: opener(None),
                name,
                nodes_only,
                size,
                piece: None,
                end_spaces,
            });
            continue;
        }
        let starts: Vec<u64> = std::iter::once(0).chain(pieces).collect();
        for (index, &start) in starts.iter().enumerate() {
            let end = starts.get(index + 1).copied().unwrap_or(size);
            let piece = Piece {
                index,
                start,
                reached: Arc::default(),
            };
            let read = PieceRead {
                piece: piece.clone(),
                later: starts[index + 1..].to_vec(),
                len: end - start,
            };
            inputs.push(Input {
                name: name.clone(),
                reader: opener(Some(read)),
                nodes_only,
                size: end - start,
                piece: Some(piece),
                end_spaces: end_spaces.clone(),
            });
        }
    }
    inputs.sort_by_key(|input| !input.nodes_only);
    Ok(inputs)
}

/// The starts of the pieces after the first of a local file of `size`
/// bytes large enough to be read in pieces; none otherwise.
fn piece_starts_of(input: &InputFile, size: u64, bulk: Bulk) -> std::io::Result<Vec<u64>> {
    let InputFile::Local(path) = input else {
        return Ok(Vec::new());
    };
    let pieces = size.div_ceil(bulk.piece_bytes.max(1));
    if pieces < 2 {
        return Ok(Vec::new());
    }
    let workers = bulk.workers.max(1);
    piece_starts(&File::open(path)?, size, pieces.div_ceil(workers) * workers)
}

fn io(name: &str, source: std::io::Error) -> Error {
    Error::Io {
        file: name.to_owned(),
        source,
    }
}

/// What opening one input's records takes.
pub(crate) struct Opener {
    input: InputFile,
    name: String,
    format: InputFormat,
    blank_scope: String,
    bytes: Arc<AtomicU64>,
    streamed: bool,
    numbers: Option<Arc<IriNumbers>>,
    decimal_ends: bool,
    /// Which piece of the file it reads, if the file is read in pieces.
    piece: Option<PieceRead>,
}

impl Opener {
    fn open(self) -> Result<Opened, Error> {
        let opened = match &self.piece {
            // A later piece's reader reads the header, then its own bytes.
            Some(read) if read.piece.start > 0 => self.input.open_at(read.piece.start),
            _ => self.input.open(),
        };
        let file = opened.map_err(|e| io(&self.name, e))?;
        let counted = Counted {
            file,
            bytes: self.bytes,
            left: self.piece.as_ref().map_or(u64::MAX, |read| read.len),
        };
        Ok(match self.format {
            InputFormat::Csv(csv) => {
                let options = Options::default();
                let mut reader = match &self.piece {
                    Some(read) if read.piece.start > 0 => {
                        let head = self.input.open().map_err(|e| io(&self.name, e))?;
                        Reader::new(&self.name, head, csv, &options)?
                            .rows_from(counted, read.piece.start)
                    }
                    _ => Reader::new(&self.name, counted, csv, &options)?,
                };
                if let Some(read) = &self.piece {
                    reader = reader.stop_at(&read.later, read.piece.reached.clone());
                }
                Opened::Csv(Box::new(match self.decimal_ends {
                    true => reader.decimal_ends().end_spaces_apart(),
                    false => reader,
                }))
            }
            InputFormat::Rdf(syntax) => {
                let mut reader = RdfReader::new(&self.name, counted, syntax, &self.blank_scope)?;
                if let Some(numbers) = self.numbers {
                    reader = reader.numbered(numbers);
                }
                Opened::Rdf(match self.streamed {
                    true => Box::new(reader.streamed()),
                    false => Box::new(reader),
                })
            }
        })
    }
}

/// An input's records, its file opened when they are first pulled; a file
/// that cannot be opened then yields its error as its only item.
///
/// Why a CSV reader is held as itself, not as an iterator object: a
/// record is ~200 bytes, and each layer of dynamic dispatch between the
/// reader and the parse worker returned it through one more slot, a copy
/// per layer per row (the workers' profile had these moves at ~4.5% of
/// the read phase; benches/RESULTS.md, session 38).
pub(crate) enum Deferred {
    Closed(Box<Opener>),
    Open(Opened),
    /// Its file could not be opened: the error is its only item.
    Failed(Box<Error>),
    Done,
}

/// An opened input's reader.
pub(crate) enum Opened {
    Csv(Box<Reader<'static>>),
    Rdf(Records),
}

impl Iterator for Deferred {
    type Item = Result<Record, Error>;

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        let next = match self {
            Deferred::Open(Opened::Csv(reader)) => reader.next(),
            Deferred::Open(Opened::Rdf(records)) => records.next(),
            Deferred::Done => return None,
            Deferred::Failed(_) => {
                let Deferred::Failed(e) = std::mem::replace(self, Deferred::Done) else {
                    return None;
                };
                return Some(Err(*e));
            }
            Deferred::Closed(_) => {
                self.open_now();
                return self.next();
            }
        };
        if next.is_none() {
            // Closes the file as soon as it is read.
            *self = Deferred::Done;
        }
        next
    }
}

/// After its `None` a `Deferred` is `Done` and yields nothing more.
impl std::iter::FusedIterator for Deferred {}

impl Deferred {
    /// Its CSV reader, the file opened now if it was not yet (a file that
    /// cannot be opened then yields its error as its only item). Why a
    /// worker iterates the reader itself: a record (~200 bytes) pulled
    /// through this enum's `next` was copied once more per row (a
    /// `memcpy` call each; benches/RESULTS.md, session 39).
    pub(crate) fn csv(&mut self) -> Option<&mut Reader<'static>> {
        self.open_now();
        match self {
            Deferred::Open(Opened::Csv(reader)) => Some(reader),
            _ => None,
        }
    }

    /// Opens a closed input's file: open, or failed with the error it
    /// yields next.
    fn open_now(&mut self) {
        if let Deferred::Closed(_) = self {
            let Deferred::Closed(opener) = std::mem::replace(self, Deferred::Done) else {
                return;
            };
            *self = match opener.open() {
                Ok(opened) => Deferred::Open(opened),
                Err(e) => Deferred::Failed(Box::new(e)),
            };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nereid_loader_formats::Format;

    #[test]
    fn files_are_opened_when_read_not_when_listed() {
        let dir = tempfile::tempdir().unwrap();
        let write = |name: &str, text: &str| {
            let path = dir.path().join(name);
            std::fs::write(&path, text).unwrap();
            InputFile::Local(path)
        };
        let knows = write("knows.csv", ":START_ID,:END_ID,:TYPE\n1,2,KNOWS\n");
        let people = write("people.csv", ":ID,name\n1,Ann\n2,Bob\n");
        let bytes = Arc::default();
        let format = InputFormat::Csv(Format::OpenCypher);
        let inputs = open_all(
            &[knows.clone(), people],
            format,
            "b",
            &bytes,
            true,
            None,
            None,
        )
        .unwrap();
        // Headers were read (node files first), no record yet.
        let order: Vec<bool> = inputs.iter().map(|i| i.nodes_only).collect();
        assert_eq!(order, [true, false]);
        assert_eq!(bytes.load(Ordering::Relaxed), 0);
        // A file gone after listing fails when its turn comes, not before:
        // it was not held open meanwhile.
        let InputFile::Local(path) = &knows else {
            unreachable!()
        };
        std::fs::remove_file(path).unwrap();
        let mut inputs = inputs.into_iter();
        let people: Vec<_> = inputs.next().unwrap().reader.collect();
        assert_eq!(people.len(), 2);
        assert!(people.iter().all(Result::is_ok));
        assert!(bytes.load(Ordering::Relaxed) > 0);
        // Asked for its reader, the gone file has none, and yields its
        // error once, as when iterated.
        let mut reader = inputs.next().unwrap().reader;
        assert!(reader.csv().is_none());
        let knows: Vec<_> = reader.by_ref().collect();
        assert!(reader.next().is_none());
        assert!(
            matches!(knows.as_slice(), [Err(Error::Io { source, .. })] if source.kind() == std::io::ErrorKind::NotFound),
            "{:?}",
            knows
                .iter()
                .map(|r| r.as_ref().err().map(ToString::to_string))
                .collect::<Vec<_>>()
        );
    }

    #[test]
    fn a_csv_reader_taken_out_reads_the_same_records() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("people.csv");
        std::fs::write(&path, ":ID,name\n1,Ann\n2,Bob\n").unwrap();
        let bytes = Arc::default();
        let format = InputFormat::Csv(Format::OpenCypher);
        let open = || {
            let files = [InputFile::Local(path.clone())];
            let mut inputs = open_all(&files, format, "b", &bytes, true, None, None).unwrap();
            inputs.remove(0).reader
        };
        let iterated: Vec<_> = open().map(Result::unwrap).collect();
        let mut deferred = open();
        let taken: Vec<_> = deferred
            .csv()
            .expect("a CSV file's reader")
            .map(Result::unwrap)
            .collect();
        assert_eq!(taken, iterated);
        assert_eq!(taken.len(), 2);
    }
}
