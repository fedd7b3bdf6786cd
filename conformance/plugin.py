"""The pytest plugin of the conformance suite (entry point `pytest11: eris`).

Options name the target; fixtures give the tests what they need to check any implementation:

- `target`: the target description (`conformance.target.Target`);
- `contract`, `validator`: the contract data for the target's installation, and the validator;
- `api`: an HTTP client of the target (`Api`), every exchange recorded for the report, every answer bounded in time
  and size (conformance.bounded_http); a target that stops answering, or a run past its time limit, stops the run;
- `receiver`: the local HTTP receiver for report deliveries and notifications (started on first
  use, once per session);
- `report_key`: a fresh RSA-4096 key pair for one report order; `key_pairs` hands out more (`take()`).

A conformance test names what it checks with `@pytest.mark.requirement("ERIS-READ-001", ...)`.
Each test's outcome, requirements and exchanges travel in its report's `user_properties`, so that
they reach the controller under pytest-xdist too; `OUTCOMES` collects them there.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NoReturn, Protocol, TypeVar

import httpx
import pytest

from conformance.backoff import ATTEMPTS, GatewayBackoff, backoff_text
from conformance.bounded_http import AnswerTooLarge, AnswerTooSlow, BoundedClient, SuiteCouldNotSend
from conformance.concurrent_calls import findings_kept_apart, in_order
from conformance.key_pairs import KeyPairs, stocked_keys
from conformance.made_up import set_names_seed
from conformance.operations import operation_requirement
from conformance.outcomes import NOT_APPLICABLE, TO_EXERCISE, Blocked, Findings, FindingsFailed, TestOutcome
from conformance.settings import (
    DEFAULT_BACKOFF,
    DEFAULT_CONCURRENCY,
    DEFAULT_EXAMPLES,
    DEFAULT_MAX_ANSWER_SIZE,
    DEFAULT_REQUEST_TIMEOUT,
)
from conformance.target import Target, TargetError, load_target
from conformance.traffic import Exchange, Traffic, exchange_of_cut_answer, exchange_of_response
from profiles import Contract
from profiles.limits import LIMITS
from profiles.openapi_index import list_read, list_reads

if TYPE_CHECKING:  # imported where the fixtures are made: a run that needs neither does not pay for them
    from cryptography.hazmat.primitives.asymmetric import rsa

    from profiles.validator import Validator
    from reports.receipts import Delivery
    from reports.receiver import Receiver

__all__ = [
    "OUTCOMES",
    "Api",
    "Findings",
    "PropertyBudget",
    "SuiteCouldNotSend",
    "SuiteReceiver",
    "TestOutcome",
    "clause_not_exercised",
    "exercised",
    "not_applicable",
    "not_exercised",
    "run_stop_reason",
]

# The suite's helper modules fail with plain asserts too: rewrite them like the test modules.
pytest.register_assert_rewrite("conformance.suite")

REQUIREMENTS_PROPERTY = "eris_requirements"
EXCHANGES_PROPERTY = "eris_exchanges"
FINDINGS_PROPERTY = "eris_findings"
OWN_FAILURE_PROPERTY = "eris_own_failure"
CLAUSES_PROPERTY = "eris_clauses"
UNEXERCISED_PROPERTY = "eris_unexercised"
DEFAULT_COUNT = LIMITS.count_default  # a page shorter than the default count ends a read (ERIS-LIMIT-001)
READ_ALL_PAGE = 100
READ_ALL_LIMIT = 20_000
"""A collection read stops here: the suite reads test data, not a production register."""
REPORTS_PATH = "/v1/reports"
VERSION_PREFIX = "/v1"
_LIST_READ_PATHS = frozenset(found.path for found in list_reads())


FINDINGS = pytest.StashKey[Findings]()
_RUNNING: list[Findings] = []
"""The findings of the test running now (one at a time in a process): where a read records what it met that
breaks another requirement's rule, instead of failing the test for the requirements it cites."""
T = TypeVar("T")


def _running_findings() -> Findings | None:
    return _RUNNING[-1] if _RUNNING else None


def _recording() -> Findings | None:
    kept = findings_kept_apart()
    return kept if kept is not None else _running_findings()


def side_finding(requirement_id: str | None, message: str) -> bool:
    """Record `message` against `requirement_id` for the running test; False (nothing recorded) when no test
    runs or the rule names no requirement: the caller then fails as before. In a call of `Api.concurrently`,
    recorded for the call, and handed to the test in call order."""
    found = _recording()
    if found is None or requirement_id is None:
        return False
    found.add(requirement_id, message)
    return True


def exercised(requirement_id: str, clause: str, *, value: str, request: str) -> None:
    """Record that the running test exercised `clause` of `requirement_id` (a clause of its catalogue row) with
    `value`, taken from the target, in `request` (for example "GET /v1/parties?lastModified=2024-05-01"). A
    requirement with clauses passes only when every one was exercised by a test that held (the judgement)."""
    found = _recording()
    if found is not None:
        found.exercise(requirement_id, clause, f"{value} in {request}" if value not in request else request)


def clause_not_exercised(requirement_id: str, clause: str, reason: str, *, exercise: str) -> None:
    """Record, without stopping the running test, why it could not exercise `clause` of `requirement_id` and what
    would exercise it (the same words as `not_exercised`): the reports' to-do list names the clause with it."""
    found = _recording()
    if found is not None:
        found.leave(requirement_id, clause, f"{reason.rstrip('. ')}.{TO_EXERCISE}{exercise}")


