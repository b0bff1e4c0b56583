//! Client messages, parsed from their PackStream structures.
//!
//! Parsing is strict about shape (a message with the wrong fields is a
//! protocol violation) and lenient about optional metadata.

use nereid_packstream::{from_slice, marker, skip_value, DecodeError, Decoder, PackMap, PackValue};
use thiserror::Error;

pub mod tag {
    pub const HELLO: u8 = 0x01;
    pub const GOODBYE: u8 = 0x02;
    pub const RESET: u8 = 0x0F;
    pub const RUN: u8 = 0x10;
    pub const BEGIN: u8 = 0x11;
    pub const COMMIT: u8 = 0x12;
    pub const ROLLBACK: u8 = 0x13;
    pub const DISCARD: u8 = 0x2F;
    pub const PULL: u8 = 0x3F;
    pub const TELEMETRY: u8 = 0x54;
    pub const ROUTE: u8 = 0x66;
    pub const LOGON: u8 = 0x6A;
    pub const LOGOFF: u8 = 0x6B;
}

/// A request from the client.
#[derive(Debug, Clone, PartialEq)]
pub enum Request {
    Hello {
        extra: PackMap,
    },
    Logon {
        auth: PackMap,
    },
    Logoff,
    Telemetry {
        api: i64,
    },
    Goodbye,
    Reset,
    Run {
        query: String,
        params: RunParams,
        extra: PackMap,
    },
    Pull {
        n: i64,
        qid: i64,
    },
    Discard {
        n: i64,
        qid: i64,
    },
    Begin {
        extra: PackMap,
    },
    Commit,
    Rollback,
    Route {
        routing: PackMap,
        bookmarks: Vec<PackValue>,
        db: Option<String>,
    },
}

