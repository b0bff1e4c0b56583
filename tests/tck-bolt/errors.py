"""The error check `Then a <Type> should be raised at <phase>: <Detail>`, as
seen from a Bolt client.

Phase: the TCK's compile time is "before the query produced anything", its
runtime "while it ran". Over Bolt that is which message the FAILURE
answered: a failed RUN is compile time (the server refused the query before
streaming), a failed PULL (or the implicit commit at its end) is runtime.
The driver raises the first from `session.run` and the second while the
records are consumed, so the runner records the phase from where the
exception surfaced. `any time` accepts either.

In the `strict` mode (nereid, the default) that observed phase must be the
TCK's. Neo4j folds constant expressions while planning, so it reports many
runtime errors (`range(true, 1, 1)`, `{a: 1}[0]`) in the RUN reply, and it
checks `MERGE ({k: null})` while planning. The `lenient` mode (the reference
server) therefore ignores the observed phase and takes the one the status
family stands for, as the TCK intends it; a family used at both phases, and
the TCK's catch-all `Error`, accept either:

    SyntaxError, ParameterMissing, Procedure.*           compile time
    TypeError, ArgumentError, ArithmeticError,
    EntityNotFound, ConstraintValidationFailed           runtime
    SemanticError, anything else, and expected `Error`   either

Type: the last segment of the Neo4j status code
(`Neo.ClientError.Statement.TypeError` is `TypeError`,
`Neo.ClientError.Schema.ConstraintValidationFailed` is
`ConstraintValidationFailed`), except that every
`Neo.ClientError.Procedure.*` code counts as `ProcedureError`. The TCK's
catch-all `Error` accepts any `Neo.ClientError.*`, never a
`Neo.DatabaseError.*` or `Neo.TransientError.*` (those say the server broke,
not that it found the error).

Detail (`VariableAlreadyBound`, ...): in the `strict` mode the
FAILURE's GQL status description must start with `error: `, the detail name
and a colon: nereid sends Neo4j's message as the message and names the
detail in the description (ADR 0138). Neo4j names no openCypher details, so
the `lenient` mode (the reference server) checks type and phase only. The
TCK's `*` detail accepts anything.
"""

from dataclasses import dataclass

COMPILE = "compile time"
RUNTIME = "runtime"


@dataclass
class ExpectedError:
    error_type: str
    phase: str | None  # None for "any time"
    detail: str

    @staticmethod
    def parse(step):
        """The expectation a step states, or None if it is not an error step."""
        for article in ("an ", "a "):
            if step.startswith(article):
                rest = step[len(article):]
                break
        else:
            return None
        if " should be raised at " not in rest:
            return None
        error_type, rest = rest.split(" should be raised at ", 1)
        if ":" not in rest:
            return None
        phase, detail = rest.split(":", 1)
        phase = phase.strip()
        if phase not in (COMPILE, RUNTIME, "any time"):
            return None
        return ExpectedError(error_type.strip(), None if phase == "any time" else phase, detail.strip())


def tck_type(code):
    """The TCK error type a Neo4j status code stands for."""
    if code.startswith("Neo.ClientError.Procedure."):
        return "ProcedureError"
    return code.rsplit(".", 1)[-1]


def detail_of(description):
    """The detail name a GQL description names (`error: VariableAlreadyBound: ...`)."""
    text = (description or "").removeprefix("error: ")
    head, sep, _ = text.partition(":")
    return head if sep and head and head.isascii() and head.isalnum() else None


COMPILE_FAMILIES = ("SyntaxError", "ParameterMissing", "ProcedureError")
RUNTIME_FAMILIES = ("TypeError", "ArgumentError", "ArithmeticError", "EntityNotFound", "ConstraintValidationFailed")


def implied_phase(code):
    """The phase a status family stands for (lenient mode), or None."""
    family = tck_type(code)
    if family in COMPILE_FAMILIES:
        return COMPILE
    if family in RUNTIME_FAMILIES:
        return RUNTIME
    return None


def check(expected, phase, code, description, strict):
    """None when the failure (`code`, GQL `description`) observed at `phase`
    is the expected error, else a short description of what differs."""
    problems = []
    want_phase = expected.phase
    if not strict:
        phase = implied_phase(code)
        if phase is None or expected.error_type == "Error":
            want_phase = None
    if want_phase is not None and want_phase != phase:
        problems.append(f"phase: expected {want_phase}, got {phase}")
    if expected.error_type == "Error":
        type_ok = code.startswith("Neo.ClientError.")
    else:
        type_ok = tck_type(code) == expected.error_type
    if not type_ok:
        problems.append(f"type: expected {expected.error_type}, got {code}")
    if strict and expected.detail != "*" and detail_of(description) != expected.detail:
        problems.append(f"detail: expected {expected.detail}")
    return "; ".join(problems) or None
