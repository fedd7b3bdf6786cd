"""What POST /v1/reports answers: each status code of the contract's Errors part, and the delivery addresses refused."""

from __future__ import annotations

import asyncio

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from serve_fixtures import assert_problem, running, seeded_settings
from serve_reports_fixtures import accepted, auth, order, post, public_pem

from reference_impl.seed import OWN_ORGANIZATION_NIP
from reference_impl.tokens import REPORT_RIGHT, ApplicationKeys, mint_token

STANDARD_400_TYPE = "https://tools.ietf.org/html/rfc9110#section-15.5.1"


@pytest.fixture(scope="module")
def server():
    with running() as running_server:
        yield running_server


def test_no_token_or_a_token_of_an_unknown_key_is_401(server, integrator_key):
    assert_problem(server.client.post("/v1/reports", json=order(integrator_key)), 401)
    stranger = ApplicationKeys.generate()
    forged = mint_token(stranger.private_key, subject="intruder", rights=[REPORT_RIGHT], key_id=stranger.key_id)
    assert_problem(post(server, order(integrator_key), headers={"Authorization": f"Bearer {forged}"}), 401)


def test_a_token_without_the_report_right_is_403(server, integrator_key):
    assert_problem(post(server, order(integrator_key), headers=auth(server, rights=())), 403)


@pytest.mark.parametrize(
    "content",
    ['{"reportId": "cost-calculation",', "[]", '"an order"', "\xff\xfe"],
    ids=["cut-short", "array", "string", "not-utf8"],
)
def test_a_malformed_body_is_400_with_the_standard_type(server, content):
    response = server.client.post(
        "/v1/reports",
        content=content.encode("latin-1"),
        headers={**auth(server), "Content-Type": "application/json"},
    )
    assert assert_problem(response, 400)["type"] == STANDARD_400_TYPE


def test_a_missing_public_key_is_400_with_the_standard_type(server, integrator_key):
    body = assert_problem(post(server, order(integrator_key, publicKeyPem=None)), 400)
    assert body["type"] == STANDARD_400_TYPE
    assert "publicKeyPem" in body["detail"]


@pytest.mark.parametrize(
    ("changes", "why"),
    [
        ({"reportId": None}, "no reportId"),
        ({"reportId": None, "groupId": "monthly"}, "only groupId"),
        ({"reportId": "balance-sheet"}, "balance-sheet"),
    ],
    ids=["missing", "group-only", "unknown"],
)
def test_report_type_not_found_is_404(server, integrator_key, changes, why):
    detail = assert_problem(post(server, order(integrator_key, **changes)), 404)["detail"]
    assert "report type not found" in detail and why in detail


def test_a_body_with_only_group_id_is_404(server):
    assert "report type not found" in assert_problem(post(server, {"groupId": "monthly"}), 404)["detail"]


@pytest.mark.parametrize("month", ["0", "13", "-1", "twelve"])
def test_a_month_outside_1_to_12_is_400_naming_it(server, integrator_key, month):
    parameters = {"CompanyTaxNo": OWN_ORGANIZATION_NIP, "Year": "2024", "Month": month}
    body = assert_problem(post(server, order(integrator_key, parameters=parameters)), 400)
    assert "Month" in body["detail"]


def test_missing_parameters_and_an_unknown_company_are_400(server, integrator_key):
    assert "Year" in assert_problem(post(server, order(integrator_key, parameters={"Month": "1"})), 400)["detail"]
    unknown = {"CompanyTaxNo": "5260250274", "Year": "2024", "Month": "1"}
    body = assert_problem(post(server, order(integrator_key, parameters=unknown)), 400, "parameters.CompanyTaxNo")
    assert "5260250274" in body["detail"]


def test_a_certificate_or_a_key_too_small_for_oaep_is_400(server, integrator_key):
    certificate = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"
    assert "certificate" in assert_problem(post(server, order(integrator_key, publicKeyPem=certificate)), 400)["detail"]
    tiny = rsa.RSAPublicNumbers(65537, (1 << 767) | 0x2F).public_key()  # 768 bits: cannot seal 44 bytes with OAEP-256
    tiny_pem = tiny.public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo).decode()
    assert "too small" in assert_problem(post(server, order(integrator_key, publicKeyPem=tiny_pem)), 400)["detail"]


def test_both_pem_headers_are_accepted(server, integrator_key):
    accepted(post(server, order(integrator_key)))
    pkcs1 = public_pem(integrator_key, serialization.PublicFormat.PKCS1)
    assert pkcs1.startswith("-----BEGIN RSA PUBLIC KEY-----")
    accepted(post(server, order(integrator_key, publicKeyPem=pkcs1)))


