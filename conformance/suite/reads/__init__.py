"""Endpoints / Conventions for reads: the envelope, paging with count and offset, the filters (system|value,
code|value), coded filters and their vocabularies; General rules: no {id} routes, no DELETE."""
