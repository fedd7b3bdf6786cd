"""The example contractor (tests/data/examples/party-contractor.json), clean, and copies of it with named elements
changed: the documents of the tests of the clean gate's refusals (tests/profiles/test_gate_*.py)."""

from __future__ import annotations

import copy
import json
from typing import Any

from project_paths import DATA_DIR

CONTRACTOR = json.loads((DATA_DIR / "examples" / "party-contractor.json").read_text(encoding="utf-8"))
UNNAMED_KEY = "urn:oid:1.2.616.1.113769.4.7.999999"
"""A key of this installation that the configuration does not name."""
FOREIGN = "urn:oid:1.2.616.1.113769.4.79.1"
"""A namespace of another installation."""


def changed(**changes: Any) -> dict[str, Any]:
    """A copy of the contractor with each change: `system` of its installation identifier, `nip` its NIP's value,
    `status` its status code, `owner` and `partOf` a reference by that identifier; any other element set to the value,
    or removed where the value is None."""
    document = copy.deepcopy(CONTRACTOR)
    for name, value in changes.items():
        if name == "system":
            document["identifier"][0]["system"] = value
        elif name == "nip":
            document["identifier"][1]["value"] = value
        elif name == "status":
            document["status"]["coding"][0]["code"] = value
        elif name in ("owner", "partOf"):
            reference = {"type": "Party", "identifier": value}
            document[name] = [reference] if name == "owner" else reference
        elif value is None:
            del document[name]
        else:
            document[name] = value
    return document
