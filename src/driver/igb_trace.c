// The names of the 82576's registers (igb_regs.h) for the register trace (src/trace.h): name, offset (of queue 0
// for the per-queue ones), count, stride in bytes. igb.c passes them to ixy_trace_bar when it maps BAR0.
#include <stddef.h>

#include "igb_regs.h"

static const struct ixy_reg_name regs[] = {
    {"CTRL", IGB_CTRL, 1, 0},
    {"STATUS", IGB_STATUS, 1, 0},
    {"EECD", IGB_EECD, 1, 0},
    {"MDIC", IGB_MDIC, 1, 0},
    {"IMC", IGB_IMC, 1, 0},
    {"EICR", IGB_EICR, 1, 0},
    {"EIMC", IGB_EIMC, 1, 0},
    {"EIMS", IGB_EIMS, 1, 0},
    {"EIAC", IGB_EIAC, 1, 0},
    {"EIAM", IGB_EIAM, 1, 0},
    {"EITR", IGB_EITR(0), 25, 4},
    {"GPIE", IGB_GPIE, 1, 0},
    {"IVAR", IGB_IVAR(0), 8, 4},
    {"RCTL", IGB_RCTL, 1, 0},
    {"RDBAL", IGB_RDBAL(0), 16, 0x40},
    {"RDBAH", IGB_RDBAH(0), 16, 0x40},
    {"RDLEN", IGB_RDLEN(0), 16, 0x40},
    {"SRRCTL", IGB_SRRCTL(0), 16, 0x40},
    {"RDH", IGB_RDH(0), 16, 0x40},
    {"RDT", IGB_RDT(0), 16, 0x40},
    {"RXDCTL", IGB_RXDCTL(0), 16, 0x40},
    {"RQDPC", IGB_RQDPC(0), 16, 0x40},
    {"RAL0", IGB_RAL0, 1, 0},
    {"RAH0", IGB_RAH0, 1, 0},
    {"RXCSUM", IGB_RXCSUM, 1, 0},
    {"MRQC", IGB_MRQC, 1, 0},
    {"RETA", IGB_RETA(0), 32, 4},
    {"RSSRK", IGB_RSSRK(0), 10, 4},
    {"TCTL", IGB_TCTL, 1, 0},
    {"TDBAL", IGB_TDBAL(0), 16, 0x40},
    {"TDBAH", IGB_TDBAH(0), 16, 0x40},
    {"TDLEN", IGB_TDLEN(0), 16, 0x40},
    {"TDH", IGB_TDH(0), 16, 0x40},
    {"TDT", IGB_TDT(0), 16, 0x40},
    {"TXDCTL", IGB_TXDCTL(0), 16, 0x40},
    {"MPC", IGB_MPC, 1, 0},
    {"GPRC", IGB_GPRC, 1, 0},
    {"GPTC", IGB_GPTC, 1, 0},
    {"GORCL", IGB_GORCL, 1, 0},
    {"GORCH", IGB_GORCH, 1, 0},
    {"GOTCL", IGB_GOTCL, 1, 0},
    {"GOTCH", IGB_GOTCH, 1, 0},
    {NULL, 0, 0, 0},
};

const struct ixy_reg_names igb_reg_names = {"igb", regs};
