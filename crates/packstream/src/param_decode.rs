//! Query parameters decoded straight from PackStream bytes into
//! [`Value`]s.
//!
//! Going through [`PackValue`] first held two trees of the same data at
//! once (a 20 MB list of small integers became 640 MB of `PackValue`s plus
//! the `Value`s converted from it, the latter grown by doubling: ~116 bytes
//! per element). Here each list is allocated once at its final size, and
//! every allocation is counted against a byte limit *before* it is made,
//! so a hostile message is refused at the cost of what the limit allows.
//! A list's size header is trusted only as far as the bytes left can hold
//! (one byte per element), as in [`crate::decode`].
//!
//! [`skip_value`] validates a value without allocating: the request parser
//! uses it to find where the parameters end, leaving their decoding to the
//! query's execution thread, where the limit is known.

use crate::decode::{width_of, Decoder};
use crate::marker::*;
use crate::{DecodeError, PackValue, ParamError};
use nereid_values::Value;
use std::collections::BTreeMap;
use std::mem::size_of;

/// Bytes charged per dictionary entry beside its key's and value's own
/// (the same estimate as `Value::footprint`).
const MAP_ENTRY: usize = size_of::<String>() + size_of::<Value>() + size_of::<usize>();

/// Parameters decoded from one PackStream dictionary, and the bytes they
/// were charged.
#[derive(Debug, PartialEq)]
pub struct DecodedParams {
    pub values: BTreeMap<String, Value>,
    pub bytes: usize,
}

/// Why a parameter could not be decoded, with the parameter's name when the
/// failure is inside one.
#[derive(Debug, PartialEq)]
pub struct ParamFailure {
    pub name: Option<String>,
    pub error: ParamError,
}

/// Decodes `bytes`, one PackStream dictionary (or null: no parameters), into
/// parameter values, failing with [`ParamError::OverBudget`] before holding
/// more than `limit` bytes (0: no limit).
pub fn decode_params(bytes: &[u8], limit: usize) -> Result<DecodedParams, ParamFailure> {
    let unnamed = |error: ParamError| ParamFailure { name: None, error };
    let mut decoder = ParamDecoder {
        input: Decoder::new(bytes),
        limit,
        used: 0,
    };
    let offset = decoder.input.position();
    let marker = decoder.input.u8().map_err(|e| unnamed(e.into()))?;
    let size = match marker {
        NULL => 0,
        0xA0..=0xAF => usize::from(marker & 0x0F),
        MAP_8 | MAP_16 | MAP_32 => decoder
            .input
            .size(width_of(marker - MAP_8))
            .map_err(|e| unnamed(e.into()))?,
        _ => return Err(unnamed(ParamError::Unsupported("a non-dictionary"))),
    };
    decoder
        .input
        .check_size(size, 2, offset)
        .map_err(|e| unnamed(e.into()))?;
    let mut values = BTreeMap::new();
    for _ in 0..size {
        let key = decoder.key(0).map_err(unnamed)?;
        let value = decoder.value(1).map_err(|error| ParamFailure {
            name: Some(key.clone()),
            error,
        })?;
        values.insert(key, value);
    }
    decoder.input.finish().map_err(|e| unnamed(e.into()))?;
    Ok(DecodedParams {
        values,
        bytes: decoder.used,
    })
}

struct ParamDecoder<'a> {
    input: Decoder<'a>,
    limit: usize,
    used: usize,
}

