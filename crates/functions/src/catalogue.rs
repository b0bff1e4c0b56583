//! The catalogue: every function Cypher defines that nereid knows of, one
//! row per signature (`round` has three, as Neo4j lists them), with what
//! the name resolves to. It is the one list: the analyser asks it which
//! names aggregate, the planner resolves names and checks argument counts
//! through it, and `SHOW FUNCTIONS` lists its implemented rows. A function
//! is added by adding its row (and its variant, and its implementation in
//! the executor).

use crate::ApocFunction;
use crate::LoadCsvFunction;
use crate::{AggregateFunction, ScalarFunction, SpatialFunction, TemporalFunction, VectorFunction};

/// What a function name stands for.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Implementation {
    /// A per-row function the executor evaluates.
    Scalar(ScalarFunction),
    /// An aggregate over the rows of a group.
    Aggregate(AggregateFunction),
    /// Syntax that looks like a call (`all(x IN l WHERE p)`, `reduce(...)`):
    /// the parser turns it into an expression of its own, so the planner
    /// never resolves the name.
    Syntax,
    /// What the enclosing `LOAD CSV` records of its current row.
    LoadCsv(LoadCsvFunction),
}

/// Neo4j's categories of functions (the `category` column of `SHOW
/// FUNCTIONS`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Category {
    /// APOC's functions: Neo4j lists user-defined functions without a
    /// category.
    UserDefined,
    Aggregating,
    List,
    Logarithmic,
    Numeric,
    Predicate,
    Scalar,
    Spatial,
    String,
    Temporal,
    Trigonometric,
    Vector,
}

impl Category {
    /// The name `SHOW FUNCTIONS` prints.
    pub fn name(self) -> &'static str {
        match self {
            Category::UserDefined => "",
            Category::Aggregating => "Aggregating",
            Category::List => "List",
            Category::Logarithmic => "Logarithmic",
            Category::Numeric => "Numeric",
            Category::Predicate => "Predicate",
            Category::Scalar => "Scalar",
            Category::Spatial => "Spatial",
            Category::String => "String",
            Category::Temporal => "Temporal",
            Category::Trigonometric => "Trigonometric",
            Category::Vector => "Vector",
        }
    }
}

/// One signature of a function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Signature {
    /// As Neo4j spells it (matched case-insensitively).
    pub name: &'static str,
    /// Other names calls may use (not listed by `SHOW FUNCTIONS`).
    pub aliases: &'static [&'static str],
    pub category: Category,
    /// The least and the most arguments this signature takes
    /// (`usize::MAX`: any number).
    pub arguments: (usize, usize),
    pub description: &'static str,
    /// `None`: documented by Cypher but not implemented by nereid (a call
    /// is an unknown function; `SHOW FUNCTIONS` does not list it).
    pub implementation: Option<Implementation>,
}

impl Signature {
    /// Whether a call may name this signature's function as `name`.
    pub fn is_named(&self, name: &str) -> bool {
        self.name.eq_ignore_ascii_case(name)
            || self.aliases.iter().any(|a| a.eq_ignore_ascii_case(name))
    }

    const fn alias(self, aliases: &'static [&'static str]) -> Signature {
        Signature { aliases, ..self }
    }
}

/// What `name` (case-insensitive) resolves to, if nereid implements it.
pub fn resolve(name: &str) -> Option<Implementation> {
    CATALOGUE
        .iter()
        .find(|s| s.is_named(name))
        .and_then(|s| s.implementation)
}

/// The argument counts of an implementation: from the fewest to the most
/// any of its signatures takes.
pub(crate) fn arity_of(implementation: Implementation) -> (usize, usize) {
    CATALOGUE
        .iter()
        .filter(|s| s.implementation == Some(implementation))
        .fold(None, |range: Option<(usize, usize)>, s| {
            let (min, max) = s.arguments;
            Some(range.map_or((min, max), |(lo, hi)| (lo.min(min), hi.max(max))))
        })
        .unwrap_or((0, 0))
}

/// The name of an implementation's first catalogue row.
pub(crate) fn name_of(implementation: Implementation) -> &'static str {
    CATALOGUE
        .iter()
        .find(|s| s.implementation == Some(implementation))
        .map_or("", |s| s.name)
}

