//! Authentication through HELLO (before 5.1) and LOGON (5.1+), against a
//! server with one user.

use super::client::*;
use super::fake::FakeBackend;
use crate::auth::limiter::FailureLimiter;
use crate::auth::{Authenticator, UserStore};
use crate::bolt::{BoltConfig, BoltContext, ExecPool};
use nereid_packstream::{PackMap, PackValue};
use std::sync::Arc;
use std::time::Duration;

fn secured() -> (Arc<BoltContext<FakeBackend>>, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let users = UserStore::open(dir.path()).unwrap();
    users.set_password("neo4j", "secret").unwrap();
    let auth = Authenticator::with_users(users, FailureLimiter::new(3, Duration::from_secs(3600)));
    let ctx = BoltContext::with_auth(
        FakeBackend::new(),
        ExecPool::new(1).unwrap(),
        BoltConfig::new(ADVERTISED),
        Arc::new(auth),
    );
    (ctx, dir)
}

fn basic(user: &str, password: &str) -> PackMap {
    PackMap::new()
        .with("scheme", "basic")
        .with("principal", user)
        .with("credentials", password)
}

fn logon_with(token: PackMap) -> PackValue {
    msg(0x6A, vec![token.into()])
}

fn hello_with(token: PackMap) -> PackValue {
    let mut extra = token;
    extra.insert("user_agent", "test/1.0");
    msg(0x01, vec![extra.into()])
}

#[tokio::test]
async fn logon_checks_the_password_and_closes_after_a_refusal() {
    let (ctx, _dir) = secured();
    let mut good = connect(&ctx, 5, 4).await;
    good.send(&[
        hello(),
        logon_with(basic("neo4j", "secret")),
        run("RETURN 1"),
    ])
    .await;
    good.recv().await.success();
    good.recv().await.success();
    good.recv().await.success();

    let mut bad = connect(&ctx, 5, 4).await;
    bad.send(&[
        hello(),
        logon_with(basic("neo4j", "wrong")),
        run("RETURN 1"),
    ])
    .await;
    bad.recv().await.success();
    let failure = bad.recv().await.failure();
    assert_eq!(code(&failure), "Neo.ClientError.Security.Unauthorized");
    bad.expect_closed().await;
}

#[tokio::test]
async fn logon_without_a_scheme_or_with_none_is_refused_cleanly() {
    let (ctx, _dir) = secured();
    for token in [PackMap::new(), PackMap::new().with("scheme", "none")] {
        let mut client = connect(&ctx, 5, 8).await;
        client.send(&[hello(), logon_with(token)]).await;
        client.recv().await.success();
        let failure = client.recv().await.failure();
        assert_eq!(code(&failure), "Neo.ClientError.Security.Unauthorized");
        client.expect_closed().await;
    }
}

#[tokio::test]
async fn bolt_4_hello_carries_the_credentials() {
    let (ctx, _dir) = secured();
    let mut good = connect(&ctx, 4, 4).await;
    good.send(&[hello_with(basic("neo4j", "secret"))]).await;
    good.recv().await.success();

    let mut bad = connect(&ctx, 4, 1).await;
    bad.send(&[hello_with(basic("other", "secret"))]).await;
    let failure = bad.recv().await.failure();
    assert_eq!(code(&failure), "Neo.ClientError.Security.Unauthorized");
    bad.expect_closed().await;
}

#[tokio::test]
async fn logoff_requires_a_new_logon() {
    let (ctx, _dir) = secured();
    let mut client = connect(&ctx, 5, 4).await;
    client
        .send(&[
            hello(),
            logon_with(basic("neo4j", "secret")),
            msg(0x6B, vec![]),
            logon_with(basic("neo4j", "nope")),
        ])
        .await;
    client.recv().await.success();
    client.recv().await.success();
    client.recv().await.success();
    let failure = client.recv().await.failure();
    assert_eq!(code(&failure), "Neo.ClientError.Security.Unauthorized");
    client.expect_closed().await;
}

#[tokio::test]
async fn without_users_any_token_passes() {
    let ctx = context(FakeBackend::new(), 1);
    let mut client = connect(&ctx, 5, 4).await;
    client
        .send(&[hello(), logon_with(PackMap::new().with("scheme", "none"))])
        .await;
    client.recv().await.success();
    client.recv().await.success();
}

#[tokio::test]
async fn repeated_failures_are_rate_limited_with_their_own_status() {
    let (ctx, _dir) = secured();
    let peer = Some(std::net::SocketAddr::from(([127, 0, 0, 9], 50123)));
    let connect_from = || async {
        let (io, server_side) = tokio::io::duplex(1 << 20);
        let server = tokio::spawn(crate::bolt::serve_connection(
            server_side,
            peer,
            ctx.clone(),
        ));
        let mut client = Client { io, server };
        let mut opening = crate::bolt::handshake::MAGIC.to_vec();
        opening.extend_from_slice(&[0, 0, 4, 5]);
        opening.resize(20, 0);
        tokio::io::AsyncWriteExt::write_all(&mut client.io, &opening)
            .await
            .unwrap();
        let mut reply = [0u8; 4];
        tokio::io::AsyncReadExt::read_exact(&mut client.io, &mut reply)
            .await
            .unwrap();
        client
    };
    let mut codes = Vec::new();
    for password in ["wrong", "wrong", "wrong", "secret"] {
        let mut client = connect_from().await;
        client
            .send(&[hello(), logon_with(basic("neo4j", password))])
            .await;
        client.recv().await.success();
        codes.push(code(&client.recv().await.failure()).to_string());
        client.expect_closed().await;
    }
    assert_eq!(
        codes,
        [
            "Neo.ClientError.Security.Unauthorized",
            "Neo.ClientError.Security.Unauthorized",
            "Neo.ClientError.Security.Unauthorized",
            "Neo.ClientError.Security.AuthenticationRateLimit",
        ]
    );
}
