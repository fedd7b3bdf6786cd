"""The suite's client of the target, `Api` (the `api` fixture): requests bounded in time and size
(bounded_http.py), each exchange recorded for the test that made it, the gateway's 429 waited out, reads checked
as the contract shapes them, and a target that stops answering stopping the run. `Bounds` are what a run allows
the target."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar

import httpx

from conformance.catalogue.operations import operation_requirement
from conformance.client.backoff import ATTEMPTS, GatewayBackoff, backoff_text
from conformance.client.bounded_http import AnswerTooLarge, AnswerTooSlow, BoundedClient, SuiteCouldNotSend, error_text
from conformance.client.concurrent_calls import in_order
from conformance.client.recording import blocked, not_exercised, running_findings, served_warning, side_finding
from conformance.client.traffic import Traffic, exchange_of_cut_answer, exchange_of_response
from conformance.configuration.settings import Bounds
from conformance.configuration.target import Target
from profiles.issues import Severity
from profiles.limits import LIMITS
from profiles.openapi_index import list_read, list_reads

if TYPE_CHECKING:
    from profiles.validator import Validator

__all__ = ["DEFAULT_COUNT", "READ_ALL_PAGE", "Api", "Bounds", "SuiteCouldNotSend"]

DEFAULT_COUNT = LIMITS.count_default  # a page shorter than the default count ends a read (ERIS-LIMIT-001)
READ_ALL_PAGE = 100
READ_ALL_LIMIT = 20_000
"""A collection read stops here: the suite reads test data, not a production register."""
REPORTS_PATH = "/v1/reports"
VERSION_PREFIX = "/v1"
_LIST_READ_PATHS = frozenset(found.path for found in list_reads())
T = TypeVar("T")


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
                f"{method} {path}: the suite's client could not make the request: {error_text(error)}"
            ) from error
        started = time.time()
        try:
            response = self.client.send(request)
        except (httpx.LocalProtocolError, httpx.UnsupportedProtocol) as error:
            raise SuiteCouldNotSend(
                f"{method} {request.url}: the suite's client refused to send it: {error_text(error)}"
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
            self._stop_if_silent(f"{method} {request.url}: {error_text(error)}")
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
                f"the target stopped answering: {what}; and GET /v1/value-sets after it: {error_text(error)}",
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
        are recorded and the findings made in call order (conformance/client/concurrent_calls.py). After a 429 every
        thread waits out the back-off, and the refused request is sent again. Only for requests that do not depend
        on each other's answers, nor on their order."""
        return in_order(calls, threads=self._calls, traffic=self.traffic, test=running_findings())

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
            if issue.severity is Severity.WARNING:
                served_warning(document, resource_type, issue, where)
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
