"""Malformed input a careless or hostile client sends: JSON bodies that Python's json module would accept or choke
on, and query strings past any reasonable size. The robustness checks of the suite (a SHOULD of eris, the contract
is silent) and the project's tests of the reference implementation send the same."""

from __future__ import annotations

WRITES = [
    ("POST", "/v1/parties"),
    ("PATCH", "/v1/parties"),
    ("POST", "/v1/fixed-asset-documents"),
    ("PATCH", "/v1/fixed-asset-documents"),
    ("POST", "/v1/document-references"),
    ("PATCH", "/v1/document-references"),
]
"""The operations that read a JSON body, POST /v1/reports aside (its Errors part lists 5xx among its answers)."""

DEPTH = 64
"""The nesting the reference reads (profiles/strict_json.MAX_DEPTH); the bodies below go past it."""

HOSTILE_BODIES = {
    # name: (body text, a word the refusal of the reference implementation names)
    "nested-2000-deep": ('{"a":' + "[" * 2000 + "]" * 2000 + "}", "nested more than"),
    "nested-one-past-the-limit": ('{"a":' + "[" * DEPTH + "]" * DEPTH + "}", "nested"),
    "5000-digit-integer": ('{"a":' + "1" * 5000 + "}", "5000 characters"),
    "integer-past-64-bits": ('{"a":9223372036854775808}', "outside"),
    "NaN": ('{"a":NaN}', "NaN is not a JSON number"),
    "Infinity": ('{"a":Infinity}', "Infinity is not a JSON number"),
    "-Infinity": ('{"a":-Infinity}', "-Infinity is not a JSON number"),
    "1e999": ('{"a":1e999}', "out of range"),
    "lone-surrogate": ('{"a":"\\ud800"}', "lone UTF-16 surrogate"),
    "lone-surrogate-in-a-name": ('{"\\udc00":1}', "lone UTF-16 surrogate"),
    "duplicate-member": ('{"a":1,"a":2}', "appears twice"),
}

HOSTILE_QUERIES = {
    "count-of-1000-digits": [("count", "9" * 1000)],
    "offset-of-1000-digits": [("offset", "9" * 1000)],
    "a-filter-300-times": [("attribute", "a|b")] * 300,
    "a-value-of-5000-characters": [("identifier", "x|" + "y" * 5000)],
}
