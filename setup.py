"""The one thing pyproject.toml cannot state: the optional compiled accelerator of the clean gate.

`optional=True`: where no C compiler is at hand the install goes on without it, and profiles/clean_gate.py uses its
Python walk, which gives the same answers (tests/profiles/test_registry_identifiers.py)."""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension("profiles._registry_identifiers", ["profiles/_registry_identifiers.c"], optional=True),
    ]
)