impl ParamDecoder<'_> {
    /// Counts `bytes` against the limit before they are allocated.
    fn charge(&mut self, bytes: usize) -> Result<(), ParamError> {
        self.used = self.used.saturating_add(bytes);
        if self.limit != 0 && self.used > self.limit {
            return Err(ParamError::OverBudget { limit: self.limit });
        }
        Ok(())
    }

    fn key(&mut self, depth: usize) -> Result<String, ParamError> {
        let offset = self.input.position();
        match self.value(depth + 1)?.into_string() {
            Ok(key) => {
                self.charge(MAP_ENTRY)?;
                Ok(key)
            }
            Err(_) => Err(DecodeError::NonStringKey { offset }.into()),
        }
    }

    fn value(&mut self, depth: usize) -> Result<Value, ParamError> {
        if depth > self.input.max_depth() {
            return Err(DecodeError::TooDeep {
                limit: self.input.max_depth(),
            }
            .into());
        }
        let offset = self.input.position();
        let marker = self.input.u8()?;
        Ok(match marker {
            0x00..=0x7F => Value::Int(i64::from(marker)),
            0xF0..=0xFF => Value::Int(i64::from(marker as i8)),
            NULL => Value::Null,
            FALSE => Value::Bool(false),
            TRUE => Value::Bool(true),
            FLOAT_64 => Value::Float(f64::from_bits(u64::from_be_bytes(self.input.array()?))),
            INT_8 => Value::Int(i64::from(i8::from_be_bytes(self.input.array()?))),
            INT_16 => Value::Int(i64::from(i16::from_be_bytes(self.input.array()?))),
            INT_32 => Value::Int(i64::from(i32::from_be_bytes(self.input.array()?))),
            INT_64 => Value::Int(i64::from_be_bytes(self.input.array()?)),
            BYTES_8 | BYTES_16 | BYTES_32 => {
                let size = self.input.size(width_of(marker - BYTES_8))?;
                self.input.check_size(size, 1, offset)?;
                self.charge(size)?;
                Value::Bytes(self.input.take(size)?.to_vec())
            }
            0x80..=0x8F => self.string(usize::from(marker & 0x0F), offset)?,
            STRING_8 | STRING_16 | STRING_32 => {
                let size = self.input.size(width_of(marker - STRING_8))?;
                self.string(size, offset)?
            }
            0x90..=0x9F => self.list(usize::from(marker & 0x0F), offset, depth)?,
            LIST_8 | LIST_16 | LIST_32 => {
                let size = self.input.size(width_of(marker - LIST_8))?;
                self.list(size, offset, depth)?
            }
            0xA0..=0xAF => self.map(usize::from(marker & 0x0F), offset, depth)?,
            MAP_8 | MAP_16 | MAP_32 => {
                let size = self.input.size(width_of(marker - MAP_8))?;
                self.map(size, offset, depth)?
            }
            0xB0..=0xBF => self.structure(usize::from(marker & 0x0F), offset, depth)?,
            _ => return Err(DecodeError::ReservedMarker { marker, offset }.into()),
        })
    }

    fn string(&mut self, size: usize, offset: usize) -> Result<Value, ParamError> {
        self.input.check_size(size, 1, offset)?;
        self.charge(size)?;
        let bytes = self.input.take(size)?;
        std::str::from_utf8(bytes)
            .map(|s| Value::String(s.to_string()))
            .map_err(|_| DecodeError::InvalidUtf8 { offset }.into())
    }

    fn list(&mut self, size: usize, offset: usize, depth: usize) -> Result<Value, ParamError> {
        self.input.check_size(size, 1, offset)?;
        self.charge(size.saturating_mul(size_of::<Value>()))?;
        let mut items = Vec::with_capacity(size);
        for _ in 0..size {
            items.push(self.value(depth + 1)?);
        }
        Ok(Value::List(items.into()))
    }

    fn map(&mut self, size: usize, offset: usize, depth: usize) -> Result<Value, ParamError> {
        self.input.check_size(size, 2, offset)?;
        let mut map = BTreeMap::new();
        for _ in 0..size {
            let key = self.key(depth)?;
            let value = self.value(depth + 1)?;
            map.insert(key, value);
        }
        Ok(Value::Map(map))
    }

    /// Temporal and spatial structures; their fields are decoded as
    /// [`PackValue`]s after the bytes they span are charged (a `PackValue`
    /// per byte bounds their tree), since a hostile structure may hold
    /// anything.
    fn structure(
        &mut self,
        count: usize,
        offset: usize,
        depth: usize,
    ) -> Result<Value, ParamError> {
        let tag = self.input.u8()?;
        self.input.check_size(count, 1, offset)?;
        let mut probe = Decoder::new(self.input.rest());
        for _ in 0..count {
            skip_at(&mut probe, depth + 1, self.input.max_depth())?;
        }
        self.charge(probe.position().saturating_mul(size_of::<PackValue>()))?;
        let mut fields = Vec::with_capacity(count);
        for _ in 0..count {
            fields.push(self.input.value_at(depth + 1)?);
        }
        crate::params::pack_to_value(PackValue::Struct { tag, fields })
    }
}

