"""Retrospective reports: generation (pyarrow), hybrid encryption (AES-256-GCM + RSA-OAEP),
delivery targets, and the integrator's side (key pairs, the local receiver, ordering, decryption).

Modules: `crypto` (session key, streaming encryption and decryption), `compression` (gzip before
encryption), `generate` and `layouts` (the two reports and their columns), `artifact` (generate,
compress, encrypt into a file), `delivery` (http and local targets) over `blob_delivery` and
`smb_delivery`, with `delivery_base` (the target interface) and `address_policy` (where network
deliveries may go); `keys`, `receiver` and `receipts`, `client` (placing an order), `store_fetch`
(reading a blob or smb folder), `integrator` (the whole round). The commands are in conformance/cli/.
"""
