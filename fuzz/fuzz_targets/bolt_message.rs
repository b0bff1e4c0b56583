//! Bolt message decoding: one message body (the bytes between chunk
//! headers) parsed into a request, and a RUN's parameters decoded into
//! values as the session does (under a small memory limit, so a hostile
//! size header is refused rather than allocated). Neither may panic on any
//! input.
#![no_main]

use libfuzzer_sys::fuzz_target;
use nereid_server::bolt::request::Request;

/// The memory limit of the decoded parameters: small, so that the
/// fuzzer explores the refusal as well as the decoding.
const LIMIT: usize = 1 << 20;

fuzz_target!(|body: &[u8]| {
    if let Ok(Request::Run { params, .. }) = Request::parse(body) {
        let _ = nereid_packstream::decode_params(&params.0, LIMIT);
    }
});
