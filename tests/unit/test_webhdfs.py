"""WebHDFS builders and parsers (vbench.hadoop.webhdfs): the curl line the master runs, and the
NameNode's answers as Hadoop 3.4 prints them."""

from __future__ import annotations

import shlex
import subprocess

import pytest

from vbench.hadoop import webhdfs

LISTING = (
    '{"FileStatuses":{"FileStatus":['
    '{"accessTime":1795310100381,"blockSize":33554432,"childrenNum":0,"fileId":16400,"group":"supergroup",'
    '"length":0,"modificationTime":1795310100381,"owner":"root","pathSuffix":"_SUCCESS","permission":"644",'
    '"replication":1,"storagePolicy":0,"type":"FILE"},'
    '{"accessTime":1795310100381,"blockSize":33554432,"childrenNum":0,"fileId":16398,"group":"supergroup",'
    '"length":11,"modificationTime":1795310100381,"owner":"root","pathSuffix":"_partition.lst",'
    '"permission":"644","replication":10,"storagePolicy":0,"type":"FILE"},'
    '{"accessTime":1795310100381,"blockSize":33554432,"childrenNum":0,"fileId":16401,"group":"supergroup",'
    '"length":419400,"modificationTime":1795310100381,"owner":"root","pathSuffix":"part-r-00000",'
    '"permission":"644","replication":1,"storagePolicy":0,"type":"FILE"},'
    '{"accessTime":1795310100381,"blockSize":33554432,"childrenNum":0,"fileId":16402,"group":"supergroup",'
    '"length":629100,"modificationTime":1795310100381,"owner":"root","pathSuffix":"part-r-00001",'
    '"permission":"644","replication":1,"storagePolicy":0,"type":"FILE"},'
    '{"accessTime":0,"blockSize":0,"childrenNum":0,"fileId":16403,"group":"supergroup","length":0,'
    '"modificationTime":1795310100381,"owner":"root","pathSuffix":"part-r-dir","permission":"755",'
    '"replication":0,"storagePolicy":0,"type":"DIRECTORY"}]}}'
)


def test_url_quotes_the_path_and_names_the_user():
    u = webhdfs.url("master", "/vbench/a b", "DELETE", "root", recursive="true")
    assert u == "http://master:9870/webhdfs/v1/vbench/a%20b?op=DELETE&user.name=root&recursive=true"
    with pytest.raises(ValueError, match="absolute"):
        webhdfs.url("master", "vbench", "LISTSTATUS", "root")


def test_curl_line_is_one_argument_per_word_and_prints_the_status_after_the_body():
    line = webhdfs.curl_line("DELETE", "http://m:9870/webhdfs/v1/x?op=DELETE&user.name=root")
    argv = shlex.split(line)
    assert argv[:2] == ["curl", "-s"] and argv[argv.index("-X") + 1] == "DELETE"
    assert argv[-1].endswith("user.name=root")  # the & stays inside one quoted word
    # What the shell hands curl for -w: the mark with a real newline, which split_status reads back.
    printed = subprocess.run(
        ["printf", argv[argv.index("-w") + 1].replace("%{http_code}", "404")], capture_output=True, text=True
    )
    assert webhdfs.split_status('{"RemoteException":{}}' + printed.stdout) == ('{"RemoteException":{}}', 404)


def test_split_status_without_a_status_is_not_answered():
    assert webhdfs.split_status("curl: (7) Failed to connect") == ("curl: (7) Failed to connect", 0)
    assert webhdfs.split_status("x" + webhdfs.STATUS_MARK + "000") == ("x", 0)


def test_listing_sums_only_the_files_that_match():
    entries = webhdfs.parse_listing(LISTING)
    assert [e.name for e in entries][:2] == ["_SUCCESS", "_partition.lst"]
    assert webhdfs.total_length(entries, "part-r-*") == 419400 + 629100  # not the directory, not _partition.lst


def test_garbled_answers_raise():
    for body in ("", "<html>404</html>", '{"FileStatuses": {}}'):
        with pytest.raises((ValueError, KeyError)):
            webhdfs.parse_listing(body)
    assert webhdfs.parse_boolean('{"boolean":true}') is True
    with pytest.raises(ValueError):
        webhdfs.parse_boolean('{"boolean":"yes"}')
