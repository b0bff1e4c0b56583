//! Reading PackStream from untrusted bytes.
//!
//! Invariants: no panics; every size is checked against the bytes left
//! before anything is allocated (a list of n items needs at least n bytes,
//! a dictionary at least 2n), and nesting is limited, so a hostile peer can
//! neither exhaust memory nor the stack.

use crate::marker::*;
use crate::{DecodeError, PackMap, PackValue};

/// Default nesting limit: far beyond any real message, far below the stack.
pub const DEFAULT_MAX_DEPTH: usize = 64;

/// Decodes exactly one value that must span all of `bytes`.
pub fn from_slice(bytes: &[u8]) -> Result<PackValue, DecodeError> {
    let mut decoder = Decoder::new(bytes);
    let value = decoder.decode_value()?;
    decoder.finish()?;
    Ok(value)
}

/// A cursor over a byte slice.
pub struct Decoder<'a> {
    input: &'a [u8],
    pos: usize,
    max_depth: usize,
}

impl<'a> Decoder<'a> {
    pub fn new(input: &'a [u8]) -> Self {
        Decoder {
            input,
            pos: 0,
            max_depth: DEFAULT_MAX_DEPTH,
        }
    }

    /// The nesting limit.
    pub(crate) fn max_depth(&self) -> usize {
        self.max_depth
    }

    pub fn with_max_depth(mut self, max_depth: usize) -> Self {
        self.max_depth = max_depth;
        self
    }

