//! Exact decimal numbers for duration components.
//!
//! A fractional component (`PT123456789123.999S`, `duration({days: 1.5})`,
//! `d * 0.5`) used to go through `f64`: 123456789123.999 seconds has no
//! exact binary form, and its nanoseconds came out as 998990336 instead of
//! 999000000. A [`Decimal`] keeps the digits as written (a float argument
//! by its shortest round-trip digits, which is what the user wrote), and
//! scaling it to nanoseconds is integer arithmetic.

/// Fraction digits kept: far below a nanosecond for every unit (a month is
/// about 2.6e15 ns, so 1e-18 of one is a thousandth of a nanosecond).
const MAX_SCALE: u32 = 18;

/// `mantissa / 10^scale`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Decimal {
    mantissa: i128,
    scale: u32,
}

/// How a scaled result that is not a whole number of nanoseconds ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rounding {
    /// To the nearest, halves away from zero (parsed components).
    Nearest,
    /// Towards zero (products: a sub-nanosecond remainder is cut off).
    Truncate,
}

impl Decimal {
    pub fn from_int(value: i64) -> Decimal {
        Decimal {
            mantissa: i128::from(value),
            scale: 0,
        }
    }

    pub fn from_i128(value: i128) -> Decimal {
        Decimal {
            mantissa: value,
            scale: 0,
        }
    }

    /// Parses `[-]digits[.digits]` (no exponent); `None` for anything else
    /// or a number too long to hold. Fraction digits past [`MAX_SCALE`] are
    /// dropped.
    pub fn parse(text: &str) -> Option<Decimal> {
        let (negative, digits) = match text.as_bytes().first()? {
            b'-' => (true, &text[1..]),
            b'+' => (false, &text[1..]),
            _ => (false, text),
        };
        let (whole, fraction) = digits.split_once('.').unwrap_or((digits, ""));
        if whole.is_empty() && fraction.is_empty() {
            return None;
        }
        let all_digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
        if !all_digits(whole) || !all_digits(fraction) {
            return None;
        }
        let fraction = &fraction[..fraction.len().min(MAX_SCALE as usize)];
        let mut mantissa: i128 = 0;
        for b in whole.bytes().chain(fraction.bytes()) {
            mantissa = mantissa
                .checked_mul(10)?
                .checked_add(i128::from(b - b'0'))?;
        }
        Some(Decimal {
            mantissa: if negative { -mantissa } else { mantissa },
            scale: fraction.len() as u32,
        })
    }

    /// The float's shortest round-trip digits (Rust prints `f64` without an
    /// exponent), so `0.1` is one tenth, not the binary value nearest it.
    pub fn from_f64(value: f64) -> Option<Decimal> {
        if !value.is_finite() {
            return None;
        }
        Decimal::parse(&value.to_string())
    }

    fn pow10(scale: u32) -> i128 {
        10i128.pow(scale)
    }

    /// The whole part (towards zero) and the fraction, each as a decimal.
    fn split(self) -> (i128, Decimal) {
        let p = Decimal::pow10(self.scale);
        (
            self.mantissa / p,
            Decimal {
                mantissa: self.mantissa % p,
                scale: self.scale,
            },
        )
    }

    /// The whole part, towards zero.
    pub fn trunc(self) -> Option<i64> {
        i64::try_from(self.split().0).ok()
    }

    /// `self * per`, rounded to an integer as `rounding` says (`per` is a
    /// unit's length in nanoseconds); `None` on overflow.
    pub fn times(self, per: i128, rounding: Rounding) -> Option<i128> {
        let (whole, fraction) = self.split();
        let p = Decimal::pow10(fraction.scale);
        let scaled = fraction.mantissa.checked_mul(per)?;
        let mut part = scaled / p;
        let rest = scaled % p;
        if rounding == Rounding::Nearest && rest.abs() * 2 >= p {
            part += rest.signum();
        }
        whole.checked_mul(per)?.checked_add(part)
    }

