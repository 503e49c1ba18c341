"""What a path, a name or an address in a params file may be: allow-lists, written once.

vbench runs as root, and the values of params files reach places where a stray character is a
command: `ip` argument lists (a leading '-' is an option), LXC, QEMU and sshd configuration
files (a newline starts a new line of config, a ',' a new QEMU option, ':' separates lists),
shell lines run on remote hosts, and ssh command lines (`%` is an ssh token, `=` closes an `-o`
option). Rather than escape each use, every params model admits only values that are harmless
in all of them, through the Annotated types below: what is not explicitly allowed is refused.
"""

from __future__ import annotations

import ipaddress
import os
import re
from pathlib import Path, PurePosixPath
from typing import Annotated, Any, Callable

from pydantic import AfterValidator, BeforeValidator, ValidationInfo

from vbench.errors import ParamsError

#: A path is absolute and made of these characters only: no whitespace, quote, backslash, shell
#: metacharacter (;&|$`()<>*?[]{}!#~), nor ',' ':' '=' '%' '@' (QEMU, LXC, ssh and sshd syntax).
_PATH_CHARS = re.compile(r"[A-Za-z0-9._+/-]")
PATH_MAX_LEN = 1024

#: A name (host, physical host, rack, bridge, platform label): lower-case letters, digits and '-',
#: never starting with '-' (an option to `ip`, ssh...).
_NAME = re.compile(r"[a-z0-9][a-z0-9-]*")
#: A DNS label's limit: names become host names.
NAME_MAX_LEN = 63
#: Testbed host names become namespace names "<testbed>-<host>" and /etc/hosts entries.
TESTBED_HOST_MAX_LEN = 20
#: Host names whose namespace "<testbed>-<host>" is vbench's own: the controller's
#: (netcmd.controller_netns) and, as a prefix, the emulated physical hosts' (physnet.physical_netns).
RESERVED_HOST_NAMES = ("ctl",)
RESERVED_HOST_PREFIXES = ("phy-",)
#: The testbed name prefixes namespaces and 15-byte interface names ("<name>h<index>").
_TESTBED_NAME = re.compile(r"[a-z][a-z0-9]{0,5}")
#: Linux interface names are at most 15 bytes.
INTERFACE_MAX_LEN = 15

#: POSIX portable user names as useradd takes them by default (NAME_REGEX of adduser.conf).
_USER = re.compile(r"[a-z_][a-z0-9_-]*")
USER_MAX_LEN = 32
#: A DNS host name: dot-separated labels of letters, digits and inner '-'.
_HOSTNAME_LABEL = re.compile(r"[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?")
HOSTNAME_MAX_LEN = 253
#: Debian package names (Debian Policy 5.6.1): they go to apt-get, where '-o...' is an option.
_PACKAGE = re.compile(r"[a-z0-9][a-z0-9+.-]+")
PACKAGE_MAX_LEN = 128
#: Experiment and campaign names become directories under data/raw/.
_PLAIN_NAME = re.compile(r"[a-z0-9_-]+")
PLAIN_NAME_MAX_LEN = 64


def shown(value: Any, limit: int = 60) -> str:
    """A refused value on one line (repr escapes newlines), shortened when long."""
    text = repr(str(value))
    return text if len(text) <= limit else text[: limit - 4] + "...'"


def key_text(key: Any) -> str:
    """A key written in a params file as an error's field names it: as written when it is plain
    text, else quoted (a line break in a key must not break the one error line)."""
    text = str(key)
    return text if text.isprintable() and len(text) <= 60 else shown(text)


# --- paths ------------------------------------------------------------------------------------


def check_path(value: Any) -> Any:
    """An absolute path of allowed characters, without '..' (which leaves the directory it seems
    to be under, e.g. /var/tmp/../../etc). Returns `value` unchanged (a Path or a str)."""
    text = str(value)
    if not text.startswith("/"):
        raise ValueError(f"must be an absolute path (starting with /), got {shown(text)}")
    bad = sorted({c for c in text if not _PATH_CHARS.fullmatch(c)})
    if bad:
        raise ValueError(
            f"must hold only letters, digits and / . _ + -, got {shown(text)} (with {', '.join(repr(c) for c in bad)})"
        )
    if ".." in PurePosixPath(text).parts:
        raise ValueError(f"must not go up with '..', got {shown(text)}")
    if len(text) > PATH_MAX_LEN:
        raise ValueError(f"must be at most {PATH_MAX_LEN} characters long, got {len(text)}")
    return value


