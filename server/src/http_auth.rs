//! HTTP Basic authentication for every endpoint but `/health` and the
//! console's static files (`/admin/*`, `/loader*`, `/export`, the Query
//! API, `/metrics`): when the server has users, these take the same
//! credentials as Bolt, checked by the same [`Authenticator`] (its hashing
//! budget and per-address lock-out included), so the HTTP port is no way
//! around them; the administration and loader endpoints are an
//! administrator's, `/metrics` any user's (a Prometheus scrape job sends
//! `basic_auth`). `/health` stays open for load balancers and the image's
//! HEALTHCHECK: it shows a state, never data.
//!
//! Refusals answer in the shape of Neo4j's HTTP API errors
//! (`{"errors": [{"code", "message"}]}`) with 401 and a `WWW-Authenticate`
//! challenge, or 429 while the address is locked out.

use crate::auth::{AuthError, AuthToken, Authenticator};
use axum::extract::{ConnectInfo, Request, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::{Json, Router};
use base64::Engine;
use nereid_engine::{Access, DbError};
use nereid_errors::Status;
use serde_json::json;
use std::net::SocketAddr;
use std::sync::Arc;

/// `router`'s routes, each requiring a user when `auth` has users.
pub fn require_user(router: Router, auth: Arc<Authenticator>) -> Router {
    router.layer(axum::middleware::from_fn_with_state(auth, check))
}

/// The user an authenticated request came from, for the handlers that
/// show who runs what (`SHOW TRANSACTIONS` of the Query API's queries),
/// with what the user may run.
#[derive(Clone, Debug)]
pub(crate) struct HttpUser {
    pub(crate) name: String,
    pub(crate) access: Access,
}

async fn check(
    State(auth): State<Arc<Authenticator>>,
    mut request: Request,
    next: Next,
) -> Response {
    if !auth.is_enabled() {
        return next.run(request).await;
    }
    let peer = request
        .extensions()
        .get::<ConnectInfo<SocketAddr>>()
        .map(|info| info.0.ip());
    let Some(token) = basic_token(request.headers()) else {
        return refused(AuthError::MissingScheme);
    };
    if let Err(e) = auth.precheck(&token, peer) {
        return refused(e);
    }
    let permit = match auth.hash_budget().acquire().await {
        Ok(permit) => permit,
        Err(e) => return refused(e),
    };
    let verifier = auth.clone();
    let outcome = tokio::task::spawn_blocking(move || {
        let outcome = verifier.authenticate(&token, peer);
        drop(permit);
        outcome
    })
    .await;
    match outcome {
        Ok(Ok(user)) => {
            let name = user.unwrap_or_default();
            let access = auth.access_of(&name);
            if let Err(refusal) = allowed(request.uri().path(), &name, &access) {
                return forbidden(refusal);
            }
            request.extensions_mut().insert(HttpUser { name, access });
            next.run(request).await
        }
        Ok(Err(e)) => refused(e),
        Err(e) => {
            tracing::error!("verifying HTTP credentials failed: {e}");
            StatusCode::INTERNAL_SERVER_ERROR.into_response()
        }
    }
}

/// Whether a user with `access` may call `path`: the administration and
/// loader endpoints are an administrator's (as `db.checkpoint` and
/// `neptune.load` are), `/export` a reader's; the Query API's statements
/// are checked by the engine like Bolt's.
fn allowed(path: &str, user: &str, access: &Access) -> Result<(), DbError> {
    let admin_only = path.starts_with("/admin/") || path.starts_with("/loader");
    let reads = path.starts_with("/export");
    if !(admin_only || reads) {
        return Ok(());
    }
    let roles: &[String] = match access {
        Access::Unrestricted => return Ok(()),
        Access::PasswordChangeRequired => &[],
        Access::Roles(roles) => roles,
    };
    let has = |wanted: &[&str]| roles.iter().any(|r| wanted.contains(&r.as_str()));
    let ok = if admin_only {
        has(&["admin"])
    } else {
        has(&["admin", "architect", "publisher", "editor", "reader"])
    };
    if ok {
        return Ok(());
    }
    let shown = std::iter::once("PUBLIC")
        .chain(roles.iter().map(String::as_str))
        .collect::<Vec<_>>()
        .join(", ");
    let what = if admin_only {
        "Executing admin procedure is"
    } else {
        "Read operations are"
    };
    Err(DbError {
        status: Status::Forbidden,
        message: format!("{what} not allowed for user '{user}' with roles [{shown}]."),
    })
}

/// 403 in Neo4j's error shape.
fn forbidden(e: DbError) -> Response {
    let body = Json(json!({
        "errors": [{ "code": e.status.code(), "message": e.message }]
    }));
    (StatusCode::FORBIDDEN, body).into_response()
}

/// The `Authorization: Basic base64(user:password)` header as a token;
/// `None` when absent or not Basic.
fn basic_token(headers: &HeaderMap) -> Option<AuthToken> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, encoded) = value.split_once(' ')?;
    if !scheme.eq_ignore_ascii_case("basic") {
        return None;
    }
    let decoded = base64::engine::general_purpose::STANDARD
        .decode(encoded.trim())
        .ok()?;
    let text = String::from_utf8(decoded).ok()?;
    let (user, password) = text.split_once(':')?;
    Some(AuthToken {
        scheme: Some("basic".into()),
        principal: Some(user.into()),
        credentials: Some(password.into()),
    })
}

fn refused(e: AuthError) -> Response {
    let failure = crate::protocol_status::from_auth(e);
    let code = match failure.status {
        nereid_errors::Status::AuthenticationRateLimit => StatusCode::TOO_MANY_REQUESTS,
        _ => StatusCode::UNAUTHORIZED,
    };
    let body = Json(json!({
        "errors": [{ "code": failure.status.code(), "message": failure.message }]
    }));
    let mut response = (code, body).into_response();
    response.headers_mut().insert(
        header::WWW_AUTHENTICATE,
        HeaderValue::from_static("Basic realm=\"nereid\", charset=\"UTF-8\""),
    );
    response
}

#[cfg(test)]
mod tests {
    use super::basic_token;
    use axum::http::{header, HeaderMap, HeaderValue};

    fn with(value: &str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(header::AUTHORIZATION, HeaderValue::from_str(value).unwrap());
        headers
    }

    #[test]
    fn basic_credentials_are_read_and_anything_else_is_none() {
        // "neo4j:pa:ss" (a password may hold a colon).
        let token = basic_token(&with("Basic bmVvNGo6cGE6c3M=")).unwrap();
        assert_eq!(token.principal.as_deref(), Some("neo4j"));
        assert_eq!(token.credentials.as_deref(), Some("pa:ss"));
        assert!(basic_token(&with("Bearer abc")).is_none());
        assert!(basic_token(&with("Basic !!!")).is_none());
        assert!(basic_token(&HeaderMap::new()).is_none());
    }
}
