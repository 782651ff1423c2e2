#!/usr/bin/env bash
# blecap against the Linux kernel's Bluetooth stack, in a KVM virtual machine.
#
# Neither the machine blecap is developed on nor CI has Bluetooth in its kernel (no AF_BLUETOOTH,
# no /dev/vhci), so `blecap serve --transport vhci` and `blecap watch hci-monitor` cannot meet a
# real kernel there. This script boots Debian's own kernel under qemu with the host's
# filesystem shared read-only (9p), loads `bluetooth` and `hci_vhci`, and runs
# scripts/kernel/guest.sh inside it: blecap serves a capture's peripheral through /dev/vhci, the
# kernel initialises the virtual controller, BlueZ's unmodified command-line tools (hciconfig,
# hcitool, gatttool — which speak to the kernel's L2CAP sockets, no bluetoothd needed) scan,
# connect and use the GATT server, while `blecap watch hci-monitor` and `btmon -w` record the
# kernel's monitor channel side by side. Then scripts/kernel/guest_radio.sh: Bumble's controller
# on /dev/vhci becomes hci0, `blecap replay --controller hci0` takes it through the HCI user
# channel and plays the capture to a Bumble central on a linked controller, and the adapter's
# state is compared before and after (also after SIGINT, and with hci0 up: refused). The host
# then checks what came out (scripts/kernel/check_vm_results.py).
#
# KERNEL_CHECK_ONLY_RADIO=1 runs the second scenario alone.
#
#   scripts/kernel/vm_check.sh [CAPTURE]      (default: captures/bumble/clean_heart_rate.central.btsnoop)
#
# Software emulation (TCG), not KVM: inside a VM, nested KVM hung before the kernel's first line
# here, while TCG boots in ~5 s. Needs: qemu-system-x86, linux-image-amd64, busybox-static, bluez (make kernel-check
# installs them). Exit 0 when every check passed, 1 when one failed, 77 when it cannot run here.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
CAPTURE=${1:-captures/bumble/clean_heart_rate.central.btsnoop}
BLECAP=${BLECAP:-$ROOT/.build/debug/blecap}

skip() { echo "kernel-check: cannot run here: $*" >&2; exit 77; }
command -v qemu-system-x86_64 >/dev/null || skip "qemu-system-x86_64 missing (apt-get install qemu-system-x86)"
[ -x /bin/busybox ] || skip "busybox missing (apt-get install busybox-static)"
command -v gatttool >/dev/null || skip "BlueZ tools missing (apt-get install bluez)"
KVER=$(ls /lib/modules | grep -E 'amd64$' | sort -V | tail -n 1 || true)
[ -n "$KVER" ] && [ -f "/boot/vmlinuz-$KVER" ] || skip "no Debian kernel (apt-get install linux-image-amd64)"
[ -x "$BLECAP" ] || skip "$BLECAP not built (swift build)"

WORK=$(mktemp -d /tmp/blecap-vm.XXXXXX)
trap '[ -n "${KEEP:-}" ] || rm -rf "$WORK"' EXIT
OUT=$WORK/out
mkdir -p "$OUT" "$WORK/initramfs"/{bin,dev,proc,sys,mnt,modules}

# The initramfs only mounts the host's root over 9p (virtio) and changes into it.
cp /bin/busybox "$WORK/initramfs/bin/busybox"
for m in virtio_ring virtio virtio_pci_legacy_dev virtio_pci_modern_dev virtio_pci \
         netfs fscache 9pnet 9pnet_virtio 9p; do
  f=$(find "/lib/modules/$KVER/kernel" -name "$m.ko" | head -n 1)
  [ -n "$f" ] || skip "module $m.ko not found for $KVER"
  cp "$f" "$WORK/initramfs/modules/"
done
cat > "$WORK/initramfs/init" <<INIT
#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t proc proc /proc; mount -t sysfs sys /sys; mount -t devtmpfs dev /dev
for m in virtio_ring virtio virtio_pci_legacy_dev virtio_pci_modern_dev virtio_pci netfs fscache 9pnet 9pnet_virtio 9p; do
  insmod /modules/\$m.ko || echo "GUEST: insmod \$m failed"
