"""One run of `eris certify` (or of `eris verify`, a run again over recorded traffic): the options checked
before a target is reached, the embedded target started when none is named, the workers chosen from the
round trip, the suite run by pytest in this process with its progress and worker groups, and the
certification made of what the run left.

May import every package below it: certification, verification, harness, stores, generation, discovery,
client, exchange_judge, catalogue, evidence, configuration, deviations; never the suite's test modules.
"""
