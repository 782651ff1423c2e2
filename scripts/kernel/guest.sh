#!/bin/bash
# Runs inside the virtual machine of vm_check.sh, as root, in the host's (read-only) filesystem
# with OUT writable: serves CAPTURE's peripheral through /dev/vhci and uses it with BlueZ's
# command-line tools, recording the kernel's monitor channel with blecap watch and btmon.
#   guest.sh BLECAP CAPTURE PEER_ADDRESS PEER_TYPE READ_HANDLE CCCD_HANDLE OUT
BLECAP=$1 CAPTURE=$2 PEER=$3 TYPE=$4 READ=$5 CCCD=$6 OUT=$7
set -x
uname -r
modprobe hci_vhci || { echo "GUEST: modprobe hci_vhci failed"; exit 1; }
ls -l /dev/vhci

btmon -w "$OUT/btmon.btsnoop" > /dev/null 2>&1 &
BTMON=$!
"$BLECAP" watch --format jsonl --write "$OUT/watch.btsnoop" hci-monitor > "$OUT/watch.jsonl" 2> "$OUT/watch.err" &
WATCH=$!
sleep 1
"$BLECAP" serve "$CAPTURE" --transport vhci --out "$OUT/serve.btsnoop" --format json --linger 30 --timeout 120 \
  > "$OUT/serve.json" 2> "$OUT/serve.err" &
SERVE=$!
for _ in $(seq 50); do hciconfig hci0 > /dev/null 2>&1 && break; sleep 0.2; done
# Powering the controller on makes the kernel run its initialisation sequence against blecap.
hciconfig hci0 up; echo "hciconfig up: $?"
# Not -a: that also sends Read Local Name, a BR/EDR command an LE-only controller does not
# have; its Unknown HCI Command answer (status only, as Bumble's controller gives it too) is one
# tshark calls malformed, which would hide real malformed frames in the check of --out.
hciconfig hci0 > "$OUT/hciconfig.txt" 2>&1
timeout -s INT 4 hcitool -i hci0 lescan --duplicates > "$OUT/lescan.txt" 2>&1
# hcitool scans through raw HCI, behind the kernel's back, and disables the scan only if it
# gets to after SIGINT; a slow guest under a flood of reports sometimes does not, and a scan
# left enabled makes the kernel's LE Create Connection fail. Disable it for sure.
hcitool -i hci0 cmd 0x08 0x000c 00 00 > /dev/null 2>&1
# One GATT session through the kernel's LE L2CAP socket: discovery, a read, a subscription.
{
  echo "connect"; sleep 8
  echo "primary"; sleep 2
  echo "characteristics"; sleep 2
  echo "char-desc"; sleep 2
  [ "$READ" = 0x0000 ] || { echo "char-read-hnd $READ"; sleep 1; }
  [ "$CCCD" = 0x0000 ] || { echo "char-write-req $CCCD 0100"; sleep 12; }
  echo "disconnect"; sleep 1
  echo "exit"
} | timeout -s KILL 90 gatttool -i hci0 -b "$PEER" -t "$TYPE" -I > "$OUT/gatttool.txt" 2>&1
echo "gatttool: $?"
sleep 1
kill -INT "$SERVE"; wait "$SERVE"; echo "serve exit: $?"
hciconfig hci0 down
sleep 1
kill -INT "$WATCH"; wait "$WATCH"; echo "watch exit: $?"
kill -INT "$BTMON"; wait "$BTMON"
echo "GUEST: finished"