def _resolved_local_path(value: Any, info: ValidationInfo) -> Any:
    """A path on this machine that vbench only reads (a key, a known_hosts file): `~` expanded,
    a relative path taken from the directory of the file it is written in (the validation
    context's `relative_to`), and '..' resolved, so that what is checked is what will be used."""
    if not isinstance(value, (str, os.PathLike)):
        return value  # pydantic says what a path should have been
    path = Path(value).expanduser()
    base = (info.context or {}).get("relative_to")
    if base is not None and not path.is_absolute():
        path = Path(base) / path
    return Path(os.path.normpath(path)) if path.is_absolute() else path


#: A path vbench writes under, runs from or hands to a tool (work_root, java_home, HDFS directories).
SafePath = Annotated[Path, AfterValidator(check_path)]
#: The same, kept as text (paths on remote hosts, where a str is what the code joins).
SafePathText = Annotated[str, AfterValidator(check_path)]
#: A file on this machine vbench only reads; may be written relative to its params file.
LocalFilePath = Annotated[Path, BeforeValidator(_resolved_local_path), AfterValidator(check_path)]


# --- names ------------------------------------------------------------------------------------


def _name_check(max_len: int):
    def check(value: str) -> str:
        if not _NAME.fullmatch(value):
            raise ValueError(f"must be lower-case letters, digits and '-', not starting with '-', got {shown(value)}")
        if len(value) > max_len:
            raise ValueError(f"must be at most {max_len} characters long, got {len(value)}")
        return value

    return check


def _not_reserved(value: str) -> str:
    if value in RESERVED_HOST_NAMES or value.startswith(RESERVED_HOST_PREFIXES):
        raise ValueError(
            f"{value!r} is reserved: its namespace would be vbench's own "
            f"({', '.join(RESERVED_HOST_NAMES)} and {', '.join(p + '...' for p in RESERVED_HOST_PREFIXES)}"
            " are the controller's and the physical hosts')"
        )
    return value


def _testbed_name(value: str) -> str:
    if not _TESTBED_NAME.fullmatch(value):
        raise ValueError(f"must be 1-6 lowercase letters/digits, starting with a letter, got {shown(value)}")
    return value


def _rack(value: str) -> str:
    """Hadoop writes racks as paths ("/rack1"); the leading '/' is optional, one level."""
    _name_check(NAME_MAX_LEN)(value.removeprefix("/"))
    return value


def _joined_names(value: str) -> str:
    """Names joined by '+', as the network mode "bridge+nat"."""
    for part in value.split("+"):
        _name_check(NAME_MAX_LEN)(part)
    return value


#: A host, physical host or platform label of an SSH inventory; a physical host of the testbed.
Name = Annotated[str, AfterValidator(_name_check(NAME_MAX_LEN))]
#: A host of the local testbed.
TestbedHostName = Annotated[str, AfterValidator(_name_check(TESTBED_HOST_MAX_LEN)), AfterValidator(_not_reserved)]
TestbedName = Annotated[str, AfterValidator(_testbed_name)]
InterfaceName = Annotated[str, AfterValidator(_name_check(INTERFACE_MAX_LEN))]
RackName = Annotated[str, AfterValidator(_rack)]
NetworkLabel = Annotated[str, AfterValidator(_joined_names)]


# --- users, addresses, packages ---------------------------------------------------------------


def _matching(pattern: re.Pattern, max_len: int, what: str) -> Callable[[str], str]:
    """A check that `value` is all of `pattern` and at most `max_len` long; `what` says what it must be."""

    def check(value: str) -> str:
        if not pattern.fullmatch(value) or len(value) > max_len:
            raise ValueError(f"must be {what}, got {shown(value)}")
        return value

    return check


check_user = _matching(
    _USER,
    USER_MAX_LEN,
    "a user name (lower-case letters, digits, '_' and '-', starting with "
    f"a letter or '_', at most {USER_MAX_LEN} characters)",
)


def check_address(value: str) -> str:
    """An IP address (no IPv6 zone: '%' is free text there) or a DNS host name."""
    try:
        ipaddress.ip_address(value)
    except ValueError:
        pass
    else:
        if "%" in value:
            raise ValueError(f"must be an address without an IPv6 zone (%...), got {shown(value)}")
        return value
    labels = value.split(".")
    if len(value) > HOSTNAME_MAX_LEN or not all(_HOSTNAME_LABEL.fullmatch(label) for label in labels):
        raise ValueError(f"must be an IP address or a host name (letters, digits, inner '-', dots), got {shown(value)}")
    if len(labels) > 1 and labels[-1].isdigit():  # RFC 1123: no all-numeric top-level label
        raise ValueError(f"is neither an IP address nor a host name, got {shown(value)}")
    return value


def _jump_host(value: str) -> str:
    """`[user@]host[:port]`, each part as strict as the hosts' own."""
    user, at, rest = value.rpartition("@")
    host, colon, port = rest.partition(":")
    if at:
        check_user(user)
    check_address(host)
    if colon and not (port.isdigit() and 1 <= int(port) <= 65535):
        raise ValueError(f"must be user@host[:port] with a port in 1-65535, got {shown(value)}")
    return value


