//! The typed abstract syntax tree produced by [`crate::parse`].
//!
//! Invariants the planner may rely on:
//! - every [`Expr`] carries the byte [`Span`] of its source text, so later stages can point errors at
//!   the offending piece of the query;
//! - names (variables, labels, relationship types, property keys, function names) keep their
//!   original case; keywords do not appear in the tree at all;
//! - OneGraph prefixed names (`foaf::name`) and IRIs (`<http://...>`) are already resolved to the
//!   full IRI string wherever a label, relationship type or property key is allowed;
//! - chained comparisons (`1 < x < 3`) are desugared into `AND`s of binary comparisons.

use nereid_values::Direction;

/// A half-open byte range `[start, end)` into the original query string.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct Span {
    /// Byte offset of the first character.
    pub start: usize,
    /// Byte offset one past the last character.
    pub end: usize,
}

impl Span {
    /// A span covering `start..end`.
    pub fn new(start: usize, end: usize) -> Self {
        Span { start, end }
    }

    /// The smallest span covering both `self` and `other`.
    pub fn to(self, other: Span) -> Span {
        Span {
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }
}

/// A user-written name (variable, alias) with the place it was written.
#[derive(Clone, Debug, PartialEq)]
pub struct Ident {
    /// The name exactly as written (backticks removed).
    pub name: String,
    pub span: Span,
}

/// What a [`NameUse`] names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum NameKind {
    Label,
    RelationshipType,
    PropertyKey,
}

/// A label, relationship type or property key where the text reads it.
#[derive(Clone, Debug, PartialEq)]
pub struct NameUse {
    pub kind: NameKind,
    /// Resolved (prefixed names expanded to IRIs).
    pub name: String,
    pub span: Span,
}

/// A whole statement: optional `EXPLAIN`/`PROFILE`, `PREFIX` declarations, then the query.
#[derive(Clone, Debug, PartialEq)]
pub struct Statement {
    /// `EXPLAIN` was written before the query.
    pub explain: bool,
    /// `PROFILE` was written before the query.
    pub profile: bool,
    /// The version of `CYPHER 5` / `CYPHER 25`, as written, with its span.
    pub cypher_version: Option<(String, Span)>,
    /// The `CYPHER name=value` pre-parser options, in order, as written.
    pub options: Vec<QueryOption>,
    /// OneGraph `PREFIX name: <iri>` declarations, in source order, as `(name, iri)`.
    /// They are already applied to the names in `query`; kept for tooling and EXPLAIN output.
    pub prefixes: Vec<(String, String)>,
    /// The names of the parameters the text reads (`$name`), each once, in
    /// order of first use: a missing one fails the query before it runs,
    /// as Neo4j reports it when the query is compiled.
    pub parameters: Vec<String>,
    /// The labels, relationship types and property keys the text reads
    /// (pattern labels and types, label predicates, property lookups, keys of
    /// pattern property maps), in text order: Neo4j warns of those the
    /// database has never seen.
    pub names: Vec<NameUse>,
    /// The parameters whose type Neo4j checks when it compiles the query
    /// (`Type mismatch for parameter`), before anything runs, in text order.
    pub checked_parameters: Vec<CheckedParameter>,
    pub query: Query,
    /// The original query text; spans index into it, and [`crate::analyze`] uses it to
    /// render line/column and the caret excerpt of semantic errors.
    pub source: String,
}

/// One `CYPHER name=value` pre-parser option (`runtime=slotted`). Names and
/// values are kept as written: the server decides which exist.
#[derive(Clone, Debug, PartialEq)]
pub struct QueryOption {
    pub name: String,
    pub value: String,
    /// From the name to the value.
    pub span: Span,
}

/// A query: one single query, or several joined by `UNION` / `UNION ALL`.
#[derive(Clone, Debug, PartialEq)]
pub enum Query {
    Single(SingleQuery),
    /// `q1 UNION q2 UNION ...` (`all == false`, duplicates removed) or `UNION ALL` (`all == true`).
    /// Mixing `UNION` and `UNION ALL` in one query is a syntax error, so one flag suffices.
    /// Invariant: `queries.len() >= 2`.
    Union {
        all: bool,
        queries: Vec<SingleQuery>,
    },
}

