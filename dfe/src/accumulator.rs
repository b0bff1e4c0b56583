//! Aggregate function state ([`AggregateFunction`]): one accumulator per
//! group and aggregate.
//!
//! Nulls never contribute. `DISTINCT` variants drop values seen before in
//! the same group (using the grouping equality of [`Value`], so `1` and
//! `1.0` count once).

use crate::error::{overflow, ExecError, ExecResult};
use nereid_planner::AggregateFunction;
use nereid_values::{compare_for_order, Value};
use std::cmp::Ordering;
use std::collections::HashSet;

#[derive(Debug)]
enum State {
    Count(i64),
    Collect(Vec<Value>),
    /// Integer while all inputs are integers, float from the first float on.
    SumInt(i64),
    SumFloat(f64),
    Avg {
        sum: f64,
        count: u64,
    },
    /// Keeps the value that `keep` prefers (min: Less, max: Greater).
    Extreme {
        best: Option<Value>,
        keep: Ordering,
    },
    /// stDev (`sample == true`) and stDevP: all numbers are kept.
    Deviation {
        values: Vec<f64>,
        sample: bool,
    },
    /// percentileCont / percentileDisc: the numbers and the percentile
    /// (set from the first row; validated to lie in `[0, 1]`).
    Percentile {
        values: Vec<Value>,
        percentile: Option<f64>,
        continuous: bool,
    },
}

/// The running state of one aggregate for one group.
#[derive(Debug)]
pub struct Accumulator {
    state: State,
    /// Values already fed, for `DISTINCT` aggregates.
    seen: Option<HashSet<Value>>,
}

impl Accumulator {
    pub fn new(func: AggregateFunction, distinct: bool) -> Accumulator {
        let state = match func {
            AggregateFunction::Count => State::Count(0),
            AggregateFunction::Collect => State::Collect(Vec::new()),
            AggregateFunction::Sum => State::SumInt(0),
            AggregateFunction::Avg => State::Avg { sum: 0.0, count: 0 },
            AggregateFunction::Min => State::Extreme {
                best: None,
                keep: Ordering::Less,
            },
            AggregateFunction::Max => State::Extreme {
                best: None,
                keep: Ordering::Greater,
            },
            AggregateFunction::StDev | AggregateFunction::StDevP => State::Deviation {
                values: Vec::new(),
                sample: func == AggregateFunction::StDev,
            },
            AggregateFunction::PercentileCont | AggregateFunction::PercentileDisc => {
                State::Percentile {
                    values: Vec::new(),
                    percentile: None,
                    continuous: func == AggregateFunction::PercentileCont,
                }
            }
        };
        Accumulator {
            state,
            seen: distinct.then(HashSet::new),
        }
    }

    /// Whether the accumulator keeps the values it is fed (collect, the
    /// deviations, percentiles, and every `DISTINCT` aggregate): what the
    /// query's memory budget must be charged for.
    pub fn keeps_values(&self) -> bool {
        self.seen.is_some()
            || matches!(
                self.state,
                State::Collect(_) | State::Deviation { .. } | State::Percentile { .. }
            )
    }

    /// Sets the percentile of percentileCont / percentileDisc (the first
    /// row's value wins); it must be a number between 0.0 and 1.0.
    pub fn set_percentile(&mut self, value: &Value) -> ExecResult<()> {
        let State::Percentile { percentile, .. } = &mut self.state else {
            return Ok(());
        };
        if percentile.is_some() {
            return Ok(());
        }
        let p = match value {
            Value::Int(i) => *i as f64,
            Value::Float(f) => *f,
            other => return Err(not_numeric("percentile", other)),
        };
        if !(0.0..=1.0).contains(&p) {
            return Err(ExecError::Argument(format!(
                "NumberOutOfRange: Invalid input '{p}' is not a valid argument, must be a number in the range 0.0 to 1.0"
            )));
        }
        *percentile = Some(p);
        Ok(())
    }

    /// Feeds one value (for `count(*)` any non-null value per row).
    pub fn update(&mut self, value: Value) -> ExecResult<()> {
        if value.is_null() {
            return Ok(());
        }
        if let Some(seen) = &mut self.seen {
            if !seen.insert(value.clone()) {
                return Ok(());
            }
        }
        match &mut self.state {
            State::Count(n) => *n = n.checked_add(1).ok_or_else(overflow)?,
            State::Collect(items) => items.push(value),
            State::SumInt(total) => match value {
                Value::Int(i) => *total = total.checked_add(i).ok_or_else(overflow)?,
                Value::Float(f) => self.state = State::SumFloat(*total as f64 + f),
                other => return Err(not_numeric("sum", &other)),
            },
            State::SumFloat(total) => match value {
                Value::Int(i) => *total += i as f64,
                Value::Float(f) => *total += f,
                other => return Err(not_numeric("sum", &other)),
            },
            State::Avg { sum, count } => {
                match value {
                    Value::Int(i) => *sum += i as f64,
                    Value::Float(f) => *sum += f,
                    other => return Err(not_numeric("avg", &other)),
                }
                *count += 1;
            }
            State::Deviation { values, .. } => match value {
                Value::Int(i) => values.push(i as f64),
                Value::Float(f) => values.push(f),
                other => return Err(not_numeric("stDev", &other)),
            },
            State::Percentile { values, .. } => match value {
                Value::Int(_) | Value::Float(_) => values.push(value),
                other => return Err(not_numeric("percentile", &other)),
            },
            State::Extreme { best, keep } => {
                let better = match best {
                    None => true,
                    Some(current) => compare_for_order(&value, current) == *keep,
                };
                if better {
                    *best = Some(value);
                }
            }
        }
        Ok(())
    }

