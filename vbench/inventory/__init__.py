"""Real clusters reached over SSH (issue #10): an inventory of hosts in params, a preflight that
touches nothing, host preparation, checks before measuring, and the hosts source the campaign
runner uses instead of the local testbed."""
