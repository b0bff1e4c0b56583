//! Explicit transactions: pipelining, qids, commit, rollback and RESET.

use super::client::*;
use super::fake::FakeBackend;
use nereid_packstream::{PackMap, PackValue};

#[tokio::test]
async fn pipelined_begin_run_pull_commit() {
    let backend = FakeBackend::new();
    let ctx = context(backend.clone(), 1);
    let mut client = connect_manifest(&ctx, 5, 8).await;
    client.send(&[hello(), logon()]).await;
    client.recv().await.success();
    client.recv().await.success();
    client
        .send(&[begin(), run("COUNT 2"), pull(1000), commit(), begin()])
        .await;
    assert_eq!(client.recv().await.success(), PackMap::new());
    let meta = client.recv().await.success();
    assert_eq!(get(&meta, "qid"), &PackValue::Int(0));
    assert_eq!(get(&meta, "fields"), &PackValue::List(vec!["x".into()]));
    let (records, summary) = client.records().await;
    assert_eq!(records.len(), 2);
    let meta = summary.success();
    assert!(meta.get("bookmark").is_none(), "bookmarks come with COMMIT");
    let meta = client.recv().await.success();
    assert_eq!(get(&meta, "bookmark").as_str(), Some("FB:1"));
    client.recv().await.success(); // the second BEGIN
    assert_eq!(
        backend.log(),
        ["begin 1", "run COUNT 2 in tx1", "commit 1", "begin 2"]
    );
}

#[tokio::test]
async fn several_results_are_addressed_by_qid() {
    let ctx = context(FakeBackend::new(), 1);
    let mut client = connect(&ctx, 4, 4).await;
    client.login(false).await;
    client
        .send(&[begin(), run("COUNT 3"), run("COUNT 2"), run("COUNT 4")])
        .await;
    client.recv().await.success();
    for qid in 0..3 {
        let meta = client.recv().await.success();
        assert_eq!(get(&meta, "qid"), &PackValue::Int(qid));
    }
    // qid 0 first, in two steps.
    client.send(&[pull_qid(2, 0)]).await;
    let (records, summary) = client.records().await;
    assert_eq!(records.len(), 2);
    assert_eq!(get(&summary.success(), "has_more"), &PackValue::Bool(true));
    client.send(&[pull_qid(-1, 0)]).await;
    let (records, summary) = client.records().await;
    assert_eq!(records, vec![vec![PackValue::Int(3)]]);
    assert!(summary.success().get("has_more").is_none());
    // -1 is the latest RUN (qid 2).
    client.send(&[pull_qid(-1, -1)]).await;
    let (records, _) = client.records().await;
    assert_eq!(records.len(), 4);
    // qid 0 is exhausted: asking again is a failure.
    client.send(&[pull_qid(-1, 0)]).await;
    client.recv().await.failure();
    client.send(&[reset()]).await;
    client.recv().await.success();
}

#[tokio::test]
async fn commit_discards_open_results_first() {
    let backend = FakeBackend::new();
    let ctx = context(backend.clone(), 1);
    let mut client = connect(&ctx, 5, 4).await;
    client.login(true).await;
    client
        .send(&[begin(), run("CREATE"), run("COUNT 5"), commit()])
        .await;
    for _ in 0..3 {
        client.recv().await.success();
    }
    let meta = client.recv().await.success();
    assert_eq!(get(&meta, "bookmark").as_str(), Some("FB:1"));
    assert_eq!(backend.log().last().map(String::as_str), Some("commit 1"));
}

#[tokio::test]
async fn rollback_ends_the_transaction() {
    let backend = FakeBackend::new();
    let ctx = context(backend.clone(), 1);
    let mut client = connect(&ctx, 5, 4).await;
    client.login(true).await;
    client
        .send(&[
            begin(),
            run("CREATE"),
            rollback(),
            run("RETURN 1"),
            pull(-1),
        ])
        .await;
    for _ in 0..4 {
        client.recv().await.success();
    }
    let (records, _) = client.records().await;
    assert_eq!(records.len(), 1);
    assert_eq!(
        backend.log(),
        [
            "begin 1",
            "run CREATE in tx1",
            "rollback 1",
            "run RETURN 1 in auto"
        ]
    );
}

#[tokio::test]
async fn reset_during_a_transaction_rolls_it_back() {
    let backend = FakeBackend::new();
    let ctx = context(backend.clone(), 1);
    let mut client = connect(&ctx, 5, 4).await;
    client.login(true).await;
    client.send(&[begin(), run("COUNT 10"), pull(2)]).await;
    client.recv().await.success();
    client.recv().await.success();
    let (records, _) = client.records().await;
    assert_eq!(records.len(), 2);
    client.send(&[reset()]).await;
    assert_eq!(client.recv().await.success(), PackMap::new());
    assert_eq!(backend.log().last().map(String::as_str), Some("rollback 1"));
    // READY again: COMMIT is now a protocol violation, RUN is auto-commit.
    client.send(&[run("RETURN 1"), pull(-1)]).await;
    client.recv().await.success();
    let (records, _) = client.records().await;
    assert_eq!(records.len(), 1);
    assert_eq!(
        backend.log().last().map(String::as_str),
        Some("run RETURN 1 in auto")
    );
}

#[tokio::test]
async fn a_failure_inside_a_transaction_keeps_it_until_reset() {
    let backend = FakeBackend::new();
    let ctx = context(backend.clone(), 1);
    let mut client = connect(&ctx, 5, 4).await;
    client.login(true).await;
    client.send(&[begin(), run("FAIL"), commit()]).await;
    client.recv().await.success();
    client.recv().await.failure();
    assert_eq!(client.recv().await, Reply::Ignored);
    assert!(!backend.log().iter().any(|e| e.starts_with("commit")));
    client.send(&[reset()]).await;
    client.recv().await.success();
    assert_eq!(backend.log().last().map(String::as_str), Some("rollback 1"));
}

#[tokio::test]
async fn disconnecting_inside_a_transaction_rolls_it_back() {
    let backend = FakeBackend::new();
    let ctx = context(backend.clone(), 1);
    let mut client = connect(&ctx, 5, 4).await;
    client.login(true).await;
    client.send(&[begin()]).await;
    client.recv().await.success();
    let Client { io, server } = client;
    drop(io);
    server.await.unwrap();
    assert_eq!(backend.log(), ["begin 1", "rollback 1"]);
}