def blocked(requirement_id: str | None, message: str) -> NoReturn:
    """A precondition of the running test broke `requirement_id`: recorded against it (see `side_finding`), and the
    test stops, reported skipped: what it cites was not exercised, and one defect fails its own requirement only.
    With no test running or no requirement, an AssertionError as before."""
    __tracebackhide__ = True
    if side_finding(requirement_id, message):
        raise Blocked(
            f"not exercised: {requirement_id} failed on the way: {message.rstrip('. ')}."
            f"{TO_EXERCISE}a fix of {requirement_id}, which failed on the way"
        )
    raise AssertionError(message)


SUITE_ERROR_EXERCISE = "a suite whose client can send it (report the error to the eris project)"
TOKEN_EXERCISE = "[target] token in the target description, or --token"


def not_exercised(reason: str, *, exercise: str) -> NoReturn:
    """Skip the running test for want of data or means: `reason` says what was looked for and where (a sentence,
    no final period needed), `exercise` what would exercise it: a [data] entry, a token, a feature, an option."""
    __tracebackhide__ = True
    pytest.skip(f"{reason.rstrip('. ')}.{TO_EXERCISE}{exercise}")


def not_applicable(reason: str) -> NoReturn:
    """Skip the running test because it does not apply to the target (an optional feature it does not declare):
    what it cites is neither exercised nor missing."""
    __tracebackhide__ = True
    pytest.skip(f"{NOT_APPLICABLE}{reason}")


OUTCOMES = pytest.StashKey[dict[str, TestOutcome]]()
TRAFFIC = pytest.StashKey[Traffic]()
STARTED = pytest.StashKey[float]()
RUN_STOP = pytest.StashKey[str]()
"""Why the run stopped before its end (a target that stopped answering, the run's time limit); set where it was
decided and, under pytest-xdist, on the controller from the report carrying it."""
_STOP_REPORTED = pytest.StashKey[bool]()
STOP_PROPERTY = "eris_run_stopped"


def run_stop_reason(config: pytest.Config) -> str | None:
    """Why the run stopped before its end, or None when it ran to its end (or was stopped otherwise)."""
    return config.stash.get(RUN_STOP, None)


def _stop_run(session: pytest.Session, reason: str) -> None:
    """No test starts after the running one: the certification is made of what was done, and says why."""
    session.config.stash.setdefault(RUN_STOP, reason)
    session.shouldstop = session.config.stash[RUN_STOP]


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("eris", "eris conformance target")
    group.addoption("--eris-target", metavar="FILE.toml", help="the conformance target description")
    group.addoption("--eris-base-url", metavar="URL", help="base URL of the target, without /v1 (overrides the file)")
    group.addoption("--eris-token", metavar="TOKEN", help="Bearer token with the report right (overrides the file)")
    group.addoption(
        "--eris-delivery-timeout", type=float, metavar="SECONDS", help="wait for a delivery or notification"
    )
    group.addoption(
        "--eris-examples",
        type=int,
        default=DEFAULT_EXAMPLES,
        metavar="N",
        help=f"generated examples per operation in the property phase (default {DEFAULT_EXAMPLES}; 0 skips it)",
    )
    group.addoption(
        "--eris-seed", type=int, metavar="N", help="seed of the property phase (default: a new one, reported)"
    )
    group.addoption(
        "--eris-names-seed", metavar="TEXT", help="seed of the names the suite makes up (conformance/made_up.py)"
    )
    group.addoption(
        "--eris-request-timeout",
        type=float,
        default=DEFAULT_REQUEST_TIMEOUT,
        metavar="SECONDS",
        help=f"time for a whole answer of the target (default {DEFAULT_REQUEST_TIMEOUT:g})",
    )
    group.addoption(
        "--eris-max-answer-size",
        type=int,
        default=DEFAULT_MAX_ANSWER_SIZE,
        metavar="BYTES",
        help=f"largest answer read, decompressed (default {DEFAULT_MAX_ANSWER_SIZE})",
    )
    group.addoption(
        "--eris-concurrency",
        type=int,
        default=DEFAULT_CONCURRENCY,
        metavar="N",
        help=f"requests of a test that do not depend on each other sent at once, at most N (default "
        f"{DEFAULT_CONCURRENCY}; 1: one after another)",
    )
    group.addoption(
        "--eris-backoff",
        type=float,
        default=DEFAULT_BACKOFF,
        metavar="SECONDS",
        help=f"wait after a 429 without Retry-After, doubled with each 429 in a row (default {DEFAULT_BACKOFF:g})",
    )
    group.addoption(
        "--eris-run-timeout",
        type=float,
        metavar="SECONDS",
        help="no request is sent after this time from the start of the session (default: no limit)",
    )
    group.addoption(
        "--eris-requirement",
        action="append",
        default=[],
        metavar="ID",
        help="only the tests citing this requirement (repeatable)",
    )