/// A sequence of clauses, e.g. `MATCH ... WITH ... RETURN ...`.
#[derive(Clone, Debug, PartialEq)]
pub struct SingleQuery {
    pub clauses: Vec<Clause>,
    pub span: Span,
}

impl SingleQuery {
    /// Whether the query opens with an importing `WITH` (plain variables,
    /// each under its own name, nothing else): how a `CALL { ... }` body
    /// reads the outer variables.
    pub fn opens_with_import(&self) -> bool {
        let Some(Clause::With(with)) = self.clauses.first() else {
            return false;
        };
        let p = &with.projection;
        !p.distinct
            && p.order_by.is_empty()
            && p.skip.is_none()
            && p.limit.is_none()
            && with.where_.is_none()
            && p.items.iter().all(|item| match &item.expr.kind {
                ExprKind::Variable(name) => item.alias.as_ref().is_none_or(|a| &a.name == name),
                _ => false,
            })
    }
}

/// One clause of a single query.
#[derive(Clone, Debug, PartialEq)]
pub enum Clause {
    Match(Match),
    Unwind(Unwind),
    With(With),
    Return(Projection),
    Create(Create),
    Merge(Merge),
    Set(SetClause),
    Remove(Remove),
    Delete(Delete),
    Call(Call),
    /// `CALL { query }`.
    CallSubquery(CallSubquery),
    /// `FOREACH (x IN list | updates)`.
    Foreach(Foreach),
    /// `LOAD CSV [WITH HEADERS] FROM url AS row [FIELDTERMINATOR 'c']`.
    LoadCsv(LoadCsv),
}

/// `LOAD CSV [WITH HEADERS] FROM source AS alias [FIELDTERMINATOR 'c']`:
/// one row per record of the file `source` names, bound to `alias` as a
/// list of strings, or with headers as a map from the header's names.
#[derive(Clone, Debug, PartialEq)]
pub struct LoadCsv {
    pub with_headers: bool,
    pub source: Expr,
    pub alias: Ident,
    /// The field separator (one character; `,` when absent).
    pub field_terminator: Option<String>,
    pub span: Span,
}

/// `FOREACH (variable IN list | clause+)`: the update clauses run once per
/// element with the element bound to the variable; nothing they bind is
/// visible after the clause, and the row passes through unchanged. The
/// variable and list are kept as the UNWIND they behave like.
#[derive(Clone, Debug, PartialEq)]
pub struct Foreach {
    pub unwind: Unwind,
    pub clauses: Vec<Clause>,
    pub span: Span,
}

/// `CALL [(scope)] { query }`: the query runs once per incoming row. Outer
/// variables are visible through the scope clause (Neo4j 5's `CALL (a, b)`
/// or `CALL (*)`) or, without one, only through an importing `WITH a, b`
/// opening the body; a body ending in RETURN adds its columns to each row
/// (none: the row is dropped), one without RETURN (a unit subquery) only
/// writes and keeps the row as it is.
#[derive(Clone, Debug, PartialEq)]
pub struct CallSubquery {
    pub query: Box<Query>,
    /// The variable scope clause; `None` for the older importing-WITH form.
    pub scope: Option<ImportScope>,
    /// `IN TRANSACTIONS ...`: the body runs in transactions of its own,
    /// committed batch by batch.
    pub in_transactions: Option<InTransactions>,
    pub span: Span,
}

