//! Connection limits and hygiene: the connection cap, handshake and idle
//! timeouts, the message size limit, and requests naming an unknown
//! database. Each limit costs only the offending connection.

use super::client::*;
use super::fake::FakeBackend;
use crate::bolt::handshake::MAGIC;
use crate::bolt::{BoltConfig, BoltContext, ExecPool};
use nereid_packstream::{PackMap, PackValue};
use std::sync::Arc;
use std::time::Duration;
use tokio::io::AsyncWriteExt;

fn context_with(configure: impl FnOnce(&mut BoltConfig)) -> Arc<BoltContext<FakeBackend>> {
    let mut config = BoltConfig::new(ADVERTISED);
    configure(&mut config);
    BoltContext::new(FakeBackend::new(), ExecPool::new(1).unwrap(), config)
}

fn with_db(tag: u8, first: Vec<PackValue>, db: &str) -> PackValue {
    let mut fields = first;
    fields.push(PackMap::new().with("db", db).into());
    msg(tag, fields)
}

#[tokio::test]
async fn a_connection_over_the_limit_is_refused_with_a_transient_failure() {
    let ctx = context_with(|c| c.max_connections = 1);
    let mut first = connect(&ctx, 5, 4).await;
    first.login(true).await;

    let mut second = connect(&ctx, 5, 4).await;
    second.send(&[hello()]).await;
    let failure = second.recv().await.failure();
    assert_eq!(
        code(&failure),
        "Neo.TransientError.Request.NoThreadsAvailable"
    );
    second.expect_closed().await;

    // The first connection is unaffected; once it leaves, its place is free.
    first.send(&[run("RETURN 1"), pull(-1)]).await;
    first.recv().await.success();
    let (_, summary) = first.records().await;
    summary.success();
    let Client { io, server } = first;
    drop(io);
    server.await.unwrap();
    let mut third = connect(&ctx, 5, 4).await;
    third.login(true).await;
}

#[tokio::test]
async fn a_client_that_never_finishes_the_handshake_is_dropped() {
    let ctx = context_with(|c| c.handshake_timeout = Duration::from_millis(20));
    let mut silent = open(&ctx);
    silent.expect_closed().await;
    let mut partial = open(&ctx);
    partial.io.write_all(&MAGIC[..3]).await.unwrap();
    partial.expect_closed().await;
}

#[tokio::test]
async fn an_idle_connection_is_closed() {
    let ctx = context_with(|c| c.idle_timeout = Some(Duration::from_millis(20)));
    let mut client = connect(&ctx, 5, 4).await;
    client.login(true).await;
    client.expect_closed().await;
}

#[tokio::test]
async fn a_message_over_the_size_limit_fails_and_closes_the_connection() {
    let ctx = context_with(|c| c.max_message_size = 1024);
    let mut client = connect(&ctx, 5, 4).await;
    client.login(true).await;
    // Just under the limit still works.
    let padding = PackMap::new().with("padding", "x".repeat(900));
    client
        .send(&[run_with("RETURN 1", padding), pull(-1)])
        .await;
    client.recv().await.success();
    let (_, summary) = client.records().await;
    summary.success();
    client
        .send(&[run(&format!("RETURN '{}' AS s", "x".repeat(2000)))])
        .await;
    let failure = client.recv().await.failure();
    assert_eq!(code(&failure), "Neo.ClientError.Request.Invalid");
    client.expect_closed().await;
}

#[tokio::test]
async fn an_unknown_database_is_not_found_and_the_session_recovers() {
    let ctx = context_with(|_| {});
    let mut client = connect(&ctx, 5, 4).await;
    client.login(true).await;
    let run_in = |db| with_db(0x10, vec!["RETURN 1".into(), PackMap::new().into()], db);
    let begin_in = |db| with_db(0x11, vec![], db);
    let route_in = |db| {
        with_db(
            0x66,
            vec![PackMap::new().into(), PackValue::List(vec![])],
            db,
        )
    };
    for request in [run_in("movies"), begin_in("movies"), route_in("movies")] {
        client.send(&[request]).await;
        let failure = client.recv().await.failure();
        assert_eq!(code(&failure), "Neo.ClientError.Database.DatabaseNotFound");
        let message = failure.get("message").and_then(PackValue::as_str);
        assert!(
            message.unwrap_or_default().contains("'movies'"),
            "{failure:?}"
        );
        client.send(&[reset()]).await;
        client.recv().await.success();
    }
    client.send(&[run_in("NEO4J"), pull(-1)]).await;
    client.recv().await.success();
    let (records, summary) = client.records().await;
    assert_eq!(records.len(), 1);
    summary.success();
    client.send(&[route_in("system")]).await;
    let table = client.recv().await.success();
    let rt = get(&table, "rt");
    let PackValue::Map(rt) = rt else {
        panic!("{rt:?}")
    };
    assert_eq!(get(rt, "db"), &PackValue::from("system"));
}
