"""The suite's client of the target and the record of every exchange: answers bounded in time and size, the
`Api` of the tests (its back-off from the gateway, a test's calls sent at once, what the running test
records beside its outcome), the traffic of a run with its bodies and HAR entries (secrets redacted), HAR
entries read as exchanges, `eris proxy`, and the loopback ports of the servers eris starts.

May import: exchange_judge, catalogue, evidence, configuration (and profiles, reports below conformance).
"""