@pytest.mark.parametrize(
    ("storage_type", "connection_string"),
    [
        ("blob", "DefaultEndpointsProtocol=https;AccountName=x;AccountKey=a2V5"),
        ("blob", "https://integrator.blob.example/reports"),
        ("smb", "smb://integrator.example/reports"),
        ("smb", "\\\\integrator.example\\reports"),
    ],
)
def test_a_blob_or_smb_storage_eris_cannot_use_is_400_naming_the_connection_string(
    server, integrator_key, storage_type, connection_string
):
    storage = {"type": storage_type, "connectionString": connection_string}
    problem = assert_problem(post(server, order(integrator_key, storage=storage)), 400, "storage.connectionString")
    assert "a2V5" not in problem["detail"]


def test_an_http_storage_that_is_not_a_url_is_400(server, integrator_key):
    storage = {"type": "http", "connectionString": "receiver.example.com/reports"}
    assert_problem(post(server, order(integrator_key, storage=storage)), 400, "storage.connectionString")


def test_a_failing_key_source_is_500():
    def broken(size: int) -> bytes:
        raise OSError("no entropy")

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    with running(seeded_settings(random_bytes=broken)) as server:
        assert "cryptographic" in assert_problem(post(server, order(key)), 500)["detail"]


def test_the_gateway_limit_is_429_with_retry_after():
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    with running(seeded_settings(rate_per_second=0.5, rate_burst=2)) as server:
        headers = auth(server)
        answers = [post(server, order(key), headers=headers) for _ in range(4)]
    statuses = [a.status_code for a in answers]
    assert statuses[:2] == [202, 202] and 429 in statuses[2:]
    limited = next(a for a in answers if a.status_code == 429)
    assert int(limited.headers["Retry-After"]) >= 1


def test_orders_have_a_quota_of_their_own_below_the_gateway_limit():
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    settings = seeded_settings(rate_per_second=1000, rate_burst=1000, order_rate_per_second=0.5, order_burst=2)
    with running(settings) as server:
        headers = auth(server)
        answers = [post(server, order(key), headers=headers) for _ in range(4)]
        read = server.client.get("/v1/parties", headers=headers)
    statuses = [a.status_code for a in answers]
    assert statuses[:2] == [202, 202] and 429 in statuses[2:], statuses
    assert int(next(a for a in answers if a.status_code == 429).headers["Retry-After"]) >= 1
    assert read.status_code == 200  # reads are under the gateway's own limit only


@pytest.mark.parametrize(
    ("url", "named"),
    [
        ("http://169.254.169.254/latest/meta-data/", "never go to"),
        ("http://[fe80::1]:8080/x", "never go to"),
        ("http://user:secret@127.0.0.1:9/x", "credentials"),
        ("http://127.0.0.1:99999/x", "absolute http(s) URL"),
    ],
    ids=["metadata-address", "ipv6-link-local", "credentials", "port-out-of-range"],
)
def test_an_http_storage_the_service_must_not_call_is_refused_at_the_order(server, integrator_key, url, named):
    problem = assert_problem(post(server, order(integrator_key, url)), 400)
    assert named in problem["detail"]


def test_an_order_may_not_make_the_service_call_its_own_api(server, integrator_key):
    own = f"{server.url}/v1/parties"
    assert "own address" in assert_problem(post(server, order(integrator_key, own)), 400)["detail"]


def test_an_allow_list_refuses_every_other_address_at_the_order_and_at_resolution(integrator_key, tmp_path):
    settings = seeded_settings(delivery_allowed=("10.0.0.0/8",))
    with running(settings) as server:
        refused = post(server, order(integrator_key, "http://127.0.0.1:9/x"))
        assert "outside the addresses" in assert_problem(refused, 400)["detail"]
    # a host name is checked each time it is resolved (a name re-pointed after the order is caught too)
    from reports.address_policy import AddressRefused, HttpPolicy, PolicyResolver, networks

    resolver = PolicyResolver(HttpPolicy(allowed=networks(["10.0.0.0/8"])))
    with pytest.raises(AddressRefused, match="refused addresses"):
        asyncio.run(resolver.resolve("localhost", 9))
    allowing = PolicyResolver(HttpPolicy(allowed=networks(["127.0.0.0/8"])))
    assert {entry["host"] for entry in asyncio.run(allowing.resolve("localhost", 9))} == {"127.0.0.1"}
