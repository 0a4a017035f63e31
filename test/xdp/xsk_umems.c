// xsk_umems: the AF_XDP sockets of one process as the kernel holds them, for test_xdp_veth.sh: for each socket the
// interface and queue it is bound to and the id of its UMEM. The test asks it whether ixy-fwd's two devices share
// one UMEM (XDP_SHARED_UMEM), which nothing the process prints can show: each socket registering its own UMEM over
// the same memory forwards just as well, without a copy.
//
//   xsk_umems <pid>
//
// Prints one line per AF_XDP socket of the process, by file descriptor:
//   xsk fd=<fd> ifname=<name> queue=<queue> umem=<id>
// ifname as this network namespace names the interface ("-" for an unbound socket), umem=-1 for a socket without
// one. Exit status: 0, 1 the kernel could not be asked (why on stderr), 2 usage.
//
// The kernel reports the same through sock_diag (xsk_diag, which `ss --xdp -e` prints), but only if it was built
// with CONFIG_XDP_SOCKETS_DIAG, which many kernels (this machine's too) are not. So this reads the kernel's own
// structures instead, as a BPF iterator over the open files of all processes (iter/task_file, Linux >= 5.8): its
// program, for each socket file of the process whose family is AF_XDP, reads struct xdp_sock's dev->ifindex,
// queue_id and umem->id and writes them to the iterator's output. Where those fields are comes from the kernel's
// BTF (/sys/kernel/btf/vmlinux, CONFIG_DEBUG_INFO_BTF), as libbpf's CO-RE relocations would find them; the
// program is assembled here, as src/driver/xdp.c assembles its own. Needs CAP_BPF and CAP_PERFMON (root).
#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <linux/btf.h>
#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef AF_XDP
#define AF_XDP 44
#endif

static long sys_bpf(enum bpf_cmd cmd, union bpf_attr* attr) {
	return syscall(__NR_bpf, cmd, attr, sizeof(*attr));
}

// ---- The kernel's BTF (Documentation/bpf/btf.rst) ----

static struct {
	uint8_t* data; // the whole of it; the rest points into it
	const char* strings;
	uint32_t strings_len;
	const struct btf_type** types; // by type id; id 0 is void and has no entry
	uint32_t count;                // ids below count exist
} btf;

static const char* btf_name(uint32_t off) {
	return off < btf.strings_len ? btf.strings + off : "";
}

// Bytes that follow a type's struct btf_type; -1 for a kind this reader does not know.
static long btf_extra(const struct btf_type* t) {
	long vlen = BTF_INFO_VLEN(t->info);
	switch (BTF_INFO_KIND(t->info)) {
		case BTF_KIND_INT:
			return sizeof(uint32_t);
		case BTF_KIND_ARRAY:
			return sizeof(struct btf_array);
		case BTF_KIND_STRUCT:
		case BTF_KIND_UNION:
			return vlen * (long)sizeof(struct btf_member);
		case BTF_KIND_ENUM:
			return vlen * (long)sizeof(struct btf_enum);
		case BTF_KIND_FUNC_PROTO:
			return vlen * (long)sizeof(struct btf_param);
		case BTF_KIND_VAR:
			return sizeof(struct btf_var);
		case BTF_KIND_DATASEC:
			return vlen * (long)sizeof(struct btf_var_secinfo);
		case BTF_KIND_DECL_TAG:
			return sizeof(struct btf_decl_tag);
		case BTF_KIND_ENUM64:
			return vlen * (long)sizeof(struct btf_enum64);
		case BTF_KIND_PTR:
		case BTF_KIND_FWD:
		case BTF_KIND_TYPEDEF:
		case BTF_KIND_VOLATILE:
		case BTF_KIND_CONST:
		case BTF_KIND_RESTRICT:
		case BTF_KIND_FUNC:
		case BTF_KIND_FLOAT:
		case BTF_KIND_TYPE_TAG:
			return 0;
		default:
			return -1;
	}
}