def pytest_configure(config: pytest.Config) -> None:
    if config.getoption("eris_concurrency") < 1:
        raise pytest.UsageError(f"--eris-concurrency must be 1 or more, not {config.getoption('eris_concurrency')}")
    if not config.getoption("eris_backoff") > 0:
        raise pytest.UsageError(f"--eris-backoff must be more than 0 seconds, not {config.getoption('eris_backoff'):g}")
    config.stash[STARTED] = time.monotonic()
    set_names_seed(config.getoption("eris_names_seed"))
    config.addinivalue_line("markers", "requirement(*ids): the catalogue requirements this conformance test checks")
    # declared here too, so that a run without pytest-xdist does not warn about the suite's groups
    config.addinivalue_line("markers", "xdist_group(name): tests that must run in one pytest-xdist worker")
    config.stash[OUTCOMES] = {}
    config.stash[TRAFFIC] = Traffic()
    config.pluginmanager.register(_OutcomeCollector(config), "eris-outcomes")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    wanted = set(config.getoption("eris_requirement") or ())
    if not wanted:
        return
    selected: list[pytest.Item] = []
    deselected: list[pytest.Item] = []
    for item in items:
        cited = {i for marker in item.iter_markers("requirement") for i in marker.args}
        (selected if cited & wanted else deselected).append(item)
    if deselected:
        config.hook.pytest_deselected(items=deselected)
        items[:] = selected


@pytest.fixture(scope="session")
def target(pytestconfig: pytest.Config) -> Target:
    try:
        return load_target(
            pytestconfig.getoption("eris_target"),
            base_url=pytestconfig.getoption("eris_base_url"),
            token=pytestconfig.getoption("eris_token"),
            delivery_timeout=pytestconfig.getoption("eris_delivery_timeout"),
        )
    except TargetError as error:
        pytest.exit(f"eris: {error}", returncode=2)


@pytest.fixture(scope="session")
def contract(target: Target, pytestconfig: pytest.Config) -> Contract:
    """The contract for the target's installation: the description's [installation], what it leaves out read
    from the target (conformance/target_installation.py), and more namespaces of a kind the target publishes."""
    from conformance.discovery import TargetStoppedAnswering
    from conformance.target_installation import UndecidedInstallation, target_installation
    from profiles import ConfigError

    try:
        found = target_installation(
            target,
            timeout=pytestconfig.getoption("eris_request_timeout"),
            max_answer_size=pytestconfig.getoption("eris_max_answer_size"),
        )
    except (ConfigError, UndecidedInstallation) as error:
        pytest.exit(f"eris: {error}", returncode=2)
    except TargetStoppedAnswering as error:
        pytest.exit(f"eris: the target stopped answering while its installation was read: {error}", returncode=2)
    _tell_once(pytestconfig, found.notes)
    return found.contract


def _tell_once(config: pytest.Config, lines: tuple[str, ...]) -> None:
    """`lines` on the run's stderr, past pytest's capture, once a run (not again from every worker)."""
    import contextlib
    import sys

    if not lines or getattr(config, "workerinput", {}).get("workerid", "gw0") != "gw0":
        return
    capture = config.pluginmanager.getplugin("capturemanager")
    with capture.global_and_fixture_disabled() if capture is not None else contextlib.nullcontext():
        print("\n".join(lines), file=sys.stderr, flush=True)


@pytest.fixture(scope="session")
def validator(contract: Contract) -> Validator:
    from profiles.validator import Validator

    return Validator(contract)


@dataclass(frozen=True)
class Bounds:
    """What the run allows the target: seconds for a whole answer, bytes of an answer (decompressed), and the
    moment (time.monotonic()) after which no request is sent (None: no limit)."""

    request_timeout: float = DEFAULT_REQUEST_TIMEOUT
    max_answer_size: int = DEFAULT_MAX_ANSWER_SIZE
    run_deadline: float | None = None
    run_timeout: float | None = None
    """The limit the deadline comes from, as given (for the reason of a stop)."""
    concurrency: int = DEFAULT_CONCURRENCY
    """Requests of one test sent at once, at most (`Api.concurrently`); 1: one after another."""
    backoff: float = DEFAULT_BACKOFF
    """Seconds waited after a 429 without Retry-After, doubled with each 429 in a row (conformance/backoff.py)."""


