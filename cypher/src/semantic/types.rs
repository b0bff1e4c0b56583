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
use crate::ast::{BinaryOp, Expr, ExprKind, Literal, SubqueryKind, UnaryOp};
use crate::error::{CypherError, Detail};

/// The type `expr` is known to have in `scope` (shallow: looks at the expression's own kind
/// and, for variables, at the scope; never recurses deeply, so chains cost no stack).
pub(crate) fn infer(expr: &Expr, scope: &Scope) -> VarType {
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
            ExprKind::Binary(
                BinaryOp::Sub | BinaryOp::Mul | BinaryOp::Div | BinaryOp::Mod | BinaryOp::Pow,
                left,
                right,
            ) => {
                self.expect_type(left, scope, "Integer or Float", not_arithmetic)?;
                self.expect_type(right, scope, "Integer or Float", not_arithmetic)
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
                operand.span,
            ));
        }
        Ok(())
    }
}