// Reads the kernel's BTF and indexes its types. 0, or -1 with a message.
static int btf_load(void) {
	const char* path = "/sys/kernel/btf/vmlinux";
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "xsk_umems: %s: %s (a kernel without CONFIG_DEBUG_INFO_BTF)\n", path, strerror(errno));
		return -1;
	}
	// The file's size is not known beforehand (sysfs): read until its end, in a buffer that doubles.
	size_t size = 0, capacity = 0;
	uint8_t* data = NULL;
	ssize_t got;
	do {
		if (size == capacity) {
			capacity = capacity ? capacity * 2 : (size_t)1 << 22;
			uint8_t* more = realloc(data, capacity);
			if (!more) {
				fprintf(stderr, "xsk_umems: out of memory\n");
				free(data);
				close(fd);
				return -1;
			}
			data = more;
		}
		got = read(fd, data + size, capacity - size);
		size += got > 0 ? (size_t)got : 0;
	} while (got > 0);
	close(fd);
	btf.data = data;
	const struct btf_header* h = (const struct btf_header*)data;
	if (got < 0 || size < sizeof(*h) || h->magic != BTF_MAGIC || h->hdr_len > size ||
	    (uint64_t)h->hdr_len + h->type_off + h->type_len > size ||
	    (uint64_t)h->hdr_len + h->str_off + h->str_len > size) {
		fprintf(stderr, "xsk_umems: %s: cannot be read as BTF\n", path);
		return -1;
	}
	const uint8_t* types = data + h->hdr_len + h->type_off;
	btf.strings = (const char*)data + h->hdr_len + h->str_off;
	btf.strings_len = h->str_len;
	// Twice over the types: to count them, then to index them.
	for (int pass = 0; pass < 2; pass++) {
		uint32_t id = 1;
		for (uint32_t off = 0; off + sizeof(struct btf_type) <= h->type_len; id++) {
			const struct btf_type* t = (const struct btf_type*)(types + off);
			long extra = btf_extra(t);
			if (extra < 0 || off + sizeof(struct btf_type) + (size_t)extra > h->type_len) {
				fprintf(stderr, "xsk_umems: %s: type %u of kind %u: unknown, or beyond the end\n", path,
					id, BTF_INFO_KIND(t->info));
				return -1;
			}
			if (pass == 1) {
				btf.types[id] = t;
			}
			off += (uint32_t)(sizeof(struct btf_type) + (size_t)extra);
		}
		if (pass == 0) {
			btf.count = id;
			btf.types = calloc(id, sizeof(btf.types[0]));
			if (!btf.types) {
				fprintf(stderr, "xsk_umems: out of memory\n");
				return -1;
			}
		}
	}
	return 0;
}

static int btf_kind(uint32_t id) {
	return id > 0 && id < btf.count ? (int)BTF_INFO_KIND(btf.types[id]->info) : -1;
}

// The type behind typedefs and qualifiers.
static uint32_t btf_resolve(uint32_t id) {
	for (int kind = btf_kind(id); kind == BTF_KIND_TYPEDEF || kind == BTF_KIND_VOLATILE || kind == BTF_KIND_CONST ||
				      kind == BTF_KIND_RESTRICT || kind == BTF_KIND_TYPE_TAG;
	     kind = btf_kind(id)) {
		id = btf.types[id]->type;
	}
	return id;
}

// The type of that kind and name (a struct's declaration only is of kind FWD), 0 if there is none.
static uint32_t btf_find(int kind, const char* name) {
	for (uint32_t id = 1; id < btf.count; id++) {
		if (btf_kind(id) == kind && strcmp(btf_name(btf.types[id]->name_off), name) == 0) {
			return id;
		}
	}
	return 0;
}

// The size of a value of the type: bytes, -1 for one that has none (void, a function).
static long btf_size(uint32_t id) {
	id = btf_resolve(id);
	switch (btf_kind(id)) {
		case BTF_KIND_PTR:
			return sizeof(void*);
		case BTF_KIND_INT:
		case BTF_KIND_ENUM:
		case BTF_KIND_ENUM64:
		case BTF_KIND_STRUCT:
		case BTF_KIND_UNION:
			return btf.types[id]->size;
		default:
			return -1;
	}
}

