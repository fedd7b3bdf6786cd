"""`eris init`: a target description written from what an implementation publishes."""

from __future__ import annotations

import json
import threading
import tomllib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from serve_fixtures import running, seeded_settings

from conformance.cli import main
from profiles import load_installation

CUSTOM = """
[installation]
ns_url = "https://erp.acme.pl/fhir"
vocab_url = "https://erp.acme.pl/fhir/terminology"
nip_system = "urn:acme:nip"
regon_system = "urn:acme:regon"
eu_vat_system = "urn:acme:vat"
pesel_system = "urn:acme:pesel"
installation = "42"
[installation.namespaces]
contractor = "11"
employee = "13"
"""


def test_init_discovers_every_placeholder_and_namespace_of_an_installation(tmp_path: Path, capsys) -> None:
    config = tmp_path / "acme.toml"
    config.write_text(CUSTOM, encoding="utf-8")
    written = tmp_path / "target.toml"

    with running(seeded_settings(config=str(config))) as server:
        assert main(["init", "--target", f"{server.url}/v1", "--output", str(written)]) == 0

    expected = load_installation(config)
    discovered = load_installation(written)
    assert discovered.values == expected.values
    assert discovered.namespace_keys == expected.namespace_keys
    document = tomllib.loads(written.read_text(encoding="utf-8"))
    assert document["target"]["base_url"] == server.url
    assert "# from GET /v1/naming-systems" in written.read_text(encoding="utf-8")
    assert "not discovered" not in written.read_text(encoding="utf-8")
    assert "wrote" in capsys.readouterr().err


def test_init_never_overwrites_a_description_unless_forced(tmp_path: Path, capsys) -> None:
    written = tmp_path / "target.toml"
    written.write_text("# mine\n", encoding="utf-8")
    with running() as server:
        assert main(["init", "--target", server.url, "--output", str(written)]) == 2
        assert written.read_text(encoding="utf-8") == "# mine\n"
        assert "exists" in capsys.readouterr().err
        assert main(["init", "--target", server.url, "--output", str(written), "--force"]) == 0
    assert "[installation]" in written.read_text(encoding="utf-8")


_CONTRACTOR_OID = "urn:oid:1.2.616.1.113769.4.5.21"
_FHIRISH_ANSWERS = {
    "/v1/naming-systems": [
        {"resourceType": "NamingSystem", "name": "contractor", "uniqueId": [{"value": _CONTRACTOR_OID}]},
        {"resourceType": "NamingSystem", "name": "nip", "uniqueId": [{"value": "http://acme.example/nip"}]},
    ],
    "/v1/value-sets": [{"url": "http://hl7.org/fhir/ValueSet/x", "version": "1"}],
    "/v1/parties": [],
}


class _Fhirish(BaseHTTPRequestHandler):
    """An implementation with other shapes where the contract shows none: NamingSystem as FHIR writes it, with
    its system in uniqueId[] and its key in name; no implementation-defined value sets listed."""

    def do_GET(self) -> None:
        items = _FHIRISH_ANSWERS.get(self.path.split("?", 1)[0])
        body = json.dumps({"items": items, "nextToken": None} if items is not None else {}).encode()
        self.send_response(200 if items is not None else 404)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def fhirish_target():
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Fhirish)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


def test_init_reads_values_in_shapes_of_its_own_and_says_what_it_could_not_find(fhirish_target, tmp_path: Path):
    written = tmp_path / "target.toml"
    assert main(["init", "--target", fhirish_target, "--output", str(written)]) == 0
    text = written.read_text(encoding="utf-8")
    document = tomllib.loads(text)
    assert document["installation"] == {
        "nip_system": "http://acme.example/nip",
        "installation": "5",
        "namespaces": {"contractor": "21"},
    }
    assert "# not discovered (check the commented defaults): ns_url, vocab_url" in text
    assert '# employee = "3"' in text


def test_init_of_an_unreachable_target_is_one_line_and_exit_2(tmp_path: Path, capsys) -> None:
    assert main(["init", "--target", "http://127.0.0.1:1", "--output", str(tmp_path / "t.toml")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "nothing could be discovered at http://127.0.0.1:1" in err
    assert not (tmp_path / "t.toml").exists()
