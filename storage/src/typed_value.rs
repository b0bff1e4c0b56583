//! The O column of value relations: an 8-bit type flag plus a 64-bit payload
//! (the paper's SPFOI layout).
//!
//! Booleans, integers and floats are inline. Strings, byte arrays and lists
//! are stored as the REL_LIT gui of a lexical form: the UTF-8 text, the raw
//! bytes, or the list encoding below. The flag says how to read the form, so
//! a string and a byte array with the same bytes share one dictionary entry.

use crate::dictionary::{DictError, Dictionary, Interned, RecordHint};
use crate::error::StorageError;
use nereid_values::{value_codec, Value};

/// Type flags. Grouping (numeric < 0x10 etc.) leaves room for the paper's
/// type families later; the values are internal, never persisted.
pub(crate) const F_NONE: u8 = 0;
pub(crate) const F_BOOL: u8 = 1;
pub(crate) const F_INT: u8 = 2;
pub(crate) const F_FLOAT: u8 = 3;
pub(crate) const F_STRING: u8 = 0x10;
pub(crate) const F_BYTES: u8 = 0x11;
pub(crate) const F_LIST: u8 = 0x12;
/// A temporal value or point; the literal is its `nereid_values::value_codec` form.
pub(crate) const F_TEMPORAL: u8 = 0x13;
pub(crate) const F_VERTEX: u8 = 0x20;

/// A value as a write stores it: its O, and for a literal the hint to its
/// form's record that the tuple keeps beside it ([`RecordHint`]).
#[derive(Copy, Clone, Debug)]
pub(crate) struct Encoded {
    pub(crate) o: TypedValue,
    pub(crate) hint: RecordHint,
}

impl Encoded {
    /// [`TypedValue::decode`] through the stored hint.
    pub(crate) fn decode(&self, literals: &Dictionary) -> Option<Value> {
        self.o.decode(literals, self.hint)
    }
}

impl From<TypedValue> for Encoded {
    fn from(o: TypedValue) -> Self {
        Encoded {
            o,
            hint: RecordHint::NONE,
        }
    }
}

/// One O value.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct TypedValue {
    pub(crate) flag: u8,
    pub(crate) payload: u64,
}

impl TypedValue {
    pub(crate) const NONE: TypedValue = TypedValue {
        flag: F_NONE,
        payload: 0,
    };

    pub(crate) fn vertex(gui: u64) -> Self {
        TypedValue {
            flag: F_VERTEX,
            payload: gui,
        }
    }

    pub(crate) fn string_gui(gui: u64) -> Self {
        TypedValue {
            flag: F_STRING,
            payload: gui,
        }
    }

    /// The dictionary gui this value refers to, if any: the key of the
    /// O-index (numbers are not indexed, as in the paper).
    pub(crate) fn indexed_gui(&self) -> Option<u64> {
        matches!(self.flag, F_STRING | F_BYTES | F_LIST | F_VERTEX).then_some(self.payload)
    }

    /// Encodes a storable, non-null property value, interning literals.
    pub(crate) fn encode(value: &Value, literals: &Dictionary) -> Result<Encoded, StorageError> {
        Self::encode_with(value, &mut |form| literals.intern(form))
    }

    /// [`TypedValue::encode`] registering forms through `intern` (a bulk
    /// load passes a held [`crate::dictionary::DictWriter`]).
    pub(crate) fn encode_with(
        value: &Value,
        intern: &mut impl FnMut(&[u8]) -> Result<Interned, DictError>,
    ) -> Result<Encoded, StorageError> {
        let mut intern = |flag: u8, form: &[u8]| -> Result<Encoded, StorageError> {
            let interned = intern(form).map_err(dict_error)?;
            Ok(Encoded {
                o: TypedValue {
                    flag,
                    payload: interned.gui,
                },
                hint: interned.hint(),
            })
        };
        let inline = |flag: u8, payload: u64| Ok(TypedValue { flag, payload }.into());
        match value {
            Value::Bool(b) => inline(F_BOOL, u64::from(*b)),
            Value::Int(i) => inline(F_INT, *i as u64),
            Value::Float(f) => inline(F_FLOAT, f.to_bits()),
            Value::String(s) => intern(F_STRING, s.as_bytes()),
            Value::Bytes(b) => intern(F_BYTES, b),
            Value::List(items) => {
                let mut form = Vec::new();
                encode_list(items, &mut form)?;
                intern(F_LIST, &form)
            }
            temporal if temporal.has_binary_form() => match value_codec::encode(temporal) {
                Some(form) => intern(F_TEMPORAL, &form),
                None => Err(StorageError::UnstorableValue(temporal.type_name())),
            },
            other => Err(StorageError::UnstorableValue(other.type_name())),
        }
    }

