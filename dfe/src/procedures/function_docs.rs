//! Documentation of Cypher's built-in functions for `SHOW FUNCTIONS`: one
//! row per signature, as Neo4j lists them (`round` has three), in Neo4j's
//! categories.
//!
//! The table names functions Cypher defines; `SHOW FUNCTIONS` lists only
//! the rows nereid implements: the planner resolves the name
//! ([`nereid_planner::ScalarFunction::from_name`],
//! [`nereid_planner::AggregateFunction::from_name`]) and accepts the row's
//! argument count, or the parser implements the name as an expression of its
//! own ([`SYNTAX_FUNCTIONS`]). So the listing follows the implementation as
//! functions are added, and never names one that would fail. A function
//! implemented but missing from this table is not listed: add it here when
//! adding it to the planner.

/// How many arguments a documented signature takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Arguments {
    /// The function's one signature, whatever its optional arguments.
    Any,
    /// One of several signatures (overloads): exactly this many.
    Exactly(usize),
}

use Arguments::{Any, Exactly};

/// Functions the parser turns into expressions of their own (the list
/// predicates and `reduce`, whose arguments are not expressions), so the
/// planner's function lookup does not know them. tests/golden/show.test
/// runs each.
pub(super) const SYNTAX_FUNCTIONS: &[&str] = &["all", "any", "none", "reduce", "single"];

