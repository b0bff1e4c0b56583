//! What a client that has not authenticated can cost: messages of at most
//! 64 KiB, a share of the server-wide buffer budget, a slot it loses to
//! newer connections, and the authentication deadline.

use super::client::*;
use super::fake::FakeBackend;
use crate::auth::hashing::HashBudget;
use crate::auth::limiter::FailureLimiter;
use crate::auth::{Authenticator, UserStore};
use crate::bolt::connection::PRE_AUTH_MAX_MESSAGE_SIZE;
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

/// A chunk of `size` bytes with no end marker: a message that never ends.
fn unterminated_chunk(size: u16) -> Vec<u8> {
    let mut bytes = size.to_be_bytes().to_vec();
    bytes.resize(2 + usize::from(size), 0xB1);
    bytes
}

/// Waits until `ctx` buffers exactly `bytes` (the server reads
/// concurrently with the test).
async fn wait_for_buffered(ctx: &BoltContext<FakeBackend>, bytes: usize) {
    for _ in 0..500 {
        if ctx.buffered_bytes() == bytes {
            return;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    panic!("buffered {} bytes, expected {bytes}", ctx.buffered_bytes());
}

#[tokio::test]
async fn a_large_message_before_authentication_fails_and_closes() {
    let ctx = context_with(|_| {});
    let mut client = connect(&ctx, 5, 4).await;
    // Two full chunks exceed 64 KiB before the message ends.
    let mut bytes = unterminated_chunk(u16::MAX);
    bytes.extend(unterminated_chunk(u16::MAX));
    client.io.write_all(&bytes).await.unwrap();
    let failure = client.recv().await.failure();
    assert_eq!(code(&failure), "Neo.ClientError.Request.Invalid");
    client.expect_closed().await;
    wait_for_buffered(&ctx, 0).await;
}

#[tokio::test]
async fn a_large_message_pipelined_behind_the_login_is_read_after_it() {
    let ctx = context_with(|_| {});
    let padding = PackMap::new().with("padding", "x".repeat(3 * PRE_AUTH_MAX_MESSAGE_SIZE));
    // Bolt 5.4 authenticates in LOGON, 4.4 in HELLO.
    for (minor, major, messages) in [(4, 5, vec![hello(), logon()]), (4, 4, vec![hello()])] {
        let mut client = connect(&ctx, major, minor).await;
        let login = messages.len();
        let mut all = messages;
        all.extend([run_with("RETURN 1", padding.clone()), pull(-1)]);
        client.send(&all).await;
        for _ in 0..login {
            client.recv().await.success();
        }
        client.recv().await.success();
        let (records, summary) = client.records().await;
        assert_eq!(records.len(), 1);
        summary.success();
    }
}

#[tokio::test]
async fn the_buffer_budget_is_shared_by_all_connections() {
    let ctx = context_with(|c| c.max_buffered_bytes = 100_000);
    let mut first = connect(&ctx, 5, 4).await;
    first
        .io
        .write_all(&unterminated_chunk(60_000))
        .await
        .unwrap();
    wait_for_buffered(&ctx, 60_000).await;

    let mut second = connect(&ctx, 5, 4).await;
    second
        .io
        .write_all(&unterminated_chunk(60_000))
        .await
        .unwrap();
    let failure = second.recv().await.failure();
    assert_eq!(
        code(&failure),
        "Neo.TransientError.Request.NoThreadsAvailable"
    );
    second.expect_closed().await;

    // Leaving releases the charge; the server serves on.
    drop(first);
    wait_for_buffered(&ctx, 0).await;
    let mut third = connect(&ctx, 5, 4).await;
    third.login(true).await;
    third.send(&[run("RETURN 1"), pull(-1)]).await;
    third.recv().await.success();
    third.records().await.1.success();
    wait_for_buffered(&ctx, 0).await;
}

#[tokio::test]
async fn an_unauthenticated_connection_is_closed_at_the_deadline() {
    let ctx = context_with(|c| c.handshake_timeout = Duration::from_millis(200));
    let mut logged_in = connect(&ctx, 5, 4).await;
    logged_in.login(true).await;
    // HELLO alone does not authenticate from 5.1 on.
    let mut stalled = connect(&ctx, 5, 4).await;
    stalled.send(&[hello()]).await;
    stalled.recv().await.success();
    let mut silent = connect(&ctx, 4, 4).await;
    stalled.expect_closed().await;
    silent.expect_closed().await;
    // The deadline does not apply once authenticated.
    logged_in.send(&[run("RETURN 1"), pull(-1)]).await;
    logged_in.recv().await.success();
    logged_in.records().await.1.success();
    assert_eq!(ctx.connection_counts(), (1, 0));
}

#[tokio::test]
async fn unauthenticated_connections_cannot_take_the_reserve() {
    let ctx = context_with(|c| {
        c.max_connections = 4;
        c.reserved_connections = 2;
    });
    let mut oldest = connect(&ctx, 5, 4).await;
    let mut second = connect(&ctx, 5, 4).await;
    let _third = connect(&ctx, 5, 4).await;
    // The third displaced the oldest: unauthenticated ones hold two slots.
    oldest.expect_closed().await;
    let mut client = connect(&ctx, 5, 4).await;
    client.login(true).await;
    client.send(&[run("RETURN 1"), pull(-1)]).await;
    client.recv().await.success();
    client.records().await.1.success();
    // The login displaced the next oldest on its way in.
    second.expect_closed().await;
    assert_eq!(ctx.connection_counts(), (2, 1));
}

#[tokio::test]
async fn logins_beyond_the_hashing_budget_are_rate_limited() {
    let dir = tempfile::tempdir().unwrap();
    let users = UserStore::open(dir.path()).unwrap();
    users.set_password("neo4j", "secret").unwrap();
    // No per-address lock-out (the test clients have no address): only
    // the server-wide budget of one hash per second, without queueing.
    let auth = Authenticator::with_users(users, FailureLimiter::default())
        .with_hash_budget(HashBudget::new(1, 1, Duration::ZERO));
    let ctx = BoltContext::with_auth(
        FakeBackend::new(),
        ExecPool::new(1).unwrap(),
        BoltConfig::new(ADVERTISED),
        Arc::new(auth),
    );
    let token = |password: &str| {
        let token = PackMap::new()
            .with("scheme", "basic")
            .with("principal", "neo4j")
            .with("credentials", password);
        msg(0x6A, vec![PackValue::Map(token)])
    };
    let mut first = connect(&ctx, 5, 4).await;
    first.send(&[hello(), token("wrong")]).await;
    first.recv().await.success();
    let failure = first.recv().await.failure();
    assert_eq!(code(&failure), "Neo.ClientError.Security.Unauthorized");
    let mut second = connect(&ctx, 5, 4).await;
    second.send(&[hello(), token("secret")]).await;
    second.recv().await.success();
    let failure = second.recv().await.failure();
    assert_eq!(
        code(&failure),
        "Neo.ClientError.Security.AuthenticationRateLimit"
    );
    second.expect_closed().await;
}