// The byte offset of the member name in the struct or union id, also among the members of its anonymous structs
// and unions, and the member's type in *type; -1 if there is no such member or it is a bit field.
static long btf_member(uint32_t id, const char* name, uint32_t* type) {
	int kind = btf_kind(id);
	if (kind != BTF_KIND_STRUCT && kind != BTF_KIND_UNION) {
		return -1;
	}
	const struct btf_type* t = btf.types[id];
	const struct btf_member* m = (const struct btf_member*)(t + 1);
	for (uint32_t i = 0; i < BTF_INFO_VLEN(t->info); i++) {
		uint32_t bits = BTF_INFO_KFLAG(t->info) ? BTF_MEMBER_BIT_OFFSET(m[i].offset) : m[i].offset;
		bool bitfield = BTF_INFO_KFLAG(t->info) && BTF_MEMBER_BITFIELD_SIZE(m[i].offset) != 0;
		if (m[i].name_off == 0) {
			long inner = btf_member(btf_resolve(m[i].type), name, type);
			if (inner >= 0) {
				return (long)(bits / 8) + inner;
			}
		} else if (strcmp(btf_name(m[i].name_off), name) == 0) {
			*type = m[i].type;
			return bits % 8 != 0 || bitfield ? -1 : (long)(bits / 8);
		}
	}
	return -1;
}

// The offset of strct.member, whose size must be size (0: any); -1 with a message if the kernel has no such field.
static long field(const char* strct, const char* member, long size) {
	uint32_t id = btf_find(BTF_KIND_STRUCT, strct), type = 0;
	long off = id ? btf_member(id, member, &type) : -1;
	if (off < 0 || (size && btf_size(type) != size)) {
		fprintf(stderr, "xsk_umems: the kernel's BTF has no field %s.%s (of %ld bytes, if not 0)\n", strct,
			member, size);
		return -1;
	}
	return off;
}

// ---- The iterator's program ----

// Offsets into the kernel's structures, and into the program's context.
struct offsets {
	uint32_t iter_func;                        // BTF id of bpf_iter_task_file, what the program attaches to
	long ctx_meta, ctx_task, ctx_fd, ctx_file; // its arguments: the context, 8 bytes each
	long meta_seq, task_tgid, file_inode, file_private, inode_mode, socket_sk, sk_family;
	long xs_dev, xs_umem, xs_queue_id; // from the struct sock inside struct xdp_sock
	long dev_ifindex, umem_id;
};

// The argument of the iterator's function with that name: its offset in the context (8 bytes per argument).
static long iter_argument(uint32_t func, const char* name) {
	uint32_t proto = btf_kind(func) == BTF_KIND_FUNC ? btf.types[func]->type : 0;
	if (btf_kind(proto) == BTF_KIND_FUNC_PROTO) {
		const struct btf_param* p = (const struct btf_param*)(btf.types[proto] + 1);
		for (uint32_t i = 0; i < BTF_INFO_VLEN(btf.types[proto]->info); i++) {
			if (strcmp(btf_name(p[i].name_off), name) == 0) {
				return (long)i * 8;
			}
		}
	}
	fprintf(stderr, "xsk_umems: the kernel's BTF has no iterator bpf_iter_task_file with an argument %s\n", name);
	return -1;
}

static int find_offsets(struct offsets* o) {
	o->iter_func = btf_find(BTF_KIND_FUNC, "bpf_iter_task_file");
	o->ctx_meta = iter_argument(o->iter_func, "meta");
	o->ctx_task = iter_argument(o->iter_func, "task");
	o->ctx_fd = iter_argument(o->iter_func, "fd");
	o->ctx_file = iter_argument(o->iter_func, "file");
	o->meta_seq = field("bpf_iter_meta", "seq", 8);
	o->task_tgid = field("task_struct", "tgid", 4);
	o->file_inode = field("file", "f_inode", 8);
	o->file_private = field("file", "private_data", 8);
	o->inode_mode = field("inode", "i_mode", 2);
	o->socket_sk = field("socket", "sk", 8);
	long common = field("sock", "__sk_common", 0), family = field("sock_common", "skc_family", 2);
	o->sk_family = common < 0 || family < 0 ? -1 : common + family;
	long sk = field("xdp_sock", "sk", 0), dev = field("xdp_sock", "dev", 8), umem = field("xdp_sock", "umem", 8),
	     queue = field("xdp_sock", "queue_id", 2);
	o->xs_dev = sk < 0 || dev < 0 ? -1 : dev - sk;
	o->xs_umem = sk < 0 || umem < 0 ? -1 : umem - sk;
	o->xs_queue_id = sk < 0 || queue < 0 ? -1 : queue - sk;
	o->dev_ifindex = field("net_device", "ifindex", 4);
	o->umem_id = field("xdp_umem", "id", 4);
	long all[] = {o->ctx_meta,   o->ctx_task,     o->ctx_fd,      o->ctx_file,  o->meta_seq,  o->task_tgid,
		      o->file_inode, o->file_private, o->inode_mode,  o->socket_sk, o->sk_family, o->xs_dev,
		      o->xs_umem,    o->xs_queue_id,  o->dev_ifindex, o->umem_id};
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		if (all[i] < 0) {
			return -1; // said why above
		}
		if (all[i] > INT16_MAX) {
			fprintf(stderr, "xsk_umems: an offset of %ld bytes, too large for a load instruction\n",
				all[i]);
			return -1;
		}
	}
	return o->iter_func ? 0 : -1;
}

