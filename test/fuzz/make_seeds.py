#!/usr/bin/env python3
# Writes the seed inputs of the fuzz targets into test/fuzz/corpus/<target>/: a few small, readable starting points
# per target, one per behaviour worth reaching. The byte layouts below mirror the input formats described at the top
# of each fuzz_<target>.c; keep them in step. Run from anywhere: python3 test/fuzz/make_seeds.py
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))


def seed(target, name, data):
    directory = os.path.join(HERE, "corpus", target)
    os.makedirs(directory, exist_ok=True)
    with open(os.path.join(directory, name), "wb") as f:
        f.write(data)


# ---- pcap: op 0 = write (length u16), 1 = write long (65536 + u16), 2 = flush; a write continues with the
# timestamp (u64 ns), a fill seed (u8), n (u8) and n bytes that start the packet.
def packet(op, length, timestamp_ns, fill_seed, content=b""):
    return bytes([op]) + struct.pack("<HQB", length, timestamp_ns, fill_seed) + bytes([len(content)]) + content


FLUSH = bytes([2])
seed("pcap", "empty", b"")
seed("pcap", "one-60-byte-packet", packet(0, 60, 1700000000123456789, 7, bytes(range(60))))
seed("pcap", "zero-length-and-flush", packet(0, 0, 0, 0) + FLUSH + packet(0, 1, 999, 1, b"x"))
seed("pcap", "snaplen-edges", packet(0, 65535, 1, 2) + packet(1, 0, 2, 3) + packet(1, 65535, 3, 4) + FLUSH)
seed("pcap", "max-timestamp", packet(0, 1514, 2**64 - 1, 9, b"\xff" * 14))

# ---- args: min (u64), max (u64), then the text.
def args(minimum, maximum, text):
    return struct.pack("<QQ", minimum, maximum) + text


U64_MAX = 2**64 - 1
seed("args", "pci-address", args(0, U64_MAX, b"0000:03:00.0"))
seed("args", "pci-upper-case", args(0, U64_MAX, b"ABCD:EF:1f.7"))
seed("args", "pci-function-8", args(0, U64_MAX, b"0000:03:00.8"))
seed("args", "uint64-max", args(1, U64_MAX, b"18446744073709551615"))
seed("args", "xdp-name", args(0, U64_MAX, b"xdp:veth0"))
seed("args", "xdp-name-too-long", args(0, U64_MAX, b"xdp:1234567890123456"))
seed("args", "uint64-overflow", args(1, U64_MAX, b"18446744073709551616"))
seed("args", "leading-zeros", args(0, 100, b"000000000000000000000000042"))
seed("args", "out-of-range", args(1, 10, b"11"))
seed("args", "not-decimal", args(0, U64_MAX, b"10k"))
seed("args", "empty", args(0, U64_MAX, b""))

# ---- ixgbe_rx: the first byte picks the ring size (64 << (byte % 4)), then operations:
# 0 inject (count - 1: u8, length: u16 -> 60 + u16 % 1455), 1 the same with any length (60 + u16 % 16321),
# 2 mutate a written-back descriptor (pick: u16, status, length), 3 write ahead (offset: u16, status, length),
# 4 rx_batch (u8 % 65), 5 large rx_batch (u16 % (2 * ring + 1)), 6 free (count: u8, order: u8 % 3).
# status: kind (u8), bits (u32): an even kind means (kind >> 1) & 3 as DD (bit 0) and EOP (bit 1), an odd one the
# bits as they are. length: selector (u8 % 3: 0 small, 1 data room - 128 + value % 256, 2 as is), value (u16).
RX_DATA_ROOM = 3072  # packet bytes in one of the ixgbe driver's RX buffers (src/driver/ixgbe.c: RX_BUF_SIZE - 64)
def inject(count, length16, any_length=False):
    return bytes([1 if any_length else 0, count - 1]) + struct.pack("<H", length16)


def status(dd, eop):
    return bytes([(dd | eop << 1) << 1]) + struct.pack("<I", 0)


def length(value):
    if value < 256:
        return bytes([0]) + struct.pack("<H", value)
    if RX_DATA_ROOM - 128 <= value < RX_DATA_ROOM + 128:
        return bytes([1]) + struct.pack("<H", value - (RX_DATA_ROOM - 128))
    return bytes([2]) + struct.pack("<H", value)


def mutate(pick, st, ln):
    return bytes([2]) + struct.pack("<H", pick) + st + length(ln)


def ahead(offset, st, ln):
    return bytes([3]) + struct.pack("<H", offset) + st + length(ln)


def batch(n):
    return bytes([4, n])


def batch_large(n):
    return bytes([5]) + struct.pack("<H", n)


def free(count, order):
    return bytes([6, count, order])


RING_64, RING_128, RING_512 = bytes([0]), bytes([1]), bytes([3])
seed("ixgbe_rx", "receive-and-free",
     RING_64 + inject(10, 0) + batch(32) + free(5, 0) + inject(64, 1454) + batch(64) + free(255, 2))
seed("ixgbe_rx", "ring-512-wrap", RING_512 + (inject(64, 100) + batch_large(1024) + free(255, 0)) * 10)
seed("ixgbe_rx", "pool-exhausted", RING_64 + (inject(63, 0) + batch(64)) * 20 + free(255, 1) + batch_large(200))
seed("ixgbe_rx", "too-long-frames", RING_64 + inject(3, 9000, True) + inject(2, 1454) + batch(10))
seed("ixgbe_rx", "wb-no-eop", RING_64 + inject(4, 0) + mutate(0, status(1, 0), 60) + batch(8))
seed("ixgbe_rx", "wb-length-beyond-buffer",
     RING_128 + inject(4, 0) + mutate(1, status(1, 1), RX_DATA_ROOM + 1) + mutate(2, status(1, 1), 0) +
     mutate(3, status(1, 1), 65535) + batch(8))
