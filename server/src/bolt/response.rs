//! Server messages, appended to an output buffer already chunked.

use super::framing::write_message;
use nereid_packstream::encode::{write_list_header, write_struct_header};
use nereid_packstream::{encode_result_value, EncodeError, PackMap, PackValue, StructFormat};
use nereid_values::{EntityResolver, Value};

pub const SUCCESS: u8 = 0x70;
pub const RECORD: u8 = 0x71;
pub const IGNORED: u8 = 0x7E;
pub const FAILURE: u8 = 0x7F;

/// Appends a one-field message `tag {meta}`.
fn with_metadata(out: &mut Vec<u8>, tag: u8, meta: PackMap) -> Result<(), EncodeError> {
    let body = nereid_packstream::to_vec(&PackValue::Struct {
        tag,
        fields: vec![PackValue::Map(meta)],
    })?;
    write_message(&body, out);
    Ok(())
}

pub fn success(out: &mut Vec<u8>, meta: PackMap) -> Result<(), EncodeError> {
    with_metadata(out, SUCCESS, meta)
}

pub fn failure(out: &mut Vec<u8>, meta: PackMap) -> Result<(), EncodeError> {
    with_metadata(out, FAILURE, meta)
}

pub fn ignored(out: &mut Vec<u8>) {
    write_message(&[0xB0, IGNORED], out);
}

/// Builds RECORD messages, reusing one scratch buffer for the bodies.
#[derive(Default)]
pub struct RecordWriter {
    scratch: Vec<u8>,
}

impl RecordWriter {
    /// Appends `RECORD [values...]`, materialising entities via `resolver`.
    pub fn write(
        &mut self,
        out: &mut Vec<u8>,
        row: &[Value],
        resolver: &dyn EntityResolver,
        format: StructFormat,
    ) -> Result<(), EncodeError> {
        self.scratch.clear();
        write_struct_header(&mut self.scratch, RECORD, 1)?;
        write_list_header(&mut self.scratch, row.len())?;
        for value in row {
            encode_result_value(value, resolver, format, &mut self.scratch)?;
        }
        write_message(&self.scratch, out);
        Ok(())
    }
}
