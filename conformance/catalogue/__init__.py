"""The requirement catalogue (requirements.toml) and which tests cite each row, the requirement each
operation's answers count against, and the trace of a requirement to where it is carried.

May import: deviations (the faults that break a requirement, for the trace).
"""
