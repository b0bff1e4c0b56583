//! PULL and DISCARD: stream (or skip) up to `n` records of one open result.
//!
//! A result is pulled in *slices*: one pool job pulls and encodes rows for
//! at most [`SLICE_TIME`] or [`SLICE_BYTES`], then hands the bytes back and
//! ends; this task writes them and queues the next slice. So a client that
//! does not read holds no execution thread (only its connection task waits
//! on the socket), memory per stream is one slice, and long queries take
//! turns with short ones: a query whose slice ran out of time queues its
//! next slice in the pool's long lane (docs/adr/0082-cancellation-and-time-sliced-pulls.md).
//! A RESET or a client that leaves sets the query's cancel flag, which
//! every operator checks before each batch.

use super::stopper::Stopper;
use super::{Handled, HandlerError, OpenStream, Session, State};
use crate::bolt::backend::{Backend, ResultStream};
use crate::bolt::failure::Failure;
use crate::bolt::notifications::{self, Outcome};
use crate::bolt::pool::{Lane, PoolError};
use crate::bolt::response;
use crate::bolt::response::RecordWriter;
use nereid_engine::{DbError, Summary};
use nereid_errors::Status;
use nereid_packstream::encode::MAX_ENCODE_DEPTH;
use nereid_packstream::{EncodeError, PackMap, PackValue, StructFormat};
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};
use tokio::io::AsyncWrite;
use tokio::sync::oneshot;
use tokio::time::{Interval, MissedTickBehavior};

/// An empty chunk: Bolt's keep-alive between messages.
const NOOP: [u8; 2] = [0, 0];

/// The longest a slice pulls before it hands its rows back (checked
/// between chunks of [`CHUNK_ROWS`]).
const SLICE_TIME: Duration = Duration::from_millis(10);

/// The most encoded bytes a slice holds before it hands them back.
const SLICE_BYTES: usize = 256 * 1024;

/// Rows pulled between two checks of the slice's clock and size.
const CHUNK_ROWS: i64 = 256;

/// How a slice ended.
enum SliceEnd {
    /// The PULL is answered: `n` rows were sent or the result ended.
    Done { has_more: bool },
    /// The slice's time or bytes ran out first; `rows` rows were sent.
    Paused { rows: i64, out_of_time: bool },
}

/// What a slice job hands back (its stream travels beside it).
pub(super) struct Slice {
    bytes: Vec<u8>,
    result: Result<SliceEnd, DbError>,
    summary: Option<Summary>,
    encode_error: Option<EncodeError>,
}

/// A result's first slice, pulled by its RUN's own pool job for the PULL
/// of `n` rows that was queued right behind the RUN (see [`opened`]).
pub(super) struct FirstSlice {
    n: i64,
    slice: Slice,
}

/// A RUN's result as an open stream, on the pool beside the database call:
/// its field names read and, when a PULL of `n` rows waits right behind the
/// RUN (`ahead`: drivers send RUN and PULL together), its first slice
/// pulled in the same job. A short query then costs one hand-off to the
/// pool and back instead of two (each a thread wake-up on either side).
/// The slice is answered when the PULL is handled, exactly as if that PULL
/// had pulled it; a RESET or departed client stops it through `stopper`.
pub(super) fn opened<R: ResultStream>(
    results: R,
    ahead: Option<i64>,
    format: StructFormat,
    stopper: &Stopper,
) -> (OpenStream<R>, Vec<String>) {
    let fields = results.fields().to_vec();
    let mut open = OpenStream {
        qid: 0,
        results,
        had_record: false,
        first: None,
    };
    let stopped = stopper.publish(open.results.cancel_handle());
    if let (Some(n), false) = (ahead, stopped) {
        let slice = pull_slice(&mut open, n, false, format);
        open.first = Some(FirstSlice { n, slice });
    }
    (open, fields)
}

