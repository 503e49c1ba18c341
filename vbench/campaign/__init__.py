"""Campaigns: experiment designs as data, expanded into cells, run in a randomised, blocked,
resumable order."""
