//! The `there exists a procedure <signature>:` step: a fixture procedure
//! registered on the case's own database. The signature is Neo4j's
//! notation, `test.my.proc(in :: INTEGER?) :: (out :: STRING?)` (`:: ()` for
//! a VOID procedure); the step's table has a header naming the inputs and
//! outputs and one row per result, which a call returns when its arguments
//! equal the row's inputs.

use crate::materialise::to_value;
use crate::value::parse;
use nereid_engine::{ProcedureSignature, ProcedureType};
use nereid_values::Value;

/// The signature in the step text after `there exists a procedure `.
pub fn parse_signature(text: &str) -> Result<ProcedureSignature, String> {
    ProcedureSignature::parse_notation(text)
}

/// The table's rows as values in signature order (inputs, then outputs),
/// columns matched by header name. A VOID procedure without inputs has no
/// columns, and its table (a lone `|`) no rows.
pub fn parse_rows(
    signature: &ProcedureSignature,
    table: &[Vec<String>],
) -> Result<Vec<Vec<Value>>, String> {
    let fields: Vec<&str> = signature
        .inputs
        .iter()
        .chain(&signature.outputs)
        .map(|f| f.name.as_str())
        .collect();
    if fields.is_empty() {
        return Ok(Vec::new());
    }
    let Some((header, body)) = table.split_first() else {
        return Ok(Vec::new());
    };
    let positions = fields
        .iter()
        .map(|field| {
            header
                .iter()
                .position(|h| h.trim() == *field)
                .ok_or_else(|| format!("the table has no column `{field}`"))
        })
        .collect::<Result<Vec<_>, _>>()?;
    body.iter()
        .map(|row| {
            positions
                .iter()
                .map(|&i| {
                    let cell = row.get(i).ok_or("a table row is too short")?;
                    to_value(&parse(cell)?)
                })
                .collect()
        })
        .collect()
}

/// Self-check of the signature notation (a `runner::` trial, see `selftest.rs`).
pub fn signature_notation_parses() -> Result<(), String> {
    let s = parse_signature("test.my.proc(name :: STRING?, in :: INTEGER?) :: (out :: FLOAT?):")?;
    let shape = (
        s.name.as_str(),
        s.inputs.len(),
        s.inputs[1].ty,
        s.outputs[0].name.as_str(),
    );
    if shape != ("test.my.proc", 2, ProcedureType::Integer, "out") {
        return Err(format!("parsed as {s:?}"));
    }
    let void = parse_signature("test.doNothing() :: ():")?;
    if !void.inputs.is_empty() || !void.is_void() {
        return Err(format!("VOID parsed as {void:?}"));
    }
    if parse_signature("test.bad(x) :: ()").is_ok() {
        return Err("a field without a type was accepted".into());
    }
    Ok(())
}