seed("ixgbe_rx", "wb-length-data-room", RING_64 + inject(2, 0) + mutate(0, status(1, 1), RX_DATA_ROOM) + batch(8))
seed("ixgbe_rx", "wb-dd-cleared",
     RING_64 + inject(4, 0) + mutate(0, status(0, 1), 60) + batch(8) + inject(60, 0) + batch(64))
seed("ixgbe_rx", "dd-ahead",
     RING_64 + ahead(0, status(1, 1), 100) + ahead(1, status(1, 0), 100) + ahead(2, status(1, 1), 60) + batch(8) +
     inject(8, 0) + batch(16))
seed("ixgbe_rx", "dd-whole-ring",
     RING_64 + b"".join(ahead(k, status(1, 1), 64) for k in range(64)) + batch_large(128) + inject(10, 0) + batch(64))
seed("ixgbe_rx", "small-batches", RING_64 + inject(20, 0) + batch(1) + batch(0) + batch(3) + batch(16))

# ---- ixgbe_tx: the first byte picks the ring size (64 << (byte % 4)), then operations:
# 0 tx_batch (count: u8 % 65), 1 large tx_batch (count: u16 % (2 * ring + 1)), 2 clean, 3 pause, 4 resume.
# Each packet of a batch: pool (u8 & 1: 0 large, 1 small), size selector (u8 % 4: 0 empty, 1 small 1 + value % 128,
# 2 data room - 2 + value % 5, 3 value as is), value (u16).
def packet(pool, selector, value):
    return bytes([pool, selector]) + struct.pack("<H", value)


def tx(pkts, large=False):
    count = len(pkts) // 4
    return (bytes([1]) + struct.pack("<H", count) if large else bytes([0, count])) + pkts


CLEAN, PAUSE, RESUME = bytes([2]), bytes([3]), bytes([4])
SIXTY = packet(0, 1, 59)  # 60 bytes from the large pool
seed("ixgbe_tx", "send-batches", RING_64 + tx(SIXTY * 32) * 6 + CLEAN)
seed("ixgbe_tx", "sizes-at-data-room",
     RING_64 + tx(b"".join(packet(pool, 2, v) for pool in (0, 1) for v in range(5))) + tx(SIXTY * 4))
seed("ixgbe_tx", "empty-and-huge", RING_64 + tx(SIXTY * 3 + packet(0, 0, 0) + SIXTY) +
     tx(SIXTY + packet(1, 3, 65535) + SIXTY) + tx(packet(0, 3, 2048) + packet(0, 3, 2049)))
seed("ixgbe_tx", "ring-full-while-paused",
     RING_128 + PAUSE + tx(SIXTY * 200, True) + CLEAN + tx(SIXTY * 10) + RESUME + tx(SIXTY * 40) + CLEAN)
seed("ixgbe_tx", "ring-512-wrap", RING_512 + (tx(SIXTY * 64) + tx(packet(1, 1, 63) * 33)) * 20)
# The descriptors at the end of the ring all hold frames to drop (no EOP, then length 0): rx_batch goes on at
# descriptor 0 and delivers the frame there.
seed("ixgbe_rx", "drops-up-to-ring-end",
     RING_64 + inject(60, 0) + batch(60) + free(60, 0) + inject(5, 0) + mutate(0, status(1, 0), 60) +
     mutate(1, status(1, 0), 60) + mutate(2, status(1, 0), 60) + mutate(3, status(1, 1), 0) + batch(8))

# ---- virtio_rx: the first byte picks the device: ring size 64 << (byte % 4), bit 2 set: legacy only, bit 3 set: the
# device offers VIRTIO_F_ANY_LAYOUT (legacy: one descriptor per packet instead of two). Operations:
# 0 deliver (count - 1: u8, length: u16 -> 60 + u16 % 1455), 1 deliver long (count - 1: u8, u8 -> data room - 64 +
# u8 % 128), 2 take, 3 put used (id, length), 4 write a used slot ahead (ahead: u16, id, length), 5 jump (by: u16),
# 6 restore, 7 rx_batch (u8 % 65), 8 large rx_batch (u16 % (2 * ring + 1)), 9 free (count: u8, order: u8 % 3).
# id: selector u8 % 3 (0 a chain the device took, 1 value % (2 * ring), 2 any), value u32. length: selector u8 % 3
# (0 value % 64, 1 header + data room - 32 + value % 64, 2 any), value u32.
VIRTIO_DATA_ROOM = 2048  # packet bytes of a buffer of the VirtIO driver's RX pool


def v_setup(ring_shift, legacy=False, any_layout=False):
    return bytes([ring_shift | (4 if legacy else 0) | (8 if any_layout else 0)])


def v_deliver(count, length16):
    return bytes([0, count - 1]) + struct.pack("<H", length16)


def v_deliver_long(count, extra):
    return bytes([1, count - 1, extra])


V_TAKE, V_RESTORE = bytes([2]), bytes([6])


def v_id(selector, value):
    return bytes([selector]) + struct.pack("<I", value)


def v_len(selector, value):
    return bytes([selector]) + struct.pack("<I", value)


def v_put(id_, len_):
    return bytes([3]) + id_ + len_


def v_slot(ahead, id_, len_):
    return bytes([4]) + struct.pack("<H", ahead) + id_ + len_


def v_jump(by):
    return bytes([5]) + struct.pack("<H", by)


def v_batch(n):
    return bytes([7, n])


def v_batch_large(n):
    return bytes([8]) + struct.pack("<H", n)


def v_free(count, order):
    return bytes([9, count, order])


