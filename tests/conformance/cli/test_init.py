"""`eris init`: a target description written from what an implementation serves, against real servers of the
reference implementation configured as another installation would be."""

from __future__ import annotations

import json
import re
import tomllib
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import pytest
from handler_servers import serving_handler
from installation_servers import OTHER_INSTALLATION, OWN_SHAPE, serving, two_installations
from project_paths import ROOT

from conformance.cli import main
from conformance.configuration.target import DATA_ENTRIES, load_target
from profiles import load_installation


def _lines(text: str) -> dict[str, str]:
    """Each written `name = value   # ...` line of the description, by name."""
    return {line.split(" = ", 1)[0]: line for line in text.splitlines() if " = " in line and not line.startswith("#")}


def test_init_finds_all_17_values_of_another_installation_each_with_its_source(tmp_path: Path, capsys) -> None:
    """NamingSystems in a shape of their own: the key in the implementation's words, the system in uniqueId[],
    the reference key as usableInReferences. Nothing may rest on the reference implementation's member names."""
    config = tmp_path / "acme.toml"
    config.write_text(OTHER_INSTALLATION, encoding="utf-8")
    written = tmp_path / "target.toml"

    with serving(config, variants=(OWN_SHAPE,)) as server:
        assert main(["init", "--target", f"{server.url}/v1", "--output", str(written)]) == 0

    expected, discovered = load_installation(config), load_installation(written)
    assert discovered.values == expected.values
    assert discovered.namespace_keys == expected.namespace_keys
    text = written.read_text(encoding="utf-8")
    lines = _lines(text)
    every = [*expected.values, *expected.namespace_keys]
    assert [name for name in every if "   # from " not in lines[name] or "GET /v1/" not in lines[name]] == []
    assert "meta.profile" in lines["ns_url"]
    assert "GET /v1/value-sets" in lines["vocab_url"]
    assert "GET /v1/parties (identifiers of" in lines["installation"]
    assert "pass the nip check, type TAX" in lines["nip_system"]
    assert "Employee parties pass the pesel check" in lines["pesel_system"]
    assert "GET /v1/naming-systems: a reference key" in lines["contractor"]
    assert "GET /v1/naming-systems: not a reference key" in lines["contractor-warehouse"]
    assert "identifiers of Employee parties" in lines["employee"]
    assert "GET /v1/asset-components (identifiers)" in lines["fixed-asset"]
    assert "(key " not in text  # no NamingSystem named a key of the contract
    assert "not discovered" not in text and "conflict" not in text
    assert "wrote" in capsys.readouterr().err


def test_init_reads_namingsystems_by_the_contracts_keys_too(tmp_path: Path) -> None:
    config = tmp_path / "acme.toml"
    config.write_text(OTHER_INSTALLATION, encoding="utf-8")
    written = tmp_path / "target.toml"
    with serving(config) as server:
        assert main(["init", "--target", server.url, "--output", str(written)]) == 0
    assert load_installation(written).namespace_keys == load_installation(config).namespace_keys
    lines = _lines(written.read_text(encoding="utf-8"))
    assert "GET /v1/naming-systems (key contractor-warehouse)" in lines["contractor-warehouse"]
    assert "GET /v1/naming-systems (published as nip)" in lines["nip_system"]


def test_init_shows_two_installations_as_a_conflict_and_writes_neither(tmp_path: Path, capsys) -> None:
    config = tmp_path / "acme.toml"
    config.write_text(OTHER_INSTALLATION, encoding="utf-8")
    written = tmp_path / "target.toml"
    with serving(config, variants=(OWN_SHAPE,), seed=two_installations("99")) as server:
        assert main(["init", "--target", server.url, "--output", str(written)]) == 0
    text = written.read_text(encoding="utf-8")
    assert "installation" not in tomllib.loads(text)["installation"]
    assert re.search(r'# installation = "42"   # seen in \d\d+ identifiers; GET /v1/parties', text)
    assert '# installation = "99"   # seen in 1 identifier; GET /v1/parties (identifiers of Employee parties)' in text
    comments = " ".join(line.lstrip("# ") for line in text.splitlines() if line.startswith("#"))
    assert re.search(
        r"conflict, not decided: installation = 42 \(.*\) or installation = 99 \(.*\): the target shows", comments
    )
    err = capsys.readouterr().err
    assert "eris init: conflict, not decided: installation = 42 (" in err and "installation = 99 (" in err
    assert "1 conflicts to decide" in err
    # the keys both installations use the same way are still found
    assert load_installation(written).namespace_keys["employee"] == "23"


def test_init_writes_the_data_table_and_the_token_lines_commented(tmp_path: Path) -> None:
    written = tmp_path / "target.toml"
    with serving() as server:
        assert main(["init", "--target", server.url, "--output", str(written)]) == 0
    text = written.read_text(encoding="utf-8")
    document = tomllib.loads(text)
    assert document["data"] == {} and "token" not in document["target"]
    assert '# token = "..."' in text and '# token_without_report_right = "..."' in text
    data = text.split("[data]", 1)[1].split("[receiver]", 1)[0]
    flat = " ".join(line.removeprefix("#").strip() for line in data.splitlines())
    for entry, description in DATA_ENTRIES.items():
        assert f'# {entry} = "<system>|<value>"' in data
        assert " ".join(description.split()) in flat
    # with the entries uncommented the description is one eris certify reads
    filled = text.replace('# warehouse_document = "<system>|<value>"', 'warehouse_document = "urn:x|W-1"')
    (tmp_path / "filled.toml").write_text(filled, encoding="utf-8")
    assert load_target(tmp_path / "filled.toml").data == {"warehouse_document": "urn:x|W-1"}


def test_init_never_overwrites_a_description_unless_forced(tmp_path: Path, capsys) -> None:
    written = tmp_path / "target.toml"
    written.write_text("# mine\n", encoding="utf-8")
    with serving() as server:
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
}


class _Fhirish(BaseHTTPRequestHandler):
    """An implementation that serves naming systems only, as FHIR writes them (system in uniqueId[], key in
    name), and no data: every other list read is empty."""

    def do_GET(self) -> None:
        items = _FHIRISH_ANSWERS.get(self.path.split("?", 1)[0], [])
        body = json.dumps({"items": items if "offset=0" in self.path else [], "nextToken": None}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def fhirish_target():
    with serving_handler(_Fhirish) as url:
        yield url


def test_init_says_what_it_could_not_find(fhirish_target, tmp_path: Path):
    written = tmp_path / "target.toml"
    assert main(["init", "--target", fhirish_target, "--output", str(written)]) == 0
    text = written.read_text(encoding="utf-8")
    document = tomllib.loads(text)
    assert document["installation"] == {
        "nip_system": "http://acme.example/nip",
        "installation": "5",
        "namespaces": {"contractor": "21"},
    }
    assert "# not discovered (check the commented defaults): ns_url, vocab_url, regon_system" in text
    assert '# employee = "3"   # not discovered' in text


def test_init_of_an_unreachable_target_is_one_line_and_exit_2(tmp_path: Path, capsys) -> None:
    assert main(["init", "--target", "http://127.0.0.1:1", "--output", str(tmp_path / "t.toml")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "nothing could be discovered at http://127.0.0.1:1" in err
    assert not (tmp_path / "t.toml").exists()


def test_the_guide_documents_eris_init_and_every_data_entry() -> None:
    guide = (ROOT / "docs" / "certify-your-implementation.md").read_text(encoding="utf-8")
    assert "### Start from what your implementation serves: `eris init`" in guide
    assert [entry for entry in DATA_ENTRIES if f"| `{entry}` |" not in guide] == []