    /// Decodes a property value, a literal's form read through `hint`
    /// ([`RecordHint::NONE`]: looked up by gui); `None` for a non-property
    /// flag or a form missing from the dictionary (which would be an
    /// internal bug).
    pub(crate) fn decode(&self, literals: &Dictionary, hint: RecordHint) -> Option<Value> {
        let gui = self.payload;
        match self.flag {
            F_BOOL => Some(Value::Bool(self.payload != 0)),
            F_INT => Some(Value::Int(self.payload as i64)),
            F_FLOAT => Some(Value::Float(f64::from_bits(self.payload))),
            F_STRING => literals.resolve_str_hinted(gui, hint).map(Value::String),
            F_BYTES => literals.with_form_hinted(gui, hint, |b| Value::Bytes(b.to_vec())),
            F_LIST => literals.with_form_hinted(gui, hint, decode_list)?,
            F_TEMPORAL => literals.with_form_hinted(gui, hint, value_codec::decode)?,
            _ => None,
        }
    }
}

pub(crate) fn dict_error(e: DictError) -> StorageError {
    match e {
        DictError::CounterExhausted => {
            StorageError::CapacityExceeded("dictionary collision counter")
        }
        DictError::Inconsistent(why) => StorageError::Replay(why),
        DictError::Full => StorageError::CapacityExceeded("dictionary entries"),
    }
}

// List lexical form: item count (u32 LE), then per item a tag byte and its
// payload: 0 false, 1 true, 2 i64 LE, 3 f64 bits LE, 4 u32 LE length + UTF-8,
// 5 u32 LE length + temporal or point form (see `nereid_values::value_codec`).
const L_FALSE: u8 = 0;
const L_TRUE: u8 = 1;
const L_INT: u8 = 2;
const L_FLOAT: u8 = 3;
const L_STRING: u8 = 4;
const L_TEMPORAL: u8 = 5;

fn encode_list(items: &[Value], out: &mut Vec<u8>) -> Result<(), StorageError> {
    let count = u32::try_from(items.len()).map_err(|_| StorageError::UnstorableValue("List"))?;
    out.extend_from_slice(&count.to_le_bytes());
    for item in items {
        match item {
            Value::Bool(false) => out.push(L_FALSE),
            Value::Bool(true) => out.push(L_TRUE),
            Value::Int(i) => {
                out.push(L_INT);
                out.extend_from_slice(&i.to_le_bytes());
            }
            Value::Float(f) => {
                out.push(L_FLOAT);
                out.extend_from_slice(&f.to_bits().to_le_bytes());
            }
            Value::String(s) => {
                let len =
                    u32::try_from(s.len()).map_err(|_| StorageError::UnstorableValue("String"))?;
                out.push(L_STRING);
                out.extend_from_slice(&len.to_le_bytes());
                out.extend_from_slice(s.as_bytes());
            }
            temporal if temporal.has_binary_form() => {
                let form = value_codec::encode(temporal)
                    .ok_or(StorageError::UnstorableValue(temporal.type_name()))?;
                let len = u32::try_from(form.len())
                    .map_err(|_| StorageError::UnstorableValue(temporal.type_name()))?;
                out.push(L_TEMPORAL);
                out.extend_from_slice(&len.to_le_bytes());
                out.extend_from_slice(&form);
            }
            other => return Err(StorageError::UnstorableValue(other.type_name())),
        }
    }
    Ok(())
}

