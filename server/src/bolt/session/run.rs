//! RUN: auto-commit in READY, or inside an explicit transaction.

use super::stopper::Stopper;
use super::stream::opened;
use super::{Handled, Session, State};
use crate::bolt::backend::Backend;
use crate::bolt::failure::Failure;
use crate::bolt::pool::Lane;
use crate::bolt::request::RunParams;
use nereid_engine::{DbError, Params};
use nereid_errors::Status;
use nereid_packstream::{PackMap, PackValue};
use std::sync::Arc;
use std::time::Instant;
use tokio::io::AsyncWrite;

impl<B: Backend> Session<B> {
    /// `ahead`: the `n` of the PULL queued right behind this RUN, whose
    /// first slice the RUN's job then pulls too (`stream::opened`).
    pub(super) async fn run<W>(
        &mut self,
        query: String,
        params: RunParams,
        extra: &PackMap,
        ahead: Option<i64>,
        w: &mut W,
    ) -> Handled
    where
        W: AsyncWrite + Unpin + Send,
    {
        let in_tx = matches!(self.state, State::TxReady | State::TxStreaming);
        let started = Instant::now();
        // Inside a transaction BEGIN carried the metadata.
        let metadata = if in_tx {
            Params::new()
        } else {
            super::metadata::from_extra(extra)?
        };
        let deadline = if in_tx {
            // A statement that starts after the transaction's time is up
            // fails before it runs.
            self.check_tx_deadline()?;
            self.tx_deadline
        } else {
            // Inside a transaction BEGIN carried the database, bookmarks
            // and timeout; an auto-commit transaction starts now.
            self.statement_database = super::database::from_extra(extra)?;
            self.read_only = super::database::read_mode(extra);
            let deadline =
                super::timeout::deadline_at(extra, self.ctx.config.transaction_timeout, started)?;
            self.await_bookmarks(extra).await?;
            deadline
        };
        // `system` runs administration commands and procedure calls only.
        if self.statement_database == "system" {
            nereid_engine::check_for_system_database(&query).map_err(Failure::from)?;
        }
        let backend = self.ctx.backend.clone();
        let client = self.client();

        let format = self.format;
        let stopper = Arc::new(Stopper::default());
        let job_stopper = stopper.clone();
        let mut keep_alive = self.keep_alive();
        let mut interrupted = false;
        let (mut open, fields) = if in_tx {
            let tx = self.tx.take().ok_or_else(|| {
                Failure::new(
                    Status::General,
                    "the transaction was lost to an internal error",
                )
            })?;
            let job = self.ctx.pool.submit_in(Lane::Fresh, move || {
                let outcome = decode_params(&params, &*backend)
                    .and_then(|params| {
                        backend.run(Some(&tx), &query, params, deadline, metadata, &client)
                    })
                    .map(|results| opened(results, ahead, format, &job_stopper));
                (tx, outcome)
            });
            let (tx, outcome) = self
                .await_job(job, &stopper, &mut interrupted, &mut keep_alive, w)
                .await?;
            self.tx = Some(tx);
            outcome.map_err(Failure::from)?
        } else {
            let job = self.ctx.pool.submit_in(Lane::Fresh, move || {
                decode_params(&params, &*backend)
                    .and_then(|params| {
                        backend.run(None, &query, params, deadline, metadata, &client)
                    })
                    .map(|results| opened(results, ahead, format, &job_stopper))
            });
            self.await_job(job, &stopper, &mut interrupted, &mut keep_alive, w)
                .await?
                .map_err(Failure::from)?
        };

        let t_first = started.elapsed().as_millis() as i64;
        let fields = PackValue::List(fields.into_iter().map(PackValue::String).collect());
        let mut meta = PackMap::new()
            .with("t_first", t_first)
            .with("fields", fields);
        if in_tx {
            let qid = self.next_qid;
            self.next_qid += 1;
            self.last_qid = qid;
            open.qid = qid;
            self.streams.push(open);
            meta.insert("qid", qid);
            self.state = State::TxStreaming;
        } else {
            self.streams.push(open);
            if extra
                .get("db")
                .is_none_or(|db| matches!(db, PackValue::Null))
            {
                meta.insert("db", "neo4j");
            }
            self.state = State::Streaming;
        }
        self.success(meta)
    }
}

/// Decodes RUN's parameters on the pool thread, straight into values and
/// within the query's memory limit (the executor then charges them to the
/// query's budget).
fn decode_params<B: Backend>(params: &RunParams, backend: &B) -> Result<Params, DbError> {
    nereid_packstream::decode_params(&params.0, backend.query_max_memory())
        .map(|decoded| decoded.values)
        .map_err(|failure| {
            let name = failure.name.as_deref().unwrap_or("map");
            crate::protocol_status::from_param(name, failure.error)
        })
}
