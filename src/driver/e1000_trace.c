// The names of the e1000 family's registers (e1000_regs.h) for the register trace (src/trace.h): name, offset, count,
// stride in bytes. e1000.c passes them to ixy_trace_bar when it maps BAR0.
#include <stddef.h>

#include "e1000_regs.h"

static const struct ixy_reg_name regs[] = {
    {"CTRL", E1000_CTRL, 1, 0},
    {"STATUS", E1000_STATUS, 1, 0},
    {"CTRL_EXT", E1000_CTRL_EXT, 1, 0},
    {"MDIC", E1000_MDIC, 1, 0},
    {"ICR", E1000_ICR, 1, 0},
    {"IMS", E1000_IMS, 1, 0},
    {"IMC", E1000_IMC, 1, 0},
    {"EIAC", E1000_EIAC, 1, 0},
    {"IVAR", E1000_IVAR, 1, 0},
    {"EITR0", E1000_EITR0, 1, 0},
    {"RCTL", E1000_RCTL, 1, 0},
    {"RDBAL", E1000_RDBAL, 1, 0},
    {"RDBAH", E1000_RDBAH, 1, 0},
    {"RDLEN", E1000_RDLEN, 1, 0},
    {"RDH", E1000_RDH, 1, 0},
    {"RDT", E1000_RDT, 1, 0},
    {"RAL0", E1000_RAL0, 1, 0},
    {"RAH0", E1000_RAH0, 1, 0},
    {"TCTL", E1000_TCTL, 1, 0},
    {"TIPG", E1000_TIPG, 1, 0},
    {"TDBAL", E1000_TDBAL, 1, 0},
    {"TDBAH", E1000_TDBAH, 1, 0},
    {"TDLEN", E1000_TDLEN, 1, 0},
    {"TDH", E1000_TDH, 1, 0},
    {"TDT", E1000_TDT, 1, 0},
    {"TXDCTL", E1000_TXDCTL, 1, 0},
    {"TARC0", E1000_TARC0, 1, 0},
    {"MPC", E1000_MPC, 1, 0},
    {"GPRC", E1000_GPRC, 1, 0},
    {"GPTC", E1000_GPTC, 1, 0},
    {"GORCL", E1000_GORCL, 1, 0},
    {"GORCH", E1000_GORCH, 1, 0},
    {"GOTCL", E1000_GOTCL, 1, 0},
    {"GOTCH", E1000_GOTCH, 1, 0},
    {NULL, 0, 0, 0},
};

const struct ixy_reg_names e1000_reg_names = {"e1000", regs};