/// `IN [n CONCURRENT] TRANSACTIONS [OF n ROWS] [ON ERROR CONTINUE | BREAK |
/// FAIL] [REPORT STATUS AS s]` after a `CALL { }`.
#[derive(Clone, Debug, PartialEq)]
pub struct InTransactions {
    /// `n CONCURRENT`: how many batches may run at once (accepted; batches
    /// run one after another).
    pub concurrency: Option<Expr>,
    /// `OF n ROWS`: input rows per inner transaction (1000 when absent).
    pub batch_size: Option<Expr>,
    pub on_error: OnError,
    /// `REPORT STATUS AS s`: binds each row's transaction outcome.
    pub report_status: Option<Ident>,
    pub span: Span,
}

/// What `CALL { } IN TRANSACTIONS` does when an inner transaction fails.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OnError {
    /// The query fails (batches committed before stay committed).
    Fail,
    /// The batch is rolled back, its rows pass with nulls, later batches run.
    Continue,
    /// The batch is rolled back and no later batch runs; every remaining
    /// row passes with nulls.
    Break,
}

/// What a `CALL (...) { }` scope clause imports into the body.
#[derive(Clone, Debug, PartialEq)]
pub enum ImportScope {
    /// `CALL (*)`: every outer variable.
    All,
    /// `CALL (a, b)`: exactly these (none for `CALL ()`).
    Variables(Vec<Ident>),
}

impl Clause {
    /// Source span of the whole clause.
    pub fn span(&self) -> Span {
        match self {
            Clause::Match(c) => c.span,
            Clause::Unwind(c) => c.span,
            Clause::With(c) => c.span,
            Clause::Return(c) => c.span,
            Clause::Create(c) => c.span,
            Clause::Merge(c) => c.span,
            Clause::Set(c) => c.span,
            Clause::Remove(c) => c.span,
            Clause::Delete(c) => c.span,
            Clause::Call(c) => c.span,
            Clause::CallSubquery(c) => c.span,
            Clause::Foreach(c) => c.span,
            Clause::LoadCsv(c) => c.span,
        }
    }
}

/// `[OPTIONAL] MATCH pattern [USING hint]* [WHERE predicate]`.
#[derive(Clone, Debug, PartialEq)]
pub struct Match {
    pub optional: bool,
    /// Comma-separated pattern parts; never empty.
    pub pattern: Vec<PatternPart>,
    /// Planner hints, in the order written.
    pub hints: Vec<Hint>,
    pub where_: Option<Expr>,
    pub span: Span,
}

/// A planner hint (Neo4j's `USING`): which index, or that no index, to
/// start from for a variable of the MATCH.
#[derive(Clone, Debug, PartialEq)]
pub enum Hint {
    /// `USING [RANGE | TEXT] INDEX [SEEK] v:Label(key, ...)`: read `v`
    /// through the index on `label` over exactly `keys`.
    Index {
        variable: Ident,
        label: String,
        keys: Vec<String>,
        /// `TEXT` (a text index) rather than a range index.
        text: bool,
        span: Span,
    },
    /// `USING SCAN v:Label`: read `v` by its label, through no index.
    Scan {
        variable: Ident,
        label: String,
        span: Span,
    },
}

/// `UNWIND expr AS alias`.
#[derive(Clone, Debug, PartialEq)]
pub struct Unwind {
    pub expr: Expr,
    pub alias: Ident,
    pub span: Span,
}

/// `WITH projection [WHERE predicate]`. The `WHERE` filters after projection (and after
/// ORDER BY/SKIP/LIMIT), and sees only the projected names.
#[derive(Clone, Debug, PartialEq)]
pub struct With {
    pub projection: Projection,
    pub where_: Option<Expr>,
    pub span: Span,
}

/// The body shared by `WITH` and `RETURN`.
#[derive(Clone, Debug, PartialEq)]
pub struct Projection {
    pub distinct: bool,
    /// `*` was written: all variables in scope are projected (before `items`).
    pub star: bool,
    /// Explicit items; may be empty only when `star` is true.
    pub items: Vec<ReturnItem>,
    /// `ORDER BY` items, empty when absent.
    pub order_by: Vec<SortItem>,
    pub skip: Option<Expr>,
    pub limit: Option<Expr>,
    /// Span of the whole clause (including the `WITH`/`RETURN` keyword).
    pub span: Span,
}

