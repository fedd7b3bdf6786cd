"""The conformance side of eris: the requirement catalogue, the pytest plugin and suite, the certification and
its outputs, and the `eris` command line (conformance.cli)."""
