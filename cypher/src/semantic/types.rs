//! Static argument types: operands whose type is fixed before running (literals, variables
//! bound to them, operators with a fixed result type, pattern variables) are checked against
//! what the operator or function accepts, so `RETURN NOT 0` fails at compile time with
//! `InvalidArgumentType` as openCypher demands, instead of as a runtime type error.
//!
//! Invariant: only a *certain* mismatch is an error. Anything whose type depends on data or
//! parameters infers as [`VarType::Value`], which is accepted everywhere; `null` is too,
//! because every operator here accepts it.

use super::scope::{Scope, VarType};
use super::Analyzer;
use crate::ast::{BinaryOp, Expr, ExprKind, Literal, Span, SubqueryKind, UnaryOp};
use crate::error::{CypherError, Detail};

/// The type `expr` is known to have in `scope` (shallow: looks at the expression's own kind
/// and, for variables, at the scope; never recurses deeply, so chains cost no stack).
pub(crate) fn infer(expr: &Expr, scope: &Scope) -> VarType {
    match &expr.kind {
        ExprKind::Binary(BinaryOp::Add, left, right) => {
            sum_type(infer_leaf(left, scope), infer_leaf(right, scope))
        }
        _ => infer_leaf(expr, scope),
    }
}

/// The type of `left + right` when both operand types are known: a string
/// beside a number or string concatenates, numbers add. Lists and anything
/// unknown stay unknown.
fn sum_type(left: VarType, right: VarType) -> VarType {
    use VarType::*;
    match (left, right) {
        (String, String | Integer | Float) | (Integer | Float, String) => String,
        (Integer, Integer) => Integer,
        (Float, Float | Integer) | (Integer, Float) => Float,
        _ => Value,
    }
}

/// [`infer`] without looking into a sum's operands (so a long chain of `+`
/// costs no stack).
fn infer_leaf(expr: &Expr, scope: &Scope) -> VarType {
    match &expr.kind {
        ExprKind::Literal(literal) => match literal {
            Literal::Null => VarType::Value,
            Literal::Bool(_) => VarType::Boolean,
            Literal::Integer(_) => VarType::Integer,
            Literal::Float(_) => VarType::Float,
            Literal::String(_) => VarType::String,
        },
        ExprKind::Variable(name) => scope.get(name).unwrap_or(VarType::Value),
        ExprKind::List(_) | ExprKind::ListComprehension { .. } => VarType::List,
        ExprKind::PatternComprehension { .. } => VarType::List,
        ExprKind::Subquery(SubqueryKind::Exists, _) => VarType::Boolean,
        ExprKind::Subquery(SubqueryKind::Count, _) => VarType::Integer,
        ExprKind::Map(_) | ExprKind::MapProjection { .. } => VarType::Map,
        ExprKind::Unary(UnaryOp::Not, _)
        | ExprKind::IsNull(_)
        | ExprKind::IsNotNull(_)
        | ExprKind::HasLabels(..)
        | ExprKind::HasLabelExpr(..)
        | ExprKind::Quantifier { .. } => VarType::Boolean,
        ExprKind::Binary(op, ..) if is_predicate(*op) => VarType::Boolean,
        _ => VarType::Value,
    }
}

/// The type every element of `list` is known to have: the common type of a list literal's
/// items (`['a', 'b']` holds strings), or a relationship for a variable-length
/// relationship variable. A comprehension or quantifier variable ranging over it has that
/// type, so `none(x IN ['a'] WHERE x % 2 = 0)` is rejected before running. An empty list, a
/// `null` item or mixed items give [`VarType::Value`].
pub(crate) fn element_type(list: &Expr, scope: &Scope) -> VarType {
    match &list.kind {
        ExprKind::List(items) => {
            let mut types = items.iter().map(|item| infer(item, scope));
            match types.next() {
                Some(first) if types.all(|ty| ty == first) => first,
                _ => VarType::Value,
            }
        }
        ExprKind::Variable(name) if scope.get(name) == Some(VarType::RelationshipList) => {
            VarType::Relationship
        }
        _ => VarType::Value,
    }
}

/// Operators whose result is always a boolean (or null).
fn is_predicate(op: BinaryOp) -> bool {
    use BinaryOp::*;
    matches!(
        op,
        Or | Xor
            | And
            | Eq
            | Ne
            | Lt
            | Le
            | Gt
            | Ge
            | In
            | StartsWith
            | EndsWith
            | Contains
            | RegexMatch
    )
}

/// Types that can never be a boolean.
fn not_boolean(ty: VarType) -> bool {
    !matches!(ty, VarType::Boolean | VarType::Value)
}

/// Types that can never be a list.
fn not_list(ty: VarType) -> bool {
    !matches!(
        ty,
        VarType::List | VarType::RelationshipList | VarType::Value
    )
}

/// Types that are certainly not numbers (nor temporal values or durations, which `-`, `*`
/// and `/` also take, and which infer as [`VarType::Value`]).
fn not_arithmetic(ty: VarType) -> bool {
    !matches!(ty, VarType::Integer | VarType::Float | VarType::Value)
}

/// Scalars and lists: values without properties.
fn has_no_properties(ty: VarType) -> bool {
    matches!(
        ty,
        VarType::Boolean | VarType::Integer | VarType::Float | VarType::String | VarType::List
    )
}