/// One projected expression: `expr [AS alias]`.
#[derive(Clone, Debug, PartialEq)]
pub struct ReturnItem {
    pub expr: Expr,
    pub alias: Option<Ident>,
    /// The exact source text of `expr` (trimmed); the column name when there is no alias.
    pub text: String,
}

impl ReturnItem {
    /// The column name this item produces: the alias if any, otherwise the source text.
    pub fn column_name(&self) -> &str {
        match &self.alias {
            Some(alias) => &alias.name,
            None => &self.text,
        }
    }
}

/// One `ORDER BY` item.
#[derive(Clone, Debug, PartialEq)]
pub struct SortItem {
    pub expr: Expr,
    /// `true` for `ASC`/`ASCENDING` or no keyword, `false` for `DESC`/`DESCENDING`.
    pub ascending: bool,
}

/// `CREATE pattern`.
#[derive(Clone, Debug, PartialEq)]
pub struct Create {
    pub pattern: Vec<PatternPart>,
    pub span: Span,
}

/// `MERGE pattern [ON CREATE SET ...] [ON MATCH SET ...]`. Several `ON CREATE`/`ON MATCH`
/// actions are concatenated in source order into the respective list.
#[derive(Clone, Debug, PartialEq)]
pub struct Merge {
    pub pattern: PatternPart,
    pub on_create: Vec<SetItem>,
    pub on_match: Vec<SetItem>,
    pub span: Span,
}

/// `SET item, item, ...`.
#[derive(Clone, Debug, PartialEq)]
pub struct SetClause {
    pub items: Vec<SetItem>,
    pub span: Span,
}

/// One `SET` item.
#[derive(Clone, Debug, PartialEq)]
pub enum SetItem {
    /// `target.key = value`; `target` is the expression before the last `.key`
    /// (usually a variable).
    Property {
        target: Expr,
        key: String,
        value: Expr,
        span: Span,
    },
    /// `n = map`: replace all properties of `n`.
    Replace {
        variable: Ident,
        value: Expr,
        span: Span,
    },
    /// `n += map`: add/overwrite the map's properties on `n`.
    MergeProperties {
        variable: Ident,
        value: Expr,
        span: Span,
    },
    /// `n:L:M`: add labels; `n:$(expr)` adds those `expr` names.
    Labels {
        variable: Ident,
        labels: Vec<String>,
        /// Dynamic labels (Cypher 5.26): each a string or list of strings.
        dynamic: Vec<Expr>,
        span: Span,
    },
}

/// `REMOVE item, item, ...`.
#[derive(Clone, Debug, PartialEq)]
pub struct Remove {
    pub items: Vec<RemoveItem>,
    pub span: Span,
}

/// One `REMOVE` item.
#[derive(Clone, Debug, PartialEq)]
pub enum RemoveItem {
    /// `target.key`.
    Property {
        target: Expr,
        key: String,
        span: Span,
    },
    /// `n:L:M`, `n:$(expr)`.
    Labels {
        variable: Ident,
        labels: Vec<String>,
        /// Dynamic labels (Cypher 5.26): each a string or list of strings.
        dynamic: Vec<Expr>,
        span: Span,
    },
}

/// `[DETACH] DELETE expr, expr, ...`.
#[derive(Clone, Debug, PartialEq)]
pub struct Delete {
    pub detach: bool,
    pub exprs: Vec<Expr>,
    pub span: Span,
}

