//! Loads by id: submitted, queued, run one at a time on the loader's
//! thread, and kept (with their final state) for status requests; loads
//! that ended are also saved in the data directory (`history.rs`), so
//! their status and what they loaded outlive a restart.

use std::collections::{BTreeMap, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Weak};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use parking_lot::{Condvar, Mutex};

use super::apply::{self, Ended};
use super::history::{History, Record};
use super::mode::{LoadMode, Loaded};
use super::progress::LoadErrorEntry;
use super::progress::{LoadPhase, LoadState, LoadStatus, Progress};
use super::s3_source;
use super::source::{self, InputFile};
use super::LoadRequest;
use crate::db::{Database, DbError};

/// The loads of one database. Dropping it stops its thread after the
/// running load (queued loads are dropped).
pub struct Loader {
    shared: Arc<Shared>,
}

struct Shared {
    db: Weak<Database>,
    import_dir: PathBuf,
    jobs: Mutex<BTreeMap<u64, Arc<Job>>>,
    queue: Mutex<VecDeque<Arc<Job>>>,
    wake: Condvar,
    closed: AtomicBool,
    next: AtomicU64,
    /// Makes ids differ between runs of the process.
    epoch: u64,
    /// Where ended loads are saved.
    history: History,
    /// Loads that ended before this process started, in the order they
    /// ended.
    past: Vec<Record>,
}

struct Job {
    id: String,
    /// Its place in submission order.
    seq: u64,
    request: LoadRequest,
    /// The files of a `file://` source, listed when it was submitted (an
    /// `s3://` source is listed when the load runs).
    files: Vec<InputFile>,
    progress: Progress,
    cancel: AtomicBool,
    state: Mutex<JobState>,
    /// Once it ended: the files of its source applied by it and the loads
    /// of the source before it (what a later `RESUME` skips; `mode.rs`).
    loaded: Mutex<Option<Loaded>>,
}

struct JobState {
    state: LoadState,
    since: Instant,
    ended: Option<Instant>,
    failure: Option<DbError>,
}

impl Loader {
    /// A loader for `db` reading sources only inside `import_dir`, saving
    /// ended loads in `history_dir` (and reading those saved before).
    pub fn new(
        db: &Arc<Database>,
        import_dir: &Path,
        history_dir: &Path,
    ) -> std::io::Result<Loader> {
        let epoch = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or_default();
        let history = History::new(history_dir);
        let shared = Arc::new(Shared {
            db: Arc::downgrade(db),
            import_dir: import_dir.to_path_buf(),
            jobs: Mutex::new(BTreeMap::new()),
            queue: Mutex::new(VecDeque::new()),
            wake: Condvar::new(),
            closed: AtomicBool::new(false),
            next: AtomicU64::new(1),
            epoch,
            past: history.read_all(),
            history,
        });
        let worker = shared.clone();
        std::thread::Builder::new()
            .name("nereid-loader".into())
            .spawn(move || worker.work())?;
        Ok(Loader { shared })
    }

    /// Queues a load; answers its id at once. A `file://` source is
    /// resolved now, so one outside the import directory is refused here;
    /// an `s3://` source is listed when the load runs (a request to the
    /// bucket is no part of answering the submission).
    pub fn submit(&self, request: LoadRequest) -> Result<String, DbError> {
        if request.mode == LoadMode::Resume && !self.shared.has_earlier(&request, u64::MAX) {
            return Err(DbError {
                status: nereid_errors::Status::RequestInvalid,
                message: format!(
                    "mode RESUME: no earlier load of `{}` to resume",
                    request.source
                ),
            });
        }
        if s3_source::is_s3(&request.source) {
            return Ok(self.enqueue(request, Vec::new()));
        }
        let root = self.shared.root()?;
        let path = source::resolve(&request.source, &self.shared.import_dir)?;
        let files = source::list(&path, &root, request.format)?;
        let files = files.into_iter().map(InputFile::Local).collect();
        Ok(self.enqueue(request, files))
    }

