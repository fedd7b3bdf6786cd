"""What a conformance test leaves behind: its outcome as evidence about the requirements it cites, its
findings per requirement, and the warnings the validator found on what the target serves, tallied.

May import nothing of conformance.
"""
