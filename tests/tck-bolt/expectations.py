"""The expectations file: one `<case> | <reason>` line per case that does not
pass over Bolt. Bless rewrites it from a run: the cases that ran take their
new state, the lines of cases that did not run (a filtered run) stay. A
reason written by hand as `note: ...` (a known driver limitation, say) is
kept while its case still fails."""

HEADER = """\
# openCypher TCK cases that do not pass over Bolt: `<case> | <reason>`.
# Regenerate with `NEREID_TCK_BOLT_BLESS=1` (see tests/tck-bolt/README.md).
# Remove a line when its case passes.
"""


def load(path):
    out = {}
    try:
        with open(path, encoding="utf-8") as f:
            for line in f:
                line = line.rstrip("\n")
                if not line.strip() or line.startswith("#"):
                    continue
                name, _, reason = line.partition(" | ")
                if not name:
                    name, reason = line, ""
                out[name.strip()] = reason.strip()
    except FileNotFoundError:
        pass
    return out


def bless(path, old, ran, failing):
    kept = {n: r for n, r in old.items() if n not in ran}
    for name, reason in failing.items():
        kept[name] = old[name] if old.get(name, "").startswith("note: ") else reason
    with open(path, "w", encoding="utf-8") as f:
        f.write(HEADER)
        for name in sorted(kept):
            f.write(f"{name} | {kept[name]}\n")
    return len(kept)
