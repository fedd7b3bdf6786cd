"""The self-test of the conformance suite: every fault and variant of deviations/ certified by running
`eris certify`, as a user does, and judged killed or survived, passed or failed.

May import: cli and everything below it.
"""