/// `CALL proc.name(args) [YIELD a [AS b], ... [WHERE pred]]`.
#[derive(Clone, Debug, PartialEq)]
pub struct Call {
    /// Dotted procedure name in original case, e.g. `db.labels`.
    pub procedure: String,
    /// Span of the procedure name.
    pub procedure_span: Span,
    /// `None` when written without parentheses (`CALL db.ping`): arguments come from
    /// parameters of the same names (standalone call) .
    pub args: Option<Vec<Expr>>,
    /// `None` when there is no `YIELD`; `Some(vec![])` never occurs (`YIELD *` sets `yield_star`).
    pub yields: Option<Vec<YieldItem>>,
    /// `YIELD *` was written.
    pub yield_star: bool,
    /// `WHERE` after `YIELD`.
    pub where_: Option<Expr>,
    /// Desugared from a `SHOW` command (`parser/show.rs`): its `YIELD *`
    /// may be followed by the ordering and `RETURN` that Neo4j allows
    /// there, and a `RETURN *` after it lists the yielded columns in
    /// yield order rather than by name, as Neo4j does.
    pub show: bool,
    pub span: Span,
}

/// `name [AS alias]` in a `YIELD`.
#[derive(Clone, Debug, PartialEq)]
pub struct YieldItem {
    /// The procedure's output column name.
    pub name: Ident,
    pub alias: Option<Ident>,
}

impl YieldItem {
    /// The variable this item binds: the alias if any, otherwise the column name.
    pub fn binding(&self) -> &Ident {
        self.alias.as_ref().unwrap_or(&self.name)
    }
}

/// Whether a pattern part asks for a shortest path.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub enum PathKind {
    /// A plain pattern.
    #[default]
    Normal,
    /// `shortestPath(...)`.
    Shortest,
    /// `allShortestPaths(...)`.
    AllShortest,
}

/// One comma-separated part of a pattern: `[p =] element`.
#[derive(Clone, Debug, PartialEq)]
pub struct PatternPart {
    /// Named path variable (`p = (a)-->(b)`).
    pub variable: Option<Ident>,
    pub kind: PathKind,
    pub element: PatternElement,
    pub span: Span,
}

/// A chain of nodes joined by relationships: `(a)-[r]->(b)<-[s]-(c)`.
#[derive(Clone, Debug, PartialEq)]
pub struct PatternElement {
    pub start: NodePattern,
    /// Each step: the relationship and the node to its right.
    pub chain: Vec<(RelPattern, NodePattern)>,
}

/// A parameter standing alone where Neo4j knows the type it must have
/// when it compiles the query.
#[derive(Clone, Debug, PartialEq)]
pub struct CheckedParameter {
    pub name: String,
    pub span: Span,
    pub role: ParameterRole,
}

/// What a [`CheckedParameter`] stands for.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ParameterRole {
    /// A whole `SKIP` or `LIMIT`: a number.
    RowCount,
    /// A whole dynamic label or type that CREATE, MERGE, SET or REMOVE
    /// writes (`:$($p)`): a string or a list (its items are checked when
    /// the clause runs, as Neo4j does).
    TokenNames,
}

/// `(var:Label:Other {props})`.
#[derive(Clone, Debug, PartialEq)]
pub struct NodePattern {
    pub variable: Option<Ident>,
    /// Labels, resolved (prefixed names expanded to IRIs).
    pub labels: Vec<String>,
    /// Labels named at run time (Cypher 5.26: `(n:$(expr))`), beside the
    /// static ones.
    pub dynamic_labels: Vec<DynamicNames>,
    /// The conjuncts of a GQL label expression (`(n:A|B)`, `(n:!A)`,
    /// `(n:%)`) that are neither a plain name nor a dynamic name: the node
    /// must satisfy each of them too. Only MATCH allows them.
    pub label_filters: Vec<LabelExpr>,
    /// A map literal or a parameter.
    pub properties: Option<Expr>,
    pub span: Span,
}

/// `:$(expr)`, `:$all(expr)` or `:$any(expr)` in a pattern (Cypher 5.26):
/// label or type names computed for each row, a string or a list of
/// strings. A node must carry all of them (`$(..)`, `$all(..)`) or one of
/// them (`$any(..)`); a relationship's one type must be among them.
#[derive(Clone, Debug, PartialEq)]
pub struct DynamicNames {
    pub expr: Expr,
    pub any: bool,
}