impl<B: Backend> Session<B> {
    pub(super) async fn pull<W>(&mut self, n: i64, qid: i64, discard: bool, w: &mut W) -> Handled
    where
        W: AsyncWrite + Unpin + Send,
    {
        let index = self.stream_index(qid)?;
        let mut open = self.streams.remove(index);
        let mut first = open.first.take();
        if first.as_ref().is_some_and(|f| discard || f.n != n) {
            // The connection pulls ahead only for the PULL it has queued
            // next, which is this one.
            self.ctx.pool.dispose(open);
            return Err(Failure::new(
                Status::General,
                "internal error: the result's first slice was pulled for another request",
            )
            .into());
        }
        let stopper = Stopper::of(open.results.cancel_handle());
        let format = self.format;
        let started = Instant::now();
        let mut remaining = n;
        let mut lane = Lane::Fresh;
        let mut keep_alive = self.keep_alive();
        let mut interrupted = false;
        let (result, summary) = loop {
            let (back, slice) = match first.take() {
                Some(first) => (open, first.slice),
                None => {
                    let job = self.ctx.pool.submit_in(lane, move || {
                        let slice = pull_slice(&mut open, remaining, discard, format);
                        (open, slice)
                    });
                    self.await_job(job, &stopper, &mut interrupted, &mut keep_alive, w)
                        .await?
                }
            };
            open = back;
            let Slice {
                bytes,
                result,
                summary,
                encode_error,
            } = slice;
            if let Some(e) = encode_error {
                self.ctx.pool.dispose(open);
                return Err(
                    Failure::new(Status::General, format!("cannot send the result: {e}")).into(),
                );
            }
            self.out.extend_from_slice(&bytes);
            if let Err(e) = self.flush_if_large(w).await {
                // The client stopped reading or left: stop the query.
                stopper.stop();
                self.ctx.pool.dispose(open);
                return Err(e.into());
            }
            match result {
                Ok(SliceEnd::Paused { rows, out_of_time }) if !interrupted => {
                    if remaining >= 0 {
                        remaining -= rows;
                    }
                    if out_of_time {
                        lane = Lane::Long;
                    }
                    keep_alive.reset();
                }
                Ok(SliceEnd::Paused { .. }) => break (Err(interrupted_error()), None),
                Ok(SliceEnd::Done { has_more }) => break (Ok(has_more), summary),
                Err(e) => break (Err(e), None),
            }
        };

        match result {
            Ok(true) => {
                self.streams.insert(index, open);
                self.success(PackMap::new().with("has_more", true))
            }
            Ok(false) => {
                let t_last = started.elapsed().as_millis() as i64;
                let outcome = if open.had_record {
                    Outcome::Records
                } else if open.results.fields().is_empty() {
                    Outcome::Omitted
                } else {
                    Outcome::NoData
                };
                self.ctx.pool.dispose(open);
                let meta = self.final_metadata(summary.unwrap_or_default(), t_last, outcome)?;
                self.state = match self.state {
                    State::TxStreaming if self.streams.is_empty() => State::TxReady,
                    State::TxStreaming => State::TxStreaming,
                    _ => State::Ready,
                };
                self.success(meta)
            }
            Err(_) if interrupted => {
                // Stopped by a RESET waiting behind: the interrupted PULL
                // is IGNORED, the RESET answers SUCCESS.
                self.ctx.pool.dispose(open);
                response::ignored(&mut self.out);
                self.state = State::Interrupted;
                Ok(())
            }
            Err(e) => {
                self.ctx.pool.dispose(open);
                Err(HandlerError::Failure(Failure::from(e)))
            }
        }
    }

    /// The timer of the NOOPs sent while a job runs without output; its
    /// first tick one interval from now.
    pub(super) fn keep_alive(&self) -> Interval {
        let mut keep_alive = tokio::time::interval(self.ctx.config.noop_interval);
        keep_alive.set_missed_tick_behavior(MissedTickBehavior::Delay);
        keep_alive.reset();
        keep_alive
    }

    /// Waits for a pool job of this session's query. Meanwhile a RESET
    /// queued behind it or a departed client stops the query (`stopper`;
    /// `interrupted` then tells the caller), and a job that runs long gets
    /// a NOOP each `keep_alive` tick so that the client knows the server
    /// is alive (between whole messages: the buffer holds only those).
    pub(super) async fn await_job<T, W>(
        &mut self,
        mut job: oneshot::Receiver<Result<T, PoolError>>,
        stopper: &Stopper,
        interrupted: &mut bool,
        keep_alive: &mut Interval,
        w: &mut W,
    ) -> Result<T, HandlerError>
    where
        W: AsyncWrite + Unpin + Send,
    {
        let reset_signal = self.reset_signal.clone();
        loop {
            tokio::select! {
                outcome = &mut job => {
                    return outcome.unwrap_or(Err(PoolError::Closed)).map_err(|e| {
                        stopper.stop();
                        e.into()
                    });
                }
                _ = reset_signal.notified(), if !*interrupted => {
                    if self.pending_resets.load(Ordering::Acquire) > 0
                        || self.client_left.load(Ordering::Acquire)
                    {
                        *interrupted = true;
                        stopper.stop();
                    }
                }
                _ = keep_alive.tick() => {
                    self.out.extend_from_slice(&NOOP);
                    if let Err(e) = self.flush(w).await {
                        stopper.stop();
                        return Err(e.into());
                    }
                }
            }
        }
    }

