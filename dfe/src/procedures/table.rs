//! Table-backed procedures: a signature plus a fixed table of rows, each
//! row holding the input values followed by the output values. A call
//! returns the outputs of every row whose inputs equal the arguments, in
//! table order. This is what the openCypher TCK's `there exists a
//! procedure` step declares, and a way to serve small lookup tables.

use nereid_planner::ProcedureSignature;
use nereid_values::Value;

/// A procedure whose results are looked up in a table.
#[derive(Clone, Debug)]
pub struct TableProcedure {
    signature: ProcedureSignature,
    /// Invariant: every row has `inputs.len() + outputs.len()` values.
    rows: Vec<Vec<Value>>,
}

impl TableProcedure {
    /// A table procedure; `None` (with the offending row's index) when a row
    /// does not have one value per input and output.
    pub fn new(signature: ProcedureSignature, rows: Vec<Vec<Value>>) -> Result<Self, usize> {
        let width = signature.inputs.len() + signature.outputs.len();
        if let Some(bad) = rows.iter().position(|row| row.len() != width) {
            return Err(bad);
        }
        Ok(TableProcedure { signature, rows })
    }

    pub fn signature(&self) -> &ProcedureSignature {
        &self.signature
    }

    /// The output part of every row whose inputs match `args` (already
    /// coerced to the declared input types).
    pub(crate) fn call(&self, args: &[Value]) -> Vec<Vec<Value>> {
        let arity = self.signature.inputs.len();
        self.rows
            .iter()
            .filter(|row| {
                row.len() >= arity
                    && row[..arity]
                        .iter()
                        .zip(args)
                        .all(|(stored, arg)| same_value(stored, arg))
            })
            .map(|row| row[arity..].to_vec())
            .collect()
    }
}

/// Equality for matching arguments: structural, null equal to null, and an
/// INTEGER never equal to a FLOAT (a NUMBER input keeps `42` and `42.0`
/// apart, as its table does).
fn same_value(stored: &Value, arg: &Value) -> bool {
    match (stored, arg) {
        (Value::Int(_), Value::Float(_)) | (Value::Float(_), Value::Int(_)) => false,
        _ => stored == arg,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nereid_planner::{ProcedureField, ProcedureType};

    fn proc() -> TableProcedure {
        let signature = ProcedureSignature {
            name: "test.my.proc".into(),
            inputs: vec![ProcedureField::new("in", ProcedureType::Number)],
            outputs: vec![ProcedureField::new("out", ProcedureType::String)],
            filters_candidates: false,
        };
        TableProcedure::new(
            signature,
            vec![
                vec![Value::Int(42), Value::from("wisdom")],
                vec![Value::Float(42.3), Value::from("about right")],
                vec![Value::Null, Value::from("nix")],
            ],
        )
        .expect("rows fit")
    }

    #[test]
    fn returns_outputs_of_matching_rows_only() {
        assert_eq!(
            proc().call(&[Value::Int(42)]),
            vec![vec![Value::from("wisdom")]]
        );
        assert_eq!(proc().call(&[Value::Null]), vec![vec![Value::from("nix")]]);
        assert!(proc().call(&[Value::Float(42.0)]).is_empty());
    }

    #[test]
    fn rejects_rows_of_the_wrong_width() {
        let signature = proc().signature().clone();
        assert_eq!(
            TableProcedure::new(signature, vec![vec![Value::Int(1)]]).err(),
            Some(0)
        );
    }
}
