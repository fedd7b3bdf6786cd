"""Retrospective reports: generation (pyarrow), hybrid encryption (AES-256-GCM + RSA-OAEP),
delivery targets, and the integrator's side (key pairs, the local receiver, ordering, decryption).

Modules: `crypto` (session key, streaming encryption and decryption), `compression` (gzip before
encryption), `generate` and `layouts` (the two reports and their columns), `artifact` (generate,
compress, encrypt into a file), `delivery` (http and local targets), `keys`, `receiver`,
`client` (placing an order), `integrator` (the whole round), `cli` (the commands).
"""
