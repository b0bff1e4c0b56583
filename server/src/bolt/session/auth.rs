//! HELLO, LOGON, LOGOFF and ROUTE.
//!
//! Credentials travel in HELLO before Bolt 5.1 and in LOGON from 5.1; both
//! are checked by the server's [`crate::auth::Authenticator`] (on the
//! execution pool: the password hash is slow on purpose, and its budget is
//! shared by all clients, see [`crate::auth::hashing`]). With
//! authentication disabled anything passes, including `LOGON {}` without
//! a scheme, as Neo4j does. A refused client gets one FAILURE
//! (`Neo.ClientError.Security.Unauthorized`) and the connection closes.

use super::{Handled, HandlerError, Session, State};
use crate::auth::AuthToken;
use crate::bolt::backend::Backend;
use crate::bolt::failure::Failure;
use crate::bolt::SERVER_AGENT;
use crate::protocol_status;
use nereid_packstream::{PackMap, PackValue};

impl<B: Backend> Session<B> {
    pub(super) async fn hello(&mut self, extra: PackMap) -> Handled {
        if !self.version.has_logon() {
            // Before 5.1 HELLO carries the credentials.
            self.authenticate(&extra).await?;
        }
        self.hello_done = true;
        self.routing_address = extra
            .get("routing")
            .and_then(PackValue::as_map)
            .and_then(|routing| routing.get("address"))
            .and_then(PackValue::as_str)
            .map(str::to_string);
        let utc = self.version.accepts_utc_patch()
            && extra
                .get("patch_bolt")
                .and_then(PackValue::as_list)
                .is_some_and(|patches| patches.iter().any(|p| p.as_str() == Some("utc")));
        self.format = self.version.struct_format(utc);

        let mut meta = PackMap::new()
            .with("server", SERVER_AGENT)
            .with("connection_id", self.connection_id.as_str())
            .with(
                "hints",
                PackMap::new().with(
                    "connection.recv_timeout_seconds",
                    i64::try_from(self.ctx.config.recv_timeout_hint.as_secs()).unwrap_or(i64::MAX),
                ),
            );
        if self.manifest {
            meta.insert("protocol_version", self.version.to_string());
        }
        if utc {
            meta.insert("patch_bolt", PackValue::List(vec!["utc".into()]));
        }
        if self.version.has_logon() {
            self.state = State::Authentication;
        } else {
            // Before 5.1 HELLO carries the credentials.
            self.authenticated = true;
            self.state = State::Ready;
        }
        self.success(meta)
    }

    pub(super) async fn logon(&mut self, auth: PackMap) -> Handled {
        self.authenticate(&auth).await?;
        self.authenticated = true;
        self.state = State::Ready;
        self.success(PackMap::new())
    }

    /// Checks the `scheme`/`principal`/`credentials` of `fields`.
    async fn authenticate(&mut self, fields: &PackMap) -> Handled {
        let auth = self.ctx.auth.clone();
        if !auth.is_enabled() {
            return Ok(());
        }
        let text = |key: &str| {
            fields
                .get(key)
                .and_then(PackValue::as_str)
                .map(str::to_string)
        };
        let token = AuthToken {
            scheme: text("scheme"),
            principal: text("principal"),
            credentials: text("credentials"),
        };
        let peer = self.peer.map(|p| p.ip());
        let refused = |e| HandlerError::Failure(Failure::from(protocol_status::from_auth(e)));
        auth.precheck(&token, peer).map_err(refused)?;
        // Waits here, on the I/O side, so that a flood of logins queues
        // without holding execution threads.
        let permit = auth.hash_budget().acquire().await.map_err(refused)?;
        let outcome = self
            .ctx
            .pool
            .run(move || {
                let outcome = auth.authenticate(&token, peer);
                drop(permit);
                outcome
            })
            .await?;
        match outcome {
            Ok(user) => {
                self.username = user.unwrap_or_default();
                Ok(())
            }
            Err(e) => Err(refused(e)),
        }
    }

    pub(super) fn logoff(&mut self) -> Handled {
        self.authenticated = false;
        self.state = State::Authentication;
        self.success(PackMap::new())
    }

    /// A single-server routing table: this server for every role, under
    /// the address the client used (from its routing context), else the
    /// configured Bolt address.
    pub(super) fn route(&mut self, routing: &PackMap, db: Option<&str>) -> Handled {
        let db = super::database::resolve(db)?;
        let address = routing
            .get("address")
            .and_then(PackValue::as_str)
            .map(str::to_string)
            .or_else(|| self.routing_address.clone())
            .unwrap_or_else(|| self.ctx.config.advertised_address.clone());
        let servers = ["WRITE", "READ", "ROUTE"]
            .into_iter()
            .map(|role| {
                PackValue::Map(
                    PackMap::new()
                        .with("addresses", PackValue::List(vec![address.as_str().into()]))
                        .with("role", role),
                )
            })
            .collect::<Vec<_>>();
        let table = PackMap::new()
            .with("servers", PackValue::List(servers))
            .with("ttl", 300)
            .with("db", db);
        self.success(PackMap::new().with("rt", table))
    }
}