class Api:
    """The target over HTTP (a BoundedClient). Every exchange is recorded for the test that made it. After a 429
    no request of any thread is sent before the back-off is over (`gateway`: as Retry-After says, else the suite's
    own, growing); the refused request is sent again, so the gateway limit never fails a check. One still refused
    after ATTEMPTS sends skips its test as not exercised: the quota, not shown, is not the test's requirement.

    An answer past the bounds (`Bounds`) is a finding against the requirement of its operation. After a
    request that met no answer, the target is asked once more (GET /v1/value-sets); when that meets none either,
    the target has stopped answering: `stop_run` is told why, and every later request skips its test as not
    exercised. What the suite's own client cannot send is `SuiteCouldNotSend`, never the target's failure."""

    def __init__(
        self,
        target: Target,
        validator: Validator,
        traffic: Traffic,
        *,
        bounds: Bounds | None = None,
        stop_run: Callable[[str], None] | None = None,
    ) -> None:
        self.target = target
        self.validator = validator
        self.traffic = traffic
        self.bounds = bounds or Bounds()
        self._client = self._new_client()
        self._own = threading.local()
        self._thread_clients: list[BoundedClient] = []
        self._calls = (
            ThreadPoolExecutor(  # its threads start as calls need them
                max_workers=self.bounds.concurrency,
                thread_name_prefix="eris-call",
                initializer=self._give_this_thread_a_client,
            )
            if self.bounds.concurrency > 1
            else None
        )
        self.stopped: str | None = None
        """Why no request is sent any more (the target stopped answering, the run's time limit)."""
        self._stopped_exercise = ""
        self._stop_run = stop_run or (lambda reason: None)
        self._stopping = threading.Lock()
        self._identifier_probes: dict[tuple[str, str], str | None] = {}
        self.gateway = GatewayBackoff(self.bounds.backoff)

    def _new_client(self) -> BoundedClient:
        return BoundedClient(
            base_url=self.target.base_url,
            request_timeout=self.bounds.request_timeout,
            max_answer_size=self.bounds.max_answer_size,
        )

    @property
    def client(self) -> BoundedClient:
        """The HTTP client of this thread. Each thread of `concurrently` has its own, with its own connections:
        httpcore's pool, shared by threads, may close an idle connection that another thread has just been given
        (an EBADF in the middle of a run, charged to the target)."""
        own: BoundedClient | None = getattr(self._own, "client", None)
        return own if own is not None else self._client

    def _give_this_thread_a_client(self) -> None:
        client = self._new_client()
        self._thread_clients.append(client)  # list.append is atomic: threads start one by one anyway
        self._own.client = client

    def close(self) -> None:
        if self._calls is not None:
            self._calls.shutdown(wait=False, cancel_futures=True)
        for client in (self._client, *self._thread_clients):
            client.close()

    def request(
        self,
        method: str,
        path: str,
        *,
        params: Any = None,
        json: Any = None,
        content: bytes | None = None,
        headers: dict[str, str] | None = None,
        token: str | None = None,
    ) -> httpx.Response:
        """`token`: sent as Bearer when given. Elsewhere than POST /v1/reports the target's token goes with
        every request that names no credentials: authentication there is not shown, so a target may demand
        it. Tests of POST /v1/reports always say which credentials they send. An empty token is no token: a
        Bearer without one is not sent."""
        self._check_still_running()
        headers = dict(headers or {})
        if token is None and path != REPORTS_PATH and "authorization" not in {h.lower() for h in headers}:
            token = self.target.token
        if token:
            headers["Authorization"] = f"Bearer {token}"
        waited = 0.0
        for _ in range(ATTEMPTS):
            waited += self.gateway.wait()
            response = self._exchange(method, path, params=params, json=json, content=content, headers=headers)
            if response.status_code != 429:
                self.gateway.answered()
                return response
            self.refused(response)
        not_exercised(
            f"{method} {path} was answered 429 {ATTEMPTS} times in a row, after {waited:.0f} s of back-off "
            f"({backoff_text(self.bounds.backoff)})",
            exercise="a gateway quota that lets the suite's requests through after its back-off (a Retry-After "
            "that says how long to wait, or a longer --backoff)",
        )

    def refused(self, response: httpx.Response) -> float:
        """`response` is a 429: no request of this Api is sent before its back-off is over (the seconds returned).
        For a 429 met outside `request` too (a burst of the test's own clients)."""
        return self.gateway.refused(_retry_after(response))

    def _exchange(self, method: str, path: str, **parts: Any) -> httpx.Response:
        try:
            request = self.client.build_request(method, path, **parts)
        except Exception as error:  # whatever building fails on is the client's own doing: nothing was sent
            raise SuiteCouldNotSend(
                f"{method} {path}: the suite's client could not make the request: {_error_text(error)}"
            ) from error
        started = time.time()
        try:
            response = self.client.send(request)
        except (httpx.LocalProtocolError, httpx.UnsupportedProtocol) as error:
            raise SuiteCouldNotSend(
                f"{method} {request.url}: the suite's client refused to send it: {_error_text(error)}"
            ) from error
        except AnswerTooLarge as error:
            self.traffic.record(exchange_of_cut_answer(request, error.response, error.received, started))
            _fails_its_operation(method, path, f"{method} {request.url}: {error}")
        except AnswerTooSlow as error:
            self.traffic.record(exchange_of_cut_answer(request, error.response, error.received, started))
            stopped = self._stop_if_silent(f"{method} {request.url}: {error}")
            _fails_its_operation(
                method,
                path,
                f"{method} {request.url}: {error}" + ("; then the target stopped answering" if stopped else ""),
            )
        except httpx.TransportError as error:
            self._stop_if_silent(f"{method} {request.url}: {_error_text(error)}")
            raise
        self.traffic.record(exchange_of_response(response, started))
        return response

    def _check_still_running(self) -> None:
        deadline = self.bounds.run_deadline
        if self.stopped is None and deadline is not None and time.monotonic() > deadline:
            self._stop(
                f"the run reached its time limit of {self.bounds.run_timeout:g} s (--run-timeout)",
                exercise="a longer --run-timeout",
            )
        if self.stopped is not None:
            not_exercised(f"the run stopped before this test ended: {self.stopped}", exercise=self._stopped_exercise)

    def _stop_if_silent(self, what: str) -> bool:
        """After `what` met no answer: whether the target answers at all (any answer to GET /v1/value-sets within
        the request timeout). When it does not, the run stops."""
        try:
            self.client.get("/v1/value-sets", params={"count": 1})
            return False
        except AnswerTooLarge:
            return False
        except httpx.HTTPError as error:
            self._stop(
                f"the target stopped answering: {what}; and GET /v1/value-sets after it: {_error_text(error)}",
                exercise="a target that answers throughout the run (see the last exchanges in traffic.har)",
            )
            return True

    def _stop(self, reason: str, *, exercise: str) -> None:
        with self._stopping:  # requests in threads (`concurrently`) may meet a silent target at once
            if self.stopped is not None:
                return
            self.stopped, self._stopped_exercise = reason, exercise
        self._stop_run(reason)

    def concurrently(self, calls: Sequence[Callable[[], T]]) -> list[T]:
        """The results of `calls`, calls of this Api that do not depend on each other, in their order: at most
        `bounds.concurrency` sent at once. To the test it is as if they ran one after another: the first failure
        in call order is raised (a skip, a blocked precondition, an assertion, a stop of the run), the exchanges
        are recorded and the findings made in call order (conformance/concurrent_calls.py). After a 429 every
        thread waits out the back-off, and the refused request is sent again. Only for requests that do not depend
        on each other's answers, nor on their order."""
        return in_order(calls, threads=self._calls, traffic=self.traffic, test=_running_findings())

    def get(self, path: str, params: Any = None, *, paging_defaults: bool = False, **kwargs: Any) -> httpx.Response:
        """A list read states `offset` unless `paging_defaults`: the default is ERIS-LIMIT-002's own test, and a
        wrong default would otherwise reach every read of every test."""
        if not paging_defaults and path in _LIST_READ_PATHS:
            params = _with_offset(params)
        return self.request("GET", path, params=params, **kwargs)

    def post(self, path: str, json: Any = None, **kwargs: Any) -> httpx.Response:
        return self.request("POST", path, json=json, **kwargs)

    def patch(self, path: str, json: Any = None, params: Any = None, **kwargs: Any) -> httpx.Response:
        return self.request("PATCH", path, json=json, params=params, **kwargs)

    def read(
        self, path: str, params: Any = None, *, resource_type: str | None = None, paging_defaults: bool = False
    ) -> list[dict[str, Any]]:
        """A read that must succeed: 200, a JSON envelope with `items` (a list) and `nextToken`, and
        every item valid by the validator as `resource_type` (when given). Returns the items."""
        response = self.get(path, params, paging_defaults=paging_defaults)
        if response.status_code == 404 and path in _LIST_READ_PATHS:
            self._unprefixed(path, response)
        assert response.status_code == 200, f"GET {response.request.url} answered {response.status_code}"
        body = _json(response)
        assert isinstance(body, dict) and isinstance(body.get("items"), list), (
            f"GET {response.request.url}: the answer is not the envelope {{items, nextToken}}"
        )
        if "nextToken" not in body and not side_finding(
            "ERIS-READ-001", f"GET {response.request.url}: the envelope has no nextToken"
        ):
            raise AssertionError(f"GET {response.request.url}: the envelope has no nextToken")
        if resource_type is not None:
            for position, item in enumerate(body["items"]):
                self.judge(item, resource_type, where=f"GET {response.request.url} items[{position}]")
        return body["items"]

    def judge(self, document: Any, resource_type: str, *, where: str) -> None:
        """A served document met on the way: each error is recorded against the requirement of its rule, for
        the test running (see `side_finding`); an error of no requirement fails the test as assert_valid does."""
        unplaced = []
        for issue in self.validator.validate(document, resource_type=resource_type):
            if issue.is_error:
                text = f"{where}: {issue.location or '/'}: {issue.message} [{issue.code}]"
                if not side_finding(issue.requirement, text):
                    unplaced.append(f"{issue.location or '/'}: {issue.message} [{issue.code}]")
        assert not unplaced, f"{where} breaks the contract:\n  " + "\n  ".join(unplaced)

    def read_identified(
        self, path: str, system: str, value: str, *, resource_type: str | None = None
    ) -> list[dict[str, Any]]:
        """The items a read by identifier=`system`|`value` answers that carry that identifier. Items that do not
        are the identifier filter's defect: recorded against the requirement listing the filter for the read,
        so that a test reading back what it wrote judges its own requirement on the items it asked for."""
        items = self.read(path, {"identifier": f"{system}|{value}", "count": 100}, resource_type=resource_type)
        carrying = [item for item in items if _carries(item, system, value)]
        flt = list_read(path).filters["identifier"]
        if len(carrying) < len(items):
            other = [item.get("id") for item in items if not _carries(item, system, value)]
            message = f"GET {path}?identifier={system}|{value} answered items without that identifier: {other[:10]}"
            if not side_finding(flt.requirement, message):
                return items
        if not carrying and (broken := self.identifier_filter_fails(path, system)):
            blocked(flt.requirement, broken)  # nothing is found by this identifier form: not this test's defect
        return carrying

    def identifier_filter_fails(self, path: str, system: str) -> str | None:
        """Why a read by identifier in `system` cannot be trusted to find anything: a served item carrying an
        identifier of the system is not found by it (once per path and system). None when it works, or when no
        served item shows the system."""
        key = (path, system)
        if key not in self._identifier_probes:
            self._identifier_probes[key] = None
            for item in self.read(path, {"count": 100}):
                known = next(
                    (i for i in item.get("identifier") or [] if isinstance(i, dict) and i.get("system") == system), None
                )
                if known is None or not isinstance(known.get("value"), str):
                    continue
                token = f"{system}|{known['value']}"
                found = self.read(path, {"identifier": token, "count": 100})
                if item.get("id") not in [i.get("id") for i in found]:
                    self._identifier_probes[key] = (
                        f"GET {path}?identifier={token} does not find {item.get('id')}, served with it"
                    )
                break
        return self._identifier_probes[key]

    def _unprefixed(self, path: str, response: httpx.Response) -> None:
        """A list read of the contract answered 404: when the read answers without the version prefix, that is
        ERIS-VER-001's defect, and the test reading it was blocked by it."""
        bare = path.removeprefix(VERSION_PREFIX)
        if self.request("GET", bare, params={"count": 1}).status_code == 200:
            blocked("ERIS-VER-001", f"GET {response.request.url} answered 404 and GET {bare} answers 200")

    def read_all(self, path: str, params: dict[str, Any] | None = None, **kwargs: Any) -> list[dict[str, Any]]:
        """Every item of a read: pages of READ_ALL_PAGE with the offset advanced by what arrived, until an
        empty page or one shorter than the default count (a target may cap `count`: its maximum is not
        shown). Fails when a page repeats an item already read (an offset that is not honoured)."""
        found: list[dict[str, Any]] = []
        seen: set[Any] = set()
        while len(found) < READ_ALL_LIMIT:
            page = self.read(path, {**(params or {}), "count": READ_ALL_PAGE, "offset": len(found)}, **kwargs)
            if not page:
                return found
            assert len(page) <= READ_ALL_PAGE, f"GET {path} with count={READ_ALL_PAGE} answered {len(page)} items"
            keys = {key for key in (item.get("id", item.get("url")) for item in page) if key is not None}
            repeated = seen & keys
            assert not repeated, (
                f"GET {path} with offset={len(found)} answered items already on an earlier page: "
                f"{sorted(map(str, repeated))[:5]}"
            )
            found += page
            seen |= keys
            if len(page) < DEFAULT_COUNT:
                return found
        return found

    def assert_valid(self, document: Any, resource_type: str, *, where: str = "", context: str = "resource") -> None:
        errors = [
            f"{issue.location or '/'}: {issue.message} [{issue.code}]"
            for issue in self.validator.validate(document, resource_type=resource_type, context=context)
            if issue.is_error
        ]
        assert not errors, f"{where or resource_type} breaks the contract:\n  " + "\n  ".join(errors)


