# The package version. Its one home is dkms.conf, where DKMS needs it; the
# Makefiles that need it include this file.
PFPROF_VERSION := $(shell sed -n 's/^PACKAGE_VERSION="\(.*\)"$$/\1/p' \
	$(dir $(lastword $(MAKEFILE_LIST)))dkms.conf)
