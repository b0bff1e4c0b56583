//! A minimal Bolt client over an in-memory duplex stream.

use super::fake::FakeBackend;
use crate::bolt::framing::{read_message, write_message};
use crate::bolt::handshake::MAGIC;
use crate::bolt::{serve_connection, BoltConfig, BoltContext, ExecPool};
use nereid_packstream::{from_slice, to_vec, PackMap, PackValue};
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt, DuplexStream};
use tokio::task::JoinHandle;

pub const ADVERTISED: &str = "bolt.example:7687";

pub struct Client {
    pub io: DuplexStream,
    pub server: JoinHandle<()>,
}

pub fn context(backend: Arc<FakeBackend>, threads: usize) -> Arc<BoltContext<FakeBackend>> {
    let pool = ExecPool::new(threads).unwrap();
    BoltContext::new(backend, pool, BoltConfig::new(ADVERTISED))
}

/// Connects with a legacy offer of exactly `major.minor`.
pub async fn connect(ctx: &Arc<BoltContext<FakeBackend>>, major: u8, minor: u8) -> Client {
    let mut client = open(ctx);
    let mut opening = MAGIC.to_vec();
    opening.extend_from_slice(&[0, 0, minor, major]);
    opening.resize(20, 0);
    client.io.write_all(&opening).await.unwrap();
    let mut reply = [0u8; 4];
    client.io.read_exact(&mut reply).await.unwrap();
    assert_eq!(reply, [0, 0, minor, major]);
    client
}

/// Connects through the manifest and chooses `major.minor`.
pub async fn connect_manifest(ctx: &Arc<BoltContext<FakeBackend>>, major: u8, minor: u8) -> Client {
    let mut client = open(ctx);
    let mut opening = MAGIC.to_vec();
    opening.extend_from_slice(&[0, 0, 1, 0xFF, 0, 8, 8, 5, 0, 2, 4, 4, 0, 0, 0, 3]);
    client.io.write_all(&opening).await.unwrap();
    let mut reply = [0u8; 18];
    client.io.read_exact(&mut reply).await.unwrap();
    client.io.write_all(&[0, 0, minor, major, 0]).await.unwrap();
    client
}

pub fn open(ctx: &Arc<BoltContext<FakeBackend>>) -> Client {
    let (io, server_side) = tokio::io::duplex(1 << 20);
    let server = tokio::spawn(serve_connection(server_side, None, ctx.clone()));
    Client { io, server }
}

pub fn msg(tag: u8, fields: Vec<PackValue>) -> PackValue {
    PackValue::Struct { tag, fields }
}

pub fn hello() -> PackValue {
    msg(
        0x01,
        vec![PackMap::new().with("user_agent", "test/1.0").into()],
    )
}
pub fn logon() -> PackValue {
    msg(0x6A, vec![PackMap::new().into()])
}
pub fn run(query: &str) -> PackValue {
    msg(
        0x10,
        vec![query.into(), PackMap::new().into(), PackMap::new().into()],
    )
}
pub fn run_with(query: &str, params: PackMap) -> PackValue {
    msg(
        0x10,
        vec![query.into(), params.into(), PackMap::new().into()],
    )
}
/// RUN with `extra` metadata (bookmarks, tx_timeout, db, ...).
pub fn run_with_extra(query: &str, extra: PackMap) -> PackValue {
    msg(
        0x10,
        vec![query.into(), PackMap::new().into(), extra.into()],
    )
}
pub fn pull(n: i64) -> PackValue {
    msg(0x3F, vec![PackMap::new().with("n", n).into()])
}
pub fn pull_qid(n: i64, qid: i64) -> PackValue {
    msg(
        0x3F,
        vec![PackMap::new().with("n", n).with("qid", qid).into()],
    )
}
pub fn discard(n: i64) -> PackValue {
    msg(0x2F, vec![PackMap::new().with("n", n).into()])
}
pub fn begin() -> PackValue {
    msg(0x11, vec![PackMap::new().into()])
}
/// BEGIN with `extra` metadata (bookmarks, tx_timeout, db, ...).
pub fn begin_with(extra: PackMap) -> PackValue {
    msg(0x11, vec![extra.into()])
}
pub fn commit() -> PackValue {
    msg(0x12, vec![])
}
pub fn rollback() -> PackValue {
    msg(0x13, vec![])
}
pub fn reset() -> PackValue {
    msg(0x0F, vec![])
}
pub fn goodbye() -> PackValue {
    msg(0x02, vec![])
}