def _fails_its_operation(method: str, path: str, message: str) -> NoReturn:
    """An answer past the run's bounds: a finding against its operation's requirement, which blocks the test (see
    `blocked`); an operation outside the contract fails the test itself."""
    __tracebackhide__ = True
    blocked(operation_requirement(method, path), message)


def _error_text(error: BaseException) -> str:
    text = " ".join(str(error).split())
    if isinstance(error, AnswerTooLarge | AnswerTooSlow):
        return text  # says what happened in the words of the run's options
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


def _retry_after(response: httpx.Response) -> float | None:
    from reports.client import retry_after_seconds

    return retry_after_seconds(response.headers.get("Retry-After"))


def _json(response: httpx.Response) -> Any:
    """The JSON of a successful answer; one that is not JSON breaks ERIS-GEN-001 and blocks the test reading it."""
    try:
        return response.json()
    except ValueError:
        message = (
            f"{response.request.method} {response.request.url} answered {response.status_code} without JSON: "
            f"{response.text[:200]!r}"
        )
        if 200 <= response.status_code < 300:
            blocked("ERIS-GEN-001", message)
        raise AssertionError(message) from None


def _with_offset(params: Any) -> Any:
    if params is None:
        return {"offset": LIMITS.offset_default}
    if isinstance(params, dict):
        return params if "offset" in params else {**params, "offset": LIMITS.offset_default}
    pairs = list(params)
    return pairs if any(name == "offset" for name, _ in pairs) else [*pairs, ("offset", LIMITS.offset_default)]


