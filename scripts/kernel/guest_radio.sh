#!/bin/bash
# Runs inside the virtual machine of vm_check.sh after guest.sh, as root, in the host's
# (read-only) filesystem with OUT writable: `blecap replay --controller hci0` over a kernel
# adapter. Bumble's virtual controller A is on /dev/vhci (scripts/bumble/radio_link.py
# --transport-a vhci: the kernel registers it as hci0 and initialises it), linked to controller
# B on a loopback TCP port; blecap takes hci0 through the HCI user channel and plays CAPTURE's
# peripheral, an unmodified Bumble central host on B (scripts/bumble/central_app.py, the one
# radio_conformance.py runs) repeats the captured central's requests. Around it, the adapter's
# state as the kernel reports it (hciconfig, btmgmt) before and after: a run to its end, a run
# ended by SIGINT while the central is connected (and a second blecap refused while it holds
# hci0), and a run refused because hci0 is up.
#   guest_radio.sh BLECAP CAPTURE PYTHON OUT      (OUT/central_args: central_app.py's arguments)
BLECAP=$1 CAPTURE=$2 PYTHON=$3 OUT=$4
HERE=$(cd "$(dirname "$0")" && pwd)
BUMBLE=$HERE/../bumble
export PYTHONDONTWRITEBYTECODE=1
set -x
ip link set lo up
modprobe hci_vhci || { echo "GUEST: modprobe hci_vhci failed"; exit 1; }

# The adapter as the kernel has it: hciconfig's lines, and the mgmt interface's (no bluetoothd
# runs; btmgmt talks to the kernel's management socket itself).
state() {
  hciconfig hci0 > "$OUT/radio-hciconfig-$1.txt" 2>&1
  timeout -s INT 20 stdbuf -oL btmgmt --index 0 info > "$OUT/radio-btmgmt-$1.txt" 2>&1
  echo "btmgmt exit: $?" >> "$OUT/radio-btmgmt-$1.txt"
}
# The kernel powers a new adapter on to set it up, then off again when no one uses it
# (HCI_AUTO_OFF, 2 s): the user channel wants it set up and down.
# Settled is DOWN alone: right after the power-off the flags read "DOWN RUNNING" for a moment
# (the close is still under way), and a state taken then differs from the same adapter later.
settled() {
  for _ in $(seq 300); do
    hciconfig hci0 2>/dev/null | grep -Eq '^[[:space:]]+DOWN[[:space:]]*$' && return 0
    sleep 0.2
  done
  return 1
}

"$PYTHON" "$BUMBLE/radio_link.py" --transport-a vhci > "$OUT/radio-link.txt" 2> "$OUT/radio-link.err" &
LINK=$!
for _ in $(seq 600); do grep -q '^ready' "$OUT/radio-link.txt" && break; sleep 0.2; done
PORT=$(awk '/^ready/ {print $3}' "$OUT/radio-link.txt")
[ -n "$PORT" ] || { echo "GUEST: radio_link.py did not start"; kill "$LINK"; exit 1; }
settled || echo "GUEST: hci0 did not settle down"
state before

# 1. A whole run: blecap plays the capture's peripheral on hci0, the central on B meets it.
"$BLECAP" replay "$CAPTURE" --controller hci0 --role peripheral --format json --speed max --timeout 300 \
  --accept-timeout 120 --out "$OUT/radio-a.btsnoop" > "$OUT/radio-replay.json" 2> "$OUT/radio-replay.err" &
REPLAY=$!
sleep 2
# shellcheck disable=SC2046
BUMBLE_SNOOPER="btsnoop:file:$OUT/radio-b.btsnoop" timeout 240 "$PYTHON" "$BUMBLE/central_app.py" \
  --transport "tcp-client:127.0.0.1:$PORT" --scan-timeout 60 --connect-timeout 30 $(cat "$OUT/central_args") \
  > "$OUT/radio-app.json" 2> "$OUT/radio-app.err"
echo "app exit: $?"
wait "$REPLAY"; echo "$?" > "$OUT/radio-replay.rc"
settled || echo "GUEST: hci0 did not settle down after the run"
state after

# 2. SIGINT while the central is connected: blecap must hand the adapter back all the same.
"$BLECAP" replay "$CAPTURE" --controller hci0 --role peripheral --format json --timeout 300 --accept-timeout 120 \
  --verbose > "$OUT/radio-int.json" 2> "$OUT/radio-int.err" &
REPLAY=$!
sleep 2
# shellcheck disable=SC2046
BUMBLE_SNOOPER="btsnoop:file:$OUT/radio-int-b.btsnoop" timeout 240 "$PYTHON" "$BUMBLE/central_app.py" \
  --transport "tcp-client:127.0.0.1:$PORT" --scan-timeout 60 --connect-timeout 30 \
  $(cat "$OUT/central_args_interrupted") > "$OUT/radio-int-app.json" 2> "$OUT/radio-int-app.err" &
APP=$!
for _ in $(seq 600); do grep -q "a central connected" "$OUT/radio-int.err" && break; sleep 0.2; done
# A second blecap while the first holds hci0: refused at once, the first plays on.
STARTED=$(date +%s%N)
timeout 60 "$BLECAP" replay "$CAPTURE" --controller hci0 > /dev/null 2> "$OUT/radio-held.err"
echo "$? $(( ($(date +%s%N) - STARTED) / 1000000 ))" > "$OUT/radio-held.rc"
sleep 2
kill -INT "$REPLAY"
SENT=$(date +%s%N)
wait "$REPLAY"; echo "$? $(( ($(date +%s%N) - SENT) / 1000000 ))" > "$OUT/radio-int.rc"
settled || echo "GUEST: hci0 did not settle down after SIGINT"
state after-int
wait "$APP"; echo "interrupted run's app exit: $?"

kill -0 "$LINK" || echo "GUEST: radio_link.py is gone"
ls /sys/class/bluetooth

# 3. hci0 up under the kernel: blecap must refuse it at once, and leave it up.
hciconfig hci0 up; echo "hciconfig up: $?"
state up
# Not under strace: traced, the dynamic loading of blecap's libraries over 9p took 32 s of the
# 36 s here, and the bind itself was refused 0.1 s after the socket was made.
STARTED=$(date +%s%N)
timeout 60 "$BLECAP" replay "$CAPTURE" --controller hci0 > "$OUT/radio-busy.out" 2> "$OUT/radio-busy.err"
echo "$? $(( ($(date +%s%N) - STARTED) / 1000000 ))" > "$OUT/radio-busy.rc"
state up-after
hciconfig hci0 down

kill "$LINK"; wait "$LINK"
dmesg | grep -i -E "bluetooth|hci|vhci" > "$OUT/radio-dmesg.txt"
echo "GUEST: radio finished"