def _one_line(value: str) -> str:
    if not value.strip() or any(ord(c) < 32 or ord(c) == 127 for c in value):
        raise ValueError(f"must be one non-empty line without control characters, got {shown(value)}")
    return value


_package = _matching(
    _PACKAGE,
    PACKAGE_MAX_LEN,
    "a Debian package name (lower-case letters, digits, + . -, "
    f"starting with a letter or digit, at most {PACKAGE_MAX_LEN})",
)


UserName = Annotated[str, AfterValidator(check_user)]
HostAddress = Annotated[str, AfterValidator(check_address)]
JumpHost = Annotated[str, AfterValidator(_jump_host)]
#: A command line the user writes on purpose (an OpenSSH ProxyCommand): free, but one line.
OneLineCommand = Annotated[str, AfterValidator(_one_line)]
PackageName = Annotated[str, AfterValidator(_package)]


# --- experiment and campaign names ------------------------------------------------------------


#: A name that is one directory under data/raw/: never a path ('/', '..').
check_plain_name = _matching(
    _PLAIN_NAME, PLAIN_NAME_MAX_LEN, f"lower-case letters, digits, '_' and '-' (at most {PLAIN_NAME_MAX_LEN})"
)


PlainName = Annotated[str, AfterValidator(check_plain_name)]


def campaign_name(value: str, option: str = "--campaign") -> str:
    """A campaign name given on the command line, refused as one line naming the option."""
    try:
        return check_plain_name(value)
    except ValueError as exc:
        raise ParamsError(option, str(exc)) from None


# --- JVM flags --------------------------------------------------------------------------------

#: One JVM option: YARN writes a task's options unquoted into the container's launch script, so a
#: space splits it and a shell metacharacter runs as a command there. Two dashes for the module
#: system's options (`--add-opens=java.base/java.lang=ALL-UNNAMED`, which Hadoop 3.3's MapReduce
#: application master needs on Java 17).
_JVM_FLAG = re.compile(r"--?[A-Za-z0-9][A-Za-z0-9:+=._/,-]*")
JVM_FLAG_MAX_LEN = 256
check_jvm_flag = _matching(
    _JVM_FLAG,
    JVM_FLAG_MAX_LEN,
    "one JVM option: '-' or '--' then letters, digits and : + = . _ / , - (no spaces, quotes or shell characters)",
)
JvmFlag = Annotated[str, AfterValidator(check_jvm_flag)]


# --- extra Hadoop properties ------------------------------------------------------------------

#: A Hadoop property name, as Hadoop's own are written.
_PROPERTY = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
PROPERTY_MAX_LEN = 256
PROPERTY_VALUE_MAX_LEN = 4096
#: Properties whose value YARN writes into each container's launch script: JVM options unquoted
#: (mapreduce.map.java.opts, yarn.app.mapreduce.am.command-opts...), environments as export
#: lines, where $(...) and backticks still run (mapreduce.map.env, yarn.nodemanager.admin-env...).
_LAUNCH_SCRIPT_PROPERTY = re.compile(r".*(java\.opts|command-opts|admin-opts|\.env|admin-env|user\.env)")
#: An environment's `NAME=value,NAME=value` without anything a shell expands.
_ENV_VALUE = re.compile(r"[A-Za-z0-9_=:,./+-]*")


def check_hadoop_property(name: str, value: str) -> None:
    """An extra property of a *-site.xml file (hadoop.extra): a plain name, a value on one line
    of printable characters (XML 1.0 has no control characters), and for a property that reaches
    a launch script, JVM options each as `JvmFlag` allows, or an environment without shell syntax."""
    if not _PROPERTY.fullmatch(name) or len(name) > PROPERTY_MAX_LEN:
        raise ValueError(f"property {shown(name)}: not a Hadoop property name (letters, digits and . _ -)")
    if not value.isprintable() or len(value) > PROPERTY_VALUE_MAX_LEN:
        raise ValueError(f"{name}: must be one line of printable characters, got {shown(value)}")
    if _LAUNCH_SCRIPT_PROPERTY.fullmatch(name):
        if name.endswith("opts"):
            for word in value.split():
                try:
                    check_jvm_flag(word)
                except ValueError as exc:
                    raise ValueError(f"{name} reaches each task's launch script: {exc}") from None
        elif not _ENV_VALUE.fullmatch(value):
            raise ValueError(
                f"{name} reaches each task's launch script: NAME=value pairs of letters, digits and "
                f"_ = : , . / + - only, got {shown(value)}"
            )