def _carries(item: Any, system: str, value: str) -> bool:
    return isinstance(item, dict) and any(
        isinstance(i, dict) and i.get("system") == system and i.get("value") == value
        for i in item.get("identifier") or []
    )


def bounds_of(config: pytest.Config) -> Bounds:
    run_timeout = config.getoption("eris_run_timeout")
    return Bounds(
        request_timeout=config.getoption("eris_request_timeout"),
        max_answer_size=config.getoption("eris_max_answer_size"),
        run_deadline=None if run_timeout is None else config.stash[STARTED] + run_timeout,
        run_timeout=run_timeout,
        concurrency=config.getoption("eris_concurrency"),
        backoff=config.getoption("eris_backoff"),
    )


@pytest.fixture(scope="session")
def api(target: Target, validator: Validator, request: pytest.FixtureRequest) -> Iterator[Api]:
    config = request.config
    session = request.session
    client = Api(
        target, validator, config.stash[TRAFFIC], bounds=bounds_of(config), stop_run=lambda why: _stop_run(session, why)
    )
    try:
        probe = client.client.get("/v1/value-sets", params={"count": 1})
    except AnswerTooLarge:
        probe = None  # it answers: the read's own test judges the size
    except httpx.HTTPError as error:
        pytest.exit(f"eris: the target {target.base_url} cannot be reached: {_error_text(error)}", returncode=2)
    if probe is not None and probe.status_code == 401 and not target.token:
        pytest.exit(
            f"eris: the target {target.base_url} answers 401 to GET /v1/value-sets: it demands a token on its reads, "
            "and none is given ([target] token in the target description, or --token)",
            returncode=2,
        )
    yield client
    client.close()


class _RecordedReceiver:
    """Moves the receiver's inbound exchanges into the run's traffic as tests finish."""

    def __init__(self, receiver: Receiver, traffic: Traffic) -> None:
        self.receiver = receiver
        self.traffic = traffic
        self.seen = 0

    def collect(self) -> None:
        exchanges = self.receiver.exchanges()
        for exchange in exchanges[self.seen :]:
            self.traffic.inbound(
                started=exchange.started,
                duration=exchange.duration,
                method=exchange.method,
                url=exchange.url,
                request_headers=exchange.request_headers,
                request_body=exchange.request_body
                if exchange.request_body is not None
                else _delivered(self.receiver, exchange.url, exchange.request_body_size),
                request_body_size=exchange.request_body_size,
                status=exchange.status,
                response_headers=exchange.response_headers,
                response_body=exchange.response_body,
            )
        self.seen = len(exchanges)