#[derive(Debug, Error, PartialEq)]
pub enum RequestError {
    #[error("message is not valid PackStream: {0}")]
    Decode(#[from] DecodeError),
    #[error("a message must be a structure, got {0}")]
    NotAStructure(&'static str),
    #[error("unknown message 0x{0:02X}")]
    Unknown(u8),
    #[error("invalid {message} message: {detail}")]
    Invalid {
        message: &'static str,
        detail: String,
    },
}

/// RUN's parameters, still encoded: validated PackStream (a dictionary or
/// null) that the session decodes on the execution pool straight into
/// values, under the query's memory limit
/// (`nereid_packstream::decode_params`). Decoding them here, on the I/O
/// thread and into wire values first, held two trees of a large list at
/// once and charged nothing.
#[derive(Debug, Clone, PartialEq)]
pub struct RunParams(pub Vec<u8>);

impl RunParams {
    /// No parameters.
    pub fn empty() -> RunParams {
        RunParams(vec![nereid_packstream::marker::NULL])
    }
}

impl Request {
    /// Parses one message body (the bytes between chunk headers).
    pub fn parse(body: &[u8]) -> Result<Request, RequestError> {
        if let [0xB0..=0xBF, tag::RUN, ..] = body {
            return parse_run(body);
        }
        let (tag, fields) = match from_slice(body)? {
            PackValue::Struct { tag, fields } => (tag, fields),
            other => return Err(RequestError::NotAStructure(other.type_name())),
        };
        let mut fields = Fields {
            message: name_of(tag).ok_or(RequestError::Unknown(tag))?,
            items: fields.into_iter(),
        };
        let request = match tag {
            tag::HELLO => Request::Hello {
                extra: fields.map()?,
            },
            tag::LOGON => Request::Logon {
                auth: fields.map()?,
            },
            tag::LOGOFF => Request::Logoff,
            tag::TELEMETRY => Request::Telemetry { api: fields.int()? },
            tag::GOODBYE => Request::Goodbye,
            tag::RESET => Request::Reset,
            tag::PULL | tag::DISCARD => {
                let meta = fields.optional_map()?;
                let n = match meta.get("n") {
                    Some(PackValue::Int(n)) if *n > 0 || *n == -1 => *n,
                    other => {
                        return Err(
                            fields.invalid(format!("n must be -1 or positive, got {other:?}"))
                        )
                    }
                };
                let qid = match meta.get("qid") {
                    None | Some(PackValue::Null) => -1,
                    Some(PackValue::Int(q)) if *q >= -1 => *q,
                    Some(other) => return Err(fields.invalid(format!("bad qid {other:?}"))),
                };
                if tag == tag::PULL {
                    Request::Pull { n, qid }
                } else {
                    Request::Discard { n, qid }
                }
            }
            tag::BEGIN => Request::Begin {
                extra: fields.optional_map()?,
            },
            tag::COMMIT => Request::Commit,
            tag::ROLLBACK => Request::Rollback,
            tag::ROUTE => {
                let routing = fields.optional_map()?;
                let bookmarks = match fields.next() {
                    None | Some(PackValue::Null) => Vec::new(),
                    Some(PackValue::List(items)) => items,
                    Some(other) => {
                        return Err(fields.invalid(format!(
                            "bookmarks must be a list, got {}",
                            other.type_name()
                        )))
                    }
                };
                // 4.4+: an extra dictionary {db, imp_user}; 4.3: a bare db.
                let db = match fields.next() {
                    None | Some(PackValue::Null) => None,
                    Some(PackValue::String(db)) => Some(db),
                    Some(PackValue::Map(extra)) => {
                        extra.get("db").and_then(|v| v.as_str()).map(str::to_string)
                    }
                    Some(other) => {
                        return Err(
                            fields.invalid(format!("bad database field {}", other.type_name()))
                        )
                    }
                };
                Request::Route {
                    routing,
                    bookmarks,
                    db,
                }
            }
            other => return Err(RequestError::Unknown(other)),
        };
        fields.finish()?;
        Ok(request)
    }

    /// Whether the request carries credentials under `version` (LOGON, or
    /// HELLO before 5.1): the reader waits for the verdict on one before it
    /// reads on, because it decides the size allowed to the next message.
    pub fn is_auth_attempt(&self, version: super::BoltVersion) -> bool {
        match self {
            Request::Logon { .. } => true,
            Request::Hello { .. } => !version.has_logon(),
            _ => false,
        }
    }

    /// The message name, for logs and error messages.
    pub fn name(&self) -> &'static str {
        match self {
            Request::Hello { .. } => "HELLO",
            Request::Logon { .. } => "LOGON",
            Request::Logoff => "LOGOFF",
            Request::Telemetry { .. } => "TELEMETRY",
            Request::Goodbye => "GOODBYE",
            Request::Reset => "RESET",
            Request::Run { .. } => "RUN",
            Request::Pull { .. } => "PULL",
            Request::Discard { .. } => "DISCARD",
            Request::Begin { .. } => "BEGIN",
            Request::Commit => "COMMIT",
            Request::Rollback => "ROLLBACK",
            Request::Route { .. } => "ROUTE",
        }
    }
}

/// RUN without decoding its parameters (see [`RunParams`]): the query, the
/// parameters' bytes once validated, the extra dictionary.
fn parse_run(body: &[u8]) -> Result<Request, RequestError> {
    let invalid = |detail: String| RequestError::Invalid {
        message: "RUN",
        detail,
    };
    let mut decoder = Decoder::new(body);
    let count = decoder
        .decode_struct_header()
        .map(|(_, count)| usize::from(count))?;
    let field = |decoder: &mut Decoder<'_>| decoder.decode_value().map(Some);
    let query = match (count > 0)
        .then(|| field(&mut decoder))
        .transpose()?
        .flatten()
    {
        Some(PackValue::String(s)) => s,
        other => {
            return Err(invalid(format!(
                "expected a string, got {}",
                describe(&other)
            )))
        }
    };
    let params = if count > 1 {
        let start = decoder.position();
        match decoder.peek() {
            Some(0xA0..=0xAF | marker::MAP_8 | marker::MAP_16 | marker::MAP_32 | marker::NULL) => {
                skip_value(&mut decoder)?
            }
            Some(_) => {
                let other = field(&mut decoder)?;
                return Err(invalid(format!(
                    "expected a dictionary, got {}",
                    describe(&other)
                )));
            }
            None => return Err(DecodeError::UnexpectedEnd { offset: start }.into()),
        }
        RunParams(
            body.get(start..decoder.position())
                .unwrap_or_default()
                .to_vec(),
        )
    } else {
        RunParams::empty()
    };
    let extra = match (count > 2)
        .then(|| field(&mut decoder))
        .transpose()?
        .flatten()
    {
        None | Some(PackValue::Null) => PackMap::new(),
        Some(PackValue::Map(m)) => m,
        other => {
            return Err(invalid(format!(
                "expected a dictionary, got {}",
                describe(&other)
            )))
        }
    };
    if count > 3 {
        return Err(invalid("too many fields".to_string()));
    }
    decoder.finish()?;
    Ok(Request::Run {
        query,
        params,
        extra,
    })
}

fn name_of(t: u8) -> Option<&'static str> {
    Some(match t {
        tag::HELLO => "HELLO",
        tag::GOODBYE => "GOODBYE",
        tag::RESET => "RESET",
        tag::RUN => "RUN",
        tag::BEGIN => "BEGIN",
        tag::COMMIT => "COMMIT",
        tag::ROLLBACK => "ROLLBACK",
        tag::DISCARD => "DISCARD",
        tag::PULL => "PULL",
        tag::TELEMETRY => "TELEMETRY",
        tag::ROUTE => "ROUTE",
        tag::LOGON => "LOGON",
        tag::LOGOFF => "LOGOFF",
        _ => return None,
    })
}

