//! Bookmarks on BEGIN and auto-commit RUN: validated, and waited for.

use super::client::*;
use super::fake::FakeBackend;
use crate::bolt::{BoltConfig, BoltContext, ExecPool};
use nereid_packstream::{PackMap, PackValue};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

fn with_bookmarks(bookmarks: PackValue) -> PackMap {
    PackMap::new().with("bookmarks", bookmarks)
}

fn context_with_wait(backend: Arc<FakeBackend>, wait: Duration) -> Arc<BoltContext<FakeBackend>> {
    let mut config = BoltConfig::new(ADVERTISED);
    config.bookmark_timeout = wait;
    BoltContext::new(backend, ExecPool::new(1).unwrap(), config)
}

#[tokio::test]
async fn visible_bookmarks_pass_on_run_and_begin() {
    let backend = FakeBackend::new();
    backend.visible.store(10, Ordering::Release);
    let ctx = context(backend, 1);
    let mut client = connect(&ctx, 5, 4).await;
    client.login(true).await;
    let seen = PackValue::List(vec!["FB:nereid:3".into(), "FB:nereid:10".into()]);
    client
        .send(&[
            run_with_extra("RETURN 1", with_bookmarks(seen.clone())),
            pull(-1),
            begin_with(with_bookmarks(seen)),
            rollback(),
        ])
        .await;
    client.recv().await.success();
    let (records, summary) = client.records().await;
    assert_eq!(records.len(), 1);
    summary.success();
    client.recv().await.success();
    client.recv().await.success();
}

#[tokio::test]
async fn malformed_bookmarks_are_a_client_error_and_the_session_recovers() {
    let ctx = context(FakeBackend::new(), 1);
    let mut client = connect(&ctx, 5, 8).await;
    client.login(true).await;
    for (bad, expected) in [
        (
            PackValue::List(vec!["not-a-bookmark".into()]),
            "Neo.ClientError.Transaction.InvalidBookmark",
        ),
        (
            PackValue::List(vec![PackValue::Int(1)]),
            "Neo.ClientError.Request.Invalid",
        ),
        (
            PackValue::from("FB:nereid:1"),
            "Neo.ClientError.Request.Invalid",
        ),
    ] {
        // (A RESET sent in the same write would interrupt them instead.)
        client
            .send(&[begin_with(with_bookmarks(bad)), run("RETURN 1")])
            .await;
        let failure = client.recv().await.failure();
        assert_eq!(code(&failure), expected);
        let message = failure
            .get("message")
            .and_then(PackValue::as_str)
            .unwrap_or_default();
        assert!(message.contains("bookmark"), "{message}");
        assert_eq!(client.recv().await, Reply::Ignored);
        client.send(&[reset()]).await;
        client.recv().await.success();
    }
    client.send(&[run("RETURN 1"), pull(-1)]).await;
    client.recv().await.success();
}

#[tokio::test]
async fn a_bookmark_waits_for_its_commit_to_become_visible() {
    let backend = FakeBackend::new();
    let ctx = context_with_wait(backend.clone(), Duration::from_secs(60));
    let mut client = connect(&ctx, 5, 4).await;
    client.login(true).await;
    client
        .send(&[begin_with(with_bookmarks(PackValue::List(vec![
            "FB:nereid:5".into(),
        ])))])
        .await;
    // The commit is published while BEGIN waits.
    tokio::time::sleep(Duration::from_millis(20)).await;
    backend.visible.store(5, Ordering::Release);
    client.recv().await.success();
}

#[tokio::test]
async fn a_bookmark_never_reached_fails_transiently() {
    let ctx = context_with_wait(FakeBackend::new(), Duration::from_millis(10));
    let mut client = connect(&ctx, 5, 4).await;
    client.login(true).await;
    client
        .send(&[run_with_extra(
            "RETURN 1",
            with_bookmarks(PackValue::List(vec!["FB:nereid:99".into()])),
        )])
        .await;
    let failure = client.recv().await.failure();
    assert_eq!(
        code(&failure),
        "Neo.TransientError.General.DatabaseUnavailable"
    );
}