def _delivered(receiver: Receiver, url: str, size: int) -> bytes | None:
    """The artifact an inbound exchange delivered (the receiver keeps it on disk): in traffic.har, so that `eris
    verify` delivers it again."""
    name = url.rstrip("/").rpartition("/")[2]
    found = [delivery for delivery in receiver.deliveries(name) if delivery.size == size]
    try:
        return found[-1].path.read_bytes() if found else None
    except OSError:
        return None


RECEIVER = pytest.StashKey[_RecordedReceiver]()
RECEIVER_EXERCISE = (
    "[receiver] host and port of this machine that the target can reach, or public_url (the address the target "
    "sees, a tunnel) in the target description"
)


@pytest.fixture(scope="session")
def receiver(target: Target, pytestconfig: pytest.Config) -> Iterator[SuiteReceiver]:
    from reports.receiver import Receiver

    settings = target.receiver
    started = Receiver(host=settings.host, port=settings.port, public_url=settings.public_url or None)
    try:
        started.start()
    except OSError as error:
        pytest.exit(f"eris: the receiver cannot listen on {settings.host}:{settings.port}: {error}", returncode=2)
    from conformance.reachability import receiver_unreachable

    pytestconfig.stash[RECEIVER] = _RecordedReceiver(started, pytestconfig.stash[TRAFFIC])
    unreachable = receiver_unreachable(started.url, target.base_url)
    yield started if unreachable is None else _UnreachableReceiver(started, unreachable)
    started.stop()


class SuiteReceiver(Protocol):
    """The `receiver` fixture as the tests use it: a reports.receiver.Receiver, or one the target cannot reach
    (whose waits skip the test as not exercised)."""

    @property
    def url(self) -> str: ...

    @property
    def notification_url(self) -> str: ...

    def delivery_url(self, name: str) -> str: ...

    def notifications(self) -> list[dict[str, Any]]: ...

    def wait_for_delivery(self, name: str, timeout: float) -> Delivery: ...

    def wait_for_notification(self, predicate: Callable[[dict[str, Any]], bool], timeout: float) -> dict[str, Any]: ...


class _UnreachableReceiver:
    """The receiver, at an address the target cannot reach: an order still names it (a refusal needs no delivery),
    but a wait for what the target sends there is not exercised, never the target's failure."""

    def __init__(self, receiver: Receiver, reason: str) -> None:
        self._receiver = receiver
        self._reason = reason

    @property
    def url(self) -> str:
        return self._receiver.url

    @property
    def notification_url(self) -> str:
        return self._receiver.notification_url

    def delivery_url(self, name: str) -> str:
        return self._receiver.delivery_url(name)

    def notifications(self) -> list[dict[str, Any]]:
        return self._receiver.notifications()

    def wait_for_delivery(self, name: str, timeout: float) -> NoReturn:
        not_exercised(self._reason, exercise=RECEIVER_EXERCISE)

    def wait_for_notification(self, predicate: Callable[[dict[str, Any]], bool], timeout: float) -> NoReturn:
        not_exercised(self._reason, exercise=RECEIVER_EXERCISE)


@dataclass(frozen=True)
class PropertyBudget:
    examples: int
    """Generated examples per operation (or per property); 0: the property phase is skipped."""
    seed: int
    """The seed every property of the run starts from: the same seed generates the same requests."""


@pytest.fixture(scope="session")
def property_budget(pytestconfig: pytest.Config) -> PropertyBudget:
    import random

    examples = pytestconfig.getoption("eris_examples")
    if examples is None or examples <= 0:
        not_exercised(
            "the property phase is off (--examples 0)",
            exercise=f"--examples N, more than 0 (the default is {DEFAULT_EXAMPLES})",
        )
    seed = pytestconfig.getoption("eris_seed")
    return PropertyBudget(examples, seed if seed is not None else random.randrange(2**32))


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    found = Findings()
    item.stash[FINDINGS] = found
    _RUNNING.append(found)


@pytest.hookimpl(trylast=True)
def pytest_runtest_teardown(item: pytest.Item) -> None:
    found = item.stash.get(FINDINGS, None)
    if found is not None and found in _RUNNING:
        _RUNNING.remove(found)
    bounds = bounds_of(item.config)
    if bounds.run_deadline is not None and time.monotonic() > bounds.run_deadline:
        _stop_run(item.session, f"the run reached its time limit of {bounds.run_timeout:g} s (--run-timeout)")


@pytest.fixture
def findings(request: pytest.FixtureRequest) -> Findings:
    """Failures of this test recorded per requirement (see `Findings`)."""
    return request.node.stash[FINDINGS]


KEY_PAIRS = pytest.StashKey[KeyPairs]()


def _key_pairs(config: pytest.Config) -> KeyPairs:
    if KEY_PAIRS not in config.stash:
        # pytest-xdist workers are gw0, gw1, ...: each takes its own share of a stock
        worker = getattr(config, "workerinput", {"workerid": "gw0", "workercount": 1})
        parts = worker["workercount"]
        part = int(worker["workerid"].removeprefix("gw").partition("-")[0] or 0) % parts
        config.stash[KEY_PAIRS] = KeyPairs(stock=stocked_keys(part, parts))
    return config.stash[KEY_PAIRS]


