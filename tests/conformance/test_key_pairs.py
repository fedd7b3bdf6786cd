"""The suite's report keys (conformance/generation/key_pairs.py): a fresh key for each order, from a stock first when a
run is given one, then from the child that makes them."""

from __future__ import annotations

from pathlib import Path

import pytest
from cryptography.hazmat.primitives import serialization

from conformance.generation.key_pairs import STOCK_VARIABLE, KeyPairs, stocked_keys, write_stock

BITS = 1024
"""The smallest size cryptography makes: these tests are about who makes a key, not its strength."""


def numbers(key) -> int:
    return key.private_numbers().public_numbers.n


@pytest.fixture(scope="module")
def stock(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_stock(tmp_path_factory.mktemp("stock") / "keys.pem", 4, bits=BITS)


def test_keys_come_from_the_stock_each_once_then_from_the_child(stock: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv(STOCK_VARIABLE, str(stock))
    pairs = KeyPairs(bits=BITS, ahead=1, stock=stocked_keys())
    try:
        taken = [numbers(pairs.take()) for _ in range(6)]
    finally:
        pairs.close()
    in_stock = [numbers(serialization.load_pem_private_key(pem, None)) for pem in stocked_keys()]
    assert taken[:4] == in_stock
    assert len(set(taken)) == 6, "a key was handed out twice"


def test_a_run_given_a_stock_starts_no_child_until_the_stock_is_spent(stock: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv(STOCK_VARIABLE, str(stock))
    pairs = KeyPairs(bits=BITS, stock=stocked_keys())
    pairs.start()
    pairs.take()
    assert pairs._process is None
    pairs.close()


def test_workers_of_one_run_share_no_key(stock: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv(STOCK_VARIABLE, str(stock))
    first, second = stocked_keys(0, 2), stocked_keys(1, 2)
    assert len(first) == len(second) == 2
    assert not set(first) & set(second)
    assert sorted(first + second) == sorted(stocked_keys())


def test_keys_of_another_size_in_the_stock_are_passed_over(stock: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv(STOCK_VARIABLE, str(stock))
    pairs = KeyPairs(bits=2048, stock=stocked_keys())
    try:
        assert pairs.take().key_size == 2048
    finally:
        pairs.close()


def test_no_stock_named_or_an_unreadable_one_is_no_stock(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.delenv(STOCK_VARIABLE, raising=False)
    assert stocked_keys() == []
    monkeypatch.setenv(STOCK_VARIABLE, str(tmp_path / "missing.pem"))
    assert stocked_keys() == []


def test_a_stock_of_enough_keys_is_kept_and_a_short_one_made_anew(stock: Path, tmp_path: Path):
    before = stock.read_bytes()
    assert write_stock(stock, 3, bits=BITS).read_bytes() == before
    short = tmp_path / "short.pem"
    short.write_bytes(before.split(b"-----END PRIVATE KEY-----\n")[0] + b"-----END PRIVATE KEY-----\n")
    write_stock(short, 2, bits=BITS)
    assert short.read_bytes().count(b"-----END PRIVATE KEY-----") == 2
    assert not list(tmp_path.glob("*.partial"))
