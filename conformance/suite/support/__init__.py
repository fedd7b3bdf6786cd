"""What the conformance tests share, module by module: the list reads and reading (reads), discovering the
target's data (discovery), the filters of the contract (filters), writes (writes), report orders (orders),
opening reports (reports), the property phase (properties)."""
