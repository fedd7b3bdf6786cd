"""The conformance side of eris, one package a role (docs/architecture.md): the self-test, the command line
(conformance.cli), the run of `eris certify`, the certification and its outputs, the suite and the pytest plugin it
runs in, the generation of requests, discovery, the client of the target, the judge of an exchange and the
requirement catalogue."""
