//! Streaming: PULL/DISCARD with n, has_more, summaries, and isolation
//! between connections.

use super::client::*;
use super::fake::FakeBackend;
use nereid_packstream::{PackMap, PackValue};
use std::sync::atomic::Ordering;
use std::time::Duration;

#[tokio::test]
async fn pull_n_returns_n_rows_and_has_more_without_computing_the_rest() {
    let backend = FakeBackend::new();
    let ctx = context(backend.clone(), 1);
    let mut client = connect(&ctx, 5, 8).await;
    client.login(true).await;
    client.send(&[run("COUNT 1000000"), pull(100)]).await;
    let meta = client.recv().await.success();
    assert_eq!(get(&meta, "fields"), &PackValue::List(vec!["x".into()]));
    assert!(get(&meta, "t_first").as_int().is_some());
    let (records, summary) = client.records().await;
    assert_eq!(records.len(), 100);
    assert_eq!(records[99], vec![PackValue::Int(100)]);
    assert_eq!(summary.success(), PackMap::new().with("has_more", true));
    assert_eq!(backend.produced.load(Ordering::Relaxed), 100);

    client.send(&[pull(50)]).await;
    let (records, summary) = client.records().await;
    assert_eq!(records.first(), Some(&vec![PackValue::Int(101)]));
    assert_eq!(records.len(), 50);
    summary.success();

    client.send(&[discard(-1)]).await;
    let meta = client.recv().await.success();
    assert_eq!(get(&meta, "type").as_str(), Some("r"));
    assert_eq!(get(&meta, "db").as_str(), Some("neo4j"));
    assert!(meta.get("has_more").is_none());
    assert_eq!(backend.produced.load(Ordering::Relaxed), 150);

    // Back in READY.
    client.send(&[run("RETURN 1"), pull(-1)]).await;
    client.recv().await.success();
    let (records, _) = client.records().await;
    assert_eq!(records.len(), 1);
}

#[tokio::test]
async fn a_large_result_streams_in_order() {
    let ctx = context(FakeBackend::new(), 1);
    let mut client = connect(&ctx, 4, 4).await;
    client.login(false).await;
    client.send(&[run("COUNT 20000"), pull(-1)]).await;
    client.recv().await.success();
    let (records, summary) = client.records().await;
    assert_eq!(records.len(), 20000);
    assert!(records
        .iter()
        .enumerate()
        .all(|(i, r)| r == &vec![PackValue::Int(i as i64 + 1)]));
    summary.success();
}

#[tokio::test]
async fn auto_commit_writes_report_bookmark_and_stats() {
    let ctx = context(FakeBackend::new(), 1);
    let mut client = connect(&ctx, 5, 4).await;
    client.login(true).await;
    client.send(&[run("CREATE"), pull(-1)]).await;
    let meta = client.recv().await.success();
    assert_eq!(get(&meta, "fields"), &PackValue::List(vec![]));
    let meta = client.recv().await.success();
    assert_eq!(get(&meta, "bookmark").as_str(), Some("FB:auto"));
    assert_eq!(get(&meta, "type").as_str(), Some("w"));
    assert!(get(&meta, "t_last").as_int().is_some());
    let stats = get(&meta, "stats").as_map().unwrap();
    assert_eq!(
        stats,
        &PackMap::new()
            .with("contains-updates", true)
            .with("nodes-created", 1)
    );

    client.send(&[run("RETURN 1"), pull(-1)]).await;
    client.recv().await.success();
    let (_, summary) = client.records().await;
    let meta = summary.success();
    assert!(meta.get("stats").is_none());
    assert!(meta.get("bookmark").is_none());
}

#[tokio::test]
async fn a_failing_pull_fails_once_and_reset_recovers() {
    let ctx = context(FakeBackend::new(), 1);
    let mut client = connect(&ctx, 5, 4).await;
    client.login(true).await;
    client.send(&[run("PULLFAIL"), pull(-1), pull(-1)]).await;
    client.recv().await.success();
    let failure = client.recv().await.failure();
    assert_eq!(
        get(&failure, "code").as_str(),
        Some("Neo.ClientError.Statement.ArithmeticError")
    );
    assert_eq!(client.recv().await, Reply::Ignored);
    client.send(&[reset(), run("RETURN 1")]).await;
    client.recv().await.success();
    client.recv().await.success();
}

#[tokio::test]
async fn a_reset_queued_behind_requests_interrupts_them() {
    let ctx = context(FakeBackend::new(), 1);
    let mut client = connect(&ctx, 5, 4).await;
    client.login(true).await;
    client
        .send(&[run("SLOW"), pull(-1), run("RETURN 1"), pull(-1), reset()])
        .await;
    let mut replies = Vec::new();
    loop {
        let reply = client.recv().await;
        let done = replies.len() >= 4 && matches!(reply, Reply::Success(_));
        replies.push(reply);
        if done {
            break;
        }
        assert!(replies.len() < 10, "too many replies: {replies:?}");
    }
    // Whatever ran before the interrupt was seen, the RESET is answered
    // SUCCESS{} last, and the session is usable again.
    assert_eq!(replies.last(), Some(&Reply::Success(PackMap::new())));
    assert!(replies.contains(&Reply::Ignored), "{replies:?}");
    client.send(&[run("RETURN 1"), pull(-1)]).await;
    client.recv().await.success();
    let (records, _) = client.records().await;
    assert_eq!(records.len(), 1);
}