/// The fields of one message, consumed in order.
struct Fields {
    message: &'static str,
    items: std::vec::IntoIter<PackValue>,
}

impl Fields {
    fn invalid(&self, detail: String) -> RequestError {
        RequestError::Invalid {
            message: self.message,
            detail,
        }
    }

    fn next(&mut self) -> Option<PackValue> {
        self.items.next()
    }

    fn map(&mut self) -> Result<PackMap, RequestError> {
        match self.items.next() {
            Some(PackValue::Map(m)) => Ok(m),
            other => Err(self.invalid(format!("expected a dictionary, got {}", describe(&other)))),
        }
    }

    /// A dictionary that older clients may leave out or send as null.
    fn optional_map(&mut self) -> Result<PackMap, RequestError> {
        match self.items.next() {
            None | Some(PackValue::Null) => Ok(PackMap::new()),
            Some(PackValue::Map(m)) => Ok(m),
            other => Err(self.invalid(format!("expected a dictionary, got {}", describe(&other)))),
        }
    }

    fn int(&mut self) -> Result<i64, RequestError> {
        match self.items.next() {
            Some(PackValue::Int(i)) => Ok(i),
            other => Err(self.invalid(format!("expected an integer, got {}", describe(&other)))),
        }
    }

    fn finish(mut self) -> Result<(), RequestError> {
        match self.items.next() {
            None => Ok(()),
            Some(_) => Err(self.invalid("too many fields".to_string())),
        }
    }
}

fn describe(value: &Option<PackValue>) -> &'static str {
    value.as_ref().map_or("nothing", PackValue::type_name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use nereid_packstream::to_vec;

    fn body(tag: u8, fields: Vec<PackValue>) -> Vec<u8> {
        to_vec(&PackValue::Struct { tag, fields }).unwrap()
    }

    #[test]
    fn pull_defaults_qid_and_validates_n() {
        let pull = body(tag::PULL, vec![PackMap::new().with("n", 100).into()]);
        assert_eq!(Request::parse(&pull), Ok(Request::Pull { n: 100, qid: -1 }));
        let zero = body(tag::PULL, vec![PackMap::new().with("n", 0).into()]);
        assert!(matches!(
            Request::parse(&zero),
            Err(RequestError::Invalid { .. })
        ));
    }

    #[test]
    fn route_accepts_the_4_3_and_4_4_forms() {
        let routing = PackMap::new().with("address", "db:7687");
        let v44 = body(
            tag::ROUTE,
            vec![
                routing.clone().into(),
                PackValue::List(vec![]),
                PackMap::new().with("db", "neo4j").into(),
            ],
        );
        let v43 = body(
            tag::ROUTE,
            vec![
                routing.clone().into(),
                PackValue::List(vec![]),
                "neo4j".into(),
            ],
        );
        for b in [v44, v43] {
            assert_eq!(
                Request::parse(&b),
                Ok(Request::Route {
                    routing: routing.clone(),
                    bookmarks: vec![],
                    db: Some("neo4j".into())
                })
            );
        }
    }

    #[test]
    fn malformed_messages_are_errors() {
        assert!(matches!(
            Request::parse(&[0xB0, 0x99]),
            Err(RequestError::Unknown(0x99))
        ));
        assert!(matches!(
            Request::parse(&[0x01]),
            Err(RequestError::NotAStructure(_))
        ));
        assert!(matches!(
            Request::parse(&[0xB1, 0x10]),
            Err(RequestError::Decode(_))
        ));
        let run = body(tag::RUN, vec![PackValue::Int(1)]);
        assert!(matches!(
            Request::parse(&run),
            Err(RequestError::Invalid { .. })
        ));
        let commit = body(tag::COMMIT, vec![PackValue::Null]);
        assert!(matches!(
            Request::parse(&commit),
            Err(RequestError::Invalid { .. })
        ));
    }
}