    /// The bytes not consumed yet.
    pub(crate) fn rest(&self) -> &'a [u8] {
        self.input.get(self.pos..).unwrap_or_default()
    }

    /// Bytes consumed so far.
    pub fn position(&self) -> usize {
        self.pos
    }

    /// The next byte, not consumed.
    pub fn peek(&self) -> Option<u8> {
        self.input.get(self.pos).copied()
    }

    pub fn remaining(&self) -> usize {
        self.input.len().saturating_sub(self.pos)
    }

    /// Fails unless every byte was consumed.
    pub fn finish(self) -> Result<(), DecodeError> {
        match self.remaining() {
            0 => Ok(()),
            count => Err(DecodeError::TrailingBytes { count }),
        }
    }

    /// Reads a structure's marker and tag, leaving its fields: `(tag,
    /// field count)`.
    pub fn decode_struct_header(&mut self) -> Result<(u8, u8), DecodeError> {
        let offset = self.pos;
        match self.u8()? {
            marker @ 0xB0..=0xBF => Ok((self.u8()?, marker & 0x0F)),
            marker => Err(DecodeError::NotAStructure { marker, offset }),
        }
    }

    pub fn decode_value(&mut self) -> Result<PackValue, DecodeError> {
        self.value_at(0)
    }

    pub(crate) fn take(&mut self, n: usize) -> Result<&'a [u8], DecodeError> {
        let end = self
            .pos
            .checked_add(n)
            .filter(|end| *end <= self.input.len())
            .ok_or(DecodeError::UnexpectedEnd { offset: self.pos })?;
        let slice = self
            .input
            .get(self.pos..end)
            .ok_or(DecodeError::UnexpectedEnd { offset: self.pos })?;
        self.pos = end;
        Ok(slice)
    }

    pub(crate) fn array<const N: usize>(&mut self) -> Result<[u8; N], DecodeError> {
        let offset = self.pos;
        self.take(N)?
            .try_into()
            .map_err(|_| DecodeError::UnexpectedEnd { offset })
    }

    pub(crate) fn u8(&mut self) -> Result<u8, DecodeError> {
        Ok(self.array::<1>()?[0])
    }

    /// Reads a size field of `width` bytes (1, 2 or 4).
    pub(crate) fn size(&mut self, width: usize) -> Result<usize, DecodeError> {
        Ok(match width {
            1 => usize::from(self.u8()?),
            2 => usize::from(u16::from_be_bytes(self.array()?)),
            _ => u32::from_be_bytes(self.array()?) as usize,
        })
    }

    /// Rejects a size whose minimal encoding (`min_bytes_each` per element)
    /// cannot fit in what is left.
    pub(crate) fn check_size(
        &self,
        size: usize,
        min_bytes_each: usize,
        offset: usize,
    ) -> Result<(), DecodeError> {
        let needed = size.saturating_mul(min_bytes_each);
        if size > crate::MAX_SIZE || needed > self.remaining() {
            return Err(DecodeError::SizeTooLarge {
                size,
                remaining: self.remaining(),
                offset,
            });
        }
        Ok(())
    }

    pub(crate) fn value_at(&mut self, depth: usize) -> Result<PackValue, DecodeError> {
        if depth > self.max_depth {
            return Err(DecodeError::TooDeep {
                limit: self.max_depth,
            });
        }
        let offset = self.pos;
        let marker = self.u8()?;
        let value = match marker {
            0x00..=0x7F => PackValue::Int(i64::from(marker)),
            0xF0..=0xFF => PackValue::Int(i64::from(marker as i8)),
            NULL => PackValue::Null,
            FALSE => PackValue::Bool(false),
            TRUE => PackValue::Bool(true),
            FLOAT_64 => PackValue::Float(f64::from_bits(u64::from_be_bytes(self.array()?))),
            INT_8 => PackValue::Int(i64::from(i8::from_be_bytes(self.array()?))),
            INT_16 => PackValue::Int(i64::from(i16::from_be_bytes(self.array()?))),
            INT_32 => PackValue::Int(i64::from(i32::from_be_bytes(self.array()?))),
            INT_64 => PackValue::Int(i64::from_be_bytes(self.array()?)),
            BYTES_8 | BYTES_16 | BYTES_32 => {
                let size = self.size(width_of(marker - BYTES_8))?;
                self.check_size(size, 1, offset)?;
                PackValue::Bytes(self.take(size)?.to_vec())
            }
            0x80..=0x8F => self.string(usize::from(marker & 0x0F), offset)?,
            STRING_8 | STRING_16 | STRING_32 => {
                let size = self.size(width_of(marker - STRING_8))?;
                self.string(size, offset)?
            }
            0x90..=0x9F => self.list(usize::from(marker & 0x0F), offset, depth)?,
            LIST_8 | LIST_16 | LIST_32 => {
                let size = self.size(width_of(marker - LIST_8))?;
                self.list(size, offset, depth)?
            }
            0xA0..=0xAF => self.map(usize::from(marker & 0x0F), offset, depth)?,
            MAP_8 | MAP_16 | MAP_32 => {
                let size = self.size(width_of(marker - MAP_8))?;
                self.map(size, offset, depth)?
            }
            0xB0..=0xBF => {
                let count = usize::from(marker & 0x0F);
                let tag = self.u8()?;
                self.check_size(count, 1, offset)?;
                let mut fields = Vec::with_capacity(count);
                for _ in 0..count {
                    fields.push(self.value_at(depth + 1)?);
                }
                PackValue::Struct { tag, fields }
            }
            _ => return Err(DecodeError::ReservedMarker { marker, offset }),
        };
        Ok(value)
    }

    fn string(&mut self, size: usize, offset: usize) -> Result<PackValue, DecodeError> {
        self.check_size(size, 1, offset)?;
        let bytes = self.take(size)?;
        std::str::from_utf8(bytes)
            .map(|s| PackValue::String(s.to_string()))
            .map_err(|_| DecodeError::InvalidUtf8 { offset })
    }

    fn list(&mut self, size: usize, offset: usize, depth: usize) -> Result<PackValue, DecodeError> {
        self.check_size(size, 1, offset)?;
        let mut items = Vec::with_capacity(size);
        for _ in 0..size {
            items.push(self.value_at(depth + 1)?);
        }
        Ok(PackValue::List(items))
    }

    fn map(&mut self, size: usize, offset: usize, depth: usize) -> Result<PackValue, DecodeError> {
        self.check_size(size, 2, offset)?;
        let mut entries = Vec::with_capacity(size);
        for _ in 0..size {
            let key_offset = self.pos;
            let key = match self.value_at(depth + 1)? {
                PackValue::String(s) => s,
                _ => return Err(DecodeError::NonStringKey { offset: key_offset }),
            };
            let value = self.value_at(depth + 1)?;
            entries.push((key, value));
        }
        Ok(PackValue::Map(PackMap::from_entries_last_wins(entries)))
    }
}

/// Size-field width for the 8/16/32-bit markers, given the marker's offset
/// from the 8-bit marker of its family (0, 1 or 2).
pub(crate) fn width_of(step: u8) -> usize {
    match step {
        0 => 1,
        1 => 2,
        _ => 4,
    }
}