/// A GQL label expression (Cypher 5): names combined with `|` (or), `&`
/// (and), `!` (not), `%` (any label; for a relationship, any type) and
/// parentheses. For a relationship a name tests its one type, so `A&B`
/// matches nothing and `!A` every other type.
#[derive(Clone, Debug, PartialEq)]
pub enum LabelExpr {
    Name(String),
    Dynamic(DynamicNames),
    Wildcard,
    Not(Box<LabelExpr>),
    And(Vec<LabelExpr>),
    Or(Vec<LabelExpr>),
}

impl LabelExpr {
    /// The dynamic names inside, in text order (their expressions are
    /// checked like any other expression of the pattern).
    pub fn dynamic_names(&self) -> Vec<&DynamicNames> {
        let mut found = Vec::new();
        let mut stack = vec![self];
        while let Some(expr) = stack.pop() {
            match expr {
                LabelExpr::Dynamic(names) => found.push(names),
                LabelExpr::Not(inner) => stack.push(inner),
                LabelExpr::And(items) | LabelExpr::Or(items) => stack.extend(items.iter().rev()),
                LabelExpr::Name(_) | LabelExpr::Wildcard => {}
            }
        }
        found
    }
}

/// `-[var:T|U *min..max {props}]->`.
#[derive(Clone, Debug, PartialEq)]
pub struct RelPattern {
    pub variable: Option<Ident>,
    /// Alternative types (`:A|B`), resolved; empty means any type (unless
    /// `dynamic_type` names them).
    pub types: Vec<String>,
    /// The type named at run time (`-[:$(expr)]->`, Cypher 5.26); never
    /// together with static `types`.
    pub dynamic_type: Option<DynamicNames>,
    /// A GQL type expression that is not a plain alternative of names or
    /// one dynamic name (`-[:!A]->`, `-[:A|$(x)]->`, `-[:%]->`): the
    /// relationship's type must satisfy it; `types` and `dynamic_type` are
    /// then empty. Only MATCH allows it.
    pub type_filter: Option<LabelExpr>,
    /// Seen from the node on the left.
    pub direction: Direction,
    /// Variable length. `None`: exactly one hop. `Some((min, max))` for `*...`:
    /// `*` = `(None, None)`, `*2` = `(Some(2), Some(2))`, `*1..3` = `(Some(1), Some(3))`,
    /// `*1..` = `(Some(1), None)`, `*..3` = `(None, Some(3))`. A missing min means 1,
    /// a missing max means unbounded.
    pub length: Option<(Option<u64>, Option<u64>)>,
    /// A map literal or a parameter.
    pub properties: Option<Expr>,
    pub span: Span,
}

/// An expression with its source span.
#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Span,
}

impl Expr {
    /// Builds an expression node.
    pub fn new(kind: ExprKind, span: Span) -> Self {
        Expr { kind, span }
    }
}

/// A literal value.
#[derive(Clone, Debug, PartialEq)]
pub enum Literal {
    Null,
    Bool(bool),
    Integer(i64),
    Float(f64),
    /// Escapes already decoded.
    String(String),
}

/// Prefix operators.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum UnaryOp {
    /// `NOT e`
    Not,
    /// `-e`
    Negate,
    /// `+e`
    Plus,
}

/// Infix operators.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum BinaryOp {
    Or,
    Xor,
    And,
    /// `=`
    Eq,
    /// `<>`
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    Add,
    Sub,
    Mul,
    Div,
    Mod,
    /// `^`
    Pow,
    /// `x IN list`
    In,
    StartsWith,
    EndsWith,
    Contains,
    /// `=~`
    RegexMatch,
}

/// `all`, `any`, `none`, `single` list predicates.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum QuantifierKind {
    All,
    Any,
    None,
    Single,
}

/// One entry of a map projection `n { .name, key: expr, var, .* }`.
#[derive(Clone, Debug, PartialEq)]
pub enum MapProjectionItem {
    /// `.key`: the property of the projected entity/map.
    Property(String),
    /// `key: expr`.
    Literal(String, Expr),
    /// `var`: a variable, under its own name.
    Variable(Ident),
    /// `.*`: all properties.
    AllProperties,
}