/// `(name, category, arguments, description)`, by name.
pub(super) const FUNCTIONS: &[(&str, &str, Arguments, &str)] = &[
    ("abs", "Numeric", Any, "Returns the absolute value of a number."),
    ("acos", "Trigonometric", Any, "Returns the arccosine of a number."),
    ("all", "Predicate", Any, "Returns true if the predicate holds for every element of a list."),
    ("any", "Predicate", Any, "Returns true if the predicate holds for at least one element of a list."),
    ("asin", "Trigonometric", Any, "Returns the arcsine of a number."),
    ("atan", "Trigonometric", Any, "Returns the arctangent of a number."),
    ("atan2", "Trigonometric", Any, "Returns the arctangent2 of a set of coordinates in radians."),
    ("avg", "Aggregating", Any, "Returns the average of a set of values."),
    ("ceil", "Numeric", Any, "Returns the smallest integer greater than or equal to a number."),
    ("char_length", "Scalar", Any, "Returns the number of Unicode characters in a string."),
    ("character_length", "Scalar", Any, "Returns the number of Unicode characters in a string."),
    ("coalesce", "Scalar", Any, "Returns the first non-null value of its arguments."),
    ("collect", "Aggregating", Any, "Returns a list of the non-null values of a set."),
    ("cos", "Trigonometric", Any, "Returns the cosine of a number."),
    ("cot", "Trigonometric", Any, "Returns the cotangent of a number."),
    ("count", "Aggregating", Any, "Returns the number of values or rows."),
    ("date", "Temporal", Any, "Creates a DATE from a map, a string or another temporal value; with no argument, the current one."),
    ("date.realtime", "Temporal", Any, "Returns the current DATE read from the real-time clock."),
    ("date.statement", "Temporal", Any, "Returns the current DATE as of the start of the statement."),
    ("date.transaction", "Temporal", Any, "Returns the current DATE as of the start of the transaction."),
    ("date.truncate", "Temporal", Any, "Truncates a temporal value to a DATE at the given unit."),
    ("datetime", "Temporal", Any, "Creates a ZONED DATETIME from a map, a string or another temporal value; with no argument, the current one."),
    ("datetime.fromepoch", "Temporal", Any, "Creates a ZONED DATETIME (UTC) from seconds and nanoseconds since the Unix epoch."),
    ("datetime.fromepochmillis", "Temporal", Any, "Creates a ZONED DATETIME (UTC) from milliseconds since the Unix epoch."),
    ("datetime.realtime", "Temporal", Any, "Returns the current ZONED DATETIME read from the real-time clock."),
    ("datetime.statement", "Temporal", Any, "Returns the current ZONED DATETIME as of the start of the statement."),
    ("datetime.transaction", "Temporal", Any, "Returns the current ZONED DATETIME as of the start of the transaction."),
    ("datetime.truncate", "Temporal", Any, "Truncates a temporal value to a ZONED DATETIME at the given unit."),
    ("degrees", "Trigonometric", Any, "Converts radians to degrees."),
    ("duration", "Temporal", Any, "Creates a DURATION from a map of components or an ISO 8601 string."),
    ("duration.between", "Temporal", Any, "Returns the DURATION between two temporal values, in logical units."),
    ("duration.inDays", "Temporal", Any, "Returns the DURATION between two temporal values, in whole days."),
    ("duration.inMonths", "Temporal", Any, "Returns the DURATION between two temporal values, in whole months."),
    ("duration.inSeconds", "Temporal", Any, "Returns the DURATION between two temporal values, in seconds and nanoseconds."),
    ("e", "Logarithmic", Any, "Returns the base of the natural logarithm, e."),
    ("elementId", "Scalar", Any, "Returns the element id of a node or relationship."),
    ("endNode", "Scalar", Any, "Returns the end node of a relationship."),
    ("exists", "Predicate", Any, "Returns true if a match for the pattern exists in the graph."),
    ("exp", "Logarithmic", Any, "Returns e raised to the power of a number."),
    ("floor", "Numeric", Any, "Returns the largest integer less than or equal to a number."),
    ("haversin", "Trigonometric", Any, "Returns half the versine of a number."),
    ("head", "Scalar", Any, "Returns the first element of a list."),
    ("id", "Scalar", Any, "Returns the id of a node or relationship."),
    ("isEmpty", "Predicate", Any, "Checks whether a string, list or map is empty."),
    ("isNaN", "Numeric", Any, "Returns whether a number is NaN."),
    ("keys", "List", Any, "Returns the property keys of a node, relationship or map."),
    ("labels", "List", Any, "Returns the labels of a node."),
    ("last", "Scalar", Any, "Returns the last element of a list."),
    ("left", "String", Any, "Returns a string of the given length from the start of a string."),
    ("length", "Scalar", Any, "Returns the length of a path."),
    ("localdatetime", "Temporal", Any, "Creates a LOCAL DATETIME from a map, a string or another temporal value; with no argument, the current one."),
    ("localdatetime.realtime", "Temporal", Any, "Returns the current LOCAL DATETIME read from the real-time clock."),
    ("localdatetime.statement", "Temporal", Any, "Returns the current LOCAL DATETIME as of the start of the statement."),
    ("localdatetime.transaction", "Temporal", Any, "Returns the current LOCAL DATETIME as of the start of the transaction."),
    ("localdatetime.truncate", "Temporal", Any, "Truncates a temporal value to a LOCAL DATETIME at the given unit."),
    ("localtime", "Temporal", Any, "Creates a LOCAL TIME from a map, a string or another temporal value; with no argument, the current one."),
    ("localtime.realtime", "Temporal", Any, "Returns the current LOCAL TIME read from the real-time clock."),
    ("localtime.statement", "Temporal", Any, "Returns the current LOCAL TIME as of the start of the statement."),
    ("localtime.transaction", "Temporal", Any, "Returns the current LOCAL TIME as of the start of the transaction."),
    ("localtime.truncate", "Temporal", Any, "Truncates a temporal value to a LOCAL TIME at the given unit."),
    ("log", "Logarithmic", Any, "Returns the natural logarithm of a number."),
    ("log10", "Logarithmic", Any, "Returns the base 10 logarithm of a number."),
    ("lower", "String", Any, "Returns a string in lowercase."),
    ("ltrim", "String", Exactly(1), "Returns a string with leading whitespace removed."),
    ("max", "Aggregating", Any, "Returns the maximum of a set of values."),
    ("min", "Aggregating", Any, "Returns the minimum of a set of values."),
    ("nodes", "List", Any, "Returns the nodes of a path."),
    ("none", "Predicate", Any, "Returns true if the predicate holds for no element of a list."),
    ("percentileCont", "Aggregating", Any, "Returns a percentile of a set of values, interpolated."),
    ("percentileDisc", "Aggregating", Any, "Returns the nearest value to a percentile of a set of values."),
    ("pi", "Trigonometric", Any, "Returns the mathematical constant pi."),
    ("point", "Spatial", Any, "Creates a 2D or 3D point, Cartesian or WGS-84, from a map of coordinates."),
    ("point.distance", "Spatial", Any, "Returns the distance between two points of one coordinate system: geodesic for WGS-84, Euclidean for Cartesian."),
    ("point.withinBBox", "Spatial", Any, "Returns true if a point lies in the box spanned by a lower-left and an upper-right point."),
    ("properties", "Scalar", Any, "Returns the properties of a node, relationship or map as a map."),
    ("radians", "Trigonometric", Any, "Converts degrees to radians."),
    ("rand", "Numeric", Any, "Returns a random number in the range from 0 (inclusive) to 1 (exclusive)."),
    ("randomUUID", "Scalar", Any, "Generates a random UUID."),
    ("range", "List", Exactly(2), "Returns the list of integers from a start to an end, inclusive."),
    ("range", "List", Exactly(3), "Returns the list of integers from a start to an end, inclusive, in steps of the given size."),
    ("reduce", "List", Any, "Folds a list into one value with an accumulator expression."),
    ("relationships", "List", Any, "Returns the relationships of a path."),
    ("replace", "String", Any, "Replaces every occurrence of a search string."),
    ("reverse", "String", Any, "Reverses a string or a list."),
    ("right", "String", Any, "Returns a string of the given length from the end of a string."),
    ("round", "Numeric", Exactly(1), "Rounds a number to the nearest integer."),
    ("round", "Numeric", Exactly(2), "Rounds a number to the given precision, halves away from zero."),
    ("round", "Numeric", Exactly(3), "Rounds a number to the given precision with the given rounding mode."),
    ("rtrim", "String", Exactly(1), "Returns a string with trailing whitespace removed."),
    ("sign", "Numeric", Any, "Returns the signum of a number: 0, 1 or -1."),
    ("sin", "Trigonometric", Any, "Returns the sine of a number."),
    ("single", "Predicate", Any, "Returns true if the predicate holds for exactly one element of a list."),
    ("size", "Scalar", Any, "Returns the number of items in a list or characters in a string."),
    ("split", "String", Any, "Splits a string at each occurrence of a delimiter."),
    ("sqrt", "Logarithmic", Any, "Returns the square root of a number."),
    ("startNode", "Scalar", Any, "Returns the start node of a relationship."),
    ("stdev", "Aggregating", Any, "Returns the standard deviation of a sample of values."),
    ("stdevp", "Aggregating", Any, "Returns the standard deviation of a population of values."),
    ("substring", "String", Exactly(2), "Returns the rest of a string from a 0-based offset."),
    ("substring", "String", Exactly(3), "Returns a substring of a string, from a 0-based offset and with a length."),
    ("sum", "Aggregating", Any, "Returns the sum of a set of numbers."),
    ("tail", "List", Any, "Returns a list without its first element."),
    ("tan", "Trigonometric", Any, "Returns the tangent of a number."),
    ("time", "Temporal", Any, "Creates a ZONED TIME from a map, a string or another temporal value; with no argument, the current one."),
    ("time.realtime", "Temporal", Any, "Returns the current ZONED TIME read from the real-time clock."),
    ("time.statement", "Temporal", Any, "Returns the current ZONED TIME as of the start of the statement."),
    ("time.transaction", "Temporal", Any, "Returns the current ZONED TIME as of the start of the transaction."),
    ("time.truncate", "Temporal", Any, "Truncates a temporal value to a ZONED TIME at the given unit."),
    ("timestamp", "Scalar", Any, "Returns the milliseconds since midnight, January 1, 1970 UTC."),
    ("toBoolean", "Scalar", Any, "Converts a string, integer or boolean to a boolean."),
    ("toBooleanOrNull", "Scalar", Any, "Converts a value to a boolean, or null when it cannot."),
    ("toFloat", "Scalar", Any, "Converts an integer, float or string to a float."),
    ("toFloatOrNull", "Scalar", Any, "Converts a value to a float, or null when it cannot."),
    ("toInteger", "Scalar", Any, "Converts a boolean, integer, float or string to an integer."),
    ("toIntegerOrNull", "Scalar", Any, "Converts a value to an integer, or null when it cannot."),
    ("toLower", "String", Any, "Returns a string in lowercase."),
    ("toString", "String", Any, "Converts a value to a string."),
    ("toStringOrNull", "String", Any, "Converts a value to a string, or null when it cannot."),
    ("toUpper", "String", Any, "Returns a string in uppercase."),
    ("trim", "String", Exactly(1), "Returns a string with leading and trailing whitespace removed."),
    ("type", "Scalar", Any, "Returns the type of a relationship."),
    ("upper", "String", Any, "Returns a string in uppercase."),
    ("valueType", "Scalar", Any, "Returns the name of the type of a value."),
];
