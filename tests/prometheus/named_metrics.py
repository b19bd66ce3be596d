#!/usr/bin/env python3
"""Print every stormwatch_ metric the alert rules and the Grafana dashboard query.

    named_metrics.py RULES.yml DASHBOARD.json

Prints each metric name starting with stormwatch_ that the rules' `expr` fields and the
dashboard's queries (every panel target's `expr`, nested row panels included, and every
template variable's query) name, one per line, sorted and unique. A histogram's series
(_bucket, _sum, _count) are printed as the histogram's own name. An integration test checks
that every printed name appears in a real scrape of stormwatch's /metrics.

Exit 0 on success; 2, with the reason on stderr, when a file cannot be read or parsed or
names no stormwatch_ metric, or when the arguments are wrong. Standard library only: the
rules file is read by a small reader for the YAML this needs (`expr:` keys with plain,
quoted or block scalar values), not by a YAML library.
"""

import json
import re
import sys

HISTOGRAM_SUFFIXES = ("_bucket", "_sum", "_count")
# A metric name as PromQL spells it, starting with stormwatch_ at a word boundary (so
# "my_stormwatch_x" or a label value such as "Stormwatch.*" is not taken).
NAME = re.compile(r"(?<![A-Za-z0-9_:])stormwatch_[A-Za-z0-9_:]*")
# {__name__="stormwatch_x"} names a metric inside a string.
NAME_MATCHER = re.compile(r"__name__\s*=~?\s*\"(stormwatch_[A-Za-z0-9_:]*)\"")
# String literals and comments, removed before looking for names.
STRINGS_AND_COMMENTS = re.compile(r'"(?:\\.|[^"\\])*"|\'(?:\\.|[^\'\\])*\'|`[^`]*`|#[^\n]*')


class Failure(Exception):
    pass


def base_name(name):
    for suffix in HISTOGRAM_SUFFIXES:
        if name.endswith(suffix) and len(name) > len(suffix):
            return name[: -len(suffix)]
    return name


def names_in(expr):
    found = set(NAME_MATCHER.findall(expr))
    found.update(NAME.findall(STRINGS_AND_COMMENTS.sub(" ", expr)))
    return {base_name(n) for n in found}


def read_text(path):
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except (OSError, UnicodeDecodeError) as e:
        raise Failure(f"{path}: cannot read: {e}") from e


# ------------------------------------------------------------------ the rules file (YAML)

EXPR_KEY = re.compile(r"^(?P<indent>[ ]*)(?:-[ ]+)*(?P<key>expr)[ ]*:(?:[ ]+(?P<rest>.*))?$")
# A {...} flow mapping holding an expr (- {alert: A, expr: x}), which this reader does not read.
FLOW_EXPR = re.compile(r"(?:^[ ]*(?:-[ ]+)*|:[ ]+)\{.*[{,][ ]*expr[ ]*:")
# Another key whose value is a block scalar (description: >-): its lines are text, not keys.
OTHER_BLOCK_KEY = re.compile(r"^[ ]*(?:-[ ]+)*(?!expr[ ]*:)[^\s#'\"][^:]*:[ ]+[|>][-+0-9]*[ ]*(?:#.*)?$")


def _strip_comment(text):
    """A plain scalar's trailing ' # comment' removed."""
    m = re.search(r"(^|[ \t])#", text)
    return text[: m.start()] if m else text


def _key_column(line):
    m = re.match(r"^([ ]*(?:-[ ]+)*)", line)
    return len(m.group(1))


def _indent(line):
    return len(line) - len(line.lstrip(" "))


def _double_quoted(lines, i, start, path):
    """The value of a double-quoted scalar starting at lines[i][start:] (after the quote)."""
    out, text, line_no = [], lines[i][start:], i
    while True:
        j = 0
        while j < len(text):
            c = text[j]
            if c == "\\" and j + 1 < len(text):
                esc = text[j + 1]
                out.append({"n": "\n", "t": "\t", '"': '"', "\\": "\\", "/": "/"}.get(esc, esc))
                j += 2
                continue
            if c == '"':
                return "".join(out), line_no
            out.append(c)
            j += 1
        line_no += 1
        if line_no >= len(lines):
            raise Failure(f"{path}:{i + 1}: unterminated double-quoted expr")
        out.append(" ")
        text = lines[line_no].strip()


