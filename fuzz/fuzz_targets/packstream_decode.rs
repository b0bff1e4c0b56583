//! PackStream decoding of untrusted bytes, then the conversion a client
//! value goes through to become a query parameter: neither may panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use nereid_packstream::{from_slice, pack_to_value, Decoder};

fuzz_target!(|bytes: &[u8]| {
    if let Ok(value) = from_slice(bytes) {
        let _ = pack_to_value(value);
    }
    let mut decoder = Decoder::new(bytes);
    while decoder.remaining() > 0 && decoder.decode_value().is_ok() {}
});