TAKEN = 0
seed("virtio_rx", "receive-and-free",
     v_setup(0) + v_deliver(10, 0) + v_batch(32) + v_free(5, 0) + v_deliver(32, 1454) + v_batch(64) + v_free(255, 2))
seed("virtio_rx", "ring-512-wrap", v_setup(3) + (v_deliver(64, 100) + v_batch_large(1024) + v_free(255, 0)) * 10)
seed("virtio_rx", "legacy-ring-128", v_setup(1, True) + (v_deliver(40, 7) + v_batch(64) + v_free(255, 1)) * 4)
seed("virtio_rx", "legacy-any-layout-ring-128",
     v_setup(1, True, True) + (v_deliver(40, 7) + v_batch(64) + v_free(255, 1)) * 4)
seed("virtio_rx", "long-frames", v_setup(0) + v_deliver_long(4, 0) + v_deliver_long(2, 127) + v_batch(8))
seed("virtio_rx", "length-beyond-buffer",
     v_setup(0) + v_deliver(2, 0) + V_TAKE + v_put(v_id(TAKEN, 0), v_len(1, 33)) + V_TAKE +
     v_put(v_id(TAKEN, 0), v_len(2, 0xffffffff)) + v_deliver(2, 0) + v_batch(8))
seed("virtio_rx", "length-data-room", v_setup(0) + V_TAKE + v_put(v_id(TAKEN, 0), v_len(1, 32)) + v_batch(8))
seed("virtio_rx", "length-zero-and-header-only",
     v_setup(0) + V_TAKE + v_put(v_id(TAKEN, 0), v_len(0, 0)) + V_TAKE + v_put(v_id(TAKEN, 0), v_len(0, 12)) +
     V_TAKE + v_put(v_id(TAKEN, 0), v_len(0, 10)) + v_deliver(1, 0) + v_batch(8))
seed("virtio_rx", "unknown-ids",
     v_setup(0) + v_put(v_id(2, 0xffffffff), v_len(0, 50)) + v_put(v_id(1, 1), v_len(0, 50)) +
     v_put(v_id(2, 64), v_len(0, 50)) + v_deliver(3, 0) + v_batch(8))
seed("virtio_rx", "full-ring-after-bad-ids",
     v_setup(0) + v_put(v_id(1, 1), v_len(0, 50)) + v_put(v_id(2, 999), v_len(0, 50)) + v_batch(8) +
     v_deliver(32, 0) + v_batch(64))
seed("virtio_rx", "chain-returned-twice",
     v_setup(0) + V_TAKE + v_put(v_id(1, 2), v_len(0, 60)) + v_put(v_id(1, 2), v_len(0, 60)) + v_batch(8) +
     v_deliver(4, 0) + v_batch(8))
seed("virtio_rx", "jump-and-restore",
     v_setup(0) + v_deliver(3, 0) + v_jump(1000) + v_batch(8) + v_batch(8) + V_RESTORE + v_deliver(2, 0) + v_batch(8))
seed("virtio_rx", "jump-within-ring", v_setup(0) + v_jump(5) + v_batch(8) + v_deliver(2, 0) + v_batch(8))
seed("virtio_rx", "slot-ahead-then-jump",
     v_setup(1) + v_slot(1, v_id(1, 4), v_len(0, 40)) + v_slot(2, v_id(1, 6), v_len(1, 40)) + v_jump(3) +
     v_batch(8) + v_deliver(2, 0) + v_batch(8))
seed("virtio_rx", "pool-exhausted", v_setup(0) + (v_deliver(32, 0) + v_batch(64)) * 130 + v_free(255, 1) + v_batch(64))
seed("virtio_rx", "small-batches", v_setup(0) + v_deliver(20, 0) + v_batch(1) + v_batch(0) + v_batch(3) + v_batch(16))

# ---- virtio_tx: the first byte as for virtio_rx. Operations: 0 send (u8 % 81 packets), 1 the device sends up to
# u8 chains, 2 take, 3 put used (id as for virtio_rx; length selector u8: odd -> u32 length, even -> 0), 4 write a
# used slot ahead (ahead: u16, id), 5 jump (by: u16), 6 restore.
def t_send(n):
    return bytes([0, n])


def t_process(n):
    return bytes([1, n])


T_TAKE, T_RESTORE = bytes([2]), bytes([6])


def t_put(id_, length=None):
    return bytes([3]) + id_ + (bytes([0]) if length is None else bytes([1]) + struct.pack("<I", length))


def t_slot(ahead, id_):
    return bytes([4]) + struct.pack("<H", ahead) + id_


def t_jump(by):
    return bytes([5]) + struct.pack("<H", by)


FIRST_TX_HEAD = 62  # the driver hands out free chains from the top of its stack: chain 31 of a 64 ring first
seed("virtio_tx", "send-and-process", v_setup(0) + t_send(20) + t_process(255) + t_send(0) + t_send(80))
seed("virtio_tx", "full-queue",
     v_setup(0) + t_send(80) + t_send(80) + t_process(10) + t_send(80) + t_process(255) + t_send(1))
seed("virtio_tx", "ring-512", v_setup(3) + (t_send(80) + t_process(60)) * 20 + t_process(255) + t_send(0))
seed("virtio_tx", "legacy-ring-256", v_setup(2, True) + (t_send(50) + t_process(255)) * 5)
seed("virtio_tx", "legacy-any-layout-ring-256", v_setup(2, True, True) + (t_send(50) + t_process(255)) * 5)
seed("virtio_tx", "chain-returned-twice",
     v_setup(0) + t_send(8) + T_TAKE + t_put(v_id(TAKEN, 0)) + t_put(v_id(1, FIRST_TX_HEAD)) + t_send(0) +
     t_process(255) + t_send(40))