@pytest.hookimpl(trylast=True)
def pytest_collection_finish(session: pytest.Session) -> None:
    # the first keys are made while the tests before the first order run; a pytest-xdist worker, which may run
    # none of the tests that order, starts its maker on its first key
    if hasattr(session.config, "workerinput"):
        return
    if any("key_pairs" in getattr(item, "fixturenames", ()) for item in session.items):
        _key_pairs(session.config).start()


def pytest_unconfigure(config: pytest.Config) -> None:
    if KEY_PAIRS in config.stash:
        config.stash[KEY_PAIRS].close()


@pytest.fixture(scope="session")
def key_pairs(pytestconfig: pytest.Config) -> KeyPairs:
    """Fresh RSA-4096 key pairs, one for each order (`take()`), made ahead by a process of their own."""
    return _key_pairs(pytestconfig)


@pytest.fixture
def report_key(key_pairs: KeyPairs) -> rsa.RSAPrivateKey:
    """A fresh RSA-4096 key pair: the contract asks for a new pair for each order."""
    return key_pairs.take()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    report = yield
    recorded = item.config.stash.get(RECEIVER, None)
    if recorded is not None:
        recorded.collect()
    marker_ids = [i for marker in item.iter_markers("requirement") for i in marker.args]
    found = item.stash.get(FINDINGS, None)
    if found is not None and report.when == "call":
        summary = found.summary()
        marker_ids += [requirement_id for requirement_id in summary if requirement_id not in marker_ids]
        report.user_properties.append((FINDINGS_PROPERTY, summary))
        report.user_properties.append((CLAUSES_PROPERTY, found.exercised))
        report.user_properties.append((UNEXERCISED_PROPERTY, found.unexercised))
        own = report.failed and not (call.excinfo is not None and call.excinfo.errisinstance(FindingsFailed))
        report.user_properties.append((OWN_FAILURE_PROPERTY, own))
        if summary and report.passed:  # its own checks held; what it met on the way fails other requirements
            report.outcome = "failed"
            report.longrepr = "\n".join(f"E   {rid}: {message}" for rid, message in summary.items())
        elif call.excinfo is not None and call.excinfo.errisinstance(Blocked):
            # the finding fails its requirement (outcome_for); the requirements cited were not exercised
            path, line, _ = item.reportinfo()
            report.outcome = "skipped"
            report.longrepr = (str(path), (line or 0) + 1, f"Skipped: {call.excinfo.value}")
    if report.failed and call.excinfo is not None and call.excinfo.errisinstance(SuiteCouldNotSend):
        # the suite's own client failed: what the test cites was not exercised (its skip says why)
        path, line, _ = item.reportinfo()
        report.outcome = "skipped"
        reason = f"the suite could not send a request: {call.excinfo.value}"
        report.longrepr = (str(path), (line or 0) + 1, f"Skipped: {reason}{TO_EXERCISE}{SUITE_ERROR_EXERCISE}")
    if RUN_STOP in item.config.stash and not item.config.stash.get(_STOP_REPORTED, False):
        item.config.stash[_STOP_REPORTED] = True  # carried to the controller under pytest-xdist
        report.user_properties.append((STOP_PROPERTY, item.config.stash[RUN_STOP]))
    report.user_properties.append((REQUIREMENTS_PROPERTY, marker_ids))
    exchanges: list[Exchange] = item.config.stash[TRAFFIC].take()
    report.user_properties.append((EXCHANGES_PROPERTY, [e.to_dict() for e in exchanges]))
    return report


class _OutcomeCollector:
    """Gathers each test's outcome where reports arrive (the controller, under pytest-xdist)."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.outcomes = config.stash[OUTCOMES]

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        outcome = self.outcomes.setdefault(report.nodeid, TestOutcome(report.nodeid))
        # plain data, as pytest_runtest_makereport wrote it (and pytest-xdist carried it to this process)
        properties: dict[str, Any] = dict(report.user_properties)
        if STOP_PROPERTY in properties:
            self.config.stash.setdefault(RUN_STOP, properties[STOP_PROPERTY])
        outcome.requirements = sorted(set(outcome.requirements) | set(properties.get(REQUIREMENTS_PROPERTY, [])))
        outcome.exchanges += properties.get(EXCHANGES_PROPERTY, [])
        outcome.findings.update(properties.get(FINDINGS_PROPERTY, {}))
        for requirement_id, clauses in properties.get(CLAUSES_PROPERTY, {}).items():
            outcome.clauses.setdefault(requirement_id, {}).update(clauses)
        for requirement_id, clauses in properties.get(UNEXERCISED_PROPERTY, {}).items():
            outcome.unexercised.setdefault(requirement_id, {}).update(clauses)
        if OWN_FAILURE_PROPERTY in properties:
            outcome.own_failure = properties[OWN_FAILURE_PROPERTY]
        outcome.duration += report.duration
        if report.failed:
            outcome.outcome = "failed" if report.when == "call" else "error"
            outcome.message = _message(report)
        elif report.skipped and outcome.outcome == "passed":
            outcome.outcome = "skipped"
            outcome.message = _message(report)


def _message(report: pytest.TestReport) -> str:
    """The part of a failure a vendor reads first: pytest's `E` lines, else the last line."""
    if report.skipped and isinstance(report.longrepr, tuple):
        return str(report.longrepr[2]).removeprefix("Skipped: ")
    text = (report.longreprtext or "").strip()
    explained = "\n".join(line[1:].strip() for line in text.splitlines() if line.startswith("E "))
    return explained or (text.splitlines()[-1] if text else "")
