"""What the suite draws and makes up: the property phase's generated requests (properties.py), the payloads
drawn from the contract (strategies/), the names made up from one seed, the report key pairs, and
hypothesis's draws kept a function of the seed only.

May import: client, exchange_judge, catalogue, evidence, configuration.
"""