    /// The aggregate's result; on no input: 0, [], 0, null, null, null.
    pub fn finish(self) -> Value {
        match self.state {
            State::Count(n) => Value::Int(n),
            State::Collect(items) => Value::List(items.into()),
            State::SumInt(total) => Value::Int(total),
            State::SumFloat(total) => Value::Float(total),
            State::Avg { count: 0, .. } => Value::Null,
            State::Avg { sum, count } => Value::Float(sum / count as f64),
            State::Extreme { best, .. } => best.unwrap_or_default(),
            State::Deviation { values, sample } => deviation(&values, sample),
            State::Percentile {
                values,
                percentile,
                continuous,
            } => percentile_of(values, percentile.unwrap_or(0.0), continuous),
        }
    }
}

/// Standard deviation; 0.0 for fewer than two values (sample) or none.
fn deviation(values: &[f64], sample: bool) -> Value {
    let n = values.len();
    let divisor = if sample { n.saturating_sub(1) } else { n };
    if divisor == 0 {
        return Value::Float(0.0);
    }
    let mean = values.iter().sum::<f64>() / n as f64;
    let squares: f64 = values.iter().map(|v| (v - mean) * (v - mean)).sum();
    Value::Float((squares / divisor as f64).sqrt())
}

/// percentileCont interpolates linearly between the two nearest values (a
/// float); percentileDisc picks the nearest value at or above the rank
/// (keeping its type). Null when there are no values.
fn percentile_of(mut values: Vec<Value>, p: f64, continuous: bool) -> Value {
    if values.is_empty() {
        return Value::Null;
    }
    values.sort_by(compare_for_order);
    let as_f64 = |v: &Value| match v {
        Value::Int(i) => *i as f64,
        Value::Float(f) => *f,
        _ => 0.0,
    };
    let n = values.len();
    if continuous {
        let rank = p * (n - 1) as f64;
        let lower = rank.floor() as usize;
        let upper = rank.ceil() as usize;
        let (a, b) = (as_f64(&values[lower]), as_f64(&values[upper.min(n - 1)]));
        Value::Float(a + (b - a) * (rank - lower as f64))
    } else {
        let index = if p <= 0.0 {
            0
        } else {
            ((p * n as f64).ceil() as usize).saturating_sub(1)
        };
        values.swap_remove(index.min(n - 1))
    }
}

fn not_numeric(func: &str, value: &Value) -> ExecError {
    ExecError::Type(format!(
        "{func}() can only handle numerical values and null. Got {}",
        value.type_name()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use AggregateFunction as A;

    fn run(func: AggregateFunction, distinct: bool, values: &[Value]) -> ExecResult<Value> {
        let mut acc = Accumulator::new(func, distinct);
        for v in values {
            acc.update(v.clone())?;
        }
        Ok(acc.finish())
    }

    #[test]
    fn empty_input_results() {
        assert_eq!(run(A::Count, false, &[]), Ok(Value::Int(0)));
        assert_eq!(run(A::Collect, false, &[]), Ok(Value::List(vec![].into())));
        assert_eq!(run(A::Sum, false, &[]), Ok(Value::Int(0)));
        assert_eq!(run(A::Avg, false, &[]), Ok(Value::Null));
        assert_eq!(run(A::Min, false, &[]), Ok(Value::Null));
        assert_eq!(run(A::Max, false, &[Value::Null]), Ok(Value::Null));
    }

    #[test]
    fn nulls_are_skipped_and_distinct_dedups() {
        let values = [Value::Int(1), Value::Null, Value::Float(1.0), Value::Int(2)];
        assert_eq!(run(A::Count, false, &values), Ok(Value::Int(3)));
        assert_eq!(run(A::Count, true, &values), Ok(Value::Int(2)));
        assert_eq!(
            run(A::Collect, true, &values),
            Ok(Value::List(vec![Value::Int(1), Value::Int(2)].into()))
        );
    }

    #[test]
    fn sums_stay_integral_until_a_float_arrives() {
        let ints = [Value::Int(1), Value::Int(2)];
        assert!(matches!(run(A::Sum, false, &ints), Ok(Value::Int(3))));
        assert!(matches!(
            run(A::Sum, false, &[Value::Int(1), Value::Float(0.5)]),
            Ok(Value::Float(f)) if f == 1.5
        ));
        assert_eq!(
            run(A::Sum, false, &[Value::Int(i64::MAX), Value::Int(1)]),
            Err(ExecError::Arithmetic("integer overflow".into()))
        );
        assert!(matches!(
            run(A::Sum, false, &[Value::from("a")]),
            Err(ExecError::Type(_))
        ));
        assert_eq!(run(A::Avg, false, &ints), Ok(Value::Float(1.5)));
    }

    #[test]
    fn min_and_max_use_the_order_across_types() {
        let values = [
            Value::from("b"),
            Value::Int(3),
            Value::Null,
            Value::from("a"),
        ];
        assert_eq!(run(A::Min, false, &values), Ok(Value::from("a")));
        assert_eq!(run(A::Max, false, &values), Ok(Value::Int(3)));
        let numbers = [Value::Float(2.5), Value::Int(1), Value::Int(7)];
        assert_eq!(run(A::Max, false, &numbers), Ok(Value::Int(7)));
        assert_eq!(run(A::Min, false, &numbers), Ok(Value::Int(1)));
    }
}
