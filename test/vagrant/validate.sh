#!/usr/bin/env bash
# Checks vagrant/Vagrantfile with `vagrant validate` for both providers the box supports: libvirt (the
# vagrant-libvirt plugin, Debian package vagrant-libvirt) and VirtualBox. Vagrant validates only the block of the
# provider it would use, and refuses VirtualBox when VBoxManage is missing; VirtualBox cannot be installed from
# Debian, so for that pass a VBoxManage that only answers --version stands in for it (validation reads nothing else
# from VirtualBox). To show that each provider's block is really read, a copy with an unknown setting added to that
# block must fail.
#
#   test/vagrant/validate.sh WORKDIR      (WORKDIR: scratch space, e.g. build-test/vagrant-validate)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
vagrantfile=$here/../../vagrant/Vagrantfile
work=${1:?usage: $0 WORKDIR}
command -v vagrant >/dev/null || { echo "validate: vagrant is not installed (apt-get install vagrant vagrant-libvirt)" >&2; exit 1; }
rm -rf "$work"
mkdir -p "$work/box" "$work/fake-bin" "$work/home"
work=$(cd "$work" && pwd)
# shellcheck disable=SC2016 # the $1 is the stand-in's own
printf '#!/bin/sh\n[ "$1" = --version ] && echo 7.0.0r0\nexit 0\n' >"$work/fake-bin/VBoxManage"
chmod +x "$work/fake-bin/VBoxManage"
# Vagrant keeps state in VAGRANT_HOME and in .vagrant/ next to the Vagrantfile: both go to the scratch space.
export VAGRANT_HOME=$work/home VAGRANT_CWD=$work/box VAGRANT_CHECKPOINT_DISABLE=1
validate() {   # validate PROVIDER
	if [ "$1" = virtualbox ]; then
		PATH=$work/fake-bin:$PATH VAGRANT_DEFAULT_PROVIDER=$1 vagrant validate
	else
		VAGRANT_DEFAULT_PROVIDER=$1 vagrant validate
	fi
}
failed=0
for provider in libvirt virtualbox; do
	cp "$vagrantfile" "$work/box/Vagrantfile"
	if validate $provider >"$work/$provider.log" 2>&1; then
		echo "validate: $provider: $(tail -1 "$work/$provider.log")"
	else
		echo "validate: $provider: vagrant validate failed:" >&2
		cat "$work/$provider.log" >&2
		failed=1
	fi
	# The same file with an unknown setting in this provider's block must be refused.
	sed "s/^\(  config.vm.provider \"$provider\" do |\([a-z]*\), override|\)$/\1\n    \2.no_such_setting = 1/" \
		"$vagrantfile" >"$work/box/Vagrantfile"
	grep -q no_such_setting "$work/box/Vagrantfile" || { echo "validate: no $provider block found" >&2; exit 1; }
	if validate $provider >"$work/$provider-broken.log" 2>&1 || ! grep -q no_such_setting "$work/$provider-broken.log"; then
		echo "validate: $provider: an unknown setting in its block was not refused: the block is not validated" >&2
		cat "$work/$provider-broken.log" >&2
		failed=1
	fi
done
exit $failed
