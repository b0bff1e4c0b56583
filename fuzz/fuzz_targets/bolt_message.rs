//! Bolt message decoding: one message body (the bytes between chunk
//! headers) parsed into a request, and a RUN's parameters converted as the
//! session does. Neither may panic on any input.
#![no_main]

use libfuzzer_sys::fuzz_target;
use nereid_packstream::pack_to_value;
use nereid_server::bolt::request::Request;

fuzz_target!(|body: &[u8]| {
    if let Ok(Request::Run { params, .. }) = Request::parse(body) {
        for (_, value) in params {
            let _ = pack_to_value(value);
        }
    }
});
