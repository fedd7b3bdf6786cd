"""Resources and their fields / Notification; Events."""
