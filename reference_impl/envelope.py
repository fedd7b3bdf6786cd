"""The answer of a list read: the envelope {"items": [...], "nextToken": null} around the stored JSON text of each
item (`Store.search_bodies`), as the bytes served, and the response that carries them."""

from __future__ import annotations

from aiohttp import web

_START = b'{"items":['
_END = b'],"nextToken":null}'


def envelope_of(bodies: list[str]) -> bytes:
    """The same bytes `served_json` writes of the whole envelope, without parsing and writing each item again."""
    return _START + ",".join(bodies).encode() + _END


def json_answer(body: bytes) -> web.Response:
    """200 with a JSON body: Content-Type application/json; charset=utf-8, as web.Response(text=...) writes it."""
    return web.Response(body=body, content_type="application/json", charset="utf-8")