/// The signatures nereid implements, in the catalogue's order (by name;
/// overloads fewest arguments first).
pub fn implemented() -> impl Iterator<Item = &'static Signature> {
    CATALOGUE.iter().filter(|s| s.implementation.is_some())
}

const fn row(
    name: &'static str,
    category: Category,
    arguments: (usize, usize),
    implementation: Option<Implementation>,
    description: &'static str,
) -> Signature {
    Signature {
        name,
        aliases: &[],
        category,
        arguments,
        description,
        implementation,
    }
}

const fn scalar(f: ScalarFunction) -> Option<Implementation> {
    Some(Implementation::Scalar(f))
}

const fn temporal(f: TemporalFunction) -> Option<Implementation> {
    Some(Implementation::Scalar(ScalarFunction::Temporal(f)))
}

const fn spatial(f: SpatialFunction) -> Option<Implementation> {
    Some(Implementation::Scalar(ScalarFunction::Spatial(f)))
}

const fn vector(f: VectorFunction) -> Option<Implementation> {
    Some(Implementation::Scalar(ScalarFunction::Vector(f)))
}

const fn apoc(f: ApocFunction) -> Option<Implementation> {
    Some(Implementation::Scalar(ScalarFunction::Apoc(f)))
}

const fn aggregate(f: AggregateFunction) -> Option<Implementation> {
    Some(Implementation::Aggregate(f))
}

const fn load_csv(f: LoadCsvFunction) -> Option<Implementation> {
    Some(Implementation::LoadCsv(f))
}

const SYNTAX: Option<Implementation> = Some(Implementation::Syntax);
const UNIMPLEMENTED: Option<Implementation> = None;

use crate::TemporalKind as K;
use AggregateFunction as A;
use ApocFunction as X;
use Category as C;
use ScalarFunction as S;
use SpatialFunction as P;
use TemporalFunction as T;

