//! Writing PackStream: primitive writers (used directly by the result and
//! message encoders, which avoid building intermediate values) and
//! [`encode`] for whole [`PackValue`]s.
//!
//! Invariant: integers and sizes always use the smallest form.

use crate::marker::*;
use crate::{EncodeError, PackValue, MAX_SIZE};

/// Deepest nesting [`encode`] accepts; guards the stack against values
/// built by queries (decoded values are already limited by the decoder).
pub const MAX_ENCODE_DEPTH: usize = 512;

pub fn write_null(out: &mut Vec<u8>) {
    out.push(NULL);
}

pub fn write_bool(out: &mut Vec<u8>, b: bool) {
    out.push(if b { TRUE } else { FALSE });
}

/// Writes `i` in the smallest of TINY_INT, INT_8, INT_16, INT_32, INT_64.
pub fn write_int(out: &mut Vec<u8>, i: i64) {
    if (-16..=127).contains(&i) {
        out.push(i as i8 as u8);
    } else if (i64::from(i8::MIN)..=-17).contains(&i) {
        out.push(INT_8);
        out.push(i as i8 as u8);
    } else if (i64::from(i16::MIN)..=i64::from(i16::MAX)).contains(&i) {
        out.push(INT_16);
        out.extend_from_slice(&(i as i16).to_be_bytes());
    } else if (i64::from(i32::MIN)..=i64::from(i32::MAX)).contains(&i) {
        out.push(INT_32);
        out.extend_from_slice(&(i as i32).to_be_bytes());
    } else {
        out.push(INT_64);
        out.extend_from_slice(&i.to_be_bytes());
    }
}

pub fn write_float(out: &mut Vec<u8>, f: f64) {
    out.push(FLOAT_64);
    out.extend_from_slice(&f.to_bits().to_be_bytes());
}

pub fn write_bytes(out: &mut Vec<u8>, bytes: &[u8]) -> Result<(), EncodeError> {
    let len = bytes.len();
    if len > MAX_SIZE {
        return Err(EncodeError::TooLarge {
            what: "byte array",
            size: len,
        });
    }
    if len <= 0xFF {
        out.push(BYTES_8);
        out.push(len as u8);
    } else if len <= 0xFFFF {
        out.push(BYTES_16);
        out.extend_from_slice(&(len as u16).to_be_bytes());
    } else {
        out.push(BYTES_32);
        out.extend_from_slice(&(len as u32).to_be_bytes());
    }
    out.extend_from_slice(bytes);
    Ok(())
}

pub fn write_string(out: &mut Vec<u8>, s: &str) -> Result<(), EncodeError> {
    write_sized_header(
        out,
        s.len(),
        "string",
        TINY_STRING,
        [STRING_8, STRING_16, STRING_32],
    )?;
    out.extend_from_slice(s.as_bytes());
    Ok(())
}

pub fn write_list_header(out: &mut Vec<u8>, len: usize) -> Result<(), EncodeError> {
    write_sized_header(out, len, "list", TINY_LIST, [LIST_8, LIST_16, LIST_32])
}

pub fn write_map_header(out: &mut Vec<u8>, len: usize) -> Result<(), EncodeError> {
    write_sized_header(out, len, "dictionary", TINY_MAP, [MAP_8, MAP_16, MAP_32])
}

pub fn write_struct_header(out: &mut Vec<u8>, tag: u8, fields: usize) -> Result<(), EncodeError> {
    if fields > 15 {
        return Err(EncodeError::TooManyFields(fields));
    }
    out.push(TINY_STRUCT | fields as u8);
    out.push(tag);
    Ok(())
}

/// Tiny form for 0..=15, then the 8/16/32-bit size markers in order.
fn write_sized_header(
    out: &mut Vec<u8>,
    len: usize,
    what: &'static str,
    tiny: u8,
    sized: [u8; 3],
) -> Result<(), EncodeError> {
    let [m8, m16, m32] = sized;
    if len > MAX_SIZE {
        return Err(EncodeError::TooLarge { what, size: len });
    }
    if len <= 15 {
        out.push(tiny | len as u8);
    } else if len <= 0xFF {
        out.push(m8);
        out.push(len as u8);
    } else if len <= 0xFFFF {
        out.push(m16);
        out.extend_from_slice(&(len as u16).to_be_bytes());
    } else {
        out.push(m32);
        out.extend_from_slice(&(len as u32).to_be_bytes());
    }
    Ok(())
}

/// Appends the encoding of `value` to `out`.
pub fn encode(value: &PackValue, out: &mut Vec<u8>) -> Result<(), EncodeError> {
    encode_at(value, out, 0)
}

/// The encoding of `value` as a fresh buffer.
pub fn to_vec(value: &PackValue) -> Result<Vec<u8>, EncodeError> {
    let mut out = Vec::new();
    encode(value, &mut out)?;
    Ok(out)
}

fn encode_at(value: &PackValue, out: &mut Vec<u8>, depth: usize) -> Result<(), EncodeError> {
    if depth > MAX_ENCODE_DEPTH {
        return Err(EncodeError::TooDeep(MAX_ENCODE_DEPTH));
    }
    match value {
        PackValue::Null => write_null(out),
        PackValue::Bool(b) => write_bool(out, *b),
        PackValue::Int(i) => write_int(out, *i),
        PackValue::Float(f) => write_float(out, *f),
        PackValue::Bytes(b) => write_bytes(out, b)?,
        PackValue::String(s) => write_string(out, s)?,
        PackValue::List(items) => {
            write_list_header(out, items.len())?;
            for item in items {
                encode_at(item, out, depth + 1)?;
            }
        }
        PackValue::Map(map) => {
            write_map_header(out, map.len())?;
            for (k, v) in map.iter() {
                write_string(out, k)?;
                encode_at(v, out, depth + 1)?;
            }
        }
        PackValue::Struct { tag, fields } => {
            write_struct_header(out, *tag, fields.len())?;
            for f in fields {
                encode_at(f, out, depth + 1)?;
            }
        }
    }
    Ok(())
}
