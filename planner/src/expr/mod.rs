//! Expressions as plans carry them: variables resolved to slots, functions
//! to the enums of the function catalogue (`nereid-functions`), patterns
//! inside expressions to nested plans. One module of their own because
//! every stage reads them: lowering builds them, rules move them between
//! operators, EXPLAIN prints them and the executor evaluates them.

mod repeatable;
mod slots;

pub(crate) use repeatable::repeatable;
pub use slots::slots_of;

use crate::plan::Op;
use nereid_functions::ScalarFunction;
use nereid_values::{Direction, Value};

/// Index of a column in every row of a query.
pub type Slot = usize;

/// A resolved expression: variables are slots, functions are enums.
#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    Literal(Value),
    /// `$name`; a missing parameter is a `ParameterMissing` error.
    Param(String),
    Slot(Slot),
    /// `expr.key` on a node, relationship or map; null on null.
    Property {
        expr: Box<Expr>,
        key: String,
    },
    /// `expr:A:B` (all labels).
    HasLabels {
        expr: Box<Expr>,
        labels: Vec<String>,
    },
    /// `expr:%` (a label expression's wildcard): a node with at least one
    /// label, or any relationship.
    HasAnyLabel(Box<Expr>),
    /// A pattern's `:$(names)` (Cypher 5.26): `names` evaluates to a
    /// string or list of strings; a node must carry all of them (or one,
    /// with `any`), a relationship's type must be among them (and be the
    /// only one, unless `any`).
    HasDynamicNames {
        expr: Box<Expr>,
        names: Box<Expr>,
        any: bool,
    },
    List(Vec<Expr>),
    Map(Vec<(String, Expr)>),
    Not(Box<Expr>),
    Negate(Box<Expr>),
    Binary {
        op: BinaryOp,
        lhs: Box<Expr>,
        rhs: Box<Expr>,
    },
    IsNull {
        expr: Box<Expr>,
        negated: bool,
    },
    Function {
        func: ScalarFunction,
        args: Vec<Expr>,
    },
    /// Generic form when `operand` is None (`CASE WHEN p THEN v ...`), simple
    /// form otherwise (`CASE x WHEN v1 THEN ...`).
    Case {
        operand: Option<Box<Expr>>,
        whens: Vec<(Expr, Expr)>,
        otherwise: Option<Box<Expr>>,
    },
    /// `list[index]` or `map[key]`.
    Index {
        expr: Box<Expr>,
        index: Box<Expr>,
    },
    /// `list[from..to]`
    Slice {
        expr: Box<Expr>,
        from: Option<Box<Expr>>,
        to: Option<Box<Expr>>,
    },
    /// A path from alternating node and relationship expressions
    /// (`n0, r0, n1, r1, n2`). A relationship position may also hold a list
    /// of relationships (a variable-length segment, possibly empty) that
    /// leads from the node before it to the node after it.
    Path(Vec<Expr>),
    /// A pattern expression `(a)-[:T]->()` or pattern comprehension
    /// `[(a)-->(b) WHERE p | b.name]`: `plan` runs once per row, starting
    /// from an `Argument` leaf that emits that row (the nested plan shares the
    /// query's slots, so it reads outer variables in place); `projection` is
    /// evaluated on each of its rows and the value is the list of
    /// projections — or, with `exists` (a pattern used as a predicate),
    /// whether there is any row at all. `reads` lists the outer slots the
    /// nested plan and the projection may read (for rules that move
    /// expressions); the plan's `Argument` row carries only those.
    PatternList {
        plan: Box<Op>,
        projection: Box<Expr>,
        exists: bool,
        reads: Vec<Slot>,
    },
    /// How many relationships a one-hop pattern from `node` has, by
    /// direction and types (empty: any), with nothing asked of the far end
    /// or the relationship: `COUNT { (n)-[:T]->() }` and the size of such
    /// a pattern comprehension (`lower/degree.rs`), read from the
    /// adjacency without building a row per relationship. A null `node`
    /// counts 0 (the pattern it replaces has no match); a non-node is the
    /// expand's type error.
    Degree {
        node: Box<Expr>,
        dir: Direction,
        types: Vec<String>,
    },
    /// `[x IN list WHERE predicate | projection]`; `var` is the slot the
    /// element is bound to while evaluating `predicate` and `projection`.
    ListComprehension {
        var: Slot,
        list: Box<Expr>,
        predicate: Option<Box<Expr>>,
        projection: Option<Box<Expr>>,
    },
    /// `all/any/none/single(x IN list WHERE predicate)`, with null per
    /// three-valued logic.
    Quantifier {
        kind: Quantifier,
        var: Slot,
        list: Box<Expr>,
        predicate: Box<Expr>,
    },
    /// `reduce(acc = init, x IN list | step)`.
    Reduce {
        acc: Slot,
        init: Box<Expr>,
        var: Slot,
        list: Box<Expr>,
        step: Box<Expr>,
    },
    /// `base {.*, .key, k: expr}`: a map from the properties of `base` (all
    /// of them when `all_properties`) overlaid with `items` in order; null
    /// when `base` is null.
    MapProjection {
        base: Box<Expr>,
        all_properties: bool,
        items: Vec<(String, Expr)>,
    },
    /// `expr`, whose value depends only on the slots in `reads` (rule
    /// `reuse_invariant`): evaluated once for each run of consecutive rows
    /// in which those slots hold the same values, so a property of a node
    /// bound before an expand is read once per node, not once per
    /// relationship. The rows get exactly the values (and the error) the
    /// bare `expr` would give: it is repeatable, so equal inputs give
    /// equal outputs. EXPLAIN prints the bare `expr`.
    Reused {
        expr: Box<Expr>,
        reads: Vec<Slot>,
    },
}

/// The list predicates.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Quantifier {
    All,
    Any,
    None,
    Single,
}

impl Expr {
    /// `(lhs, rhs)` when this is `lhs = rhs`: the shape the rules that
    /// seek, join or estimate by equality look for.
    pub(crate) fn as_equality(&self) -> Option<(&Expr, &Expr)> {
        match self {
            Expr::Binary {
                op: BinaryOp::Equal,
                lhs,
                rhs,
            } => Some((lhs, rhs)),
            _ => None,
        }
    }
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum BinaryOp {
    And,
    Or,
    Xor,
    Add,
    Subtract,
    Multiply,
    Divide,
    Modulo,
    Power,
    Equal,
    NotEqual,
    Less,
    LessEqual,
    Greater,
    GreaterEqual,
    In,
    StartsWith,
    EndsWith,
    Contains,
    RegexMatch,
}
