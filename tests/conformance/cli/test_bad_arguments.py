"""Every bad argument of the command line is one clear line and exit status 2, never a traceback; nothing is
created on the way (issue: `eris token --keys <missing>` used to make a new key pair no server trusts)."""

from __future__ import annotations

import socket

import pytest

from conformance.cli import main

BAD_ARGUMENTS = {
    "token-lifetime-0": (["token", "--lifetime", "0"], "--lifetime"),
    "token-lifetime-negative": (["token", "--lifetime", "-5"], "--lifetime"),
    "token-empty-subject": (["token", "--subject", ""], "--subject"),
    "serve-port-out-of-range": (["serve", "--port", "99999"], "0 to 65535"),
    "receive-port-out-of-range": (["receive", "--port", "99999"], "0 to 65535"),
    "serve-negative-source-changes": (["serve", "--source-changes", "-1"], "--source-changes"),
    "keygen-bits-zero": (["keygen", "--bits", "0"], "--bits"),
}


@pytest.mark.parametrize("case", sorted(BAD_ARGUMENTS))
def test_a_bad_argument_is_one_usage_line_and_exit_2(case, capsys):
    argv, named = BAD_ARGUMENTS[case]
    with pytest.raises(SystemExit) as exited:
        main(argv)
    err = capsys.readouterr().err
    assert exited.value.code == 2
    assert named in err and "Traceback" not in err


@pytest.mark.parametrize("limit", ["inf", "-5", "nan", "10:0", "ten"])
def test_a_rate_limit_that_is_not_a_finite_rate_is_refused_not_turned_off(limit, capsys, tmp_path):
    assert main(["serve", "--rate-limit", limit, "--db", str(tmp_path / "db"), "--keys", str(tmp_path / "k")]) == 2
    err = capsys.readouterr().err
    assert "--rate-limit" in err and "Traceback" not in err


def test_a_token_is_never_signed_by_a_key_pair_made_on_the_spot(tmp_path, capsys):
    missing = tmp_path / "no-keys-here"
    assert main(["token", "--keys", str(missing)]) == 2
    assert "no application key pair" in capsys.readouterr().err
    assert not missing.exists()


def test_an_unreachable_target_is_one_line_not_a_connect_error_traceback(capsys):
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        closed = probe.getsockname()[1]
    argv = ["report", "--target", f"http://127.0.0.1:{closed}", "--token", "x"]
    assert main([*argv, "--company", "7251801126", "--year", "2024", "--month", "1"]) == 2
    err = capsys.readouterr().err
    assert "cannot reach" in err and "Traceback" not in err


def test_an_application_key_pair_is_made_only_when_asked_and_never_overwritten(tmp_path, capsys):
    from reference_impl.tokens import ApplicationKeys

    keys = tmp_path / "keys"
    assert main(["keygen", "--application", str(keys)]) == 0
    first = (keys / ApplicationKeys.PRIVATE_FILE).read_bytes()
    assert main(["token", "--keys", str(keys)]) == 0
    token = capsys.readouterr().out.strip().splitlines()[-1]
    assert token.count(".") == 2
    assert main(["keygen", "--application", str(keys)]) == 2
    assert "never overwritten" in capsys.readouterr().err
    assert (keys / ApplicationKeys.PRIVATE_FILE).read_bytes() == first