// What the program writes per socket, and the stack slots it builds it in (below the frame pointer r10).
struct record {
	uint32_t fd, ifindex, queue;
	int32_t umem;
};
#define RECORD (-(int16_t)sizeof(struct record)) // the record at r10 - 16
#define SCRATCH (RECORD - 8)                     // a pointer read from the kernel
#define FAMILY (SCRATCH - 8)                     // the socket's family

// A small assembler: instructions, and jumps forward to labels.
enum label { OUT, NO_DEV, NO_UMEM, LABELS };
struct program {
	struct bpf_insn insns[128];
	int count;
	int label_at[LABELS];
	int jumps[16], jump_label[16], num_jumps;
};

static void emit(struct program* p, struct bpf_insn insn) {
	if (p->count < (int)(sizeof(p->insns) / sizeof(p->insns[0]))) {
		p->insns[p->count] = insn;
	}
	p->count++; // too many: load_program refuses
}

static uint8_t size_code(int bytes) {
	return bytes == 1 ? BPF_B : bytes == 2 ? BPF_H : bytes == 4 ? BPF_W : BPF_DW;
}

// dst = *(size *)(src + off)
static void load(struct program* p, int bytes, uint8_t dst, uint8_t src, long off) {
	emit(p, (struct bpf_insn){
		    .code = BPF_LDX | BPF_MEM | size_code(bytes), .dst_reg = dst, .src_reg = src, .off = (int16_t)off});
}

// *(size *)(r10 + off) = imm
static void store_imm(struct program* p, int bytes, int16_t off, int32_t imm) {
	emit(p, (struct bpf_insn){
		    .code = BPF_ST | BPF_MEM | size_code(bytes), .dst_reg = BPF_REG_10, .off = off, .imm = imm});
}

// *(size *)(r10 + off) = src
static void store(struct program* p, int bytes, int16_t off, uint8_t src) {
	emit(p, (struct bpf_insn){
		    .code = BPF_STX | BPF_MEM | size_code(bytes), .dst_reg = BPF_REG_10, .src_reg = src, .off = off});
}

static void alu_imm(struct program* p, uint8_t op, uint8_t dst, int32_t imm) {
	emit(p, (struct bpf_insn){.code = BPF_ALU64 | op | BPF_K, .dst_reg = dst, .imm = imm});
}

// if (reg op imm) goto label
static void jump(struct program* p, uint8_t op, uint8_t reg, int32_t imm, enum label label) {
	if (p->num_jumps < (int)(sizeof(p->jumps) / sizeof(p->jumps[0]))) {
		p->jumps[p->num_jumps] = p->count;
		p->jump_label[p->num_jumps++] = label;
	}
	emit(p, (struct bpf_insn){.code = BPF_JMP | op | BPF_K, .dst_reg = reg, .imm = imm});
}

static void place(struct program* p, enum label label) {
	p->label_at[label] = p->count;
}

static void call(struct program* p, int32_t helper) {
	emit(p, (struct bpf_insn){.code = BPF_JMP | BPF_CALL, .imm = helper});
}

// bpf_probe_read_kernel(r10 + to, bytes, from + off): copies kernel memory that the verifier cannot follow (a
// void *, as struct file's private_data is); on a fault it zeroes the bytes and returns non-zero.
static void read_kernel(struct program* p, int16_t to, int bytes, uint8_t from, long off) {
	emit(p, (struct bpf_insn){.code = BPF_ALU64 | BPF_MOV | BPF_X, .dst_reg = BPF_REG_3, .src_reg = from});
	alu_imm(p, BPF_ADD, BPF_REG_3, (int32_t)off);
	emit(p, (struct bpf_insn){.code = BPF_ALU64 | BPF_MOV | BPF_X, .dst_reg = BPF_REG_1, .src_reg = BPF_REG_10});
	alu_imm(p, BPF_ADD, BPF_REG_1, to);
	alu_imm(p, BPF_MOV, BPF_REG_2, bytes);
	call(p, BPF_FUNC_probe_read_kernel);
}