    /// `self * factor`, exact (the scales add; fraction digits past
    /// [`MAX_SCALE`] are cut off).
    pub fn mul(self, factor: Decimal) -> Option<Decimal> {
        let mut mantissa = self.mantissa.checked_mul(factor.mantissa)?;
        let mut scale = self.scale + factor.scale;
        while scale > MAX_SCALE {
            mantissa /= 10;
            scale -= 1;
        }
        Some(Decimal { mantissa, scale })
    }

    /// `self / divisor` to at most `digits` fraction digits (fewer when
    /// more would overflow), cut towards zero; `None` for a zero divisor.
    pub fn div(self, divisor: Decimal, digits: u32) -> Option<Decimal> {
        if divisor.mantissa == 0 {
            return None;
        }
        // self / divisor = (m1 * 10^(s2 + k)) / (m2 * 10^s1) / 10^k
        let denominator = divisor.mantissa.checked_mul(Decimal::pow10(self.scale))?;
        let mut k = digits.min(MAX_SCALE);
        loop {
            let numerator = 10i128
                .checked_pow(divisor.scale + k)
                .and_then(|p| p.checked_mul(self.mantissa));
            match numerator {
                Some(n) => {
                    return Some(Decimal {
                        mantissa: n / denominator,
                        scale: k,
                    })
                }
                None if k == 0 => return None,
                None => k -= 1,
            }
        }
    }

    /// The fraction (`self - trunc(self)`), same sign as `self`.
    pub fn fraction(self) -> Decimal {
        self.split().1
    }

    pub fn is_integer(self) -> bool {
        self.fraction().mantissa == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parsed_fractions_scale_to_nanoseconds_exactly() {
        let s = Decimal::parse("123456789123.999").unwrap();
        assert_eq!(
            s.times(1_000_000_000, Rounding::Nearest),
            Some(123_456_789_123_999_000_000)
        );
        let tenth = Decimal::from_f64(0.1).unwrap();
        assert_eq!(
            tenth.times(1_000_000_000, Rounding::Nearest),
            Some(100_000_000)
        );
        let neg = Decimal::parse("-1.5").unwrap();
        assert_eq!(neg.trunc(), Some(-1));
        assert_eq!(neg.fraction().times(10, Rounding::Nearest), Some(-5));
    }

    #[test]
    fn rounding_is_to_the_nearest_or_towards_zero() {
        let third = Decimal::parse("0.3333333333333").unwrap();
        assert_eq!(third.times(1_000, Rounding::Nearest), Some(333));
        let two_thirds = Decimal::parse("-0.6666666666").unwrap();
        assert_eq!(two_thirds.times(1_000, Rounding::Nearest), Some(-667));
        assert_eq!(two_thirds.times(1_000, Rounding::Truncate), Some(-666));
    }

    #[test]
    fn division_keeps_the_digits_that_fit() {
        let third = Decimal::from_int(1).div(Decimal::from_int(3), 9).unwrap();
        assert_eq!(
            third.times(1_000_000_000, Rounding::Truncate),
            Some(333_333_333)
        );
        let half = Decimal::from_int(-3)
            .div(Decimal::parse("2.0").unwrap(), 9)
            .unwrap();
        assert_eq!(half.times(10, Rounding::Truncate), Some(-15));
        let big = Decimal::from_i128(10i128.pow(30))
            .div(Decimal::from_int(7), 18)
            .unwrap();
        assert_eq!(big.trunc(), None, "larger than an i64, but computed");
        assert_eq!(Decimal::from_int(1).div(Decimal::from_int(0), 9), None);
    }

    #[test]
    fn malformed_or_huge_numbers_are_refused() {
        for text in ["", ".", "1.2.3", "1e5", "--1", "12a"] {
            assert_eq!(Decimal::parse(text), None, "{text}");
        }
        assert!(Decimal::parse(&"9".repeat(40)).is_none());
        assert!(Decimal::from_f64(f64::NAN).is_none());
        assert_eq!(Decimal::from_f64(1e300).map(|d| d.is_integer()), None);
    }
}
