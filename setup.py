"""The one thing pyproject.toml cannot state: the optional compiled accelerators of the validator.

`optional=True`: where no C compiler is at hand the install goes on without them, and the Python code they stand in
for, which gives the same answers, is used: profiles/clean_gate.py's walk of registry identifiers
(tests/profiles/test_registry_identifiers.py) and profiles/fast_json.py's checks of a text (tests/profiles/
test_fast_json.py), and profiles/validator.py's loop of the clean gates (tests/profiles/test_gate_batch.py)."""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension("profiles._registry_identifiers", ["profiles/_registry_identifiers.c"], optional=True),
        Extension("profiles._strict_scan", ["profiles/_strict_scan.c"], optional=True),
        Extension("profiles._gate_batch", ["profiles/_gate_batch.c"], optional=True),
    ]
)
