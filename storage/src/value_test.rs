//! Comparisons a value scan decides on the stored bits (used by the
//! relations' value scans, offered through `apl`): a property value of
//! the constant's own type (an inline integer, an inline float) is compared
//! without decoding it into a `Value` or calling back into the executor.
//! Values of any other type are left to the caller's own test, so the
//! answer stays exactly the executor's whatever the data holds (an integer
//! against a float constant, strings, NaN).

use crate::typed_value::{F_FLOAT, F_INT};

/// The comparison of `stored <op> constant`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Comparison {
    Less,
    LessEqual,
    Greater,
    GreaterEqual,
    Equal,
}

/// `stored <op> constant` decided for stored values of the constant's type.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum ValueTest {
    /// Integer values against an integer.
    Int(Comparison, i64),
    /// Float values against a float; a NaN on either side is never
    /// decided here (the caller's test says what a NaN compares to).
    Float(Comparison, f64),
}

impl Comparison {
    #[inline]
    fn holds<T: PartialOrd>(self, stored: T, constant: T) -> bool {
        match self {
            Comparison::Less => stored < constant,
            Comparison::LessEqual => stored <= constant,
            Comparison::Greater => stored > constant,
            Comparison::GreaterEqual => stored >= constant,
            Comparison::Equal => stored == constant,
        }
    }
}

impl ValueTest {
    /// The outcome for a stored value of type `flag` with bits `payload`,
    /// or `None` when this test does not decide it.
    #[inline]
    pub(crate) fn decide(&self, flag: u8, payload: u64) -> Option<bool> {
        match *self {
            ValueTest::Int(op, constant) if flag == F_INT => {
                Some(op.holds(payload as i64, constant))
            }
            ValueTest::Float(op, constant) if flag == F_FLOAT => {
                let stored = f64::from_bits(payload);
                (!stored.is_nan() && !constant.is_nan()).then(|| op.holds(stored, constant))
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::typed_value::F_STRING;

    #[test]
    fn decides_only_its_own_type_and_never_nan() {
        let lt = ValueTest::Int(Comparison::Less, 10);
        assert_eq!(lt.decide(F_INT, 9), Some(true));
        assert_eq!(lt.decide(F_INT, (-3i64) as u64), Some(true));
        assert_eq!(lt.decide(F_INT, 10), Some(false));
        assert_eq!(lt.decide(F_FLOAT, 1.0f64.to_bits()), None);
        assert_eq!(lt.decide(F_STRING, 1), None);
        let ge = ValueTest::Float(Comparison::GreaterEqual, 2.5);
        assert_eq!(ge.decide(F_FLOAT, 2.5f64.to_bits()), Some(true));
        assert_eq!(ge.decide(F_FLOAT, f64::NAN.to_bits()), None);
        assert_eq!(ge.decide(F_INT, 3), None);
        let nan = ValueTest::Float(Comparison::Equal, f64::NAN);
        assert_eq!(nan.decide(F_FLOAT, 1.0f64.to_bits()), None);
    }
}
