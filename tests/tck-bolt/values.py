"""TCK value notation, and values received over Bolt in the same form.

Both sides become tagged tuples so that they compare structurally:

    None                      null
    ("b", True)               boolean
    ("i", 42) / ("f", 1.5)    integer / float (never equal to each other)
    ("s", "text")             string; also temporal values, by their Cypher
                              string form, which is how the TCK tables write them
    ("l", [v, ...])           list
    ("m", {k: v})             map
    ("n", labels, props)      node, by label set and properties (never by id)
    ("r", type, props)        relationship
    ("p", node, [(rel, forward, node), ...])   path

The notation: `null`, `true`, integers, floats (`1.0`, `-0.0`, `1e3`, `.5`,
`NaN`, `Infinity`, `-Infinity`), single-quoted strings (`\\'`, `\\"` and
`\\\\` escapes; any other backslash stands for itself), lists, maps, nodes
`(:L:M {k: v})`, relationships `[:T {k: v}]`, paths `<(:A)-[:T]->(:B)<-[:U]-()>`.
"""

import math


class NotationError(ValueError):
    pass


class _Parser:
    def __init__(self, text):
        self.t = text
        self.i = 0

    def fail(self, wanted):
        return NotationError(f"expected {wanted} at {self.i} in {self.t!r}")

    def ws(self):
        while self.i < len(self.t) and self.t[self.i].isspace():
            self.i += 1

    def peek(self):
        self.ws()
        return self.t[self.i] if self.i < len(self.t) else None

    def eat(self, c):
        if self.peek() == c:
            self.i += 1
            return True
        return False

    def expect(self, c):
        if not self.eat(c):
            raise self.fail(repr(c))

    def value(self):
        c = self.peek()
        if c == "'":
            return ("s", self.string())
        if c == "[":
            save = self.i
            self.i += 1
            if self.peek() == ":":
                self.i = save
                return self.rel()
            self.i = save
            return self.list()
        if c == "{":
            return ("m", self.props())
        if c == "(":
            return self.node()
        if c == "<":
            return self.path()
        if c is None:
            raise self.fail("a value")
        return self.scalar()

    def ident_continues(self, at):
        return at < len(self.t) and (self.t[at].isalnum() or self.t[at] == "_")

    def scalar(self):
        for word, v in (
            ("null", None),
            ("true", ("b", True)),
            ("false", ("b", False)),
            ("NaN", ("f", math.nan)),
            ("Infinity", ("f", math.inf)),
            ("-Infinity", ("f", -math.inf)),
        ):
            if self.t.startswith(word, self.i) and not self.ident_continues(self.i + len(word)):
                self.i += len(word)
                return v
        start = self.i
        if self.i < len(self.t) and self.t[self.i] in "+-":
            self.i += 1
        is_float = False
        while self.i < len(self.t):
            c = self.t[self.i]
            if c.isdigit():
                pass
            elif c in ".eE":
                is_float = True
            elif c in "+-" and self.t[self.i - 1] in "eE":
                pass
            else:
                break
            self.i += 1
        lexeme = self.t[start:self.i]
        if lexeme in ("", "+", "-"):
            raise self.fail("a value")
        try:
            return ("f", float(lexeme)) if is_float else ("i", int(lexeme))
        except ValueError:
            raise self.fail("a number") from None

    def string(self):
        self.expect("'")
        out = []
        while self.i < len(self.t):
            c = self.t[self.i]
            if c == "'":
                self.i += 1
                return "".join(out)
            if c == "\\" and self.i + 1 < len(self.t) and self.t[self.i + 1] in "'\\\"":
                out.append(self.t[self.i + 1])
                self.i += 2
                continue
            out.append(c)
            self.i += 1
        raise self.fail("a closing quote")

    def list(self):
        self.expect("[")
        items = []
        if self.eat("]"):
            return ("l", items)
        while True:
            items.append(self.value())
            if self.eat("]"):
                return ("l", items)
            self.expect(",")

    def name(self):
        self.ws()
        if self.i < len(self.t) and self.t[self.i] == "`":
            end = self.t.find("`", self.i + 1)
            if end < 0:
                raise self.fail("a closing backtick")
            name = self.t[self.i + 1:end]
            self.i = end + 1
            return name
        start = self.i
        while self.ident_continues(self.i):
            self.i += 1
        if start == self.i:
            raise self.fail("a name")
        return self.t[start:self.i]

    def props(self):
        self.expect("{")
        out = {}
        if self.eat("}"):
            return out
        while True:
            key = self.name()
            self.expect(":")
            out[key] = self.value()
            if self.eat("}"):
                return out
            self.expect(",")

    def node(self):
        self.expect("(")
        labels = set()
        while self.eat(":"):
            labels.add(self.name())
        props = self.props() if self.peek() == "{" else {}
        self.expect(")")
        return ("n", frozenset(labels), props)

    def rel(self):
        self.expect("[")
        self.expect(":")
        rel_type = self.name()
        props = self.props() if self.peek() == "{" else {}
        self.expect("]")
        return ("r", rel_type, props)

    def path(self):
        self.expect("<")
        start = self.node()
        steps = []
        while True:
            if self.eat(">"):
                return ("p", start, steps)
            backward = self.eat("<")
            self.expect("-")
            rel = self.rel()
            self.expect("-")
            forward = self.eat(">")
            if forward == backward:
                raise self.fail("a directed relationship")
            steps.append((rel, forward, self.node()))