impl Analyzer<'_> {
    /// Checks the operands of `expr` itself (not of its children) against the types its
    /// operator or function accepts. Indexing (`x[i]`) is deliberately not checked: a
    /// non-list base is a `TypeError` in openCypher, which the executor raises, while a
    /// compile-time error here would be a `SyntaxError`.
    pub(crate) fn check_argument_types(
        &self,
        expr: &Expr,
        scope: &Scope,
    ) -> Result<(), CypherError> {
        match &expr.kind {
            ExprKind::Unary(UnaryOp::Not, operand) => {
                self.expect_type(operand, scope, "Boolean", not_boolean)
            }
            ExprKind::Binary(BinaryOp::And | BinaryOp::Or | BinaryOp::Xor, left, right) => {
                self.expect_type(left, scope, "Boolean", not_boolean)?;
                self.expect_type(right, scope, "Boolean", not_boolean)
            }
            // Neo4j names what the left operand could be, then what the
            // right one could be beside it (temporal values and durations
            // infer as unknown, so only numbers are certain here).
            ExprKind::Binary(op @ (BinaryOp::Sub | BinaryOp::Mul | BinaryOp::Div), left, right) => {
                let (left_types, right_types) = match op {
                    BinaryOp::Sub => (
                        "Float, Integer, Duration, Date, Time, LocalTime, LocalDateTime or DateTime",
                        "Float or Integer",
                    ),
                    BinaryOp::Mul => ("Float, Integer or Duration", "Float, Integer or Duration"),
                    _ => ("Float, Integer or Duration", "Float or Integer"),
                };
                self.expect_type(left, scope, left_types, not_arithmetic)?;
                self.expect_type(right, scope, right_types, not_arithmetic)
            }
            ExprKind::Binary(BinaryOp::Mod, left, right) => {
                self.expect_type(left, scope, "Float or Integer", not_arithmetic)?;
                self.expect_type(right, scope, "Float or Integer", not_arithmetic)
            }
            ExprKind::Binary(BinaryOp::Pow, left, right) => {
                self.expect_type(left, scope, "Float", not_arithmetic)?;
                self.expect_type(right, scope, "Float", not_arithmetic)
            }
            ExprKind::Unary(UnaryOp::Negate, operand) => {
                self.expect_type(operand, scope, "Float or Integer", not_arithmetic)
            }
            ExprKind::HasLabels(target, _) | ExprKind::HasLabelExpr(target, _) => {
                self.expect_type(target, scope, "Node or Relationship", |ty| {
                    !matches!(
                        ty,
                        VarType::Node | VarType::Relationship | VarType::Value
                    )
                })
            }
            ExprKind::Binary(BinaryOp::In, _, list) => {
                self.expect_type(list, scope, "List<T>", not_list)
            }
            ExprKind::Property(target, _) => self.expect_type(
                target,
                scope,
                "Map, Node, Relationship, Point, Duration, Date, Time, LocalTime, LocalDateTime or DateTime",
                |ty| has_no_properties(ty) || ty == VarType::Path,
            ),
            ExprKind::FunctionCall { name, args, .. } if args.len() == 1 => {
                self.check_function_argument(name, &args[0], scope)
            }
            _ => Ok(()),
        }
    }

    /// Functions of one entity argument that a statically known non-entity cannot satisfy.
    fn check_function_argument(
        &self,
        name: &str,
        arg: &Expr,
        scope: &Scope,
    ) -> Result<(), CypherError> {
        let name = name.to_ascii_lowercase();
        match name.as_str() {
            "length" => self.expect_type(arg, scope, "Path", |ty| {
                matches!(ty, VarType::Node | VarType::Relationship)
            }),
            "type" => self.expect_type(arg, scope, "Relationship", |ty| {
                matches!(ty, VarType::Node | VarType::Path)
            }),
            "labels" => self.expect_type(arg, scope, "Node", |ty| ty == VarType::Path),
            "size" => self.expect_type(arg, scope, "String or List", |ty| {
                !matches!(
                    ty,
                    VarType::String | VarType::List | VarType::RelationshipList | VarType::Value
                )
            }),
            "properties" => self.expect_type(arg, scope, "Map, Node or Relationship", |ty| {
                has_no_properties(ty) || ty == VarType::Path
            }),
            "toupper" | "tolower" | "upper" | "lower" | "trim" | "ltrim" | "rtrim" => self
                .expect_type(arg, scope, "String", |ty| {
                    !matches!(ty, VarType::String | VarType::Value)
                }),
            "reverse" => self.expect_type(arg, scope, "String or List<T>", |ty| {
                !matches!(
                    ty,
                    VarType::String | VarType::List | VarType::RelationshipList | VarType::Value
                )
            }),
            _ => Ok(()),
        }
    }

    /// A WHERE predicate must be able to be a boolean. Lists are left alone: a pattern
    /// predicate is one.
    pub(crate) fn check_predicate_type(
        &self,
        predicate: &Expr,
        scope: &Scope,
    ) -> Result<(), CypherError> {
        self.expect_type(predicate, scope, "Boolean", |ty| {
            not_boolean(ty) && ty != VarType::List
        })
    }

    fn expect_type(
        &self,
        operand: &Expr,
        scope: &Scope,
        expected: &str,
        rejects: impl Fn(VarType) -> bool,
    ) -> Result<(), CypherError> {
        let actual = infer(operand, scope);
        if rejects(actual) {
            return Err(self.error(
                Detail::InvalidArgumentType,
                &format!(
                    "Type mismatch: expected {expected} but was {}",
                    actual.describe()
                ),
                self.position_of(operand),
            ));
        }
        Ok(())
    }

    /// Where Neo4j places an operand in its messages: a binary operation
    /// at its operator (`1 + 'a'` at the `+`), anything else at its start.
    fn position_of(&self, operand: &Expr) -> Span {
        let ExprKind::Binary(_, left, _) = &operand.kind else {
            return operand.span;
        };
        let after = self.text(Span {
            start: left.span.end,
            end: operand.span.end,
        });
        let gap = after.len() - after.trim_start().len();
        let at = left.span.end + gap;
        Span {
            start: at,
            end: at + 1,
        }
    }
}