done
mount -t 9p -o trans=virtio,version=9p2000.L,ro host /mnt || { echo "GUEST: no 9p root"; poweroff -f; }
mount -t proc proc /mnt/proc; mount -t sysfs sys /mnt/sys; mount -t devtmpfs dev /mnt/dev
mount -t tmpfs run /mnt/run
mount -t 9p -o trans=virtio,version=9p2000.L out /mnt/tmp || { echo "GUEST: no 9p out"; poweroff -f; }
[ -e /mnt/tmp/only-radio ] || chroot /mnt /bin/bash "$ROOT/scripts/kernel/guest.sh" "$BLECAP" "$ROOT/$CAPTURE" \$(cat /mnt/tmp/peer | tr "\\n" " ") /tmp > /mnt/tmp/guest.log 2>&1
[ -s /mnt/tmp/python ] && chroot /mnt /bin/bash "$ROOT/scripts/kernel/guest_radio.sh" "$BLECAP" "$ROOT/$CAPTURE" \$(cat /mnt/tmp/python) /tmp > /mnt/tmp/guest_radio.log 2>&1
echo "GUEST: done"
poweroff -f
INIT
chmod +x "$WORK/initramfs/init"
# What the guest's tools need from the capture: the peer its central connected to, its address
# type, a handle the central read and the CCCD it subscribed through (0 when it did neither).
"$BLECAP" info --format json "$CAPTURE" | python3 -c '
import json, sys
c = json.load(sys.stdin)["connections"][0]
print(c["peer"], "random" if c["peer_address_type"] in (1, 3) else "public")' > "$OUT/peer"
"$BLECAP" timeline --format jsonl "$CAPTURE" | python3 -c '
import json, sys
events = [json.loads(line) for line in sys.stdin]
def first(kind):
    return next((e["handle"] for e in events if e.get("type") == kind and e.get("outcome") == "success"), 0)
print("0x%04x 0x%04x" % (first("gatt.read"), first("gatt.subscribe")))' >> "$OUT/peer"
# The radio scenario (guest_radio.sh) needs Bumble: the venv serve_conformance.py uses (made on
# first use; without it, and without a network to make it, that scenario is left out and said so).
# Its central gets radio_conformance.py's arguments for the captured connections, and for the
# run interrupted with SIGINT one session that stays connected until the link ends.
if PYTHON=$(cd scripts/bumble && python3 -c 'from serve_conformance import bumble_python; print(bumble_python())' 2>/dev/null); then
  echo "$PYTHON" > "$OUT/python"
  (cd scripts/bumble && python3 -c '
import sys
from radio_conformance import app_arguments
from serve_conformance import captured
expected = captured(sys.argv[1], sys.argv[2])
print(" ".join(app_arguments(expected)))
print(" ".join(["--address", expected[0]["peer"], "--duration", "60", "--count", "100000"]) if expected else "")
' "$BLECAP" "$ROOT/$CAPTURE") > "$WORK/central_args"
  sed -n 1p "$WORK/central_args" > "$OUT/central_args"
  sed -n 2p "$WORK/central_args" > "$OUT/central_args_interrupted"
  [ -s "$OUT/central_args" ] || { echo "kernel-check: $CAPTURE has no central connection: radio scenario left out"; rm "$OUT/python"; }
else
  echo "kernel-check: no Bumble (scripts/bumble/serve_conformance.py could not make its venv): radio scenario left out"
fi
[ -z "${KERNEL_CHECK_ONLY_RADIO:-}" ] || touch "$OUT/only-radio"
(cd "$WORK/initramfs" && find . | cpio -o -H newc 2>/dev/null | gzip -1) > "$WORK/initramfs.gz"

echo "kernel-check: booting $KVER under qemu with $CAPTURE"
timeout 1500 qemu-system-x86_64 -accel tcg -m 2048 -smp 2 -nographic -no-reboot \
  -kernel "/boot/vmlinuz-$KVER" -initrd "$WORK/initramfs.gz" \
  -append "console=ttyS0 quiet panic=-1" \
  -virtfs local,path=/,mount_tag=host,security_model=none,readonly=on,multidevs=remap \
  -virtfs local,path="$OUT",mount_tag=out,security_model=none \
  > "$WORK/console.log" 2>&1 || true
if ! grep -q "GUEST: done" "$WORK/console.log"; then
  echo "kernel-check: the virtual machine did not finish; its console:" >&2
  tail -n 40 "$WORK/console.log" >&2
  exit 1
fi
[ ! -e "$OUT/guest.log" ] || cat "$OUT/guest.log"
[ ! -e "$OUT/guest_radio.log" ] || cat "$OUT/guest_radio.log"
python3 "$ROOT/scripts/kernel/check_vm_results.py" "$BLECAP" "$ROOT/$CAPTURE" "$OUT"
