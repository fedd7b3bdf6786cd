"""The schema files with their patterns in the form jsonschema-rs runs on its fast regular-expression engine, for the
validators that only give a verdict (the clean gates, and the parts of them that say which failed).

The shared primitives (schemas/Primitives.schema.json) begin each pattern with the lookahead `(?!.*\\n)`, so that
Python's re, where `$` also matches before a final newline, agrees with ECMA-262 and Rust engines. A lookahead sends
jsonschema-rs from the `regex` crate to fancy-regex's backtracking machine: the gates spent ~15% of their pass in
those few patterns. `^(?!.*\\n)X$` is checked here as `^X$` and, beside it, `not: {pattern: "\\n"}` (no newline at
all), which in an engine where `$` is the end of the text say the same of a string whose line terminators are
newlines, and of any string when X matches no line terminator, as none of the primitives does.

The two engines of jsonschema-rs 0.60 read a class escape differently: fancy-regex as Unicode (`\\s` holds U+0085,
`\\d` 370 digits), the `regex` crate as ECMA-262 (`\\s` holds U+FEFF, `\\d` is 0-9). So `\\s` is written out as the
set the written pattern's engine uses, and a pattern with any other class escape or a `.` is left as written.
tests/profiles/test_rust_patterns.py holds the two forms to the same verdicts, character by character. The files
themselves are unchanged and stay the one statement of each rule: the structure's own validators, whose errors are
reported, read them as written."""

from __future__ import annotations

from typing import Any

__all__ = ["LOOKAHEAD", "fast_form", "with_fast_pattern", "with_fast_patterns"]

LOOKAHEAD = "^(?!.*\\n)"
_NO_NEWLINE = {"not": {"pattern": "\n"}}
_DATA = frozenset({"const", "enum", "default", "examples"})
"""Keywords whose values are instances, not schemas: never rewritten."""
_WHITE_SPACE = "\\t\\n\\x0b\\x0c\\r \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000"
"""`\\s` as fancy-regex reads it (Unicode White_Space), written out for the `regex` crate."""
_SAME_IN_BOTH = frozenset("xutnrfv0.-+*?()[]{}|^$/\\")
"""The escapes both engines read alike (\\xHH, \\uHHHH, control characters, escaped punctuation)."""


def with_fast_patterns(documents: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """The documents with every pattern `^(?!.*\\n)X$` that fast_form can rewrite rewritten (copies: the documents
    given are not changed)."""
    return {name: with_fast_pattern(document) for name, document in documents.items()}


def with_fast_pattern(schema: Any) -> Any:
    """One schema with its patterns rewritten as with_fast_patterns does (a copy)."""
    return _rewritten(schema)


def fast_form(pattern: str) -> str | None:
    """`^X$` for `^(?!.*\\n)X$`, read by the `regex` crate as fancy-regex reads the pattern; None when X holds what the
    two read differently (a class escape but \\s, `.`, a group with a flag or a lookaround)."""
    if not (pattern.startswith(LOOKAHEAD) and pattern.endswith("$")):
        return None
    body, out, in_class, at = pattern[len(LOOKAHEAD) : -1], [], False, 0
    while at < len(body):
        char = body[at]
        if char == "\\":
            escaped = body[at + 1 : at + 2]
            if escaped == "s":
                out.append(_WHITE_SPACE if in_class else f"[{_WHITE_SPACE}]")
            elif escaped in _SAME_IN_BOTH and escaped:
                out.append(body[at : at + 2])
            else:
                return None
            at += 2
            continue
        if in_class:
            if char == "[":
                return None  # a nested class or [:alpha:]: a literal in ECMA-262, a class in the regex crate
            in_class = char != "]"
        elif char == "[":
            in_class = True
            if body.startswith("[^]", at) or body.startswith("[]", at):
                return None  # a class beginning with "]": read differently by engines
        elif char == "." or (char == "(" and body[at + 1 : at + 2] == "?" and body[at + 2 : at + 3] != ":"):
            return None
        out.append(char)
        at += 1
    return "^" + "".join(out) + "$"


def _rewritten(node: Any) -> Any:
    if isinstance(node, list):
        return [_rewritten(item) for item in node]
    if not isinstance(node, dict):
        return node
    copy = {key: value if key in _DATA else _rewritten(value) for key, value in node.items()}
    pattern = copy.get("pattern")
    fast = fast_form(pattern) if type(pattern) is str else None
    if fast is not None:
        copy["pattern"] = fast
        if "not" in copy:
            copy["allOf"] = [*copy.get("allOf", ()), _NO_NEWLINE]
        else:
            copy.update(_NO_NEWLINE)
    return copy
