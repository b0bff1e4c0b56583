//! Connecting: authentication (good and bad password), `neo4j://` URIs, TLS,
//! and the bookmark scenario neo4rs 0.8 has no API for.

use neo4rs::{query, ConfigBuilder, Graph};

use crate::support::{self, ensure, single_int, Checked, Context, Outcome, Settings};

pub async fn authenticate(graph: &Graph) -> Checked {
    let x = single_int(graph, "RETURN 1 AS x", "x").await?;
    ensure(x == 1, || format!("RETURN 1 gave {x}"))?;
    Ok(Outcome::Passed(None))
}

/// neo4rs authenticates when the pool opens its first connection, so the
/// refusal shows on the first query.
pub async fn bad_password(settings: &Settings) -> Checked {
    if !settings.auth_enforced {
        return Ok(Outcome::Skipped(
            "the server does not enforce authentication (SCENARIO_AUTH_ENFORCED)".into(),
        ));
    }
    let wrong = format!("{}-wrong", settings.password);
    let refused = match support::connect(&settings.uri, &wrong, 1).await {
        Err(e) => e,
        Ok(graph) => match graph.run(query("RETURN 1")).await {
            Err(e) => e,
            Ok(()) => return Err("a wrong password was accepted".into()),
        },
    };
    let text = refused.to_string();
    let lower = text.to_lowercase();
    ensure(
        lower.contains("unauthorized") || lower.contains("authentication"),
        || format!("refused, but not for authentication: {text}"),
    )?;
    Ok(Outcome::Passed(None))
}

pub fn bookmarks() -> Checked {
    Ok(Outcome::NotApplicable(
        "neo4rs 0.8 has no bookmark API (it neither reads the bookmark a commit returns nor sends bookmarks)",
    ))
}

/// neo4rs 0.8 accepts `neo4j://` and sends HELLO with a routing context (so
/// the server runs in routing mode), but has no ROUTE message and no routing
/// table: every query goes to the URI's address.
pub async fn routing(settings: &Settings) -> Checked {
    let Some(rest) = settings.uri.strip_prefix("bolt://") else {
        return Err(format!("not a bolt:// URI: {}", settings.uri));
    };
    let routed = support::connect(&format!("neo4j://{rest}"), &settings.password, 1)
        .await
        .context("connect with neo4j://")?;
    routed
        .run(query("CREATE (:Routed {v: 1})"))
        .await
        .context("write")?;
    let count = single_int(&routed, "MATCH (r:Routed) RETURN count(r) AS c", "c").await?;
    ensure(count == 1, || format!("{count} Routed nodes"))?;
    Ok(Outcome::Passed(Some(
        "HELLO with a routing context; neo4rs 0.8 sends no ROUTE (no client-side routing)".into(),
    )))
}

/// neo4rs 0.8 verifies the server certificate for every TLS scheme (`+ssc`
/// included), against the system roots plus the PEM file given to
/// `with_client_certificate` (a trusted CA, despite the name). So the
/// scenario trusts the listener's self-signed certificate explicitly, and
/// checks that without it the connection is refused.
pub async fn tls(settings: &Settings) -> Checked {
    let Some(tls_uri) = &settings.tls_uri else {
        return Ok(Outcome::Skipped(
            "no TLS listener given (SCENARIO_TLS_URI)".into(),
        ));
    };
    let Some(ca) = &settings.tls_ca else {
        return Ok(Outcome::Skipped(
            "no certificate to trust given (SCENARIO_TLS_CA)".into(),
        ));
    };
    let Some((_, address)) = tls_uri.split_once("://") else {
        return Err(format!("not a URI: {tls_uri}"));
    };
    let uri = format!("bolt+s://{address}");
    let untrusted = support::connect(&uri, &settings.password, 1).await;
    let refused = match untrusted {
        Err(_) => true,
        Ok(graph) => graph.run(query("RETURN 1")).await.is_err(),
    };
    ensure(refused, || {
        "an untrusted self-signed certificate was accepted".into()
    })?;
    let config = ConfigBuilder::default()
        .uri(&uri)
        .password(&settings.password)
        .with_client_certificate(ca);
    let secure = support::connect_with(config, 1)
        .await
        .context("connect over TLS")?;
    let x = single_int(&secure, "RETURN 1 AS x", "x").await?;
    ensure(x == 1, || format!("RETURN 1 gave {x}"))?;
    Ok(Outcome::Passed(Some(
        "bolt+s:// trusting the self-signed certificate; refused without it".into(),
    )))
}