seed("virtio_tx", "unknown-ids",
     v_setup(0) + t_send(8) + t_put(v_id(2, 5000)) + t_put(v_id(1, 1), 77) + t_put(v_id(2, 0xffffffff)) + t_send(0) +
     t_process(255) + t_send(32) + t_process(255) + t_send(0))
seed("virtio_tx", "taken-and-dropped",
     v_setup(0) + t_send(8) + T_TAKE + T_TAKE + t_put(v_id(TAKEN, 0)) + t_process(255) + t_put(v_id(TAKEN, 0)) +
     t_send(4))
seed("virtio_tx", "jump-and-restore",
     v_setup(0) + t_send(8) + t_process(3) + t_jump(40000) + t_send(4) + T_RESTORE + t_send(4) + t_process(255) +
     t_send(0))
seed("virtio_tx", "slot-ahead-then-jump",
     v_setup(0) + t_send(8) + t_slot(0, v_id(1, FIRST_TX_HEAD)) + t_slot(1, v_id(1, 60)) + t_jump(2) + t_send(0) +
     t_process(255) + t_send(0))

# ---- virtio_caps: flags (bit 0: legacy if no modern capabilities), configuration space (256 bytes), a size byte per
# BAR (0: none, else 1 << (byte % 17)), u16 n, n bytes of operations, then the device's answers to the loads in order.
# An operation is an op byte and an argument byte a (queue a % 4), then its arguments (fuzz_virtio_caps.c).
def cap(at, next_, cfg_type, bar, offset, length, multiplier=0, cap_len=None):
    if cap_len is None:
        cap_len = 20 if cfg_type in (2, 5) else 16
    body = bytes([0x09, next_, cap_len, cfg_type, bar, 0, 0, 0]) + struct.pack("<III", offset, length, multiplier)
    return at, body[:max(cap_len, 16)]


def config_space(first, caps, device_id=0x1041):
    space = bytearray(256)
    space[0:4] = struct.pack("<HH", 0x1AF4, device_id)
    space[0x0B] = 0x02
    if first is not None:
        space[0x06] = 0x10  # capability list
        space[0x34] = first
    for at, body in caps:
        space[at:at + len(body)] = body
    return bytes(space)


def caps_input(flags, space, bars, ops, answers=b""):
    return bytes([flags]) + space + bytes(bars) + struct.pack("<H", len(ops)) + ops + answers


C_GET_STATUS, C_SET_STATUS, C_GET_FEATURES, C_SET_FEATURES, C_QUEUE_SIZE, C_ENABLE, C_VECTOR, C_NOTIFY, \
    C_READ_CONFIG, C_WRITE_CONFIG = range(10)


def c_op(op, a=0, args=b""):
    return bytes([op, a]) + args


