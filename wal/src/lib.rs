//! The durable logical log of nereid (Poseidon paper, section 4: the engine
//! is decoupled from its durable representation by a logical log).
//!
//! The log stores, per committed transaction, the storage crate's
//! [`Change`](nereid_storage::Change) list in a compact binary form (module
//! `codec`), framed in checksummed, versioned records (module `format`).
//! Commits are appended while the store's commit lock is held (cheap: a
//! memcpy into a queue) and made durable by one writer thread with group
//! commit (module `writer`); recovery replays intact records and truncates a
//! torn tail, refusing to skip damage anywhere else (module `recovery`).
//!
//! Usage with the store:
//! ```text
//! let ticket = txn.commit(|ts, changes| wal.append(handle, ts, changes))?;
//! if let Some(ticket) = ticket { wal.wait_durable(lsn)?; ticket.publish(); }
//! ```

mod checkpoint;
mod codec;
mod error;
mod format;
mod recovery;
mod wal;
mod writer;

pub use checkpoint::{load_newest_checkpoint, take_checkpoint, CheckpointInfo};
pub use error::WalError;
pub use wal::{Durability, LogProgress, Lsn, RecoveryReport, Wal, WalOptions};
