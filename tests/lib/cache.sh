# shellcheck shell=bash
# Sourced by what builds entries of the test cache: kernels, the build root,
# the kernel source, the debug kernel, root file systems. make check fills
# the cache in the background while its suites run (tests/warm-cache.sh), so
# two processes may ask for the same entry at once.

# cache_lock NAME: waits for, then holds until this shell exits, the lock of
# the cache entry NAME; its builder checks for the entry only once it holds it.
cache_lock() {
	local cache=${PFPROF_CACHE:-/var/cache/pfprof-test} fd
	mkdir -p "$cache"
	exec {fd}>>"$cache/.$1.lock"
	flock "$fd"
}