def c_read_config(offset, length):
    return c_op(C_READ_CONFIG, offset % 4, bytes([offset // 4, length]))


def c_enable(queue, size, desc):
    return c_op(C_ENABLE, queue, struct.pack("<HQQQ", size, desc, desc + 16 * size, desc + 8192))


QEMU_CAPS = [cap(0x40, 0x50, 1, 4, 0x0000, 0x1000), cap(0x50, 0x60, 3, 4, 0x1000, 0x1000),
             cap(0x60, 0x70, 4, 4, 0x2000, 0x1000), cap(0x70, 0x84, 2, 4, 0x3000, 0x1000, 4),
             cap(0x84, 0x00, 5, 0, 0, 0)]
QEMU_BARS = [0, 0, 0, 0, 14, 0]  # BAR4: 16 KiB
# The init of virtio.c, roughly, and the answers of a device that takes it: features (two halves), status before and
# after FEATURES_OK, queue size 256 (read, and read again by enable_queue), notify offset 0, then the MAC address,
# the link status and the speed, each between two equal config_generation bytes.
INIT_OPS = (c_op(C_SET_STATUS, 0) + c_op(C_GET_FEATURES) + c_op(C_SET_FEATURES, 0, struct.pack("<Q", 1 << 32 | 1 << 5)) +
            c_op(C_QUEUE_SIZE, 0, struct.pack("<H", 256)) + c_enable(0, 256, 0x1000000) + c_op(C_NOTIFY, 0) +
            c_read_config(0, 6) + c_read_config(6, 2) + c_read_config(12, 4) + c_op(C_VECTOR, 1, struct.pack("<H", 3)))
INIT_ANSWERS = (struct.pack("<II", 1 << 5, 1) + bytes([0x03, 0x0B]) + struct.pack("<HHH", 256, 256, 0) +
                bytes([0]) + bytes([2, 0, 0, 1, 8, 0]) + bytes([0]) + bytes([0, 1, 0, 0]) + bytes([0]) +
                struct.pack("<I", 10000) + bytes([0]) + struct.pack("<H", 3))
seed("virtio_caps", "qemu-layout-init", caps_input(0, config_space(0x40, QEMU_CAPS), QEMU_BARS, INIT_OPS, INIT_ANSWERS))
# The first capability pointer 0xff (the unmasked pointer reads past the 256 bytes: ASan), falling back to legacy.
seed("virtio_caps", "cap-pointer-0xff", caps_input(1, config_space(0xFF, [], 0x1000), [0] * 6, INIT_OPS, INIT_ANSWERS))
seed("virtio_caps", "cap-pointer-reserved-bits",
     caps_input(0, config_space(0x43, QEMU_CAPS), QEMU_BARS, INIT_OPS, INIT_ANSWERS))
LOOP_CAPS = QEMU_CAPS[:4] + [cap(0x84, 0x40, 5, 0, 0, 0)]
seed("virtio_caps", "cap-list-loop", caps_input(0, config_space(0x40, LOOP_CAPS), QEMU_BARS, INIT_OPS, INIT_ANSWERS))
# virtio_model.c's split layout: three BARs, backwards, capabilities to pass over, multiplier 0.
SPLIT_CAPS = [cap(0x8C, 0xA3, 5, 0, 0, 0), cap(0xA0, 0x79, 1, 7, 0, 0x38), cap(0x78, 0x65, 2, 2, 0x400, 2, 0, 16),
              cap(0x64, 0x50, 4, 1, 0x100, 0x40), cap(0x50, 0x40, 2, 2, 0, 2), cap(0x40, 0xC2, 1, 5, 0x800, 0x38),
              cap(0xC0, 0xD0, 1, 5, 0, 0x38), cap(0xD0, 0x00, 3, 1, 0, 1), (0xB0, bytes([0x11, 0x8E, 12]))]
seed("virtio_caps", "split-layout",
     caps_input(0, config_space(0xB1, SPLIT_CAPS), [0, 12, 12, 0, 0, 12], INIT_OPS, INIT_ANSWERS))
# Structures that do not fit: the common configuration beyond its BAR, an odd multiplier, a misaligned device
# configuration, a reserved BAR number, a notification capability too short.
seed("virtio_caps", "common-beyond-bar", caps_input(
    0, config_space(0x40, [cap(0x40, 0x50, 1, 4, 0x3FF0, 0x1000)] + QEMU_CAPS[1:]), QEMU_BARS, INIT_OPS))
seed("virtio_caps", "odd-multiplier", caps_input(
    0, config_space(0x40, QEMU_CAPS[:3] + [cap(0x70, 0x84, 2, 4, 0x3000, 0x1000, 3)] + QEMU_CAPS[4:]), QEMU_BARS,
    INIT_OPS))
seed("virtio_caps", "device-config-misaligned", caps_input(
    0, config_space(0x40, QEMU_CAPS[:2] + [cap(0x60, 0x70, 4, 4, 0x2002, 0x100)] + QEMU_CAPS[3:]), QEMU_BARS,
    INIT_OPS))
seed("virtio_caps", "reserved-bar", caps_input(
    0, config_space(0x40, [cap(0x40, 0x50, 1, 9, 0, 0x1000)] + QEMU_CAPS[1:]), QEMU_BARS, INIT_OPS))
# The first common configuration in BAR 3, which is no memory BAR, a second one after the others in BAR4: the walk
# passes over the first and takes the second (4.1.4.1).
seed("virtio_caps", "common-unmappable-then-good", caps_input(
    0, config_space(0x40, [cap(0x40, 0x50, 1, 3, 0, 0x1000)] + QEMU_CAPS[1:4] + [cap(0x84, 0xA0, 5, 0, 0, 0),
                                                                               cap(0xA0, 0x00, 1, 4, 0, 0x1000)]),
    QEMU_BARS, INIT_OPS, INIT_ANSWERS))
# The device's answers: a queue whose notification offset is far outside the structure, a configuration whose
# generation changes on every read.
seed("virtio_caps", "notify-offset-outside", caps_input(
    0, config_space(0x40, QEMU_CAPS), QEMU_BARS, INIT_OPS,
    INIT_ANSWERS[:10] + struct.pack("<HHH", 256, 256, 0xFFFF)))
seed("virtio_caps", "generation-keeps-changing", caps_input(
    0, config_space(0x40, QEMU_CAPS), QEMU_BARS, c_read_config(0, 6) * 2 + c_read_config(12, 4),
    bytes(range(1, 255))))
# Legacy: every register read answered, then reads that come back short.
seed("virtio_caps", "legacy-registers", caps_input(
    1, config_space(None, [], 0x1000), [0] * 6,
    INIT_OPS + c_op(C_WRITE_CONFIG, 0, bytes([6])) + c_read_config(0, 8),
    bytes([0, 0x20, 0, 0, 1, 1, 1]) + bytes(range(40))))

# ---- xdp_rings: the ring size as a power of two (u8 % 7), then operations with their arguments, each a byte
# op + 9 * socket (op = u8 % 9, socket = u8 / 9 % 3; three sockets share the UMEM, 0 .. 8 act on socket 0):
# 0 FILL_TAKE n(u8); 1 RX_PUT address, length; 2 TX_TAKE n(u8); 3 COMPLETE address; 4 JUMP which(u8) mode(u8)
# value(u32, mode odd) or step(u8); 5 FLAGS u32; 6 RX want(u8); 7 TX want(u8), per buffer: from the app(u8 odd)
# index(u16) or its own pool(u8 even), then size(u16); 8 FREE n(u8), per buffer index(u16).
# An address: kind(u8 % 8) 0 a frame the kernel read from this socket's fill (RX_PUT) or TX ring (COMPLETE) (index
# u16), 1 any frame (u16), 2 any value (u64); 3 and 4 as 0 and 1, then an offset into the frame (u16 % 2048) in place
# of the packet offset; 6 a frame the kernel read from any socket's ring: socket(u8 % 3), ring(u8: even fill, odd
# TX), index(u16); 7 as 6, then an offset (u16).
# Each socket's first refill takes ring-size frames from the pool in order: with rings of 4, socket 0 gives frames
# 0 .. 3, socket 1 frames 4 .. 7, socket 2 frames 8 .. 11.
def x_addr_held(i):
    return bytes([0]) + struct.pack("<H", i)


def x_addr_held_at(i, offset):
    return bytes([3]) + struct.pack("<HH", i, offset)


def x_addr_any(value):
    return bytes([2]) + struct.pack("<Q", value)


def x_len(n):  # 0 .. 1792
    return bytes([0]) + struct.pack("<H", n)


def x_len_any(n):
    return bytes([1]) + struct.pack("<I", n)


def x_addr_of(socket, tx, i):
    return bytes([6, socket, int(tx)]) + struct.pack("<H", i)


def x_op(op, socket=0):
    return bytes([op + 9 * socket])


def x_tx(bufs, socket=0):
    out = x_op(7, socket) + bytes([len(bufs)])
    for from_app, index, size in bufs:
        out += (bytes([1]) + struct.pack("<H", index) if from_app else bytes([0])) + struct.pack("<H", size)
    return out


FILL_TAKE_ALL = bytes([0, 64])
seed("xdp_rings", "receive-forward-complete",
     bytes([3]) + FILL_TAKE_ALL + bytes([1]) + x_addr_held(0) + x_len(60) + bytes([1]) + x_addr_held(1) + x_len(1514)
     + bytes([6, 32]) + x_tx([(True, 0, 60), (True, 0, 1514)]) + bytes([2, 8]) + bytes([3]) + x_addr_held(0)
     + bytes([3]) + x_addr_held(1) + x_tx([]))
seed("xdp_rings", "send-copies", bytes([5]) + x_tx([(False, 0, 60)] * 16) + bytes([2, 16])
     + b"".join(bytes([3]) + x_addr_held(i) for i in range(16)) + x_tx([]))
# A full RX ring of 4: an address beyond any frame, a frame not given (119; ixy gives frames 0 .. 3), a length one
# more than a frame holds (dropped), and exactly what a frame holds (taken).
seed("xdp_rings", "garbage-descriptors",
     bytes([2]) + FILL_TAKE_ALL + bytes([1]) + x_addr_any(2**64 - 1) + x_len_any(2**32 - 1)
     + bytes([1]) + bytes([1]) + struct.pack("<H", 9999) + x_len(60) + bytes([1]) + x_addr_held(0) + x_len_any(1793)
     + bytes([1]) + x_addr_held(1) + x_len(1792) + bytes([6, 64]) + bytes([3]) + x_addr_any(256) + x_tx([]))
seed("xdp_rings", "indices-jump", bytes([4]) + bytes([4, 0, 1]) + struct.pack("<I", 0x80000000) + bytes([6, 64])
     + bytes([4, 2, 1]) + struct.pack("<I", 12345) + bytes([6, 1]) + bytes([4, 3, 0, 7]) + x_tx([(False, 0, 60)])
     + bytes([5]) + struct.pack("<I", 1))
# A buffer of the app's own pool takes sizes up to 1984 (u16 % 1985): 1900 is more than a frame holds.
seed("xdp_rings", "too-large-to-send", bytes([1]) + x_tx([(False, 0, 1900)]) + bytes([8, 3, 0, 0]))
# The kernel says it read the fill ring (then the TX ring) 3 entries beyond what ixy produced: ixy must produce
# nothing then, not 3 more than the ring holds.
seed("xdp_rings", "consumer-ahead-of-producer",
     bytes([2]) + bytes([4, 2, 1]) + struct.pack("<I", 7) + bytes([6, 0]) + bytes([0, 4]) + bytes([6, 0])
     + bytes([4, 3, 1]) + struct.pack("<I", 3) + x_tx([(False, 0, 60)] * 8) + bytes([2, 4])
     + x_tx([(False, 0, 60)] * 8))
# Rings of 4 filled up: four packets received two at a time, four frames sent and completed at once.
seed("xdp_rings", "full-rings-partial-rx",
     bytes([2]) + FILL_TAKE_ALL + b"".join(bytes([1]) + x_addr_held(i) + x_len(60 + i) for i in range(4))
     + bytes([6, 2]) + bytes([6, 2]) + x_tx([(False, 0, 60)] * 4) + bytes([2, 4])
     + b"".join(bytes([3]) + x_addr_held(i) for i in range(4)) + x_tx([]))
# RX descriptors naming frames the kernel holds at offsets other than the packet's (the frame's start, either side
# of 256, its last byte): dropped; then one at the packet offset, taken.
seed("xdp_rings", "rx-offset-not-packet",
     bytes([4]) + bytes([0, 16]) + b"".join(bytes([1]) + x_addr_held_at(i, offset) + x_len(60)
                                            for i, offset in enumerate((0, 255, 257, 2047)))
     + bytes([1]) + x_addr_held(4) + x_len(60) + bytes([6, 16]))
# Two sockets sharing the UMEM (rings of 4). The kernel writes into socket 0's RX ring frames that socket 0 did not
# give it through its fill ring: frame 4, which socket 1 gave through its fill ring and the kernel read, and frame 8,
# socket 2's, not read; then frame 0, socket 0's own: only that one is received. Then the same on socket 1, whose
# own frame 4 it receives.
seed("xdp_rings", "other-socket-frame",
     bytes([2]) + x_op(0, 1) + bytes([64]) + x_op(1) + x_addr_of(1, False, 0) + x_len(60) + x_op(1)
     + bytes([1]) + struct.pack("<H", 8) + x_len(60) + x_op(6) + bytes([64]) + FILL_TAKE_ALL + x_op(1)
     + x_addr_held(0) + x_len(61) + x_op(6) + bytes([64]) + x_op(1, 1) + x_addr_of(0, False, 0) + x_len(62)
     + x_op(1, 1) + x_addr_held(0) + x_len(63) + x_op(6, 1) + bytes([64]))
# Socket 0 sends a frame the kernel read from its TX ring; the kernel completes it on socket 1 (which must leave it
# given), then on socket 0 (which takes it back). Socket 1 sends a copy; its completion comes on socket 2 first.
seed("xdp_rings", "other-socket-completion",
     bytes([2]) + x_tx([(False, 0, 60)]) + x_op(2) + bytes([4]) + x_op(3, 1) + x_addr_of(0, True, 0)
     + x_tx([], 1) + x_op(3) + x_addr_of(0, True, 0) + x_tx([]) + x_tx([(False, 0, 70)], 1) + x_op(2, 1)
     + bytes([4]) + x_op(3, 2) + x_addr_of(1, True, 0) + x_tx([], 2) + x_op(3, 1) + x_addr_of(1, True, 0)
     + x_tx([], 1))
# Received on socket 0, sent on socket 1, completed on socket 1: the frame moves between sockets through the app.
seed("xdp_rings", "forward-between-sockets",
     bytes([2]) + FILL_TAKE_ALL + x_op(1) + x_addr_held(0) + x_len(60) + x_op(6) + bytes([64])
     + x_tx([(True, 0, 60)], 1) + x_op(2, 1) + bytes([4]) + x_op(3, 1) + x_addr_held(0) + x_tx([], 1)
     + x_op(6, 2) + bytes([1]))

# ---- virtio_mq: mode (bit 0: the device model, else virtio_rss.c called directly; bit 1: model legacy only),
# features offered (bit 0 CTRL_VQ, 1 MQ, 2 RSS, 3 CTRL_RX), rx_queues, tx_queues (direct: u8 % 65; model: 1 + u8 % 8,
# so the byte is queues - 1), max_virtqueue_pairs (selector u8 % 4, value u16: 0 value % 10, 1 one of 0x7fff,
# 0x8000, 0x8001, 0xffff, 0 by value % 5, 2 max(rx, tx) - 2 + value % 5, 3 value), rss_max_key_size (u8),
# rss_max_indirection_table_length (u16), supported_hash_types (u32), the app's RSS (flags u8: bit 0 given, bit 1
# key from the input, bits 2-3 table: 0 i % rx, 1 128 bytes from the input, 2 one entry (position, value) from the
# input), its hash_types (u8), table bytes, key bytes; then direct: read_config failure mask (u8), model: the
# control queue's answer (u8 % 3: 0 OK, 1 ERR, 2 none).
MQ_CTRL, MQ_MQ, MQ_RSS, MQ_CTRL_RX = 1, 2, 4, 8
MQ_ALL = MQ_CTRL | MQ_MQ | MQ_RSS | MQ_CTRL_RX


def mq(features, rx, tx, pairs=(0, 8), key=40, table=128, types=0x1ff, rss=b"\x00\x00", last=0, model=False,
       legacy=False):
    queue = (lambda n: n - 1) if model else (lambda n: n)
    return (bytes([(1 if model else 0) | (2 if legacy else 0), features, queue(rx), queue(tx), pairs[0]])
            + struct.pack("<HBHI", pairs[1], key, table, types) + rss + bytes([last]))


def mq_rss(hash_types=7, table=None, entry=None, key=None):
    flags = 1 | (2 if key else 0)
    tail = b""
    if table is not None:
        flags |= 1 << 2
        tail += bytes(table)
    elif entry is not None:
        flags |= 2 << 2
        tail += bytes(entry)
    return bytes([flags, hash_types]) + tail + (bytes(key) if key else b"")


def mq_model(name, *args, **kwargs):
    seed("virtio_mq", "model-" + name, mq(*args, model=True, **kwargs))


seed("virtio_mq", "rss-4-pairs", mq(MQ_ALL, 4, 4))
seed("virtio_mq", "rss-64-pairs-max-0x7fff", mq(MQ_ALL, 64, 64, pairs=(1, 0)))
seed("virtio_mq", "max-pairs-0", mq(MQ_ALL, 4, 4, pairs=(0, 0)))
seed("virtio_mq", "max-pairs-0x8000", mq(MQ_ALL, 4, 4, pairs=(1, 1)))
seed("virtio_mq", "max-pairs-0xffff", mq(MQ_ALL, 4, 4, pairs=(1, 3)))
seed("virtio_mq", "max-pairs-one-below", mq(MQ_ALL, 3, 5, pairs=(2, 1)))
seed("virtio_mq", "max-pairs-exact", mq(MQ_ALL, 3, 5, pairs=(2, 2)))
seed("virtio_mq", "key-39", mq(MQ_ALL, 4, 4, key=39))
seed("virtio_mq", "table-127", mq(MQ_ALL, 4, 4, table=127))
seed("virtio_mq", "no-udp-hash", mq(MQ_ALL, 4, 4, types=3))
seed("virtio_mq", "no-udp-hash-asked-tcp", mq(MQ_ALL, 4, 4, types=3, rss=mq_rss(hash_types=3)))
seed("virtio_mq", "rss-table-own-key", mq(MQ_ALL, 4, 2, rss=mq_rss(table=[(i * 3) % 4 for i in range(128)],
                                                                     key=range(40))))
seed("virtio_mq", "rss-table-entry-out-of-range", mq(MQ_ALL, 4, 4, rss=mq_rss(entry=(77, 4))))
seed("virtio_mq", "rss-unknown-hash-bits", mq(MQ_ALL, 4, 4, rss=mq_rss(hash_types=0x0f)))
seed("virtio_mq", "rss-table-no-rss-device", mq(MQ_CTRL | MQ_MQ, 4, 4, rss=mq_rss()))
seed("virtio_mq", "mq-only-no-table", mq(MQ_CTRL | MQ_MQ, 4, 1))
seed("virtio_mq", "rss-only-1-rx-4-tx", mq(MQ_CTRL | MQ_RSS, 1, 4))
seed("virtio_mq", "mq-rss-1-rx-4-tx", mq(MQ_ALL, 1, 4))
seed("virtio_mq", "no-ctrl-vq", mq(MQ_MQ | MQ_RSS, 4, 4))
seed("virtio_mq", "one-pair-table-ignored", mq(MQ_ALL, 1, 1, rss=mq_rss(entry=(0, 9))))
seed("virtio_mq", "zero-queues", mq(MQ_ALL, 0, 0))
for read in range(4):
    seed("virtio_mq", "read-%d-fails" % read, mq(MQ_ALL, 4, 4, last=1 << read))
mq_model("rss-4-pairs", MQ_ALL, 4, 4)
mq_model("rss-8-pairs-own-table", MQ_ALL, 8, 8, rss=mq_rss(table=[i % 8 for i in range(128)], key=range(40)))
mq_model("mq-only-3-pairs", MQ_CTRL | MQ_MQ | MQ_CTRL_RX, 3, 2)
mq_model("max-pairs-9", MQ_ALL, 4, 4, pairs=(0, 9))
mq_model("max-pairs-below", MQ_ALL, 4, 4, pairs=(0, 3))
mq_model("key-39", MQ_ALL, 4, 4, key=39)
mq_model("answer-err", MQ_ALL, 4, 4, last=1)
mq_model("answer-none", MQ_ALL, 4, 4, last=2)
mq_model("one-pair-answer-err", MQ_ALL, 1, 1, last=1)
mq_model("one-pair-mq-offered", MQ_ALL, 1, 1)
mq_model("rss-only-4-rx", MQ_CTRL | MQ_RSS | MQ_CTRL_RX, 4, 4)
mq_model("rss-only-1-rx-4-tx", MQ_CTRL | MQ_RSS | MQ_CTRL_RX, 1, 4)
mq_model("mq-rss-1-rx-4-tx", MQ_ALL, 1, 4)
mq_model("legacy-mq", MQ_ALL, 4, 4, legacy=True)
mq_model("no-ctrl-vq", MQ_MQ | MQ_RSS, 2, 2)


# ---- virtio_packed: the first byte picks the device: ring size 64 << (byte % 4), bit 2 set: VIRTIO_RING_F_EVENT_IDX
# offered too (packed always). Operations: 0 deliver (count - 1: u8), 1 take (side: u8 % 2, 0 RX, 1 TX), 2 put used
# (side, id, length), 3 raw descriptor (side, ahead: u16, id, length, flags selector u8 % 3: 0 used in this lap,
# 1 in the other lap, 2 the u16 that follows, which is always there), 4 rx_batch (u16 % (2 * ring + 1)), 5 free
# (count: u8), 6 send (u8 % 81 packets), 7 the device sends (up to u8). id: selector u8 % 3 (0 a buffer the device
# took, 1 value % (2 * ring), 2 any), value u16. length: as virtio_rx's.
def p_setup(ring_shift, event_idx=False):
    return bytes([ring_shift | (4 if event_idx else 0)])


def p_deliver(count):
    return bytes([0, count - 1])


def p_take(side):
    return bytes([1, side])


def p_id(selector, value):
    return bytes([selector]) + struct.pack("<H", value)


def p_put(side, id_, len_):
    return bytes([2, side]) + id_ + len_


def p_raw(side, ahead, id_, len_, flags_selector, flags=0):
    return bytes([3, side]) + struct.pack("<H", ahead) + id_ + len_ + bytes([flags_selector]) + struct.pack("<H", flags)


def p_batch(n):
    return bytes([4]) + struct.pack("<H", n)


def p_free(count):
    return bytes([5, count])


def p_send(n):
    return bytes([6, n])


def p_process(n):
    return bytes([7, n])


RX, TX = 0, 1
seed("virtio_packed", "receive-and-send",
     p_setup(0) + (p_deliver(40) + p_batch(64) + p_free(255) + p_send(40) + p_process(255)) * 5)
seed("virtio_packed", "ring-512-wrap-event-idx",
     p_setup(3, True) + (p_deliver(64) + p_batch(1024) + p_free(255) + p_send(80) + p_process(100)) * 20)
seed("virtio_packed", "out-of-order",
     p_setup(0) + p_take(RX) + p_take(RX) + p_put(RX, p_id(TAKEN, 1), v_len(1, 32)) + p_put(RX, p_id(TAKEN, 0),
                                                                                           v_len(0, 40)) + p_batch(8))
seed("virtio_packed", "unknown-ids",
     p_setup(0) + p_put(RX, p_id(2, 999), v_len(0, 60)) + p_put(TX, p_id(1, 100), v_len(0, 0)) + p_batch(8) +
     p_send(8))
seed("virtio_packed", "length-beyond-buffer", p_setup(0) + p_take(RX) + p_put(RX, p_id(TAKEN, 0), v_len(2, 99999)) +
     p_batch(8))
seed("virtio_packed", "wrong-wrap", p_setup(0) + p_take(RX) + p_raw(RX, 0, p_id(TAKEN, 0), v_len(0, 60), 1) +
     p_batch(8) + p_deliver(4) + p_batch(8))
seed("virtio_packed", "written-ahead", p_setup(1) + p_take(RX) + p_take(RX) +
     p_raw(RX, 1, p_id(TAKEN, 0), v_len(0, 60), 0) + p_batch(8) + p_put(RX, p_id(TAKEN, 0), v_len(0, 60)) + p_batch(8))
seed("virtio_packed", "tx-any-flags", p_setup(0) + p_send(10) + p_take(TX) + p_raw(TX, 0, p_id(TAKEN, 0), v_len(0, 0),
                                                                                   2, 0x8081) + p_send(10))
seed("virtio_packed", "tx-returned-twice", p_setup(0) + p_send(4) + p_take(TX) +
     p_put(TX, p_id(1, 0), v_len(0, 0)) + p_put(TX, p_id(1, 0), v_len(0, 0)) + p_send(4) + p_process(255))
