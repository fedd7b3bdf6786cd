"""What a target's reads show of its installation: the values it publishes (published.py), the evidence and
conflicts they make, the registries among its systems, its NamingSystem items, the installation a run
certifies against, and the target description `eris init` writes.

May import: client, exchange_judge, catalogue, evidence, configuration.
"""