/// Validates one value and moves past it without allocating (what the
/// request parser does with RUN's parameters).
pub fn skip_value(decoder: &mut Decoder<'_>) -> Result<(), DecodeError> {
    let max_depth = decoder.max_depth();
    skip_at(decoder, 0, max_depth)
}

fn skip_at(d: &mut Decoder<'_>, depth: usize, max_depth: usize) -> Result<(), DecodeError> {
    if depth > max_depth {
        return Err(DecodeError::TooDeep { limit: max_depth });
    }
    let offset = d.position();
    let marker = d.u8()?;
    match marker {
        0x00..=0x7F | 0xF0..=0xFF | NULL | FALSE | TRUE => {}
        FLOAT_64 | INT_64 => drop(d.take(8)?),
        INT_8 => drop(d.take(1)?),
        INT_16 => drop(d.take(2)?),
        INT_32 => drop(d.take(4)?),
        BYTES_8 | BYTES_16 | BYTES_32 => {
            let size = d.size(width_of(marker - BYTES_8))?;
            d.check_size(size, 1, offset)?;
            d.take(size)?;
        }
        0x80..=0x8F => skip_string(d, usize::from(marker & 0x0F), offset)?,
        STRING_8 | STRING_16 | STRING_32 => {
            let size = d.size(width_of(marker - STRING_8))?;
            skip_string(d, size, offset)?;
        }
        0x90..=0x9F | LIST_8 | LIST_16 | LIST_32 => {
            let size = match marker {
                0x90..=0x9F => usize::from(marker & 0x0F),
                _ => d.size(width_of(marker - LIST_8))?,
            };
            d.check_size(size, 1, offset)?;
            for _ in 0..size {
                skip_at(d, depth + 1, max_depth)?;
            }
        }
        0xA0..=0xAF | MAP_8 | MAP_16 | MAP_32 => {
            let size = match marker {
                0xA0..=0xAF => usize::from(marker & 0x0F),
                _ => d.size(width_of(marker - MAP_8))?,
            };
            d.check_size(size, 2, offset)?;
            for _ in 0..size {
                let key_offset = d.position();
                match d.peek() {
                    Some(0x80..=0x8F | STRING_8 | STRING_16 | STRING_32) => {}
                    _ => return Err(DecodeError::NonStringKey { offset: key_offset }),
                }
                skip_at(d, depth + 1, max_depth)?;
                skip_at(d, depth + 1, max_depth)?;
            }
        }
        0xB0..=0xBF => {
            let count = usize::from(marker & 0x0F);
            d.u8()?;
            d.check_size(count, 1, offset)?;
            for _ in 0..count {
                skip_at(d, depth + 1, max_depth)?;
            }
        }
        _ => return Err(DecodeError::ReservedMarker { marker, offset }),
    }
    Ok(())
}

fn skip_string(d: &mut Decoder<'_>, size: usize, offset: usize) -> Result<(), DecodeError> {
    d.check_size(size, 1, offset)?;
    std::str::from_utf8(d.take(size)?)
        .map(drop)
        .map_err(|_| DecodeError::InvalidUtf8 { offset })
}

#[cfg(test)]
mod tests;