    /// The open stream a PULL/DISCARD addresses: the only one outside a
    /// transaction; inside, the one with `qid` (-1 = the latest RUN).
    fn stream_index(&self, qid: i64) -> Result<usize, Failure> {
        if !self.in_tx {
            return if self.streams.is_empty() {
                Err(Failure::invalid_request("there is no open result"))
            } else {
                Ok(0)
            };
        }
        let wanted = if qid == -1 { self.last_qid } else { qid };
        self.streams
            .iter()
            .position(|s| s.qid == wanted)
            .ok_or_else(|| {
                Failure::invalid_request(format!("there is no open result with qid {qid}"))
            })
    }

    /// `{bookmark?, stats?, type, t_last, db}` for an exhausted result.
    fn final_metadata(
        &self,
        summary: Summary,
        t_last: i64,
        outcome: Outcome,
    ) -> Result<PackMap, Failure> {
        let mut meta = PackMap::new();
        if !self.in_tx {
            if let Some(bookmark) = &summary.bookmark {
                let bookmark = bookmark.as_str();
                meta.insert("bookmark", bookmark);
            }
        }
        if let Some(stats) = stats_metadata(&summary) {
            meta.insert("stats", stats);
        }
        let query_type = match summary.query_type {
            t @ ("r" | "w" | "rw" | "s") => t,
            _ => "r", // drivers reject any other value
        };
        meta.insert("type", query_type);
        if let Some(plan) = &summary.plan {
            check_plan_depth(plan)?;
            meta.insert("plan", plan_metadata(plan));
        }
        if let Some(profile) = &summary.profile {
            check_plan_depth(&profile.plan)?;
            let mut next = 0;
            meta.insert(
                "profile",
                profile_metadata(&profile.plan, &profile.operators, &mut next),
            );
        }
        notifications::insert(&mut meta, &summary.notifications, outcome, self.version);
        meta.insert("t_last", t_last);
        meta.insert("db", "neo4j");
        Ok(meta)
    }
}

/// The deepest plan sent: each operator nests two levels (its map, its
/// `children` list) below the SUCCESS message's own two.
const MAX_PLAN_DEPTH: usize = (MAX_ENCODE_DEPTH - 4) / 2;

/// Refuses a plan deeper than Bolt replies can carry.
fn check_plan_depth(plan: &nereid_planner::PlanNode) -> Result<(), Failure> {
    let depth = plan_depth(plan);
    if depth > MAX_PLAN_DEPTH {
        return Err(Failure::new(
            Status::NotSupported,
            format!(
                "the plan is {depth} operators deep; a plan is sent only up to \
                 {MAX_PLAN_DEPTH} deep (Bolt replies nest at most {MAX_ENCODE_DEPTH} levels, \
                 and drivers decode them recursively)"
            ),
        ));
    }
    Ok(())
}

/// The number of operators on the longest path from the root, counted
/// without recursion (the plan may be thousands deep).
fn plan_depth(plan: &nereid_planner::PlanNode) -> usize {
    let mut deepest = 0;
    let mut pending = vec![(plan, 1)];
    while let Some((node, depth)) = pending.pop() {
        deepest = deepest.max(depth);
        pending.extend(node.children.iter().map(|c| (c, depth + 1)));
    }
    deepest
}

/// The variables an operator introduces, as Bolt lists them.
fn identifiers(plan: &nereid_planner::PlanNode) -> PackValue {
    PackValue::List(
        plan.identifiers
            .iter()
            .map(|i| PackValue::from(i.as_str()))
            .collect(),
    )
}

/// An EXPLAIN plan as Neo4j reports it: `{operatorType, args, identifiers,
/// children}` per operator, the EXPLAIN line's details under
/// `args.Details` and the planner's estimate under `args.EstimatedRows`
/// (a float, as Neo4j sends it; cypher-shell shows it as "Estimated Rows").
fn plan_metadata(plan: &nereid_planner::PlanNode) -> PackMap {
    let children: Vec<PackValue> = plan
        .children
        .iter()
        .map(|c| PackValue::Map(plan_metadata(c)))
        .collect();
    PackMap::new()
        .with("operatorType", plan.operator_type.as_str())
        .with(
            "args",
            PackMap::new()
                .with("Details", plan.details.as_str())
                .with("EstimatedRows", plan.estimated_rows),
        )
        .with("identifiers", identifiers(plan))
        .with("children", PackValue::List(children))
}

