//! BEGIN, COMMIT and ROLLBACK of explicit transactions.

use super::{Handled, Session, State};
use crate::bolt::backend::{Backend, ResultStream};
use crate::bolt::failure::Failure;
use nereid_errors::Status;
use nereid_packstream::PackMap;

impl<B: Backend> Session<B> {
    pub(super) async fn begin(&mut self) -> Handled {
        let backend = self.ctx.backend.clone();
        let tx = self.ctx.pool.run(move || backend.begin()).await?;
        self.tx = Some(tx);
        self.in_tx = true;
        self.next_qid = 0;
        self.last_qid = -1;
        self.state = State::TxReady;
        self.success(PackMap::new())
    }

    /// Commits. Results still open are discarded first, so that a write
    /// whose result the client did not consume still takes effect.
    pub(super) async fn commit(&mut self) -> Handled {
        let streams = std::mem::take(&mut self.streams);
        let tx = self.tx.take();
        self.in_tx = false;
        self.state = State::Ready;
        let Some(tx) = tx else {
            self.ctx.pool.dispose(streams);
            return Err(Failure::new(
                Status::General,
                "the transaction was lost to an internal error",
            )
            .into());
        };
        let backend = self.ctx.backend.clone();
        let bookmark = self
            .ctx
            .pool
            .run(move || {
                for mut open in streams {
                    if let Err(e) = open.results.discard(-1) {
                        backend.rollback(tx);
                        return Err(e);
                    }
                }
                backend.commit(tx)
            })
            .await?
            .map_err(Failure::from)?;
        self.success(PackMap::new().with("bookmark", bookmark))
    }

    pub(super) async fn rollback(&mut self) -> Handled {
        self.abandon_work().await;
        self.state = State::Ready;
        self.success(PackMap::new())
    }
}