def parse(text):
    """The value a TCK cell or parameter writes."""
    p = _Parser(text)
    v = p.value()
    if p.peek() is not None:
        raise p.fail("the end of the value")
    return v


def to_param(v):
    """A parsed value as a driver parameter (the TCK passes plain values only)."""
    if v is None:
        return None
    tag = v[0]
    if tag in ("b", "i", "f", "s"):
        return v[1]
    if tag == "l":
        return [to_param(x) for x in v[1]]
    if tag == "m":
        return {k: to_param(x) for k, x in v[1].items()}
    raise NotationError(f"an entity cannot be a parameter: {render(v)}")


def matches(a, b, ignore_list_order=False):
    """Structural equality; NaN equals NaN (a table cannot say otherwise)."""
    if a is None or b is None:
        return a is None and b is None
    if a[0] != b[0]:
        return False
    tag = a[0]
    if tag == "f":
        return a[1] == b[1] or (math.isnan(a[1]) and math.isnan(b[1]))
    if tag in ("b", "i", "s"):
        return a[1] == b[1]
    if tag == "l":
        if ignore_list_order:
            return multiset_eq(a[1], b[1], lambda x, y: matches(x, y, True))
        return len(a[1]) == len(b[1]) and all(matches(x, y, ignore_list_order) for x, y in zip(a[1], b[1]))
    if tag == "m":
        return _props_match(a[1], b[1], ignore_list_order)
    if tag in ("n", "r"):
        return a[1] == b[1] and _props_match(a[2], b[2], ignore_list_order)
    if tag == "p":
        return (
            matches(a[1], b[1], ignore_list_order)
            and len(a[2]) == len(b[2])
            and all(
                matches(x[0], y[0], ignore_list_order) and x[1] == y[1] and matches(x[2], y[2], ignore_list_order)
                for x, y in zip(a[2], b[2])
            )
        )
    return False


def _props_match(a, b, ilo):
    return a.keys() == b.keys() and all(matches(a[k], b[k], ilo) for k in a)


def multiset_eq(a, b, eq):
    """Same elements with the same multiplicities under the equivalence `eq`
    (greedy matching is exact for an equivalence)."""
    if len(a) != len(b):
        return False
    used = [False] * len(b)
    for x in a:
        for j, y in enumerate(b):
            if not used[j] and eq(x, y):
                used[j] = True
                break
        else:
            return False
    return True


def _float_text(x):
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    text = repr(x)
    return text if ("." in text or "e" in text) else text + ".0"


def _props_text(m):
    return "{" + ", ".join(f"{k}: {render(v)}" for k, v in sorted(m.items())) + "}"


def render(v):
    """`v` back in TCK notation, for failure messages and snapshots."""
    if v is None:
        return "null"
    tag = v[0]
    if tag == "b":
        return "true" if v[1] else "false"
    if tag == "i":
        return str(v[1])
    if tag == "f":
        return _float_text(v[1])
    if tag == "s":
        return "'" + v[1].replace("\\", "\\\\").replace("'", "\\'") + "'"
    if tag == "l":
        return "[" + ", ".join(render(x) for x in v[1]) + "]"
    if tag == "m":
        return _props_text(v[1])
    if tag == "n":
        labels = "".join(f":{lab}" for lab in sorted(v[1]))
        props = (" " if labels else "") + _props_text(v[2]) if v[2] else ""
        return f"({labels}{props})"
    if tag == "r":
        props = " " + _props_text(v[2]) if v[2] else ""
        return f"[:{v[1]}{props}]"
    if tag == "p":
        out = render(v[1])
        for rel, forward, node in v[2]:
            out += f"-{render(rel)}->" if forward else f"<-{render(rel)}-"
            out += render(node)
        return f"<{out}>"
    return repr(v)
