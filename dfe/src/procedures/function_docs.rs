//! Documentation of Cypher's built-in functions for `SHOW FUNCTIONS`.
//!
//! The table names functions Cypher defines; `SHOW FUNCTIONS` lists only
//! those the planner resolves ([`nereid_planner::ScalarFunction::from_name`],
//! [`nereid_planner::AggregateFunction::from_name`]), so the listing follows
//! the implementation as functions are added, and never names one that
//! would fail. A function implemented but missing from this table is not
//! listed: add it here when adding it to the planner.

/// `(name, category, description)`.
pub(super) const FUNCTIONS: &[(&str, &str, &str)] = &[
    ("abs", "Numeric", "Returns the absolute value of a number."),
    (
        "acos",
        "Trigonometric",
        "Returns the arccosine of a number.",
    ),
    ("asin", "Trigonometric", "Returns the arcsine of a number."),
    (
        "atan",
        "Trigonometric",
        "Returns the arctangent of a number.",
    ),
    (
        "atan2",
        "Trigonometric",
        "Returns the arctangent2 of a set of coordinates in radians.",
    ),
    (
        "avg",
        "Aggregating",
        "Returns the average of a set of values.",
    ),
    (
        "ceil",
        "Numeric",
        "Returns the smallest integer greater than or equal to a number.",
    ),
    (
        "char_length",
        "String",
        "Returns the number of Unicode characters in a string.",
    ),
    (
        "character_length",
        "String",
        "Returns the number of Unicode characters in a string.",
    ),
    (
        "coalesce",
        "Scalar",
        "Returns the first non-null value of its arguments.",
    ),
    (
        "collect",
        "Aggregating",
        "Returns a list of the non-null values of a set.",
    ),
    ("cos", "Trigonometric", "Returns the cosine of a number."),
    ("cot", "Trigonometric", "Returns the cotangent of a number."),
    (
        "count",
        "Aggregating",
        "Returns the number of values or rows.",
    ),
    ("degrees", "Trigonometric", "Converts radians to degrees."),
    (
        "e",
        "Logarithmic",
        "Returns the base of the natural logarithm, e.",
    ),
    (
        "elementId",
        "Scalar",
        "Returns the element id of a node or relationship.",
    ),
    (
        "endNode",
        "Scalar",
        "Returns the end node of a relationship.",
    ),
    (
        "exists",
        "Predicate",
        "Returns true if a match for the pattern exists in the graph.",
    ),
    (
        "exp",
        "Logarithmic",
        "Returns e raised to the power of a number.",
    ),
    (
        "floor",
        "Numeric",
        "Returns the largest integer less than or equal to a number.",
    ),
    ("head", "List", "Returns the first element of a list."),
    ("id", "Scalar", "Returns the id of a node or relationship."),
    (
        "isEmpty",
        "Predicate",
        "Checks whether a string, list or map is empty.",
    ),
    ("isNaN", "Numeric", "Returns whether a number is NaN."),
    (
        "keys",
        "List",
        "Returns the property keys of a node, relationship or map.",
    ),
    ("labels", "List", "Returns the labels of a node."),
    ("last", "List", "Returns the last element of a list."),
    (
        "left",
        "String",
        "Returns a string of the given length from the start of a string.",
    ),
    ("length", "Scalar", "Returns the length of a path."),
    (
        "log",
        "Logarithmic",
        "Returns the natural logarithm of a number.",
    ),
    (
        "log10",
        "Logarithmic",
        "Returns the base 10 logarithm of a number.",
    ),
    ("lower", "String", "Returns a string in lowercase."),
    (
        "ltrim",
        "String",
        "Returns a string with leading whitespace removed.",
    ),
    (
        "max",
        "Aggregating",
        "Returns the maximum of a set of values.",
    ),
    (
        "min",
        "Aggregating",
        "Returns the minimum of a set of values.",
    ),
    ("nodes", "List", "Returns the nodes of a path."),
    (
        "percentileCont",
        "Aggregating",
        "Returns a percentile of a set of values, interpolated.",
    ),
    (
        "percentileDisc",
        "Aggregating",
        "Returns the nearest value to a percentile of a set of values.",
    ),
    (
        "pi",
        "Trigonometric",
        "Returns the mathematical constant pi.",
    ),
    (
        "properties",
        "Scalar",
        "Returns the properties of a node, relationship or map as a map.",
    ),
    ("radians", "Trigonometric", "Converts degrees to radians."),
    (
        "rand",
        "Numeric",
        "Returns a random number in the range from 0 (inclusive) to 1 (exclusive).",
    ),
    ("randomUUID", "Scalar", "Generates a random UUID."),
    (
        "range",
        "List",
        "Returns a list of integers between bounds, with an optional step.",
    ),
    (
        "reduce",
        "List",
        "Folds a list into one value with an accumulator expression.",
    ),
    (
        "relationships",
        "List",
        "Returns the relationships of a path.",
    ),
    (
        "replace",
        "String",
        "Replaces every occurrence of a search string.",
    ),
    ("reverse", "List", "Reverses a string or a list."),
    (
        "right",
        "String",
        "Returns a string of the given length from the end of a string.",
    ),
    (
        "round",
        "Numeric",
        "Rounds a number to the nearest integer or given precision.",
    ),
    (
        "rtrim",
        "String",
        "Returns a string with trailing whitespace removed.",
    ),
    (
        "sign",
        "Numeric",
        "Returns the signum of a number: 0, 1 or -1.",
    ),
    ("sin", "Trigonometric", "Returns the sine of a number."),
    (
        "size",
        "Scalar",
        "Returns the number of items in a list or characters in a string.",
    ),
    (
        "split",
        "String",
        "Splits a string at each occurrence of a delimiter.",
    ),
    (
        "sqrt",
        "Logarithmic",
        "Returns the square root of a number.",
    ),
    (
        "startNode",
        "Scalar",
        "Returns the start node of a relationship.",
    ),
    (
        "stDev",
        "Aggregating",
        "Returns the standard deviation of a sample of values.",
    ),
    (
        "stDevP",
        "Aggregating",
        "Returns the standard deviation of a population of values.",
    ),
    (
        "substring",
        "String",
        "Returns a substring of a string, from an offset and with a length.",
    ),
    ("sum", "Aggregating", "Returns the sum of a set of numbers."),
    ("tail", "List", "Returns a list without its first element."),
    ("tan", "Trigonometric", "Returns the tangent of a number."),
    (
        "timestamp",
        "Scalar",
        "Returns the milliseconds since midnight, January 1, 1970 UTC.",
    ),
    (
        "toBoolean",
        "Scalar",
        "Converts a string, integer or boolean to a boolean.",
    ),
    (
        "toBooleanOrNull",
        "Scalar",
        "Converts a value to a boolean, or null when it cannot.",
    ),
    (
        "toFloat",
        "Scalar",
        "Converts an integer, float or string to a float.",
    ),
    (
        "toFloatOrNull",
        "Scalar",
        "Converts a value to a float, or null when it cannot.",
    ),
    (
        "toInteger",
        "Scalar",
        "Converts a boolean, integer, float or string to an integer.",
    ),
    (
        "toIntegerOrNull",
        "Scalar",
        "Converts a value to an integer, or null when it cannot.",
    ),
    ("toLower", "String", "Returns a string in lowercase."),
    ("toString", "String", "Converts a value to a string."),
    (
        "toStringOrNull",
        "String",
        "Converts a value to a string, or null when it cannot.",
    ),
    ("toUpper", "String", "Returns a string in uppercase."),
    (
        "trim",
        "String",
        "Returns a string with leading and trailing whitespace removed.",
    ),
    ("type", "Scalar", "Returns the type of a relationship."),
    ("upper", "String", "Returns a string in uppercase."),
    (
        "valueType",
        "Scalar",
        "Returns the name of the type of a value.",
    ),
];