    /// Runs a load of the files named, wherever they are (the offline
    /// `nereid import`, run by whoever owns the data directory, so not
    /// confined to the import directory), showing its status to `watch`
    /// every `every` until it ends.
    pub fn run_files(
        &self,
        files: Vec<PathBuf>,
        request: LoadRequest,
        every: std::time::Duration,
        watch: &mut dyn FnMut(&LoadStatus),
    ) -> Result<LoadStatus, DbError> {
        for file in &files {
            if !file.is_file() {
                return Err(DbError {
                    status: nereid_errors::Status::ExternalResourceFailed,
                    message: format!("{} is not a readable file", file.display()),
                });
            }
        }
        let id = self.enqueue(request, files.into_iter().map(InputFile::Local).collect());
        let job = self.shared.find(&id).ok_or_else(|| vanished(&id))?;
        let mut shown = Instant::now();
        loop {
            let status = job.status();
            if status.state.is_final() {
                return Ok(status);
            }
            if shown.elapsed() >= every {
                watch(&status);
                shown = Instant::now();
            }
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
    }

    fn enqueue(&self, request: LoadRequest, files: Vec<InputFile>) -> String {
        let seq = self.shared.next.fetch_add(1, Ordering::Relaxed);
        let job = Arc::new(Job {
            id: format!("{:x}-{seq}", self.shared.epoch),
            seq,
            request,
            files,
            progress: Progress::default(),
            cancel: AtomicBool::new(false),
            state: Mutex::new(JobState {
                state: LoadState::InQueue,
                since: Instant::now(),
                ended: None,
                failure: None,
            }),
            loaded: Mutex::new(None),
        });
        let id = job.id.clone();
        self.shared.jobs.lock().insert(seq, job.clone());
        self.shared.queue.lock().push_back(job);
        self.shared.wake.notify_one();
        id
    }

    /// Runs a load to its end and returns its final status (as a one-query
    /// front end such as `neptune.load` needs it): queued behind earlier
    /// loads like any other, waited for on the calling thread.
    pub fn run(&self, request: LoadRequest) -> Result<LoadStatus, DbError> {
        self.run_until(request, &|| false)
    }

    /// [`Loader::run`], cancelling the load once `stopped` says so (the
    /// query that asked for it was cancelled or timed out).
    pub fn run_until(
        &self,
        request: LoadRequest,
        stopped: &dyn Fn() -> bool,
    ) -> Result<LoadStatus, DbError> {
        let id = self.submit(request)?;
        let job = self.shared.find(&id).ok_or_else(|| vanished(&id))?;
        loop {
            let status = job.status();
            if status.state.is_final() {
                return Ok(status);
            }
            if stopped() {
                self.cancel(&id);
            }
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
    }

    /// The database loaded into, while it is open.
    pub(crate) fn database(&self) -> Option<Arc<Database>> {
        self.shared.db.upgrade()
    }

    pub fn status(&self, id: &str) -> Option<LoadStatus> {
        match self.shared.find(id) {
            Some(job) => Some(job.status()),
            None => self.shared.past_load(id)?.status(),
        }
    }

    /// Every load's id, oldest first (those saved before this start first).
    pub fn list(&self) -> Vec<String> {
        let past = self.shared.past.iter().map(|record| record.id.clone());
        let jobs = self.shared.jobs.lock();
        past.chain(jobs.values().map(|job| job.id.clone()))
            .collect()
    }

    /// Asks a queued or running load to stop (a running one rolls back);
    /// `None` for an unknown id, else its state after asking.
    pub fn cancel(&self, id: &str) -> Option<LoadState> {
        let Some(job) = self.shared.find(id) else {
            // A load saved before this start has ended.
            return self.shared.past_load(id)?.status().map(|s| s.state);
        };
        job.cancel.store(true, Ordering::Relaxed);
        let mut state = job.state.lock();
        if state.state == LoadState::InQueue {
            state.state = LoadState::Cancelled;
            state.ended = Some(Instant::now());
        }
        Some(state.state)
    }
}

/// A load the loader no longer knows (it keeps every load while it lives,
/// so this is a bug, reported rather than panicked on).
fn vanished(id: &str) -> DbError {
    DbError {
        status: nereid_errors::Status::General,
        message: format!("load {id} vanished from the loader"),
    }
}

impl Drop for Loader {
    fn drop(&mut self) {
        self.shared.closed.store(true, Ordering::Relaxed);
        let _queue = self.shared.queue.lock();
        self.shared.wake.notify_all();
    }
}

impl Shared {
    fn root(&self) -> Result<PathBuf, DbError> {
        self.import_dir.canonicalize().map_err(|e| DbError {
            status: nereid_errors::Status::ExternalResourceFailed,
            message: format!(
                "the import directory {} cannot be read: {e}",
                self.import_dir.display()
            ),
        })
    }

    fn find(&self, id: &str) -> Option<Arc<Job>> {
        let seq: u64 = id.rsplit_once('-')?.1.parse().ok()?;
        let job = self.jobs.lock().get(&seq)?.clone();
        (job.id == id).then_some(job)
    }

    fn work(&self) {
        loop {
            let job = {
                let mut queue = self.queue.lock();
                loop {
                    if self.closed.load(Ordering::Relaxed) {
                        return;
                    }
                    if let Some(job) = queue.pop_front() {
                        break job;
                    }
                    self.wake.wait(&mut queue);
                }
            };
            let Some(db) = self.db.upgrade() else { return };
            let previous = self.loaded_before(&job);
            job.run(&db, previous, &self.history);
        }
    }

    /// Earlier loads of the same source and format, in submission order.
    fn earlier(&self, request: &LoadRequest, seq: u64) -> Vec<Arc<Job>> {
        let jobs = self.jobs.lock();
        jobs.range(..seq)
            .map(|(_, job)| job)
            .filter(|job| {
                job.request.source == request.source && job.request.format == request.format
            })
            .cloned()
            .collect()
    }

    fn has_earlier(&self, request: &LoadRequest, seq: u64) -> bool {
        !self.earlier(request, seq).is_empty() || self.last_past(request).is_some()
    }

    /// What the last earlier load of `job`'s source had loaded when it
    /// ended (loads run in order, so it has ended), in this process or
    /// saved before it started; `None` without one.
    fn loaded_before(&self, job: &Job) -> Option<Loaded> {
        match self.earlier(&job.request, job.seq).pop() {
            Some(last) => last.loaded.lock().clone(),
            None => {
                let record = self.last_past(&job.request)?;
                Some(Loaded::new(record.loaded.iter().cloned().collect()))
            }
        }
    }

    /// The last load of `request`'s source and format saved before this
    /// process started.
    fn last_past(&self, request: &LoadRequest) -> Option<&Record> {
        self.past.iter().rev().find(|record| {
            record.source == request.source && record.format == request.format.name()
        })
    }

    fn past_load(&self, id: &str) -> Option<&Record> {
        self.past.iter().find(|record| record.id == id)
    }
}

impl Job {
    /// Runs the load; `previous` is what the last earlier load of its
    /// source had loaded, which a resuming load skips.
    fn run(&self, db: &Arc<Database>, previous: Option<Loaded>, history: &History) {
        let before = previous.unwrap_or_default();
        let skipped = match self.request.mode {
            LoadMode::New => Loaded::default(),
            LoadMode::Auto | LoadMode::Resume => before.clone(),
        };
        {
            let mut state = self.state.lock();
            if state.state != LoadState::InQueue {
                drop(state);
                *self.loaded.lock() = Some(before);
                self.save(history, self.status());
                return;
            }
            state.state = LoadState::InProgress;
            state.since = Instant::now();
        }
        let mut read = Vec::new();
        let outcome = self.listed(db).and_then(|listed| {
            let files = listed.as_deref().unwrap_or(&self.files);
            let files: Vec<InputFile> = files
                .iter()
                .filter(|file| !skipped.contains(&file.name()))
                .cloned()
                .collect();
            read = files.iter().map(InputFile::name).collect();
            if files.is_empty() {
                return Ok(());
            }
            apply::run(
                db,
                &self.request,
                &files,
                &self.id,
                &self.progress,
                &self.cancel,
            )
        });
        let loaded = match outcome {
            Ok(()) if !read.is_empty() => {
                let mut all = (*before).clone();
                all.extend(read);
                Loaded::new(all)
            }
            _ => before,
        };
        *self.loaded.lock() = Some(loaded);
        let (ended, failure) = match outcome {
            Ok(()) => (LoadState::Completed, None),
            Err(Ended::Cancelled) => (LoadState::Cancelled, None),
            Err(Ended::Failed(e)) => {
                tracing::warn!(load = %self.id, "load failed: {e}");
                (LoadState::Failed, Some(e))
            }
        };
        let now = Instant::now();
        // Saved before the state turns final, so that whoever sees the
        // load ended (a `neptune.load` caller, a status request) can count
        // on its record.
        let mut status = self.status();
        status.state = ended;
        status.failure = failure.clone();
        status.elapsed = now - self.state.lock().since;
        self.save(history, status);
        let mut state = self.state.lock();
        state.ended = Some(now);
        state.state = ended;
        state.failure = failure;
    }

    /// Saves the ended load (a failure to save is logged: the load itself
    /// is done, and only its status after a restart is lost).
    fn save(&self, history: &History, status: LoadStatus) {
        let loaded = self
            .loaded
            .lock()
            .as_ref()
            .map(|files| files.iter().cloned().collect())
            .unwrap_or_default();
        let record = Record::of(&status, self.request.format.name(), loaded);
        if let Err(e) = history.save(&record) {
            tracing::warn!(load = %self.id, "the load's status was not saved: {e}");
        }
    }

    /// The objects of an `s3://` source, listed now (`None` for a
    /// `file://` source, listed when submitted); a listing that fails
    /// fails the load, reported like an unreadable file.
    fn listed(&self, db: &Database) -> Result<Option<Vec<InputFile>>, Ended> {
        let source = &self.request.source;
        if !s3_source::is_s3(source) {
            return Ok(None);
        }
        let settings = db.s3_settings();
        s3_source::list(source, &settings, self.request.format)
            .map(Some)
            .map_err(|e| {
                self.progress.error(LoadErrorEntry {
                    file: source.clone(),
                    line: 0,
                    column: 0,
                    status: e.status,
                    message: e.message.clone(),
                });
                Ended::Failed(e)
            })
    }

    fn status(&self) -> LoadStatus {
        let state = self.state.lock();
        let mut status = LoadStatus {
            id: self.id.clone(),
            state: state.state,
            source: self.request.source.clone(),
            files_total: 0,
            files_done: 0,
            records: 0,
            bytes: 0,
            bytes_total: 0,
            phase: LoadPhase::Reading,
            property_values: 0,
            elapsed: state.ended.unwrap_or_else(Instant::now) - state.since,
            errors: Vec::new(),
            error_count: 0,
            failure: state.failure.clone(),
        };
        drop(state);
        self.progress.read_into(&mut status);
        if status.state == LoadState::InQueue {
            status.files_total = self.files.len() as u64;
        }
        status
    }
}
