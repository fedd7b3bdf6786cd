"""The conformance tests: written against any implementation at any base URL (see
conformance/harness/plugin.py for the fixtures). They discover data through reads instead of assuming it,
and never fail on what the contract leaves open."""
