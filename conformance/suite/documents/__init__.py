"""Resources and their fields / DocumentReference; Endpoints / Document envelopes."""
