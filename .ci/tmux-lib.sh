# Shared by the .ci/*-tmux.sh scripts (sourced): reading the screen of the
# tmux session "ci" through the script's own t() (tmux -L its socket), and
# failing with the screen shown. The script sets name= first.

# screen: what the pane shows now.
screen() { t capture-pane -p -t ci; }
# fail MESSAGE: say it, show the screen, exit 1.
fail() { echo "$name: $*"; echo "--- screen:"; screen || true; exit 1; }
# wait_for TEXT [SECONDS]: until the screen shows TEXT (30 s unless told).
wait_for() {
  local deadline=$((SECONDS + ${2:-30}))
  until screen | grep -qF -- "$1"; do
    [ $SECONDS -lt $deadline ] || fail "timed out waiting for \"$1\""
    sleep 0.2
  done
}
