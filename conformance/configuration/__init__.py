"""What a run is given: the target description (target.toml) and the run's settings (the suite's version,
its defaults, the bounds it sets for the target, the cores it may use).

May import nothing of conformance.
"""
