"""Deviations of the data a target serves: codes of its own value sets, documents the contract's reads do not
list, list reads without attachment content; and the faults that only a suite reading those data catches."""

from __future__ import annotations
