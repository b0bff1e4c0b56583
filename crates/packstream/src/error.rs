//! The error types of the crate: one enum per direction.

use thiserror::Error;

/// Why a byte sequence is not valid PackStream. `offset` is the position of
/// the offending marker or size field in the input.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum DecodeError {
    #[error("unexpected end of input at byte {offset}")]
    UnexpectedEnd { offset: usize },
    #[error("reserved marker 0x{marker:02X} at byte {offset}")]
    ReservedMarker { marker: u8, offset: usize },
    #[error("size {size} at byte {offset} exceeds what the remaining {remaining} bytes can hold")]
    SizeTooLarge {
        size: usize,
        remaining: usize,
        offset: usize,
    },
    #[error("values nested deeper than {limit} levels")]
    TooDeep { limit: usize },
    #[error("string at byte {offset} is not valid UTF-8")]
    InvalidUtf8 { offset: usize },
    #[error("dictionary key at byte {offset} is not a string")]
    NonStringKey { offset: usize },
    #[error("expected a structure at byte {offset}, got marker 0x{marker:02X}")]
    NotAStructure { marker: u8, offset: usize },
    #[error("{count} unexpected bytes after the value")]
    TrailingBytes { count: usize },
}

/// Why a value cannot be written as PackStream.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum EncodeError {
    #[error("{what} of size {size} exceeds the PackStream limit of 2^31-1")]
    TooLarge { what: &'static str, size: usize },
    #[error("a structure holds at most 15 fields, got {0}")]
    TooManyFields(usize),
    #[error("values nested deeper than {0} levels cannot be encoded")]
    TooDeep(usize),
    #[error(
        "a path needs one more node than relationships (got {nodes} nodes, {rels} relationships)"
    )]
    MalformedPath { nodes: usize, rels: usize },
    #[error("values of type {0} cannot be sent to a client yet")]
    Unsupported(&'static str),
}

/// Why a client-sent value cannot become a query parameter.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ParamError {
    #[error("a {0} cannot be used as a parameter; pass its id or properties instead")]
    Entity(&'static str),
    #[error("structure 0x{tag:02X} ({name}) is not supported as a parameter yet")]
    UnsupportedStructure { tag: u8, name: &'static str },
    #[error("values of type {0} cannot be sent as parameters")]
    Unsupported(&'static str),
    /// Decoding would hold more than the query's memory limit.
    #[error(
        "decoding the parameters needs more than the limit of {limit} bytes of the query's memory"
    )]
    OverBudget { limit: usize },
    #[error("parameters are not valid PackStream: {0}")]
    Decode(#[from] DecodeError),
}
