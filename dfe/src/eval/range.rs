//! `range(start, end[, step])` as a lazy integer sequence, so that
//! `UNWIND range(...)` can stream without building the whole list.

use crate::error::{type_mismatch, ExecError, ExecResult};
use nereid_values::Value;

/// Longest list `range()` may materialise. UNWIND of a range streams and is
/// not bound by this; a list value this long would exhaust memory first.
pub const MAX_RANGE_LIST_LEN: u64 = 1 << 26;

/// An inclusive arithmetic progression of integers.
#[derive(Clone, Debug, PartialEq)]
pub struct IntRange {
    /// Next value to yield; `i128` so that stepping past `i64` bounds cannot overflow.
    next: i128,
    end: i128,
    step: i128,
}

impl IntRange {
    /// Validates `range()` arguments: integers, non-zero step.
    pub fn from_args(args: &[Value]) -> ExecResult<IntRange> {
        let int = |value: &Value| match value {
            Value::Int(i) => Ok(i128::from(*i)),
            other => Err(type_mismatch("Integer", other)),
        };
        let (start, end, step) = match args {
            [start, end] => (int(start)?, int(end)?, 1),
            [start, end, step] => (int(start)?, int(end)?, int(step)?),
            _ => {
                return Err(ExecError::Argument(format!(
                    "range() takes 2 or 3 arguments, got {}",
                    args.len()
                )))
            }
        };
        if step == 0 {
            return Err(ExecError::Argument(
                "NumberOutOfRange: Step argument to range() can't be 0".to_string(),
            ));
        }
        Ok(IntRange {
            next: start,
            end,
            step,
        })
    }

    /// Number of values still to come.
    pub fn remaining(&self) -> u128 {
        let span = if self.step > 0 {
            self.end - self.next
        } else {
            self.next - self.end
        };
        if span < 0 {
            0
        } else {
            (span / self.step.abs()) as u128 + 1
        }
    }

    /// The whole range as a list value (bounded by [`MAX_RANGE_LIST_LEN`]).
    pub fn into_list(self) -> ExecResult<Value> {
        if self.remaining() > u128::from(MAX_RANGE_LIST_LEN) {
            return Err(ExecError::Argument(format!(
                "range() would produce more than {MAX_RANGE_LIST_LEN} elements"
            )));
        }
        Ok(Value::List(self.map(Value::Int).collect()))
    }
}

impl Iterator for IntRange {
    type Item = i64;

    fn next(&mut self) -> Option<i64> {
        let in_range = if self.step > 0 {
            self.next <= self.end
        } else {
            self.next >= self.end
        };
        if !in_range {
            return None;
        }
        // Values between two i64 bounds always fit in i64.
        let value = i64::try_from(self.next).ok()?;
        self.next += self.step;
        Some(value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn collect(args: &[i64]) -> Vec<i64> {
        let args: Vec<Value> = args.iter().map(|&i| Value::Int(i)).collect();
        IntRange::from_args(&args).unwrap().collect()
    }

    #[test]
    fn ranges_are_inclusive_and_respect_step_direction() {
        assert_eq!(collect(&[1, 3]), vec![1, 2, 3]);
        assert_eq!(collect(&[0, 10, 4]), vec![0, 4, 8]);
        assert_eq!(collect(&[3, 0, -2]), vec![3, 1]);
        assert_eq!(collect(&[0, 5, -1]), Vec::<i64>::new());
        assert_eq!(collect(&[i64::MAX - 1, i64::MAX, 5]), vec![i64::MAX - 1]);
        let r = IntRange::from_args(&[Value::Int(0), Value::Int(9), Value::Int(3)]).unwrap();
        assert_eq!(r.remaining(), 4);
    }

    #[test]
    fn zero_step_and_non_integers_are_rejected() {
        assert!(matches!(
            IntRange::from_args(&[Value::Int(2), Value::Int(8), Value::Int(0)]),
            Err(ExecError::Argument(_))
        ));
        assert!(matches!(
            IntRange::from_args(&[Value::Float(0.0), Value::Int(8)]),
            Err(ExecError::Type(_))
        ));
    }
}