/// The status code of a FAILURE's metadata (`neo4j_code` from Bolt 5.7,
/// `code` before); empty when it has neither.
pub fn code(failure: &PackMap) -> &str {
    failure
        .get("neo4j_code")
        .or_else(|| failure.get("code"))
        .and_then(PackValue::as_str)
        .unwrap_or_default()
}

/// A reply, decoded: (tag, metadata or record fields).
#[derive(Debug, Clone, PartialEq)]
pub enum Reply {
    Success(PackMap),
    Record(Vec<PackValue>),
    Ignored,
    Failure(PackMap),
}

impl Reply {
    pub fn success(self) -> PackMap {
        match self {
            Reply::Success(meta) => meta,
            other => panic!("expected SUCCESS, got {other:?}"),
        }
    }
    pub fn failure(self) -> PackMap {
        match self {
            Reply::Failure(meta) => meta,
            other => panic!("expected FAILURE, got {other:?}"),
        }
    }
}

impl Client {
    /// Writes all messages in one write (pipelining).
    pub async fn send(&mut self, messages: &[PackValue]) {
        let mut out = Vec::new();
        for m in messages {
            write_message(&to_vec(m).unwrap(), &mut out);
        }
        self.io.write_all(&out).await.unwrap();
    }

    /// The next raw message body; `None` once the server closed.
    pub async fn recv_raw(&mut self) -> Option<Vec<u8>> {
        tokio::time::timeout(Duration::from_secs(10), read_message(&mut self.io, 1 << 30))
            .await
            .expect("the server did not answer in time")
            .ok()
            .flatten()
    }

    pub async fn recv(&mut self) -> Reply {
        let body = self
            .recv_raw()
            .await
            .expect("the server closed the connection");
        match from_slice(&body).unwrap() {
            PackValue::Struct { tag: 0x70, fields } => Reply::Success(as_map(fields)),
            PackValue::Struct { tag: 0x7F, fields } => Reply::Failure(as_map(fields)),
            PackValue::Struct { tag: 0x7E, .. } => Reply::Ignored,
            PackValue::Struct { tag: 0x71, fields } => match fields.into_iter().next() {
                Some(PackValue::List(values)) => Reply::Record(values),
                other => panic!("bad RECORD {other:?}"),
            },
            other => panic!("unexpected reply {other:?}"),
        }
    }

    /// Receives records up to the summary; returns (records, summary).
    pub async fn records(&mut self) -> (Vec<Vec<PackValue>>, Reply) {
        let mut records = Vec::new();
        loop {
            match self.recv().await {
                Reply::Record(values) => records.push(values),
                other => return (records, other),
            }
        }
    }

    /// Waits until the server closes the connection.
    pub async fn expect_closed(&mut self) {
        assert_eq!(
            self.recv_raw().await,
            None,
            "expected the connection to close"
        );
    }

    /// HELLO (+ LOGON from 5.1 on), checking both succeed.
    pub async fn login(&mut self, with_logon: bool) {
        if with_logon {
            self.send(&[hello(), logon()]).await;
            self.recv().await.success();
        } else {
            self.send(&[hello()]).await;
        }
        self.recv().await.success();
    }
}

fn as_map(fields: Vec<PackValue>) -> PackMap {
    match fields.into_iter().next() {
        Some(PackValue::Map(m)) => m,
        other => panic!("expected metadata, got {other:?}"),
    }
}

pub fn get<'a>(meta: &'a PackMap, key: &str) -> &'a PackValue {
    meta.get(key)
        .unwrap_or_else(|| panic!("{key} missing from {meta:?}"))
}
