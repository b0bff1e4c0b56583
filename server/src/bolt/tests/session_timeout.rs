//! Transaction timeouts at the Bolt level: the client's `tx_timeout` in
//! BEGIN and RUN, the server's `--transaction-timeout`, the status that
//! tells them apart, and a session that goes on after RESET. The fake
//! backend checks the deadline before each row, as the executor does
//! before each batch.

use super::client::*;
use super::fake::FakeBackend;
use crate::bolt::{BoltConfig, BoltContext, ExecPool};
use nereid_dfe::TimeoutOrigin;
use nereid_packstream::{PackMap, PackValue};
use std::sync::Arc;
use std::time::Duration;

const CLIENT_CODE: &str = "Neo.ClientError.Transaction.TransactionTimedOutClientConfiguration";
const SERVER_CODE: &str = "Neo.ClientError.Transaction.TransactionTimedOut";

fn context_with_default(
    backend: Arc<FakeBackend>,
    default: Option<Duration>,
) -> Arc<BoltContext<FakeBackend>> {
    let config = BoltConfig {
        transaction_timeout: default,
        ..BoltConfig::new(ADVERTISED)
    };
    BoltContext::new(backend, ExecPool::new(1).unwrap(), config)
}

fn timeout(ms: i64) -> PackMap {
    timeout_value(PackValue::Int(ms))
}

fn timeout_value(value: PackValue) -> PackMap {
    PackMap::new().with("tx_timeout", value)
}

/// After a FAILURE: RESET, then `RETURN 1` answers as usual. It carries a
/// long timeout of its own: under a short server default, a loaded test
/// machine could otherwise time it out too.
async fn reset_and_return_one(client: &mut Client) {
    client
        .send(&[
            reset(),
            run_with_extra("RETURN 1", timeout(600_000)),
            pull(-1),
        ])
        .await;
    client.recv().await.success();
    client.recv().await.success();
    let (records, summary) = client.records().await;
    assert_eq!(records, vec![vec![PackValue::Int(1)]]);
    summary.success();
}

#[tokio::test]
async fn an_auto_commit_query_past_the_clients_timeout_fails_and_the_session_goes_on() {
    let ctx = context_with_default(FakeBackend::new(), None);
    let mut client = connect(&ctx, 5, 4).await;
    client.login(true).await;
    client
        .send(&[run_with_extra("ENDLESS", timeout(50)), pull(-1)])
        .await;
    client.recv().await.success();
    let (_, summary) = client.records().await;
    let failure = summary.failure();
    assert_eq!(code(&failure), CLIENT_CODE, "{failure:?}");
    reset_and_return_one(&mut client).await;
}

#[tokio::test]
async fn the_servers_default_gives_its_own_status() {
    let ctx = context_with_default(FakeBackend::new(), Some(Duration::from_millis(50)));
    let mut client = connect(&ctx, 5, 4).await;
    client.login(true).await;
    client.send(&[run("ENDLESS"), pull(-1)]).await;
    client.recv().await.success();
    let (_, summary) = client.records().await;
    let failure = summary.failure();
    assert_eq!(code(&failure), SERVER_CODE, "{failure:?}");
    let message = get(&failure, "message").as_str().unwrap_or_default();
    assert!(message.contains("--transaction-timeout"), "{message}");
    reset_and_return_one(&mut client).await;
}