// The program: called for each open file of each process, with r1 = its context (meta, task, fd, file; task and
// file are NULL in the last call). For a socket of process pid whose family is AF_XDP it writes a struct record.
static void assemble(struct program* p, const struct offsets* o, int32_t pid) {
	load(p, 8, BPF_REG_6, BPF_REG_1, o->ctx_meta);
	load(p, 8, BPF_REG_7, BPF_REG_1, o->ctx_task);
	load(p, 8, BPF_REG_8, BPF_REG_1, o->ctx_file);
	load(p, 4, BPF_REG_9, BPF_REG_1, o->ctx_fd);
	jump(p, BPF_JEQ, BPF_REG_7, 0, OUT);
	jump(p, BPF_JEQ, BPF_REG_8, 0, OUT);
	// The verifier follows task and file by their BTF types: loads through them need no helper.
	load(p, 4, BPF_REG_2, BPF_REG_7, o->task_tgid);
	jump(p, BPF_JNE, BPF_REG_2, pid, OUT);
	load(p, 8, BPF_REG_2, BPF_REG_8, o->file_inode);
	jump(p, BPF_JEQ, BPF_REG_2, 0, OUT);
	load(p, 2, BPF_REG_2, BPF_REG_2, o->inode_mode);
	alu_imm(p, BPF_AND, BPF_REG_2, S_IFMT);
	jump(p, BPF_JNE, BPF_REG_2, S_IFSOCK, OUT);
	load(p, 8, BPF_REG_7, BPF_REG_8, o->file_private); // a socket file's struct socket
	store(p, 4, RECORD + (int16_t)offsetof(struct record, fd), BPF_REG_9);
	store_imm(p, 4, RECORD + (int16_t)offsetof(struct record, ifindex), 0);
	store_imm(p, 4, RECORD + (int16_t)offsetof(struct record, queue), 0);
	store_imm(p, 4, RECORD + (int16_t)offsetof(struct record, umem), -1);
	store_imm(p, 8, FAMILY, 0);
	// r7 = socket->sk, the struct sock at the start of the struct xdp_sock
	read_kernel(p, SCRATCH, 8, BPF_REG_7, o->socket_sk);
	jump(p, BPF_JNE, BPF_REG_0, 0, OUT);
	load(p, 8, BPF_REG_7, BPF_REG_10, SCRATCH);
	jump(p, BPF_JEQ, BPF_REG_7, 0, OUT);
	read_kernel(p, FAMILY, 2, BPF_REG_7, o->sk_family);
	load(p, 2, BPF_REG_2, BPF_REG_10, FAMILY);
	jump(p, BPF_JNE, BPF_REG_2, AF_XDP, OUT);
	read_kernel(p, RECORD + (int16_t)offsetof(struct record, queue), 2, BPF_REG_7, o->xs_queue_id);
	// xs->dev->ifindex, if the socket is bound
	read_kernel(p, SCRATCH, 8, BPF_REG_7, o->xs_dev);
	load(p, 8, BPF_REG_2, BPF_REG_10, SCRATCH);
	jump(p, BPF_JEQ, BPF_REG_2, 0, NO_DEV);
	read_kernel(p, RECORD + (int16_t)offsetof(struct record, ifindex), 4, BPF_REG_2, o->dev_ifindex);
	place(p, NO_DEV);
	// xs->umem->id, if it has a UMEM
	read_kernel(p, SCRATCH, 8, BPF_REG_7, o->xs_umem);
	load(p, 8, BPF_REG_2, BPF_REG_10, SCRATCH);
	jump(p, BPF_JEQ, BPF_REG_2, 0, NO_UMEM);
	read_kernel(p, RECORD + (int16_t)offsetof(struct record, umem), 4, BPF_REG_2, o->umem_id);
	place(p, NO_UMEM);
	// bpf_seq_write(meta->seq, r10 + RECORD, sizeof(struct record))
	load(p, 8, BPF_REG_1, BPF_REG_6, o->meta_seq);
	emit(p, (struct bpf_insn){.code = BPF_ALU64 | BPF_MOV | BPF_X, .dst_reg = BPF_REG_2, .src_reg = BPF_REG_10});
	alu_imm(p, BPF_ADD, BPF_REG_2, RECORD);
	alu_imm(p, BPF_MOV, BPF_REG_3, sizeof(struct record));
	call(p, BPF_FUNC_seq_write);
	place(p, OUT);
	alu_imm(p, BPF_MOV, BPF_REG_0, 0);
	emit(p, (struct bpf_insn){.code = BPF_JMP | BPF_EXIT});
	for (int i = 0; i < p->num_jumps; i++) {
		p->insns[p->jumps[i]].off = (int16_t)(p->label_at[p->jump_label[i]] - p->jumps[i] - 1);
	}
}

