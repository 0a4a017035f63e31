# shellcheck shell=bash disable=SC2034,SC2154 # sourced by test/vm/run-vm.sh, which sets and reads the variables
# Scenario bad-inputs, the host's side (the guest's is scenario-bad-inputs.sh): each app with bad inputs: one
# message, exit code 2 or 1, nothing changed (always kmod: the kernel's drivers bound are the state to leave alone;
# adds a Realtek RTL8139 NIC that no ixy driver supports). Writes OUT/bad-inputs.md, the cases and messages.
mode=${mode:-kmod}

network() { hub_network; }
devices() {
	# A Realtek RTL8139 (10ec:8139), a NIC no ixy driver supports; alone on hub 2. The guest has no 8139 module.
	hub nic_unsupported 2
	qemu_args+=(-device "rtl8139,netdev=nic_unsupported,addr=$(printf 0x%x $next_slot),mac=52:54:00:12:34:0e,romfile=")
	extra="ixy_unsupported_nic=$(printf '0000:00:%02x.0' $next_slot)"
}

# bad-inputs: the guest's table of cases (tab-separated: case, command, exit code, stderr with " | " between lines)
# as markdown, for the record.
bad_inputs_report() {   # (also for vfio-bad-inputs)
	local table=$out/guest/bad-inputs.tsv
	expect "the guest sent its table of bad inputs" test -s "$table"
	[ -s "$table" ] || return
	{
		echo "| case | command | exit | stderr |"
		echo "|---|---|---|---|"
		awk -F'\t' '{ gsub(/\|/, "\\|"); printf "| %s | `%s` | %s | %s |\n", $1, $2, $3, $4 }' "$table"
	} >"$out/bad-inputs.md"
	say "bad inputs and their messages: $out/bad-inputs.md"
}

checks() {
	guest_checks
	bad_inputs_report
}
