"""The property phase: requests generated from schemas/openapi.json and sequences through its links, each
answer judged by the requirement the contract fixes for it."""