// Loads the program, attaches it as an iterator and returns the iterator's fd, -1 with a message.
static int open_iterator(const struct program* p, uint32_t iter_func) {
	static char log[65536];
	if (p->count > (int)(sizeof(p->insns) / sizeof(p->insns[0]))) {
		fprintf(stderr, "xsk_umems: the program has %d instructions, more than it has room for\n", p->count);
		return -1;
	}
	union bpf_attr attr = {.prog_type = BPF_PROG_TYPE_TRACING,
			       .expected_attach_type = BPF_TRACE_ITER,
			       .attach_btf_id = iter_func,
			       .insn_cnt = (uint32_t)p->count,
			       .insns = (uintptr_t)p->insns,
			       .license = (uintptr_t) "Dual BSD/GPL", // the helpers it calls are for GPL programs
			       .log_buf = (uintptr_t)log,
			       .log_size = sizeof(log),
			       .log_level = 1};
	snprintf(attr.prog_name, sizeof(attr.prog_name), "xsk_umems");
	int prog = (int)sys_bpf(BPF_PROG_LOAD, &attr);
	if (prog < 0) {
		fprintf(stderr, "xsk_umems: the kernel refused the iterator's program: %s; the verifier's log:\n%s\n",
			strerror(errno), log);
		return -1;
	}
	attr = (union bpf_attr){.link_create = {.prog_fd = (uint32_t)prog, .attach_type = BPF_TRACE_ITER}};
	int link = (int)sys_bpf(BPF_LINK_CREATE, &attr);
	int saved = errno;
	close(prog);
	if (link < 0) {
		fprintf(stderr, "xsk_umems: attaching the iterator failed: %s\n", strerror(saved));
		return -1;
	}
	attr = (union bpf_attr){.iter_create = {.link_fd = (uint32_t)link}};
	int iter = (int)sys_bpf(BPF_ITER_CREATE, &attr);
	saved = errno;
	close(link);
	if (iter < 0) {
		fprintf(stderr, "xsk_umems: creating the iterator failed: %s\n", strerror(saved));
	}
	return iter;
}

int main(int argc, char* argv[]) {
	char* end = NULL;
	long pid = argc == 2 ? strtol(argv[1], &end, 10) : 0;
	if (argc != 2 || *end != '\0' || pid <= 0 || pid > INT32_MAX) {
		fprintf(stderr, "usage: xsk_umems <pid>\n");
		return 2;
	}
	struct offsets offsets;
	static struct program program;
	if (btf_load() != 0 || find_offsets(&offsets) != 0) {
		return 1;
	}
	assemble(&program, &offsets, (int32_t)pid);
	int iter = open_iterator(&program, offsets.iter_func);
	if (iter < 0) {
		return 1;
	}
	// Records of a fixed size; a read may end in the middle of one.
	static uint8_t buf[1 << 16];
	size_t have = 0;
	ssize_t got;
	while ((got = read(iter, buf + have, sizeof(buf) - have)) > 0) {
		have += (size_t)got;
		size_t done = 0;
		for (; have - done >= sizeof(struct record); done += sizeof(struct record)) {
			struct record r;
			memcpy(&r, buf + done, sizeof(r));
			char name[IF_NAMESIZE] = "-";
			if (r.ifindex && !if_indextoname(r.ifindex, name)) {
				snprintf(name, sizeof(name), "#%u", r.ifindex); // not in this network namespace
			}
			printf("xsk fd=%u ifname=%s queue=%u umem=%d\n", r.fd, name, r.queue, r.umem);
		}
		memmove(buf, buf + done, have - done);
		have -= done;
	}
	int saved = errno;
	close(iter);
	if (got < 0 || have != 0) {
		fprintf(stderr, "xsk_umems: reading the iterator failed: %s\n",
			got < 0 ? strerror(saved) : "a part record");
		return 1;
	}
	return 0;
}