#[tokio::test]
async fn a_clients_timeout_replaces_the_servers_default() {
    let backend = FakeBackend::new();
    let ctx = context_with_default(backend.clone(), Some(Duration::from_millis(10)));
    let mut client = connect(&ctx, 5, 4).await;
    client.login(true).await;
    // Longer than the default: the client's applies.
    client
        .send(&[run_with_extra("RETURN 1", timeout(60_000)), pull(-1)])
        .await;
    client.recv().await.success();
    client.records().await.1.success();
    let deadline = backend.last_deadline.lock().unwrap().expect("a deadline");
    assert_eq!(deadline.origin(), TimeoutOrigin::Client);
    assert_eq!(deadline.limit(), Duration::from_secs(60));
    // 0: no limit at all, not even the server's.
    client
        .send(&[run_with_extra("RETURN 1", timeout(0)), pull(-1)])
        .await;
    client.recv().await.success();
    client.records().await.1.success();
    assert_eq!(*backend.last_deadline.lock().unwrap(), None);
    // Nothing given: the server's default.
    client.send(&[run("RETURN 1"), pull(-1)]).await;
    client.recv().await.success();
    client.records().await.1.success();
    let deadline = backend.last_deadline.lock().unwrap().expect("a deadline");
    assert_eq!(deadline.origin(), TimeoutOrigin::Server);
}

#[tokio::test]
async fn a_statement_starting_after_the_deadline_fails_and_the_transaction_rolls_back() {
    let backend = FakeBackend::new();
    let ctx = context_with_default(backend.clone(), None);
    let mut client = connect(&ctx, 5, 4).await;
    client.login(true).await;
    client
        .send(&[begin_with(timeout(100)), run("CREATE"), pull(-1)])
        .await;
    client.recv().await.success();
    client.recv().await.success();
    client.records().await.1.success();
    tokio::time::sleep(Duration::from_millis(300)).await;
    client.send(&[run("RETURN 1"), pull(-1)]).await;
    let failure = client.recv().await.failure();
    assert_eq!(code(&failure), CLIENT_CODE, "{failure:?}");
    assert_eq!(client.recv().await, Reply::Ignored);
    reset_and_return_one(&mut client).await;
    let log = backend.log();
    assert_eq!(
        &log[..3],
        ["begin 1", "run CREATE in tx1", "rollback 1"],
        "the second statement never ran; {log:?}"
    );
}

#[tokio::test]
async fn a_commit_after_the_deadline_fails_and_rolls_back() {
    let backend = FakeBackend::new();
    let ctx = context_with_default(backend.clone(), Some(Duration::from_millis(100)));
    let mut client = connect(&ctx, 5, 4).await;
    client.login(true).await;
    client.send(&[begin(), run("CREATE"), pull(-1)]).await;
    client.recv().await.success();
    client.recv().await.success();
    client.records().await.1.success();
    tokio::time::sleep(Duration::from_millis(300)).await;
    client.send(&[commit()]).await;
    let failure = client.recv().await.failure();
    assert_eq!(code(&failure), SERVER_CODE, "{failure:?}");
    reset_and_return_one(&mut client).await;
    let log = backend.log();
    assert!(log.contains(&"rollback 1".to_string()), "{log:?}");
    assert!(!log.contains(&"commit 1".to_string()), "{log:?}");
}

#[tokio::test]
async fn a_timeout_that_is_not_a_non_negative_integer_is_refused() {
    let backend = FakeBackend::new();
    let ctx = context_with_default(backend.clone(), None);
    let mut client = connect(&ctx, 5, 4).await;
    client.login(true).await;
    for bad in [
        PackValue::Int(-5),
        PackValue::Float(0.5),
        PackValue::from("1000"),
    ] {
        client
            .send(&[
                run_with_extra("RETURN 1", timeout_value(bad.clone())),
                pull(-1),
            ])
            .await;
        let failure = client.recv().await.failure();
        assert_eq!(code(&failure), "Neo.ClientError.Request.Invalid", "{bad:?}");
        assert_eq!(client.recv().await, Reply::Ignored);
        reset_and_return_one(&mut client).await;
        client.send(&[begin_with(timeout_value(bad.clone()))]).await;
        let failure = client.recv().await.failure();
        assert_eq!(code(&failure), "Neo.ClientError.Request.Invalid", "{bad:?}");
        reset_and_return_one(&mut client).await;
    }
    assert!(
        backend.log().iter().all(|e| e == "run RETURN 1 in auto"),
        "nothing else ran: {:?}",
        backend.log()
    );
}