/// `reduce(accumulator = init, variable IN list | step)`.
#[derive(Clone, Debug, PartialEq)]
pub struct Reduce {
    pub accumulator: Ident,
    pub init: Expr,
    pub variable: Ident,
    pub list: Expr,
    pub step: Expr,
}

/// The kinds of expression.
#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    Literal(Literal),
    /// `$name` or `$0` (the name without `$`).
    Parameter(String),
    Variable(String),
    /// `expr.key` (key resolved).
    Property(Box<Expr>, String),
    /// `[a, b, c]`
    List(Vec<Expr>),
    /// `{k: v, ...}` (keys resolved, in source order).
    Map(Vec<(String, Expr)>),
    Unary(UnaryOp, Box<Expr>),
    Binary(BinaryOp, Box<Expr>, Box<Expr>),
    /// `e IS NULL`
    IsNull(Box<Expr>),
    /// `e IS NOT NULL`
    IsNotNull(Box<Expr>),
    /// `n:Person:Actor` used as a predicate (labels resolved).
    HasLabels(Box<Expr>, Vec<String>),
    /// `n:A|B`, `n:!A`, `r:%` ... used as a predicate: a label expression
    /// other than a plain conjunction of names (no dynamic names here).
    HasLabelExpr(Box<Expr>, Box<LabelExpr>),
    /// `name(args)`; `name` dotted and in original case (`apoc.coll.sum`).
    FunctionCall {
        name: String,
        distinct: bool,
        args: Vec<Expr>,
    },
    /// `count(*)`
    CountStar,
    /// `CASE [operand] WHEN a THEN b ... [ELSE c] END`.
    Case {
        operand: Option<Box<Expr>>,
        whens: Vec<(Expr, Expr)>,
        else_: Option<Box<Expr>>,
    },
    /// `list[index]` / `map[key]`.
    Index(Box<Expr>, Box<Expr>),
    /// `list[from..to]`, either bound may be missing.
    Slice(Box<Expr>, Option<Box<Expr>>, Option<Box<Expr>>),
    /// `[variable IN list WHERE predicate | projection]`.
    ListComprehension {
        variable: Ident,
        list: Box<Expr>,
        predicate: Option<Box<Expr>>,
        projection: Option<Box<Expr>>,
    },
    /// `all(variable IN list WHERE predicate)` and friends.
    Quantifier {
        kind: QuantifierKind,
        variable: Ident,
        list: Box<Expr>,
        predicate: Box<Expr>,
    },
    /// `reduce(accumulator = init, variable IN list | step)` (boxed: keeps
    /// `ExprKind` small, which bounds the parser's stack use per nesting level).
    Reduce(Box<Reduce>),
    /// A relationship pattern used as a predicate: `WHERE (a)-[:KNOWS]->()`.
    /// Invariant: the chain has at least one relationship.
    PatternExpression(Box<PatternElement>),
    /// `[p = (a)-->(b) WHERE pred | projection]`.
    PatternComprehension {
        variable: Option<Ident>,
        pattern: Box<PatternElement>,
        predicate: Option<Box<Expr>>,
        projection: Box<Expr>,
    },
    /// `n { .name, .age, key: expr }`.
    MapProjection {
        variable: Ident,
        items: Vec<MapProjectionItem>,
    },
    /// `EXISTS { ... }` / `COUNT { ... }`: a read-only query run per row,
    /// seeing the outer variables. The simple form `EXISTS { (a)-->(b)
    /// WHERE p }` is parsed as the query `MATCH (a)-->(b) WHERE p`; the
    /// body need not end in RETURN. Boxed to keep `ExprKind` small.
    Subquery(SubqueryKind, Box<Query>),
}

/// Which value a subquery expression takes from its body's rows.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum SubqueryKind {
    /// Whether there is at least one row.
    Exists,
    /// How many rows there are.
    Count,
}
