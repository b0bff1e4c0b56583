//! PULL and DISCARD: stream (or skip) up to `n` records of one open result.
//!
//! Records are encoded on the pool thread, next to the resolver, and handed
//! to this task in batches through a small bounded channel, so memory stays
//! bounded and a slow client slows only its own query.

use super::{Handled, OpenStream, Session, State};
use crate::bolt::backend::{Backend, ResultStream};
use crate::bolt::failure::Failure;
use crate::bolt::response;
use crate::bolt::response::RecordWriter;
use crate::db::{DbError, Summary};
use nereid_errors::Status;
use nereid_packstream::encode::MAX_ENCODE_DEPTH;
use nereid_packstream::{EncodeError, PackMap, PackValue, StructFormat};
use std::sync::atomic::Ordering;
use std::time::Instant;
use tokio::io::AsyncWrite;
use tokio::sync::mpsc;
use tokio::time::MissedTickBehavior;

/// An empty chunk: Bolt's keep-alive between messages.
const NOOP: [u8; 2] = [0, 0];

/// Records are sent to the connection task in batches of about this size.
const BATCH_BYTES: usize = 32 * 1024;

/// What a pull job hands back.
struct PullOutcome<R> {
    open: OpenStream<R>,
    result: Result<bool, DbError>,
    summary: Option<Summary>,
    encode_error: Option<EncodeError>,
}

impl<B: Backend> Session<B> {
    pub(super) async fn pull<W>(&mut self, n: i64, qid: i64, discard: bool, w: &mut W) -> Handled
    where
        W: AsyncWrite + Unpin + Send,
    {
        let index = self.stream_index(qid)?;
        let open = self.streams.remove(index);
        let cancel = open.results.cancel_handle();
        let format = self.format;
        let started = Instant::now();
        let (batches, mut received) = mpsc::channel::<Vec<u8>>(4);
        let job = self
            .ctx
            .pool
            .submit(move || pull_job(open, n, discard, format, batches));
        let reset_signal = self.reset_signal.clone();
        let mut keep_alive = tokio::time::interval(self.ctx.config.noop_interval);
        keep_alive.set_missed_tick_behavior(MissedTickBehavior::Delay);
        keep_alive.reset();
        let mut interrupted = false;
        loop {
            tokio::select! {
                batch = received.recv() => match batch {
                    Some(batch) => {
                        self.out.extend_from_slice(&batch);
                        self.flush_if_large(w).await?;
                        keep_alive.reset();
                    }
                    None => break,
                },
                _ = reset_signal.notified(), if !interrupted => {
                    if self.pending_resets.load(Ordering::Acquire) > 0 {
                        interrupted = true;
                        if let Some(cancel) = &cancel {
                            cancel.store(true, Ordering::Relaxed);
                        }
                    }
                }
                _ = keep_alive.tick() => {
                    // Busy without output: tell the client we are alive
                    // (between whole messages, so the NOOP is well placed).
                    self.out.extend_from_slice(&NOOP);
                    self.flush(w).await?;
                }
            }
        }
        let outcome = job
            .await
            .unwrap_or(Err(crate::bolt::pool::PoolError::Closed))?;
        let PullOutcome {
            open,
            result,
            summary,
            encode_error,
        } = outcome;

        if let Some(e) = encode_error {
            self.ctx.pool.dispose(open);
            return Err(
                Failure::new(Status::General, format!("cannot send the result: {e}")).into(),
            );
        }
        match result {
            Ok(true) => {
                self.streams.insert(index, open);
                self.success(PackMap::new().with("has_more", true))
            }
            Ok(false) => {
                self.ctx.pool.dispose(open);
                let t_last = started.elapsed().as_millis() as i64;
                let meta = self.final_metadata(summary.unwrap_or_default(), t_last)?;
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
                Err(Failure::from(e).into())
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
    fn final_metadata(&self, summary: Summary, t_last: i64) -> Result<PackMap, Failure> {
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
            meta.insert("plan", plan_metadata(plan));
        }
        meta.insert("t_last", t_last);
        meta.insert("db", "neo4j");
        Ok(meta)
    }
}

/// The deepest plan sent: each operator nests two levels (its map, its
/// `children` list) below the SUCCESS message's own two.
const MAX_PLAN_DEPTH: usize = (MAX_ENCODE_DEPTH - 4) / 2;

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

/// An EXPLAIN plan as Neo4j reports it: `{operatorType, args, identifiers,
/// children}` per operator, the EXPLAIN line's details under
/// `args.Details`.
fn plan_metadata(plan: &nereid_planner::PlanNode) -> PackMap {
    let identifiers: Vec<PackValue> = plan
        .identifiers
        .iter()
        .map(|i| PackValue::from(i.as_str()))
        .collect();
    let children: Vec<PackValue> = plan
        .children
        .iter()
        .map(|c| PackValue::Map(plan_metadata(c)))
        .collect();
    PackMap::new()
        .with("operatorType", plan.operator_type.as_str())
        .with(
            "args",
            PackMap::new().with("Details", plan.details.as_str()),
        )
        .with("identifiers", PackValue::List(identifiers))
        .with("children", PackValue::List(children))
}

/// The non-zero counters under their hyphenated names, plus
/// `contains-updates: true`; `None` for a read-only query.
fn stats_metadata(summary: &Summary) -> Option<PackMap> {
    let s = &summary.stats;
    let counters = [
        ("nodes-created", s.nodes_created),
        ("nodes-deleted", s.nodes_deleted),
        ("relationships-created", s.relationships_created),
        ("relationships-deleted", s.relationships_deleted),
        ("properties-set", s.properties_set),
        ("labels-added", s.labels_added),
        ("labels-removed", s.labels_removed),
    ];
    let mut stats = PackMap::new();
    for (name, count) in counters {
        if count > 0 {
            stats.insert(name, i64::try_from(count).unwrap_or(i64::MAX));
        }
    }
    if stats.is_empty() {
        return None;
    }
    let mut with_flag = PackMap::new().with("contains-updates", true);
    for (k, v) in stats {
        with_flag.insert(k, v);
    }
    Some(with_flag)
}

/// Runs on the pool: pulls or discards, encoding records into batches.
fn pull_job<R: ResultStream>(
    mut open: OpenStream<R>,
    n: i64,
    discard: bool,
    format: StructFormat,
    batches: mpsc::Sender<Vec<u8>>,
) -> PullOutcome<R> {
    let mut encode_error = None;
    let result = if discard {
        open.results.discard(n)
    } else {
        let mut writer = RecordWriter::default();
        let mut batch = Vec::new();
        let mut receiver_gone = false;
        let result = open.results.pull(n, &mut |row, resolver| {
            if encode_error.is_some() || receiver_gone {
                return;
            }
            if let Err(e) = writer.write(&mut batch, row, resolver, format) {
                encode_error = Some(e);
                return;
            }
            if batch.len() >= BATCH_BYTES {
                receiver_gone = batches.blocking_send(std::mem::take(&mut batch)).is_err();
            }
        });
        if !batch.is_empty() && !receiver_gone {
            let _ = batches.blocking_send(batch);
        }
        result
    };
    drop(batches);
    let summary = matches!(result, Ok(false)).then(|| open.results.summary());
    PullOutcome {
        open,
        result,
        summary,
        encode_error,
    }
}