/// A PROFILE plan as Neo4j reports it: the EXPLAIN map of each operator
/// plus its own `rows`, `dbHits` and `time` (nanoseconds), also under
/// `args` (`Rows`, `DbHits`, `Time`) where cypher-shell's table reads them;
/// page-cache counters are zero (the store is in memory). `operators` is
/// aligned with the plan's nodes in pre-order; `next` walks it. Depth is
/// bounded by [`check_plan_depth`] before this recursion runs.
fn profile_metadata(
    plan: &nereid_planner::PlanNode,
    operators: &[nereid_engine::OperatorProfile],
    next: &mut usize,
) -> PackMap {
    let own = operators.get(*next).copied().unwrap_or_default();
    *next += 1;
    let as_int = |n: u64| i64::try_from(n).unwrap_or(i64::MAX);
    let children: Vec<PackValue> = plan
        .children
        .iter()
        .map(|c| PackValue::Map(profile_metadata(c, operators, next)))
        .collect();
    PackMap::new()
        .with("operatorType", plan.operator_type.as_str())
        .with(
            "args",
            PackMap::new()
                .with("Details", plan.details.as_str())
                .with("EstimatedRows", plan.estimated_rows)
                .with("Rows", as_int(own.rows))
                .with("DbHits", as_int(own.db_hits))
                .with("Time", as_int(own.time_ns))
                .with("PageCacheHits", 0i64)
                .with("PageCacheMisses", 0i64),
        )
        .with("identifiers", identifiers(plan))
        .with("children", PackValue::List(children))
        .with("rows", as_int(own.rows))
        .with("dbHits", as_int(own.db_hits))
        .with("time", as_int(own.time_ns))
        .with("pageCacheHits", 0i64)
        .with("pageCacheMisses", 0i64)
}

/// The non-zero counters under their hyphenated names, plus
/// `contains-updates: true`, and the system updates with
/// `contains-system-updates: true` (Neo4j 5 reports a user command's
/// changes so, apart from the graph's); `None` when nothing changed.
fn stats_metadata(summary: &Summary) -> Option<PackMap> {
    let mut stats = PackMap::new();
    for (name, count) in summary.stats.counters() {
        if count > 0 {
            stats.insert(hyphenated(name), i64::try_from(count).unwrap_or(i64::MAX));
        }
    }
    let system = summary.system_updates;
    if stats.is_empty() && system == 0 {
        return None;
    }
    let mut with_flag = PackMap::new();
    if !stats.is_empty() {
        with_flag.insert("contains-updates", true);
    }
    if system > 0 {
        with_flag.insert("contains-system-updates", true);
        with_flag.insert("system-updates", i64::try_from(system).unwrap_or(i64::MAX));
    }
    for (k, v) in stats {
        with_flag.insert(k, v);
    }
    Some(with_flag)
}

/// A counter's Bolt name: Neo4j's camelCase name in lower case words
/// joined by hyphens (`nodesCreated` -> `nodes-created`).
fn hyphenated(name: &str) -> String {
    let mut out = String::with_capacity(name.len() + 2);
    for c in name.chars() {
        if c.is_ascii_uppercase() {
            out.push('-');
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// What a PULL stopped by a RESET reports (the client sees IGNORED).
fn interrupted_error() -> DbError {
    DbError {
        status: Status::General,
        message: "interrupted by RESET".into(),
    }
}

/// One slice, on the pool: pulls (or discards) up to `remaining` rows (all
/// when negative) in chunks, encoding records, until the PULL is answered
/// or the slice's time or bytes run out.
fn pull_slice<R: ResultStream>(
    open: &mut OpenStream<R>,
    remaining: i64,
    discard: bool,
    format: StructFormat,
) -> Slice {
    let started = Instant::now();
    let mut writer = RecordWriter::default();
    let mut bytes = Vec::new();
    let mut encode_error = None;
    let mut rows = 0i64;
    let result = loop {
        let chunk = if remaining < 0 {
            CHUNK_ROWS
        } else {
            (remaining - rows).min(CHUNK_ROWS)
        };
        let step = if discard {
            open.results.discard(chunk)
        } else {
            open.results.pull(chunk, &mut |row, resolver| {
                open.had_record = true;
                if encode_error.is_none() {
                    if let Err(e) = writer.write(&mut bytes, row, resolver, format) {
                        encode_error = Some(e);
                    }
                }
            })
        };
        match step {
            Err(e) => break Err(e),
            Ok(false) => break Ok(SliceEnd::Done { has_more: false }),
            Ok(true) => {
                rows += chunk;
                if encode_error.is_some() || (remaining >= 0 && rows >= remaining) {
                    break Ok(SliceEnd::Done { has_more: true });
                }
                let out_of_time = started.elapsed() >= SLICE_TIME;
                if out_of_time || bytes.len() >= SLICE_BYTES {
                    break Ok(SliceEnd::Paused { rows, out_of_time });
                }
            }
        }
    };
    let summary =
        matches!(result, Ok(SliceEnd::Done { has_more: false })).then(|| open.results.summary());
    Slice {
        bytes,
        result,
        summary,
        encode_error,
    }
}
