"""The pytest plugin the suite runs in (entry point `pytest11: eris`): its options, hooks and fixtures, the
receiver as the tests use it, and each test's outcome carried to the pytest-xdist controller. The suite
imports its public names from plugin.py.

May import: generation, discovery, client, exchange_judge, catalogue, evidence, configuration.
"""
