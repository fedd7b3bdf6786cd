"""Deviations of writes and of served forms the contract leaves open: null for an element with no value, a write
namespace other than the profile's default; and the faults that only a suite exercising them catches."""

from __future__ import annotations
