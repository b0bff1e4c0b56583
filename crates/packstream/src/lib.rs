//! PackStream v1: the binary value encoding that Bolt messages are made of.
//!
//! Three layers, from the wire up:
//! - [`PackValue`] is the wire-level value model (null, booleans, integers,
//!   floats, bytes, strings, lists, dictionaries and tagged structures);
//!   [`encode`] / [`decode`] convert it to and from bytes.
//! - [`params`] converts client-sent values into [`nereid_values::Value`]
//!   query parameters (graph entities are refused there: a client cannot
//!   forge a node).
//! - [`result`] writes query results straight to bytes, materialising node,
//!   relationship and path references through an
//!   [`nereid_values::EntityResolver`] in the structure shape of the
//!   negotiated Bolt version.
//!
//! Invariant: decoding never panics and never allocates more than the input
//! could possibly describe; every malformed input is a [`DecodeError`].

pub mod decode;
pub mod encode;
mod error;
pub mod marker;
pub mod param_decode;
pub mod params;
pub mod result;
pub mod spatial;
pub mod temporal;
mod value;

pub use decode::{from_slice, Decoder, DEFAULT_MAX_DEPTH};
pub use encode::{encode, to_vec};
pub use error::{DecodeError, EncodeError, ParamError};
pub use param_decode::{decode_params, skip_value, DecodedParams, ParamFailure};
pub use params::{pack_to_value, value_to_pack};
pub use result::{encode_result_value, StructFormat};
pub use value::{PackMap, PackValue};

/// The largest size (bytes, items or entries) PackStream allows, even with a
/// 32-bit length field.
pub const MAX_SIZE: usize = i32::MAX as usize;