#[tokio::test]
async fn a_slow_query_does_not_stall_other_connections() {
    let backend = FakeBackend::new();
    let ctx = context(backend.clone(), 2);
    let mut slow = connect(&ctx, 5, 4).await;
    slow.login(true).await;
    let mut fast = connect(&ctx, 5, 4).await;
    fast.login(true).await;
    slow.send(&[run("SLOW"), pull(-1)]).await;
    while backend.slow_started.load(Ordering::SeqCst) == 0 {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    // The slow PULL now sleeps on one pool thread.
    fast.send(&[run("RETURN 1"), pull(-1)]).await;
    fast.recv().await.success();
    let (records, _) = fast.records().await;
    assert_eq!(records.len(), 1);
    assert_eq!(
        backend.slow_done.load(Ordering::SeqCst),
        0,
        "the fast query finished while the slow one was still running"
    );
    slow.recv().await.success();
    let (records, _) = slow.records().await;
    assert_eq!(records.len(), 1);
}

#[tokio::test]
async fn a_client_vanishing_mid_stream_costs_only_its_connection() {
    let ctx = context(FakeBackend::new(), 1);
    let mut client = connect(&ctx, 5, 4).await;
    client.login(true).await;
    client.send(&[run("COUNT 2000000"), pull(-1)]).await;
    client.recv().await.success();
    let _ = client.recv().await; // streaming has begun
    let Client { io, server } = client;
    drop(io);
    tokio::time::timeout(Duration::from_secs(20), server)
        .await
        .expect("the connection task must end")
        .unwrap();

    let mut other = connect(&ctx, 5, 4).await;
    other.login(true).await;
    other.send(&[run("RETURN 1"), pull(-1)]).await;
    other.recv().await.success();
    let (records, _) = other.records().await;
    assert_eq!(records.len(), 1);
}

/// RESET in the middle of an endless stream stops the query: the PULL is
/// answered (records, then IGNORED) and the RESET with SUCCESS, and the
/// session works again. Without cancellation the PULL would never end.
#[tokio::test]
async fn reset_interrupts_a_running_pull() {
    let ctx = context(FakeBackend::new(), 1);
    let mut client = connect(&ctx, 5, 4).await;
    client.login(true).await;
    client.send(&[run("ENDLESS"), pull(-1)]).await;
    client.recv().await.success();
    // Some records have streamed: the query is running.
    assert!(matches!(client.recv().await, Reply::Record(_)));
    client.send(&[reset()]).await;
    let ending = loop {
        match client.recv().await {
            Reply::Record(_) => continue,
            other => break other,
        }
    };
    assert_eq!(ending, Reply::Ignored);
    client.recv().await.success();
    client.send(&[run("RETURN 1"), pull(-1)]).await;
    client.recv().await.success();
    let (records, summary) = client.records().await;
    assert_eq!(records.len(), 1);
    summary.success();
}

/// RESET behind a RUN and PULL sent together stops a query that has not
/// produced its first row (the RUN's job is pulling it): the RUN is
/// answered, the PULL IGNORED and the RESET SUCCESS, and the session works
/// again. Without the stop the RUN would never be answered.
#[tokio::test]
async fn reset_stops_a_query_blocked_before_its_first_row() {
    let ctx = context(FakeBackend::new(), 1);
    let mut client = connect(&ctx, 5, 4).await;
    client.login(true).await;
    client.send(&[run("BLOCKED"), pull(-1)]).await;
    tokio::time::sleep(Duration::from_millis(50)).await;
    client.send(&[reset()]).await;
    let replies = tokio::time::timeout(Duration::from_secs(20), async {
        vec![
            client.recv().await,
            client.recv().await,
            client.recv().await,
        ]
    })
    .await
    .expect("the RESET must stop the query");
    assert!(matches!(replies[0], Reply::Success(_)), "{replies:?}");
    assert_eq!(replies[1], Reply::Ignored);
    assert_eq!(replies[2], Reply::Success(PackMap::new()));
    client.send(&[run("RETURN 1"), pull(-1)]).await;
    client.recv().await.success();
    let (records, summary) = client.records().await;
    assert_eq!(records.len(), 1);
    summary.success();
}

/// A query busy without output sends NOOP chunks between messages.
#[tokio::test]
async fn busy_queries_send_noops() {
    let backend = FakeBackend::new();
    let mut config = crate::bolt::BoltConfig::new(ADVERTISED);
    config.noop_interval = std::time::Duration::from_millis(20);
    let ctx =
        crate::bolt::BoltContext::new(backend, crate::bolt::ExecPool::new(1).unwrap(), config);
    let mut client = connect(&ctx, 5, 4).await;
    client.login(true).await;
    // SLOW spends a second before its one row. With the PULL sent beside
    // the RUN, the RUN's job pulls that row, so the NOOPs come before the
    // RUN's SUCCESS.
    client.send(&[run("SLOW"), pull(-1)]).await;
    let mut header = [0u8; 2];
    tokio::io::AsyncReadExt::read_exact(&mut client.io, &mut header)
        .await
        .unwrap();
    assert_eq!(header, [0, 0], "a NOOP comes before the RUN's reply");
    client.recv().await.success();
    let (records, summary) = client.records().await;
    assert_eq!(records.len(), 1);
    summary.success();
    // A PULL sent on its own pulls the row itself: the NOOPs come after
    // the RUN's SUCCESS.
    client.send(&[run("SLOW")]).await;
    client.recv().await.success();
    client.send(&[pull(-1)]).await;
    tokio::io::AsyncReadExt::read_exact(&mut client.io, &mut header)
        .await
        .unwrap();
    assert_eq!(header, [0, 0], "a NOOP comes before the record");
    let (records, summary) = client.records().await;
    assert_eq!(records.len(), 1);
    summary.success();
}