def _single_quoted(lines, i, start, path):
    out, text, line_no = [], lines[i][start:], i
    while True:
        j = 0
        while j < len(text):
            if text[j] == "'":
                if j + 1 < len(text) and text[j + 1] == "'":
                    out.append("'")
                    j += 2
                    continue
                return "".join(out), line_no
            out.append(text[j])
            j += 1
        line_no += 1
        if line_no >= len(lines):
            raise Failure(f"{path}:{i + 1}: unterminated single-quoted expr")
        out.append(" ")
        text = lines[line_no].strip()


def exprs_in_rules(path, text):
    lines = text.splitlines()
    exprs = []
    i = 0
    while i < len(lines):
        if OTHER_BLOCK_KEY.match(lines[i]):
            column = _key_column(lines[i])
            i += 1
            while i < len(lines) and (not lines[i].strip() or _indent(lines[i]) > column):
                i += 1
            continue
        m = EXPR_KEY.match(lines[i])
        if not m:
            if FLOW_EXPR.search(lines[i].split(" #")[0]):
                raise Failure(f"{path}:{i + 1}: an expr inside a {{...}} flow mapping is not read; "
                              "write it as a block mapping (expr: on its own line)")
            i += 1
            continue
        column = _key_column(lines[i])  # where "expr" starts: its value lines sit deeper
        rest = (m.group("rest") or "").strip()
        if rest.startswith('"'):
            start = lines[i].index('"', column) + 1
            value, i = _double_quoted(lines, i, start, path)
        elif rest.startswith("'"):
            start = lines[i].index("'", column) + 1
            value, i = _single_quoted(lines, i, start, path)
        else:
            block = rest[:1] in ("|", ">")
            parts = [] if block else [_strip_comment(rest)]
            j = i + 1
            while j < len(lines):
                line = lines[j]
                if line.strip() and _indent(line) <= column:
                    break
                if line.strip().startswith("#") and not block:
                    j += 1
                    continue
                parts.append(line.strip() if not block else line)
                j += 1
            value = "\n".join(parts)
            i = j - 1
        exprs.append(value)
        i += 1
    return exprs


# ----------------------------------------------------------------- the dashboard (JSON)

def exprs_in_dashboard(path, text):
    try:
        dashboard = json.loads(text)
    except ValueError as e:
        raise Failure(f"{path}: not valid JSON: {e}") from e
    if not isinstance(dashboard, dict):
        raise Failure(f"{path}: not a Grafana dashboard (a JSON object)")
    if isinstance(dashboard.get("dashboard"), dict):  # the API's {"dashboard": {...}} form
        dashboard = dashboard["dashboard"]
    exprs = []

    def panels(items):
        for panel in items or []:
            if not isinstance(panel, dict):
                continue
            for target in panel.get("targets") or []:
                if isinstance(target, dict) and isinstance(target.get("expr"), str):
                    exprs.append(target["expr"])
            panels(panel.get("panels"))  # a collapsed row keeps its panels inside

    panels(dashboard.get("panels"))
    panels(dashboard.get("rows"))  # old schema: rows[].panels[]
    for row in dashboard.get("rows") or []:
        if isinstance(row, dict):
            panels(row.get("panels"))
    for variable in (dashboard.get("templating") or {}).get("list") or []:
        if not isinstance(variable, dict) or variable.get("type") != "query":
            continue
        for field in ("query", "definition"):
            value = variable.get(field)
            if isinstance(value, dict):
                value = value.get("query")
            if isinstance(value, str):
                exprs.append(value)
    return exprs


def main(argv):
    if len(argv) != 3:
        print(f"usage: {argv[0]} RULES.yml DASHBOARD.json", file=sys.stderr)
        return 2
    rules_path, dashboard_path = argv[1], argv[2]
    try:
        all_names = set()
        for path, reader in ((rules_path, exprs_in_rules), (dashboard_path, exprs_in_dashboard)):
            names = set()
            for expr in reader(path, read_text(path)):
                names |= names_in(expr)
            if not names:
                raise Failure(f"{path}: names no stormwatch_ metric in its expressions")
            all_names |= names
    except Failure as e:
        print(f"{argv[0]}: {e}", file=sys.stderr)
        return 2
    for name in sorted(all_names):
        print(name)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
