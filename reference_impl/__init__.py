"""The reference implementation of the ERIS interface v1: aiohttp and SQLite."""
