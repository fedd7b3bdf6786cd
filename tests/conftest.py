"""pytest set-up of the project's own tests (not of the conformance suite, which runs without hypothesis).

Hypothesis profiles: "ci" (the default here) keeps property tests deterministic and bounded;
choose another with HYPOTHESIS_PROFILE=dev for a quick local loop.
"""

import os

from hypothesis import HealthCheck, settings

settings.register_profile("ci", derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("dev", max_examples=50, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
