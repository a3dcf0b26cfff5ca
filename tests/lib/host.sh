# shellcheck shell=bash
# Sourced by what installs Debian packages on the host for the tests, the
# demo and the benchmarks: root directly or through passwordless sudo, and
# one apt run for what is missing. Safe with no stdin and CI=true.

# host_release: the host's Debian release by its codename (bookworm, trixie).
host_release() {
	# shellcheck source=/dev/null # the system's
	(. /etc/os-release && echo "${VERSION_CODENAME:-unknown}")
}

# as_root COMMAND...: COMMAND as root: directly, or by sudo without a password.
as_root() {
	if ((EUID == 0)); then
		"$@"
	elif command -v sudo >/dev/null; then
		sudo -n "$@"
	else
		echo "host: not root and no sudo: cannot run $*" >&2
		return 1
	fi
}

# apt_lists_recent ROOT: whether the package lists of the system at ROOT
# ("/": the host) were updated within the hour: one update per run of make
# check is enough to follow the archive.
apt_lists_recent() {
	[ -n "$(find "$1/var/lib/apt/lists" -maxdepth 1 -name '*InRelease' -mmin -60 2>/dev/null)" ]
}

# host_apt_update: the host's package lists, updated unless apt_lists_recent.
host_apt_update() {
	apt_lists_recent / || as_root apt-get -q update </dev/null >&2
}

# host_install PACKAGE...: those of PACKAGEs not installed, installed in
# one apt run; progress on stderr.
host_install() {
	local p missing=()

	for p in "$@"; do
		[ "$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null)" = installed ] ||
			missing+=("$p")
	done
	((${#missing[@]})) || return 0
	echo "host: installing ${missing[*]}" >&2
	host_apt_update
	as_root env DEBIAN_FRONTEND=noninteractive INITRD=No \
		apt-get -q install -y --no-install-recommends -o Dpkg::Use-Pty=0 \
		"${missing[@]}" </dev/null >&2
}
