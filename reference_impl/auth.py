"""Authentication over HTTP: which requests must carry a Bearer token (`AuthPolicy`), the middleware that checks
tokens (reference_impl.tokens) and answers 401, and the 403 of a caller without the right (`require_right`)."""

from __future__ import annotations

from dataclasses import dataclass, field

from aiohttp import hdrs, web
from aiohttp.typedefs import Handler, Middleware

from reference_impl.problems import PROBLEM_JSON, problem
from reference_impl.tokens import CLAIMS_KEY, REALM, REPORT_RIGHT, Claims, InvalidToken, TokenVerifier

__all__ = ["AuthPolicy", "auth_middleware", "claims_of", "require_right"]


def _challenge(error: str | None = None, description: str | None = None) -> dict[str, str]:
    # RFC 6750 section 3; descriptions are fixed texts without quotes or backslashes.
    value = f'Bearer realm="{REALM}"'
    if error is not None:
        value += f', error="{error}"'
    if description is not None:
        value += f', error_description="{description}"'
    return {hdrs.WWW_AUTHENTICATE: value}


@dataclass(frozen=True)
class AuthPolicy:
    """Which requests must carry a valid Bearer token.

    `protected` holds (METHOD, path) pairs matched against the decoded request path, as the router
    matches it; HEAD counts as GET. `all_endpoints` demands a token on every request: the contract
    leaves the authentication of endpoints other than POST /v1/reports open ("not shown"), so both
    answers are conformant and the server offers either.
    """

    protected: frozenset[tuple[str, str]] = field(default_factory=lambda: frozenset({("POST", "/v1/reports")}))
    all_endpoints: bool = False

    def demands_token(self, method: str, path: str) -> bool:
        if self.all_endpoints:
            return True
        method = "GET" if method == "HEAD" else method
        return (method, path) in self.protected


def auth_middleware(verifier: TokenVerifier, policy: AuthPolicy | None = None) -> Middleware:
    """Checks Bearer tokens as `policy` demands and stores the claims under `CLAIMS_KEY`.

    On a protected request a missing, non-Bearer or invalid token ends in 401. On any other request a
    valid token is still read (the rate limit counts per token subject) and an invalid one is ignored.
    Place it before `rate_limit_middleware` in `web.Application(middlewares=[...])`.
    """
    policy = AuthPolicy() if policy is None else policy

    @web.middleware
    async def authenticate(request: web.Request, handler: Handler) -> web.StreamResponse:
        demanded = policy.demands_token(request.method, request.path)
        given = request.headers.getall(hdrs.AUTHORIZATION, ())
        if not given:
            if demanded:
                return problem(401, "the request has no Authorization header", headers=_challenge())
            return await handler(request)
        if len(given) > 1:  # which one counts would be a guess
            return problem(400, "the request has more than one Authorization header")
        authorization = given[0]
        scheme, _, credentials = authorization.strip().partition(" ")
        if scheme.lower() != "bearer" or not credentials.strip():
            if demanded:
                return problem(
                    401, "the Authorization header must use the Bearer scheme with a token", headers=_challenge()
                )
            return await handler(request)
        try:
            request[CLAIMS_KEY] = verifier.verify(credentials.strip())
        except InvalidToken as error:
            if demanded:
                return problem(
                    401,
                    f"the Bearer token was rejected: {error.reason}",
                    headers=_challenge("invalid_token", error.reason),
                )
        return await handler(request)

    return authenticate


def claims_of(request: web.Request) -> Claims | None:
    """The verified claims of the request, if it carried a valid token."""
    return request.get(CLAIMS_KEY)


def require_right(request: web.Request, right: str = REPORT_RIGHT) -> Claims:
    """The claims of the request when they hold `right`; else a Problem Details 403 is raised.

    A request without verified claims (its endpoint is not protected by the policy) gets 401, so a
    handler calling this is safe whatever the policy says.
    """
    claims = claims_of(request)
    if claims is None:
        raise web.HTTPUnauthorized(
            text=problem(401, "this operation requires a Bearer token").text,
            content_type=PROBLEM_JSON,
            headers=_challenge(),
        )
    if not claims.has_right(right):
        raise web.HTTPForbidden(
            text=problem(403, f"the token does not grant the {right} right").text,
            content_type=PROBLEM_JSON,
            headers=_challenge("insufficient_scope"),
        )
    return claims
