//! RDF literals as Cypher values (docs/adr/0108-onegraph-rdf.md).
//!
//! The eight XSD datatypes Cypher has a value for become that value:
//! `xsd:string` (and plain literals) a string, `xsd:integer` an integer
//! (when it fits 64 bits), `xsd:decimal` / `xsd:double` / `xsd:float` a
//! float, `xsd:boolean` a boolean, `xsd:date` a date, `xsd:dateTime` a
//! date-time (a local date-time without an offset). Every other literal
//! (a language tag, another datatype, or a lexical form its datatype does
//! not accept) is kept as the string of its N-Triples spelling, such as
//! `"chat"@fr` or `"5"^^<http://www.w3.org/2001/XMLSchema#int>`, so an
//! export writes it back unchanged.

use oxrdf::vocab::xsd;
use oxrdf::LiteralRef;

use nereid_values::Value;

use crate::temporal;

/// The value `literal` stands for.
pub(crate) fn literal_value(literal: LiteralRef<'_>) -> Value {
    if literal.language().is_none() {
        if let Some(value) = typed_value(literal) {
            return value;
        }
    }
    Value::String(literal.to_string())
}

fn typed_value(literal: LiteralRef<'_>) -> Option<Value> {
    let text = literal.value();
    let datatype = literal.datatype();
    if datatype == xsd::STRING {
        Some(Value::String(text.to_owned()))
    } else if datatype == xsd::INTEGER {
        integer(text).map(Value::Int)
    } else if datatype == xsd::DECIMAL || datatype == xsd::DOUBLE || datatype == xsd::FLOAT {
        float(text).map(Value::Float)
    } else if datatype == xsd::BOOLEAN {
        match text {
            "true" | "1" => Some(Value::Bool(true)),
            "false" | "0" => Some(Value::Bool(false)),
            _ => None,
        }
    } else if datatype == xsd::DATE {
        temporal::date(text.as_bytes()).ok().map(Value::Date)
    } else if datatype == xsd::DATE_TIME {
        date_time(text)
    } else {
        None
    }
}

/// `[+-]digits`, as XSD writes integers (no exponent, no fraction).
fn integer(text: &str) -> Option<i64> {
    let digits = text.strip_prefix(['+', '-']).unwrap_or(text);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

/// XSD's float spellings: decimal or scientific, `INF`, `-INF`, `NaN`.
fn float(text: &str) -> Option<f64> {
    match text {
        "INF" | "+INF" => return Some(f64::INFINITY),
        "-INF" => return Some(f64::NEG_INFINITY),
        "NaN" => return Some(f64::NAN),
        _ => {}
    }
    let ok = text
        .bytes()
        .all(|b| b.is_ascii_digit() || matches!(b, b'+' | b'-' | b'.' | b'e' | b'E'));
    if ok && text.bytes().any(|b| b.is_ascii_digit()) {
        text.parse().ok()
    } else {
        None
    }
}

/// A date-time with an offset (`Z`, `+02:00`) is a DATETIME; without one
/// it is a LOCAL DATETIME, as XSD leaves it without a zone.
fn date_time(text: &str) -> Option<Value> {
    if !text.contains('T') {
        return None;
    }
    let time = text.split_once('T')?.1;
    let zoned = time.ends_with('Z') || time.contains('+') || time.contains('-');
    if zoned {
        temporal::datetime(text.as_bytes())
            .ok()
            .map(|d| Value::DateTime(Box::new(d)))
    } else {
        temporal::local_datetime(text.as_bytes())
            .ok()
            .map(Value::LocalDateTime)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use oxrdf::{Literal, NamedNode};

    fn typed(text: &str, datatype: &str) -> Value {
        let datatype = NamedNode::new(datatype).unwrap();
        literal_value(Literal::new_typed_literal(text, datatype).as_ref())
    }

    const XSD: &str = "http://www.w3.org/2001/XMLSchema#";

    #[test]
    fn xsd_datatypes_become_cypher_values() {
        let x = |t: &str| format!("{XSD}{t}");
        assert_eq!(typed("42", &x("integer")), Value::Int(42));
        assert_eq!(typed("-7", &x("integer")), Value::Int(-7));
        assert_eq!(typed("1.5", &x("decimal")), Value::Float(1.5));
        assert_eq!(typed("1e3", &x("double")), Value::Float(1000.0));
        assert_eq!(typed("-INF", &x("float")), Value::Float(f64::NEG_INFINITY));
        assert_eq!(typed("true", &x("boolean")), Value::Bool(true));
        assert_eq!(typed("0", &x("boolean")), Value::Bool(false));
        assert_eq!(typed("s", &x("string")), Value::String("s".into()));
        assert_eq!(
            literal_value(Literal::new_simple_literal("plain").as_ref()),
            Value::String("plain".into())
        );
        assert!(matches!(typed("2024-02-29", &x("date")), Value::Date(_)));
        assert!(matches!(
            typed("2024-02-29T10:00:00Z", &x("dateTime")),
            Value::DateTime(_)
        ));
        assert!(matches!(
            typed("2024-02-29T10:00:00", &x("dateTime")),
            Value::LocalDateTime(_)
        ));
    }

    #[test]
    fn other_literals_keep_their_spelling() {
        let tagged = Literal::new_language_tagged_literal("chat", "fr").unwrap();
        assert_eq!(
            literal_value(tagged.as_ref()),
            Value::String("\"chat\"@fr".into())
        );
        assert_eq!(
            typed("5", &format!("{XSD}int")),
            Value::String(format!("\"5\"^^<{XSD}int>"))
        );
        // A lexical form its datatype refuses is kept, not an error.
        assert_eq!(
            typed("abc", &format!("{XSD}integer")),
            Value::String(format!("\"abc\"^^<{XSD}integer>"))
        );
        assert_eq!(
            typed("99999999999999999999", &format!("{XSD}integer")),
            Value::String(format!("\"99999999999999999999\"^^<{XSD}integer>"))
        );
    }
}