fn decode_list(mut form: &[u8]) -> Option<Value> {
    fn take<'a>(form: &mut &'a [u8], n: usize) -> Option<&'a [u8]> {
        if form.len() < n {
            return None;
        }
        let (head, rest) = form.split_at(n);
        *form = rest;
        Some(head)
    }
    fn take8(form: &mut &[u8]) -> Option<[u8; 8]> {
        take(form, 8)?.try_into().ok()
    }
    fn take4(form: &mut &[u8]) -> Option<u32> {
        Some(u32::from_le_bytes(take(form, 4)?.try_into().ok()?))
    }
    let count = take4(&mut form)? as usize;
    let mut items = Vec::with_capacity(count.min(form.len()));
    for _ in 0..count {
        let tag = *take(&mut form, 1)?.first()?;
        items.push(match tag {
            L_FALSE => Value::Bool(false),
            L_TRUE => Value::Bool(true),
            L_INT => Value::Int(i64::from_le_bytes(take8(&mut form)?)),
            L_FLOAT => Value::Float(f64::from_bits(u64::from_le_bytes(take8(&mut form)?))),
            L_STRING => {
                let len = take4(&mut form)? as usize;
                Value::String(String::from_utf8(take(&mut form, len)?.to_vec()).ok()?)
            }
            L_TEMPORAL => {
                let len = take4(&mut form)? as usize;
                value_codec::decode(take(&mut form, len)?)?
            }
            _ => return None,
        });
    }
    form.is_empty().then_some(Value::List(items.into()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::TAG_LIT;

    #[test]
    fn every_storable_kind_round_trips() {
        let lit = Dictionary::new(TAG_LIT);
        let values = [
            Value::Bool(true),
            Value::Int(-42),
            Value::Float(2.5),
            Value::from("héllo"),
            Value::Bytes(vec![0, 255, 3]),
            Value::List(vec![].into()),
            Value::List(
                vec![
                    Value::Int(1),
                    Value::Float(-0.5),
                    Value::from("x"),
                    Value::Bool(false),
                ]
                .into(),
            ),
            Value::Date(
                nereid_values::temporal::chrono::NaiveDate::from_ymd_opt(1984, 10, 11).unwrap(),
            ),
            Value::List(
                vec![Value::Duration(nereid_values::Duration {
                    months: 1,
                    days: 2,
                    seconds: -3,
                    nanos: 4,
                })]
                .into(),
            ),
        ];
        for v in values {
            let encoded = TypedValue::encode(&v, &lit).unwrap();
            let t = encoded.o;
            assert_eq!(t.decode(&lit, RecordHint::NONE), Some(v.clone()), "{v:?}");
            assert_eq!(encoded.decode(&lit), Some(v.clone()), "{v:?}");
            // Only literals (not inline values) have a record to hint at.
            let inline = matches!(t.flag, F_BOOL | F_INT | F_FLOAT);
            assert_eq!(encoded.hint == RecordHint::NONE, inline, "{v:?}");
        }
    }

    #[test]
    fn same_bytes_different_flags_share_a_gui_but_decode_apart() {
        let lit = Dictionary::new(TAG_LIT);
        let s = TypedValue::encode(&Value::from("ab"), &lit).unwrap().o;
        let b = TypedValue::encode(&Value::Bytes(b"ab".to_vec()), &lit)
            .unwrap()
            .o;
        assert_eq!(s.payload, b.payload);
        assert_eq!(
            b.decode(&lit, RecordHint::NONE),
            Some(Value::Bytes(b"ab".to_vec()))
        );
    }

    #[test]
    fn unstorable_values_are_rejected() {
        let lit = Dictionary::new(TAG_LIT);
        assert!(TypedValue::encode(&Value::Map(Default::default()), &lit).is_err());
        assert!(TypedValue::encode(&Value::Null, &lit).is_err());
        assert!(TypedValue::encode(&Value::List(vec![Value::Null].into()), &lit).is_err());
    }

    #[test]
    fn malformed_list_forms_decode_to_none() {
        assert_eq!(decode_list(&[1, 0, 0, 0]), None);
        assert_eq!(decode_list(&[1, 0, 0, 0, L_INT, 1]), None);
        assert_eq!(decode_list(&[0, 0, 0, 0, 9]), None);
    }
}
