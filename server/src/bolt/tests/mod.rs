//! Session tests over in-memory duplex streams against a small in-memory
//! backend ([`fake::FakeBackend`]).

mod client;
mod decode_properties;
pub(crate) mod fake;
mod session_auth;
mod session_basics;
mod session_bookmarks;
mod session_conformance;
mod session_limits;
mod session_points;
mod session_preauth;
mod session_streams;
mod session_timeout;
mod session_tx;