/// Every signature, by name. The syntax functions' argument counts are
/// nominal (the parser checks their form).
#[rustfmt::skip]
pub static CATALOGUE: &[Signature] = &[
    row("abs", C::Numeric, (1, 1), scalar(S::Abs), "Returns the absolute value of a number."),
    row("acos", C::Trigonometric, (1, 1), scalar(S::Acos), "Returns the arccosine of a number."),
    row("all", C::Predicate, (1, 1), SYNTAX, "Returns true if the predicate holds for every element of a list."),
    row("any", C::Predicate, (1, 1), SYNTAX, "Returns true if the predicate holds for at least one element of a list."),
    row("apoc.any.properties", C::UserDefined, (1, 2), apoc(X::AnyProperties), "Returns all properties of the given object (a virtual or stored NODE or RELATIONSHIP, or a MAP), or only the given keys."),
    row("apoc.any.property", C::UserDefined, (2, 2), apoc(X::AnyProperty), "Returns the property for the given key from an object (a virtual or stored NODE or RELATIONSHIP, or a MAP)."),
    row("apoc.coll.flatten", C::UserDefined, (1, 2), apoc(X::CollFlatten), "Flattens the given LIST (to flatten nested LIST values, set recursive to true)."),
    row("apoc.coll.sort", C::UserDefined, (1, 1), apoc(X::CollSort), "Sorts the given LIST into ascending order."),
    row("apoc.coll.sum", C::UserDefined, (1, 1), apoc(X::CollSum), "Returns the sum of all the INTEGER | FLOAT in the LIST."),
    row("apoc.coll.toSet", C::UserDefined, (1, 1), apoc(X::CollToSet), "Returns a unique LIST from the given LIST."),
    row("apoc.map.clean", C::UserDefined, (3, 3), apoc(X::MapClean), "Filters the keys and values contained in the given LIST values."),
    row("apoc.map.fromPairs", C::UserDefined, (1, 1), apoc(X::MapFromPairs), "Creates a MAP from the given LIST<LIST<ANY>> of key-value pairs."),
    row("apoc.map.merge", C::UserDefined, (2, 2), apoc(X::MapMerge), "Merges the two given MAP values into one MAP."),
    row("apoc.text.join", C::UserDefined, (2, 2), apoc(X::TextJoin), "Joins the given STRING values using the given delimiter."),
    row("asin", C::Trigonometric, (1, 1), scalar(S::Asin), "Returns the arcsine of a number."),
    row("atan", C::Trigonometric, (1, 1), scalar(S::Atan), "Returns the arctangent of a number."),
    row("atan2", C::Trigonometric, (2, 2), scalar(S::Atan2), "Returns the arctangent2 of a set of coordinates in radians."),
    row("avg", C::Aggregating, (1, 1), aggregate(A::Avg), "Returns the average of a set of values."),
    row("ceil", C::Numeric, (1, 1), scalar(S::Ceil), "Returns the smallest integer greater than or equal to a number."),
    row("char_length", C::Scalar, (1, 1), UNIMPLEMENTED, "Returns the number of Unicode characters in a string."),
    row("character_length", C::Scalar, (1, 1), UNIMPLEMENTED, "Returns the number of Unicode characters in a string."),
    row("coalesce", C::Scalar, (1, usize::MAX), scalar(S::Coalesce), "Returns the first non-null value of its arguments."),
    row("collect", C::Aggregating, (1, 1), aggregate(A::Collect), "Returns a list of the non-null values of a set."),
    row("cos", C::Trigonometric, (1, 1), scalar(S::Cos), "Returns the cosine of a number."),
    row("cot", C::Trigonometric, (1, 1), scalar(S::Cot), "Returns the cotangent of a number."),
    row("count", C::Aggregating, (1, 1), aggregate(A::Count), "Returns the number of values or rows."),
    row("date", C::Temporal, (0, 1), temporal(T::Construct(K::Date)), "Creates a DATE from a map, a string or another temporal value; with no argument, the current one."),
    row("date.realtime", C::Temporal, (0, 1), temporal(T::Now(K::Date)), "Returns the current DATE read from the real-time clock."),
    row("date.statement", C::Temporal, (0, 1), temporal(T::Now(K::Date)), "Returns the current DATE as of the start of the statement."),
    row("date.transaction", C::Temporal, (0, 1), temporal(T::Now(K::Date)), "Returns the current DATE as of the start of the transaction."),
    row("date.truncate", C::Temporal, (2, 3), temporal(T::Truncate(K::Date)), "Truncates a temporal value to a DATE at the given unit."),
    row("datetime", C::Temporal, (0, 1), temporal(T::Construct(K::DateTime)), "Creates a ZONED DATETIME from a map, a string or another temporal value; with no argument, the current one."),
    row("datetime.fromepoch", C::Temporal, (2, 2), temporal(T::FromEpoch), "Creates a ZONED DATETIME (UTC) from seconds and nanoseconds since the Unix epoch."),
    row("datetime.fromepochmillis", C::Temporal, (1, 1), temporal(T::FromEpochMillis), "Creates a ZONED DATETIME (UTC) from milliseconds since the Unix epoch."),
    row("datetime.realtime", C::Temporal, (0, 1), temporal(T::Now(K::DateTime)), "Returns the current ZONED DATETIME read from the real-time clock."),
    row("datetime.statement", C::Temporal, (0, 1), temporal(T::Now(K::DateTime)), "Returns the current ZONED DATETIME as of the start of the statement."),
    row("datetime.transaction", C::Temporal, (0, 1), temporal(T::Now(K::DateTime)), "Returns the current ZONED DATETIME as of the start of the transaction."),
    row("datetime.truncate", C::Temporal, (2, 3), temporal(T::Truncate(K::DateTime)), "Truncates a temporal value to a ZONED DATETIME at the given unit."),
    row("degrees", C::Trigonometric, (1, 1), scalar(S::Degrees), "Converts radians to degrees."),
    row("duration", C::Temporal, (1, 1), temporal(T::Duration), "Creates a DURATION from a map of components or an ISO 8601 string."),
    row("duration.between", C::Temporal, (2, 2), temporal(T::DurationBetween), "Returns the DURATION between two temporal values, in logical units."),
    row("duration.inDays", C::Temporal, (2, 2), temporal(T::DurationInDays), "Returns the DURATION between two temporal values, in whole days."),
    row("duration.inMonths", C::Temporal, (2, 2), temporal(T::DurationInMonths), "Returns the DURATION between two temporal values, in whole months."),
    row("duration.inSeconds", C::Temporal, (2, 2), temporal(T::DurationInSeconds), "Returns the DURATION between two temporal values, in seconds and nanoseconds."),
    row("e", C::Logarithmic, (0, 0), scalar(S::E), "Returns the base of the natural logarithm, e."),
    row("elementId", C::Scalar, (1, 1), scalar(S::ElementId), "Returns the element id of a node or relationship."),
    row("endNode", C::Scalar, (1, 1), scalar(S::EndNode), "Returns the end node of a relationship."),
    row("exists", C::Predicate, (1, 1), scalar(S::Exists), "Returns true if a match for the pattern exists in the graph."),
    row("exp", C::Logarithmic, (1, 1), scalar(S::Exp), "Returns e raised to the power of a number."),
    row("file", C::Scalar, (0, 0), load_csv(LoadCsvFunction::File), "Returns the absolute path of the file that LOAD CSV is using."),
    row("floor", C::Numeric, (1, 1), scalar(S::Floor), "Returns the largest integer less than or equal to a number."),
    row("haversin", C::Trigonometric, (1, 1), scalar(S::Haversin), "Returns half the versine of a number."),
    row("head", C::Scalar, (1, 1), scalar(S::Head), "Returns the first element of a list."),
    row("id", C::Scalar, (1, 1), scalar(S::Id), "Returns the id of a node or relationship."),
    row("isEmpty", C::Predicate, (1, 1), scalar(S::IsEmpty), "Checks whether a string, list or map is empty."),
    row("isNaN", C::Numeric, (1, 1), UNIMPLEMENTED, "Returns whether a number is NaN."),
    row("keys", C::List, (1, 1), scalar(S::Keys), "Returns the property keys of a node, relationship or map."),
    row("labels", C::List, (1, 1), scalar(S::Labels), "Returns the labels of a node."),
    row("last", C::Scalar, (1, 1), scalar(S::Last), "Returns the last element of a list."),
    row("left", C::String, (2, 2), scalar(S::Left), "Returns a string of the given length from the start of a string."),
    row("length", C::Scalar, (1, 1), scalar(S::Length), "Returns the length of a path."),
    row("linenumber", C::Scalar, (0, 0), load_csv(LoadCsvFunction::LineNumber), "Returns the line number that LOAD CSV is currently using."),
    row("localdatetime", C::Temporal, (0, 1), temporal(T::Construct(K::LocalDateTime)), "Creates a LOCAL DATETIME from a map, a string or another temporal value; with no argument, the current one."),
    row("localdatetime.realtime", C::Temporal, (0, 1), temporal(T::Now(K::LocalDateTime)), "Returns the current LOCAL DATETIME read from the real-time clock."),
    row("localdatetime.statement", C::Temporal, (0, 1), temporal(T::Now(K::LocalDateTime)), "Returns the current LOCAL DATETIME as of the start of the statement."),
    row("localdatetime.transaction", C::Temporal, (0, 1), temporal(T::Now(K::LocalDateTime)), "Returns the current LOCAL DATETIME as of the start of the transaction."),
    row("localdatetime.truncate", C::Temporal, (2, 3), temporal(T::Truncate(K::LocalDateTime)), "Truncates a temporal value to a LOCAL DATETIME at the given unit."),
    row("localtime", C::Temporal, (0, 1), temporal(T::Construct(K::LocalTime)), "Creates a LOCAL TIME from a map, a string or another temporal value; with no argument, the current one."),
    row("localtime.realtime", C::Temporal, (0, 1), temporal(T::Now(K::LocalTime)), "Returns the current LOCAL TIME read from the real-time clock."),
    row("localtime.statement", C::Temporal, (0, 1), temporal(T::Now(K::LocalTime)), "Returns the current LOCAL TIME as of the start of the statement."),
    row("localtime.transaction", C::Temporal, (0, 1), temporal(T::Now(K::LocalTime)), "Returns the current LOCAL TIME as of the start of the transaction."),
    row("localtime.truncate", C::Temporal, (2, 3), temporal(T::Truncate(K::LocalTime)), "Truncates a temporal value to a LOCAL TIME at the given unit."),
    row("log", C::Logarithmic, (1, 1), scalar(S::Log), "Returns the natural logarithm of a number."),
    row("log10", C::Logarithmic, (1, 1), scalar(S::Log10), "Returns the base 10 logarithm of a number."),
    row("lower", C::String, (1, 1), UNIMPLEMENTED, "Returns a string in lowercase."),
    row("ltrim", C::String, (1, 1), scalar(S::LTrim), "Returns a string with leading whitespace removed."),
    row("max", C::Aggregating, (1, 1), aggregate(A::Max), "Returns the maximum of a set of values."),
    row("min", C::Aggregating, (1, 1), aggregate(A::Min), "Returns the minimum of a set of values."),
    row("nodes", C::List, (1, 1), scalar(S::Nodes), "Returns the nodes of a path."),
    row("none", C::Predicate, (1, 1), SYNTAX, "Returns true if the predicate holds for no element of a list."),
    row("percentileCont", C::Aggregating, (2, 2), aggregate(A::PercentileCont), "Returns a percentile of a set of values, interpolated."),
    row("percentileDisc", C::Aggregating, (2, 2), aggregate(A::PercentileDisc), "Returns the nearest value to a percentile of a set of values."),
    row("pi", C::Trigonometric, (0, 0), scalar(S::Pi), "Returns the mathematical constant pi."),
    row("point", C::Spatial, (1, 1), spatial(P::Point), "Creates a 2D or 3D point, Cartesian or WGS-84, from a map of coordinates."),
    row("point.distance", C::Spatial, (2, 2), spatial(P::Distance), "Returns the distance between two points of one coordinate system: geodesic for WGS-84, Euclidean for Cartesian.").alias(&["distance"]),
    row("point.withinBBox", C::Spatial, (3, 3), spatial(P::WithinBBox), "Returns true if a point lies in the box spanned by a lower-left and an upper-right point."),
    row("properties", C::Scalar, (1, 1), scalar(S::Properties), "Returns the properties of a node, relationship or map as a map."),
    row("radians", C::Trigonometric, (1, 1), scalar(S::Radians), "Converts degrees to radians."),
    row("rand", C::Numeric, (0, 0), scalar(S::Rand), "Returns a random number in the range from 0 (inclusive) to 1 (exclusive)."),
    row("randomUUID", C::Scalar, (0, 0), UNIMPLEMENTED, "Generates a random UUID."),
    row("range", C::List, (2, 2), scalar(S::Range), "Returns the list of integers from a start to an end, inclusive."),
    row("range", C::List, (3, 3), scalar(S::Range), "Returns the list of integers from a start to an end, inclusive, in steps of the given size."),
    row("reduce", C::List, (1, 1), SYNTAX, "Folds a list into one value with an accumulator expression."),
    row("relationships", C::List, (1, 1), scalar(S::Relationships), "Returns the relationships of a path."),
    row("replace", C::String, (3, 3), scalar(S::Replace), "Replaces every occurrence of a search string."),
    row("reverse", C::String, (1, 1), scalar(S::Reverse), "Reverses a string or a list."),
    row("right", C::String, (2, 2), scalar(S::Right), "Returns a string of the given length from the end of a string."),
    row("round", C::Numeric, (1, 1), scalar(S::Round), "Rounds a number to the nearest integer."),
    row("round", C::Numeric, (2, 2), scalar(S::Round), "Rounds a number to the given precision, halves away from zero."),
    row("round", C::Numeric, (3, 3), scalar(S::Round), "Rounds a number to the given precision with the given rounding mode."),
    row("rtrim", C::String, (1, 1), scalar(S::RTrim), "Returns a string with trailing whitespace removed."),
    row("sign", C::Numeric, (1, 1), scalar(S::Sign), "Returns the signum of a number: 0, 1 or -1."),
    row("sin", C::Trigonometric, (1, 1), scalar(S::Sin), "Returns the sine of a number."),
    row("single", C::Predicate, (1, 1), SYNTAX, "Returns true if the predicate holds for exactly one element of a list."),
    row("size", C::Scalar, (1, 1), scalar(S::Size), "Returns the number of items in a list or characters in a string."),
    row("split", C::String, (2, 2), scalar(S::Split), "Splits a string at each occurrence of a delimiter."),
    row("sqrt", C::Logarithmic, (1, 1), scalar(S::Sqrt), "Returns the square root of a number."),
    row("startNode", C::Scalar, (1, 1), scalar(S::StartNode), "Returns the start node of a relationship."),
    row("stdev", C::Aggregating, (1, 1), aggregate(A::StDev), "Returns the standard deviation of a sample of values."),
    row("stdevp", C::Aggregating, (1, 1), aggregate(A::StDevP), "Returns the standard deviation of a population of values."),
    row("substring", C::String, (2, 2), scalar(S::Substring), "Returns the rest of a string from a 0-based offset."),
    row("substring", C::String, (3, 3), scalar(S::Substring), "Returns a substring of a string, from a 0-based offset and with a length."),
    row("sum", C::Aggregating, (1, 1), aggregate(A::Sum), "Returns the sum of a set of numbers."),
    row("tail", C::List, (1, 1), scalar(S::Tail), "Returns a list without its first element."),
    row("tan", C::Trigonometric, (1, 1), scalar(S::Tan), "Returns the tangent of a number."),
    row("time", C::Temporal, (0, 1), temporal(T::Construct(K::Time)), "Creates a ZONED TIME from a map, a string or another temporal value; with no argument, the current one."),
    row("time.realtime", C::Temporal, (0, 1), temporal(T::Now(K::Time)), "Returns the current ZONED TIME read from the real-time clock."),
    row("time.statement", C::Temporal, (0, 1), temporal(T::Now(K::Time)), "Returns the current ZONED TIME as of the start of the statement."),
    row("time.transaction", C::Temporal, (0, 1), temporal(T::Now(K::Time)), "Returns the current ZONED TIME as of the start of the transaction."),
    row("time.truncate", C::Temporal, (2, 3), temporal(T::Truncate(K::Time)), "Truncates a temporal value to a ZONED TIME at the given unit."),
    row("timestamp", C::Scalar, (0, 0), UNIMPLEMENTED, "Returns the milliseconds since midnight, January 1, 1970 UTC."),
    row("toBoolean", C::Scalar, (1, 1), scalar(S::ToBoolean), "Converts a string, integer or boolean to a boolean."),
    row("toBooleanOrNull", C::Scalar, (1, 1), UNIMPLEMENTED, "Converts a value to a boolean, or null when it cannot."),
    row("toFloat", C::Scalar, (1, 1), scalar(S::ToFloat), "Converts an integer, float or string to a float."),
    row("toFloatOrNull", C::Scalar, (1, 1), UNIMPLEMENTED, "Converts a value to a float, or null when it cannot."),
    row("toInteger", C::Scalar, (1, 1), scalar(S::ToInteger), "Converts a boolean, integer, float or string to an integer."),
    row("toIntegerOrNull", C::Scalar, (1, 1), UNIMPLEMENTED, "Converts a value to an integer, or null when it cannot."),
    row("toLower", C::String, (1, 1), scalar(S::ToLower), "Returns a string in lowercase."),
    row("toString", C::String, (1, 1), scalar(S::ToString), "Converts a value to a string."),
    row("toStringOrNull", C::String, (1, 1), UNIMPLEMENTED, "Converts a value to a string, or null when it cannot."),
    row("toUpper", C::String, (1, 1), scalar(S::ToUpper), "Returns a string in uppercase."),
    row("trim", C::String, (1, 1), scalar(S::Trim), "Returns a string with leading and trailing whitespace removed."),
    row("type", C::Scalar, (1, 1), scalar(S::Type), "Returns the type of a relationship."),
    row("upper", C::String, (1, 1), UNIMPLEMENTED, "Returns a string in uppercase."),
    row("valueType", C::Scalar, (1, 1), UNIMPLEMENTED, "Returns the name of the type of a value."),
    row("vector.similarity.cosine", C::Vector, (2, 2), vector(VectorFunction::Cosine), "Returns the cosine similarity of two vectors, mapped into [0, 1]: (1 + cos) / 2."),
    row("vector.similarity.euclidean", C::Vector, (2, 2), vector(VectorFunction::Euclidean), "Returns the Euclidean similarity of two vectors, mapped into (0, 1]: 1 / (1 + squared distance)."),
];
