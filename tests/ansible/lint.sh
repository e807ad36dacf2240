# Every playbook passes ansible-playbook --syntax-check; the roles and
# playbooks pass ansible-lint on its default profile.
. "$SRCDIR/tests/cli/lib.sh"
need ansible-playbook || exit 0
need ansible-lint || exit 0
cd "$SRCDIR/ansible" || exit 1
export ANSIBLE_CONFIG="$SRCDIR/ansible/ansible.cfg" ANSIBLE_NOCOLOR=1
export ANSIBLE_LOCAL_TEMP="$T/ansible-tmp"
for pb in *.yml; do
	[ "$pb" = requirements.yml ] && continue # collections, not a playbook
	expect_exit "ansible-playbook --syntax-check $pb" 0 \
		ansible-playbook -i inventory/fleet.example.yml --syntax-check "$pb"
done
# --offline: no network here; requirements.yml's collections come with
# Debian's ansible package (checked below)
expect_exit "ansible-lint (default profile) passes" 0 ansible-lint --nocolor --offline
if ! grep -q "Passed" "$T/out" "$T/err"; then
	notok "... and says so" "$(tail -n 20 "$T/out" "$T/err")"
else
	ok "... and says so"
fi
# no secret in the repository: the token is only ever looked up
if grep -rnE '^[^#]*vtbench_upload_token *:' inventory/ roles/ *.yml | grep -v "lookup('ansible.builtin.env', 'VTBENCH_UPLOAD_TOKEN')" \
	| grep -vE '^roles/vtbench_nightly/tasks/main.yml:[0-9]+: +(content|when):' \
	| grep -vE '^roles/vtbench_nightly/meta/argument_specs.yml:[0-9]+: +vtbench_upload_token:$' >"$T/secrets"; then
	notok "the token is never written in the repository" "$(cat "$T/secrets")"
else
	ok "the token is never written in the repository"
fi
